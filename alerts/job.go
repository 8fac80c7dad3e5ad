package alerts

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/prometheus/alertmanager/template"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/redact"
	"github.com/autoheal/autoheal/render"
	"github.com/autoheal/autoheal/sessions"
)

// JobKind is the queue job kind of one incident's notification.
const JobKind = "alert"

// Incident statuses of a Job.
const (
	StatusFiring   = "firing"
	StatusResolved = "resolved"
)

// maxIssueText bounds the investigation text built from an incident's alerts.
const maxIssueText = 4000

// Job is the payload of an alert job: one incident (issue key) of one
// webhook notification, with everything the worker needs to open or update
// its thread and investigate, so that the webhook answers after a single
// queue write and any replica can do the rest.
type Job struct {
	Key    string `json:"key"`
	Status string `json:"status"`
	// Route names the routing rule that decided the channel and policy.
	Route   string `json:"route"`
	Channel string `json:"channel"`
	// Investigate: the route investigates this incident automatically.
	Investigate bool          `json:"investigate"`
	Cooldown    time.Duration `json:"cooldown_ns"`
	// Session holds the route's non-secret thread settings.
	Session map[string]string `json:"session,omitempty"`
	// Alert is what the root message shows (the worker adds the fire count).
	Alert render.Alert `json:"alert"`
	// Issue is what to investigate; its End is left for the worker to set.
	Issue investigate.Issue `json:"issue"`
	// Alerts is how many alerts of the notification belong to the incident.
	Alerts     int       `json:"alerts"`
	GroupKey   string    `json:"group_key,omitempty"`
	ReceivedAt time.Time `json:"received_at"`
}

// Validate checks what the worker relies on.
func (j Job) Validate() error {
	switch {
	case j.Key == "" || len(j.Key) > 200:
		return fmt.Errorf("alert job: issue key must be 1-200 bytes")
	case j.Status != StatusFiring && j.Status != StatusResolved:
		return fmt.Errorf("alert job %s: status %q must be firing or resolved", j.Key, j.Status)
	case !channelIDRE.MatchString(j.Channel):
		return fmt.Errorf("alert job %s: channel %q is not a Slack channel id", j.Key, truncate(j.Channel, 40))
	case j.Cooldown < 0:
		return fmt.Errorf("alert job %s: negative cooldown", j.Key)
	case j.ReceivedAt.IsZero():
		return fmt.Errorf("alert job %s: no receive time", j.Key)
	}
	return nil
}

// DecodeJob reads an alert job's payload.
func DecodeJob(payload []byte) (Job, error) {
	var j Job
	if err := json.Unmarshal(payload, &j); err != nil {
		return Job{}, fmt.Errorf("alert job payload: %w", err)
	}
	return j, j.Validate()
}

// Plan is what one webhook notification asks for: a job per incident, and
// the alerts a route ignores.
type Plan struct {
	Jobs     []sessions.Job
	Ignored  int // alerts dropped by an ignore route
	Firing   int // firing alerts in the notification
	Resolved int // resolved alerts in the notification
	// Cut counts label and annotation values cut or left out by the limits
	// (limits.go).
	Cut int
}

type group struct {
	key      string
	decision Decision
	firing   []template.Alert
	resolved []template.Alert
	invest   bool
}

// Plan splits a notification into incidents by route and issue key and
// builds one queue job per incident: "firing" when any of its alerts
// fires, else "resolved". now is the receive time, carried in the job so
// that a re-run of the job decides the same way.
func (r *Routing) Plan(m *Message, now time.Time) (Plan, error) {
	var p Plan
	redactAlerts(m.Alerts) // masked before anything is cut, queued or shown
	p.Cut = BoundAlerts(m.Alerts)
	by := map[string]*group{}
	var order []string
	for _, a := range m.Alerts {
		labels := map[string]string(a.Labels)
		if a.Status == StatusFiring {
			p.Firing++
		} else {
			p.Resolved++
		}
		d := r.Decide(labels)
		if d.Ignore {
			p.Ignored++
			continue
		}
		key := IssueKey(labels, d.KeyLabels...)
		g := by[key]
		if g == nil {
			g = &group{key: key, decision: d}
			by[key] = g
			order = append(order, key)
		}
		if a.Status == StatusFiring {
			g.firing = append(g.firing, a)
			if d.Investigate {
				g.invest = true
			}
		} else {
			g.resolved = append(g.resolved, a)
		}
	}
	for _, key := range order {
		g := by[key]
		j := Job{Key: key, Route: g.decision.Route, Channel: g.decision.Channel, Cooldown: g.decision.Cooldown,
			Session: g.decision.Session, GroupKey: truncate(redact.String(m.GroupKey), 300), ReceivedAt: now.UTC()}
		alerts := g.firing
		if len(alerts) > 0 {
			j.Status, j.Investigate = StatusFiring, g.invest
			j.Issue = Issue(alerts, IssueOptions{Key: key, Repo: j.Session["repo"], Ref: j.Session["ref"],
				Service: j.Session["service_name"], LogServiceLabel: j.Session["log_service_label"], Now: now})
			j.Issue.End = time.Time{} // the worker investigates up to its own now
			j.Issue.Text = truncate(j.Issue.Text, maxIssueText)
		} else {
			alerts = g.resolved
			j.Status = StatusResolved
		}
		j.Alerts = len(alerts)
		j.Alert = renderAlert(alerts, j.Status, j.Session["service_name"])
		payload, err := json.Marshal(j)
		if err != nil {
			return Plan{}, fmt.Errorf("encode alert job %s: %w", key, err)
		}
		p.Jobs = append(p.Jobs, sessions.Job{ID: jobID(key, j.Status, alerts), Kind: JobKind, Key: key, Payload: payload, EnqueuedAt: now.UTC()})
	}
	return p, nil
}

// redactAlerts masks credentials in the alerts' labels, annotations and
// generator URLs: a runbook link with ?access_token=, a description quoting
// a connection string.
func redactAlerts(alerts []template.Alert) {
	for i := range alerts {
		a := &alerts[i]
		for _, kv := range []template.KV{a.Labels, a.Annotations} {
			for k, v := range kv {
				kv[k] = redact.String(v)
			}
		}
		a.GeneratorURL = redact.String(a.GeneratorURL)
	}
}

// jobID identifies one notification of one incident: the same alerts
// (fingerprint, start, and end once resolved) give the same id, so a
// retried or duplicated delivery is dropped by the queue's dedupe window,
// while a later repeat or a change counts as a new fire.
func jobID(key, status string, alerts []template.Alert) string {
	ids := make([]string, 0, len(alerts))
	for _, a := range alerts {
		fp := a.Fingerprint
		if fp == "" {
			fp = labelsFingerprint(a.Labels)
		}
		id := fp + "@" + a.StartsAt.UTC().Format(time.RFC3339Nano)
		if status == StatusResolved {
			id += "~" + a.EndsAt.UTC().Format(time.RFC3339Nano)
		}
		ids = append(ids, id)
	}
	sort.Strings(ids)
	sum := sha256.Sum256([]byte(key + "\x00" + status + "\x00" + strings.Join(ids, "\x00")))
	return "al-" + hex.EncodeToString(sum[:16])
}

func labelsFingerprint(labels template.KV) string {
	names := labels.SortedPairs()
	var b strings.Builder
	for _, p := range names {
		b.WriteString(p.Name + "\x00" + p.Value + "\x00")
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:8])
}

var severityRank = map[string]int{"critical": 5, "page": 5, "error": 4, "high": 4, "warning": 3, "warn": 3, "medium": 3, "info": 2, "low": 2, "none": 1}

// renderAlert summarizes an incident's alerts for its root message.
func renderAlert(alerts []template.Alert, status, service string) render.Alert {
	first := alerts[0]
	labels := map[string]string(first.Labels)
	a := render.Alert{
		Name:         labels["alertname"],
		Namespace:    Namespace(labels),
		Service:      service,
		GeneratorURL: first.GeneratorURL,
		Resolved:     status == StatusResolved,
	}
	if a.Service == "" {
		a.Service = Workload(labels)
	}
	best := -1
	for _, al := range alerts {
		sev := al.Labels["severity"]
		if rank := severityRank[strings.ToLower(sev)]; sev != "" && rank > best {
			a.Severity, best = sev, rank
		}
		if a.Summary == "" {
			a.Summary = firstNonEmpty(al.Annotations["summary"], al.Annotations["message"])
		}
		if a.Description == "" {
			a.Description = al.Annotations["description"]
		}
		if a.GeneratorURL == "" {
			a.GeneratorURL = al.GeneratorURL
		}
		if !al.StartsAt.IsZero() && (a.StartsAt.IsZero() || al.StartsAt.Before(a.StartsAt)) {
			a.StartsAt = al.StartsAt.UTC()
		}
		if a.Resolved && al.EndsAt.After(a.EndsAt) {
			a.EndsAt = al.EndsAt.UTC()
		}
	}
	if n := len(alerts); n > 1 {
		a.Description = strings.TrimSpace(a.Description + fmt.Sprintf("\n(%d alerts in this incident)", n))
	}
	return a
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n]
}
