package chart

import (
	"bytes"
	"flag"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/cmpimg"
)

var update = flag.Bool("update", false, "rewrite the golden images")

// errorRatioSpec: an hour at about 1%, then about 21% from 16:13; the
// change behind it deployed at 16:05.
func errorRatioSpec() Spec {
	t0 := time.Date(2026, 12, 1, 15, 24, 0, 0, time.UTC)
	onset := time.Date(2026, 12, 1, 16, 13, 0, 0, time.UTC)
	var pts []Point
	for i := 0; i <= 60; i++ {
		t := t0.Add(time.Duration(i) * time.Minute)
		v := 0.01 + 0.004*float64(i%3)
		if !t.Before(onset) {
			v = 0.2 + 0.01*float64(i%4)
		}
		pts = append(pts, Point{T: t, V: v})
	}
	return Spec{Title: "payment: error ratio", Unit: "ratio", Points: pts, BaselineLow: 0.008, BaselineHigh: 0.02,
		Onset: onset, Change: &Marker{At: time.Date(2026, 12, 1, 16, 5, 0, 0, time.UTC), Label: "0cb5b9c"}}
}

func memorySpec() Spec {
	t0 := time.Date(2026, 11, 27, 17, 40, 0, 0, time.UTC)
	var pts []Point
	for i := 0; i <= 60; i++ {
		v := 60e6 + float64(i)*1.2e6
		pts = append(pts, Point{T: t0.Add(time.Duration(i) * time.Minute), V: min(v, 128<<20)})
	}
	return Spec{Title: "cart: memory working set", Unit: "bytes", Points: pts, Limit: 128 << 20, LimitLabel: "limit 128Mi",
		Onset: time.Date(2026, 11, 27, 18, 2, 0, 0, time.UTC)}
}

func TestChartGolden(t *testing.T) {
	for name, spec := range map[string]Spec{"error-ratio": errorRatioSpec(), "memory-limit": memorySpec()} {
		t.Run(name, func(t *testing.T) {
			got, err := PNG(spec)
			require.NoError(t, err)
			assert.LessOrEqual(t, len(got), 200<<10, "at most 200 KB for Slack")
			img, err := png.Decode(bytes.NewReader(got))
			require.NoError(t, err)
			assert.Equal(t, image.Rect(0, 0, Width, Height), img.Bounds())
			golden := filepath.Join("testdata", name+".png")
			if *update {
				require.NoError(t, os.WriteFile(golden, got, 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "go test ./chart -update writes the golden images")
			ok, err := cmpimg.EqualApprox("png", got, want, 0.1)
			require.NoError(t, err)
			assert.True(t, ok, "the chart differs from %s beyond the tolerance (go test ./chart -update after checking it)", golden)
		})
	}
}

// The marks land where their times are: the onset's dashed red line and
// the change's orange line are drawn at their minutes on the time axis.
func TestMarksAtTheirMinutes(t *testing.T) {
	spec := errorRatioSpec()
	got, err := PNG(spec)
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(got))
	require.NoError(t, err)
	red, orange := markColumns(img)
	require.Positive(t, red)
	require.Positive(t, orange)
	// 16:05 (change) is 8 minutes before 16:13 (onset) on an axis of 60.
	assert.Less(t, orange, red, "the change precedes the onset")
	perMinute := float64(red-orange) / 8
	assert.InDelta(t, 60*perMinute, float64(Width)*0.85, float64(Width)*0.15, "the axis spans the hour")
}

func TestTooFewPoints(t *testing.T) {
	_, err := PNG(Spec{Points: []Point{{T: time.Now(), V: 1}}})
	assert.ErrorIs(t, err, ErrTooFewPoints)
}

// BenchmarkChart: one chart of an hour of samples, error ratio with its
// change and onset, and memory against its limit (targets: < 100 ms and
// <= 200 KB a chart; the size is reported in bytes).
//
//	go test -run '^$' -bench Chart ./chart
func BenchmarkChart(b *testing.B) {
	for _, bc := range []struct {
		name string
		spec Spec
	}{{"error-ratio", errorRatioSpec()}, {"memory-limit", memorySpec()}} {
		b.Run(bc.name, func(b *testing.B) {
			var size int
			for b.Loop() {
				out, err := PNG(bc.spec)
				if err != nil {
					b.Fatal(err)
				}
				size = len(out)
			}
			b.ReportMetric(float64(size), "png-bytes")
		})
	}
}
