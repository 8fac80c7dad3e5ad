package alerts

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/alertmanager/template"

	"github.com/autoheal/autoheal/internal/benchstat"
	"github.com/autoheal/autoheal/sessions"
)

// durations records the webhook's own request-to-enqueued times.
type durations struct {
	recMetrics
	mu sync.Mutex
	d  []time.Duration
}

func (m *durations) WebhookEnqueued(d time.Duration) {
	m.mu.Lock()
	m.d = append(m.d, d)
	m.mu.Unlock()
}

// BenchmarkWebhookEnqueue500PerSecond sends, per iteration, 2500
// Alertmanager notifications of one alert each (five seconds), open-loop at
// 500 per second (a request leaves at its
// scheduled time whether or not earlier ones were answered), to the webhook
// over HTTP with a real Redis queue behind it. The alerts spread over 60
// incidents with re-fires and 10% exact duplicates. It reports the
// client-observed latency (request sent to 200 received: the alert is on
// the queue), the webhook's own arrival-to-enqueued time, and the memory of
// this process (which also runs the load generator).
//
//	go test -run '^$' -bench WebhookEnqueue -benchtime 2x ./alerts
func BenchmarkWebhookEnqueue500PerSecond(b *testing.B) {
	const rate, perIteration = 500, 2500
	rdb := newRedis(b)
	q := newQueue(b, rdb, func(o *sessions.QueueOptions) { o.MaxLen = 10_000_000; o.DedupeWindow = 10 * time.Minute })
	m := &durations{recMetrics: *newRecMetrics()}
	h, err := NewWebhook(WebhookOptions{Token: testToken, Routing: DefaultRouting("C0INCIDENTS"), Queue: q, Metrics: m, Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, MaxConnsPerHost: 256}, Timeout: 10 * time.Second}

	bodies := make([][]byte, 0, 1024)
	for i := 0; i < cap(bodies); i++ {
		svc := fmt.Sprintf("svc-%02d", i%60)
		start := t0.Add(time.Duration(i/60) * time.Minute) // each round is a re-fire of the 60 incidents
		if i%10 == 9 {
			start = t0.Add(time.Duration((i-1)/60) * time.Minute) // an exact duplicate of an earlier one
			svc = fmt.Sprintf("svc-%02d", (i-1)%60)
		}
		a := testAlert("HighErrorRate", "shop", svc, StatusFiring, start)
		a.Labels["pod"] = svc + "-7d4b9c8f6d-x2x9z"
		bodies = append(bodies, webhookBody(b, []template.Alert{a}...))
	}

	var peakHeap uint64
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peakHeap = max(peakHeap, ms.HeapInuse)
			select {
			case <-stopSampling:
				return
			case <-t.C:
			}
		}
	}()

	total := b.N * perIteration
	lat := make([]time.Duration, total)
	var failures int
	var mu sync.Mutex
	var wg sync.WaitGroup
	interval := time.Second / rate
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < total; i++ {
		if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
			time.Sleep(d)
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, srv.URL+Path, bytes.NewReader(bodies[i%len(bodies)]))
			req.Header.Set("Authorization", "Bearer "+testToken)
			req.Header.Set("Content-Type", "application/json")
			sent := time.Now()
			resp, err := client.Do(req)
			lat[i] = time.Since(sent)
			if err == nil {
				resp.Body.Close()
			}
			if err != nil || resp.StatusCode != http.StatusOK {
				mu.Lock()
				failures++
				mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	close(stopSampling)
	<-sampled
	if failures > 0 {
		b.Fatalf("%d of %d requests failed", failures, total)
	}
	b.ReportMetric(benchstat.Millis(benchstat.Percentile(lat, 0.50)), "p50-ms")
	b.ReportMetric(benchstat.Millis(benchstat.Percentile(lat, 0.99)), "p99-ms")
	b.ReportMetric(benchstat.Millis(benchstat.Percentile(lat, 1)), "max-ms")
	m.mu.Lock()
	b.ReportMetric(benchstat.Millis(benchstat.Percentile(m.d, 0.99)), "server-p99-ms")
	m.mu.Unlock()
	b.ReportMetric(float64(total)/elapsed.Seconds(), "alerts/s")
	b.ReportMetric(float64(peakHeap)/(1<<20), "peak-heap-MB")
	b.ReportMetric(benchstat.ProcStatusKB(0, "VmHWM")/1024, "peak-rss-MB")
}
