package slacksim

import (
	"testing"
	"time"
)

// benchMentions pushes b.N mentions to `replicas` real socketmode clients
// that ack at once, every `interval` (0: as fast as possible), and reports
// the ack latency the simulator measured.
func benchMentions(b *testing.B, replicas int, interval time.Duration) {
	srv := newServer(b, Options{})
	for range replicas {
		startBot(b, srv, botOptions{discard: true})
	}
	if err := srv.WaitConnections(testCtx(b), replicas); err != nil {
		b.Fatal(err)
	}
	var tick *time.Ticker
	if interval > 0 {
		tick = time.NewTicker(interval)
		defer tick.Stop()
	}
	envs := make([]string, 0, b.N)
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if tick != nil {
			<-tick.C
		}
		_, env := srv.Mention("C0INCIDENT", "U0ALICE", "ad service is throwing errors", "")
		envs = append(envs, env)
	}
	ctx := testCtx(b)
	for _, env := range envs {
		if _, err := srv.WaitAck(ctx, env); err != nil {
			b.Fatalf("N=%d acks=%d deliveries=%d: %v", b.N, len(srv.Acks()), len(srv.Deliveries()), err)
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "acks/s")
	b.ReportMetric(float64(srv.AckLatencyPercentile(50).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(srv.AckLatencyPercentile(99).Microseconds())/1000, "p99-ms")
}

// BenchmarkMentionAckThroughput pushes as fast as the simulator accepts.
func BenchmarkMentionAckThroughput(b *testing.B) { benchMentions(b, 4, 0) }

// BenchmarkMentionAck200PerSecond paces mentions at 200/s, the load the
// bot's own benchmark applies; p99-ms is the figure to watch.
func BenchmarkMentionAck200PerSecond(b *testing.B) { benchMentions(b, 4, 5*time.Millisecond) }
