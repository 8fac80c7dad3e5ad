package harness

import (
	"context"
	"testing"
	"time"

	"github.com/autoheal/autoheal/scenario"
)

// BenchmarkRoundConcurrency adds 200 ms of latency to every simulated
// backend call and runs the same investigation with backend calls made
// concurrently (as the engine does) and one after another. It reports both
// wall times and their ratio (target: below 0.40).
func BenchmarkRoundConcurrency(b *testing.B) {
	s, err := scenario.Load(examplesDir + "/ad-npe-missing-context")
	if err != nil {
		b.Fatal(err)
	}
	run := func(sequential bool) time.Duration {
		be, err := Start(s, Options{Latency: 200 * time.Millisecond})
		if err != nil {
			b.Fatal(err)
		}
		defer be.Close()
		start := time.Now()
		if _, err := RunWith(context.Background(), be, RunOptions{Sequential: sequential}); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	var par, seq time.Duration
	for i := 0; i < b.N; i++ {
		par += run(false)
		seq += run(true)
	}
	n := time.Duration(b.N)
	b.ReportMetric(float64((par / n).Milliseconds()), "parallel_ms")
	b.ReportMetric(float64((seq / n).Milliseconds()), "sequential_ms")
	b.ReportMetric(float64(par)/float64(seq), "ratio")
}

// BenchmarkInvestigateExamples measures the engine's wall time per example
// scenario against local simulators (target: median under 300 ms).
func BenchmarkInvestigateExamples(b *testing.B) {
	dirs, err := scenario.Discover(examplesDir)
	if err != nil {
		b.Fatal(err)
	}
	for _, d := range dirs {
		s, err := scenario.Load(d)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(s.Name, func(b *testing.B) {
			be, err := Start(s, Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer be.Close()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := RunWith(context.Background(), be, RunOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
