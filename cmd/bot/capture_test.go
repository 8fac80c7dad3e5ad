package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/bot"
	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sessions"
)

const examplesDir = "../../testdata/examples"

// liveIncident investigates an example against its simulators as the bot
// would (the environment points at them, as at production, plus env), and keeps
// the result in Redis like a Slack job, with people's decision (empty:
// none). It returns the job id and the live result.
func liveIncident(t *testing.T, ctx context.Context, dir, decision string, env map[string]string) (*scenario.Scenario, string, investigate.Issue, *investigate.HealResult) {
	t.Helper()
	s, _, _ := scenarioEnv(t, dir)
	for k, v := range env {
		t.Setenv(k, v)
	}
	_, both := testRedis(t)
	url, prefix, _ := strings.Cut(both, "|")
	t.Setenv("REDIS_URL", url)
	t.Setenv("AUTOHEAL_REDIS_PREFIX", prefix)
	issue, err := harness.Issue(s)
	require.NoError(t, err)
	issue = issueFromConfig(issue, envConfig())
	live, err := investigateBackends(ctx, envConfig(), issue, time.Minute, nil, nil)
	require.NoError(t, err)
	store, closeStore, err := storeFromEnv(ctx)
	require.NoError(t, err)
	defer closeStore()
	var b [6]byte
	_, _ = rand.Read(b[:])
	jobID := "m-Ev" + hex.EncodeToString(b[:])
	require.NoError(t, bot.SaveResult(ctx, store, jobID, issue, live))
	rc := live.RootCause
	require.NoError(t, store.Remember(ctx, sessions.MemoryRecord{ID: jobID, IssueKey: issue.Key, Channel: "C0INCIDENTS", ThreadTS: "1764606240.001200",
		At: time.Now(), Service: rc.Service, Bucket: string(rc.Bucket), ErrorType: string(rc.ErrorType), File: rc.File, Line: rc.Line,
		Band: string(rc.Band), Fingerprint: "fp-" + jobID, Decision: decision, By: "U0APPROVER"}))
	return s, jobID, issue, live
}

func runCaptureArgs(t *testing.T, ctx context.Context, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	err = runCapture(ctx, args, &out, &errb)
	return out.String(), errb.String(), err
}

// replayRootCause loads a capture and investigates it through the
// simulators, as bot eval does.
func replayRootCause(t *testing.T, ctx context.Context, dir string) investigate.RootCause {
	t.Helper()
	s, err := scenario.Load(dir)
	require.NoError(t, err)
	res, err := harness.Run(ctx, s, harness.RunOptions{})
	require.NoError(t, err)
	return res.RootCause
}

func evalSummary(t *testing.T, ctx context.Context, dir string) harness.Summary {
	t.Helper()
	var out, errb bytes.Buffer
	require.NoError(t, runEval(ctx, []string{"--json", "--no-llm", dir}, &out, &errb), errb.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var sum harness.Summary
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &sum), out.String())
	return sum
}

func assertSameRootCause(t *testing.T, want, got investigate.RootCause) {
	t.Helper()
	assert.Equal(t, want.Service, got.Service, "service")
	assert.Equal(t, want.File, got.File, "file")
	assert.Equal(t, want.Line, got.Line, "line")
	assert.Equal(t, want.Bucket, got.Bucket, "bucket")
	assert.Equal(t, want.Band, got.Band, "band")
	assert.Equal(t, want.ErrorType, got.ErrorType, "error type")
}

// A live incident, kept like a Slack investigation and captured by its
// job id, issue key or thread, replays through bot eval to the root cause
// the live run gave; an approved fix makes that root cause the truth,
// otherwise the truth is left to a human and eval reports no truth.
func TestCaptureReplaysTheLiveRootCause(t *testing.T) {
	cases := []struct {
		example, by, decision string
		env                   map[string]string
	}{
		{example: "ad-npe-missing-context", by: "job", decision: "approved"},
		{example: "cart-oomkilled-low-limit", by: "issue key"},
		{example: "checkout-fails-payment-typeerror", by: "thread", decision: "rejected"},
		// Jaeger's api_v3 answers OTLP; the capture holds the v1 form.
		{example: "ad-npe-missing-context", by: "job", env: map[string]string{"JAEGER_API": "v3"}},
	}
	for _, tc := range cases {
		t.Run(tc.example+" by "+tc.by+" "+tc.decision, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			s, jobID, issue, live := liveIncident(t, ctx, filepath.Join(examplesDir, tc.example), tc.decision, tc.env)
			require.Equal(t, s.Truth.Service, live.RootCause.Service, "the live run itself is right")
			key := map[string]string{"job": jobID, "issue key": issue.Key, "thread": "C0INCIDENTS/1764606240.001200"}[tc.by]
			require.NotEmpty(t, key)
			out := filepath.Join(t.TempDir(), "captured")
			stdout, stderr, err := runCaptureArgs(t, ctx, key, "--out", out)
			require.NoError(t, err, stderr)
			assert.Contains(t, stdout, "Same root cause as the live run")
			assert.NotContains(t, stderr, "not captured")

			assertSameRootCause(t, live.RootCause, replayRootCause(t, ctx, out))
			sum := evalSummary(t, ctx, out)
			c, err := scenario.Load(out)
			require.NoError(t, err)
			assert.Equal(t, s.Now, c.Now)
			assert.True(t, c.Start.IsZero(), "the window comes from the trigger, as in the live run")
			if tc.decision == "approved" {
				assert.True(t, c.Truth.Scored())
				assert.Equal(t, harness.Summary{Total: 1, RCCorrect: 1, BucketCorrect: 1, ServiceCorrect: 1, LocationCorrect: 1, LocationTotal: 1,
					ErrorType: 1, ToolCallsMedian: sum.ToolCallsMedian, WallMsMedian: sum.WallMsMedian}, sum)
			} else {
				assert.False(t, c.Truth.Scored())
				assert.Contains(t, c.Truth.Todo, map[string]string{"rejected": "rejected", "": "no human verdict"}[tc.decision])
				assert.Equal(t, 1, sum.NoTruth)
				assert.Zero(t, sum.Total)
			}
			if issue.Trigger == investigate.TriggerAlert {
				require.True(t, c.Trigger.IsAlert())
				replayed, err := harness.Issue(c)
				require.NoError(t, err)
				assert.Equal(t, issue.Text, replayed.Text, "the rebuilt alert reads as the live one")
				assert.Equal(t, issue.Key, replayed.Key)
			}
			if tc.env["JAEGER_API"] == "v3" {
				assert.Equal(t, "v3", c.Config["jaeger_api"])
			}
			for _, k := range []string{"jaeger_url", "loki_url", "prometheus_url", "github_api_url", "k8s_mcp_url", "github_token"} {
				assert.NotContains(t, c.Config, k, "URLs and secrets are the simulators' at replay")
			}
			readme, err := os.ReadFile(filepath.Join(out, "README.md"))
			require.NoError(t, err)
			assert.Contains(t, string(readme), jobID)
		})
	}
}

// A window on the command line (no Redis): the capture replays to the
// same root cause, and a start the trigger does not imply is written.
func TestCaptureWindowFromTheCommandLine(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, _, until := scenarioEnv(t, filepath.Join(examplesDir, "checkout-fails-payment-typeerror"))
	t.Setenv("REDIS_URL", "redis://127.0.0.1:1/0") // never needed for a window
	since := s.Now.Add(-2 * time.Hour).Format(time.RFC3339)
	text := "checkout is failing, customers get errors on PlaceOrder"
	var out, errb bytes.Buffer
	require.NoError(t, runInvestigate(ctx, []string{"--json", "--since", since, "--until", until, text}, &out, &errb), errb.String())
	var live investigate.HealResult
	require.NoError(t, json.Unmarshal(out.Bytes(), &live))

	dir := t.TempDir()
	stdout, stderr, err := runCaptureArgs(t, ctx, "--since", since, "--until", until, "--text", text, "--out", dir, "--force")
	require.NoError(t, err, stderr)
	assert.Contains(t, stdout, "Same root cause as the live run")
	assert.Contains(t, stderr, "capture: recording the investigation", "plain progress lines when stderr is no terminal")
	assert.NotContains(t, stderr, "\r", "no bar redrawn off a terminal")
	c, err := scenario.Load(dir)
	require.NoError(t, err)
	assert.Equal(t, since, c.Start.UTC().Format(time.RFC3339), "an explicit window start is kept")
	assert.Equal(t, text, c.Trigger.Mention)
	assert.False(t, c.Truth.Scored(), "no verdict from the command line")
	assertSameRootCause(t, live.RootCause, replayRootCause(t, ctx, dir))
	for _, f := range []string{"traces.json", "logs.json", "metrics.json", "k8s.json", "changes.json", "README.md", "scenario.yaml"} {
		assert.FileExists(t, filepath.Join(dir, f))
	}
	assert.FileExists(t, filepath.Join(dir, "repo", "src", "payment", "charge.js"))

	// The default name: the service blamed and the window's end.
	wd, err := os.Getwd()
	require.NoError(t, err)
	tmp := t.TempDir()
	require.NoError(t, os.Chdir(tmp))
	t.Cleanup(func() { _ = os.Chdir(wd) })
	_, stderr, err = runCaptureArgs(t, ctx, "--since", since, "--until", until, "--text", text, "--no-verify")
	require.NoError(t, err, stderr)
	assert.DirExists(t, filepath.Join(tmp, "capture-payment-"+s.Now.UTC().Format("20060102-1504")))
}

// Secrets planted in every backend never reach the capture, while the
// lines, tags and files that held them are kept with the secret masked.
func TestCaptureKeepsNoSecret(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	src := filepath.Join(t.TempDir(), "ad")
	require.NoError(t, os.CopyFS(src, os.DirFS(filepath.Join(examplesDir, "ad-npe-missing-context"))))
	planted := plantSecrets(t, src)
	s, since, until := scenarioEnv(t, src)
	t.Setenv("JAEGER_TOKEN", planted.configured)

	dir := t.TempDir()
	_, stderr, err := runCaptureArgs(t, ctx, "--since", since, "--until", until, "--text", s.Trigger.Mention, "--out", dir, "--force")
	require.NoError(t, err, stderr)
	all := readTree(t, dir)
	for _, secret := range planted.values {
		assert.NotContains(t, all, secret)
	}
	assert.NotContains(t, stderr, planted.configured)
	// What held them was read, and kept masked.
	assert.Contains(t, all, "PLANTED db connect failed")
	assert.Contains(t, all, "http.request.header.authorization")
	java, err := os.ReadFile(filepath.Join(dir, "repo", "src/ad/src/main/java/com/acme/shop/ad/AdService.java"))
	require.NoError(t, err)
	orig, err := os.ReadFile(filepath.Join(src, "repo", "src/ad/src/main/java/com/acme/shop/ad/AdService.java"))
	require.NoError(t, err)
	assert.Equal(t, strings.Count(string(orig), "\n"), strings.Count(string(java), "\n"), "masking never moves a line")
	assert.Contains(t, string(java), "[REDACTED]")
}

type plantedSecrets struct {
	configured string
	values     []string
}

// plantSecrets adds credentials to a scenario's backends: a log line, span
// tags and an exception, a source file (after its last line, so no line
// moves), a Deployment's env and a Kubernetes Secret.
func plantSecrets(t *testing.T, dir string) plantedSecrets {
	t.Helper()
	p := plantedSecrets{configured: "planted-jaeger-token-7f3a9c21"}
	ghToken := "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
	urlPassword := "Sup3rS3cretPw"
	bearer := "planted-bearer-token-0xDEADBEEF"
	aws := "AKIAZ7QPLANTED23XY4Q"
	javaPassword := "PlantedPassw0rd!"
	envPassword := "planted-env-password-42"
	k8sSecret := "planted-k8s-secret-value"
	p.values = []string{ghToken, urlPassword, bearer, aws, javaPassword, envPassword, k8sSecret, p.configured}

	edit := func(name string, f func(v map[string]any)) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		var v map[string]any
		require.NoError(t, json.Unmarshal(b, &v))
		f(v)
		b, err = json.Marshal(v)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	}
	edit("logs.json", func(v map[string]any) {
		for _, st := range v["streams"].([]any) {
			m := st.(map[string]any)
			if m["stream"].(map[string]any)["service_name"] != "ad" {
				continue
			}
			vals := m["values"].([]any)
			last := vals[len(vals)-1].([]any)
			m["values"] = append(vals,
				[]any{last[0], "ERROR PLANTED db connect failed url=postgres://admin:" + urlPassword + "@db:5432/ads token=" + ghToken},
				[]any{last[0], "WARN retrying with the jaeger token " + p.configured})
			break
		}
	})
	edit("traces.json", func(v map[string]any) {
		for _, tr := range v["data"].([]any) {
			for _, sp := range tr.(map[string]any)["spans"].([]any) {
				m := sp.(map[string]any)
				m["tags"] = append(m["tags"].([]any),
					map[string]any{"key": "http.request.header.authorization", "type": "string", "value": "Bearer " + bearer},
					map[string]any{"key": "aws.key", "type": "string", "value": "key " + aws + " refused"})
			}
		}
	})
	edit("k8s.json", func(v map[string]any) {
		items := v["items"].([]any)
		for _, it := range items {
			m := it.(map[string]any)
			if m["kind"] != "Deployment" {
				continue
			}
			spec := m["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
			for _, c := range spec["containers"].([]any) {
				cm := c.(map[string]any)
				env, _ := cm["env"].([]any)
				cm["env"] = append(env, map[string]any{"name": "DB_PASSWORD", "value": envPassword})
			}
		}
		v["items"] = append(items, map[string]any{"apiVersion": "v1", "kind": "Secret",
			"metadata": map[string]any{"name": "ad-db", "namespace": "astronomy-shop"}, "type": "Opaque",
			"stringData": map[string]any{"DB_PASSWORD": k8sSecret}})
	})
	java := filepath.Join(dir, "repo", "src/ad/src/main/java/com/acme/shop/ad/AdService.java")
	b, err := os.ReadFile(java)
	require.NoError(t, err)
	b = append(b, []byte("// local testing: String password = \""+javaPassword+"\"; token "+ghToken+"\n")...)
	require.NoError(t, os.WriteFile(java, b, 0o644))
	return p
}

func readTree(t *testing.T, dir string) string {
	t.Helper()
	var all strings.Builder
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		all.Write(b)
		return err
	}))
	return all.String()
}

// Size limits hold per file and in total; what was cut is said in the
// README, failing traces are kept first, and the capture still loads and
// runs.
func TestCaptureSizeLimits(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, since, until := scenarioEnv(t, filepath.Join(examplesDir, "checkout-fails-payment-typeerror"))
	dir := t.TempDir()
	stdout, stderr, err := runCaptureArgs(t, ctx, "--since", since, "--until", until, "--text", "checkout is failing",
		"--out", dir, "--force", "--max-file", "48KiB", "--max-total", "150KiB")
	require.NoError(t, err, stderr)
	assert.Contains(t, stdout, "cut at the size limit")
	var total int64
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		total += info.Size()
		if strings.HasSuffix(p, ".json") {
			assert.LessOrEqual(t, info.Size(), int64(48<<10), p)
		}
		return nil
	}))
	assert.LessOrEqual(t, total, int64(150<<10))
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	assert.Contains(t, string(readme), "cut to fit the size limits")
	assert.Contains(t, string(readme), "failing traces first")

	c, err := scenario.Load(dir)
	require.NoError(t, err)
	require.NotNil(t, c.Traces)
	require.NotEmpty(t, c.Traces.Data)
	assert.Less(t, len(c.Traces.Data), len(s.Traces.Data))
	failed := func(tr scenario.Trace) bool {
		for _, sp := range tr.Spans {
			for _, kv := range sp.Tags {
				if kv.Key == "otel.status_code" && kv.Value == "ERROR" || kv.Key == "error" && kv.Value == true {
					return true
				}
			}
		}
		return false
	}
	assert.True(t, failed(c.Traces.Data[0]), "failing traces are kept first")
	_, err = harness.Run(ctx, c, harness.RunOptions{})
	require.NoError(t, err)
}

// Bad input gets a clear error; a backend that is down gives a capture
// that says what is missing.
func TestCaptureBadInput(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	_, since, until := scenarioEnv(t, filepath.Join(examplesDir, "ad-npe-missing-context"))

	t.Run("usage", func(t *testing.T) {
		for args, want := range map[string]string{
			"m-1 --since 2h":                       "give a KEY or a window",
			"":                                     "give a KEY (job id, issue key or thread) or a window",
			"--since 2h":                           "needs --service or --text",
			"--since 2h --service ad --max-file 0": "--max-file \"0\": want a positive size",
			"--since 2h --service ad --name Bad_Name": "--name \"Bad_Name\" must match",
			"a b": "one KEY at most",
		} {
			_, _, err := runCaptureArgs(t, ctx, strings.Fields(args)...)
			require.ErrorIs(t, err, errUsage, args)
			assert.Contains(t, err.Error(), want, args)
		}
	})
	t.Run("unknown key", func(t *testing.T) {
		_, both := testRedis(t)
		url, prefix, _ := strings.Cut(both, "|")
		t.Setenv("REDIS_URL", url)
		t.Setenv("AUTOHEAL_REDIS_PREFIX", prefix)
		_, _, err := runCaptureArgs(t, ctx, "m-Evnothing", "--out", t.TempDir())
		require.Error(t, err)
		assert.Contains(t, err.Error(), `no kept result for "m-Evnothing"`)
		assert.Contains(t, err.Error(), "--since")
	})
	t.Run("redis down", func(t *testing.T) {
		t.Setenv("REDIS_URL", "redis://"+closedAddr(t)+"/0")
		_, _, err := runCaptureArgs(t, ctx, "m-Ev1", "--out", t.TempDir())
		require.Error(t, err)
		assert.Contains(t, err.Error(), "serve's Redis")
		assert.Contains(t, err.Error(), "does not answer")
		assert.Contains(t, err.Error(), "bot capture --since")
	})
	t.Run("not empty", func(t *testing.T) {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644))
		_, _, err := runCaptureArgs(t, ctx, "--since", since, "--until", until, "--service", "ad", "--out", dir)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "not empty")
	})
	t.Run("backend down", func(t *testing.T) {
		t.Setenv("JAEGER_URL", "http://"+closedAddr(t))
		dir := t.TempDir()
		stdout, stderr, err := runCaptureArgs(t, ctx, "--since", since, "--until", until, "--service", "ad", "--out", dir, "--force")
		require.NoError(t, err, stderr)
		assert.Contains(t, stderr, "not captured: traces (jaeger): unreachable")
		assert.NoFileExists(t, filepath.Join(dir, "traces.json"))
		assert.FileExists(t, filepath.Join(dir, "logs.json"))
		assert.Contains(t, stdout, "traces.json")
		readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
		require.NoError(t, err)
		assert.Contains(t, string(readme), "## Not captured")
		assert.Contains(t, string(readme), "traces (jaeger)")
		_, err = scenario.Load(dir)
		require.NoError(t, err)
	})
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// The humans' verdict decides the truth: an approved fix or a merged pull
// request makes the live root cause the truth; a rejection or no verdict
// leaves a draft marked todo, holding only values the format accepts.
func TestTruthOfVerdict(t *testing.T) {
	res := &investigate.HealResult{RootCause: investigate.RootCause{Service: "payment", Bucket: investigate.BucketCodeBug,
		ErrorType: investigate.ErrNullPointer, File: "src/payment/charge.js", Line: 58, Band: investigate.BandHigh}}
	src := func(m *sessions.MemoryRecord) captureSource { return captureSource{jobID: "m-Ev1", memory: m} }

	got, note := truthOf(src(&sessions.MemoryRecord{Decision: "approved", By: "U1", PRNumber: 41, PRState: "merged"}), res)
	assert.True(t, got.Scored())
	assert.Equal(t, scenario.Truth{Bucket: "code_bug", Service: "payment", ErrorType: "null_pointer", File: "src/payment/charge.js", Line: 58}, got)
	assert.Contains(t, note, "approved by U1 (PR #41 merged)")
	got, _ = truthOf(src(&sessions.MemoryRecord{PRState: "merged"}), res)
	assert.True(t, got.Scored(), "a merged pull request is a verdict too")

	got, _ = truthOf(src(&sessions.MemoryRecord{Decision: "rejected", Reason: "the alias table is what is wrong"}), res)
	assert.False(t, got.Scored())
	assert.Contains(t, got.Todo, "rejected (the alias table is what is wrong)")
	got, _ = truthOf(src(nil), res)
	assert.Contains(t, got.Todo, "no human verdict yet")
	assert.Equal(t, "payment", got.Service, "the draft is the bot's answer")

	unknown := &investigate.HealResult{RootCause: investigate.RootCause{Service: "shadow", Bucket: investigate.BucketUnknown, ErrorType: investigate.ErrUnknown}}
	got, _ = truthOf(src(&sessions.MemoryRecord{Decision: "approved"}), unknown)
	assert.False(t, got.Scored(), "an approved unknown bucket is no truth")
	assert.Empty(t, got.Bucket)
	assert.Equal(t, "unknown", got.ErrorType)
}

// The planted-secrets corpus (40+ credentials in logs, span attributes,
// exceptions, Kubernetes objects, commits, patches, source files and alert
// annotations), investigated live and captured by its job id: no planted
// value, nor a prefix of one, is in any file of the capture or on the
// terminal. (The test's name avoids the word the planted values start
// with: the output path, printed, holds it.)
func TestCaptureOfTheSecretsCorpus(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir, planted := loadPlantedSecrets(t)
	_, jobID, _, _ := liveIncident(t, ctx, dir, "approved", nil)
	out := filepath.Join(t.TempDir(), "captured")
	stdout, stderr, err := runCaptureArgs(t, ctx, jobID, "--out", out)
	require.NoError(t, err, stderr)
	check := &leakCheck{planted: planted}
	check.add("stdout", stdout)
	check.add("stderr", stderr)
	require.NoError(t, filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		check.add(strings.TrimPrefix(p, out+"/"), string(b))
		return err
	}))
	for _, f := range []string{"traces.json", "logs.json", "k8s.json", "changes.json", "scenario.yaml"} {
		require.Contains(t, check.outputs, f, "the capture holds %s", f)
	}
	check.assertNoLeak(t)
}
