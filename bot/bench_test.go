package bot

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/autoheal/autoheal/internal/benchstat"
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

// BenchmarkSlowSlackAcks is BenchmarkMentionAckLatency against a Slack
// whose Web API answers every call in 500 ms, with one event in ten a
// `/autoheal config` command that opens a modal. It reports the envelope
// ack latency over all events, how long each command waited for its
// views.open (its trigger_id lives 3 s), and how many mentions were shed
// because their lane was full.
//
//	go test -run '^$' -bench SlowSlackAcks -benchtime 2000x ./bot
func BenchmarkSlowSlackAcks(b *testing.B) {
	const rate = 200 // events per second
	const slack = 500 * time.Millisecond
	e := newEnv(b, envOptions{sim: slacksim.Options{Latency: slack}})
	shed := &shedCounter{}
	e.startBot(b, func(o *Options) { o.NoWorker = true; o.Metrics = shed })
	ctx := testCtx(b)

	var envelopes []string
	sentAt := map[string]time.Time{} // trigger_id -> when its command was sent
	tick := time.NewTicker(time.Second / rate)
	defer tick.Stop()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		<-tick.C
		if i%10 == 5 {
			sent := time.Now()
			it, err := e.sim.SlashCommand(slacksim.SlashCommandOptions{Channel: incidentChannel, User: oncall, Text: "config"})
			if err != nil {
				b.Fatal(err)
			}
			sentAt[it.TriggerID] = sent
			envelopes = append(envelopes, it.EnvelopeID)
			continue
		}
		m, err := e.sim.MentionEvent(slacksim.MentionOptions{Channel: incidentChannel, User: oncall, Text: fmt.Sprintf("checkout fails for order %d", i)})
		if err != nil {
			b.Fatal(err)
		}
		envelopes = append(envelopes, m.EnvelopeID)
	}
	for _, id := range envelopes {
		if _, err := e.sim.WaitAck(ctx, id); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()

	// Every command's modal opened (or the command was shed).
	opened := map[string]time.Duration{}
	eventually(b, "every modal to open", func() bool {
		for _, c := range e.sim.Calls("views.open") {
			if id := c.Param("trigger_id"); id != "" && c.Error == "" {
				if at, ok := sentAt[id]; ok {
					opened[id] = c.Time.Sub(at)
				}
			}
		}
		return len(opened)+int(shed.interactive.Load()) >= len(sentAt)
	})
	var waits []time.Duration
	within := 0
	for _, d := range opened {
		waits = append(waits, d)
		if d+slack <= 3*time.Second { // the answer reaches Slack within the trigger's life
			within++
		}
	}
	b.ReportMetric(float64(e.sim.AckLatencyPercentile(50).Microseconds())/1000, "ack_p50_ms")
	b.ReportMetric(float64(e.sim.AckLatencyPercentile(99).Microseconds())/1000, "ack_p99_ms")
	b.ReportMetric(float64(e.sim.AckLatencyPercentile(100).Microseconds())/1000, "ack_max_ms")
	b.ReportMetric(float64(benchstat.Percentile(waits, 100).Microseconds())/1000, "views_open_max_ms")
	b.ReportMetric(100*float64(within)/float64(len(sentAt)), "views_open_in_3s_pct")
	b.ReportMetric(float64(shed.events.Load()), "mentions_shed")
}

// shedCounter counts shed events by lane.
type shedCounter struct {
	noMetrics
	events, interactive atomic.Int64
}

func (s *shedCounter) SlackEventShed(lane string) {
	if lane == laneInteractive {
		s.interactive.Add(1)
	} else {
		s.events.Add(1)
	}
}
