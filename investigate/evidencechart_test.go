package investigate

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func stepSeries(t0, onset time.Time, before, after float64) []Sample {
	var out []Sample
	for i := 0; i < 60; i++ {
		at := t0.Add(time.Duration(i) * time.Minute)
		v := before
		if !at.Before(onset) {
			v = after
		}
		out = append(out, Sample{T: at, V: v})
	}
	return out
}

func TestChartFor(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 15, 30, 0, 0, time.UTC)
	onset := t0.Add(40 * time.Minute)
	rc := RootCause{Service: "payment", ErrorType: ErrNullPointer, Bucket: BucketCodeBug, File: "charge.js", Line: 58}
	change := Finding{Kind: KindChangeCorrelation, Time: t0.Add(20 * time.Minute), Quote: "0cb5b9c payment: line items",
		Attrs: map[string]string{"sha": "0cb5b9cdd88c9c454c56cad7c4f2d3597ecff140", "message": "payment: line items\n\nbody"}}
	ratio := Finding{Kind: KindMetricAnomaly, Signature: "error-rate", Service: "payment", Time: onset, Quote: "payment: error ratio 20%",
		Attrs: map[string]string{"series": "error ratio", "unit": "ratio"}, Series: stepSeries(t0, onset, 0.01, 0.2)}
	cp := Finding{Kind: KindChangePoint, Service: "payment", Time: onset.Add(time.Minute), Quote: "payment: calls rate",
		Attrs:  map[string]string{"series": "calls rate", "unit": "/s", "direction": "up", "labels": `{status_code="STATUS_CODE_ERROR"}`, "score": "40"},
		Series: stepSeries(t0, onset, 0, 3)}
	result := func(fs ...Finding) *HealResult {
		return &HealResult{RootCause: rc, Evidence: []Finding{{Kind: KindException, Service: "payment"}, change},
			Timeline: []Receipt{{OK: true, Family: FamilyMetrics, Findings: fs}}}
	}

	t.Run("error ratio of the blamed service, onset and change", func(t *testing.T) {
		c := ChartFor(result(cp, ratio), onset)
		require.NotNil(t, c)
		assert.Equal(t, "error ratio", c.What)
		assert.Equal(t, "ratio", c.Unit)
		assert.Equal(t, onset, c.Onset)
		assert.True(t, c.Baseline)
		assert.InDelta(t, 0.01, c.BaselineHigh, 1e-9)
		require.NotNil(t, c.Change)
		assert.Equal(t, "0cb5b9c", c.Change.SHA)
		assert.Equal(t, "payment: line items", c.Change.Title)
	})
	t.Run("a change point when it is all that moved", func(t *testing.T) {
		c := ChartFor(result(cp), onset)
		require.NotNil(t, c)
		assert.Equal(t, "calls rate", c.What)
	})
	t.Run("another service's metric: no chart", func(t *testing.T) {
		other := ratio
		other.Service = "checkout"
		assert.Nil(t, ChartFor(result(other), onset))
	})
	t.Run("a move long before the onset: no chart", func(t *testing.T) {
		early := cp
		early.Time = onset.Add(-2 * time.Hour)
		assert.Nil(t, ChartFor(result(early), onset))
	})
	t.Run("memory against its limit only explains memory", func(t *testing.T) {
		mem := Finding{Kind: KindMetricAnomaly, Service: "payment", Time: onset, Attrs: map[string]string{"metric": "memory_vs_limit", "limit_bytes": "134217728", "limit": "128Mi"},
			Series: stepSeries(t0, onset, 60e6, 120e6)}
		assert.Nil(t, ChartFor(result(mem), onset), "a null dereference is not a memory story")
		oom := result(mem, ratio)
		oom.RootCause.ErrorType = ErrOOM
		c := ChartFor(oom, onset)
		require.NotNil(t, c)
		assert.Equal(t, 128.0*(1<<20), c.Limit)
		assert.Equal(t, "limit 128Mi", c.LimitLabel)
	})
	t.Run("no conclusion: no chart", func(t *testing.T) {
		res := result(ratio)
		res.Evidence = nil
		assert.Nil(t, ChartFor(res, onset))
	})
}

func TestThinSamples(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pts := stepSeries(t0, t0.Add(30*time.Minute), 1, 5)
	out := ThinSamples(pts, 20)
	require.Len(t, out, 20)
	assert.Equal(t, t0, out[0].T)
	assert.Equal(t, 1.0, out[0].V)
	assert.Equal(t, 5.0, out[19].V)
	assert.Equal(t, pts, ThinSamples(pts, 100), "short series are kept whole")
}
