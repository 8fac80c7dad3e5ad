package metrics

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/autoheal/autoheal/investigate/llm"
)

// queueCollector reads the queue's depth from Redis on every scrape, so
// every replica reports the shared queue (aggregate with max, not sum).
type queueCollector struct {
	q       DepthSource
	timeout time.Duration
	log     *slog.Logger

	depth, stream, dead, up *prometheus.Desc
}

func newQueueCollector(q DepthSource, timeout time.Duration, log *slog.Logger) *queueCollector {
	return &queueCollector{
		q: q, timeout: timeout, log: log,
		depth:  prometheus.NewDesc("autoheal_queue_jobs", "Jobs on the shared work queue by state: waiting (never delivered) or pending (running or awaiting a retry).", []string{"state"}, nil),
		stream: prometheus.NewDesc("autoheal_queue_length", "Entries in the work queue's stream (waiting + pending).", nil, nil),
		dead:   prometheus.NewDesc("autoheal_queue_dead_letters", "Jobs in the dead-letter stream (failed MaxAttempts times or permanently).", nil, nil),
		up:     prometheus.NewDesc("autoheal_queue_up", "1 when the queue's state could be read from Redis during this scrape.", nil, nil),
	}
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.depth
	ch <- c.stream
	ch <- c.dead
	ch <- c.up
}

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	d, err := c.q.Depth(ctx)
	if err != nil {
		c.log.Warn("queue depth not read for /metrics", "err", err)
		ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, 1)
	ch <- prometheus.MustNewConstMetric(c.depth, prometheus.GaugeValue, float64(d.Waiting), "waiting")
	ch <- prometheus.MustNewConstMetric(c.depth, prometheus.GaugeValue, float64(d.Pending), "pending")
	ch <- prometheus.MustNewConstMetric(c.stream, prometheus.GaugeValue, float64(d.Stream))
	ch <- prometheus.MustNewConstMetric(c.dead, prometheus.GaugeValue, float64(d.Dead))
}

// llmCollector exposes the planner's in-memory counters (tokens, cost,
// requests, tool calls) as Prometheus counters. It is unchecked: the label
// sets are whatever the planner reported.
type llmCollector struct{ c *llm.Counters }

func (llmCollector) Describe(chan<- *prometheus.Desc) {}

func (l llmCollector) Collect(ch chan<- prometheus.Metric) {
	l.c.Each(func(s llm.Sample) {
		names := make([]string, len(s.Labels))
		values := make([]string, len(s.Labels))
		for i, kv := range s.Labels {
			names[i], values[i] = kv[0], kv[1]
		}
		help := s.Help
		if help == "" {
			help = "LLM planner counter."
		}
		m, err := prometheus.NewConstMetric(prometheus.NewDesc(s.Name, help, names, nil), prometheus.CounterValue, s.Value, values...)
		if err != nil {
			return
		}
		ch <- m
	})
}
