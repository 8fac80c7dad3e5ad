package sessions

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/autoheal/autoheal/internal/benchstat"
)

// A payload the size of a typical Alertmanager-triggered job.
var benchPayload = json.RawMessage(`{"text":"HighErrorRate checkout","labels":{"alertname":"HighErrorRate","service":"checkout","namespace":"shop","severity":"page"},"annotations":{"summary":"` + strings.Repeat("x", 600) + `"}}`)

func reportPercentiles(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	b.ReportMetric(benchstat.Millis(benchstat.Percentile(d, 0.50)), "p50-ms")
	b.ReportMetric(benchstat.Millis(benchstat.Percentile(d, 0.99)), "p99-ms")
}

// BenchmarkEnqueue measures one producer's Enqueue latency (the
// webhook-to-enqueued path; target p99 < 20 ms at 500 alerts/s).
func BenchmarkEnqueue(b *testing.B) {
	rdb := newRedis(b)
	q := newQueue(b, rdb, QueueOptions{Stream: uniquePrefix(b, rdb) + ":bench", MaxLen: 1 << 40, Logger: quietLogger()})
	ctx := context.Background()
	durations := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := q.Enqueue(ctx, Job{ID: fmt.Sprintf("alert-%d", i), Kind: "alert", Key: "K", Payload: benchPayload}); err != nil {
			b.Fatal(err)
		}
		durations = append(durations, time.Since(start))
	}
	b.StopTimer()
	reportPercentiles(b, durations)
}

// BenchmarkEnqueueParallel measures Enqueue latency under concurrent
// webhook handlers, with de-duplication on.
func BenchmarkEnqueueParallel(b *testing.B) {
	rdb := newRedis(b)
	q := newQueue(b, rdb, QueueOptions{Stream: uniquePrefix(b, rdb) + ":bench", MaxLen: 1 << 40, DedupeWindow: time.Minute, Logger: quietLogger()})
	ctx := context.Background()
	var (
		mu   sync.Mutex
		all  []time.Duration
		next atomic.Int64
	)
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		local := make([]time.Duration, 0, 1024)
		for pb.Next() {
			i := next.Add(1)
			start := time.Now()
			if _, err := q.Enqueue(ctx, Job{ID: fmt.Sprintf("alert-%d", i), Kind: "alert", Key: "K", Payload: benchPayload}); err != nil {
				b.Error(err)
				return
			}
			local = append(local, time.Since(start))
		}
		mu.Lock()
		all = append(all, local...)
		mu.Unlock()
	})
	b.StopTimer()
	reportPercentiles(b, all)
}
