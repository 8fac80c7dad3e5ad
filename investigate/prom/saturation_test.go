package prom_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/prom"
)

var t0 = time.Date(2026, 12, 7, 6, 0, 0, 0, time.UTC)

// series builds a series sampled every step from f(i) for i in [0, n).
func series(labels map[string]string, n int, step time.Duration, f func(i int) float64) prom.Series {
	s := prom.Series{Metric: labels}
	for i := 0; i < n; i++ {
		s.Points = append(s.Points, prom.Point{T: t0.Add(time.Duration(i) * step), V: f(i)})
	}
	return s
}

func labels(name string, kv ...string) map[string]string {
	m := map[string]string{"__name__": name}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func analyze(ss ...prom.Series) []investigate.Finding {
	return prom.Analyze(ss, t0, t0.Add(24*time.Hour), "", nil).Findings
}

func bySignature(fs []investigate.Finding, sig string) []investigate.Finding {
	var out []investigate.Finding
	for _, f := range fs {
		if f.Signature == sig {
			out = append(out, f)
		}
	}
	return out
}

func TestCPUThrottlingIsReportedWithTheLimitThatBinds(t *testing.T) {
	var ss []prom.Series
	for _, pod := range []string{"rating-engine-1", "rating-engine-2"} {
		ss = append(ss,
			series(labels("container_cpu_cfs_periods_total", "pod", pod, "container", "rating-engine"), 40, time.Minute, func(i int) float64 { return float64(100 * i) }),
			// Throttling starts at step 20 and covers 60% of periods.
			series(labels("container_cpu_cfs_throttled_periods_total", "pod", pod, "container", "rating-engine"), 40, time.Minute, func(i int) float64 { return float64(60 * max(0, i-20)) }),
			series(labels("kube_pod_container_resource_limits", "pod", pod, "container", "rating-engine", "resource", "cpu"), 40, time.Minute, func(int) float64 { return 0.5 }))
	}
	// A neighbour throttled in 5% of periods is normal.
	ss = append(ss,
		series(labels("container_cpu_cfs_periods_total", "pod", "quotes-1", "container", "quotes"), 40, time.Minute, func(i int) float64 { return float64(100 * i) }),
		series(labels("container_cpu_cfs_throttled_periods_total", "pod", "quotes-1", "container", "quotes"), 40, time.Minute, func(i int) float64 { return float64(5 * i) }))

	got := bySignature(analyze(ss...), "cpu-throttled")
	require.Len(t, got, 1)
	f := got[0]
	assert.Equal(t, "rating-engine", f.Service)
	assert.Equal(t, investigate.ErrResourceExhaustion, f.ErrorType)
	assert.Equal(t, "500m", f.Attrs["limit"])
	assert.Equal(t, "2", f.Attrs["pods"])
	assert.Equal(t, t0.Add(21*time.Minute), f.Time, "the first throttled step")
	assert.Contains(t, f.Quote, "CPU throttled in 60% of CFS periods at a 500m CPU limit")
}

func TestAutoscalerHeldAtItsMaximum(t *testing.T) {
	hpa := func(name string, min, max float64, current func(int) float64) []prom.Series {
		return []prom.Series{
			series(labels("kube_horizontalpodautoscaler_spec_min_replicas", "horizontalpodautoscaler", name), 30, time.Minute, func(int) float64 { return min }),
			series(labels("kube_horizontalpodautoscaler_spec_max_replicas", "horizontalpodautoscaler", name), 30, time.Minute, func(int) float64 { return max }),
			series(labels("kube_horizontalpodautoscaler_status_current_replicas", "horizontalpodautoscaler", name), 30, time.Minute, current),
			series(labels("kube_horizontalpodautoscaler_status_desired_replicas", "horizontalpodautoscaler", name), 30, time.Minute, current),
		}
	}
	var ss []prom.Series
	// Scales 6 -> 12 at minute 10 and stays at the cap.
	ss = append(ss, hpa("storefront-ssr", 6, 12, func(i int) float64 {
		if i < 10 {
			return 6
		}
		return 12
	})...)
	// A fixed-size autoscaler (min = max) is not capped by load.
	ss = append(ss, hpa("batch", 3, 3, func(int) float64 { return 3 })...)
	// One that touches its maximum for a single sample is not held there.
	ss = append(ss, hpa("search", 2, 8, func(i int) float64 {
		if i == 15 {
			return 8
		}
		return 4
	})...)

	got := bySignature(analyze(ss...), "hpa-at-max")
	require.Len(t, got, 1)
	assert.Equal(t, "storefront-ssr", got[0].Service)
	assert.Equal(t, "12", got[0].Attrs["max_replicas"])
	assert.Equal(t, t0.Add(10*time.Minute), got[0].Time)
}

func TestGrowthWithUptimeTellsALeakFromALoadRamp(t *testing.T) {
	const mi = 1 << 20
	// Leaking: +5Mi every 15 minutes from 140Mi, reset by an OOM kill at
	// step 100, then climbing again.
	leak := series(labels("container_memory_working_set_bytes", "pod", "ledger-sync-a", "container", "ledger-sync"), 160, 15*time.Minute, func(i int) float64 {
		if i >= 100 {
			i -= 100
		}
		return float64(140*mi + i*5*mi)
	})
	// A morning ramp: doubles in two hours, then flat.
	ramp := series(labels("container_memory_working_set_bytes", "pod", "web-a", "container", "web"), 160, 15*time.Minute, func(i int) float64 {
		return float64(200*mi + min(i, 8)*25*mi)
	})
	// Flat with noise.
	flat := series(labels("container_memory_working_set_bytes", "pod", "api-a", "container", "api"), 160, 15*time.Minute, func(i int) float64 {
		return float64(300*mi + (i%3)*mi)
	})
	goroutines := series(labels("go_goroutines", "pod", "ledger-sync-a", "job", "ledger-sync"), 160, 15*time.Minute, func(i int) float64 {
		return float64(40 + (i%100)*700)
	})

	got := bySignature(analyze(leak, ramp, flat, goroutines), "growth-with-uptime")
	require.Len(t, got, 2, "%v", got)
	for _, f := range got {
		assert.Equal(t, "ledger-sync", f.Service)
		assert.Equal(t, investigate.ErrOOM, f.ErrorType)
		assert.Equal(t, "leak", f.Attrs["role"])
	}
	assert.Contains(t, got[0].Quote+got[1].Quote, "140Mi to 635Mi over 25h")
}

func TestLatencyRiseFromAHistogram(t *testing.T) {
	les := []string{"0.1", "0.25", "0.5", "1", "2.5", "5", "+Inf"}
	// 100 requests a step; until step 30 they all take < 250ms, after it 5%
	// take 2-5s.
	slowFrom := 30
	cum := func(le string, i int) float64 {
		total := 0.0
		for s := 1; s <= i; s++ {
			fast, slow := 100.0, 0.0
			if s >= slowFrom {
				fast, slow = 95, 5
			}
			switch le {
			case "0.1":
				total += fast / 2
			case "0.25", "0.5", "1", "2.5":
				total += fast
			default:
				total += fast + slow
			}
		}
		return total
	}
	var ss []prom.Series
	for _, le := range les {
		ss = append(ss, series(labels("http_server_request_duration_seconds_bucket", "service_name", "rating-engine", "le", le), 60, time.Minute, func(i int) float64 { return cum(le, i) }))
		// A steady neighbour.
		ss = append(ss, series(labels("http_server_request_duration_seconds_bucket", "service_name", "vehicle-data", "le", le), 60, time.Minute, func(i int) float64 {
			if le == "0.1" {
				return float64(50 * i)
			}
			return float64(100 * i)
		}))
	}
	got := bySignature(analyze(ss...), "latency-rise")
	require.Len(t, got, 1, "%v", got)
	f := got[0]
	assert.Equal(t, "rating-engine", f.Service)
	assert.Equal(t, t0.Add(time.Duration(slowFrom)*time.Minute), f.Time)
	var before, after float64
	fmt.Sscan(f.Attrs["p99_before"], &before)
	fmt.Sscan(f.Attrs["p99_after"], &after)
	assert.InDelta(t, 0.2475, before, 0.01, "p99 inside the 100-250ms bucket")
	assert.Greater(t, after, 2.5, "p99 among the slow requests")
}

func TestRedisAtMaxmemory(t *testing.T) {
	const gib = 1 << 30
	lab := func(name string) map[string]string {
		return labels(name, "job", "redis-shared-metrics", "instance", "redis-shared-metrics:9121")
	}
	maxMem := series(lab("redis_memory_max_bytes"), 6, 5*time.Minute, func(int) float64 { return 3 * gib })
	full := series(lab("redis_memory_used_bytes"), 6, 5*time.Minute, func(i int) float64 { return min(3*gib, 2.5*gib+float64(i)*0.2*gib) })
	fs := bySignature(analyze(maxMem, full), "redis-oom")
	require.Len(t, fs, 1)
	assert.Equal(t, t0.Add(15*time.Minute), fs[0].Time, "when usage first reached the limit")
	assert.Equal(t, "redis-shared", fs[0].Service, "the exporter's job names the server it watches")
	assert.Equal(t, "redis-oom", investigate.Best(fs[0].Quote).ID)

	room := series(lab("redis_memory_used_bytes"), 6, 5*time.Minute, func(int) float64 { return 1 * gib })
	assert.Empty(t, bySignature(analyze(maxMem, room), "redis-oom"), "room left")
	assert.Empty(t, bySignature(analyze(full), "redis-oom"), "no maxmemory: nothing to compare")
}
