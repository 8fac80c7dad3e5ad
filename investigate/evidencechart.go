package investigate

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// MaxSeriesPoints bounds the series a finding carries and a chart draws.
const MaxSeriesPoints = 300

// EvidenceChart is the metric series that supports a result's conclusion,
// as data: the series that moved most at the onset for the blamed
// service, its normal range before the onset, the onset and the blamed
// change. The chart package draws it; the engine only chooses it.
type EvidenceChart struct {
	Service string `json:"service"`
	// What names the series drawn ("error ratio", "memory working set",
	// "traces_span_metrics_calls_total{…} rate").
	What string `json:"what"`
	// Unit is how values read: ratio, bytes, s, /s or empty.
	Unit   string   `json:"unit,omitempty"`
	Points []Sample `json:"points"`
	// BaselineLow and BaselineHigh bound the series before the onset (the
	// 10th and 90th percentiles); both zero when too few points precede it.
	BaselineLow  float64 `json:"baseline_low"`
	BaselineHigh float64 `json:"baseline_high"`
	// Baseline says whether the band is known.
	Baseline bool `json:"baseline"`
	// Limit is a ceiling the series runs into (a memory limit), 0 if none.
	Limit      float64      `json:"limit,omitempty"`
	LimitLabel string       `json:"limit_label,omitempty"`
	Onset      time.Time    `json:"onset"`
	Change     *ChartChange `json:"change,omitempty"`
	// Quote is the evidence the series stands for.
	Quote string `json:"quote,omitempty"`
}

// ChartChange is the blamed change drawn on the chart.
type ChartChange struct {
	At    time.Time `json:"at"`
	SHA   string    `json:"sha,omitempty"` // short
	Title string    `json:"title,omitempty"`
}

// chartWindow is how far from the onset a series' own change may lie and
// still be the one that moved "at the onset".
const (
	chartBefore = 30 * time.Minute
	chartAfter  = 15 * time.Minute
)

// ChartFor chooses the evidence chart of res from the series its receipts'
// metric findings carry (in memory, right after the investigation). onset
// is the engine's impact onset (zero: each series' own change). It returns
// nil when no metric of the blamed service moved at the onset: no chart
// rather than one that says nothing, or the wrong thing.
func ChartFor(res *HealResult, onset time.Time) *EvidenceChart {
	if res == nil || len(res.Evidence) == 0 || res.RootCause.ErrorType == ErrUnknown && res.RootCause.File == "" {
		return nil
	}
	svc := NormalizeServiceName(res.RootCause.Service)
	if svc == "" {
		return nil
	}
	var best *Finding
	bestRank, bestScore := 0, 0.0
	for i := range res.Timeline {
		for j := range res.Timeline[i].Findings {
			f := &res.Timeline[i].Findings[j]
			if len(f.Series) < 2 || NormalizeServiceName(f.Service) != svc {
				continue
			}
			rank := chartRank(*f, res.RootCause, onset)
			if rank == 0 {
				continue
			}
			score := attrFloat(*f, "score")
			better := rank > bestRank || rank == bestRank && (score > bestScore ||
				score == bestScore && (f.Time.Before(best.Time) || f.Time.Equal(best.Time) && f.Quote < best.Quote))
			if best == nil || better {
				best, bestRank, bestScore = f, rank, score
			}
		}
	}
	if best == nil {
		return nil
	}
	at := onset
	if at.IsZero() {
		at = best.Time
	}
	c := &EvidenceChart{Service: best.Service, What: best.Attrs["series"], Unit: best.Attrs["unit"],
		Points: ThinSamples(best.Series, MaxSeriesPoints), Onset: at, Quote: best.Quote}
	if c.What == "" { // a change point: the series it was found in
		c.What = best.Attrs["metric"] + best.Attrs["labels"]
		if best.Attrs["counter"] == "true" {
			c.What += " rate"
		}
	}
	c.BaselineLow, c.BaselineHigh, c.Baseline = baselineBand(c.Points, at)
	if l := attrFloat(*best, "limit_bytes"); l > 0 {
		c.Limit, c.LimitLabel = l, "limit "+best.Attrs["limit"]
	}
	c.Change = blamedChange(res.Evidence)
	return c
}

// chartRank orders the series that may stand for a conclusion (0: may
// not): memory against its limit for a container killed for memory, the
// error ratio, latency for a timeout, an error series' own change point,
// then any other change point of the service near the onset.
func chartRank(f Finding, rc RootCause, onset time.Time) int {
	if f.Attrs["metric"] == "memory_vs_limit" {
		if rc.ErrorType == ErrOOM || rc.ErrorType == ErrResourceExhaustion {
			return 5 // the approach to the ceiling is gradual: no onset window
		}
		return 0
	}
	if !onset.IsZero() && (f.Time.Before(onset.Add(-chartBefore)) || f.Time.After(onset.Add(chartAfter))) {
		return 0 // it moved, but not when the impact began
	}
	switch {
	case f.Signature == "latency-rise" && rc.ErrorType == ErrTimeout:
		return 4
	case f.Signature == "error-rate":
		return 3
	case f.Signature == "latency-rise":
		return 2
	case f.Kind == KindChangePoint && f.Attrs["direction"] == "up" && errorSeries(f.Attrs["labels"]):
		return 2
	case f.Kind == KindChangePoint:
		return 1
	}
	return 0
}

// errorSeries reports whether a series' labels count failures.
func errorSeries(labels string) bool {
	l := strings.ToLower(labels)
	for _, s := range []string{`status_code="status_code_error"`, `status="5`, `code="5`, `status_class="5`, `outcome="server_error"`, `error="true"`} {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// baselineBand is the 10th–90th percentile range of the points before at
// (at least three of them).
func baselineBand(pts []Sample, at time.Time) (lo, hi float64, ok bool) {
	var xs []float64
	for _, p := range pts {
		if p.T.Before(at) && !math.IsNaN(p.V) && !math.IsInf(p.V, 0) {
			xs = append(xs, p.V)
		}
	}
	if len(xs) < 3 {
		return 0, 0, false
	}
	sort.Float64s(xs)
	q := func(p float64) float64 { return xs[int(math.Round(p*float64(len(xs)-1)))] }
	return q(0.1), q(0.9), true
}

// blamedChange is the change the result names (its change correlation
// evidence), if it is dated.
func blamedChange(evidence []Finding) *ChartChange {
	for _, f := range evidence {
		if f.Kind != KindChangeCorrelation || f.Time.IsZero() {
			continue
		}
		sha := f.Attrs["sha"]
		if len(sha) > 7 {
			sha = sha[:7]
		}
		title := f.Attrs["message"]
		if i := strings.IndexByte(title, '\n'); i >= 0 {
			title = title[:i]
		}
		return &ChartChange{At: f.Time, SHA: sha, Title: Quote(title, 80)}
	}
	return nil
}

func attrFloat(f Finding, key string) float64 {
	v, err := strconv.ParseFloat(f.Attrs[key], 64)
	if err != nil {
		return 0
	}
	return v
}

// ThinSamples returns at most max points of pts: the mean of each run of
// consecutive points, dated at the run's first, so that a level shift stays
// where it was.
func ThinSamples(pts []Sample, max int) []Sample {
	if max <= 0 || len(pts) <= max {
		return pts
	}
	out := make([]Sample, 0, max)
	for i := 0; i < max; i++ {
		from, to := i*len(pts)/max, (i+1)*len(pts)/max
		if to <= from {
			continue
		}
		var sum float64
		for _, p := range pts[from:to] {
			sum += p.V
		}
		out = append(out, Sample{T: pts[from].T, V: sum / float64(to-from)})
	}
	return out
}
