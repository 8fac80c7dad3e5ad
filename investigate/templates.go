package investigate

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/autoheal/autoheal/investigate/drain"
)

// KindLogTemplate is a log template mined from every line of a service
// (all levels) with its counts per time bucket: what the engine compares
// before and after the impact's onset to find what is new. Not a candidate
// by itself.
const KindLogTemplate FindingKind = "log_template"

// KindChangePoint is a metric series that changed level or spread: when it
// changed, from what to what. It dates the impact and says where it is.
const KindChangePoint FindingKind = "change_point"

// LogLine is one log line handed to SummarizeTemplates.
type LogLine struct {
	Service string
	Time    time.Time
	Line    string
	// Level from the stream's labels, used when the line names none.
	Level string
	// Weight is how many lines this sampled line stands for (1 when every
	// line was read; more when a slice was sampled). Zero counts as 1.
	Weight float64
}

// TemplateOptions bound SummarizeTemplates.
type TemplateOptions struct {
	// Buckets is the number of time buckets of the window (default 60).
	Buckets int
	// PerService caps the templates kept per service (default 40) and
	// Total over all services (default 400); the most telling are kept
	// (new or surging first, then the loudest).
	PerService, Total int
}

// SummarizeTemplates mines the lines of each service into Drain templates
// and returns one KindLogTemplate finding per (service, template): the
// template as its quote, the estimated number of lines as its count, first
// and last seen, and in Attrs the template, the dominant level, a sample
// line and the counts per bucket ("buckets": "<unix start> <step seconds>
// c0,c1,..."). Lines outside [start, end) are ignored.
func SummarizeTemplates(lines []LogLine, start, end time.Time, o TemplateOptions) []Finding {
	if o.Buckets <= 0 {
		o.Buckets = 60
	}
	if o.PerService <= 0 {
		o.PerService = 40
	}
	if o.Total <= 0 {
		o.Total = 400
	}
	if !end.After(start) {
		return nil
	}
	step := end.Sub(start) / time.Duration(o.Buckets)
	if step < time.Second {
		step = time.Second
	}
	nb := int((end.Sub(start) + step - 1) / step)
	type tmpl struct {
		svc      string
		cluster  *drain.Cluster
		counts   []float64
		total    float64
		first    time.Time
		last     time.Time
		levels   map[string]float64
		sample   string
		sampleAt time.Time
		sampleLv int
		raw      string // the sample's whole line (a JSON entry's fields, which the text leaves out)
		params   *paramTracker
	}
	miners := map[string]*drain.Miner{}
	byCluster := map[*drain.Cluster]*tmpl{}
	var order []*tmpl
	for _, l := range lines {
		if l.Time.Before(start) || !l.Time.Before(end) {
			continue
		}
		text, level := LogText(l.Line)
		if level == "" {
			level = NormalizeLevel(l.Level)
		}
		head := strings.TrimSpace(text)
		if i := strings.IndexAny(head, "\r\n"); i >= 0 {
			head = strings.TrimSpace(head[:i])
		}
		m := miners[l.Service]
		if m == nil {
			m = drain.New(drain.Config{MaxClusters: 500})
			miners[l.Service] = m
		}
		c := m.Add(strings.Join(drain.TrimHeader(drain.Tokenize(head)), " "))
		t := byCluster[c]
		if t == nil {
			t = &tmpl{svc: l.Service, cluster: c, counts: make([]float64, nb), levels: map[string]float64{}, params: newParamTracker()}
			byCluster[c] = t
			order = append(order, t)
		}
		w := l.Weight
		if w <= 0 {
			w = 1
		}
		b := min(int(l.Time.Sub(start)/step), nb-1)
		t.counts[b] += w
		t.total += w
		t.levels[level] += w
		if t.first.IsZero() || l.Time.Before(t.first) {
			t.first = l.Time
		}
		if l.Time.After(t.last) {
			t.last = l.Time
		}
		// The most severe sample, and of those the first: it is what the
		// catalogue types and what the result quotes.
		if lv := levelRank(level); t.sample == "" || lv > t.sampleLv || (lv == t.sampleLv && l.Time.Before(t.sampleAt)) {
			t.sample, t.sampleAt, t.sampleLv, t.raw = text, l.Time, lv, l.Line
		}
		t.params.add(l.Time, head, w)
	}
	// Keep the most telling per service: a template whose rate rises the
	// most inside the window first, then the loudest.
	bySvc := map[string][]*tmpl{}
	for _, t := range order {
		bySvc[t.svc] = append(bySvc[t.svc], t)
	}
	var kept []*tmpl
	for _, ts := range bySvc {
		sort.SliceStable(ts, func(i, j int) bool {
			ri, rj := riseScore(ts[i].counts), riseScore(ts[j].counts)
			if ri != rj {
				return ri > rj
			}
			return ts[i].total > ts[j].total
		})
		if len(ts) > o.PerService {
			ts = ts[:o.PerService]
		}
		kept = append(kept, ts...)
	}
	sort.SliceStable(kept, func(i, j int) bool {
		ri, rj := riseScore(kept[i].counts), riseScore(kept[j].counts)
		if ri != rj {
			return ri > rj
		}
		if kept[i].total != kept[j].total {
			return kept[i].total > kept[j].total
		}
		return kept[i].svc < kept[j].svc
	})
	if len(kept) > o.Total {
		kept = kept[:o.Total]
	}
	out := make([]Finding, 0, len(kept))
	for _, t := range kept {
		tpl := t.cluster.Template()
		attrs := map[string]string{
			"template": tpl,
			"level":    dominant(t.levels),
			"sample":   QuoteLines(t.sample, 1500),
			"buckets":  EncodeBuckets(start, step, t.counts),
		}
		if raw := strings.TrimSpace(t.raw); raw != strings.TrimSpace(t.sample) && strings.HasPrefix(raw, "{") {
			attrs["raw"] = Quote(raw, 600)
		}
		t.params.attrs(attrs)
		out = append(out, Finding{Kind: KindLogTemplate, Family: FamilyLogs, Service: t.svc, Quote: Quote(tpl, 200),
			Time: t.first, LastTime: t.last, Count: int(t.total + 0.5), Attrs: attrs})
	}
	return out
}

// QuoteLines bounds a multi-line text to n runes, keeping its lines (a
// stack trace stays readable by the stack parser).
func QuoteLines(s string, n int) string {
	s = strings.TrimSpace(s)
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// riseScore is how much a template's rate rises at its best split inside
// the window (later share minus earlier share, scaled by volume): new and
// surging templates score high, steady ones near zero.
func riseScore(counts []float64) float64 {
	n := len(counts)
	if n < 4 {
		return 0
	}
	total := 0.0
	for _, c := range counts {
		total += c
	}
	if total == 0 {
		return 0
	}
	best, prefix := 0.0, 0.0
	for k := 1; k < n; k++ {
		prefix += counts[k-1]
		if k < n/5 {
			continue
		}
		before := prefix / float64(k)
		after := (total - prefix) / float64(n-k)
		if r := (after - before) / (before + 0.1); r > best {
			best = r
		}
	}
	return best
}

func levelRank(l string) int {
	switch l {
	case "error":
		return 3
	case "warn":
		return 2
	case "info":
		return 1
	}
	return 0
}

func dominant(levels map[string]float64) string {
	best, n := "", -1.0
	for l, c := range levels {
		if c > n || (c == n && levelRank(l) > levelRank(best)) {
			best, n = l, c
		}
	}
	return best
}

// Buckets are a template's counts per time bucket.
type Buckets struct {
	Start  time.Time
	Step   time.Duration
	Counts []float64
}

// EncodeBuckets renders counts as "<unix start> <step seconds> c0,c1,...".
func EncodeBuckets(start time.Time, step time.Duration, counts []float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %d ", start.Unix(), int64(step/time.Second))
	for i, c := range counts {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(c, 'f', -1, 64))
	}
	return b.String()
}

// DecodeBuckets parses EncodeBuckets' format.
func DecodeBuckets(s string) (Buckets, error) {
	parts := strings.Fields(s)
	if len(parts) != 3 {
		return Buckets{}, fmt.Errorf("buckets %q: want '<start> <step> <counts>'", Quote(s, 40))
	}
	st, err1 := strconv.ParseInt(parts[0], 10, 64)
	sp, err2 := strconv.ParseInt(parts[1], 10, 64)
	if err1 != nil || err2 != nil || sp <= 0 {
		return Buckets{}, fmt.Errorf("buckets %q: bad start or step", Quote(s, 40))
	}
	var counts []float64
	for _, c := range strings.Split(parts[2], ",") {
		v, err := strconv.ParseFloat(c, 64)
		if err != nil {
			return Buckets{}, fmt.Errorf("buckets: count %q: %w", c, err)
		}
		counts = append(counts, v)
	}
	return Buckets{Start: time.Unix(st, 0).UTC(), Step: time.Duration(sp) * time.Second, Counts: counts}, nil
}

// Between sums the counts of the buckets that start in [from, to), and
// says how long those buckets span.
func (b Buckets) Between(from, to time.Time) (sum float64, span time.Duration) {
	for i, c := range b.Counts {
		t := b.Start.Add(time.Duration(i) * b.Step)
		if !t.Before(from) && t.Before(to) {
			sum += c
			span += b.Step
		}
	}
	return sum, span
}

// End is the end of the last bucket.
func (b Buckets) End() time.Time { return b.Start.Add(time.Duration(len(b.Counts)) * b.Step) }
