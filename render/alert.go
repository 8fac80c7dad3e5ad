package render

import (
	"fmt"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/autoheal/autoheal/investigate"
)

// Alert is what the alert root message shows. The alerts package fills it
// from Alertmanager's webhook body; render does not know that format.
type Alert struct {
	Name         string // alertname
	Severity     string
	Service      string
	Namespace    string
	Summary      string // annotations.summary
	Description  string // annotations.description
	GeneratorURL string
	StartsAt     time.Time
	// Resolved and EndsAt describe the end of the alert.
	Resolved bool
	EndsAt   time.Time
	// FireCount is how many times the alert has fired for this issue
	// (1 the first time); LastFired is the latest firing.
	FireCount int
	LastFired time.Time
	// Outcome is how the latest investigation in the alert's thread ended;
	// nil while none has (the root then says AutoHeal is investigating).
	Outcome *AlertOutcome `json:",omitempty"`
}

// AlertOutcome is the one line an alert's root message shows once an
// investigation in its thread has finished: the result's headline and
// confidence badge, or that the investigation failed.
type AlertOutcome struct {
	Headline string           `json:"headline,omitempty"`
	Band     investigate.Band `json:"band,omitempty"`
	// Failed is true when the investigation failed for good; Reason says
	// why (already redacted).
	Failed bool   `json:"failed,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// OutcomeOf is the outcome line of a result: the same headline the result
// message shows, with the band it earned.
func OutcomeOf(r *investigate.HealResult) AlertOutcome {
	if r == nil {
		r = &investigate.HealResult{}
	}
	return AlertOutcome{Headline: resultHeadline(r), Band: r.RootCause.Band}
}

// FailedOutcome is the outcome line of an investigation that failed.
func FailedOutcome(reason string) AlertOutcome {
	return AlertOutcome{Failed: true, Reason: reason}
}

// Line renders the outcome as one mrkdwn line.
func (o AlertOutcome) Line() string {
	if o.Failed {
		s := ":x: The investigation failed"
		if r := escLine(o.Reason, 200); r != "" {
			s += ": " + r
		}
		return s + " — see the thread"
	}
	h := escLine(o.Headline, 250)
	if h == "" {
		h = "Investigation finished"
	}
	return ":mag: " + h + " · " + Badge(o.Band) + " — details in the thread"
}

// fallback is the outcome in plain words for notifications.
func (o AlertOutcome) fallback() string {
	if o.Failed {
		return "investigation failed"
	}
	return escLine(o.Headline, 250) + " (" + bandWord(o.Band) + ")"
}

// Alert message budgets.
const (
	alertNameMax        = 120
	alertSummaryMax     = 800
	alertDescriptionMax = 1500
)

func severityEmoji(sev string) string {
	switch strings.ToLower(strings.TrimSpace(sev)) {
	case "critical", "page", "error", "high":
		return ":red_circle:"
	case "warning", "warn", "medium":
		return ":large_yellow_circle:"
	case "info", "low", "none":
		return ":large_blue_circle:"
	}
	return ":white_circle:"
}

func alertName(a Alert) string {
	if n := escLine(a.Name, alertNameMax); n != "" {
		return n
	}
	return "Unnamed alert"
}

// AlertRoot renders the channel message an alert opens (and later updates):
// firing with its details, "fired again (n times)", or resolved.
func AlertRoot(a Alert) Message {
	name := alertName(a)
	var title string
	if a.Resolved {
		title = ":white_check_mark: *[RESOLVED]* ~" + name + "~"
	} else {
		title = ":rotating_light: *[FIRING]* " + name
	}
	blocks := []slack.Block{section(title)}

	var fields []*slack.TextBlockObject
	add := func(k, v string) {
		if v != "" {
			fields = append(fields, mrkdwn("*"+k+"*\n"+v))
		}
	}
	if sev := escLine(a.Severity, 40); sev != "" {
		add("Severity", severityEmoji(a.Severity)+" "+sev)
	}
	add("Service", escLine(a.Service, 100))
	add("Namespace", escLine(a.Namespace, 100))
	if !a.StartsAt.IsZero() {
		add("Firing since", slackDate(a.StartsAt))
	}
	if a.Resolved && !a.EndsAt.IsZero() {
		add("Resolved", slackDate(a.EndsAt))
	}
	if len(fields) > 0 {
		blocks = append(blocks, slack.NewSectionBlock(nil, fields, nil))
	}
	text := joinNonEmpty("\n", escLine(a.Summary, alertSummaryMax), esc(strings.TrimSpace(a.Description), alertDescriptionMax))
	if text != "" {
		blocks = append(blocks, section(text))
	}

	var ctx []string
	if u := safeURL(a.GeneratorURL); u != "" {
		ctx = append(ctx, link(u, "View source", 20))
	}
	if a.FireCount > 1 {
		s := fmt.Sprintf(":repeat: Fired again (%d times)", a.FireCount)
		if !a.LastFired.IsZero() {
			s += ", last " + slackDate(a.LastFired)
		}
		ctx = append(ctx, s)
	}
	if a.Resolved {
		if d := alertDuration(a); d != "" {
			ctx = append(ctx, "Lasted "+d)
		}
	}
	switch {
	case a.Outcome != nil:
		ctx = append(ctx, a.Outcome.Line())
	case !a.Resolved:
		ctx = append(ctx, "AutoHeal is investigating in the thread")
	}
	if len(ctx) > 0 {
		blocks = append(blocks, contextBlock(ctx...))
	}

	state := "FIRING"
	if a.Resolved {
		state = "RESOLVED"
	}
	fallback := fmt.Sprintf("[%s] %s", state, name)
	if where := escLine(joinNonEmpty("/", a.Namespace, a.Service), 120); where != "" {
		fallback += " (" + where + ")"
	}
	if s := escLine(a.Summary, 300); s != "" {
		fallback += ": " + s
	}
	if a.FireCount > 1 {
		fallback += fmt.Sprintf(" — fired %d times", a.FireCount)
	}
	if a.Outcome != nil {
		fallback += " — " + a.Outcome.fallback()
	}
	return Message{Text: fallback, Blocks: blocks}
}

func alertDuration(a Alert) string {
	if a.StartsAt.IsZero() || a.EndsAt.IsZero() || a.EndsAt.Before(a.StartsAt) {
		return ""
	}
	return FormatDuration(a.EndsAt.Sub(a.StartsAt))
}

// AlertResolvedReply is the thread reply posted when an alert resolves.
func AlertResolvedReply(a Alert) Message {
	s := ":white_check_mark: *" + alertName(a) + "* resolved"
	if !a.EndsAt.IsZero() {
		s += " " + slackDate(a.EndsAt)
	}
	if d := alertDuration(a); d != "" {
		s += " after " + d
	}
	if a.FireCount > 1 {
		s += fmt.Sprintf(" (fired %d times)", a.FireCount)
	}
	s += "."
	fallback := alertName(a) + " resolved"
	if d := alertDuration(a); d != "" {
		fallback += " after " + d
	}
	return Message{Text: fallback, Blocks: []slack.Block{section(s)}}
}
