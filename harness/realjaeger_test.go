package harness

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/internal/jaegertest"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/scenario"
)

// TestExamplesOnRealJaeger investigates each example with its traces in a
// real Jaeger v1.75.0 (default all-in-one, memory storage, loaded over
// OTLP/HTTP) instead of the simulator, through the v1 API and through
// api_v3, the other backends simulated as usual. The result must equal the
// one against the simulator: the same root cause and the same band (HIGH
// on all three), from the same trace evidence.
func TestExamplesOnRealJaeger(t *testing.T) {
	jaegertest.Require(t)
	for _, name := range []string{"ad-npe-missing-context", "cart-oomkilled-low-limit", "checkout-fails-payment-typeerror"} {
		t.Run(name, func(t *testing.T) {
			s, err := scenario.Load(filepath.Join(examplesDir, name))
			require.NoError(t, err)
			real := jaegertest.Start(t)
			real.LoadTraces(t, s.Traces)
			for _, api := range []string{"v1", "v3"} {
				t.Run(api, func(t *testing.T) {
					onSim := runExample(t, s, map[string]string{"jaeger_api": api})
					onReal := runExample(t, s, map[string]string{"jaeger_api": api, "jaeger_url": real.QueryURL})

					assert.Equal(t, investigate.BandHigh, onSim.RootCause.Band, onSim.ConfidenceNote)
					assert.Equal(t, onSim.RootCause, onReal.RootCause)
					assert.Equal(t, onSim.ConfidenceNote, onReal.ConfidenceNote)
					simTraces, realTraces := tracesReceipt(t, onSim), tracesReceipt(t, onReal)
					assert.Equal(t, simTraces.Summary, realTraces.Summary)
					assert.Equal(t, findingsOf(simTraces), findingsOf(realTraces))
					assert.Empty(t, realTraces.Warning)
					t.Logf("%s %s: %s %s %s:%d %s; traces: %s", name, api, onReal.RootCause.Bucket, onReal.RootCause.Service,
						onReal.RootCause.File, onReal.RootCause.Line, onReal.RootCause.Band, realTraces.Summary)
				})
			}
		})
	}
}

func runExample(t *testing.T, s *scenario.Scenario, settings map[string]string) *investigate.HealResult {
	t.Helper()
	b, err := Start(s, Options{})
	require.NoError(t, err)
	defer b.Close()
	b.Settings = settings
	res, err := RunWith(context.Background(), b, RunOptions{})
	require.NoError(t, err)
	return res
}

func tracesReceipt(t *testing.T, res *investigate.HealResult) investigate.Receipt {
	t.Helper()
	for _, r := range res.Timeline {
		if r.Tool == "traces_search_errors" {
			require.True(t, r.OK, "%s: %s", r.ErrorKind, r.Error)
			return r
		}
	}
	t.Fatalf("no traces search in the timeline")
	return investigate.Receipt{}
}

// findingsOf is a receipt's findings without the order they came in.
func findingsOf(r investigate.Receipt) map[string]int {
	out := map[string]int{}
	for _, f := range r.Findings {
		key := strings.Join([]string{string(f.Kind), f.Service, f.Peer, f.Exception, string(f.ErrorType), f.File, f.Quote}, "|")
		out[key] += max(f.Count, 1)
	}
	return out
}
