package investigate

import (
	"fmt"
	"sort"
	"strings"
)

// Explain lists the candidate root causes the receipts support with their
// scores and evidence counts: why the engine chose what it chose.
func (e *Engine) Explain(issue Issue, receipts []Receipt) string {
	issue = NormalizeIssue(issue, e.opts.Now())
	ev := newEvidence(issue, receipts)
	var b strings.Builder
	fmt.Fprintf(&b, "window %s .. %s, onset %s, impact %s, hinted %v, failing traces %v\n", issue.Start.Format("15:04"), issue.End.Format("15:04"),
		ev.onset.Format("15:04:05"), ev.impact.Format("15:04:05"), keys(ev.hinted), ev.failing)
	for _, n := range ev.novel {
		fmt.Fprintf(&b, "  novel  %s\n", Quote(n.finding().Quote, 160))
	}
	for _, f := range ev.changePoints() {
		fmt.Fprintf(&b, "  change %s\n", Quote(f.Quote, 160))
	}
	for i, c := range ev.candidates() {
		if i >= 8 {
			break
		}
		fams := evidenceFamilies(c)
		fmt.Fprintf(&b, "%5.2f  %-22s %-20s sig=%-18s origins=%d callee=%d exc=%d logCause=%d logProp=%d infra=%d novel=%d/%d app=%v fams=%v first=%s\n",
			c.Score, c.Service, c.ErrorType, c.Signature, c.traceOrigins, c.traceCallee, c.exceptions, c.logCause, c.logPropagated, c.infra, c.novel, c.logNovel, c.hasAppFrame, fams, c.First.Format("15:04:05"))
		for j, f := range c.Support {
			if j >= 3 {
				break
			}
			fmt.Fprintf(&b, "         [%s/%s ×%d %s] %s\n", f.Family, f.Kind, f.Count, f.Time.Format("15:04"), Quote(f.Quote, 110))
		}
		if i < 2 {
			for j, m := range ev.explainingChanges(c) {
				if j >= 2 {
					break
				}
				fmt.Fprintf(&b, "         change %.2f %s:%d %s (%s)\n", m.score, m.line.change.File, m.line.line, Quote(m.line.change.Quote, 60), strings.Join(m.why, "; "))
			}
		}
	}
	return b.String()
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
