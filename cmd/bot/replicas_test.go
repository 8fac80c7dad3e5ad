package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/alertmanager/template"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/alerts"
	"github.com/autoheal/autoheal/bot"
	"github.com/autoheal/autoheal/config"
	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sessions"
	slacksim "github.com/autoheal/autoheal/sim/slack"
)

const (
	replicaChannel = "C0INCIDENTS"
	replicaToken   = "replica-test-webhook-token-0123456789"
)

// replicaCluster is N `bot serve` processes sharing a Redis prefix, the
// Slack simulator and a scenario's backends.
type replicaCluster struct {
	sim     *slacksim.Server
	rdb     *redis.Client
	prefix  string
	store   *sessions.Store
	env     map[string]string
	procs   []*botProc
	stream  string
	scen    *scenario.Scenario
	backend *harness.Backends
}

func newReplicaCluster(t testing.TB, scen string, latency time.Duration, extraEnv map[string]string) *replicaCluster {
	t.Helper()
	sim := slacksim.New(slacksim.Options{Channels: []slacksim.Channel{{ID: replicaChannel, Name: "incidents"}}})
	require.NoError(t, sim.Start())
	t.Cleanup(func() { _ = sim.Close() })
	s, err := scenario.Load("../../testdata/examples/" + scen)
	require.NoError(t, err)
	backends, err := harness.Start(s, harness.Options{Latency: latency, GitHubToken: "ghp_replicaTestToken0123456789abcdef"})
	require.NoError(t, err)
	t.Cleanup(backends.Close)

	rdb, both := redisForTest(t)
	url, prefix, _ := strings.Cut(both, "|")
	store, err := sessions.New(rdb, sessions.Options{Prefix: prefix})
	require.NoError(t, err)
	cfgPath := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(cfgPath, []byte(`
routing:
  default_channel: `+replicaChannel+`
  cooldown: 1h
  dedupe_window: 10m
mcp_servers: []
`), 0o600))
	env := map[string]string{
		"SLACK_APP_TOKEN": sim.AppToken(), "SLACK_BOT_TOKEN": sim.BotToken(), "SLACK_API_URL": sim.APIURL(),
		"REDIS_URL": url, "AUTOHEAL_REDIS_PREFIX": prefix, "AUTOHEAL_HTTP_ADDR": "127.0.0.1:0",
		"AUTOHEAL_ENCRYPTION_KEY": hex.EncodeToString(bytes.Repeat([]byte{5}, 32)),
		"AUTOHEAL_CONFIG":         cfgPath, "AUTOHEAL_WEBHOOK_TOKEN": replicaToken,
		"AUTOHEAL_VISIBILITY_TIMEOUT": "3s", "AUTOHEAL_CONCURRENCY": "4", "AUTOHEAL_DRAIN_TIMEOUT": "10s",
		"AUTOHEAL_LOG_LEVEL": cmp.Or(os.Getenv("AUTOHEAL_REPLICA_TEST_LOG"), "info"), "OPENAI_API_KEY": "",
	}
	for k, v := range backends.Config() {
		key, ok := config.Lookup(k)
		require.True(t, ok, k)
		env[key.Env] = v
	}
	for k, v := range extraEnv {
		env[k] = v
	}
	return &replicaCluster{sim: sim, rdb: rdb, prefix: prefix, store: store, env: env, stream: "{" + prefix + "}:jobs", scen: s, backend: backends}
}

func (c *replicaCluster) start(t testing.TB, n int, overrides ...map[string]string) {
	t.Helper()
	for i := 0; i < n; i++ {
		env := c.env
		if i < len(overrides) {
			env = map[string]string{}
			for k, v := range c.env {
				env[k] = v
			}
			for k, v := range overrides[i] {
				env[k] = v
			}
		}
		c.procs = append(c.procs, startBotProc(t, fmt.Sprintf("replica-%d", i), env))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	require.NoError(t, c.sim.WaitConnections(ctx, n), "the replicas did not connect to Slack")
}

func (c *replicaCluster) alive() []*botProc {
	var out []*botProc
	for _, p := range c.procs {
		select {
		case <-p.done:
		default:
			out = append(out, p)
		}
	}
	return out
}

// deliver posts a notification to replica i, and to the next live one when
// that fails (what a load balancer and Alertmanager's retries do). It
// returns the replica that answered 200.
func (c *replicaCluster) deliver(ctx context.Context, i int, body []byte) (int, error) {
	var last error
	for attempt := 0; attempt < 3*len(c.procs); attempt++ {
		p := c.procs[(i+attempt)%len(c.procs)]
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+p.addr+alerts.Path, bytes.NewReader(body))
		if err != nil {
			return 0, err
		}
		req.Header.Set("Authorization", "Bearer "+replicaToken)
		req.Header.Set("Content-Type", "application/json")
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			last = err
			continue
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return (i + attempt) % len(c.procs), nil
		}
		last = fmt.Errorf("%s: %s", p.name, resp.Status)
		if resp.StatusCode < 500 {
			return 0, last
		}
	}
	return 0, fmt.Errorf("no replica accepted the notification: %w", last)
}

// notification is one incident's alert firing (re-fires differ by start).
func notification(t testing.TB, base template.Alert, name string, fire int) []byte {
	t.Helper()
	a := base
	a.Labels = template.KV{}
	for k, v := range base.Labels {
		a.Labels[k] = v
	}
	a.Labels["alertname"] = name
	a.Fingerprint = ""
	a.StartsAt = base.StartsAt.Add(time.Duration(fire) * time.Minute)
	b, err := json.Marshal(alerts.Message{Data: &template.Data{Receiver: "autoheal", Status: "firing", Alerts: []template.Alert{a},
		GroupLabels: template.KV{"alertname": name}, CommonLabels: a.Labels, CommonAnnotations: a.Annotations}, Version: "4", GroupKey: "{}:{alertname=\"" + name + "\"}"})
	require.NoError(t, err)
	return b
}

// Three bot processes share Redis and Slack; 300 notifications (6
// incidents, 40 fires each, 60 exact duplicates) arrive spread over their
// webhooks while one process is SIGKILLed in the middle of an
// investigation. Afterwards every incident has one thread with one final
// result, every fire is counted, and nothing is left on the queue or
// dead-lettered.
func TestThreeReplicasConvergeAlertsWhenOneIsKilled(t *testing.T) {
	// Every backend call takes 400 ms: an investigation lasts seconds, so
	// the kill lands in one.
	c := newReplicaCluster(t, "checkout-fails-payment-typeerror", 400*time.Millisecond, nil)
	c.start(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), replicaTimeout())
	defer cancel()

	base, err := alerts.Decode(c.scen.Trigger.Alert)
	require.NoError(t, err)
	require.Len(t, base.Alerts, 1)
	const incidents, fires, duplicates = 6, 40, 60
	names := make([]string, incidents)
	keys := make([]string, incidents)
	var sends [][]byte
	for k := range names {
		names[k] = fmt.Sprintf("CheckoutErrorRateHigh%d", k)
		body := notification(t, base.Alerts[0], names[k], 0)
		m, err := alerts.Decode(body)
		require.NoError(t, err)
		keys[k] = m.Incidents()[0].Key
		sends = append(sends, body)
	}
	for f := 1; f < fires; f++ {
		for k := range names {
			sends = append(sends, notification(t, base.Alerts[0], names[k], f))
		}
	}
	for d := 0; d < duplicates; d++ {
		i := (d * 37) % len(sends)
		sends = append(sends, sends[i])
	}
	require.Len(t, sends, 300)
	// The first fire of every incident opens its thread and starts its
	// investigation.
	for k := 0; k < incidents; k++ {
		_, err := c.deliver(ctx, k, sends[k])
		require.NoError(t, err)
	}
	for _, key := range keys {
		waitFor(t, ctx, "the thread of "+key, func() bool {
			inc, err := c.store.GetIncident(ctx, key)
			return err == nil && inc.RootTS != ""
		})
	}
	// The rest go out later, duplicates right after their original.
	var rest [][]byte
	for i := 0; i < incidents*fires; i++ {
		if i >= incidents {
			rest = append(rest, sends[i])
		}
		for d := 0; d < duplicates; d++ {
			if (d*37)%(incidents*fires) == i {
				rest = append(rest, sends[i])
			}
		}
	}
	require.Len(t, rest, 300-incidents)

	// Kill the replica that is in the middle of an investigation: its job
	// is pending on its consumer and its progress message is in the thread.
	var victim *botProc
	var victimKey string
	waitFor(t, ctx, "an investigation in flight", func() bool {
		pending, err := c.rdb.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: c.stream, Group: "autoheal", Start: "-", End: "+", Count: 100}).Result()
		if err != nil {
			return false
		}
		for _, pe := range pending {
			msgs, err := c.rdb.XRange(ctx, c.stream, pe.ID, pe.ID).Result()
			if err != nil || len(msgs) != 1 {
				continue
			}
			var job sessions.Job
			if json.Unmarshal([]byte(msgs[0].Values["job"].(string)), &job) != nil || job.Kind != alerts.JobKind {
				continue
			}
			inc, err := c.store.GetIncident(ctx, job.Key)
			if err != nil {
				continue
			}
			invID := bot.AlertInvestigationJobID(job.Key, inc.LastInvestigatedAt)
			if _, _, err := c.store.JobMessage(ctx, invID); err != nil {
				continue // not investigating yet
			}
			if _, err := c.store.GetResult(ctx, invID); err == nil {
				continue // done
			}
			for _, p := range c.procs {
				if consumerOf(pe.Consumer, p.pid()) {
					victim, victimKey = p, job.Key
					return true
				}
			}
		}
		return false
	})
	victim.kill()
	t.Logf("killed %s (pid %d) while it investigated %s", victim.name, victim.pid(), victimKey)

	// The other 294 notifications, spread over the three webhooks (the
	// dead one's share fails over), from 8 senders at once.
	var wg sync.WaitGroup
	errs := make(chan error, len(rest))
	work := make(chan int)
	for w := 0; w < 8; w++ {
		wg.Go(func() {
			for i := range work {
				if _, err := c.deliver(ctx, i, rest[i]); err != nil {
					errs <- err
				}
			}
		})
	}
	for i := range rest {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}

	// Everything converges.
	waitFor(t, ctx, "every fire counted and every result posted", func() bool {
		for _, key := range keys {
			inc, err := c.store.GetIncident(ctx, key)
			if err != nil || inc.FireCount < fires {
				return false
			}
			if _, err := c.store.GetResult(ctx, bot.AlertInvestigationJobID(key, inc.LastInvestigatedAt)); err != nil {
				return false
			}
		}
		d, err := c.queue(t).Depth(ctx)
		return err == nil && d.Stream == 0
	})

	var roots []slacksim.Message
	for _, m := range c.sim.Messages(replicaChannel) {
		if m.BotID != "" && !m.Deleted && (m.ThreadTS == "" || m.ThreadTS == m.TS) {
			roots = append(roots, m)
		}
	}
	assert.Len(t, roots, incidents, "one thread per incident")
	for k, key := range keys {
		inc, err := c.store.GetIncident(ctx, key)
		require.NoError(t, err)
		assert.Equal(t, fires, inc.FireCount, "%s: every fire counted once (duplicates dropped)", key)
		root, ok := c.sim.Message(replicaChannel, inc.RootTS)
		require.True(t, ok)
		assert.Contains(t, root.Text, "[FIRING] "+names[k])
		assert.Contains(t, root.Text, fmt.Sprintf("fired %d times", fires), "%s: the root shows the last count", key)
		results, progress, refire := 0, 0, 0
		for _, m := range c.sim.Thread(replicaChannel, inc.RootTS)[1:] {
			switch {
			case strings.HasPrefix(m.Text, "Root cause"):
				results++
			case strings.HasPrefix(m.Text, "Investigating"):
				progress++
			case strings.HasPrefix(m.Text, ":repeat:"):
				refire++
			}
		}
		assert.Equal(t, 1, results, "%s: exactly one final result", key)
		assert.Equal(t, 0, progress, "%s: no progress message left behind", key)
		assert.Equal(t, 1, refire, "%s: one re-fire reply within the cooldown", key)
	}
	dead, err := c.rdb.XLen(ctx, c.stream+":dead").Result()
	require.NoError(t, err)
	assert.Zero(t, dead, "nothing dead-lettered")
	assert.Contains(t, strings.Join(logsOf(c.alive()), "\n"), "reclaimed idle job", "a survivor took the killed replica's jobs over")

	sctx, scancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer scancel()
	for _, p := range c.alive() {
		assert.NoError(t, p.stop(sctx), "%s exits 0 on SIGTERM", p.name)
	}
}

func logsOf(ps []*botProc) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.logs.String())
	}
	return out
}

// waitFor polls cond until it holds (a deadlock guard, not a timing assertion).
func waitFor(t testing.TB, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// queue is a handle on the replicas' queue (for its depth).
func (c *replicaCluster) queue(t testing.TB) *sessions.Queue {
	q, err := sessions.NewQueue(c.rdb, sessions.QueueOptions{Stream: c.stream})
	require.NoError(t, err)
	return q
}

func replicaTimeout() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("AUTOHEAL_REPLICA_TEST_TIMEOUT")); err == nil {
		return d
	}
	return 4 * time.Minute
}
