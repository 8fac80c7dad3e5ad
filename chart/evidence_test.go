package chart

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/scenario"
)

const examples = "../testdata/examples"

func runExample(t *testing.T, s *scenario.Scenario) *investigate.HealResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := harness.Run(ctx, s, harness.RunOptions{Engine: investigate.Options{Deadline: time.Minute}})
	require.NoError(t, err)
	return res
}

// Each example's chart draws the blamed service's series that moved at
// the onset, the onset at the minute the failures began, and the blamed
// change's line at its commit (none when the change is a decoy).
func TestExampleCharts(t *testing.T) {
	for _, tc := range []struct {
		example, service, what string
		onset                  string // HH:MM
		sha, changeAt          string // "" when no change is blamed
		limit                  float64
	}{
		{example: "ad-npe-missing-context", service: "ad", what: "error ratio", onset: "10:04", sha: "412aa90", changeAt: "09:40"},
		{example: "checkout-fails-payment-typeerror", service: "payment", what: "error ratio", onset: "16:12", sha: "0cb5b9c", changeAt: "15:49"},
		{example: "cart-oomkilled-low-limit", service: "cart", what: "memory working set", onset: "18:02", limit: 128 << 20},
	} {
		t.Run(tc.example, func(t *testing.T) {
			t.Parallel()
			s, err := scenario.Load(filepath.Join(examples, tc.example))
			require.NoError(t, err)
			res := runExample(t, s)
			ec := res.Chart
			require.NotNil(t, ec, "a metric of %s moved at the onset", tc.service)
			assert.Equal(t, tc.service, ec.Service)
			assert.Equal(t, tc.what, ec.What)
			assert.Equal(t, tc.onset, ec.Onset.UTC().Format("15:04"))
			assert.Equal(t, tc.limit, ec.Limit)
			if tc.sha == "" {
				assert.Nil(t, ec.Change, "no change is blamed")
			} else {
				require.NotNil(t, ec.Change)
				assert.Equal(t, tc.sha, ec.Change.SHA)
				assert.Equal(t, tc.changeAt, ec.Change.At.UTC().Format("15:04"))
			}
			if tc.limit > 0 {
				// Memory against its limit: the series reaches it.
				peak := 0.0
				for _, p := range ec.Points {
					peak = max(peak, p.V)
				}
				assert.GreaterOrEqual(t, peak, 0.9*tc.limit, "the working set reaches the limit")
			} else {
				// The series moved at the onset: its level after is well
				// above its baseline before.
				before, after := medianAround(ec.Points, ec.Onset)
				assert.Greater(t, after, before, "the series rose at the onset")
				assert.True(t, ec.Baseline)
				assert.LessOrEqual(t, ec.BaselineHigh, after/2, "the baseline band lies below the level after the onset")
			}

			out, err := Evidence(ec)
			require.NoError(t, err)
			assert.LessOrEqual(t, len(out), 200<<10, "at most 200 KB for Slack")
			img, err := png.Decode(bytes.NewReader(out))
			require.NoError(t, err)
			red, orange := markColumns(img)
			require.Positive(t, red, "the onset line is drawn")
			if tc.sha == "" {
				assert.Negative(t, orange, "no change line")
				return
			}
			require.Positive(t, orange, "the change line is drawn")
			// Both lines at their minutes: the pixels between them over
			// the minutes between them give the axis' scale, which must
			// span the plot's width over the axis' minutes.
			minutes := ec.Onset.Sub(ec.Change.At).Minutes()
			span := ec.Points[len(ec.Points)-1].T.Sub(minTime(ec.Points[0].T, ec.Change.At)).Minutes()
			perMinute := float64(red-orange) / minutes
			assert.InDelta(t, float64(Width)*0.88, span*perMinute, float64(Width)*0.1, "the lines sit at their minutes on the axis")
		})
	}
}

// No metric moved (every series held at its first value): the result
// stands on traces and logs, and there is no chart.
func TestNoChartWhenNoMetricMoved(t *testing.T) {
	s, err := scenario.Load(filepath.Join(examples, "ad-npe-missing-context"))
	require.NoError(t, err)
	for i := range s.Metrics.Series {
		vs := s.Metrics.Series[i].Values
		for j := range vs {
			vs[j][1] = vs[0][1]
		}
	}
	res := runExample(t, s)
	assert.Equal(t, "ad", res.RootCause.Service, "the conclusion still stands")
	assert.Nil(t, res.Chart)
	_, err = Evidence(res.Chart)
	assert.ErrorIs(t, err, ErrNoChart)
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func medianAround(pts []investigate.Sample, at time.Time) (before, after float64) {
	var b, a []float64
	for _, p := range pts {
		if p.T.Before(at) {
			b = append(b, p.V)
		} else {
			a = append(a, p.V)
		}
	}
	med := func(xs []float64) float64 {
		if len(xs) == 0 {
			return 0
		}
		sort.Float64s(xs)
		return xs[len(xs)/2]
	}
	return med(b), med(a)
}

// markColumns finds the columns of the onset's red line and the change's
// orange line (-1 when absent).
func markColumns(img image.Image) (red, orange int) {
	columnOf := func(want func(r, g, b uint32) bool) int {
		best, bestN := -1, 0
		for x := 0; x < Width; x++ {
			n := 0
			for y := 0; y < Height; y++ {
				r, g, b, _ := img.At(x, y).RGBA()
				if want(r>>8, g>>8, b>>8) {
					n++
				}
			}
			if n > bestN && n >= Height/4 {
				best, bestN = x, n
			}
		}
		return best
	}
	red = columnOf(func(r, g, b uint32) bool { return r > 200 && g < 80 && b > 60 && b < 130 })
	orange = columnOf(func(r, g, b uint32) bool { return r > 200 && g > 120 && g < 170 && b < 80 })
	return red, orange
}
