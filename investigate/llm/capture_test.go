package llm_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/llm"
	"github.com/autoheal/autoheal/scenario"
	oaisim "github.com/autoheal/autoheal/sim/openai"
)

// fakeK8s answers k8s_workload_status with a summary, no findings and
// structured Data (what receipts do not keep).
type fakeK8s struct{ calls atomic.Int32 }

func (f *fakeK8s) Family() investigate.Family { return investigate.FamilyK8s }
func (f *fakeK8s) Availability() investigate.Availability {
	return investigate.Availability{Configured: true}
}
func (f *fakeK8s) Tools() []investigate.ToolSpec {
	return []investigate.ToolSpec{{Name: "k8s_workload_status", Family: investigate.FamilyK8s, Description: "pods",
		Parameters: investigate.Schema(map[string]any{"namespace": map[string]any{"type": "string"}})}}
}
func (f *fakeK8s) Call(ctx context.Context, tool string, args json.RawMessage) (*investigate.ToolResult, error) {
	f.calls.Add(1)
	return &investigate.ToolResult{Summary: "2 pods", Data: map[string]any{"pods": []any{
		map[string]any{"name": "ad-1", "status": "Running", "owner": "ops@example.com"},
		map[string]any{"name": "ad-2", "status": "CrashLoopBackOff", "last_log": "Error: token=abcdef0123456789 rejected"},
	}}}, nil
}

func TestCapturedDataReachesThePromptRedacted(t *testing.T) {
	t.Parallel()
	for _, capture := range []bool{true, false} {
		k := &fakeK8s{}
		env := startSim(t, oaisim.Options{Model: inv})
		s, err := scenario.Load(example("ad-npe-missing-context"))
		require.NoError(t, err)
		_, err = harness.Run(context.Background(), s, harness.RunOptions{Investigator: newPlanner(t, env).Investigate,
			Extra: func(context.Context, *harness.Backends) ([]investigate.Capability, func(), error) {
				caps := []investigate.Capability{k}
				if capture {
					caps = llm.CaptureData(caps)
				}
				return caps, nil, nil
			}})
		require.NoError(t, err)
		if capture {
			require.Equal(t, int32(1), k.calls.Load(), "the first round asked the workload status once; the engine's reference run reused it")
		} else {
			require.Equal(t, int32(2), k.calls.Load(), "without the wrapper, the engine's reference run asks again")
		}
		first := string(env.srv.ChatRequests()[0].Messages[1].Content)
		i := strings.Index(first, "source=k8s_workload_status")
		require.Positive(t, i)
		block := first[i:]
		block = block[:strings.Index(block, "<<<END DATA")]
		assert.Contains(t, block, `"summary":"2 pods"`)
		if capture {
			assert.Contains(t, block, `"status":"CrashLoopBackOff"`, "the tool's data is shown")
			assert.Contains(t, block, "[EMAIL]")
			assert.NotContains(t, block, "ops@example.com")
			assert.NotContains(t, block, "abcdef0123456789")
		} else {
			assert.NotContains(t, block, `"data"`, "without capture only summary and findings")
		}
	}
}
