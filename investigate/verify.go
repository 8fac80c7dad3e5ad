package investigate

import (
	"fmt"
	"path"
	"strings"
	"time"
)

// FirstRound returns the deterministic first evidence round for an issue
// (every configured family at once). Planners run it before they reason.
func (e *Engine) FirstRound(issue Issue) []ToolCall {
	return e.firstRound(NormalizeIssue(issue, e.opts.Now()))
}

// SecondRound returns the calls the deterministic planner would make after
// the given receipts: the source window at the anchored frame, the leaking or
// configuration change, the service's manifests. Empty when the receipts
// support no hypothesis.
func (e *Engine) SecondRound(issue Issue, receipts []Receipt) []ToolCall {
	issue = NormalizeIssue(issue, e.opts.Now())
	ev := newEvidence(issue, receipts)
	h := ev.best()
	if h == nil {
		return nil
	}
	return e.secondRound(ev, h)
}

// ConcludeReceipts draws the deterministic conclusion from whatever receipts
// exist (the LLM planner falls back to it on any failure).
func (e *Engine) ConcludeReceipts(issue Issue, receipts []Receipt) *HealResult {
	issue = NormalizeIssue(issue, e.opts.Now())
	ev := newEvidence(issue, receipts)
	return e.Conclude(issue, receipts, ev, ev.best())
}

// EvidenceFor computes, from receipts only, what supports a claimed root
// cause: the governor's input for a planner's claim. A claim naming a file
// that no successful source receipt read is not anchored (hallucinated paths
// count for nothing); an error type no finding shows is not known.
func EvidenceFor(issue Issue, receipts []Receipt, rc RootCause) GovernorInput {
	ev := newEvidence(issue, receipts)
	in := GovernorInput{Warnings: ReceiptWarnings(receipts)}
	svc := NormalizeServiceName(rc.Service)
	fams := map[Family]bool{}
	for _, f := range ev.findings {
		switch f.Kind {
		case KindCallEdge, KindChangeCorrelation:
			continue
		case KindSourceAnchor, KindManifest:
			if rc.File != "" && samePath(f.File, rc.File) && (rc.Line == 0 || abs(f.Line-rc.Line) <= 3) {
				in.FileAnchored, in.SourceRead = true, true
			}
			continue
		}
		if NormalizeServiceName(f.Service) != svc || svc == "" {
			continue
		}
		if f.ErrorType == rc.ErrorType && rc.ErrorType != ErrUnknown && rc.ErrorType != "" {
			in.ErrorTypeKnown = true
			switch f.Family {
			case FamilyTraces, FamilyLogs, FamilyMetrics, FamilyK8s, FamilyMCP:
				fams[f.Family] = true
			}
		}
	}
	for _, f := range []Family{FamilyK8s, FamilyLogs, FamilyMCP, FamilyMetrics, FamilyTraces} {
		if fams[f] {
			in.Corroborating = append(in.Corroborating, f)
		}
	}
	// A competing explanation the evidence does not rule out.
	cs := ev.candidates()
	var mine, other *candidate
	for _, c := range cs {
		if NormalizeServiceName(c.Service) == svc && mine == nil {
			mine = c
		} else if NormalizeServiceName(c.Service) != svc && other == nil {
			other = c
		}
	}
	if other != nil && (mine == nil || other.Score > 0.7*mine.Score) {
		in.Contested = string(other.ErrorType) + " in " + other.Service
	}
	// A classification the evidence does not settle (a leak or a limit, bad
	// data or a code bug) is not HIGH, whoever claims it.
	for _, c := range cs {
		if NormalizeServiceName(c.Service) == svc && c.ErrorType == rc.ErrorType {
			if doubt := ev.bucketDoubt(&hypothesis{c: c}, rc.Bucket, rc.File, rc.Line); doubt != "" {
				in.Contested = joinNonEmpty("; ", in.Contested, doubt)
			}
			break
		}
	}
	return in
}

func samePath(a, b string) bool {
	a, b = strings.TrimPrefix(path.Clean("/"+a), "/"), strings.TrimPrefix(path.Clean("/"+b), "/")
	return a == b || strings.HasSuffix(a, "/"+b) || strings.HasSuffix(b, "/"+a)
}

// Verify re-reads a finished answer against the receipts and can only
// lower its band, saying why in the confidence note: does the located line
// hold what the fix changes, does the setting the failure names sit at
// that line, did the change named as the cause land before the impact?
// Checks without the receipts to decide them pass.
func Verify(issue Issue, receipts []Receipt, res *HealResult) {
	if res == nil {
		return
	}
	ev := newEvidence(NormalizeIssue(issue, issue.End), receipts)
	verifyWith(ev, res)
}

func verifyWith(ev *evidence, res *HealResult) {
	var failed []string
	rc := res.RootCause
	if rc.File != "" && rc.Line > 0 {
		text, read := ev.linesAt(rc.File, rc.Line, 3)
		if p := res.Fix.Patch; p != nil && read && samePath(p.File, rc.File) {
			if removed := patchRemoved(p.Diff); len(removed) > 0 && !anyIn(removed, text) {
				failed = append(failed, fmt.Sprintf("the lines the patch removes are not at %s:%d in the source read", rc.File, rc.Line))
			}
		}
		if m := res.Fix.ManifestEdit; m != nil && samePath(m.File, rc.File) {
			if t, ok := ev.linesAt(m.File, m.Line, 1); ok {
				if v := strings.Trim(m.OldValue, `"'`); v != "" && !strings.Contains(t, v) {
					failed = append(failed, fmt.Sprintf("%s:%d does not hold the value %s the edit replaces", m.File, m.Line, m.OldValue))
				} else if key := settingKey(m.Path); key != "" && !strings.Contains(strings.ToLower(t), strings.ToLower(key)) {
					failed = append(failed, fmt.Sprintf("the setting %s the edit names is not at %s:%d", key, m.File, m.Line))
				}
			}
		}
	}
	if l, ok := ev.untouchedSettingLine(rc); ok && rc.Band == BandHigh {
		failed = append(failed, fmt.Sprintf("%s:%d was not changed, while %s just before the impact changed line %d of that file (%s)", rc.File, rc.Line, Quote(l.change.Quote, 60), l.line, Quote(strings.TrimSpace(l.text), 60)))
	}
	if !ev.impact.IsZero() {
		for _, f := range res.Evidence {
			if f.Kind == KindChangeCorrelation && f.Time.After(ev.impact.Add(5*time.Minute)) && (rc.File == "" || samePath(f.File, rc.File)) {
				failed = append(failed, fmt.Sprintf("the change %s landed after the impact began (%s)", Quote(f.Quote, 60), ev.impact.UTC().Format("15:04")))
				break
			}
		}
	}
	if len(failed) == 0 {
		return
	}
	band := res.RootCause.Band
	for range failed {
		band = lower(band)
	}
	if band == res.RootCause.Band {
		return
	}
	res.RootCause.Band = band
	res.ConfidenceNote = joinNonEmpty(" ", res.ConfidenceNote, fmt.Sprintf("Verifier: lowered to %s: %s.", band, strings.Join(failed, "; ")))
	res.Summary = summarize(res.RootCause)
}

func lower(b Band) Band {
	if b == BandHigh {
		return BandMedium
	}
	return BandLow
}

// linesAt returns the source lines read around file:line (within radius),
// from a source window or a changed line; ok is false when nothing read
// covers the line.
func (ev *evidence) linesAt(file string, line, radius int) (string, bool) {
	var b strings.Builder
	found := false
	for _, f := range ev.findings {
		switch f.Kind {
		case KindSourceAnchor:
			if !samePath(f.File, file) {
				continue
			}
			for _, row := range windowLines(f.Attrs["window"]) {
				t := strings.TrimLeft(row, "> ")
				var n int
				if _, err := fmt.Sscanf(t, "%d", &n); err != nil || abs(n-line) > radius {
					continue
				}
				b.WriteString(strings.TrimLeft(t[len(fmt.Sprint(n)):], " "))
				b.WriteByte('\n')
				found = true
			}
		case KindManifest:
			if samePath(f.File, file) && abs(f.Line-line) <= radius {
				b.WriteString(f.Attrs["path"] + ": " + f.Attrs["value"] + " " + f.Attrs["name"] + "\n")
				found = true
			}
		}
	}
	return b.String(), found
}

// patchRemoved lists the lines a unified diff removes (trimmed, non-empty).
func patchRemoved(diff string) []string {
	var out []string
	for _, l := range strings.Split(diff, "\n") {
		if strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "---") {
			if t := strings.TrimSpace(l[1:]); t != "" {
				out = append(out, t)
			}
		}
	}
	return out
}

func anyIn(lines []string, text string) bool {
	for _, l := range lines {
		if strings.Contains(text, l) {
			return true
		}
	}
	return false
}

// settingKey is the last key of a manifest path
// (spec.containers[cart].resources.limits.memory -> memory).
func settingKey(p string) string {
	if i := strings.LastIndexAny(p, ".]"); i >= 0 {
		p = p[i+1:]
	}
	return strings.TrimSpace(p)
}

// untouchedSettingLine: the answer locates an infrastructure cause at a
// configuration line no recent change touched, while a change to the same
// file shortly before the impact added other lines that concern the same
// kind of failure (an OOM located at the unchanged memory limit while the
// change just before added a RAM-backed volume). Which of the two lines is
// the cause is then a judgement, not a reading.
func (ev *evidence) untouchedSettingLine(rc RootCause) (changeLine, bool) {
	if rc.File == "" || rc.Line <= 0 || !IsConfigPath(rc.File) {
		return changeLine{}, false
	}
	kw := keywordsFor(rc.ErrorType, "")
	if len(kw) == 0 {
		return changeLine{}, false
	}
	ref := ev.impact
	if ref.IsZero() {
		ref = ev.onset
	}
	lines := ev.addedLinesBefore(func(f Finding) bool { return samePath(f.File, rc.File) }, ref, recentLookback)
	if len(lines) == 0 {
		return changeLine{}, false
	}
	for _, l := range lines {
		if abs(l.line-rc.Line) <= 1 {
			return changeLine{}, false // the located line is the changed one
		}
	}
	for _, l := range lines {
		if kw[0].MatchString(l.text) {
			return l, true
		}
	}
	return changeLine{}, false
}
