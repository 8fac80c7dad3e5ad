package llm

import (
	"context"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/autoheal/autoheal/investigate"
)

// validate is the output validator: it verifies the named file, asks the
// governor what the receipts support, and either returns the governed
// result or a follow-up message (one overclaim retry, one request for more
// evidence after a LOW first answer). The deterministic engine's reading
// of the same calls is the reference: when the two disagree, the better
// supported one leads and the other is shown as an alternative.
func (r *run) validate(ctx context.Context, a *answer) (*investigate.HealResult, string) {
	r.answers++
	rc := investigate.RootCause{
		Description: a.RootCause.Description, Service: a.RootCause.Service, File: a.RootCause.File,
		Line: int(a.RootCause.Line), Function: a.RootCause.Function,
		ErrorType: investigate.ErrorType(a.RootCause.ErrorType), Bucket: investigate.Bucket(a.RootCause.Bucket),
		RawConfidence: a.raw, ClaimedBand: a.claimed,
	}
	ref := r.reference(ctx)
	rc.File, rc.Line = r.verifyFile(ctx, rc)
	all := r.timeline()
	in := r.evidenceFor(all, ref, rc)
	rule := ref.RootCause
	if in.Contested == "" && rule.Band.AtLeast(investigate.BandMedium) && !agrees(rule, rc) {
		// The rule-based reading of the same receipts is a competing
		// explanation the evidence has not ruled out: no HIGH against it.
		in.Contested = "the rule-based conclusion (" + describe(rule) + ")"
	}
	granted, note := investigate.Govern(a.claimed, in)
	canFollow := r.steps < r.lim.MaxSteps && ctx.Err() == nil
	var unused []string
	if !r.forceNext && r.modelCalls < r.lim.MaxToolCalls {
		unused = r.unusedTools()
	}
	if a.claimed.Rank() > granted.Rank() {
		if !r.overclaimed && canFollow {
			r.overclaimed = true
			if granted == investigate.BandLow {
				r.askedMore = true
			}
			r.p.metrics.Add(MetricGovernor, 1, "action", "overclaim_retry")
			return nil, overclaimMessage(a.claimed, granted, note, unused)
		}
		r.p.metrics.Add(MetricGovernor, 1, "action", "clamp")
		if r.overclaimed {
			note += fmt.Sprintf(" The model was told once which evidence was missing and claimed %s again.", a.claimed)
		}
	}
	if granted == investigate.BandLow && r.answers == 1 && !r.askedMore && canFollow && len(unused) > 0 {
		r.askedMore = true
		r.p.metrics.Add(MetricGovernor, 1, "action", "more_evidence")
		return nil, moreEvidenceMessage(note, unused)
	}
	rc.Band = granted
	res := r.result(a, rc, ref, note, all)
	if agrees(rule, rc) {
		return res, ""
	}
	return r.choose(res, ref, in, all), ""
}

// evidenceFor is the governor's input for the model's claim. A file
// counts as anchored only when the evidence points at it — a stack frame
// or code location of a failure, the deterministic engine's own anchor
// (the change or the manifest setting it matched to the failure), a line
// of a recent change, a manifest setting the failure names — not merely
// because the planner read it.
func (r *run) evidenceFor(all []investigate.Receipt, ref *investigate.HealResult, rc investigate.RootCause) investigate.GovernorInput {
	in := investigate.EvidenceFor(r.issue, all, rc)
	if in.FileAnchored && !pointedAt(all, ref.RootCause, rc) {
		in.FileAnchored, in.SourceRead = false, false
		r.notes = append(r.notes, fmt.Sprintf("no evidence points at %s:%d, so reading it anchors nothing", truncate(rc.File, 160), rc.Line))
		r.p.metrics.Add(MetricGovernor, 1, "action", "unanchored_file")
	}
	return in
}

// support ranks the evidence behind a conclusion of a given band.
func support(band investigate.Band, in investigate.GovernorInput) int {
	n := 10 * band.Rank()
	if in.ErrorTypeKnown {
		n++
	}
	if in.FileAnchored {
		n += 2
	}
	if in.SourceRead {
		n++
	}
	n += len(in.Corroborating)
	if in.Contested != "" {
		n--
	}
	return n
}

// choose settles a disagreement between the model's governed answer and
// the deterministic conclusion: the better supported one leads (on a tie,
// the rule-based one, which any rerun reproduces) and the other is shown
// as an alternative, so that a wrong model answer never silently replaces
// a well-supported rule-based one, nor the reverse.
func (r *run) choose(model, ref *investigate.HealResult, modelIn investigate.GovernorInput, all []investigate.Receipt) *investigate.HealResult {
	refIn := investigate.EvidenceFor(r.issue, all, ref.RootCause)
	ms, rs := support(model.RootCause.Band, modelIn), support(ref.RootCause.Band, refIn)
	if strings.TrimSpace(ref.RootCause.Service) == "" || ref.RootCause.Bucket == investigate.BucketUnknown {
		rs = -1 // the engine names no cause
	}
	r.p.metrics.Add(MetricGovernor, 1, "action", "disagreement")
	if ms > rs {
		model.Alternatives = append(model.Alternatives, investigate.Alternative{RootCause: ref.RootCause, Planner: investigate.ModeDeterministic,
			Note: fmt.Sprintf("the rule-based reading of the same calls (%s confidence)", ref.RootCause.Band)})
		return model
	}
	lead := *ref
	lead.Timeline = all
	lead.Mode = investigate.ModeDeterministic
	lead.Usage = model.Usage
	lead.Alternatives = append(append([]investigate.Alternative(nil), ref.Alternatives...), investigate.Alternative{RootCause: model.RootCause,
		Planner: investigate.ModeLLM, Note: "the model's answer, less supported by the evidence than the rule-based reading. " + model.ConfidenceNote})
	lead.ModeNote = r.modeNote() + "; the model's answer disagrees with the rule-based reading of the same calls and is less supported: shown as an alternative"
	return &lead
}

// agrees reports whether two root causes name the same defect: the same
// service and bucket and, when both name a file, the same place.
func agrees(base, rc investigate.RootCause) bool {
	if investigate.NormalizeServiceName(base.Service) != investigate.NormalizeServiceName(rc.Service) || base.Bucket != rc.Bucket {
		return false
	}
	if base.File == "" || rc.File == "" {
		return true
	}
	return samePath(base.File, rc.File) && absInt(base.Line-rc.Line) <= 3
}

func describe(rc investigate.RootCause) string {
	s := fmt.Sprintf("%s %s in %s", rc.Bucket, rc.ErrorType, rc.Service)
	if rc.File != "" {
		s += fmt.Sprintf(" at %s:%d", rc.File, rc.Line)
	}
	return s
}

// samePath compares a repository path with a path as a model or a stack
// frame may spell it (suffix match on whole segments).
func samePath(a, b string) bool {
	a = strings.TrimPrefix(path.Clean("/"+strings.TrimSpace(a)), "/")
	b = strings.TrimPrefix(path.Clean("/"+strings.TrimSpace(b)), "/")
	if a == "" || b == "" || a == "." || b == "." {
		return false
	}
	return a == b || strings.HasSuffix(a, "/"+b) || strings.HasSuffix(b, "/"+a)
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// readFinding returns the source or manifest finding of a successful
// receipt that covers file (and line within 3, when line > 0).
func (r *run) readFinding(file string, line int) (investigate.Finding, bool) {
	for _, rc := range r.timeline() {
		if !rc.OK {
			continue
		}
		for _, f := range rc.Findings {
			if f.Kind != investigate.KindSourceAnchor && f.Kind != investigate.KindManifest {
				continue
			}
			if samePath(f.File, file) && (line <= 0 || absInt(f.Line-line) <= 3) {
				return f, true
			}
		}
	}
	return investigate.Finding{}, false
}

// verifyFile makes sure a file the model names was read: if no receipt
// covers it, the planner reads it itself. A file the repository does not
// have is dropped from the root cause (hallucinated paths count for
// nothing). It returns the repository path as the source tool resolved it.
func (r *run) verifyFile(ctx context.Context, rc investigate.RootCause) (string, int) {
	if rc.File == "" {
		return "", 0
	}
	if f, ok := r.readFinding(rc.File, rc.Line); ok {
		return f.File, rc.Line
	}
	key := fmt.Sprintf("%s:%d", rc.File, rc.Line)
	if r.unreadable[key] {
		return "", 0
	}
	if _, ok := r.allowed["source_read"]; !ok || rc.Line <= 0 || r.verifyCalls >= r.lim.MaxVerifyCalls || ctx.Err() != nil {
		r.notes = append(r.notes, fmt.Sprintf("the model named %s, which no tool read: it is not counted as anchored", truncate(rc.File, 160)))
		return rc.File, rc.Line
	}
	r.verifyCalls++
	r.p.metrics.Add(MetricToolCalls, 1, "outcome", "verify")
	// Read the file as the evidence's frames name it when they do, so that
	// the engine's own conclusion anchors on the same read.
	file := rc.File
	for _, fr := range r.anchorCandidates(r.led.Receipts(), investigate.NormalizeServiceName(rc.Service)) {
		hint := investigate.PathHint(fr)
		if absInt(fr.Line-rc.Line) <= 3 && (samePath(hint, rc.File) || path.Base(hint) == path.Base(rc.File)) {
			file = hint
			break
		}
	}
	rec := r.e.Call(ctx, r.led, plannerLLM, investigate.ToolCall{Tool: "source_read",
		Args: map[string]any{"file": file, "line": rc.Line, "service": rc.Service}})
	if rec.OK {
		for _, f := range rec.Findings {
			if f.Kind == investigate.KindSourceAnchor {
				return f.File, rc.Line
			}
		}
	}
	r.unreadable[key] = true
	r.p.metrics.Add(MetricGovernor, 1, "action", "file_dropped")
	why := string(rec.ErrorKind)
	if why == "" {
		why = "no source anchor"
	}
	r.notes = append(r.notes, fmt.Sprintf("the model named %s:%d, which could not be read (%s): the location was dropped", truncate(rc.File, 160), rc.Line, why))
	return "", 0
}

func bucketWord(b investigate.Bucket) string {
	switch b {
	case investigate.BucketCodeBug:
		return "Code bug"
	case investigate.BucketInfrastructure:
		return "Infrastructure"
	case investigate.BucketBadData:
		return "Bad data"
	case investigate.BucketFlake:
		return "Flake"
	}
	return "Unclassified"
}

func headline(rc investigate.RootCause) string {
	where := rc.Service
	if rc.File != "" {
		where += fmt.Sprintf(" (%s:%d)", rc.File, rc.Line)
	}
	return fmt.Sprintf("%s: %s in %s — %s confidence.", bucketWord(rc.Bucket), strings.ReplaceAll(string(rc.ErrorType), "_", " "), where, rc.Band)
}

// sameCause reports whether the engine's conclusion names the same place.
func sameCause(base, rc investigate.RootCause) bool {
	if investigate.NormalizeServiceName(base.Service) != investigate.NormalizeServiceName(rc.Service) {
		return false
	}
	if rc.File == "" || base.File == "" {
		return rc.File == base.File
	}
	return samePath(base.File, rc.File) && absInt(base.Line-rc.Line) <= 3
}

// result builds the governed HealResult from the model's answer.
func (r *run) result(a *answer, rc investigate.RootCause, base *investigate.HealResult, note string, receipts []investigate.Receipt) *investigate.HealResult {
	c := r.p.clean
	rc.Description = r.noClaims(c.clip(strings.TrimSpace(rc.Description), 1500))
	rc.Function = c.clip(strings.TrimSpace(rc.Function), 200)
	if rc.Function == "" && sameCause(base.RootCause, rc) {
		rc.Function = base.RootCause.Function
	}
	res := &investigate.HealResult{
		RootCause: rc, Timeline: receipts, ToolsUsed: base.ToolsUsed, ToolsUnavailable: base.ToolsUnavailable,
		ConfidenceNote: note, Mode: investigate.ModeLLM, IssueKey: r.issue.Key, Repo: r.issue.Repo, Ref: r.issue.Ref,
	}
	res.Summary = headline(rc)
	res.Evidence = r.evidence(a.refs, rc, base, receipts)
	res.Fix = r.fix(a, rc, base)
	res.ModeNote = r.modeNote()
	res.Chart = r.chart(res, rc, base)
	return res
}

// chart is the evidence chart of the model's answer: the engine's when
// both blame the same line (its blamed change included), else the series
// of the model's service that moved at the engine's onset.
func (r *run) chart(res *investigate.HealResult, rc investigate.RootCause, base *investigate.HealResult) *investigate.EvidenceChart {
	if base.Chart != nil && sameCause(base.RootCause, rc) {
		return base.Chart
	}
	var onset time.Time
	if base.Chart != nil {
		onset = base.Chart.Onset
	}
	return investigate.ChartFor(res, onset)
}

// noClaims drops the sentences of the model's free text that claim an
// action was taken, and notes it once.
func (r *run) noClaims(s string) string {
	out, n := dropActionClaims(s)
	if n > 0 {
		r.p.metrics.Add(MetricGovernor, float64(n), "action", "claim_dropped")
		if !r.claimsNoted {
			r.claimsNoted = true
			r.notes = append(r.notes, "sentences of the model's answer claiming an action was taken were dropped (nothing is done without a human's approval)")
		}
	}
	return out
}

func (r *run) modeNote() string {
	note := fmt.Sprintf("planned by %s: %d model requests, %d tool calls", r.model, r.steps, len(r.led.Receipts()))
	if r.rejected > 0 {
		note += fmt.Sprintf(", %d tool calls refused", r.rejected)
	}
	if len(r.notes) > 0 {
		note += "; " + strings.Join(r.notes, "; ")
	}
	return note
}

// cleanFinding trims a finding for the result and masks personal data in
// its free text (receipts carry only the engine's secret redaction).
func (c *cleaner) cleanFinding(f investigate.Finding) investigate.Finding {
	f.Quote = c.text(f.Quote)
	f.Exception = c.text(f.Exception)
	if len(f.Frames) > 5 {
		f.Frames = f.Frames[:5]
	}
	if len(f.Attrs) > 0 {
		attrs := make(map[string]string, len(f.Attrs))
		for k, v := range f.Attrs {
			if k != "window" {
				attrs[k] = c.text(v)
			}
		}
		f.Attrs = attrs
	}
	return f
}

// evidence resolves the finding ids the model cited (unknown ids are
// ignored) and adds the finding that anchors the claimed file.
func (r *run) evidence(refs []string, rc investigate.RootCause, base *investigate.HealResult, receipts []investigate.Receipt) []investigate.Finding {
	byID := map[string]investigate.Finding{}
	for _, rec := range receipts {
		for i, f := range rec.Findings {
			if f.Kind != investigate.KindCallEdge {
				byID[findingID(rec.Seq, i)] = f
			}
		}
	}
	out := []investigate.Finding{}
	seen := map[string]bool{}
	for _, id := range refs {
		id = strings.ToUpper(strings.TrimSpace(id))
		if f, ok := byID[id]; ok && !seen[id] && len(out) < 12 {
			seen[id] = true
			out = append(out, r.p.clean.cleanFinding(f))
		}
	}
	if len(out) == 0 {
		if sameCause(base.RootCause, rc) {
			for _, f := range base.Evidence {
				out = append(out, r.p.clean.cleanFinding(f))
			}
			return out
		}
		svc := investigate.NormalizeServiceName(rc.Service)
		for _, rec := range receipts {
			for _, f := range rec.Findings {
				if len(out) < 8 && investigate.NormalizeServiceName(f.Service) == svc &&
					f.Kind != investigate.KindCallEdge && f.Kind != investigate.KindSourceAnchor && f.Kind != investigate.KindManifest {
					out = append(out, r.p.clean.cleanFinding(f))
				}
			}
		}
	}
	if rc.File != "" {
		if f, ok := r.readFinding(rc.File, rc.Line); ok {
			dup := false
			for _, g := range out {
				if g.Kind == f.Kind && g.File == f.File && g.Line == f.Line {
					dup = true
				}
			}
			if !dup {
				out = append(out, r.p.clean.cleanFinding(f))
			}
		}
	}
	return out
}

// fix applies the bucket's hard rules to the model's fix: a code patch only
// for a code bug and only against a file that was read, a manifest edit
// only for infrastructure. Where the model gives none and the engine
// concluded the same cause, the engine's patch or edit is used.
func (r *run) fix(a *answer, rc investigate.RootCause, base *investigate.HealResult) investigate.Fix {
	c := r.p.clean
	m := a.Fix
	f := investigate.Fix{Summary: r.noClaims(c.clip(strings.TrimSpace(m.Summary), 1000)),
		Remediation: r.noClaims(c.clip(strings.TrimSpace(m.Remediation), 2000))}
	for i, s := range m.Steps {
		if i == 10 {
			break
		}
		if s = r.noClaims(c.clip(strings.TrimSpace(s), 500)); s != "" {
			f.Steps = append(f.Steps, s)
		}
	}
	for i, s := range m.AffectedRecords {
		if i == 20 {
			break
		}
		f.AffectedRecords = append(f.AffectedRecords, c.clip(s, 120))
	}
	same := sameCause(base.RootCause, rc)
	drop := func(what string) {
		r.p.metrics.Add(MetricGovernor, 1, "action", "fix_dropped")
		r.notes = append(r.notes, what)
	}
	if p := m.Patch; p != nil && strings.TrimSpace(p.Diff) != "" {
		switch read, ok := r.readFinding(p.File, 0); {
		case rc.Bucket != investigate.BucketCodeBug:
			drop(fmt.Sprintf("the model's code patch was dropped: a code patch is proposed only for a code bug, not %s", rc.Bucket))
		case !ok:
			drop(fmt.Sprintf("the model's patch of %s was dropped: that file was not read", truncate(p.File, 160)))
		default:
			f.Patch = &investigate.Patch{File: read.File, Ref: r.issue.Ref, Diff: c.clip(p.Diff, 20000),
				Explanation: c.clip(p.Explanation, 500)}
		}
	}
	if e := m.ManifestEdit; e != nil && strings.TrimSpace(e.File) != "" {
		switch read, ok := r.readFinding(e.File, 0); {
		case rc.Bucket != investigate.BucketInfrastructure:
			drop(fmt.Sprintf("the model's manifest edit was dropped: manifests are edited only for infrastructure causes, not %s", rc.Bucket))
		case !ok:
			drop(fmt.Sprintf("the model's edit of %s was dropped: that file was not read", truncate(e.File, 160)))
		default:
			f.ManifestEdit = &investigate.ManifestEdit{File: read.File, Line: int(e.Line), Path: c.clip(e.Path, 300),
				OldValue: c.clip(e.OldValue, 200), NewValue: c.clip(e.NewValue, 200), Reason: c.clip(e.Reason, 500)}
		}
	}
	switch rc.Bucket {
	case investigate.BucketCodeBug:
		f.RegressionTest = c.clip(strings.TrimSpace(m.RegressionTest), 4000)
		if same && f.Patch == nil && base.Fix.Patch != nil {
			f.Patch = base.Fix.Patch
			r.notes = append(r.notes, "the patch is the rule-based engine's")
		}
		if same && f.RegressionTest == "" {
			f.RegressionTest = base.Fix.RegressionTest
		}
	case investigate.BucketInfrastructure:
		if same && f.ManifestEdit == nil && base.Fix.ManifestEdit != nil {
			f.ManifestEdit = base.Fix.ManifestEdit
			r.notes = append(r.notes, "the manifest edit is the rule-based engine's")
		}
	case investigate.BucketFlake:
		if same {
			f.Flake = base.Fix.Flake
		}
	}
	if f.Summary == "" {
		if same {
			f.Summary = base.Fix.Summary
		} else {
			f.Summary = "See the root cause; no fix was proposed."
		}
	}
	return f
}
