package changepoint

import (
	"math/rand/v2"
	"testing"
	"time"
)

// BenchmarkChangePointHourOfMetrics scans an hour of metrics: 1,000 series
// of 240 points (a 15 s step), a tenth of them with a step change. It
// reports the time per hour of metrics.
func BenchmarkChangePointHourOfMetrics(b *testing.B) {
	r := rand.New(rand.NewPCG(21, 22))
	series := make([][]float64, 1000)
	for i := range series {
		level := 10 + 100*r.Float64()
		xs := noisy(r, 240, level, level/20)
		if i%10 == 0 {
			for j := 150; j < 240; j++ {
				xs[j] += 3 * level
			}
		}
		series[i] = xs
	}
	b.ResetTimer()
	found := 0
	start := time.Now()
	for range b.N {
		found = 0
		for _, xs := range series {
			if _, ok := Detect(xs, Options{}); ok {
				found++
			}
		}
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N), "ms/hour")
	b.ReportMetric(float64(found), "changes")
}
