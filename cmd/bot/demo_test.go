package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/alerts"
	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/scenario"
	ghsim "github.com/autoheal/autoheal/sim/github"
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
	assert.Equal(t, 2, methods["slack socket_mode.send"], "the mention, then the approver's click on Approve")
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
	// --approve=false: no click, so that the transcript shows no Socket Mode delivery at all.
	err := runDemo(ctx, []string{"--scenario", "../../testdata/examples/cart-oomkilled-low-limit", "--transcript", tr, "--approve=false"}, &stdout, &stderr)
	require.NoError(t, err, stderr.String())
	out := stdout.String()
	assert.Contains(t, stderr.String(), "Alertmanager posts the alert to http://127.0.0.1:")
	assert.Contains(t, out, "[FIRING]* KubePodCrashLooping")
	assert.Contains(t, out, "[FIRING]* KubeContainerOOMKilled")
	assert.Equal(t, 2, strings.Count(out, "#incidents · thread"), "one thread per incident (issue key)")
	assert.Equal(t, 2, strings.Count(out, "\n  Root cause"), "each incident investigated once")
	assert.Equal(t, 2, strings.Count(out, "Root cause: Out of memory in cart (cart.yaml:58) · "), "each alert root shows its outcome")
	assert.NotContains(t, out, "AutoHeal is investigating", "no root still says investigating once the result is posted")
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

// demoPR is what a test sees of the GitHub simulator after the demo.
type demoPR struct {
	PRs       []ghsim.PullRequest
	Branches  []string
	Base, New []byte // src/payment/charge.js on the base and the head branch
}

// runDemoForTest runs the demo on a scenario with planted tokens and returns
// its output and the GitHub simulator's pull requests.
func runDemoForTest(t *testing.T, scen, githubToken string, args ...string) (string, string, demoPR, error) {
	t.Helper()
	t.Setenv("REDIS_URL", "") // the embedded Redis
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("AUTOHEAL_ENCRYPTION_KEY", "")
	var stdout, stderr bytes.Buffer
	var got demoPR
	hooks := demoHooks{GitHubToken: githubToken, Inspect: func(b *harness.Backends) {
		owner, name, _ := strings.Cut(b.Scenario.Config["repo"], "/")
		got.PRs, _ = b.GitHub.PullRequests(owner, name)
		got.Branches, _ = b.GitHub.Branches(owner, name)
		if len(got.PRs) == 1 {
			got.Base, _ = b.GitHub.FileAt(owner, name, got.PRs[0].Base, "src/payment/charge.js")
			got.New, _ = b.GitHub.FileAt(owner, name, got.PRs[0].Head, "src/payment/charge.js")
		}
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := demo(ctx, append([]string{"--scenario", "../../testdata/examples/" + scen}, args...), &stdout, &stderr, hooks)
	return stdout.String(), stderr.String(), got, err
}

// By default the demo goes on past the buttons: the approver clicks
// Approve through the Slack simulator (block_actions over Socket Mode), the
// bot opens exactly one pull request on the GitHub simulator, and a re-fire
// of the alert lands in the same thread and converges on that pull request.
func TestDemoApprovesThePullRequestAndConvergesOnRefire(t *testing.T) {
	const githubToken = "ghp_PLANTEDdemoTOKEN0123456789abcdefXYZ"
	const webhookToken = "whk-PLANTED-demo-token-0123456789"
	t.Setenv("AUTOHEAL_WEBHOOK_TOKEN", webhookToken)
	tr := filepath.Join(t.TempDir(), "transcript.jsonl")
	out, errOut, gh, err := runDemoForTest(t, "checkout-fails-payment-typeerror", githubToken, "--transcript", tr)
	require.NoError(t, err, errOut)

	// Exactly one pull request, changing charge.js, after the re-fire too.
	require.Len(t, gh.PRs, 1, "one pull request, and the re-fire opened no second one")
	pr := gh.PRs[0]
	assert.Equal(t, "open", pr.State)
	assert.Equal(t, "main", pr.Base)
	assert.True(t, strings.HasPrefix(pr.Head, "autoheal/"), pr.Head)
	var autoheal []string
	for _, b := range gh.Branches {
		if strings.HasPrefix(b, "autoheal/") {
			autoheal = append(autoheal, b)
		}
	}
	assert.Equal(t, []string{pr.Head}, autoheal, "one branch pushed")
	require.NotEmpty(t, gh.New)
	assert.NotEqual(t, string(gh.Base), string(gh.New), "the pull request changes src/payment/charge.js")
	assert.Contains(t, string(gh.New), "if (request.shippingCost) {")
	require.Len(t, pr.Comments, 1, "the re-fire commented on the pull request")
	assert.Contains(t, pr.Comments[0].Body, "fired again (fire #2)")
	assert.Contains(t, pr.Comments[0].Body, "No new investigation ran for this fire, so there is no new evidence. This pull request is unchanged.")
	assert.NotContains(t, pr.Comments[0].Body, "The new investigation")

	// What the demo printed: the click, the thread with the PR link, the
	// pull request and its diff, the re-fire in the same thread.
	approval := out[strings.Index(out, "══ Approval"):]
	assert.Contains(t, approval, "lead clicks [ Approve ]")
	assert.Contains(t, approval, "block_actions payload over the bot's Socket Mode connection")
	// Links name the GitHub simulator, where they resolve, not github.com.
	assert.Regexp(t, `Approved by @lead — pull request: acme/astronomy-shop#1 \(http://127\.0\.0\.1:\d+/acme/astronomy-shop/pull/1\)`, approval)
	assert.NotContains(t, approval, "https://github.com/acme")
	// One reply in the thread links the pull request.
	assert.Equal(t, 1, strings.Count(approval, "Pull request opened: #1 "+pr.Title+" (http://127.0.0.1:"), "one link reply")
	assert.Contains(t, approval, "#1  "+pr.Title)
	assert.Contains(t, approval, "branches "+pr.Head)
	assert.Contains(t, approval, "## AutoHeal fix")
	assert.Contains(t, approval, "+++ b/src/payment/charge.js")
	assert.Contains(t, approval, "+  if (request.shippingCost) {")
	assert.Contains(t, approval, "2 fires, the same thread")
	assert.Contains(t, approval, "fired again (2 times)")
	// The re-fire came within the cooldown: nothing new was investigated, and nothing says otherwise.
	assert.Regexp(t, `Fired again; no new investigation ran for this fire, so there is no new evidence and pull request #1 is unchanged: http://127\.0\.0\.1:\d+/acme/astronomy-shop/pull/1`, approval)
	assert.NotContains(t, approval, "new investigation proposes")
	assert.NotContains(t, approval, "still applies")
	assert.Contains(t, approval, "still has exactly one pull request")
	assert.Contains(t, approval, "no second pull request was opened")

	// The click went over Socket Mode as a block_actions payload.
	raw, err := os.ReadFile(tr)
	require.NoError(t, err)
	clicks := 0
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.Contains(line, `"socket_mode.send"`) && strings.Contains(line, `block_actions`) && strings.Contains(line, `autoheal_approve`) {
			clicks++
		}
	}
	assert.Equal(t, 1, clicks, "one Approve click delivered over Socket Mode")

	// No planted token anywhere it could leak to.
	for _, secret := range []string{githubToken, webhookToken, "xoxb-", "xapp-"} {
		assert.NotContains(t, out+errOut, secret)
		assert.NotContains(t, pr.Title+pr.Body, secret)
		for _, c := range pr.Comments {
			assert.NotContains(t, c.Body, secret)
		}
	}
}

// --approve=false stops at the buttons: no click, no pull request.
func TestDemoApproveFalseStopsAtTheButtons(t *testing.T) {
	t.Setenv("AUTOHEAL_WEBHOOK_TOKEN", "")
	out, errOut, gh, err := runDemoForTest(t, "checkout-fails-payment-typeerror", "", "--approve=false")
	require.NoError(t, err, errOut)
	assert.Contains(t, out, "[ Approve ]  [ Reject ]  [ View patch ]")
	assert.NotContains(t, out, "══ Approval")
	assert.Empty(t, gh.PRs, "no pull request without a click")
}

// A result whose fix is not a repository change has no Approve: the demo
// says why instead of failing.
func TestDemoExplainsWhyThereIsNoApprove(t *testing.T) {
	t.Setenv("REDIS_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("AUTOHEAL_ENCRYPTION_KEY", "")
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var prs []ghsim.PullRequest
	hooks := demoHooks{Inspect: func(b *harness.Backends) {
		if b.GitHub != nil {
			owner, name, _ := strings.Cut(b.Scenario.Config["repo"], "/")
			prs, _ = b.GitHub.PullRequests(owner, name)
		}
	}}
	err := demo(ctx, []string{"--scenario", "../../testdata/scenarios/basket-pricing-null-unit-price-skus"}, &stdout, &stderr, hooks)
	require.NoError(t, err, stderr.String())
	out := stdout.String()
	assert.Contains(t, out, "the thread: no [ Approve ] to click — No PR: bad data is fixed with a remediation, not a code change.")
	assert.Contains(t, out, "Nothing to approve")
	assert.NotContains(t, out, "lead clicks")
	assert.Empty(t, prs)
}

// The demo fails when a token reaches its output, and never names it.
func TestDemoSecretCheckFailsOnALeak(t *testing.T) {
	const token = "ghp_PLANTEDleak0123456789abcdef"
	p := &printedText{}
	var out bytes.Buffer
	_, _ = p.tee(&out).Write([]byte("a line with " + token + "\n"))
	err := demoRun{Printed: p, Secrets: []string{token}}.checkSecrets(context.Background(), io.Discard)
	require.ErrorContains(t, err, "secret leak: the GitHub simulator token")
	assert.NotContains(t, err.Error(), token)
	require.NoError(t, demoRun{Printed: &printedText{}, Secrets: []string{token}}.checkSecrets(context.Background(), io.Discard))
}

// Investigations of one process share MCP connections, but none may close
// another's: a demo run that has finished (its bot stopped, its connections
// closed) leaves later and concurrent runs with a working Kubernetes
// capability.
func TestDemoRunsDoNotCloseEachOthersMCPConnections(t *testing.T) {
	t.Setenv("REDIS_URL", "") // the embedded Redis
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("AUTOHEAL_ENCRYPTION_KEY", "")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	demo := func(scenarioDir string) (string, error) {
		var stdout, stderr bytes.Buffer
		err := runDemo(ctx, []string{"--scenario", scenarioDir, "--approve=false"}, &stdout, &stderr)
		if err != nil {
			return "", fmt.Errorf("%w: %s", err, stderr.String())
		}
		return stdout.String(), nil
	}
	checkK8s := func(name, out string) {
		t.Helper()
		assert.False(t, strings.Contains(out, "mcp client closed"), "%s: the Kubernetes capability lost its connection", name)
		assert.True(t, strings.Contains(out, "k8s_workload_status"), "%s: the Kubernetes capability answered", name)
	}

	out, err := demo("../../testdata/examples/checkout-fails-payment-typeerror")
	require.NoError(t, err)
	checkK8s("first run", out)

	// Two more, at once, after the first has closed everything it owned.
	dirs := []string{"../../testdata/examples/checkout-fails-payment-typeerror", "../../testdata/examples/ad-npe-missing-context"}
	outs := make([]string, len(dirs))
	errs := make([]error, len(dirs))
	var wg sync.WaitGroup
	for i, d := range dirs {
		wg.Add(1)
		go func() { defer wg.Done(); outs[i], errs[i] = demo(d) }()
	}
	wg.Wait()
	for i := range dirs {
		require.NoError(t, errs[i])
		checkK8s(filepath.Base(dirs[i]), outs[i])
	}
}
