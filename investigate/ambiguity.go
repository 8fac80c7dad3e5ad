package investigate

import (
	"fmt"
	"path"
	"strings"
)

// When the evidence cannot separate two explanations, the result says so:
// both, with their evidence, at most MEDIUM, no pull request, and a person
// decides. A wrong HIGH is the worst outcome; an honest "one of these two"
// is not.

// closeShare: a runner-up with at least this share of the leader's score
// is not ruled out by the evidence.
const closeShare = 0.85

// strongChange: an explaining change this strong that points at the other
// kind of fix (a setting for a code bug, code for a platform cause) is
// evidence for another bucket.
const strongChange = 3.0

// ambiguity returns why the leading hypothesis needs a human, and the
// alternatives it could not rule out; "" when it is clear.
func (ev *evidence) ambiguity(h *hypothesis, rc RootCause, anchorPath string, anchorLine int, explain changeMatch, explained bool) (string, []Alternative) {
	c := h.c
	var reasons []string
	var alts []Alternative
	// An alternative the evidence does not rule out is as well supported
	// as the root cause: it carries the same band.
	alt := func(r RootCause, note string, evidence []Finding) Alternative {
		r.Band, r.ClaimedBand = rc.Band, rc.Band
		return Alternative{RootCause: r, Planner: ModeDeterministic, Note: note, Evidence: evidence}
	}
	if o := h.runnerUp; o != nil && c.Score > 0 && o.Score >= closeShare*c.Score {
		r, evidence := ev.hypothesisOf(o)
		why := fmt.Sprintf("%s in %s scores almost as high (%.0f%%)", strings.ReplaceAll(string(r.ErrorType), "_", " "), o.Service, 100*o.Score/c.Score)
		alts = append(alts, alt(r, why, evidence))
		reasons = append(reasons, why)
	}
	if other, why, evidence := ev.bucketConflict(h, rc.Bucket, anchorPath, anchorLine); other != "" {
		alts = append(alts, alt(RootCause{Service: rc.Service, ErrorType: rc.ErrorType, Bucket: other, File: rc.File, Line: rc.Line,
			Description: fmt.Sprintf("The same failure read as %s: %s.", bucketWord(other), why)}, "the evidence also supports "+bucketWord(other), evidence))
		reasons = append(reasons, fmt.Sprintf("the evidence also supports %s (%s)", bucketWord(other), why))
	}
	if explained && explain.score >= strongChange && explain.line.change.File != rc.File {
		cfg := IsConfigPath(explain.line.change.File)
		var other Bucket
		switch {
		case cfg && rc.Bucket == BucketCodeBug:
			other = BucketInfrastructure
		case !cfg && rc.Bucket == BucketInfrastructure && !isPlatformCause(c):
			other = BucketCodeBug
		}
		if other != "" {
			l := explain.line
			alts = append(alts, alt(RootCause{Service: rc.Service, ErrorType: rc.ErrorType, Bucket: other, File: l.change.File, Line: l.line,
				Description: fmt.Sprintf("The recent change %s to %s explains the failure (%s).", Quote(l.change.Quote, 100), path.Base(l.change.File), strings.Join(explain.why, "; "))},
				"a recent change explains it as well", []Finding{l.change}))
			reasons = append(reasons, fmt.Sprintf("a recent change to %s explains it as well (%s)", path.Base(l.change.File), bucketWord(other)))
		}
	}
	if len(reasons) == 0 {
		return "", nil
	}
	return strings.Join(reasons, "; "), alts
}

// isPlatformCause: the platform itself reported the failure (an OOM kill,
// a probe, a node, a certificate): code changes do not compete with it.
func isPlatformCause(c *candidate) bool { return c.infra > 0 }

// bucketConflict names another bucket that positive evidence supports
// (records for bad data, the failing line changed for a code bug, a crash
// loop against a flake), with why and the findings that show it. Weaker
// doubts (a judgement the evidence merely does not settle) only keep the
// band below HIGH (bucketDoubt).
func (ev *evidence) bucketConflict(h *hypothesis, bucket Bucket, anchoredPath string, anchoredLine int) (Bucket, string, []Finding) {
	c := h.c
	change, exact, changed := ev.deployed(anchoredPath, anchoredLine, ev.onset)
	recordFindings := func() []Finding {
		for _, f := range c.Support {
			if f.Attrs["records"] != "" && f.Count >= 4 {
				return []Finding{f}
			}
		}
		return nil
	}
	_, recs := c.recurringRecords()
	switch bucket {
	case BucketCodeBug:
		if len(recs) > 0 && !(changed && exact) {
			return BucketBadData, "the failures follow a few records (" + strings.Join(firstN(recs, 3), ", ") + ") and the failing line did not change", recordFindings()
		}
		if (c.ErrorType == ErrOOM || c.ErrorType == ErrResourceExhaustion) && c.infra > 0 {
			return BucketInfrastructure, "the platform reports a limit or capacity running out", nil
		}
	case BucketInfrastructure:
		if c.hasSignature("growth-with-uptime") {
			return BucketCodeBug, "usage grows with uptime, not with load: a leak", nil
		}
		if l, ok := ev.leakChange(c); ok {
			return BucketCodeBug, "a recent change to the service's code holds resources (" + path.Base(l.change.File) + ")", []Finding{l.change}
		}
	case BucketBadData:
		if changed && exact {
			return BucketCodeBug, "the failing line changed just before", []Finding{change}
		}
	case BucketFlake:
		if ev.crashLoops(c) {
			return BucketCodeBug, "the service keeps crashing on it", nil
		}
		if c.infra > 0 {
			return BucketInfrastructure, "the platform reports a fault at the same time", nil
		}
	}
	return "", "", nil
}

// hypothesisOf describes a competing candidate as it stands, without a
// second round of its own, and the evidence behind it.
func (ev *evidence) hypothesisOf(o *candidate) (RootCause, []Finding) {
	h := &hypothesis{c: o, anchor: anchorOf(o)}
	m, explained := ev.explainingChange(o)
	et := o.ErrorType
	if et == ErrUnknown || et == "" {
		et = ev.decideErrorType(o, m, explained)
	}
	bucket := ev.classify(h, "", 0)
	if bucket == BucketUnknown {
		bucket = ev.decideBucket(o, m, explained)
	}
	r := RootCause{Service: o.Service, ErrorType: et, Bucket: bucket}
	if h.anchor != nil {
		r.File, r.Line, r.Function = PathHint(*h.anchor), h.anchor.Line, h.anchor.Function
	} else if explained {
		r.File, r.Line = m.line.change.File, m.line.line
	}
	what := strings.ReplaceAll(string(et), "_", " ")
	if s := SignatureByID(o.Signature); s != nil {
		what = s.Title
	}
	r.Description = fmt.Sprintf("%s in %s.", capitalize(what), o.Service)
	if q := bestQuote(o); q != "" {
		r.Description += fmt.Sprintf(" Evidence: %q.", Quote(q, 160))
	}
	var evidence []Finding
	for _, f := range o.Support {
		if len(evidence) >= 3 {
			break
		}
		f.Frames = trimFrames(f.Frames)
		evidence = append(evidence, f)
	}
	return r, evidence
}
