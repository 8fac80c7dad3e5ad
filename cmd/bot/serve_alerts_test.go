package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/alerts"
	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sessions"
	slacksim "github.com/autoheal/autoheal/sim/slack"
)

func TestLoadServeEnvWebhookAndRouting(t *testing.T) {
	base := map[string]string{"SLACK_APP_TOKEN": "xapp-1-A-1-abc", "SLACK_BOT_TOKEN": "xoxb-1-abc"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("routing:\n  default_channel: C0ALERTS\n  cooldown: 2h\n  routes:\n    - {name: pay, matchers: ['namespace=\"payments\"'], channel: C0PAY}\nmcp_servers: []\n"), 0o600))

	e, err := loadServeEnv(envFrom(with("AUTOHEAL_WEBHOOK_TOKEN", "0123456789abcdef0123", "AUTOHEAL_CONFIG", cfg,
		"AUTOHEAL_WEBHOOK_MAX_BODY", "65536", "AUTOHEAL_VISIBILITY_TIMEOUT", "90s", "AUTOHEAL_MAX_ATTEMPTS", "5", "AUTOHEAL_QUEUE_MAX_LEN", "500")))
	require.NoError(t, err)
	require.NotNil(t, e.Routing)
	assert.Equal(t, "C0ALERTS", e.Routing.DefaultChannel)
	assert.Equal(t, 2*time.Hour, e.Routing.Cooldown)
	assert.Len(t, e.Routing.Routes, 1)
	assert.Equal(t, int64(65536), e.WebhookMaxBody)
	assert.Equal(t, 90*time.Second, e.VisibilityTimeout)
	assert.Equal(t, 5, e.MaxAttempts)
	assert.Equal(t, int64(500), e.QueueMaxLen)
	assert.True(t, e.webhookCredentials())

	e, err = loadServeEnv(envFrom(with("AUTOHEAL_ALERT_CHANNEL", "C0ONLY", "AUTOHEAL_WEBHOOK_BASIC_USER", "am", "AUTOHEAL_WEBHOOK_BASIC_PASSWORD", "pw")))
	require.NoError(t, err)
	assert.Equal(t, "C0ONLY", e.Routing.DefaultChannel)
	assert.Equal(t, alerts.DefaultCooldown, e.Routing.Cooldown)
	assert.Equal(t, int64(alerts.DefaultMaxBodyBytes), e.WebhookMaxBody)
	assert.Equal(t, time.Minute, e.VisibilityTimeout)

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("routing:\n  default_channel: C0A1\n  cooldwn: 5m\n"), 0o600))
	secret := "short-token"
	_, err = loadServeEnv(envFrom(with("AUTOHEAL_WEBHOOK_TOKEN", secret, "AUTOHEAL_CONFIG", bad,
		"AUTOHEAL_WEBHOOK_BASIC_USER", "only-user", "AUTOHEAL_WEBHOOK_MAX_BODY", "10", "AUTOHEAL_ALERT_CHANNEL", "#incidents")))
	require.Error(t, err)
	for _, want := range []string{"AUTOHEAL_WEBHOOK_TOKEN must be at least 16", "AUTOHEAL_WEBHOOK_BASIC_USER and AUTOHEAL_WEBHOOK_BASIC_PASSWORD go together",
		"AUTOHEAL_WEBHOOK_MAX_BODY", "AUTOHEAL_CONFIG: " + bad + ":3: routing.cooldwn: unknown key"} {
		assert.Contains(t, err.Error(), want)
	}
	assert.NotContains(t, err.Error(), secret)
	e, err = loadServeEnv(envFrom(with("AUTOHEAL_WORKER", "false")))
	require.NoError(t, err)
	assert.True(t, e.NoWorker)
	assert.Nil(t, e.Routing, "no routing: alerts are off")
	_, err = loadServeEnv(envFrom(with("AUTOHEAL_WORKER", "sometimes")))
	assert.ErrorContains(t, err, "AUTOHEAL_WORKER must be true or false")
	_, err = loadServeEnv(envFrom(with("AUTOHEAL_ALERT_CHANNEL", "#incidents")))
	assert.ErrorContains(t, err, "AUTOHEAL_ALERT_CHANNEL must be a Slack channel id")
	_, err = loadServeEnv(envFrom(with("AUTOHEAL_ALERT_CHANNEL", "C0X1", "AUTOHEAL_CONFIG", cfg)))
	assert.ErrorContains(t, err, "set one or the other")
}

// `bot serve` accepts Alertmanager webhooks with the token, refuses the
// others, and /metrics reports them with the queue and the outcome.
func TestServeWebhookAndMetrics(t *testing.T) {
	srv := slacksim.New(slacksim.Options{Channels: []slacksim.Channel{{ID: "C0ALERTS", Name: "alerts"}}})
	require.NoError(t, srv.Start())
	t.Cleanup(func() { _ = srv.Close() })
	_, both := testRedis(t)
	url, prefix, _ := strings.Cut(both, "|")
	addr := freeAddr(t)
	token := "serve-webhook-token-0123456789abcdef"
	for k, v := range map[string]string{
		"SLACK_APP_TOKEN": srv.AppToken(), "SLACK_BOT_TOKEN": srv.BotToken(), "SLACK_API_URL": srv.APIURL(),
		"REDIS_URL": url, "AUTOHEAL_REDIS_PREFIX": prefix, "AUTOHEAL_HTTP_ADDR": addr,
		"AUTOHEAL_ENCRYPTION_KEY": hex.EncodeToString(bytes.Repeat([]byte{3}, 32)), "AUTOHEAL_DRAIN_TIMEOUT": "5s", "OPENAI_API_KEY": "",
		"AUTOHEAL_ALERT_CHANNEL": "C0ALERTS", "AUTOHEAL_WEBHOOK_TOKEN": token, "AUTOHEAL_CONFIG": "",
	} {
		t.Setenv(k, v)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- runServe(ctx, nil, io.Discard, logs) }()

	s, err := scenario.Load("../../testdata/examples/checkout-fails-payment-typeerror")
	require.NoError(t, err)
	hook := "http://" + addr + alerts.Path
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := postAlert(ctx, hook, token, s.Trigger.Alert)
		if err == nil {
			break
		}
		require.True(t, time.Now().Before(deadline), "webhook not answering: %v\n%s", err, logs.String())
		time.Sleep(50 * time.Millisecond)
	}
	_, err = postAlert(ctx, hook, "wrong-token-wrong-token-wrong", s.Trigger.Alert)
	require.ErrorContains(t, err, "401")

	metricsText := func() string {
		resp, err := http.Get("http://" + addr + "/metrics")
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	// No backend is configured: the investigation is parked, which the
	// worker reports once the thread is open.
	var m string
	for {
		m = metricsText()
		if strings.Contains(m, `autoheal_investigations_total{band="none",mode="none",outcome="parked"} 1`) {
			break
		}
		require.True(t, time.Now().Before(deadline), "no parked investigation reported:\n%s\n%s", m, logs.String())
		time.Sleep(50 * time.Millisecond)
	}
	for _, want := range []string{
		`autoheal_alerts_received_total{status="firing"} 1`,
		`autoheal_alerts_rejected_total{reason="unauthorized"} 1`,
		`autoheal_incident_events_total{event="opened"} 1`,
		`autoheal_webhook_enqueue_seconds_count 1`,
		`autoheal_queue_up 1`,
		`autoheal_queue_dead_letters 0`,
		`process_resident_memory_bytes`,
	} {
		assert.Contains(t, m, want)
	}
	var roots int
	for _, msg := range srv.Messages("C0ALERTS") {
		if strings.Contains(msg.Text, "[FIRING] CheckoutErrorRateHigh") {
			roots++
		}
	}
	assert.Equal(t, 1, roots)

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err, logs.String())
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
	out := logs.String()
	assert.Contains(t, out, "alertmanager webhook enabled")
	assert.NotContains(t, out, token)
	assert.NotContains(t, out, "wrong-token-wrong-token-wrong")
}

// Only the webhook's writes are de-duplicated: a parked mention job is
// queued again under its own id when its setting arrives, within any
// dedupe window.
func TestWireBotDedupesOnlyAlertNotifications(t *testing.T) {
	rdb, both := redisForTest(t)
	_, prefix, _ := strings.Cut(both, "|")
	env := serveEnv{AppToken: "xapp-1", BotToken: "xoxb-1", RedisPrefix: prefix, Concurrency: 1, EventWorkers: 1,
		Deadline: time.Minute, DrainTimeout: time.Second, HTTPAddr: "127.0.0.1:0", VisibilityTimeout: time.Minute, MaxAttempts: 3, QueueMaxLen: 100,
		Routing: alerts.DefaultRouting("C0ALERTS"), WebhookToken: "wire-test-token-0123456789", Settings: map[string]string{}}
	w, err := wireBot(botDeps{Env: env, Redis: rdb, Logger: quietLog()})
	require.NoError(t, err)
	require.NotNil(t, w.Webhook)
	assert.Zero(t, w.Queue.Options().DedupeWindow)
	assert.Equal(t, alerts.DefaultDedupeWindow, w.AlertQueue.Options().DedupeWindow)
	assert.Equal(t, w.Queue.Options().Stream, w.AlertQueue.Options().Stream, "one stream")
	ctx := context.Background()
	job := sessions.Job{ID: "m-Ev0PARKED", Kind: "investigate"}
	for i := 0; i < 2; i++ {
		_, err := w.Queue.Enqueue(ctx, job)
		require.NoError(t, err, "a resumed job is queued again")
	}
	alert := sessions.Job{ID: "al-0123", Kind: alerts.JobKind}
	_, err = w.AlertQueue.Enqueue(ctx, alert)
	require.NoError(t, err)
	_, err = w.AlertQueue.Enqueue(ctx, alert)
	assert.ErrorIs(t, err, sessions.ErrDuplicateJob)
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
