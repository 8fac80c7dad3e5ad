package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/llm"
	"github.com/autoheal/autoheal/scenario"
	oaisim "github.com/autoheal/autoheal/sim/openai"
)

const (
	adFile   = "src/ad/src/main/java/com/acme/shop/ad/AdService.java"
	cartYAML = "deploy/k8s/cart.yaml"
	// geofence: OOM kills after a change that caches without bound.
	geofence       = "../../testdata/scenarios/geofence-unbounded-cache-oomkilled"
	geofenceValues = "deploy/geofence-svc/values.yaml"
)

var inv = oaisim.Investigator{}

// answer builds a final answer in the planner's schema.
func answer(service, errorType, bucket, file string, line int, confidence string, fix map[string]any) map[string]any {
	rc := map[string]any{"description": errorType + " in " + service, "service": service, "error_type": errorType, "bucket": bucket,
		"file": nil, "line": nil, "function": nil}
	if file != "" {
		rc["file"], rc["line"] = file, line
	}
	if fix == nil {
		fix = map[string]any{}
	}
	base := map[string]any{"summary": "fix it", "steps": []string{}, "patch": nil, "manifest_edit": nil, "regression_test": nil,
		"remediation": nil, "affected_records": []string{}}
	for k, v := range fix {
		base[k] = v
	}
	return map[string]any{"summary": errorType + " in " + service, "root_cause": rc, "confidence": confidence,
		"raw_confidence": 0.5, "evidence": []string{}, "fix": base}
}

// userTexts are the user messages of every answered request, in order.
func userTexts(env simEnv) []string {
	var out []string
	for _, req := range env.srv.ChatRequests() {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == "user" {
			out = append(out, string(last.Content))
		}
	}
	return out
}

func countContaining(xs []string, sub string) int {
	n := 0
	for _, x := range xs {
		if strings.Contains(x, sub) {
			n++
		}
	}
	return n
}

func toolMessages(req *oaisim.ChatRequest) []oaisim.Message {
	var out []oaisim.Message
	for _, m := range req.Messages {
		if m.Role == "tool" {
			out = append(out, m)
		}
	}
	return out
}

func receiptsOf(res *investigate.HealResult, tool string) []investigate.Receipt {
	var out []investigate.Receipt
	for _, r := range res.Timeline {
		if r.Tool == tool {
			out = append(out, r)
		}
	}
	return out
}

func TestRetryAfterIsHonouredThenTheModelAnswers(t *testing.T) {
	t.Parallel()
	env := startSim(t, oaisim.Options{Model: oaisim.NewScript(
		oaisim.Fixed(oaisim.RateLimited(1500*time.Millisecond)),
		oaisim.Fixed(oaisim.RateLimited(250*time.Millisecond)),
		inv.Reply, inv.Reply)})
	sl := &noSleep{}
	p := newPlanner(t, env, func(s *plannerSetup) { s.opts.Sleep = sl.sleep })
	res := runScenario(t, example("ad-npe-missing-context"), p)

	require.Equal(t, investigate.ModeLLM, res.Mode, res.ModeNote)
	assert.Equal(t, []time.Duration{1500 * time.Millisecond, 250 * time.Millisecond}, sl.waits, "waits are the server's retry-after-ms")
	assert.Equal(t, adFile, res.RootCause.File)
	assert.Len(t, env.srv.Requests(), 4)
}

func TestRateLimitedThroughoutFallsBackToTheDeterministicAnswer(t *testing.T) {
	t.Parallel()
	env := startSim(t, oaisim.Options{Model: oaisim.ModelFunc(func(*oaisim.ChatRequest) oaisim.Reply {
		return oaisim.RateLimited(10 * time.Millisecond)
	})})
	counters := llm.NewCounters()
	p := newPlanner(t, env, func(s *plannerSetup) { s.opts.Metrics = counters })
	res := runScenario(t, example("ad-npe-missing-context"), p)
	det := deterministic(t, example("ad-npe-missing-context"))

	assert.Equal(t, investigate.ModeDeterministic, res.Mode)
	assert.Equal(t, "LLM unavailable (429 after 3 retries): deterministic answer", res.ModeNote)
	assert.Equal(t, det.RootCause.File, res.RootCause.File)
	assert.Equal(t, det.RootCause.Band, res.RootCause.Band)
	assert.Len(t, env.srv.Requests(), 4, "one request and 3 retries")
	assert.Nil(t, res.Usage, "no tokens were spent")
	assert.Equal(t, 3.0, counters.Value(llm.MetricRetries, "model", "sim-model", "reason", "429"))
	assert.Equal(t, 1.0, counters.Value(llm.MetricRequests, "model", "sim-model", "outcome", "rate_limited"))
	assert.Equal(t, 1.0, counters.Value(llm.MetricInvestigations, "mode", "deterministic", "reason", "unavailable"))
}

func TestServerErrorsAreRetriedWithExponentialBackoff(t *testing.T) {
	t.Parallel()
	env := startSim(t, oaisim.Options{Model: oaisim.NewScript(
		oaisim.Fixed(oaisim.ServerError(http.StatusServiceUnavailable)),
		oaisim.Fixed(oaisim.ServerError(http.StatusBadGateway)),
		inv.Reply, inv.Reply)})
	sl := &noSleep{}
	p := newPlanner(t, env, func(s *plannerSetup) { s.opts.Sleep = sl.sleep })
	res := runScenario(t, example("ad-npe-missing-context"), p)

	require.Equal(t, investigate.ModeLLM, res.Mode, res.ModeNote)
	require.Len(t, sl.waits, 2)
	assert.GreaterOrEqual(t, sl.waits[0], 500*time.Millisecond)
	assert.LessOrEqual(t, sl.waits[0], 625*time.Millisecond)
	assert.GreaterOrEqual(t, sl.waits[1], time.Second, "the second wait doubles")
	assert.LessOrEqual(t, sl.waits[1], 1250*time.Millisecond)
}

func TestRetryAfterBeyondTheCapEndsRetries(t *testing.T) {
	t.Parallel()
	env := startSim(t, oaisim.Options{Model: oaisim.ModelFunc(func(*oaisim.ChatRequest) oaisim.Reply {
		return oaisim.RateLimited(2 * time.Minute)
	})})
	sl := &noSleep{}
	p := newPlanner(t, env, func(s *plannerSetup) { s.opts.Sleep = sl.sleep })
	res := runScenario(t, example("ad-npe-missing-context"), p)

	assert.Equal(t, investigate.ModeDeterministic, res.Mode)
	assert.Equal(t, "LLM unavailable (429 after 0 retries): deterministic answer", res.ModeNote)
	assert.Empty(t, sl.waits, "retrying before the server allows it would only fail again")
	assert.Len(t, env.srv.Requests(), 1)
}

func TestSlowResponsesTimeOutAndFallBack(t *testing.T) {
	t.Parallel()
	env := startSim(t, oaisim.Options{Model: oaisim.ModelFunc(func(req *oaisim.ChatRequest) oaisim.Reply {
		return oaisim.Slow(time.Minute, inv.Reply(req))
	})})
	p := newPlanner(t, env, func(s *plannerSetup) {
		s.cfg.Limits.RequestTimeout = 100 * time.Millisecond
		s.cfg.Limits.MaxRetries = 1
	})
	res := runScenario(t, example("checkout-fails-payment-typeerror"), p)

	assert.Equal(t, investigate.ModeDeterministic, res.Mode)
	assert.Equal(t, "LLM unavailable (timeout after 1 retries): deterministic answer", res.ModeNote)
	assert.Equal(t, "src/payment/charge.js", res.RootCause.File, "the deterministic answer still finds the cause")
}

func TestDeadlineEndsTheConversation(t *testing.T) {
	t.Parallel()
	env := startSim(t, oaisim.Options{Model: oaisim.ModelFunc(func(req *oaisim.ChatRequest) oaisim.Reply {
		return oaisim.Slow(time.Minute, inv.Reply(req))
	})})
	p := newPlanner(t, env, func(s *plannerSetup) { s.cfg.Limits.Deadline = 2 * time.Second })
	res := runScenario(t, example("ad-npe-missing-context"), p)

	assert.Equal(t, investigate.ModeDeterministic, res.Mode)
	assert.Equal(t, "LLM deadline (the 2s deadline was reached): deterministic answer", res.ModeNote)
	assert.Equal(t, adFile, res.RootCause.File)
}

func TestPromptTokenBudgetStopsBeforeSending(t *testing.T) {
	t.Parallel()
	env := startSim(t, oaisim.Options{Model: inv})
	p := newPlanner(t, env, func(s *plannerSetup) { s.cfg.Limits.MaxPromptTokens = 1500 })
	res := runScenario(t, example("ad-npe-missing-context"), p)

	assert.Equal(t, investigate.ModeDeterministic, res.Mode)
	assert.Contains(t, res.ModeNote, "LLM budget (the prompt-token budget of 1500 would be exceeded")
	assert.Empty(t, env.srv.Requests(), "nothing is sent past the budget")
}

func TestRejectedKeyFallsBackWithoutLeakingIt(t *testing.T) {
	t.Parallel()
	const wrongKey = "sk-proj-WrongWrongWrong0123456789abcd"
	env := startSim(t, oaisim.Options{Model: inv})
	p := newPlanner(t, env, func(s *plannerSetup) { s.cfg.APIKey = wrongKey })
	res := runScenario(t, example("ad-npe-missing-context"), p)

	assert.Equal(t, "LLM unavailable (401: the API key was rejected): deterministic answer", res.ModeNote)
	b, err := json.Marshal(res)
	require.NoError(t, err)
	assert.NotContains(t, string(b), wrongKey)
	require.Len(t, env.srv.Requests(), 1, "401 is not retried")
	assert.Empty(t, env.srv.Requests()[0].Header.Get("Authorization"), "the simulator records no credentials")
}

func TestMalformedToolCallArgumentsAreAnsweredAndCounted(t *testing.T) {
	t.Parallel()
	env := startSim(t, oaisim.Options{Model: oaisim.NewScript(
		oaisim.Fixed(oaisim.Calls(oaisim.RawCall("source_read", `{"file": "AdService.java", "line": `))),
		inv.Reply, inv.Reply)})
	counters := llm.NewCounters()
	p := newPlanner(t, env, func(s *plannerSetup) { s.opts.Metrics = counters })
	res := runScenario(t, example("ad-npe-missing-context"), p)

	require.Equal(t, investigate.ModeLLM, res.Mode, res.ModeNote)
	reqs := env.srv.ChatRequests()
	require.GreaterOrEqual(t, len(reqs), 2)
	tools := toolMessages(reqs[1])
	require.Len(t, tools, 1)
	assert.True(t, strings.HasPrefix(string(tools[0].Content), "error: the arguments of source_read are not a JSON object"), string(tools[0].Content))
	assert.Contains(t, res.ModeNote, "1 tool calls refused")
	assert.Equal(t, 1.0, counters.Value(llm.MetricToolCalls, "outcome", "bad_args"))
	assert.Equal(t, adFile, res.RootCause.File, "the investigation recovers")
}

func TestUnknownToolIsRefusedAndTheValidParallelCallRuns(t *testing.T) {
	t.Parallel()
	env := startSim(t, oaisim.Options{Model: oaisim.NewScript(
		oaisim.Fixed(oaisim.Calls(
			oaisim.Call("github_merge_pull_request", map[string]any{"number": 42}),
			oaisim.Call("source_read", map[string]any{"file": "AdService.java", "line": 137, "service": "ad"}),
			oaisim.Call("logs_query", map[string]any{"query": `{service_name="ad"} |= "NullPointerException"`,
				"start": "2026-11-30T09:30:00Z", "end": "2026-11-30T10:30:00Z"}),
		)),
		inv.Reply)})
	p := newPlanner(t, env)
	res := runScenario(t, example("ad-npe-missing-context"), p)

	require.Equal(t, investigate.ModeLLM, res.Mode, res.ModeNote)
	assert.Empty(t, receiptsOf(res, "github_merge_pull_request"), "a tool the engine does not offer never runs")
	reads, queries := plannerReceipts(res, "source_read"), receiptsOf(res, "logs_query")
	require.Len(t, reads, 1)
	require.Len(t, queries, 1)
	assert.Equal(t, "llm", reads[0].Planner)
	assert.True(t, reads[0].OK)

	reqs := env.srv.ChatRequests()
	require.Len(t, reqs, 2)
	tools := toolMessages(reqs[1])
	require.Len(t, tools, 3, "every call of the parallel turn is answered")
	assert.Contains(t, string(tools[0].Content), `error: unknown tool "github_merge_pull_request"; not executed`)
	assert.Contains(t, string(tools[1].Content), "source=source_read")
	assert.Contains(t, string(tools[2].Content), "source=logs_query")
	assert.Equal(t, investigate.BandHigh, res.RootCause.Band)
}

func TestRepeatedCallsAreNotExecutedTwice(t *testing.T) {
	t.Parallel()
	read := oaisim.Call("source_read", map[string]any{"file": "AdService.java", "line": 137, "service": "ad"})
	env := startSim(t, oaisim.Options{Model: oaisim.NewScript(
		oaisim.Fixed(oaisim.Calls(read)), oaisim.Fixed(oaisim.Calls(read)), inv.Reply)})
	p := newPlanner(t, env)
	res := runScenario(t, example("ad-npe-missing-context"), p)

	require.Equal(t, investigate.ModeLLM, res.Mode, res.ModeNote)
	assert.Len(t, plannerReceipts(res, "source_read"), 1)
	reqs := env.srv.ChatRequests()
	require.Len(t, reqs, 3)
	last := toolMessages(reqs[2])
	assert.Contains(t, string(last[len(last)-1].Content), "not executed: identical to call R")
}

func TestHallucinatedFileIsDroppedNotAnchored(t *testing.T) {
	t.Parallel()
	env := startSim(t, oaisim.Options{Model: oaisim.Replies(
		oaisim.Answer(answer("ad", "null_pointer", "code_bug", "src/ad/src/main/java/com/acme/shop/ad/AdCache.java", 12, "MEDIUM", nil)))})
	p := newPlanner(t, env)
	res := runScenario(t, example("ad-npe-missing-context"), p)

	require.Equal(t, investigate.ModeLLM, res.Mode, res.ModeNote)
	assert.Empty(t, res.RootCause.File, "a file the repository does not have is no location")
	assert.Equal(t, investigate.BandMedium, res.RootCause.Band, "traces and logs still corroborate the error type")
	assert.Contains(t, res.ModeNote, "AdCache.java:12, which could not be read (not_found): the location was dropped")
	reads := plannerReceipts(res, "source_read")
	require.Len(t, reads, 1, "the planner tried to read the named file itself")
	assert.False(t, reads[0].OK)
	assert.Nil(t, res.Fix.Patch, "no patch for an unanchored location")
}

func TestFileTheModelNeverReadIsReadByThePlannerBeforeItCounts(t *testing.T) {
	t.Parallel()
	env := startSim(t, oaisim.Options{Model: oaisim.Replies(
		oaisim.Answer(answer("ad", "null_pointer", "code_bug", "AdService.java", 137, "HIGH", nil)))})
	p := newPlanner(t, env)
	res := runScenario(t, example("ad-npe-missing-context"), p)

	require.Equal(t, investigate.ModeLLM, res.Mode, res.ModeNote)
	reads := receiptsOf(res, "source_read")
	require.Len(t, reads, 1)
	assert.True(t, reads[0].OK)
	assert.Equal(t, adFile, res.RootCause.File, "the repository path the source tool resolved")
	assert.Equal(t, investigate.BandHigh, res.RootCause.Band, "read, anchored and corroborated by traces and logs")
	require.NotNil(t, res.Fix.Patch, "the engine's patch for the same cause")
	assert.Equal(t, adFile, res.Fix.Patch.File)
}

func TestOverclaimGetsOneRetryThenIsClamped(t *testing.T) {
	t.Parallel()
	// The OOM kills follow a recent change that adds to an unbounded
	// cache: raising the limit may not be the fix, so the evidence
	// supports MEDIUM at most.
	high := answer("geofence-svc", "oom", "infrastructure", geofenceValues, 12, "HIGH", nil)
	env := startSim(t, oaisim.Options{Model: oaisim.Replies(
		oaisim.Calls(oaisim.Call("source_manifests", map[string]any{"service": "geofence-svc"})),
		oaisim.Answer(high), oaisim.Answer(high))})
	counters := llm.NewCounters()
	p := newPlanner(t, env, func(s *plannerSetup) { s.opts.Metrics = counters })
	res := runScenario(t, geofence, p)

	texts := userTexts(env)
	assert.Equal(t, 1, countContaining(texts, "claims HIGH confidence, but the evidence gathered so far supports MEDIUM"))
	assert.Equal(t, 1, countContaining(texts, "HIGH would need"), "the retry names the missing evidence")
	rc, note := modelConclusion(t, res)
	assert.Equal(t, investigate.BandMedium, rc.Band)
	assert.Equal(t, investigate.BandHigh, rc.ClaimedBand)
	assert.Contains(t, note, "clamped to MEDIUM")
	assert.Contains(t, note, "claimed HIGH again")
	assert.Equal(t, 1.0, counters.Value(llm.MetricGovernor, "action", "overclaim_retry"))
	assert.Equal(t, 1.0, counters.Value(llm.MetricGovernor, "action", "clamp"))
}

func TestOverclaimCorrectedAfterTheRetry(t *testing.T) {
	t.Parallel()
	env := startSim(t, oaisim.Options{Model: oaisim.Investigator{Overclaim: true}})
	p := newPlanner(t, env)
	res := runScenario(t, geofence, p)

	rc, note := modelConclusion(t, res)
	assert.Equal(t, investigate.BandMedium, rc.Band)
	assert.Equal(t, investigate.BandMedium, rc.ClaimedBand, "the model lowered its claim")
	assert.NotContains(t, note, "clamped")
	assert.Equal(t, "geofence-svc", rc.Service)
}

func TestLowFirstAnswerAsksForMoreEvidenceOnce(t *testing.T) {
	t.Parallel()
	env := startSim(t, oaisim.Options{Model: oaisim.NewScript(
		oaisim.Fixed(oaisim.Answer(answer("ad", "null_pointer", "code_bug", "", 0, "LOW", nil))),
		inv.Reply, inv.Reply)})
	p := newPlanner(t, env)
	res := runScenario(t, example("ad-npe-missing-context"), p)

	require.Equal(t, investigate.ModeLLM, res.Mode, res.ModeNote)
	texts := userTexts(env)
	require.Equal(t, 1, countContaining(texts, "Collect more evidence"))
	for _, tx := range texts {
		if strings.Contains(tx, "Collect more evidence") {
			assert.Contains(t, tx, "source_read", "the message lists the tools not used yet")
			assert.NotContains(t, tx, "traces_search_errors", "first-round tools are used already")
		}
	}
	assert.Equal(t, investigate.BandHigh, res.RootCause.Band, "the extra evidence earned the band")
	assert.Equal(t, adFile, res.RootCause.File)
}

func TestBucketRulesDecideWhichFixMayBeProposed(t *testing.T) {
	t.Parallel()
	diff := "--- a/src/cart/service.go\n+++ b/src/cart/service.go\n@@ -1 +1 @@\n-x\n+y\n"
	infra := answer("cart", "oom", "infrastructure", cartYAML, 58, "MEDIUM", map[string]any{
		"patch":         map[string]any{"file": "src/cart/service.go", "diff": diff, "explanation": "free memory"},
		"manifest_edit": map[string]any{"file": cartYAML, "line": 58, "path": "spec.template.spec.containers[cart].resources.limits.memory", "old_value": "128Mi", "new_value": "512Mi", "reason": "OOM"},
	})
	env := startSim(t, oaisim.Options{Model: oaisim.Replies(
		oaisim.Calls(oaisim.Call("source_manifests", map[string]any{"service": "cart"})), oaisim.Answer(infra))})
	res := runScenario(t, example("cart-oomkilled-low-limit"), newPlanner(t, env))

	require.Equal(t, investigate.ModeLLM, res.Mode, res.ModeNote)
	assert.Nil(t, res.Fix.Patch, "never a code patch for infrastructure")
	require.NotNil(t, res.Fix.ManifestEdit)
	assert.Equal(t, "512Mi", res.Fix.ManifestEdit.NewValue)
	assert.Contains(t, res.ModeNote, "a code patch is proposed only for a code bug")

	code := answer("ad", "null_pointer", "code_bug", adFile, 137, "HIGH", map[string]any{
		"patch":         map[string]any{"file": "src/ad/src/main/java/com/acme/shop/ad/Other.java", "diff": diff, "explanation": "x"},
		"manifest_edit": map[string]any{"file": "deploy/k8s/ad.yaml", "line": 3, "path": "x", "old_value": "1", "new_value": "2", "reason": "y"},
	})
	env = startSim(t, oaisim.Options{Model: oaisim.Replies(
		oaisim.Calls(oaisim.Call("source_read", map[string]any{"file": "com/acme/shop/ad/AdService.java", "line": 137, "service": "ad"})), oaisim.Answer(code))})
	res = runScenario(t, example("ad-npe-missing-context"), newPlanner(t, env))

	require.Equal(t, investigate.ModeLLM, res.Mode, res.ModeNote)
	assert.Nil(t, res.Fix.ManifestEdit, "manifests are edited only for infrastructure")
	require.NotNil(t, res.Fix.Patch)
	assert.Equal(t, adFile, res.Fix.Patch.File, "the patch of an unread file gave way to the engine's")
	assert.Contains(t, res.ModeNote, "Other.java was dropped: that file was not read")
}

func TestNeverStoppingModelIsCappedAndConcludesWithWhatExists(t *testing.T) {
	t.Parallel()
	env := startSim(t, oaisim.Options{Model: oaisim.Forever(func(n int, _ *oaisim.ChatRequest) oaisim.ToolCall {
		return oaisim.Call("logs_query", map[string]any{"query": `{service_name="ad"} |= "` + strings.Repeat("x", n) + `"`,
			"start": "2026-11-30T09:30:00Z", "end": "2026-11-30T10:30:00Z"})
	})})
	p := newPlanner(t, env, func(s *plannerSetup) { s.cfg.Limits.MaxToolCalls = 3 })
	res := runScenario(t, example("ad-npe-missing-context"), p)

	assert.Equal(t, investigate.ModeDeterministic, res.Mode)
	assert.Equal(t, "LLM unusable (the model kept calling tools after the tool-call budget of 3 calls is spent): deterministic answer", res.ModeNote)
	assert.Len(t, receiptsOf(res, "logs_query"), 3)
	reqs := env.srv.ChatRequests()
	require.Len(t, reqs, 4)
	assert.Empty(t, reqs[3].Tools, "the last request offers no tools")
	assert.Contains(t, string(reqs[3].Messages[len(reqs[3].Messages)-1].Content), "No more tool calls are available")
	assert.Equal(t, adFile, res.RootCause.File, "concluded with the receipts that exist")
}

func TestInvalidAnswerGetsOneRepairRequest(t *testing.T) {
	t.Parallel()
	env := startSim(t, oaisim.Options{Model: oaisim.NewScript(
		oaisim.Fixed(oaisim.Text("The root cause is a null pointer in the ad service.")),
		inv.Reply, inv.Reply)})
	res := runScenario(t, example("ad-npe-missing-context"), newPlanner(t, env))

	require.Equal(t, investigate.ModeLLM, res.Mode, res.ModeNote)
	assert.Equal(t, 1, countContaining(userTexts(env), "Your last reply could not be used: the answer holds no JSON object"))
	assert.Equal(t, adFile, res.RootCause.File)
}

func TestEmptyThenInvalidAnswerFallsBack(t *testing.T) {
	t.Parallel()
	env := startSim(t, oaisim.Options{Model: oaisim.Replies(oaisim.Text(""), oaisim.Text(`{"root_cause": {"service": "ad", "error_type": "segfault"`))})
	res := runScenario(t, example("ad-npe-missing-context"), newPlanner(t, env))

	assert.Equal(t, investigate.ModeDeterministic, res.Mode)
	assert.True(t, strings.HasPrefix(res.ModeNote, "LLM unusable (no valid answer after one repair request: the answer is not valid JSON"), res.ModeNote)
	assert.Equal(t, 1, countContaining(userTexts(env), "Your last reply could not be used: the answer is empty"))
}

func TestMalformedResponseBodyFallsBack(t *testing.T) {
	t.Parallel()
	env := startSim(t, oaisim.Options{Model: oaisim.Replies(oaisim.Malformed())})
	res := runScenario(t, example("ad-npe-missing-context"), newPlanner(t, env))

	assert.Equal(t, investigate.ModeDeterministic, res.Mode)
	assert.True(t, strings.HasPrefix(res.ModeNote, "LLM unavailable ("), res.ModeNote)
	assert.Equal(t, adFile, res.RootCause.File)
}

func TestResponseFormatRejectionIsRememberedPerEndpoint(t *testing.T) {
	t.Parallel()
	env := startSim(t, oaisim.Options{Model: inv, RejectResponseFormat: true})
	p := newPlanner(t, env, func(s *plannerSetup) { s.cfg.Limits.MaxSteps = 2 }) // the second request asks for the answer
	for range 2 {
		res := runScenario(t, example("ad-npe-missing-context"), p)
		require.Equal(t, investigate.ModeLLM, res.Mode, res.ModeNote)
		assert.Equal(t, adFile, res.RootCause.File)
	}
	withFormat := 0
	for _, r := range env.srv.Requests() {
		if r.Request != nil && len(r.Request.ResponseFormat) > 0 {
			withFormat++
			assert.Equal(t, http.StatusBadRequest, r.Status)
		}
	}
	assert.Equal(t, 1, withFormat, "asked once, then remembered")
	reqs := env.srv.ChatRequests()
	require.Len(t, reqs, 4)
	for _, r := range reqs {
		assert.Contains(t, string(r.Messages[0].Content), `Its shape:`, "the schema is in the instructions")
	}

	env2 := startSim(t, oaisim.Options{Model: inv})
	res := runScenario(t, example("ad-npe-missing-context"), newPlanner(t, env2, func(s *plannerSetup) { s.cfg.Limits.MaxSteps = 2 }))
	require.Equal(t, investigate.ModeLLM, res.Mode)
	reqs = env2.srv.ChatRequests()
	require.Len(t, reqs, 2)
	assert.Empty(t, reqs[0].ResponseFormat, "a tool round carries no response_format")
	assert.Contains(t, string(reqs[1].ResponseFormat), `"json_schema"`, "the final-answer request does")
	assert.Contains(t, string(reqs[1].ResponseFormat), `"strict":true`)
	assert.Empty(t, reqs[1].Tools)
}

func TestRequestParameters(t *testing.T) {
	t.Parallel()
	env := startSim(t, oaisim.Options{Model: inv})
	runScenario(t, example("ad-npe-missing-context"), newPlanner(t, env))
	reqs := env.srv.ChatRequests()
	require.NotEmpty(t, reqs)
	for _, r := range reqs {
		require.NotNil(t, r.Temperature, "a zero temperature would be dropped by go-openai")
		assert.Greater(t, *r.Temperature, 0.0)
		assert.Less(t, *r.Temperature, 0.01)
		assert.Equal(t, 2048, r.MaxCompletionTokens)
		assert.Zero(t, r.MaxTokens, "max_tokens is rejected by some models")
		assert.False(t, r.Stream)
	}

	env = startSim(t, oaisim.Options{Model: inv})
	res := runScenario(t, example("ad-npe-missing-context"), newPlanner(t, env, func(s *plannerSetup) { s.cfg.Model = "o4-mini" }))
	require.Equal(t, investigate.ModeLLM, res.Mode, res.ModeNote)
	for _, r := range env.srv.ChatRequests() {
		assert.Nil(t, r.Temperature, "reasoning models take only their default temperature")
	}
}

// copyScenario copies a scenario directory without the named entries.
func copyScenario(t *testing.T, src string, without ...string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	skip := map[string]bool{}
	for _, w := range without {
		skip[w] = true
	}
	require.NoError(t, filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if skip[strings.SplitN(rel, string(filepath.Separator), 2)[0]] {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	}))
	return dst
}

func TestOnlyConfiguredToolsAreOfferedAndExecuted(t *testing.T) {
	t.Parallel()
	dir := copyScenario(t, example("ad-npe-missing-context"), "repo", "changes.json")
	env := startSim(t, oaisim.Options{Model: oaisim.Replies(
		oaisim.Calls(oaisim.Call("source_read", map[string]any{"file": "AdService.java", "line": 137})),
		oaisim.Answer(answer("ad", "null_pointer", "code_bug", "", 0, "MEDIUM", nil)))})
	res := runScenario(t, dir, newPlanner(t, env))

	require.Equal(t, investigate.ModeLLM, res.Mode, res.ModeNote)
	for _, r := range env.srv.ChatRequests() {
		for _, name := range r.ToolNames() {
			assert.False(t, strings.HasPrefix(name, "source_") || strings.HasPrefix(name, "changes_"), "unconfigured tool %s offered", name)
		}
	}
	assert.Empty(t, receiptsOf(res, "source_read"))
	tools := toolMessages(env.srv.ChatRequests()[1])
	require.Len(t, tools, 1)
	assert.Contains(t, string(tools[0].Content), `unknown tool "source_read"`)
	assert.Contains(t, string(env.srv.ChatRequests()[0].Messages[1].Content), "Unavailable: changes (", "the model is told what is missing")
}

func TestUsageAndCostAreAccounted(t *testing.T) {
	t.Parallel()
	env := startSim(t, oaisim.Options{Model: inv})
	counters := llm.NewCounters()
	p := newPlanner(t, env, func(s *plannerSetup) {
		s.cfg.Price = &llm.Price{PromptPer1K: 0.001, CompletionPer1K: 0.002}
		s.opts.Metrics = counters
	})
	res := runScenario(t, example("ad-npe-missing-context"), p)

	require.NotNil(t, res.Usage)
	completion := 0
	for _, r := range env.srv.Requests() {
		completion += r.CompletionTokens
	}
	assert.Equal(t, env.srv.PromptTokens(), res.Usage.PromptTokens)
	assert.Equal(t, completion, res.Usage.CompletionTokens)
	assert.Equal(t, "sim-model", res.Usage.Model)
	assert.InDelta(t, float64(res.Usage.PromptTokens)*0.001/1000+float64(res.Usage.CompletionTokens)*0.002/1000, res.Usage.CostUSD, 1e-6)
	assert.Equal(t, float64(res.Usage.PromptTokens), counters.Value(llm.MetricPromptTokens, "model", "sim-model"))
	assert.Equal(t, 1.0, counters.Value(llm.MetricInvestigations, "mode", "llm", "reason", "ok"))
	var buf bytes.Buffer
	require.NoError(t, counters.WritePrometheus(&buf))
	assert.Contains(t, buf.String(), "# TYPE autoheal_llm_prompt_tokens_total counter\nautoheal_llm_prompt_tokens_total{model=\"sim-model\"} ")
}

func TestRecordedSessionReplaysOffline(t *testing.T) {
	t.Parallel()
	var rec bytes.Buffer
	env := startSim(t, oaisim.Options{Model: inv})
	live := runScenario(t, example("checkout-fails-payment-typeerror"), newPlanner(t, env, func(s *plannerSetup) { s.opts.Record = &rec }))
	require.Equal(t, investigate.ModeLLM, live.Mode, live.ModeNote)
	assert.NotContains(t, rec.String(), testKey)
	assert.NotContains(t, rec.String(), "Authorization")

	lines := strings.Split(strings.TrimSpace(rec.String()), "\n")
	require.Len(t, lines, len(env.srv.Requests()))
	var x llm.Exchange
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &x))
	assert.Equal(t, "/v1/chat/completions", x.Path)
	assert.Equal(t, http.StatusOK, x.Status)

	replay, err := oaisim.LoadReplay(strings.NewReader(rec.String()))
	require.NoError(t, err)
	assert.Equal(t, "sim-model", replay.Model())
	env2 := startSim(t, oaisim.Options{Model: replay, Keys: []string{"replay-key"}})
	p := newPlanner(t, env2, func(s *plannerSetup) { s.cfg.APIKey = "replay-key" })
	replayed := runScenario(t, example("checkout-fails-payment-typeerror"), p)

	require.Equal(t, investigate.ModeLLM, replayed.Mode, replayed.ModeNote)
	assert.Equal(t, live.RootCause.File, replayed.RootCause.File)
	assert.Equal(t, live.RootCause.Band, replayed.RootCause.Band)
	assert.Equal(t, live.ToolCalls(), replayed.ToolCalls())
	assert.Equal(t, live.Usage.PromptTokens, replayed.Usage.PromptTokens, "usage comes from the recorded responses")
}

func TestInvestigateNeedsAnEngine(t *testing.T) {
	t.Parallel()
	env := startSim(t, oaisim.Options{Model: inv})
	_, err := newPlanner(t, env).Investigate(context.Background(), nil, investigate.Issue{Text: "x"})
	require.Error(t, err)
}

// The evaluation harness accepts the planner as its investigator.
func TestHarnessEvaluateWithThePlanner(t *testing.T) {
	t.Parallel()
	env := startSim(t, oaisim.Options{Model: inv})
	p := newPlanner(t, env)
	var dirs []string
	for _, n := range exampleNames {
		dirs = append(dirs, example(n))
	}
	cases, sum, err := harness.Evaluate(context.Background(), dirs, harness.RunOptions{Investigator: p.Investigate})
	require.NoError(t, err)
	require.Len(t, cases, 3)
	assert.Equal(t, 3, sum.RCCorrect)
	assert.Zero(t, sum.HighWrong)
	for _, c := range cases {
		s, err := scenario.Load(c.Dir)
		require.NoError(t, err)
		assert.Equal(t, s.Truth.Service, c.Result.RootCause.Service)
	}
}

// Receipts can support a wrong claim: a model blaming the caller's frame of
// a read file, corroborated by traces and logs, would earn HIGH. The engine's
// reading of the same receipts points elsewhere, so the claim is contested
// and cannot be HIGH; the engine's HIGH conclusion leads and the model's
// answer is shown as the alternative.
func TestClaimAgainstTheRuleBasedConclusionIsContested(t *testing.T) {
	t.Parallel()
	caller := answer("ad", "null_pointer", "code_bug", adFile, 107, "HIGH", nil)
	env := startSim(t, oaisim.Options{Model: oaisim.Replies(
		oaisim.Calls(oaisim.Call("source_read", map[string]any{"file": "com/acme/shop/ad/AdService.java", "line": 107, "service": "ad"})),
		oaisim.Answer(caller), oaisim.Answer(caller))})
	res := runScenario(t, example("ad-npe-missing-context"), newPlanner(t, env))

	require.Equal(t, investigate.ModeDeterministic, res.Mode, res.ModeNote)
	assert.Equal(t, 137, res.RootCause.Line, "the better supported conclusion leads")
	assert.Equal(t, investigate.BandHigh, res.RootCause.Band)
	rc, note := modelConclusion(t, res)
	assert.Equal(t, 107, rc.Line)
	assert.Equal(t, investigate.BandMedium, rc.Band)
	assert.Contains(t, note, "evidence ruling out the rule-based conclusion (code_bug null_pointer in ad at "+adFile+":137)")
	assert.Equal(t, 1, countContaining(userTexts(env), "ruling out the rule-based conclusion"), "the retry says what the evidence does not rule out")
	assert.False(t, res.Contested(), "the alternative is less supported: a fix may still be approved")
}
