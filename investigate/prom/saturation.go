package prom

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/autoheal/autoheal/investigate"
)

// Saturation analyses: the failures that show as slowness or slow growth
// rather than errors — CPU throttling at a limit, an autoscaler pinned at its
// maximum, memory or goroutines growing with uptime, latency that rose.

// cpuThrottling reports containers throttled by CFS in a large share of
// their scheduling periods: the CPU limit, not the node, is what is short.
func cpuThrottling(throttled, periods, limits []Series) []investigate.Finding {
	type key struct{ pod, container string }
	periodsOf := map[key]Series{}
	for _, s := range periods {
		periodsOf[key{s.Metric["pod"], s.Metric["container"]}] = s
	}
	cpuLimit := map[key]float64{}
	for _, s := range limits {
		if s.Metric["resource"] == "cpu" && len(s.Points) > 0 {
			cpuLimit[key{s.Metric["pod"], s.Metric["container"]}] = s.Points[len(s.Points)-1].V
		}
	}
	type agg struct {
		worst float64
		onset time.Time
		limit float64
		pods  int
	}
	by := map[string]*agg{}
	for _, s := range throttled {
		k := key{s.Metric["pod"], s.Metric["container"]}
		if k.container == "" || k.container == "POD" {
			continue
		}
		p, ok := periodsOf[k]
		if !ok {
			continue
		}
		th, per := deltas(s.Points), deltas(p.Points)
		// The worst sustained share over three consecutive steps, and the
		// first step from which it stayed above a quarter.
		var worst float64
		var onset time.Time
		for i := range th {
			var t, n float64
			for j := i; j < min(i+3, len(th)); j++ {
				t += th[j].V
				n += per.at(th[j].T)
			}
			if n <= 0 {
				continue
			}
			r := t / n
			if r > worst {
				worst = r
			}
			own := 0.0
			if n := per.at(th[i].T); n > 0 {
				own = th[i].V / n
			}
			if r >= 0.25 && own >= 0.25 && onset.IsZero() {
				onset = th[i].T
			}
		}
		if worst < 0.25 {
			continue
		}
		svc := serviceOf(s.Metric)
		a := by[svc]
		if a == nil {
			a = &agg{}
			by[svc] = a
		}
		a.pods++
		if worst > a.worst {
			a.worst = worst
		}
		if a.onset.IsZero() || onset.Before(a.onset) {
			a.onset = onset
		}
		if l := cpuLimit[k]; l > 0 {
			a.limit = l
		}
	}
	var out []investigate.Finding
	for _, svc := range sortedKeys(by) {
		a := by[svc]
		limit := ""
		if a.limit > 0 {
			limit = fmt.Sprintf(" at a %s CPU limit", cpuHuman(a.limit))
		}
		quote := fmt.Sprintf("%s: CPU throttled in %.0f%% of CFS periods%s since %s in %d pods", svc, 100*a.worst, limit, a.onset.UTC().Format("15:04"), a.pods)
		out = append(out, anomaly(svc, quote, a.onset, investigate.ErrResourceExhaustion, "cpu-throttled", map[string]string{
			"metric": "cpu_throttling", "ratio": fmt.Sprintf("%.2f", a.worst), "limit": cpuHuman(a.limit), "pods": fmt.Sprint(a.pods)}))
	}
	return out
}

// autoscalerAtMax reports HorizontalPodAutoscalers held at maxReplicas while
// they want more (desired at or above the maximum): capacity is capped.
// An autoscaler whose minimum equals its maximum is a fixed size, not a cap.
func autoscalerAtMax(current, maxR, minR, desired []Series) []investigate.Finding {
	name := func(s Series) string {
		if n := s.Metric["horizontalpodautoscaler"]; n != "" {
			return n
		}
		return s.Metric["hpa"]
	}
	maxOf := map[string]Series{}
	for _, s := range maxR {
		maxOf[name(s)] = s
	}
	minOf := map[string]float64{}
	for _, s := range minR {
		if len(s.Points) > 0 {
			minOf[name(s)] = s.Points[len(s.Points)-1].V
		}
	}
	desiredOf := map[string]Series{}
	for _, s := range desired {
		desiredOf[name(s)] = s
	}
	var out []investigate.Finding
	for _, s := range current {
		n := name(s)
		m, ok := maxOf[n]
		if n == "" || !ok || len(m.Points) == 0 {
			continue
		}
		mx := m.Points[len(m.Points)-1].V
		if lo, ok := minOf[n]; ok && lo >= mx {
			continue
		}
		d := desiredOf[n]
		run, longest := 0, 0
		var start, since time.Time
		for _, p := range s.Points {
			want := Series{Points: d.Points}.valueAt(p.T, p.V)
			if p.V >= mx && want >= mx {
				if run == 0 {
					start = p.T
				}
				run++
				if run > longest {
					longest, since = run, start
				}
			} else {
				run = 0
			}
		}
		if longest < 3 {
			continue
		}
		quote := fmt.Sprintf("%s: HorizontalPodAutoscaler at its maxReplicas %.0f since %s", n, mx, since.UTC().Format("15:04"))
		out = append(out, anomaly(n, quote, since, investigate.ErrResourceExhaustion, "hpa-at-max", map[string]string{
			"metric": "hpa_at_max", "max_replicas": fmt.Sprintf("%.0f", mx)}))
	}
	return out
}

// growthWithUptime reports pods whose memory or goroutines/threads climb
// steadily for as long as they run and drop only on restart: a leak, not a
// limit that is too small for the load.
func growthWithUptime(metric, what string, series []Series) []investigate.Finding {
	type agg struct {
		from, to float64
		since    time.Time
		span     time.Duration
		pods     int
	}
	by := map[string]*agg{}
	for _, s := range series {
		if s.Metric["container"] == "POD" {
			continue
		}
		best, ok := steadyRise(s.Points)
		if !ok {
			continue
		}
		svc := serviceOf(s.Metric)
		a := by[svc]
		if a == nil {
			a = &agg{}
			by[svc] = a
		}
		a.pods++
		if span := best.to.T.Sub(best.from.T); span > a.span {
			a.from, a.to, a.span = best.from.V, best.to.V, span
		}
		if a.since.IsZero() || best.from.T.Before(a.since) {
			a.since = best.from.T
		}
	}
	var out []investigate.Finding
	for _, svc := range sortedKeys(by) {
		a := by[svc]
		from, to := fmt.Sprintf("%.0f", a.from), fmt.Sprintf("%.0f", a.to)
		if strings.Contains(metric, "bytes") {
			from, to = bytesHuman(a.from), bytesHuman(a.to)
		}
		quote := fmt.Sprintf("%s: %s steadily with uptime (%s to %s over %s), dropping only on restart, in %d pods", svc, what, from, to, roundSpan(a.span), a.pods)
		out = append(out, anomaly(svc, quote, a.since, investigate.ErrOOM, "growth-with-uptime", map[string]string{
			"metric": metric, "role": "leak", "pods": fmt.Sprint(a.pods)}))
	}
	return out
}

type rise struct{ from, to Point }

// steadyRise finds the longest stretch between restarts (a drop by more than
// a third) over which the series at least doubles while rising in most
// steps. Six hours at the least: a morning ramp is load, not a leak.
func steadyRise(pts []Point) (rise, bool) {
	var best rise
	found := false
	startAt := 0
	check := func(lo, hi int) {
		if hi-lo < 8 {
			return
		}
		seg := pts[lo:hi]
		first, last := seg[0], seg[len(seg)-1]
		if first.V <= 0 || last.V < 2*first.V || last.T.Sub(first.T) < 6*time.Hour {
			return
		}
		// Rising in most steps, and evenly: halfway through the stretch
		// a quarter to three quarters of the rise is done (a ramp that
		// then plateaus is load).
		up := 0
		for i := 1; i < len(seg); i++ {
			if seg[i].V > seg[i-1].V {
				up++
			}
		}
		if float64(up) < 0.6*float64(len(seg)-1) {
			return
		}
		mid := seg[len(seg)/2].V
		if done := (mid - first.V) / (last.V - first.V); done < 0.25 || done > 0.75 {
			return
		}
		if !found || last.T.Sub(first.T) > best.to.T.Sub(best.from.T) {
			best, found = rise{first, last}, true
		}
	}
	for i := 1; i < len(pts); i++ {
		if pts[i].V < pts[i-1].V*2/3 {
			check(startAt, i)
			startAt = i
		}
	}
	check(startAt, len(pts))
	return best, found
}

// latencyRise reports services whose p99 request latency, estimated from a
// duration histogram, rose well above the start of the window.
func latencyRise(metric string, buckets []Series) []investigate.Finding {
	type step map[float64]float64 // le -> increase
	by := map[string]map[time.Time]step{}
	for _, s := range buckets {
		if k := s.Metric["span_kind"]; k != "" && k != "SPAN_KIND_SERVER" {
			continue
		}
		le, err := strconv.ParseFloat(s.Metric["le"], 64)
		if err != nil && s.Metric["le"] != "+Inf" {
			continue
		}
		if s.Metric["le"] == "+Inf" {
			le = math.Inf(1)
		}
		svc := serviceOf(s.Metric)
		if by[svc] == nil {
			by[svc] = map[time.Time]step{}
		}
		for _, d := range deltas(s.Points) {
			st := by[svc][d.T]
			if st == nil {
				st = step{}
				by[svc][d.T] = st
			}
			st[le] += d.V
		}
	}
	var out []investigate.Finding
	for _, svc := range sortedKeys(by) {
		steps := by[svc]
		times := make([]time.Time, 0, len(steps))
		for t := range steps {
			times = append(times, t)
		}
		sort.Slice(times, func(i, j int) bool { return times[i].Before(times[j]) })
		if len(times) < 8 {
			continue
		}
		p99 := func(ts []time.Time) float64 {
			sum := step{}
			for _, t := range ts {
				for le, v := range steps[t] {
					sum[le] += v
				}
			}
			return quantile(0.99, sum)
		}
		base := p99(times[:len(times)/4])
		if math.IsNaN(base) || base <= 0 {
			continue
		}
		onset := -1
		for i := len(times) / 4; i < len(times)-2; i++ {
			if q := p99(times[i : i+3]); q >= 3*base && q >= 0.25 && p99(times[i:i+1]) >= 3*base {
				onset = i
				break
			}
		}
		if onset < 0 {
			continue
		}
		after := p99(times[onset:])
		if after < 2*base {
			continue
		}
		quote := fmt.Sprintf("%s: p99 latency %s since %s (baseline %s), from %s", svc, secondsHuman(after), times[onset].UTC().Format("15:04"), secondsHuman(base), metric)
		f := anomaly(svc, quote, times[onset], investigate.ErrTimeout, "latency-rise", map[string]string{
			"metric": metric, "p99_after": fmt.Sprintf("%.3f", after), "p99_before": fmt.Sprintf("%.3f", base),
			"series": "p99 latency", "unit": "s"})
		var pts []Point
		for i := range times {
			lo := max(0, i-1)
			if q := p99(times[lo:min(lo+3, len(times))]); !math.IsNaN(q) {
				pts = append(pts, Point{T: times[i], V: q})
			}
		}
		f.Series = samples(pts)
		out = append(out, f)
	}
	return out
}

// quantile is histogram_quantile over one aggregated set of buckets.
func quantile(q float64, buckets map[float64]float64) float64 {
	les := make([]float64, 0, len(buckets))
	for le := range buckets {
		les = append(les, le)
	}
	sort.Float64s(les)
	if len(les) < 2 || !math.IsInf(les[len(les)-1], 1) {
		return math.NaN()
	}
	total := buckets[les[len(les)-1]]
	if total <= 0 {
		return math.NaN()
	}
	rank := q * total
	prevLe, prevCount := 0.0, 0.0
	for _, le := range les {
		count := buckets[le]
		if count >= rank {
			if math.IsInf(le, 1) {
				return prevLe // beyond the largest finite bucket
			}
			if count == prevCount {
				return le
			}
			return prevLe + (le-prevLe)*(rank-prevCount)/(count-prevCount)
		}
		prevLe, prevCount = le, count
	}
	return prevLe
}

// deltas turns a counter into per-step increases (a drop is a reset).
type stepSeries []Point

func deltas(pts []Point) stepSeries {
	out := make(stepSeries, 0, len(pts))
	for i := 1; i < len(pts); i++ {
		d := pts[i].V - pts[i-1].V
		if d < 0 {
			d = pts[i].V
		}
		out = append(out, Point{T: pts[i].T, V: d})
	}
	return out
}

func (s stepSeries) at(t time.Time) float64 {
	i := sort.Search(len(s), func(i int) bool { return !s[i].T.Before(t) })
	if i < len(s) && s[i].T.Equal(t) {
		return s[i].V
	}
	return 0
}

// valueAt is the last sample at or before t, def when there is none.
func (s Series) valueAt(t time.Time, def float64) float64 {
	v, ok := def, false
	for _, p := range s.Points {
		if p.T.After(t) {
			break
		}
		v, ok = p.V, true
	}
	if !ok {
		return def
	}
	return v
}

func cpuHuman(cores float64) string {
	if cores <= 0 {
		return ""
	}
	if cores < 1 || cores != math.Trunc(cores) {
		return fmt.Sprintf("%.0fm", cores*1000)
	}
	return fmt.Sprintf("%.0f", cores)
}

func secondsHuman(s float64) string {
	if s < 1 {
		return fmt.Sprintf("%.0fms", s*1000)
	}
	return fmt.Sprintf("%.1fs", s)
}

func roundSpan(d time.Duration) string {
	if d >= 48*time.Hour {
		return fmt.Sprintf("%.0f days", d.Hours()/24)
	}
	return fmt.Sprintf("%.0fh", d.Hours())
}

// nodeClocks reports nodes whose clock is off by more than a second, or not
// synchronised: tokens, certificates and leases checked against the wrong
// time fail on the pods scheduled there.
func nodeClocks(offset, sync []Series) []investigate.Finding {
	node := func(s Series) string {
		return firstNonEmpty(s.Metric["node"], s.Metric["nodename"], s.Metric["instance"])
	}
	var out []investigate.Finding
	for _, s := range offset {
		var worst float64
		var at time.Time
		for _, p := range s.Points {
			if math.Abs(p.V) > math.Abs(worst) {
				worst = p.V
			}
			if math.Abs(p.V) > 1 && at.IsZero() {
				at = p.T
			}
		}
		if math.Abs(worst) <= 1 {
			continue
		}
		n := node(s)
		quote := fmt.Sprintf("clock offset of %.0fs on node %s (node_timex_offset_seconds) since %s", worst, n, at.UTC().Format("15:04"))
		out = append(out, anomaly("", quote, at, investigate.ErrConfig, "clock-skew", map[string]string{
			"metric": "node_clock", "node": n, "offset_seconds": fmt.Sprintf("%.1f", worst)}))
	}
	return out
}

// redisAtMaxmemory: a Redis whose used memory reaches maxmemory refuses
// writes (noeviction) or evicts keys other clients rely on.
func redisAtMaxmemory(used, maxMem []Series) []investigate.Finding {
	limits := map[string]float64{}
	for _, s := range maxMem {
		if len(s.Points) > 0 {
			limits[s.Metric["instance"]+"|"+s.Metric["job"]] = s.Points[len(s.Points)-1].V
		}
	}
	var out []investigate.Finding
	for _, s := range used {
		max := limits[s.Metric["instance"]+"|"+s.Metric["job"]]
		if max <= 0 {
			continue
		}
		var at time.Time
		peak := 0.0
		for _, p := range s.Points {
			peak = math.Max(peak, p.V)
			if p.V >= 0.98*max && at.IsZero() {
				at = p.T
			}
		}
		if at.IsZero() {
			continue
		}
		svc := serviceOf(s.Metric)
		svc = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(svc, ":9121"), "-metrics"), "-exporter")
		quote := fmt.Sprintf("%s: redis memory at maxmemory since %s (used %.0f MiB of %.0f MiB): writes are refused under noeviction", svc, at.UTC().Format("15:04"), peak/(1<<20), max/(1<<20))
		out = append(out, anomaly(svc, quote, at, investigate.ErrResourceExhaustion, "redis-oom", map[string]string{"metric": "redis_memory", "used_bytes": fmt.Sprint(peak), "max_bytes": fmt.Sprint(max)}))
	}
	return out
}
