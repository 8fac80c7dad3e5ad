package llm_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
	oaisim "github.com/autoheal/autoheal/sim/openai"
)

// adWindow is the time window of the ad example.
var adWindow = map[string]any{"start": "2026-11-30T09:30:00Z", "end": "2026-11-30T10:30:00Z"}

func withWindow(args map[string]any) map[string]any {
	for k, v := range adWindow {
		args[k] = v
	}
	return args
}

// adCalls are the tool calls of a long investigation of the ad example,
// one a step, each answered with real data by the example's simulators.
var adCalls = []oaisim.ToolCall{
	oaisim.Call("logs_query", withWindow(map[string]any{"query": `{service_name="ad"} |= "Exception"`})),
	oaisim.Call("logs_patterns", withWindow(map[string]any{"services": []string{"ad", "frontend"}})),
	oaisim.Call("metrics_query_range", withWindow(map[string]any{"query": `sum by (service_name) (rate(traces_span_metrics_calls_total{status_code="STATUS_CODE_ERROR"}[1m]))`})),
	oaisim.Call("k8s_pods_list", map[string]any{}),
	oaisim.Call("k8s_events_list", map[string]any{}),
	oaisim.Call("source_manifests", map[string]any{"service": "ad"}),
	oaisim.Call("source_read", map[string]any{"file": "com/acme/shop/ad/AdService.java", "line": 137, "service": "ad"}),
}

// scriptedSteps is a model that calls one tool a request for steps-1
// requests, then answers as the investigator does; offered no tools, it
// answers at once.
func scriptedSteps(steps int) *oaisim.Script {
	var turns []oaisim.Turn
	for i := 0; i < steps-1; i++ {
		call := adCalls[len(adCalls)-steps+1+i]
		turns = append(turns, func(req *oaisim.ChatRequest) oaisim.Reply {
			if len(req.Tools) == 0 {
				return inv.Reply(req)
			}
			return oaisim.Calls(call)
		})
	}
	return oaisim.NewScript(append(turns, inv.Reply)...)
}

// plannedInvestigation is one scripted investigation's prompt sizes.
type plannedInvestigation struct {
	res      *investigate.HealResult
	requests []int // prompt tokens per request, as the simulator counts them
	total    int
	srv      *oaisim.Server
}

func runSteps(t *testing.T, steps int, mod ...func(*plannerSetup)) plannedInvestigation {
	t.Helper()
	env := startSim(t, oaisim.Options{Model: scriptedSteps(steps)})
	res := runScenario(t, example("ad-npe-missing-context"), newPlanner(t, env, mod...))
	pi := plannedInvestigation{res: res, total: env.srv.PromptTokens(), srv: env.srv}
	for _, r := range env.srv.ChatRequests() {
		pi.requests = append(pi.requests, oaisim.PromptTokens(r))
	}
	return pi
}

// An investigation of 6 and one of 8 model requests (the default step
// limit) fit the default budgets: no request over 20k prompt tokens, 60k in
// all, and the model's answer stands. Older tool results are shown
// compacted to their findings; the newest in full.
func TestLongInvestigationsFitTheBudgets(t *testing.T) {
	t.Parallel()
	for _, steps := range []int{6, 8} {
		pi := runSteps(t, steps)
		t.Logf("%d steps: prompt tokens per request %v, %d in all", steps, pi.requests, pi.total)
		require.Equal(t, investigate.ModeLLM, pi.res.Mode, pi.res.ModeNote)
		require.Len(t, pi.requests, steps)
		for i, n := range pi.requests {
			assert.LessOrEqual(t, n, 20000, "request %d", i+1)
		}
		assert.LessOrEqual(t, pi.total, 60000)
		assert.Len(t, plannerReceipts(pi.res, "source_read"), 1, "every scripted call ran")

		reqs := pi.srv.ChatRequests()
		last := reqs[len(reqs)-1]
		text := conversation(last)
		assert.Contains(t, text, "compacted to its findings", "older results are compacted")
		assert.Contains(t, text, `"id":"F1.1"`, "compacted results keep their finding ids")
		first := string(reqs[0].Messages[1].Content)
		assert.NotContains(t, first, "compacted", "the first round is shown in full first")
	}
}

// When the budget would not carry another tool round, the planner asks
// for the answer with what it has: the work is kept, not thrown away.
func TestBudgetAboutToRunOutForcesTheAnswer(t *testing.T) {
	t.Parallel()
	pi := runSteps(t, 8, func(s *plannerSetup) { s.cfg.Limits.MaxPromptTokens = 30000 })
	t.Logf("prompt tokens per request %v, %d in all", pi.requests, pi.total)
	require.Equal(t, investigate.ModeLLM, pi.res.Mode, pi.res.ModeNote)
	assert.LessOrEqual(t, pi.total, 30000)
	assert.Less(t, len(pi.requests), 8, "the answer was asked for early")
	reqs := pi.srv.ChatRequests()
	last := reqs[len(reqs)-1]
	assert.Empty(t, last.Tools, "the answer request offers no tools")
	assert.Contains(t, conversation(last), "the prompt-token budget is about to run out")
}

// A small request cap (a model with a small context window) compacts even
// the first round rather than failing.
func TestRequestCapCompactsEvenTheFirstRound(t *testing.T) {
	t.Parallel()
	pi := runSteps(t, 2, func(s *plannerSetup) { s.cfg.Limits.MaxRequestTokens = 6000 })
	t.Logf("prompt tokens per request %v", pi.requests)
	require.Equal(t, investigate.ModeLLM, pi.res.Mode, pi.res.ModeNote)
	for _, n := range pi.requests {
		assert.LessOrEqual(t, n, 6000)
	}
	assert.Contains(t, string(pi.srv.ChatRequests()[0].Messages[1].Content), "compacted")
}

func conversation(r *oaisim.ChatRequest) string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(string(m.Content) + "\n")
	}
	return b.String()
}

// BenchmarkPromptTokens reports the prompt tokens (as the simulator
// counts them) per request and per investigation: the examples with the
// scripted investigator, and 6- and 8-step scripted investigations
// (goals: at most 20k a request, 60k an investigation).
func BenchmarkPromptTokens(b *testing.B) {
	report := func(name string, model func() oaisim.Model, dir string) {
		b.Run(name, func(b *testing.B) {
			for range b.N {
				env := startSim(b, oaisim.Options{Model: model()})
				runScenario(b, dir, newPlanner(b, env))
				largest := 0
				reqs := env.srv.ChatRequests()
				for _, r := range reqs {
					largest = max(largest, oaisim.PromptTokens(r))
				}
				b.ReportMetric(float64(largest), "max-request-tokens")
				b.ReportMetric(float64(env.srv.PromptTokens()), "investigation-tokens")
				b.ReportMetric(float64(len(reqs)), "requests")
			}
		})
	}
	for _, name := range exampleNames {
		report(name, func() oaisim.Model { return oaisim.Investigator{} }, example(name))
	}
	for _, steps := range []int{6, 8} {
		report(fmt.Sprintf("scripted-%d-steps", steps), func() oaisim.Model { return scriptedSteps(steps) }, example("ad-npe-missing-context"))
	}
}
