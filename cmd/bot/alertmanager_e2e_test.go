package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/alerts"
	"github.com/autoheal/autoheal/bot"
	"github.com/autoheal/autoheal/sessions"
)

// findAlertmanager finds Alertmanager: ALERTMANAGER_BIN, on PATH (Debian
// names it prometheus-alertmanager), or /usr/bin/prometheus-alertmanager.
func findAlertmanager() (string, bool) {
	if p := os.Getenv("ALERTMANAGER_BIN"); p != "" {
		_, err := os.Stat(p)
		return p, err == nil
	}
	for _, name := range []string{"prometheus-alertmanager", "alertmanager"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, true
		}
	}
	if _, err := os.Stat("/usr/bin/prometheus-alertmanager"); err == nil {
		return "/usr/bin/prometheus-alertmanager", true
	}
	return "", false
}

// alertmanagerBinary returns Alertmanager's path. Without one the test is
// skipped on a workstation, and fails in CI (CI=true), where .ci/run
// installs it: there, a missing binary must not pass unnoticed.
func alertmanagerBinary(t *testing.T) string {
	t.Helper()
	p, ok := findAlertmanager()
	if ok {
		return p
	}
	const how = "this end-to-end test runs a real Alertmanager. Install Debian's package " +
		"(apt-get install prometheus-alertmanager), put `alertmanager` on PATH or set ALERTMANAGER_BIN; .ci/run installs it"
	if p != "" {
		t.Logf("ALERTMANAGER_BIN=%s does not exist", p)
	}
	if ci, _ := strconv.ParseBool(os.Getenv("CI")); ci {
		t.Fatal("Alertmanager is not installed and CI is set: " + how + ".")
	}
	t.Skip("Alertmanager is not installed (skipped; CI=true makes this a failure): " + how + ".")
	return ""
}

// startAlertmanager runs Alertmanager with one webhook receiver (bearer
// token, send_resolved) pointing at url, small group_wait/group_interval,
// and clustering off. It returns its API base URL.
func startAlertmanager(t *testing.T, webhookURL, token string) string {
	t.Helper()
	bin := alertmanagerBinary(t)
	dir := t.TempDir()
	cfg := fmt.Sprintf(`
route:
  receiver: autoheal
  group_by: [alertname, namespace]
  group_wait: 1s
  group_interval: 2s
  repeat_interval: 1h
receivers:
  - name: autoheal
    webhook_configs:
      - url: %s
        send_resolved: true
        max_alerts: 100
        http_config:
          authorization:
            type: Bearer
            credentials_file: %s
`, webhookURL, filepath.Join(dir, "token"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "token"), []byte(token), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "alertmanager.yml"), []byte(cfg), 0o600))
	addr := freeAddr(t)
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "alertmanager.yml"), "--storage.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--cluster.listen-address=", "--log.level=debug")
	logs := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	require.NoError(t, cmd.Start())
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
		if t.Failed() {
			t.Logf("alertmanager logs (last 8 KiB):\n%s", tail(logs.String(), 8<<10))
		}
	})
	base := "http://" + addr
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(base + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		select {
		case <-done:
			t.Fatalf("alertmanager exited:\n%s", logs.String())
		default:
		}
		require.True(t, time.Now().Before(deadline), "alertmanager did not become ready:\n%s", logs.String())
		time.Sleep(100 * time.Millisecond)
	}
}

// postAlerts sends alerts to Alertmanager's API as Prometheus does.
func postAlerts(t *testing.T, base string, alerts []map[string]any) {
	t.Helper()
	b, err := json.Marshal(alerts)
	require.NoError(t, err)
	resp, err := http.Post(base+"/api/v2/alerts", "application/json", bytes.NewReader(b))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

// A real Alertmanager groups alerts posted to its API and delivers them to
// the bot's webhook with a bearer token; each incident opens a thread that
// is investigated, and the resolution (send_resolved) updates it.
func TestAlertmanagerEndToEnd(t *testing.T) {
	alertmanagerBinary(t) // skips (or fails in CI) before anything starts
	c := newReplicaCluster(t, "checkout-fails-payment-typeerror", 0, nil)
	c.start(t, 1)
	am := startAlertmanager(t, "http://"+c.procs[0].addr+alerts.Path, replicaToken)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	scen, err := alerts.Decode(c.scen.Trigger.Alert)
	require.NoError(t, err)
	base := scen.Alerts[0]
	startsAt := time.Now().Add(-10 * time.Minute).UTC()
	mk := func(name, service string, endsAt time.Time) map[string]any {
		labels := map[string]string{}
		for k, v := range base.Labels {
			labels[k] = v
		}
		labels["alertname"], labels["service"] = name, service
		a := map[string]any{"labels": labels, "annotations": map[string]string(base.Annotations),
			"startsAt": startsAt.Format(time.RFC3339Nano), "generatorURL": base.GeneratorURL}
		if !endsAt.IsZero() {
			a["endsAt"] = endsAt.Format(time.RFC3339Nano)
		}
		return a
	}
	// Two alert groups (group_by alertname), one incident each; the
	// second group holds two alerts of one incident (two pods).
	podA, podB := mk("PaymentErrors", "payment", time.Time{}), mk("PaymentErrors", "payment", time.Time{})
	podA["labels"].(map[string]string)["pod"] = "payment-5d8f7c9b4-aaaaa"
	podB["labels"].(map[string]string)["pod"] = "payment-5d8f7c9b4-bbbbb"
	firing := []map[string]any{mk("CheckoutErrorRateHigh", "checkout", time.Time{}), podA, podB}
	postAlerts(t, am, firing)

	keys := map[string]string{}
	for _, a := range firing {
		labels := a["labels"].(map[string]string)
		keys[labels["alertname"]] = alerts.IssueKey(labels)
	}
	require.Len(t, keys, 2)
	incs := map[string]sessions.Incident{}
	for name, key := range keys {
		waitFor(t, ctx, "the thread and result of "+name, func() bool {
			inc, err := c.store.GetIncident(ctx, key)
			if err != nil || inc.RootTS == "" {
				return false
			}
			incs[name] = inc
			_, err = c.store.GetResult(ctx, bot.AlertInvestigationJobID(key, inc.LastInvestigatedAt))
			return err == nil
		})
		root, ok := c.sim.Message(replicaChannel, incs[name].RootTS)
		require.True(t, ok)
		assert.Contains(t, root.Text, "[FIRING] "+name)
		thread := c.sim.Thread(replicaChannel, incs[name].RootTS)
		require.Greater(t, len(thread), 1)
		assert.True(t, strings.HasPrefix(thread[1].Text, "Root cause"), thread[1].Text)
	}
	payment, _ := c.sim.Message(replicaChannel, incs["PaymentErrors"].RootTS)
	assert.Contains(t, string(payment.Blocks), "(2 alerts in this incident)", "Alertmanager grouped both pods into one notification")

	// Resolve them: endsAt in the past; Alertmanager notifies the resolution.
	ended := time.Now().Add(-time.Second).UTC()
	var resolved []map[string]any
	for _, a := range firing {
		a["endsAt"] = ended.Format(time.RFC3339Nano)
		resolved = append(resolved, a)
	}
	postAlerts(t, am, resolved)
	for name, key := range keys {
		waitFor(t, ctx, name+" to resolve", func() bool {
			inc, err := c.store.GetIncident(ctx, key)
			return err == nil && inc.Status == sessions.IncidentResolved
		})
		waitFor(t, ctx, "the thread of "+name+" to say resolved", func() bool {
			for _, m := range c.sim.Thread(replicaChannel, incs[name].RootTS) {
				if strings.HasPrefix(m.Text, name+" resolved after") {
					return true
				}
			}
			return false
		})
		root, _ := c.sim.Message(replicaChannel, incs[name].RootTS)
		assert.Contains(t, root.Text, "[RESOLVED] "+name)
		assert.Contains(t, string(root.Blocks), "Lasted 10m", "the time it took")
	}
	logs := c.procs[0].logs.String()
	assert.NotContains(t, logs, replicaToken, "the webhook token is never logged")
	assert.NotContains(t, logs, "webhook request refused", "Alertmanager authenticated with the bearer token")
	sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer scancel()
	require.NoError(t, c.procs[0].stop(sctx))
}

// The example receiver configuration is valid for Alertmanager (amtool
// check-config) and points at the webhook's path. The chart's copy is the
// one source; alerts/example-alertmanager.yaml links to it.
func TestExampleAlertmanagerConfig(t *testing.T) {
	bin := alertmanagerBinary(t)
	amtool := filepath.Join(filepath.Dir(bin), "amtool")
	if _, err := os.Stat(amtool); err != nil {
		p, lerr := exec.LookPath("amtool")
		require.NoError(t, lerr, "amtool (shipped with prometheus-alertmanager) is needed to check the example")
		amtool = p
	}
	example := filepath.Join("..", "..", "deploy", "helm", "autoheal", "examples", "alertmanager.yaml")
	link, err := os.ReadFile(filepath.Join("..", "..", "alerts", "example-alertmanager.yaml"))
	require.NoError(t, err)
	chart, err := os.ReadFile(example)
	require.NoError(t, err)
	require.Equal(t, string(chart), string(link), "alerts/example-alertmanager.yaml is the chart's example (a link to it), not a second version")
	out, err := exec.Command(amtool, "check-config", example).CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "SUCCESS")
	raw, err := os.ReadFile(example)
	require.NoError(t, err)
	assert.Contains(t, string(raw), alerts.Path)
	assert.Contains(t, string(raw), "send_resolved: true")
}
