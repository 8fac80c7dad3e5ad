package prom

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/changepoint"
)

// maxChangePoints bounds the change-point findings of one health check.
const maxChangePoints = 40

// identityLabels are labels that name where a series comes from rather
// than what it measures: series differing only by them are one signal.
var identityLabels = map[string]bool{"__name__": true, "instance": true, "pod": true, "pod_name": true, "container_id": true, "id": true,
	"uid": true, "node": true, "kubernetes_node": true, "endpoint": true, "prometheus": true, "prometheus_replica": true, "image": true,
	"image_id": true, "name": true, "job": true, "namespace": true, "service": true, "service_name": true, "app": true, "container": true}

// ChangePoints looks for a change of level or spread in every series:
// counters are read as per-second rates (resets handled), gauges as they
// are. Series of one metric and service changing the same way are one
// finding ("in 3 of 4 series"), the strongest quoted. Findings are ordered
// by onset.
func ChangePoints(series []Series) []investigate.Finding {
	type agg struct {
		f       investigate.Finding
		score   float64
		changed int
	}
	by := map[string]*agg{}
	total := map[string]int{}
	var keys []string
	for _, s := range series {
		name := s.Metric["__name__"]
		if name == "" || strings.HasSuffix(name, "_bucket") || strings.HasSuffix(name, "_sum") || len(s.Points) < 8 {
			continue
		}
		svc := serviceOf(s.Metric)
		counter := isCounter(name, s.Points)
		pts := s.Points
		if counter {
			pts = rates(s.Points)
		}
		group := svc + "|" + name
		total[group]++
		xs := make([]float64, len(pts))
		for i, p := range pts {
			xs[i] = p.V
		}
		c, ok := changepoint.Detect(xs, changepoint.Options{MinSegment: max(3, len(xs)/20)})
		if !ok {
			continue
		}
		dir := "down"
		if c.Up() {
			dir = "up"
		}
		k := group + "|" + dir + "|" + string(c.Kind)
		a := by[k]
		if a == nil {
			a = &agg{}
			by[k] = a
			keys = append(keys, k)
		}
		a.changed++
		if c.Score <= a.score {
			continue
		}
		a.score = c.Score
		at := pts[c.Index].T
		what := name + distinguishing(s.Metric)
		unit := ""
		if counter {
			unit = "/s"
		}
		quote := fmt.Sprintf("%s %s %s%s → %s%s since %s", what, kindWord(c.Kind, counter), num(c.Before), unit, num(c.After), unit, at.UTC().Format("15:04"))
		if svc != "" {
			quote = svc + ": " + quote
		}
		a.f = investigate.Finding{Kind: investigate.KindChangePoint, Family: investigate.FamilyMetrics, Service: svc,
			Time: at, LastTime: pts[len(pts)-1].T, Count: 1, Quote: quote,
			Attrs: map[string]string{"metric": name, "labels": distinguishing(s.Metric), "direction": dir, "change": string(c.Kind),
				"before": num(c.Before), "after": num(c.After), "effect": fmt.Sprintf("%.2f", c.Effect), "score": fmt.Sprintf("%.1f", math.Min(c.Score, 1e6)),
				"counter": fmt.Sprint(counter), "unit": unitOf(name, counter)},
			Series: samples(pts)}
	}
	out := make([]investigate.Finding, 0, len(keys))
	for _, k := range keys {
		a := by[k]
		group := k[:strings.Index(k, "|")+1] + a.f.Attrs["metric"]
		if n := total[group]; n > 1 {
			a.f.Attrs["series_changed"] = fmt.Sprintf("%d of %d", a.changed, n)
			a.f.Quote += fmt.Sprintf(" (%d of %d series)", a.changed, n)
		}
		out = append(out, a.f)
	}
	sort.SliceStable(out, func(i, j int) bool {
		si, sj := scoreOf(out[i]), scoreOf(out[j])
		if si != sj {
			return si > sj
		}
		return out[i].Quote < out[j].Quote
	})
	if len(out) > maxChangePoints {
		out = out[:maxChangePoints]
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out
}

// unitOf is how a series' values read, for the evidence chart.
func unitOf(name string, counter bool) string {
	switch {
	case counter:
		return "/s"
	case strings.HasSuffix(name, "_seconds"):
		return "s"
	case strings.HasSuffix(name, "_bytes"):
		return "bytes"
	case strings.HasSuffix(name, "_ratio"):
		return "ratio"
	}
	return ""
}

// samples is a series as the engine keeps it for the evidence chart
// (thinned to investigate.MaxSeriesPoints).
func samples(pts []Point) []investigate.Sample {
	out := make([]investigate.Sample, len(pts))
	for i, p := range pts {
		out[i] = investigate.Sample{T: p.T, V: p.V}
	}
	return investigate.ThinSamples(out, investigate.MaxSeriesPoints)
}

func scoreOf(f investigate.Finding) float64 {
	var s float64
	fmt.Sscan(f.Attrs["score"], &s)
	return s
}

func kindWord(k changepoint.Kind, counter bool) string {
	switch {
	case k == changepoint.Spread:
		return "spread"
	case counter:
		return "rate"
	}
	return "level"
}

// isCounter: named as a counter, or never decreasing except for resets.
func isCounter(name string, pts []Point) bool {
	if strings.HasSuffix(name, "_total") || strings.HasSuffix(name, "_count") {
		return true
	}
	if strings.HasSuffix(name, "_seconds") || strings.HasSuffix(name, "_bytes") || strings.HasSuffix(name, "_ratio") {
		return false
	}
	drops, rises := 0, 0
	for i := 1; i < len(pts); i++ {
		switch {
		case pts[i].V < pts[i-1].V:
			drops++
		case pts[i].V > pts[i-1].V:
			rises++
		}
	}
	return rises >= len(pts)/2 && drops <= 1 && pts[0].V >= 0
}

// rates turns counter samples into per-second rates. A query step shorter
// than the scrape interval repeats each sample; the rate is taken over the
// usual run of repeats, or every other step would read as zero.
func rates(pts []Point) []Point {
	k := min(max(1, scrapeRun(pts)), max(1, len(pts)/10))
	out := make([]Point, 0, len(pts))
	for i := k; i < len(pts); i++ {
		d := 0.0
		for j := i - k + 1; j <= i; j++ {
			step := pts[j].V - pts[j-1].V
			if step < 0 {
				step = pts[j].V // a reset
			}
			d += step
		}
		dt := pts[i].T.Sub(pts[i-k].T).Seconds()
		if dt <= 0 {
			continue
		}
		out = append(out, Point{T: pts[i].T, V: d / dt})
	}
	return out
}

// scrapeRun is the median length of the runs of equal values among the
// runs that end in a rise: how many query steps one scrape lasts.
func scrapeRun(pts []Point) int {
	var runs []int
	run := 1
	for i := 1; i < len(pts); i++ {
		if pts[i].V == pts[i-1].V {
			run++
			continue
		}
		runs = append(runs, run)
		run = 1
	}
	if len(runs) == 0 {
		return 1
	}
	sort.Ints(runs)
	return runs[len(runs)/2]
}

// distinguishing renders the labels that say what a series measures
// ({status="500", route="/pay"}), not where it was scraped.
func distinguishing(m map[string]string) string {
	var ks []string
	for k := range m {
		if !identityLabels[k] && m[k] != "" {
			ks = append(ks, k)
		}
	}
	if len(ks) == 0 {
		return ""
	}
	sort.Strings(ks)
	if len(ks) > 4 {
		ks = ks[:4]
	}
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = fmt.Sprintf("%s=%q", k, m[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// num renders a value compactly: 0.0042, 12.5, 8.41M.
func num(v float64) string {
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a >= 1e9:
		return fmt.Sprintf("%.3gG", v/1e9)
	case a >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case a >= 1e4:
		return fmt.Sprintf("%.3gk", v/1e3)
	case a >= 1:
		return fmt.Sprintf("%.3g", v)
	}
	return fmt.Sprintf("%.2g", v)
}

// scopeLimit is the most series the health check reads beyond its fixed
// list: every series of the namespace (or of the whole backend when it is
// that small), so that application metrics (queue lag, objects in a bucket,
// a pool's waiters) can show where and when something changed.
const scopeLimit = 1500

// scopeSelectors returns the series-index match and the range selector
// of the wide read (histogram buckets left out: latency is read from the
// fixed list's histograms).
func scopeSelectors(namespace string) (match, rng string) {
	if namespace != "" {
		ns := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(namespace)
		return fmt.Sprintf(`{namespace="%s"}`, ns), fmt.Sprintf(`{namespace="%s", __name__!~".+_bucket"}`, ns)
	}
	return `{__name__=~".+"}`, `{__name__=~".+", __name__!~".+_bucket"}`
}

// mergeSeries adds the series of extra that base does not hold already.
func mergeSeries(base, extra []Series) []Series {
	seen := map[string]bool{}
	key := func(m map[string]string) string {
		ks := make([]string, 0, len(m))
		for k, v := range m {
			ks = append(ks, k+"="+v)
		}
		sort.Strings(ks)
		return strings.Join(ks, ",")
	}
	for _, s := range base {
		seen[key(s.Metric)] = true
	}
	for _, s := range extra {
		if k := key(s.Metric); !seen[k] {
			seen[k] = true
			base = append(base, s)
		}
	}
	return base
}
