package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/alerts"
	"github.com/autoheal/autoheal/scenario"
)

// `bot demo` runs the whole flow with no Slack and no Redis, prints the
// thread and writes the transcript of every simulator call.
func TestDemoPrintsThreadAndTranscript(t *testing.T) {
	t.Setenv("REDIS_URL", "") // the embedded Redis
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("AUTOHEAL_ENCRYPTION_KEY", "")
	tr := filepath.Join(t.TempDir(), "transcript.jsonl")
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := runDemo(ctx, []string{"--scenario", "../../testdata/examples/ad-npe-missing-context", "--transcript", tr}, &stdout, &stderr)
	require.NoError(t, err, stderr.String())

	out := stdout.String()
	assert.Contains(t, out, "#incidents · thread")
	assert.Contains(t, out, "@autoheal ads stopped showing")
	assert.Contains(t, out, "Root cause")
	assert.Contains(t, out, "AdService.java")
	assert.Contains(t, out, "[ Approve ]")

	f, err := os.Open(tr)
	require.NoError(t, err)
	defer f.Close()
	services := map[string]int{}
	methods := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e struct {
			Time     time.Time       `json:"time"`
			Service  string          `json:"service"`
			Method   string          `json:"method"`
			Params   json.RawMessage `json:"params"`
			Response json.RawMessage `json:"response"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e))
		assert.False(t, e.Time.IsZero())
		assert.NotEmpty(t, e.Method)
		assert.NotContains(t, string(e.Params), "xoxb-", "tokens never reach the transcript")
		services[e.Service]++
		methods[e.Service+" "+e.Method]++
	}
	require.NoError(t, sc.Err())
	for _, s := range []string{"slack", "github", "jaeger", "loki", "prometheus"} {
		assert.Positive(t, services[s], "calls to %s", s)
	}
	assert.Equal(t, 1, methods["slack socket_mode.send"], "one mention delivered")
	assert.Positive(t, methods["slack chat.update"])
}

func TestDemoNeedsAScenario(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := runDemo(context.Background(), nil, &stdout, &stderr)
	assert.ErrorIs(t, err, errUsage)
}

// An alert scenario arrives through the bot's own Alertmanager webhook (no
// mention): one thread per incident, each with its investigation.
func TestDemoDeliversAlertScenariosThroughTheWebhook(t *testing.T) {
	t.Setenv("REDIS_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("AUTOHEAL_ENCRYPTION_KEY", "")
	t.Setenv("AUTOHEAL_WEBHOOK_TOKEN", "")
	tr := filepath.Join(t.TempDir(), "transcript.jsonl")
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := runDemo(ctx, []string{"--scenario", "../../testdata/examples/cart-oomkilled-low-limit", "--transcript", tr}, &stdout, &stderr)
	require.NoError(t, err, stderr.String())
	out := stdout.String()
	assert.Contains(t, stderr.String(), "Alertmanager posts the alert to http://127.0.0.1:")
	assert.Contains(t, out, "[FIRING]* KubePodCrashLooping")
	assert.Contains(t, out, "[FIRING]* KubeContainerOOMKilled")
	assert.Equal(t, 2, strings.Count(out, "#incidents · thread"), "one thread per incident (issue key)")
	assert.Equal(t, 2, strings.Count(out, "Root cause"), "each incident investigated once")
	assert.Contains(t, out, "cart.yaml")
	raw, err := os.ReadFile(tr)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), `"socket_mode.send"`, "no mention: the alert came through the webhook")
}

// `bot demo --listen` keeps serving webhooks, prints threads as they
// change, and on SIGTERM drains and exits 0 (a real process).
func TestDemoListenServesWebhooksUntilSignalled(t *testing.T) {
	addr := freeAddr(t)
	token := "demo-listen-token-0123456789abcdef"
	cmd := exec.Command(os.Args[0], "demo", "--listen", addr, "--scenario", "../../testdata/examples/checkout-fails-payment-typeerror")
	cmd.Env = []string{execBotEnv + "=1", "PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "AUTOHEAL_WEBHOOK_TOKEN=" + token}
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	url := "http://" + addr + alerts.Path
	s, err := scenario.Load("../../testdata/examples/checkout-fails-payment-typeerror")
	require.NoError(t, err)
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, err := postAlert(context.Background(), url, token, s.Trigger.Alert)
		if err == nil {
			break
		}
		require.True(t, time.Now().Before(deadline), "the demo's webhook did not answer: %v\n%s", err, stderr.String())
		time.Sleep(100 * time.Millisecond)
	}
	_, err = postAlert(context.Background(), url, "", s.Trigger.Alert)
	require.ErrorContains(t, err, "401", "the token is required when set")
	for !strings.Contains(stdout.String(), "Root cause") {
		require.True(t, time.Now().Before(deadline), "no result printed\n%s\n%s", stdout.String(), stderr.String())
		time.Sleep(100 * time.Millisecond)
	}
	assert.Contains(t, stderr.String(), "accepts Alertmanager webhooks at "+url)
	assert.Contains(t, stderr.String(), "curl -sS -H \"Authorization: Bearer $AUTOHEAL_WEBHOOK_TOKEN\"")
	assert.Contains(t, stdout.String(), "[FIRING]* CheckoutErrorRateHigh")
	assert.NotContains(t, stdout.String()+stderr.String(), token)

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-done:
		require.NoError(t, err, "exit status 0 after SIGTERM\n%s", stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatal("the demo did not stop on SIGTERM")
	}
	assert.Contains(t, stderr.String(), "stopping: finishing running work")
}
