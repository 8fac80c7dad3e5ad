package prom_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/prom"
)

// Counters are read as rates; pods of one service changing alike are one
// finding; a gauge that drops is found too; steady and noisy series are
// not.
func TestChangePointsOnEverySeries(t *testing.T) {
	step := 30 * time.Second
	onset := 80 // 40 minutes in
	var ss []prom.Series
	for _, pod := range []string{"scheduler-1", "scheduler-2", "scheduler-3"} {
		total := 0.0
		ss = append(ss, series(labels("jobs_failed_total", "service", "scheduler", "pod", pod, "queue", "billing"), 120, step, func(i int) float64 {
			if i >= onset {
				total += 9
			} else if i%10 == 0 {
				total++
			}
			return total
		}))
	}
	ss = append(ss, series(labels("bucket_objects", "bucket", "attachments-prod"), 120, step, func(i int) float64 {
		if i >= 100 {
			return 2.1e5
		}
		return 8.4e6 + float64(i%3)*1000
	}))
	ss = append(ss, series(labels("queue_depth", "service", "billing"), 120, step, func(i int) float64 { return 40 + float64(i%5) }))

	fs := prom.ChangePoints(ss)
	require.Len(t, fs, 2)
	jobs, objects := fs[0], fs[1]
	assert.Equal(t, investigate.KindChangePoint, jobs.Kind)
	assert.Equal(t, "scheduler", jobs.Service)
	assert.Equal(t, "jobs_failed_total", jobs.Attrs["metric"])
	assert.Equal(t, "up", jobs.Attrs["direction"])
	assert.Equal(t, "true", jobs.Attrs["counter"])
	assert.Equal(t, "3 of 3", jobs.Attrs["series_changed"])
	assert.Equal(t, t0.Add(time.Duration(onset)*step), jobs.Time)
	assert.Contains(t, jobs.Quote, "rate")
	assert.Contains(t, jobs.Quote, `queue="billing"`)

	assert.Equal(t, "", objects.Service)
	assert.Equal(t, "down", objects.Attrs["direction"])
	assert.Equal(t, t0.Add(100*step), objects.Time)
	assert.Contains(t, objects.Quote, "8.4M → 210k")
}

// The health check returns change points next to its analyses, without
// disturbing them.
func TestHealthReportsChangePoints(t *testing.T) {
	res := health(t, "../../testdata/examples/checkout-fails-payment-typeerror")
	cp := find(res, func(f investigate.Finding) bool { return f.Kind == investigate.KindChangePoint })
	require.NotNil(t, cp, res.Summary)
	assert.NotNil(t, find(res, func(f investigate.Finding) bool { return f.Signature == "error-rate" }))
}
