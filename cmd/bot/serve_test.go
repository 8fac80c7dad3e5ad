package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/bot"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/sessions"
	slacksim "github.com/autoheal/autoheal/sim/slack"
)

func envFrom(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLoadServeEnv(t *testing.T) {
	key := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32))
	e, err := loadServeEnv(envFrom(map[string]string{
		"SLACK_APP_TOKEN": "xapp-1-A-1-abc", "SLACK_BOT_TOKEN": "xoxb-1-abc",
		"AUTOHEAL_ENCRYPTION_KEY": key, "AUTOHEAL_APPROVERS": "U0ALICE, <!subteam^S0ONCALL|@oncall>",
		"AUTOHEAL_MIN_BAND": "high", "AUTOHEAL_CONCURRENCY": "8", "AUTOHEAL_DEADLINE": "90s",
		"LOKI_URL": "http://loki:3100", "GITHUB_TOKEN": "ghp_envtoken0123456789", "AUTOHEAL_REPO": "acme/shop",
		"AUTOHEAL_ADMINS": "U0ADMIN <!subteam^S0PLATFORM>", "AUTOHEAL_ALLOWED_HOSTS": "Grafana.corp.example, *.observability.svc 10.0.0.9",
	}))
	require.NoError(t, err)
	assert.Equal(t, []string{"U0ADMIN"}, e.Admins.Users)
	assert.Equal(t, []string{"S0PLATFORM"}, e.Admins.Groups)
	assert.Equal(t, []string{"grafana.corp.example", "*.observability.svc", "10.0.0.9"}, e.AllowedHosts)
	assert.Equal(t, "redis://127.0.0.1:6379/0", e.RedisURL)
	assert.Equal(t, "autoheal", e.RedisPrefix)
	assert.Len(t, e.EncryptionKey, 32)
	assert.Equal(t, []string{"U0ALICE"}, e.Approvers.Users)
	assert.Equal(t, []string{"S0ONCALL"}, e.Approvers.Groups)
	assert.Equal(t, investigate.BandHigh, e.MinBand)
	assert.Equal(t, 8, e.Concurrency)
	assert.Equal(t, 16, e.EventWorkers)
	assert.Equal(t, 90*time.Second, e.Deadline)
	assert.Equal(t, ":8080", e.HTTPAddr)
	assert.Equal(t, map[string]string{"loki_url": "http://loki:3100", "github_token": "ghp_envtoken0123456789", "repo": "acme/shop"}, e.Settings)
}

func TestLoadServeEnvErrorsNameVariablesNotValues(t *testing.T) {
	secret := "xoxp-user-token-not-a-bot-token-123456"
	_, err := loadServeEnv(envFrom(map[string]string{
		"SLACK_BOT_TOKEN": secret, "AUTOHEAL_ENCRYPTION_KEY": "short-secret-key-value",
		"AUTOHEAL_MIN_BAND": "EXTREME", "AUTOHEAL_CONCURRENCY": "0", "LOKI_URL": "ftp://loki-secret-host",
		"AUTOHEAL_APPROVERS": "alice@example.com", "AUTOHEAL_ADMINS": "@bob", "AUTOHEAL_ALLOWED_HOSTS": "https://grafana.example/",
	}))
	require.Error(t, err)
	msg := err.Error()
	for _, want := range []string{"SLACK_APP_TOKEN is required", "SLACK_BOT_TOKEN must be a bot token", "AUTOHEAL_ENCRYPTION_KEY",
		"AUTOHEAL_MIN_BAND", "AUTOHEAL_CONCURRENCY", "LOKI_URL: loki_url: must be an http(s) URL", "AUTOHEAL_APPROVERS",
		`AUTOHEAL_ADMINS: invalid Slack user or user group: "@bob"`, `AUTOHEAL_ALLOWED_HOSTS: not a host name, IP address, *.domain or address range such as 10.0.0.0/8 (with an optional :port): "https://grafana.example/"`} {
		assert.Contains(t, msg, want)
	}
	assert.NotContains(t, msg, secret)
	assert.NotContains(t, msg, "short-secret-key-value")
	assert.NotContains(t, msg, "loki-secret-host")
}

func testRedis(t *testing.T) (*redis.Client, string) {
	t.Helper()
	url := os.Getenv("REDIS_URL")
	if url == "" {
		url = "redis://127.0.0.1:6379/0"
	}
	rdb, err := sessions.Connect(context.Background(), url)
	require.NoError(t, err, "these tests need a real Redis (REDIS_URL or 127.0.0.1:6379)")
	var b [6]byte
	_, _ = rand.Read(b[:])
	prefix := "autoheal-serve-test-" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		ctx := context.Background()
		for _, pattern := range []string{prefix + ":*", "{" + prefix + "}:*"} {
			iter := rdb.Scan(ctx, 0, pattern, 500).Iterator()
			var keys []string
			for iter.Next(ctx) {
				keys = append(keys, iter.Val())
			}
			if len(keys) > 0 {
				_ = rdb.Del(ctx, keys...).Err()
			}
		}
		_ = rdb.Close()
	})
	return rdb, url + "|" + prefix
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// `bot serve` against the Slack simulator: ready, answers a mention,
// logs JSON without secrets, and stops cleanly when signalled.
func TestServeAgainstSimulator(t *testing.T) {
	srv := slacksim.New(slacksim.Options{Channels: []slacksim.Channel{{ID: "C0INCIDENT", Name: "incidents"}}})
	require.NoError(t, srv.Start())
	t.Cleanup(func() { _ = srv.Close() })
	rdb, both := testRedis(t)
	url, prefix, _ := strings.Cut(both, "|")
	addr := freeAddr(t)
	key := bytes.Repeat([]byte{9}, 32)
	for k, v := range map[string]string{
		"SLACK_APP_TOKEN": srv.AppToken(), "SLACK_BOT_TOKEN": srv.BotToken(), "SLACK_API_URL": srv.APIURL(),
		"REDIS_URL": url, "AUTOHEAL_REDIS_PREFIX": prefix, "AUTOHEAL_HTTP_ADDR": addr,
		"AUTOHEAL_ENCRYPTION_KEY": hex.EncodeToString(key), "AUTOHEAL_DRAIN_TIMEOUT": "5s", "OPENAI_API_KEY": "",
		"GITHUB_TOKEN": "ghp_servetestTOKEN0123456789abcdef",
	} {
		t.Setenv(k, v)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- runServe(ctx, nil, io.Discard, logs) }()

	ready := func() (int, string) {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, body := ready()
		if code == http.StatusOK {
			assert.Contains(t, body, `"redis":"ok"`)
			assert.Contains(t, body, `"slack":"ok"`)
			break
		}
		require.True(t, time.Now().Before(deadline), "not ready: %d %s\n%s", code, body, logs.String())
		time.Sleep(50 * time.Millisecond)
	}
	resp, err := http.Get("http://" + addr + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
	defer wcancel()
	require.NoError(t, srv.WaitConnections(wctx, 1))
	m, err := srv.MentionEvent(slacksim.MentionOptions{Channel: "C0INCIDENT", User: "U0ALICE", Text: "repo: acme/shop"})
	require.NoError(t, err)
	store, err := sessions.New(rdb, sessions.Options{Prefix: prefix, EncryptionKey: key})
	require.NoError(t, err)
	for {
		got, err := store.Get(ctx, sessions.ThreadScope("C0INCIDENT", m.ThreadTS))
		require.NoError(t, err)
		if got["repo"] == "acme/shop" {
			break
		}
		require.True(t, time.Now().Before(deadline), "the mention was not answered\n%s", logs.String())
		time.Sleep(20 * time.Millisecond)
	}

	cancel() // SIGTERM
	select {
	case err := <-done:
		require.NoError(t, err, logs.String())
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
	out := logs.String()
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var v map[string]any
		assert.NoError(t, json.Unmarshal([]byte(line), &v), "not a JSON log line: %s", line)
	}
	assert.Contains(t, out, "autoheal serve starting")
	assert.Contains(t, out, "autoheal serve stopped")
	assert.NotContains(t, out, srv.BotToken())
	assert.NotContains(t, out, srv.AppToken())
	assert.NotContains(t, out, "ghp_servetestTOKEN0123456789abcdef")
}

// A revoked token stops serve with an error instead of retrying forever.
func TestServeStopsOnRejectedToken(t *testing.T) {
	srv := slacksim.New(slacksim.Options{})
	require.NoError(t, srv.Start())
	t.Cleanup(func() { _ = srv.Close() })
	_, both := testRedis(t)
	url, prefix, _ := strings.Cut(both, "|")
	srv.RejectToken(srv.BotToken())
	for k, v := range map[string]string{
		"SLACK_APP_TOKEN": srv.AppToken(), "SLACK_BOT_TOKEN": srv.BotToken(), "SLACK_API_URL": srv.APIURL(),
		"REDIS_URL": url, "AUTOHEAL_REDIS_PREFIX": prefix, "AUTOHEAL_HTTP_ADDR": freeAddr(t), "OPENAI_API_KEY": "",
	} {
		t.Setenv(k, v)
	}
	done := make(chan error, 1)
	go func() { done <- runServe(context.Background(), nil, io.Discard, io.Discard) }()
	select {
	case err := <-done:
		require.Error(t, err)
		assert.ErrorIs(t, err, bot.ErrSlackAuth)
		assert.NotContains(t, err.Error(), srv.BotToken())
	case <-time.After(30 * time.Second):
		t.Fatal("serve kept running with a rejected token")
	}
}
