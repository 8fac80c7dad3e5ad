package investigate

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/autoheal/autoheal/investigate/drain"
)

// What is new since the impact began: log templates (every level) whose
// rate jumped, and metric series that changed level. Both are judged
// against a baseline before their own change, so a loud message that was
// as frequent an hour before is noise, and a quiet warning that never
// appeared before is a finding.

// novelty is a log template that appeared or surged.
type novelty struct {
	tpl      Finding // the KindLogTemplate finding
	surge    bool    // rose from a non-zero baseline (else: new)
	since    time.Time
	before   float64 // lines per minute before since
	after    float64 // lines per minute after since
	baseline time.Duration
	lines    float64 // lines after since
	typed    Finding // the sample read against the catalogue (or the lexicon)
}

// minBaseline is the least quiet (or steady) time before a template's
// change for it to count as new rather than unseen.
const minBaseline = 10 * time.Minute

// templateChange finds when a template became new or surged, from its
// buckets alone: "new" after at least minBaseline without it, "surge" when
// its rate after the best split is at least 3 times (and clearly more than)
// the rate before. ok is false for steady templates.
func templateChange(b Buckets) (since time.Time, before, after float64, baseline time.Duration, lines float64, surge, ok bool) {
	n := len(b.Counts)
	if n < 4 || b.Step <= 0 {
		return
	}
	total := 0.0
	for _, c := range b.Counts {
		total += c
	}
	if total < 2 {
		return
	}
	perMin := func(sum float64, span time.Duration) float64 {
		if span <= 0 {
			return 0
		}
		return sum / span.Minutes()
	}
	// New: silent for at least minBaseline, then at least 2 lines.
	first := -1
	for i, c := range b.Counts {
		if c > 0 {
			first = i
			break
		}
	}
	quiet := time.Duration(first) * b.Step
	if first >= 0 && quiet >= minBaseline {
		span := time.Duration(n-first) * b.Step
		return b.Start.Add(time.Duration(first) * b.Step), 0, perMin(total, span), quiet, total, false, true
	}
	// Surge: the split with the largest significant rise.
	bestZ := 0.0
	prefix := 0.0
	for k := 1; k < n; k++ {
		prefix += b.Counts[k-1]
		bspan, aspan := time.Duration(k)*b.Step, time.Duration(n-k)*b.Step
		if bspan < minBaseline || aspan < 2*b.Step {
			continue
		}
		bRate, aCount := prefix/bspan.Minutes(), total-prefix
		expected := bRate * aspan.Minutes()
		if aCount < 3*expected || aCount-expected < 3 {
			continue
		}
		z := (aCount - expected) / math.Sqrt(expected+1)
		if z > bestZ && z >= 3 {
			bestZ = z
			since, before, after, baseline, lines, surge, ok = b.Start.Add(bspan), bRate, perMin(aCount, aspan), bspan, aCount, true, true
		}
	}
	return
}

// novelties lists the templates that are new or surged, near the onset
// when there is one (from 45 minutes before it, causes come first, to 45
// minutes after), most lines first.
func (ev *evidence) novelties() []novelty {
	var out []novelty
	for _, f := range ev.findings {
		if f.Kind != KindLogTemplate || f.Service == "" {
			continue
		}
		b, err := DecodeBuckets(f.Attrs["buckets"])
		if err != nil {
			continue
		}
		since, before, after, baseline, lines, surge, ok := templateChange(b)
		if !ok {
			continue
		}
		if ref := ev.impact; !ref.IsZero() && (since.Before(ref.Add(-45*time.Minute)) || since.After(ref.Add(45*time.Minute))) {
			continue
		}
		if !telling(f.Attrs["template"]) {
			continue // a stack frame or a header on a line of its own
		}
		n := novelty{tpl: f, surge: surge, since: since, before: before, after: after, baseline: baseline, lines: lines}
		n.typed = typeTemplate(f, since)
		if n.typed.ErrorType == ErrUnknown && levelRank(f.Attrs["level"]) < levelRank("error") {
			continue // a new info line or warning that names no failure: traffic, not trouble
		}
		if lines < 3 {
			continue // two lines are an accident, not a change
		}
		out = append(out, n)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].lines != out[j].lines {
			return out[i].lines > out[j].lines
		}
		return out[i].tpl.Quote < out[j].tpl.Quote
	})
	return out
}

// telling: a template with at least two words and not a stack frame
// (runtimes that log each frame on its own line make every frame a
// template of its own).
func telling(template string) bool {
	words := 0
	for _, w := range strings.Fields(template) {
		if len(strings.Trim(w, ".,:;()[]{}<>*'\"`")) >= 3 && !strings.Contains(w, drain.Wildcard) {
			words++
		}
	}
	if words < 2 {
		return false
	}
	head := strings.TrimSpace(template)
	return !(len(ParseStack(head)) > 0 && len(strings.Fields(head)) <= 6) && !stackLineRE.MatchString(head)
}

// stackLineRE: a frame printed on its own line (Java "at ...", Python
// "File ...", Ruby "gem (version) path:line:in", Go "/path/file.go:12").
var stackLineRE = regexp.MustCompile(`^(?:at\s|File\s"|\S+ \(<\*>\) |[\w./-]+\.(?:go|rb|py|js|ts|java|kt|cs|php|rs|ex|exs):\S*\s*(?:\+|$)|\.\.\. \S+ more|Caused by:|goroutine\s)`)

// typeTemplate reads a template's sample against the catalogue, then the
// lexicon: the error type, signature, exception and stack frames.
func typeTemplate(f Finding, at time.Time) Finding {
	sample := f.Attrs["sample"]
	if sample == "" {
		sample = f.Attrs["template"]
	}
	if t, ok := TextFinding(KindLogTemplate, FamilyLogs, f.Service, sample, at); ok {
		return t
	}
	t := Finding{Kind: KindLogTemplate, Family: FamilyLogs, Service: f.Service, ErrorType: GuessErrorType(sample), Time: at,
		Exception: ExceptionType(sample), Quote: Quote(sample, 200)}
	t.Frames = ParseStack(sample)
	if top, ok := TopAppFrame(t.Frames); ok {
		t.File, t.Line, t.Function = top.File, top.Line, top.Function
	}
	return t
}

// finding is the novelty as evidence: what changed, in the words an SRE
// uses ("new since 14:02: `lease renewal failed for <*>` ×300/min in
// scheduler; 0 in the hour before").
func (n novelty) finding() Finding {
	f := n.typed
	f.Kind, f.Family, f.Service = KindLogTemplate, FamilyLogs, n.tpl.Service
	f.Time, f.LastTime = n.since, n.tpl.LastTime
	f.Count = int(n.lines + 0.5)
	tpl := Quote(n.tpl.Attrs["template"], 120)
	was := "0 in the " + approxSpan(n.baseline) + " before"
	what := "new"
	if n.surge {
		what = "surging"
		was = fmt.Sprintf("%s/min in the %s before", rate(n.before), approxSpan(n.baseline))
	}
	f.Quote = fmt.Sprintf("%s since %s: `%s` ×%s/min (%d lines) in %s; %s", what, n.since.UTC().Format("15:04"), tpl, rate(n.after), f.Count, n.tpl.Service, was)
	f.Attrs = map[string]string{"template": n.tpl.Attrs["template"], "level": n.tpl.Attrs["level"], "novel": what,
		"rate_before": rate(n.before), "rate_after": rate(n.after), "sample": Quote(n.tpl.Attrs["sample"], 300)}
	return f
}

func rate(perMin float64) string {
	switch {
	case perMin == 0:
		return "0"
	case perMin >= 10:
		return strconv.Itoa(int(perMin + 0.5))
	case perMin >= 1:
		return strconv.FormatFloat(perMin, 'f', 1, 64)
	}
	return strconv.FormatFloat(perMin, 'g', 2, 64)
}

// approxSpan: "hour", "40 minutes", "3 hours".
func approxSpan(d time.Duration) string {
	switch {
	case d >= 55*time.Minute && d <= 65*time.Minute:
		return "hour"
	case d < 2*time.Hour:
		return fmt.Sprintf("%d minutes", int(d.Minutes()+0.5))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d hours", int(d.Hours()+0.5))
	}
	return fmt.Sprintf("%d days", int(d.Hours()/24+0.5))
}

// steadyTemplate reports whether a finding's text is a template of its
// service that was about as frequent before the onset as after it: noise,
// however loud.
func (ev *evidence) steadyTemplate(f Finding) bool { return ev.steadyAt(f, ev.impact, 15*time.Minute) }

// steadyAt reports whether a finding's text is a template of its service
// that was about as frequent in the hour before at as after it, judged
// on at least least of baseline.
func (ev *evidence) steadyAt(f Finding, at time.Time, least time.Duration) bool {
	if at.IsZero() {
		return false
	}
	quote := strings.TrimPrefix(f.Quote, "…")
	for _, t := range ev.findings {
		if t.Kind != KindLogTemplate || t.Service != f.Service || !templateCovers(t, quote) {
			continue
		}
		b, err := DecodeBuckets(t.Attrs["buckets"])
		if err != nil {
			continue
		}
		from := at.Add(-time.Hour)
		if from.Before(b.Start) {
			from = b.Start
		}
		before, bspan := b.Between(from, at)
		after, aspan := b.Between(at, b.End())
		if bspan < least || aspan <= 0 || before == 0 {
			return false
		}
		return after/aspan.Minutes() < 2*before/bspan.Minutes()
	}
	return false
}

// templateCovers reports whether a quoted line (or a fragment of one, as
// quotes start where the error does) belongs to a template: the
// template's constant tokens appear in order among the quote's tokens, or
// the quote's tokens appear in order in the template's sample.
func templateCovers(t Finding, quote string) bool {
	toks := drain.Tokenize(quote)
	if inOrder(constantTokens(strings.Fields(t.Attrs["template"])), toks, 2) {
		return true
	}
	// A fragment: its first and last tokens may be cut.
	if len(toks) > 2 {
		toks = toks[1 : len(toks)-1]
	}
	return inOrder(constantTokens(toks), drain.Tokenize(t.Attrs["sample"]), 3)
}

func constantTokens(ts []string) []string {
	var out []string
	for _, w := range ts {
		if !strings.Contains(w, drain.Wildcard) {
			out = append(out, w)
		}
	}
	return out
}

// inOrder reports whether want (at least least tokens) appears in order in have.
func inOrder(want, have []string, least int) bool {
	if len(want) < least {
		return false
	}
	j := 0
	for _, w := range want {
		for j < len(have) && have[j] != w {
			j++
		}
		if j == len(have) {
			return false
		}
		j++
	}
	return true
}

// lexicon types a failure nothing in the catalogue knows by the words it
// uses, most specific first.
var lexicon = []struct {
	re *regexp.Regexp
	et ErrorType
}{
	{regexp.MustCompile(`(?i)out of memory|\boom\b|oomkill|heap space|memory limit|cannot allocate memory`), ErrOOM},
	{regexp.MustCompile(`(?i)x509|certificate|\btls\b|\bssl\b|handshake fail`), ErrTLS},
	{regexp.MustCompile(`(?i)deadlock|lease (?:expired|lost|renewal failed)|lost (?:the )?lock|lock (?:lost|expired)|lost leadership|leader(?:ship)? (?:lost|changed)|concurrent (?:modification|update|write)|race condition|optimistic lock|version conflict|already (?:started|running|locked)`), ErrRace},
	{regexp.MustCompile(`(?i)timed? ?out|timeout|deadline exceeded|took too long|slow (?:query|request|response)|(?:aborted|cancell?ed|gave up|killed) after \d+(?:\.\d+)?\s?(?:ms|s|sec|seconds|m|min)\b`), ErrTimeout},
	{regexp.MustCompile(`(?i)connection refused|connection reset|no route to host|network is unreachable|unreachable|broken pipe|no such host|name resolution|could not resolve|econnrefused|econnreset|host not found`), ErrNetwork},
	{regexp.MustCompile(`(?i)too many (?:connections|open files|requests|clients)|pool (?:exhausted|is full)|exhausted|quota|throttl|rate.?limit|\b429\b|no space left|disk (?:is )?full|queue (?:is )?full|backlog|limit (?:reached|exceeded)|evict`), ErrResourceExhaustion},
	{regexp.MustCompile(`(?i)permission denied|access denied|forbidden|unauthori[sz]ed|not configured|missing (?:env|config|setting|secret)|invalid (?:config|configuration|credentials)|config(?:uration)? error|unknown (?:option|setting)|no such (?:file|bucket)`), ErrConfig},
	// A request or value above a configured maximum: the setting that
	// bounds it is named by the message ("body 4.2MB exceeds max_body_size 2MB").
	{regexp.MustCompile(`(?i)\bexceed(?:s|ed|ing)?\b[^.;\n]{0,60}\b(?:max\w*|maximum|limit\w*|size|length)\b|\btoo (?:large|big|long)\b|above (?:the )?(?:max\w*|maximum|limit)`), ErrConfig},
	{regexp.MustCompile(`(?i)invalid|malformed|cannot (?:parse|decode|deserialize)|parse error|unexpected (?:token|value|character|format)|validation|constraint|duplicate|out of range|not a valid|bad request|unmarshal|records were found|more than one (?:row|record)`), ErrDataValidation},
	{regexp.MustCompile(`(?i)\bnil\b|null pointer|nullpointer|nullreference|nonetype|undefined is not|cannot read propert`), ErrNullPointer},
	{regexp.MustCompile(`(?i)bad gateway|service unavailable|upstream|provider|vendor`), ErrDependency},
	{regexp.MustCompile(`(?i)panic|exception|traceback|fatal|crash|segfault|assert|failed|failure|error`), ErrRuntime},
}

// GuessErrorType types a failure text by its words when no catalogue
// signature knows it; ErrUnknown when it names no failure.
func GuessErrorType(text string) ErrorType {
	if len(text) > 2000 {
		text = text[:2000]
	}
	for _, l := range lexicon {
		if l.re.MatchString(text) {
			return l.et
		}
	}
	return ErrUnknown
}

// changePoints are the metric change points up to shortly after the
// onset (a slow cause may start hours before the impact), earliest first.
func (ev *evidence) changePoints() []Finding {
	var out []Finding
	for _, f := range ev.findings {
		if f.Kind != KindChangePoint {
			continue
		}
		if ref := ev.impact; !ref.IsZero() && f.Time.After(ref.Add(15*time.Minute)) {
			continue
		}
		out = append(out, f)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out
}

// impactOnset dates the impact when the failures themselves do not (no
// failing trace, no error-rate change): the time the trigger names, else
// the earliest change point of a service the trigger names, else of any
// service. Zero when nothing dates it.
func (ev *evidence) impactOnset() time.Time {
	if !ev.onset.IsZero() {
		return ev.onset
	}
	if t, ok := ParseSince(ev.issue.Text, ev.issue.End); ok {
		return t
	}
	if t := ev.issue.alertStart(); !t.IsZero() {
		return t
	}
	var hinted, any time.Time
	for _, f := range ev.findings {
		if f.Kind != KindChangePoint || f.Time.Before(ev.issue.Start.Add(5*time.Minute)) {
			continue
		}
		if any.IsZero() || f.Time.Before(any) {
			any = f.Time
		}
		if ev.isHinted(f.Service) && (hinted.IsZero() || f.Time.Before(hinted)) {
			hinted = f.Time
		}
	}
	if !hinted.IsZero() {
		return hinted
	}
	return any
}

// addNovelties attaches each new or surging template to the candidate of
// its service whose log lines it is (the error search already returned
// them), or, when no error search returned them (warnings, info lines that
// name a failure), makes it support of its own: a candidate of its service
// and error type.
func (ev *evidence) addNovelties(by map[string]*candidate, get func(string, ErrorType) *candidate, add func(*candidate, Finding)) {
	for _, n := range ev.novel {
		f := n.finding()
		var home *candidate
		for _, c := range sortedCandidates(by) {
			if c.Service != n.tpl.Service {
				continue
			}
			for _, s := range c.Support {
				if s.Family == FamilyLogs && s.Kind == KindLogPattern && templateCovers(n.tpl, strings.TrimPrefix(s.Quote, "…")) {
					home = c
					break
				}
			}
			if home != nil {
				break
			}
		}
		lvl := levelWeight(n.tpl.Attrs["level"])
		if home != nil {
			home.novel++
			home.novelLvl = math.Max(home.novelLvl, lvl)
			home.novelties = append(home.novelties, f)
			continue
		}
		c := get(n.tpl.Service, f.ErrorType)
		c.logNovel += max(f.Count, 1)
		c.novel++
		c.novelLvl = math.Max(c.novelLvl, lvl)
		c.novelties = append(c.novelties, f)
		if _, ok := TopAppFrame(f.Frames); ok {
			c.hasAppFrame = true
		}
		add(c, f)
	}
}

func levelWeight(level string) float64 {
	switch level {
	case "error":
		return 1
	case "warn":
		return 0.85
	}
	return 0.7
}

// steadyOnly: all the candidate's evidence is log lines that were as
// frequent before the onset as after it.
func (ev *evidence) steadyOnly(c *candidate) bool {
	if c.novel > 0 || c.traceOrigins > 0 || c.traceCallee > 0 || c.infra > 0 || c.logCallee > 0 {
		return false
	}
	n := 0
	for _, f := range c.Support {
		if f.Family != FamilyLogs {
			return false
		}
		if !ev.steadyTemplate(f) {
			return false
		}
		n++
	}
	return n > 0
}

// steadyNoiseAt: all the candidate's evidence is log lines that were as
// frequent before at as after it (a warning repeating since long before a
// new failure began): whatever it says, it did not start anything at at.
func (ev *evidence) steadyNoiseAt(c *candidate, at time.Time) bool {
	if c.traceOrigins > 0 || c.traceCallee > 0 || c.infra > 0 || c.logCallee > 0 || c.exceptions > 0 {
		return false
	}
	n := 0
	for _, f := range c.Support {
		if f.Family != FamilyLogs || !ev.steadyAt(f, at, minBaseline) {
			return false
		}
		n++
	}
	return n > 0
}

// framesFromTemplates gives log findings that carry no stack frame (the
// error search keeps a quote of uncatalogued errors) the frames of the
// sample of their template, which holds the whole entry.
func (ev *evidence) framesFromTemplates(by map[string]*candidate) {
	for _, c := range sortedCandidates(by) {
		for i := range c.Support {
			f := &c.Support[i]
			if f.Kind != KindLogPattern || f.File != "" || len(f.Frames) > 0 || f.Attrs["relayed_by"] != "" {
				continue
			}
			quote := strings.TrimPrefix(f.Quote, "…")
			for _, t := range ev.findings {
				if t.Kind != KindLogTemplate || t.Service != f.Service || !templateCovers(t, quote) {
					continue
				}
				frames := ParseStack(t.Attrs["sample"])
				top, ok := TopAppFrame(frames)
				if !ok {
					break
				}
				if len(frames) > 12 {
					frames = frames[:12]
				}
				f.Frames, f.File, f.Line, f.Function = frames, top.File, top.Line, top.Function
				c.hasAppFrame = true
				break
			}
		}
	}
}

// whatChanged is the evidence of what changed at the onset for a
// candidate: up to two of its new or surging templates, and the first
// change point of its service.
func (ev *evidence) whatChanged(c *candidate) []Finding {
	var out []Finding
	seen := map[string]bool{}
	for _, f := range c.novelties {
		if len(out) >= 2 || seen[f.Quote] {
			continue
		}
		seen[f.Quote] = true
		f.Frames = trimFrames(f.Frames)
		out = append(out, f)
	}
	for _, f := range ev.changePoints() {
		if f.Service == c.Service {
			out = append(out, f)
			break
		}
	}
	return out
}
