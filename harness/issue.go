package harness

import (
	"fmt"

	"github.com/prometheus/alertmanager/template"

	"github.com/autoheal/autoheal/alerts"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/scenario"
)

// Issue builds what the bot would investigate for the scenario's trigger:
// the mention text, or every firing alert of the webhook group, over the
// scenario's window when it names a start.
func Issue(s *scenario.Scenario) (investigate.Issue, error) {
	cfg := s.Config
	if !s.Trigger.IsAlert() {
		return investigate.Issue{
			Text: s.Trigger.Mention, Trigger: investigate.TriggerMention, Start: s.Start, End: s.Now,
			Service: cfg["service_name"], Namespace: cfg["namespace"], Repo: cfg["repo"], Ref: cfg["ref"],
			LogServiceLabel: cfg["log_service_label"],
		}, nil
	}
	msg, err := alerts.Decode(s.Trigger.Alert)
	if err != nil {
		return investigate.Issue{}, fmt.Errorf("%s: trigger.alert: %w", s.Name, err)
	}
	var firing []template.Alert
	for _, a := range msg.Alerts {
		if a.Status == "firing" {
			firing = append(firing, a)
		}
	}
	if len(firing) == 0 {
		firing = msg.Alerts
	}
	key := ""
	if incs := msg.Incidents(); len(incs) > 0 {
		key = incs[0].Key
	}
	issue := alerts.Issue(firing, alerts.IssueOptions{Key: key, Now: s.Now, Repo: cfg["repo"], Ref: cfg["ref"],
		Service: cfg["service_name"], LogServiceLabel: cfg["log_service_label"]})
	issue.Start = s.Start
	return issue, nil
}
