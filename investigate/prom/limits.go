package prom

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/autoheal/autoheal/investigate"
)

// Usage pinned at its ceiling, found by naming convention rather than by a
// list of known exporters: a limit series (…_max_…, …_limit…, …_capacity…,
// …_size…) is paired with the usage series of the same metric family
// (process_open_fds / process_max_fds, kubelet_volume_stats_used_bytes /
// kubelet_volume_stats_capacity_bytes, x_disk_space_available_bytes /
// x_disk_space_available_limit_bytes), and a broker's or server's alarm
// gauge (…_alarm…) that turns on reports the same from the inside. A
// resource that reached its ceiling during the window, having been clear of
// it at the start, is exhausted: whatever fails next waits on it.

// limitWords mark a series as the ceiling of another.
var limitWords = map[string]bool{"max": true, "limit": true, "limits": true, "capacity": true, "size": true, "maximum": true, "quota": true}

// usageWords say how a usage series is measured; they are dropped when its
// name is compared with the limit's.
var usageWords = map[string]bool{"open": true, "used": true, "usage": true, "current": true, "in": true, "use": true, "inuse": true, "active": true, "allocated": true}

// headroomWords mark a series that counts what is left: it breaches its
// limit by falling to it.
var headroomWords = map[string]bool{"available": true, "free": true, "remaining": true, "avail": true}

// specificPairs are families other analyzers read already (with their own
// wording): the generic pass leaves them alone.
var specificPairs = map[string]bool{"redis_memory": true, "container_memory": true, "kube_pod": true, "kube_horizontalpodautoscaler": true}

// limitNear is how close to the ceiling usage must come; the window's first
// sample must be below it (a resource always at its ceiling is how it is
// run, not what changed).
const limitNear = 0.95

// familyKey is a metric name less the words that say usage or limit.
func familyKey(name string, drop map[string]bool) (string, bool) {
	var keep []string
	dropped := false
	for _, w := range strings.Split(name, "_") {
		if drop[w] {
			dropped = true
			continue
		}
		keep = append(keep, w)
	}
	return strings.Join(keep, "_"), dropped
}

// resourceOf names the resource a metric counts, for the quote and the
// signature.
func resourceOf(name string) (what, sig string) {
	n := strings.ToLower(name)
	switch {
	case strings.Contains(n, "fds") || strings.Contains(n, "file_descriptor") || strings.Contains(n, "nofile") || strings.Contains(n, "open_files"):
		return "file descriptors", "go-fd"
	case strings.Contains(n, "disk") || strings.Contains(n, "volume") || strings.Contains(n, "filesystem") || strings.Contains(n, "storage"):
		return "disk space", "disk-full"
	case strings.Contains(n, "conn"):
		return "connections", "server-connlimit"
	case strings.Contains(n, "pool"):
		return "pool", "db-pool"
	}
	return strings.ReplaceAll(name, "_", " "), "resource-at-limit"
}

// labelsAgree: every label the limit carries (its name aside) has the same
// value on the usage series, or the usage series lacks it.
func labelsAgree(usage, limit map[string]string) int {
	n := 0
	for k, v := range limit {
		if k == "__name__" {
			continue
		}
		if u, ok := usage[k]; ok {
			if u != v {
				return -1
			}
			n++
		}
	}
	return n
}

// usageAtLimit pairs usage and limit series by name and reports those that
// reached the limit inside the window after starting clear of it.
func usageAtLimit(byName map[string][]Series) []investigate.Finding {
	type limitFam struct {
		name string
		key  string
	}
	var limits []limitFam
	for name := range byName {
		if key, ok := familyKey(name, limitWords); ok && key != "" {
			limits = append(limits, limitFam{name, key})
		}
	}
	sort.Slice(limits, func(i, j int) bool { return limits[i].name < limits[j].name })
	type hit struct {
		svc, what, sig, metric string
		at                     time.Time
		peak, limit            float64
		headroom               bool
		n                      int
	}
	hits := map[string]*hit{}
	var order []string
	for _, lf := range limits {
		for name, useries := range byName {
			if name == lf.name || skipFamily(name) {
				continue
			}
			ukey, _ := familyKey(name, usageWords)
			if ukey != lf.key {
				continue
			}
			_, headroom := familyKey(name, headroomWords)
			for _, u := range useries {
				var lim *Series
				best := -1
				for i := range byName[lf.name] {
					l := &byName[lf.name][i]
					if n := labelsAgree(u.Metric, l.Metric); n > best && len(l.Points) > 0 {
						lim, best = l, n
					}
				}
				if lim == nil || len(u.Points) < 4 {
					continue
				}
				at, peak, limit, ok := reachedLimit(u.Points, *lim, headroom)
				if !ok {
					continue
				}
				svc := serviceOf(u.Metric)
				what, sig := resourceOf(name)
				k := svc + "|" + name
				h := hits[k]
				if h == nil {
					h = &hit{svc: svc, what: what, sig: sig, metric: name, at: at, peak: peak, limit: limit, headroom: headroom}
					hits[k] = h
					order = append(order, k)
				}
				h.n++
				if at.Before(h.at) {
					h.at = at
				}
				if (!headroom && peak > h.peak) || (headroom && peak < h.peak) {
					h.peak, h.limit = peak, limit
				}
			}
		}
	}
	var out []investigate.Finding
	for _, k := range order {
		h := hits[k]
		if h.svc == "" {
			continue
		}
		inst := ""
		if h.n > 1 {
			inst = fmt.Sprintf(" in %d instances", h.n)
		}
		var quote string
		if h.headroom {
			quote = fmt.Sprintf("%s: %s at its limit since %s (%s %s, at or under the limit %s)%s", h.svc, h.what, h.at.UTC().Format("15:04"), h.metric, human(h.metric, h.peak), human(h.metric, h.limit), inst)
		} else {
			quote = fmt.Sprintf("%s: %s at its limit since %s (%s %s of %s, %.0f%%)%s", h.svc, h.what, h.at.UTC().Format("15:04"), h.metric, human(h.metric, h.peak), human(h.metric, h.limit), 100*h.peak/h.limit, inst)
		}
		out = append(out, anomaly(h.svc, quote, h.at, investigate.ErrResourceExhaustion, h.sig,
			map[string]string{"metric": h.metric, "usage": fmt.Sprint(h.peak), "limit": fmt.Sprint(h.limit), "resource": h.what, "at_limit": "true"}))
	}
	return out
}

func skipFamily(name string) bool {
	for p := range specificPairs {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// reachedLimit finds the first sample at the limit, provided the series
// started clear of it (a resource always at its ceiling is how it is run,
// not what changed).
func reachedLimit(pts []Point, lim Series, headroom bool) (at time.Time, peak, limit float64, ok bool) {
	limitAt := func(t time.Time) float64 { return lim.valueAt(t, lim.Points[len(lim.Points)-1].V) }
	near := func(v, l float64) bool {
		if l <= 0 {
			return false
		}
		if headroom {
			return v <= l
		}
		return v >= limitNear*l
	}
	// The first sample must be clear of the ceiling; or, when the window
	// opens already close to it, below it while a later sample touches it
	// (descriptors at 1017 of 1024, then 1024: the ceiling is hit, no
	// longer approached).
	l0 := limitAt(pts[0].T)
	touch := func(v, l float64) bool {
		if headroom {
			return v <= l
		}
		return l > 0 && v >= l
	}
	if near(pts[0].V, l0) {
		if touch(pts[0].V, l0) {
			return time.Time{}, 0, 0, false
		}
		near = touch
	}
	peak = pts[0].V
	for _, p := range pts {
		l := limitAt(p.T)
		if (!headroom && p.V > peak) || (headroom && p.V < peak) {
			peak = p.V
		}
		if at.IsZero() && near(p.V, l) {
			at, limit = p.T, l
		}
	}
	return at, peak, limit, !at.IsZero()
}

// alarmsRaised reports alarm gauges (…_alarm…) that switched on inside the
// window: a broker or server saying itself that a resource ran out (a
// RabbitMQ disk or memory alarm blocks every publisher).
func alarmsRaised(byName map[string][]Series) []investigate.Finding {
	var names []string
	for name := range byName {
		if strings.Contains(name, "alarm") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	var out []investigate.Finding
	for _, name := range names {
		type agg struct {
			at time.Time
			n  int
		}
		by := map[string]*agg{}
		var order []string
		for _, s := range byName[name] {
			if len(s.Points) < 2 || s.Points[0].V != 0 {
				continue
			}
			var at time.Time
			for _, p := range s.Points {
				if p.V >= 1 {
					at = p.T
					break
				}
			}
			if at.IsZero() {
				continue
			}
			svc := serviceOf(s.Metric)
			if svc == "" {
				continue
			}
			a := by[svc]
			if a == nil {
				a = &agg{at: at}
				by[svc] = a
				order = append(order, svc)
			}
			a.n++
			if at.Before(a.at) {
				a.at = at
			}
		}
		what, sig := resourceOf(name)
		if sig == "resource-at-limit" && strings.Contains(name, "memory") {
			what = "memory"
		}
		for _, svc := range order {
			a := by[svc]
			quote := fmt.Sprintf("%s: %s raised at %s (%s alarm on %d of %d instances): the resource is exhausted and the server refuses or blocks work", svc, name, a.at.UTC().Format("15:04"), what, a.n, len(byName[name]))
			out = append(out, anomaly(svc, quote, a.at, investigate.ErrResourceExhaustion, sig,
				map[string]string{"metric": name, "resource": what, "at_limit": "true"}))
		}
	}
	return out
}

// human prints a count, or a byte size when the metric counts bytes.
func human(metric string, v float64) string {
	if strings.HasSuffix(metric, "_bytes") {
		switch {
		case v >= 1<<30:
			return fmt.Sprintf("%.1fGiB", v/(1<<30))
		case v >= 1<<20:
			return fmt.Sprintf("%.0fMiB", v/(1<<20))
		}
	}
	return fmt.Sprintf("%.0f", v)
}
