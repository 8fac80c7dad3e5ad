package drain

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// hourOfLogs is an hour of a busy namespace: 50 lines a second from 40
// message shapes with ids, durations, addresses and pod names in them.
func hourOfLogs() []string {
	r := rand.New(rand.NewPCG(11, 12))
	shapes := []func() string{}
	verbs := []string{"GET", "POST", "PUT"}
	nouns := []string{"orders", "carts", "payments", "invoices", "users", "sessions", "quotes", "labels"}
	for i := range 40 {
		noun := nouns[i%len(nouns)]
		switch i % 5 {
		case 0:
			shapes = append(shapes, func() string {
				return fmt.Sprintf("%s /api/v1/%s/%d completed %d in %dms", verbs[r.IntN(3)], noun, r.IntN(1e6), 200+r.IntN(3), r.IntN(900))
			})
		case 1:
			shapes = append(shapes, func() string {
				return fmt.Sprintf("%s worker processed batch %d of queue shard-%d (%d items)", noun, r.IntN(1e5), r.IntN(16), r.IntN(500))
			})
		case 2:
			shapes = append(shapes, func() string {
				return fmt.Sprintf("%s: dial tcp 10.0.%d.%d:5432: connect: connection refused", noun, r.IntN(255), r.IntN(255))
			})
		case 3:
			shapes = append(shapes, func() string {
				return fmt.Sprintf("cache miss for %s key %08x; fetching from origin", noun, r.Uint32())
			})
		default:
			shapes = append(shapes, func() string {
				return fmt.Sprintf("lease renewal for %s-scheduler-%05x took %d.%03ds holder %s", noun, r.IntN(1<<20), r.IntN(3), r.IntN(1000), []string{"alpha", "beta"}[r.IntN(2)])
			})
		}
	}
	lines := make([]string, 3600*50)
	for i := range lines {
		lines[i] = shapes[r.IntN(len(shapes))]()
	}
	return lines
}

// BenchmarkDrainHourOfLogs mines an hour of logs (180,000 lines); it
// reports lines per second and the time per hour of logs.
func BenchmarkDrainHourOfLogs(b *testing.B) {
	lines := hourOfLogs()
	b.ResetTimer()
	var templates int
	start := time.Now()
	for range b.N {
		m := New(Config{})
		for _, l := range lines {
			m.Add(l)
		}
		templates = len(m.Clusters())
	}
	el := time.Since(start)
	b.ReportMetric(float64(len(lines)*b.N)/el.Seconds(), "lines/s")
	b.ReportMetric(float64(el.Milliseconds())/float64(b.N), "ms/hour")
	b.ReportMetric(float64(templates), "templates")
}
