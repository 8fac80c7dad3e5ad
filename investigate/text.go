package investigate

import (
	"fmt"
	"strings"
	"time"
)

// FormatText renders a result for a terminal.
func FormatText(r *HealResult) string {
	var b strings.Builder
	rc := r.RootCause
	line := strings.Repeat("─", 72)
	fmt.Fprintf(&b, "%s\n%s\n%s\n", line, r.Summary, line)
	fmt.Fprintf(&b, "Root cause   %s\n", rc.Description)
	fmt.Fprintf(&b, "Service      %s\n", orDash(rc.Service))
	if rc.File != "" {
		fmt.Fprintf(&b, "Location     %s:%d", rc.File, rc.Line)
		if rc.Function != "" {
			fmt.Fprintf(&b, " (%s)", rc.Function)
		}
		b.WriteString("\n")
	}
	if d := r.Deploy; d != nil {
		fmt.Fprintf(&b, "Deployed by  %s\n", d.String())
		if d.Note != "" {
			fmt.Fprintf(&b, "             (%s)\n", d.Note)
		}
	}
	fmt.Fprintf(&b, "Class        %s / %s\n", bucketWord(rc.Bucket), strings.ReplaceAll(string(rc.ErrorType), "_", " "))
	fmt.Fprintf(&b, "Confidence   %s (raw %.2f, claimed %s)\n             %s\n", rc.Band, rc.RawConfidence, rc.ClaimedBand, r.ConfidenceNote)
	if r.NeedsHuman {
		fmt.Fprintf(&b, "Needs a human %s\n", r.NeedsHumanReason)
	}
	for _, a := range r.Alternatives {
		fmt.Fprintf(&b, "Also possible %s (%s confidence, %s planner)\n             %s\n", a.RootCause.Headline(), a.RootCause.Band, a.Planner, a.Note)
	}
	if len(r.Runbooks) > 0 {
		fmt.Fprintf(&b, "Runbook      %s\n", strings.Join(r.Runbooks, ", "))
	}
	if len(r.Evidence) > 0 {
		b.WriteString("\nEvidence\n")
		for _, f := range r.Evidence {
			where := f.Service
			if f.File != "" {
				where += fmt.Sprintf(" %s:%d", f.File, f.Line)
			}
			count := ""
			if f.Count > 1 {
				count = fmt.Sprintf(" ×%d", f.Count)
			}
			fmt.Fprintf(&b, "  [%s/%s]%s %s\n      %s\n", f.Family, f.Kind, count, strings.TrimSpace(where), f.Quote)
		}
	}
	b.WriteString("\nRecommended fix\n  " + r.Fix.Summary + "\n")
	for i, s := range r.Fix.Steps {
		fmt.Fprintf(&b, "  %d. %s\n", i+1, s)
	}
	if r.Fix.ManifestEdit != nil {
		m := r.Fix.ManifestEdit
		fmt.Fprintf(&b, "  Manifest edit: %s:%d %s: %s\n", m.File, m.Line, m.Path, m.Change())
	}
	if r.Fix.Patch != nil {
		b.WriteString("  Patch:\n")
		for _, l := range strings.Split(strings.TrimRight(r.Fix.Patch.Diff, "\n"), "\n") {
			b.WriteString("    " + l + "\n")
		}
	}
	if r.Fix.RegressionTest != "" {
		b.WriteString("  Regression test: " + r.Fix.RegressionTest + "\n")
	}
	if r.Fix.Remediation != "" {
		b.WriteString("  Remediation: " + r.Fix.Remediation + "\n")
	}
	if len(r.Fix.AffectedRecords) > 0 {
		b.WriteString("  Affected records: " + strings.Join(r.Fix.AffectedRecords, ", ") + "\n")
	}
	if r.Fix.Flake != nil {
		fmt.Fprintf(&b, "  Flake report: %s; %s\n", r.Fix.Flake.Frequency, r.Fix.Flake.Conditions)
	}
	b.WriteString("\nTimeline\n")
	for _, t := range r.Timeline {
		status := "✓"
		detail := t.Summary
		if !t.OK {
			status = "✗"
			detail = fmt.Sprintf("%s: %s", t.ErrorKind, t.Error)
		} else if t.Warning != "" {
			status = "⚠"
			detail += " — warning: " + t.Warning
		}
		if t.Runbook != "" {
			detail += " (runbook " + t.Runbook + ")"
		}
		fmt.Fprintf(&b, "  %2d %s %-24s %6s  %s\n", t.Seq, status, t.Tool, t.Duration.Round(time.Millisecond), detail)
	}
	if len(r.ToolsUnavailable) > 0 {
		b.WriteString("\nUnavailable\n")
		for _, u := range r.ToolsUnavailable {
			fmt.Fprintf(&b, "  %-8s %s (%s)\n", u.Family, u.Reason, u.Kind)
		}
	}
	fmt.Fprintf(&b, "\n%d tool calls · %s · %s", len(r.Timeline), r.Wall.Round(time.Millisecond), r.Mode)
	if r.Usage != nil {
		fmt.Fprintf(&b, " · %d prompt + %d completion tokens", r.Usage.PromptTokens, r.Usage.CompletionTokens)
		if r.Usage.CostUSD > 0 {
			fmt.Fprintf(&b, " ($%.4f)", r.Usage.CostUSD)
		}
	}
	if r.ModeNote != "" {
		b.WriteString(" · " + r.ModeNote)
	}
	b.WriteString("\n")
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Headline names a root cause in one line: "code bug: null pointer in
// payment at src/payment/charge.js:58".
func (rc RootCause) Headline() string {
	s := fmt.Sprintf("%s: %s in %s", bucketWord(rc.Bucket), strings.ReplaceAll(string(rc.ErrorType), "_", " "), orDash(rc.Service))
	if rc.File != "" {
		s += fmt.Sprintf(" at %s:%d", rc.File, rc.Line)
	}
	return s
}
