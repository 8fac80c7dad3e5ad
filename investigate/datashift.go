package investigate

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Bad data seen from generic evidence: what the failures' words do not say
// but the service's own routine lines do.
//
//   - A value shift: a periodic line of a service (a reload, a summary)
//     that printed the same value for a key on every line, then a value
//     tenfold or more away from it, at the start of the impact, with no
//     commit carrying the new value: the data the service reads changed
//     under it. A line of another service naming the old and the new value
//     just before (an admin's edit, an audit entry) and a metric series
//     labelled with the key that changed at the same time confirm it.
//   - The last run of a batch job: a named service with no line in the
//     window is read once further back (a CronJob runs at night; its effect
//     is seen in the morning); rejection warnings there, about one input,
//     and a summary that counts more rejected items than usual, are the
//     input's fault.

// KindValueShift is a key whose value changed by an order of magnitude in
// a steady periodic log line.
const KindValueShift FindingKind = "value_shift"

// KindLastRun is what a job that did not run in the window logged in its
// last run: rejected input.
const KindLastRun FindingKind = "last_run"

// lookbackSpan is how far back the last run of a silent named service is
// read.
const lookbackSpan = 24 * time.Hour

// shiftTargets are the times a data change would precede: the impact, the
// time the trigger names, metric change points and new or surging
// templates.
func (ev *evidence) shiftTargets() []time.Time {
	var ts []time.Time
	if !ev.impact.IsZero() {
		ts = append(ts, ev.impact)
	}
	if t, ok := ParseSince(ev.issue.Text, ev.issue.End); ok {
		ts = append(ts, t)
	}
	for _, f := range ev.findings {
		if f.Kind == KindChangePoint && !f.Time.IsZero() {
			ts = append(ts, f.Time)
		}
	}
	for _, n := range ev.novel {
		ts = append(ts, n.since)
	}
	return ts
}

// valueShifts lists the value shifts of steady templates that precede
// (by at most 20 minutes) or coincide with something the impact is dated
// by.
func (ev *evidence) valueShifts() []Finding {
	targets := ev.shiftTargets()
	var out []Finding
	for _, t := range ev.findings {
		if t.Kind != KindLogTemplate || t.Service == "" || t.Attrs["value_shift"] == "" {
			continue
		}
		vs, ok := decodeValueShift(t.Attrs["value_shift"])
		if !ok || vs.shifted > 1 {
			continue // several values jumped at once: a unit or format change, not one bad value
		}
		if levelRank(t.Attrs["level"]) > levelRank("info") {
			continue // a routine line, not a failure's
		}
		aligned := false
		for _, at := range targets {
			if d := at.Sub(vs.at); d >= -3*time.Minute && d <= 20*time.Minute {
				aligned = true
				break
			}
		}
		if !aligned || ev.committedValue(vs) {
			continue
		}
		f := Finding{Kind: KindValueShift, Family: FamilyLogs, Service: t.Service, ErrorType: ErrDataValidation,
			Time: vs.at, LastTime: t.LastTime, Count: 1,
			Quote: fmt.Sprintf("%s=%s, then %s=%s from %s in `%s` (%s): the value its data holds changed %s-fold", vs.key, vs.old, vs.key, vs.new,
				vs.at.UTC().Format("15:04"), Quote(t.Attrs["template"], 100), t.Service, magnitude(vs)),
			Attrs: map[string]string{"key": vs.key, "old": vs.old, "new": vs.new, "template": t.Attrs["template"], "sample": t.Attrs["sample"]}}
		out = append(out, f)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out
}

func magnitude(vs valueShift) string {
	a, _ := strconv.ParseFloat(vs.old, 64)
	b, _ := strconv.ParseFloat(vs.new, 64)
	if a == 0 {
		return "?"
	}
	r := b / a
	if math.Abs(r) < 1 && r != 0 {
		return "1/" + strconv.FormatFloat(math.Round(1/math.Abs(r)), 'f', -1, 64)
	}
	return strconv.FormatFloat(math.Round(math.Abs(r)*10)/10, 'f', -1, 64)
}

// committedValue: a recent commit adds a line holding the key and the new
// value: the shift was deployed (configuration), not data.
func (ev *evidence) committedValue(vs valueShift) bool {
	for _, f := range ev.findings {
		if f.Kind != KindChangeCorrelation {
			continue
		}
		for _, row := range strings.Split(f.Attrs["added"], "\n") {
			if strings.Contains(row, vs.key) && strings.Contains(row, trimZeros(vs.new)) {
				return true
			}
		}
	}
	return false
}

// trimZeros: "20.0000" → "20", "0.2000" → "0.2".
func trimZeros(v string) string {
	if strings.Contains(v, ".") {
		v = strings.TrimRight(strings.TrimRight(v, "0"), ".")
	}
	return v
}

// editLine is a line that names the old and the new value of a shift,
// logged shortly before it (up to 30 minutes): who changed the data.
func (ev *evidence) editLine(vs Finding) (Finding, bool) {
	old, nw := vs.Attrs["old"], vs.Attrs["new"]
	for _, t := range ev.findings {
		if t.Kind != KindLogTemplate || t.Time.After(vs.Time) || t.Time.Before(vs.Time.Add(-30*time.Minute)) {
			continue
		}
		text := t.Attrs["raw"]
		if text == "" {
			text = t.Attrs["sample"]
		}
		if valueIn(text, old) && valueIn(text, nw) && editWordRE.MatchString(text) {
			return Finding{Kind: KindLogTemplate, Family: FamilyLogs, Service: t.Service, Time: t.Time, Count: t.Count,
				Quote: Quote(text, 240), Attrs: map[string]string{"edit": "true"}}, true
		}
	}
	return Finding{}, false
}

var editWordRE = regexp.MustCompile(`(?i)\b(?:updated?|changed?|edit(?:ed)?|modified|set|saved|overrid(?:e|den))\b|\bold[_ -]?\w*\b`)

// valueIn: v appears in text as a whole value, not inside a longer number.
func valueIn(text, v string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], v)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(v)
		before := j == 0 || !isNumByte(text[j-1])
		after := end == len(text) || !isNumByte(text[end])
		if before && after {
			return true
		}
		i = j + 1
	}
}

func isNumByte(b byte) bool { return b >= '0' && b <= '9' || b == '.' }

// labelledChange is a metric change point of a series labelled with the
// shifted key as a value ({country="AT"}), at the same time.
func (ev *evidence) labelledChange(vs Finding) (Finding, bool) {
	want := `="` + vs.Attrs["key"] + `"`
	for _, f := range ev.findings {
		if f.Kind == KindChangePoint && strings.Contains(f.Attrs["labels"], want) && aligned(f.Time, vs.Time, 10*time.Minute) {
			return f, true
		}
	}
	return Finding{}, false
}

// silentNamed is the service the trigger or the session names when it has
// no log line, failing span or error in the window: a batch job between
// runs, whose last run is read next.
func (ev *evidence) silentNamed() string {
	var named []string
	if ev.issue.Service != "" {
		named = append(named, ev.issue.Service)
	}
	for _, k := range []string{"service", "service_name", "app", "container", "job_name", "cronjob"} {
		if v := ev.issue.Labels[k]; v != "" {
			named = append(named, v)
		}
	}
	if len(named) == 0 {
		return ""
	}
	seen := map[string]bool{}
	for _, f := range ev.findings {
		if f.Family == FamilyLogs || f.Family == FamilyTraces {
			seen[NormalizeServiceName(f.Service)] = true
		}
	}
	for _, n := range named {
		if !seen[NormalizeServiceName(n)] {
			return n
		}
	}
	return ""
}

// lastRun reads the templates of the window before the investigation's
// (the lookback of a silent named service) for rejected input: a warning
// or error template that names invalid or rejected input, many lines of
// it, and the summary line with the worst share of rejected items.
func (ev *evidence) lastRun() []Finding {
	var rej []Finding
	var summary Finding
	var worst float64
	for _, t := range ev.earlier {
		if t.Kind != KindLogTemplate || t.Service == "" {
			continue
		}
		if r := t.Attrs["rejection"]; r != "" {
			p := strings.Split(r, "\t")
			if len(p) == 5 {
				ratio, _ := strconv.ParseFloat(p[3], 64)
				if ratio > worst {
					worst, summary = ratio, t
				}
			}
		}
		if levelRank(t.Attrs["level"]) < levelRank("warn") || t.Count < 20 {
			continue
		}
		if typeTemplate(t, t.Time).ErrorType != ErrDataValidation {
			continue
		}
		rej = append(rej, t)
	}
	if len(rej) == 0 {
		return nil
	}
	sort.SliceStable(rej, func(i, j int) bool { return rej[i].Count > rej[j].Count })
	t := rej[0]
	what := fmt.Sprintf("last run %s–%s: `%s` ×%d (%s)", t.Time.UTC().Format("01-02 15:04"), t.LastTime.UTC().Format("15:04"),
		Quote(t.Attrs["template"], 100), t.Count, t.Attrs["level"])
	attrs := map[string]string{"template": t.Attrs["template"], "sample": t.Attrs["sample"], "lines": strconv.Itoa(t.Count)}
	if p := strings.Split(t.Attrs["param_top"], "\t"); len(p) == 3 {
		if share, _ := strconv.ParseFloat(p[1], 64); share >= 0.8 {
			what += fmt.Sprintf(", %.0f%% of them %s", 100*share, p[0])
			attrs["entity"] = p[0]
		}
	}
	strong := worst >= 0.2
	if strong {
		p := strings.Split(summary.Attrs["rejection"], "\t")
		what += fmt.Sprintf("; summary %s %s %s (%.0f%% rejected)", p[0], p[1], p[2], 100*worst)
		attrs["summary"] = strings.Join(p[:3], " ")
		attrs["rejected_share"] = p[3]
	}
	f := Finding{Kind: KindLastRun, Family: FamilyLogs, Service: t.Service, ErrorType: ErrDataValidation, Signature: "invalid-value",
		Time: t.Time, LastTime: t.LastTime, Count: t.Count, Quote: what, Attrs: attrs}
	return []Finding{f}
}

// addDataEvidence makes value shifts and rejected runs candidates of their
// service (data validation), with the edits and labelled change points
// that confirm them.
func (ev *evidence) addDataEvidence(get func(string, ErrorType) *candidate, add func(*candidate, Finding)) {
	for _, f := range ev.valueShifts() {
		c := get(f.Service, ErrDataValidation)
		c.dataShift += 2.6
		add(c, f)
		if e, ok := ev.editLine(f); ok {
			c.dataShift += 0.5
			add(c, e)
		}
		if m, ok := ev.labelledChange(f); ok {
			c.dataShift += 0.5
			g := m
			g.Service = f.Service
			g.Attrs = copyAttrs(m.Attrs)
			g.Attrs["relayed_by"] = m.Service
			add(c, g)
		}
	}
	for _, f := range ev.lastRun() {
		c := get(f.Service, ErrDataValidation)
		c.dataShift += 2.2
		if f.Attrs["rejected_share"] != "" {
			c.dataShift += 0.5
		}
		if f.Attrs["entity"] != "" {
			c.dataShift += 0.3
		}
		add(c, f)
	}
}

// beforeWindow: a template read over a window that ended by the start of
// the investigation's (the lookback of lastRun).
func beforeWindow(f Finding, issue Issue) bool {
	b, err := DecodeBuckets(f.Attrs["buckets"])
	return err == nil && !issue.Start.IsZero() && !b.End().After(issue.Start.Add(time.Minute))
}
