package investigate

import (
	"path"
	"strings"
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
