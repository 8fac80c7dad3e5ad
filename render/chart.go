package render

import (
	"fmt"
	"strings"

	"github.com/autoheal/autoheal/investigate"
)

// ChartCaption is the line posted with the evidence chart and the image's
// alternative text for screen readers (Slack's alt_txt, at most 1,000
// characters).
func ChartCaption(ec *investigate.EvidenceChart) (comment, alt string) {
	if ec == nil {
		return "", ""
	}
	what := strings.TrimSpace(ec.Service + " " + ec.What)
	parts := []string{fmt.Sprintf("*Evidence:* %s", Escape(what))}
	altParts := []string{"Line chart of " + what}
	if !ec.Onset.IsZero() {
		parts = append(parts, "onset "+ec.Onset.UTC().Format("15:04"))
		altParts = append(altParts, "changing at the onset, "+ec.Onset.UTC().Format("15:04")+" UTC")
	}
	if ec.Limit > 0 && ec.LimitLabel != "" {
		parts = append(parts, Escape(ec.LimitLabel))
		altParts = append(altParts, "against its "+ec.LimitLabel)
	}
	if c := ec.Change; c != nil && !c.At.IsZero() {
		label := strings.TrimSpace(c.SHA + " " + c.At.UTC().Format("15:04"))
		parts = append(parts, "change `"+Escape(label)+"`")
		altParts = append(altParts, "with the blamed change "+strings.TrimSpace(c.SHA+" "+c.Title)+" at "+c.At.UTC().Format("15:04")+" UTC")
	}
	if ec.Baseline {
		altParts = append(altParts, "over its baseline band from before the onset")
	}
	alt = strings.Join(altParts, ", ") + "."
	if r := []rune(alt); len(r) > 1000 {
		alt = string(r[:999]) + "…"
	}
	return strings.Join(parts, " · "), alt
}
