package llm_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/scenario"
	oaisim "github.com/autoheal/autoheal/sim/openai"
)

// With the scripted investigator, every shared example reaches the
// deterministic engine's root cause within 8 tool calls and at most one
// more than the engine alone (the first round's six and one source read;
// the engine's reference run reads the manifests with the limits the
// failure quotes when the model read them without), and under 20k prompt
// tokens (as the simulator counts them).
func TestExamplesMatchDeterministicWithinBudget(t *testing.T) {
	t.Parallel()
	for _, name := range exampleNames {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			env := startSim(t, oaisim.Options{Model: oaisim.Investigator{}})
			p := newPlanner(t, env)
			res := runScenario(t, example(name), p)
			det := deterministic(t, example(name))

			require.Equal(t, investigate.ModeLLM, res.Mode, res.ModeNote)
			assert.Equal(t, det.RootCause.Service, res.RootCause.Service)
			assert.Equal(t, det.RootCause.Bucket, res.RootCause.Bucket)
			assert.Equal(t, det.RootCause.ErrorType, res.RootCause.ErrorType)
			assert.Equal(t, det.RootCause.File, res.RootCause.File)
			assert.InDelta(t, det.RootCause.Line, res.RootCause.Line, 3)
			assert.LessOrEqual(t, res.ToolCalls(), 8, "tool calls (receipts)")
			assert.LessOrEqual(t, res.ToolCalls(), det.ToolCalls()+1, "tool calls against the engine alone")
			assert.Less(t, env.srv.PromptTokens(), 20000, "prompt tokens sent")

			s, err := scenario.Load(example(name))
			require.NoError(t, err)
			score := harness.Judge(s.Truth, res)
			assert.True(t, score.RootCause, "root cause correct against the truth")
			assert.False(t, score.HighWrong)

			require.NotNil(t, res.Usage)
			assert.Equal(t, env.srv.PromptTokens(), res.Usage.PromptTokens, "usage is the server's count")
			t.Logf("%s: %d tool calls, %d model requests, %d prompt tokens, band %s (%s)", name, res.ToolCalls(),
				len(env.srv.ChatRequests()), env.srv.PromptTokens(), res.RootCause.Band, res.ModeNote)
		})
	}
}
