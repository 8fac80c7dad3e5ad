package render

import (
	"fmt"
	"strings"
	"time"
)

// PastIncident is a similar earlier incident the incident memory recalls,
// shown under a result ("Seen before").
type PastIncident struct {
	At        time.Time
	Channel   string // channel id
	ThreadURL string // permalink of its thread ("" when unknown)
	PRURL     string
	PRNumber  int
	PRState   string // open, merged or closed
	Decision  string // approved or rejected
	Reason    string // why the proposal was rejected
	// Same is true for the same fingerprint (not only a close error
	// template in the same service).
	Same bool
}

// MaxPastIncidents is how many past incidents a result shows.
const MaxPastIncidents = 3

// pastIncidentsText is the "Seen before" section: a regression warning
// when the same failure was fixed by a merged pull request, then up to
// MaxPastIncidents lines.
func pastIncidentsText(past []PastIncident, now time.Time) string {
	if len(past) == 0 {
		return ""
	}
	var lines []string
	for _, p := range past {
		if p.Same && p.PRState == "merged" {
			lines = append(lines, fmt.Sprintf(":warning: *Regression:* the same failure was fixed by %s, merged after the incident of %s.",
				prRef(p), ago(p.At, now)))
			break
		}
	}
	lines = append(lines, "*Seen before*")
	for i, p := range past {
		if i == MaxPastIncidents {
			break
		}
		where := "in <#" + p.Channel + ">"
		if p.ThreadURL != "" {
			where += " (<" + p.ThreadURL + "|thread>)"
		}
		line := "• " + ago(p.At, now) + " " + where
		switch {
		case p.PRURL != "" && p.PRState != "":
			verb := map[string]string{"merged": "fixed by", "open": "fix proposed in", "closed": "fix closed unmerged:"}[p.PRState]
			if verb == "" {
				verb = "pull request"
			}
			line += " — " + verb + " " + prRef(p) + " (" + Escape(p.PRState) + ")"
		case p.PRURL != "":
			line += " — pull request " + prRef(p)
		case p.Decision == "rejected":
			line += " — the proposed fix was rejected"
			if p.Reason != "" {
				line += ": _" + escLine(p.Reason, 200) + "_"
			}
		}
		if !p.Same {
			line += " _(similar error)_"
		}
		lines = append(lines, line)
	}
	return truncateMrkdwn(strings.Join(lines, "\n"), sectionBudget)
}

func prRef(p PastIncident) string {
	label := "the pull request"
	if p.PRNumber > 0 {
		label = fmt.Sprintf("PR #%d", p.PRNumber)
	}
	if p.PRURL == "" {
		return label
	}
	return "<" + strings.ReplaceAll(p.PRURL, "&", "&amp;") + "|" + label + ">"
}

// ago says how long before now t was, in the largest whole unit.
func ago(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < 0 || t.IsZero():
		return "earlier"
	case d < time.Hour:
		return plural(int(d.Minutes()), "minute", "minutes") + " ago"
	case d < 48*time.Hour:
		return plural(int(d.Hours()), "hour", "hours") + " ago"
	default:
		return plural(int(d.Hours()/24), "day", "days") + " ago"
	}
}
