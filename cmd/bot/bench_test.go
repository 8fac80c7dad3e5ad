package main

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/alertmanager/template"

	"github.com/autoheal/autoheal/alerts"
	"github.com/autoheal/autoheal/internal/benchstat"
)

// cpuSeconds is the user+system CPU time a process has used (/proc/PID/stat).
func cpuSeconds(pid int) float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command name (which is in parentheses).
	i := strings.LastIndexByte(string(raw), ')')
	f := strings.Fields(string(raw)[i+1:])
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100 // USER_HZ
}

// BenchmarkServeProcess500AlertsPerSecond runs one real `bot serve`
// process (webhook, queue workers, Slack simulator, scenario backends) and
// sends it 2500 notifications per iteration, open-loop at 500 per second,
// over 60 incidents with re-fires and 10% duplicates. It reports the
// webhook's latency as seen by the sender (the alert is on the queue when
// the 200 arrives), the process's peak RSS sampled every 50 ms from
// /proc/PID/status while it receives and works, and the time its workers
// take to drain the queue after the last notification.
//
//	go test -run '^$' -bench ServeProcess -benchtime 1x ./cmd/bot
func BenchmarkServeProcess500AlertsPerSecond(b *testing.B) {
	const rate, perIteration = 500, 2500
	c := newReplicaCluster(b, "checkout-fails-payment-typeerror", 0, map[string]string{"AUTOHEAL_CONCURRENCY": cmp.Or(os.Getenv("AUTOHEAL_BENCH_CONCURRENCY"), "4")})
	if os.Getenv("AUTOHEAL_BENCH_SPLIT") != "" {
		// A webhook-only replica in front, the investigations in another process.
		c.start(b, 2, map[string]string{"AUTOHEAL_WORKER": "false"})
	} else {
		c.start(b, 1)
	}
	p := c.procs[0]
	base, err := alerts.Decode(c.scen.Trigger.Alert)
	if err != nil {
		b.Fatal(err)
	}
	bodies := make([][]byte, 0, 600)
	for i := 0; i < cap(bodies); i++ {
		k, fire := i%60, i/60
		if i%10 == 9 {
			k, fire = (i-1)%60, (i-1)/60 // an exact duplicate
		}
		a := base.Alerts[0]
		a.Labels = template.KV{}
		for key, v := range base.Alerts[0].Labels {
			a.Labels[key] = v
		}
		a.Labels["alertname"] = fmt.Sprintf("CheckoutErrorRateHigh%02d", k)
		a.Fingerprint = ""
		a.StartsAt = base.Alerts[0].StartsAt.Add(time.Duration(fire) * time.Minute)
		bodies = append(bodies, mustJSON(b, alerts.Message{Data: &template.Data{Receiver: "autoheal", Status: "firing", Alerts: []template.Alert{a}}, Version: "4"}))
	}

	var peak float64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, benchstat.ProcStatusKB(p.pid(), "VmRSS"))
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}, Timeout: 10 * time.Second}
	url := "http://" + p.addr + alerts.Path
	total := b.N * perIteration
	lat := make([]time.Duration, total)
	var failures int
	var mu sync.Mutex
	var wg sync.WaitGroup
	cpuBefore := 0.0
	for _, p := range c.procs {
		cpuBefore += cpuSeconds(p.pid())
	}
	selfBefore := cpuSeconds(os.Getpid())
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < total; i++ {
		if d := time.Until(start.Add(time.Duration(i) * time.Second / rate)); d > 0 {
			time.Sleep(d)
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(string(bodies[i%len(bodies)])))
			req.Header.Set("Authorization", "Bearer "+replicaToken)
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
	sent := time.Now()
	loadCPU := 0.0
	for _, p := range c.procs {
		loadCPU += cpuSeconds(p.pid())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	q := c.queue(b)
	for {
		d, err := q.Depth(ctx)
		if err == nil && d.Stream == 0 {
			break
		}
		if ctx.Err() != nil {
			b.Fatalf("the queue did not drain: %+v %v", d, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	drain := time.Since(sent)
	b.StopTimer()
	cpuAfter := 0.0
	for _, p := range c.procs {
		cpuAfter += cpuSeconds(p.pid())
	}
	wall := time.Since(start).Seconds()
	b.ReportMetric((cpuAfter-cpuBefore)/wall, "bot-cpus")
	b.ReportMetric((loadCPU-cpuBefore)/sent.Sub(start).Seconds(), "bot-cpus-under-load")
	b.ReportMetric((cpuSeconds(os.Getpid())-selfBefore)/wall, "sims+loadgen-cpus")
	close(stop)
	<-sampled
	if failures > 0 {
		b.Fatalf("%d of %d notifications failed", failures, total)
	}
	b.ReportMetric(benchstat.Millis(benchstat.Percentile(lat, 0.5)), "p50-ms")
	b.ReportMetric(benchstat.Millis(benchstat.Percentile(lat, 0.99)), "p99-ms")
	b.ReportMetric(float64(total)/sent.Sub(start).Seconds(), "alerts/s")
	b.ReportMetric(peak/1024, "bot-peak-rss-MB")
	b.ReportMetric(drain.Seconds(), "drain-s")
	if share, err := histogramShare("http://"+p.addr+"/metrics", "autoheal_webhook_enqueue_seconds", "0.02"); err == nil {
		b.ReportMetric(100*share, "server-under-20ms-%")
	}
	sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer scancel()
	for _, p := range c.procs {
		if err := p.stop(sctx); err != nil {
			b.Errorf("bot serve did not exit cleanly: %v", err)
		}
	}
}

// histogramShare returns the share of a histogram's observations at or
// below the bucket le, from a /metrics page.
func histogramShare(url, name, le string) (float64, error) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var below, count float64
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) != 2 {
			continue
		}
		v, _ := strconv.ParseFloat(fields[1], 64)
		switch {
		case strings.HasPrefix(line, name+`_bucket{le="`+le+`"}`):
			below = v
		case strings.HasPrefix(line, name+"_count "):
			count = v
		}
	}
	if count == 0 {
		return 0, fmt.Errorf("%s: no observations", name)
	}
	return below / count, nil
}
