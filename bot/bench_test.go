package bot

import (
	"fmt"
	"strings"
	"testing"
	"time"

	slacksim "github.com/autoheal/autoheal/sim/slack"
)

// BenchmarkMentionAckLatency delivers mentions through the simulator at
// 200 per second to a bot replica (the real Socket Mode handler, real Redis
// de-duplication, the Investigating reply and the enqueue; the queue worker
// is off) and reports the envelope ack latency the simulator measured,
// from writing the envelope to reading the ack.
//
//	go test -run '^$' -bench MentionAckLatency -benchtime 2000x ./bot
func BenchmarkMentionAckLatency(b *testing.B) {
	const rate = 200 // mentions per second
	e := newEnv(b, envOptions{})
	e.startBot(b, func(o *Options) { o.NoWorker = true })
	ctx := testCtx(b)

	ids := make([]string, 0, b.N)
	tick := time.NewTicker(time.Second / rate)
	defer tick.Stop()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		<-tick.C
		m, err := e.sim.MentionEvent(slacksim.MentionOptions{Channel: incidentChannel, User: oncall, Text: fmt.Sprintf("checkout fails for order %d", i)})
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, m.EnvelopeID)
	}
	for _, id := range ids {
		if _, err := e.sim.WaitAck(ctx, id); err != nil {
			b.Fatal(err)
		}
	}
	sent := time.Since(start)
	b.StopTimer()

	// Every mention was handled once: one Investigating reply each.
	eventually(b, "every mention to be answered", func() bool {
		n := 0
		for _, c := range e.sim.Calls("chat.postMessage") {
			if strings.HasPrefix(c.Param("text"), "Investigating") {
				n++
			}
		}
		return n == b.N
	})
	b.ReportMetric(float64(e.sim.AckLatencyPercentile(50).Microseconds())/1000, "ack_p50_ms")
	b.ReportMetric(float64(e.sim.AckLatencyPercentile(99).Microseconds())/1000, "ack_p99_ms")
	b.ReportMetric(float64(e.sim.AckLatencyPercentile(100).Microseconds())/1000, "ack_max_ms")
	b.ReportMetric(float64(b.N)/sent.Seconds(), "mentions/s")
}
