package llm_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/llm"
	oaisim "github.com/autoheal/autoheal/sim/openai"
)

// Each test reproduces one quirk of a real server with the simulator's
// mode for it and asserts the requests the planner sent.

// vLLM and Ollama suppress tool calls when response_format comes with
// tools: tool rounds carry no response_format, so the model does call its
// tools there; the schema is in the instructions.
func TestToolRoundsCarryNoResponseFormat(t *testing.T) {
	t.Parallel()
	for _, mode := range []oaisim.Mode{oaisim.ModeVLLM, oaisim.ModeOllama} {
		env := startSim(t, oaisim.Options{Model: inv, Mode: mode})
		res := runScenario(t, example("ad-npe-missing-context"), newPlanner(t, env))
		require.Equal(t, investigate.ModeLLM, res.Mode, "%s: %s", mode, res.ModeNote)
		assert.Len(t, plannerReceipts(res, "source_read"), 1, "%s: the model called its tool", mode)
		for _, r := range env.srv.ChatRequests() {
			if len(r.Tools) > 0 {
				assert.Empty(t, r.ResponseFormat, "%s: response_format with tools", mode)
			}
		}
	}
}

// The token-limit fields follow the provider: Ollama reads only
// max_tokens, OpenAI only max_completion_tokens (its reasoning models
// refuse max_tokens), vLLM and unknown servers take both.
func TestTokenLimitFieldsFollowTheProvider(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode                oaisim.Mode
		maxTokens, maxCompl int
	}{
		{oaisim.ModeOpenAI, 0, 2048},
		{oaisim.ModeOllama, 2048, 0},
		{oaisim.ModeVLLM, 2048, 2048},
		{oaisim.ModeLiteLLM, 2048, 2048},
	} {
		env := startSim(t, oaisim.Options{Model: inv, Mode: tc.mode})
		res := runScenario(t, example("ad-npe-missing-context"), newPlanner(t, env))
		require.Equal(t, investigate.ModeLLM, res.Mode, "%s: %s", tc.mode, res.ModeNote)
		for _, r := range env.srv.ChatRequests() {
			assert.Equal(t, tc.maxTokens, r.MaxTokens, "%s max_tokens", tc.mode)
			assert.Equal(t, tc.maxCompl, r.MaxCompletionTokens, "%s max_completion_tokens", tc.mode)
		}
	}
}

// longAnswer is the investigator's answer with a description far past
// 2048 tokens.
func longAnswer(req *oaisim.ChatRequest) oaisim.Reply {
	r := inv.Reply(req)
	if len(r.ToolCalls) > 0 {
		return r
	}
	var v map[string]any
	if json.Unmarshal([]byte(r.Content), &v) == nil {
		v["root_cause"].(map[string]any)["description"] = strings.Repeat("The ad service dereferences a missing alias. ", 300)
	}
	return oaisim.Answer(v)
}

// An answer cut at the limit (finish_reason "length") is asked again,
// shorter, with twice the limit and only the answer requested.
func TestCutAnswerIsAskedShorterWithALargerLimit(t *testing.T) {
	t.Parallel()
	env := startSim(t, oaisim.Options{Model: oaisim.NewScript(inv.Reply, longAnswer, inv.Reply)})
	res := runScenario(t, example("ad-npe-missing-context"), newPlanner(t, env))
	require.Equal(t, investigate.ModeLLM, res.Mode, res.ModeNote)
	reqs := env.srv.ChatRequests()
	require.Len(t, reqs, 3)
	assert.Equal(t, 2048, reqs[1].MaxCompletionTokens)
	assert.Equal(t, 4096, reqs[2].MaxCompletionTokens, "the limit doubled")
	assert.Empty(t, reqs[2].Tools, "only the answer is asked for")
	assert.NotEmpty(t, reqs[2].ResponseFormat)
	assert.Contains(t, conversation(reqs[2]), "cut at the 2048-token limit")
	assert.NotContains(t, conversation(reqs[2]), "could not be used", "no generic repair")
}

// A reasoning model configured by AUTOHEAL_REASONING_EFFORT gets its
// effort, no temperature, and a limit leaving room for the answer after
// its reasoning; a reasoning that still fills the limit gets more.
func TestReasoningModelLimitsLeaveRoomForTheAnswer(t *testing.T) {
	t.Parallel()
	thinking := func(req *oaisim.ChatRequest) oaisim.Reply {
		r := inv.Reply(req)
		r.ReasoningTokens = 7000
		return r
	}
	env := startSim(t, oaisim.Options{Model: oaisim.ModelFunc(thinking)})
	res := runScenario(t, example("ad-npe-missing-context"), newPlanner(t, env, func(s *plannerSetup) {
		s.cfg.Model, s.cfg.ReasoningEffort = "my-reasoner", "low"
	}))
	require.Equal(t, investigate.ModeLLM, res.Mode, res.ModeNote)
	reqs := env.srv.ChatRequests()
	require.GreaterOrEqual(t, len(reqs), 3)
	assert.Equal(t, 2048+4096, reqs[0].MaxCompletionTokens, "answer room plus the low effort's allowance")
	assert.Equal(t, 2*(2048+4096), reqs[1].MaxCompletionTokens, "the reasoning filled the limit: doubled")
	for _, r := range reqs {
		assert.Equal(t, "low", r.ReasoningEffort)
		assert.Nil(t, r.Temperature)
		assert.Zero(t, r.MaxTokens)
	}
}

// A prompt past the model's context window, refused as OpenAI and vLLM
// refuse it, is compacted below the window it names and sent again: an
// 8k-context model works.
func TestContextLengthExceededCompactsAndRetries(t *testing.T) {
	t.Parallel()
	for _, mode := range []oaisim.Mode{oaisim.ModeOpenAI, oaisim.ModeVLLM} {
		env := startSim(t, oaisim.Options{Model: inv, Mode: mode, ContextTokens: 8192})
		p := newPlanner(t, env, func(s *plannerSetup) { s.cfg.Provider = string(mode) })
		if mode == oaisim.ModeOpenAI {
			p = newPlanner(t, env) // probed
		}
		res := runScenario(t, example("ad-npe-missing-context"), p)
		require.Equal(t, investigate.ModeLLM, res.Mode, "%s: %s", mode, res.ModeNote)
		refused := 0
		for _, r := range env.srv.Requests() {
			if r.Status == http.StatusBadRequest {
				refused++
				require.NotNil(t, r.Request, mode)
				assert.Greater(t, r.PromptTokens+r.Request.MaxCompletionTokens, 8192, "%s: a refusal is the context window's", mode)
			}
		}
		assert.GreaterOrEqual(t, refused, 1, "%s: the window was crossed, so compaction was needed", mode)
		if mode == oaisim.ModeOpenAI {
			assert.Equal(t, 1, refused, "refused once, then the window is known")
		}
		for _, r := range env.srv.ChatRequests() {
			assert.LessOrEqual(t, oaisim.PromptTokens(r)+r.MaxCompletionTokens, 8192, mode)
		}
	}
}

// Output withheld by the content filter (finish_reason "content_filter")
// is asked for once more; a prompt Azure's filter refuses ends the
// conversation with a clear note.
func TestContentFilter(t *testing.T) {
	t.Parallel()
	filtered := oaisim.Fixed(oaisim.Reply{FinishReason: "content_filter"})
	env := startSim(t, oaisim.Options{Model: oaisim.NewScript(inv.Reply, filtered, inv.Reply)})
	res := runScenario(t, example("ad-npe-missing-context"), newPlanner(t, env))
	require.Equal(t, investigate.ModeLLM, res.Mode, res.ModeNote)
	assert.Contains(t, conversation(env.srv.ChatRequests()[2]), "withheld by the provider's content filter")

	env = startSim(t, oaisim.Options{Model: oaisim.NewScript(inv.Reply, filtered, filtered)})
	res = runScenario(t, example("ad-npe-missing-context"), newPlanner(t, env))
	assert.Equal(t, "LLM unusable (the provider's content filter withheld the answer twice): deterministic answer", res.ModeNote)

	env = startSim(t, oaisim.Options{Model: oaisim.Replies(oaisim.PromptFiltered()), Mode: oaisim.ModeAzure})
	res = runScenario(t, example("ad-npe-missing-context"), newAzurePlanner(t, env))
	assert.Equal(t, investigate.ModeDeterministic, res.Mode)
	assert.Equal(t, "LLM unusable (the provider's content filter refused the prompt (400 content_filter)): deterministic answer", res.ModeNote)
}

func newAzurePlanner(t *testing.T, env simEnv, mod ...func(*plannerSetup)) *llm.Planner {
	return newPlanner(t, env, append([]func(*plannerSetup){func(s *plannerSetup) {
		s.cfg.Provider, s.cfg.BaseURL, s.cfg.Model = "azure", strings.TrimSuffix(env.url, "/v1"), "autoheal-gpt41"
	}}, mod...)...)
}

// Azure's deployments API: the deployment in the path, an api-version,
// the key in an api-key header; its error shapes (a string code, no
// type) are read like OpenAI's: a 429 is retried after its Retry-After.
func TestAzureDeployments(t *testing.T) {
	t.Parallel()
	var paths []string
	env := startSim(t, oaisim.Options{Mode: oaisim.ModeAzure, Model: oaisim.NewScript(
		oaisim.Fixed(oaisim.Reply{Status: 429, Error: "Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-10-21 have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 2 seconds.", Header: map[string]string{"Retry-After": "2"}}),
		inv.Reply, inv.Reply)})
	res := runScenario(t, example("ad-npe-missing-context"), newAzurePlanner(t, env))
	require.Equal(t, investigate.ModeLLM, res.Mode, res.ModeNote)
	for _, r := range env.srv.Requests() {
		paths = append(paths, r.Path)
		assert.Empty(t, r.Header.Get("Authorization"))
	}
	assert.Equal(t, "/openai/deployments/autoheal-gpt41/chat/completions", paths[0])
	body := env.srv.Requests()[0]
	assert.Equal(t, 429, body.Status)
	assert.Equal(t, 3, len(env.srv.Requests()), "retried once after the 429")

	env = startSim(t, oaisim.Options{Mode: oaisim.ModeAzure, Model: inv, Keys: []string{"another-key-0123456789"}})
	res = runScenario(t, example("ad-npe-missing-context"), newAzurePlanner(t, env))
	assert.Equal(t, "LLM unavailable (401: the API key was rejected): deterministic answer", res.ModeNote)
}

// Behind LiteLLM (fronting Anthropic), a conversation with tool calls
// must define tools: the final-answer request keeps them, with
// tool_choice "none". The provider is recognised by LiteLLM's headers.
func TestLiteLLMKeepsToolsOnTheAnswerRequest(t *testing.T) {
	t.Parallel()
	env := startSim(t, oaisim.Options{Model: inv, Mode: oaisim.ModeLiteLLM})
	res := runScenario(t, example("ad-npe-missing-context"), newPlanner(t, env, func(s *plannerSetup) { s.cfg.Limits.MaxSteps = 2 }))
	require.Equal(t, investigate.ModeLLM, res.Mode, res.ModeNote)
	reqs := env.srv.ChatRequests()
	require.Len(t, reqs, 2)
	assert.NotEmpty(t, reqs[1].Tools)
	assert.True(t, reqs[1].ToolChoiceNone())
}

// The simulator's modes themselves: what each server does with the
// fields the planner avoids.
func TestSimulatorModesReproduceTheQuirks(t *testing.T) {
	t.Parallel()
	// Ollama ignores max_completion_tokens: an answer past it is not cut.
	long := oaisim.Text(strings.Repeat("x", 20000))
	srv := oaisim.New(oaisim.Options{Model: oaisim.Replies(long, long), Mode: oaisim.ModeOllama})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	post := func(body string) map[string]any {
		req, _ := http.NewRequest(http.MethodPost, hs.URL+"/v1/chat/completions", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer k")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var v map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&v))
		return v
	}
	finish := func(v map[string]any) any { return v["choices"].([]any)[0].(map[string]any)["finish_reason"] }
	assert.Equal(t, "stop", finish(post(`{"model":"m","messages":[{"role":"user","content":"hi"}],"max_completion_tokens":100}`)))
	assert.Equal(t, "length", finish(post(`{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":100}`)))

	// vLLM: response_format with tools leaves no way to call a tool.
	call := oaisim.Calls(oaisim.Call("source_read", map[string]any{"file": "a.go"}))
	srv2 := oaisim.New(oaisim.Options{Model: oaisim.Replies(call), Mode: oaisim.ModeVLLM})
	hs2 := httptest.NewServer(srv2)
	defer hs2.Close()
	req, _ := http.NewRequest(http.MethodPost, hs2.URL+"/v1/chat/completions", strings.NewReader(
		`{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"source_read"}}],"response_format":{"type":"json_schema","json_schema":{"name":"a","schema":{}}}}`))
	req.Header.Set("Authorization", "Bearer k")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var v map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&v))
	assert.Equal(t, "stop", finish(v), "no tool call came out")
}

func TestProviderAndReasoningSettings(t *testing.T) {
	env := map[string]string{llm.EnvAPIKey: "k", llm.EnvProvider: "Ollama", llm.EnvReasoningEffort: "high", llm.EnvMaxCompletionTokens: "4096"}
	cfg, ok, err := llm.ConfigFromEnv(func(k string) string { return env[k] })
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "ollama", cfg.Provider)
	assert.Equal(t, "high", cfg.ReasoningEffort)
	assert.Equal(t, 4096, cfg.Limits.MaxCompletionTokens)
	env[llm.EnvProvider], env[llm.EnvReasoningEffort] = "bedrock", "extreme"
	_, _, err = llm.ConfigFromEnv(func(k string) string { return env[k] })
	require.ErrorIs(t, err, llm.ErrBadConfig)
	assert.Contains(t, err.Error(), `AUTOHEAL_LLM_PROVIDER="bedrock": want one of openai, azure, vllm, ollama, litellm`)
	assert.Contains(t, err.Error(), `AUTOHEAL_REASONING_EFFORT="extreme"`)
}
