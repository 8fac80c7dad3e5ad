package llm_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/llm"
	"github.com/autoheal/autoheal/redact"
	"github.com/autoheal/autoheal/scenario"
	oaisim "github.com/autoheal/autoheal/sim/openai"
)

const examples = "../../testdata/examples"

// testKey is the API key the simulator accepts; it must never appear in a
// request body, a recording, a log line or a result.
const testKey = "sk-proj-Zt9Qe4LrW7xN2bV5cM8kH1jD6fS3aG0p"

func example(name string) string { return filepath.Join(examples, name) }

var exampleNames = []string{"ad-npe-missing-context", "cart-oomkilled-low-limit", "checkout-fails-payment-typeerror"}

type simEnv struct {
	srv *oaisim.Server
	url string
}

func startSim(t testing.TB, opts oaisim.Options) simEnv {
	t.Helper()
	if opts.Keys == nil {
		opts.Keys = []string{testKey}
	}
	srv := oaisim.New(opts)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return simEnv{srv: srv, url: hs.URL + "/v1"}
}

// noSleep records the waits the planner asks for instead of sleeping.
type noSleep struct{ waits []time.Duration }

func (n *noSleep) sleep(ctx context.Context, d time.Duration) error {
	n.waits = append(n.waits, d)
	return ctx.Err()
}

type plannerSetup struct {
	cfg  llm.Config
	opts llm.Options
}

func newPlanner(t testing.TB, env simEnv, mod ...func(*plannerSetup)) *llm.Planner {
	t.Helper()
	s := &plannerSetup{
		cfg:  llm.Config{APIKey: testKey, BaseURL: env.url, Model: "sim-model"},
		opts: llm.Options{Metrics: llm.NewCounters(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Redactor: redact.New(redact.Options{})},
	}
	ns := &noSleep{}
	s.opts.Sleep = ns.sleep
	for _, m := range mod {
		m(s)
	}
	p, err := llm.New(s.cfg, s.opts)
	require.NoError(t, err)
	return p
}

// runScenario investigates a scenario with the planner against its simulators.
func runScenario(t testing.TB, dir string, p *llm.Planner) *investigate.HealResult {
	t.Helper()
	s, err := scenario.Load(dir)
	require.NoError(t, err)
	res, err := harness.Run(context.Background(), s, harness.RunOptions{Investigator: p.Investigate, WrapCapabilities: p.WrapCapabilities})
	require.NoError(t, err)
	require.NotNil(t, res)
	return res
}

// deterministic runs the rule-based engine on a scenario.
func deterministic(t *testing.T, dir string) *investigate.HealResult {
	t.Helper()
	s, err := scenario.Load(dir)
	require.NoError(t, err)
	res, err := harness.Run(context.Background(), s, harness.RunOptions{})
	require.NoError(t, err)
	return res
}

// modelConclusion is the model's governed root cause and confidence note,
// whether the result leads with it or shows it as an alternative to the
// rule-based conclusion.
func modelConclusion(t *testing.T, res *investigate.HealResult) (investigate.RootCause, string) {
	t.Helper()
	if res.Mode == investigate.ModeLLM {
		return res.RootCause, res.ConfidenceNote
	}
	for _, a := range res.Alternatives {
		if a.Planner == investigate.ModeLLM {
			return a.RootCause, a.Note
		}
	}
	t.Fatalf("no model conclusion in the result (%s)", res.ModeNote)
	return investigate.RootCause{}, ""
}

// plannerReceipts are the receipts of calls the LLM planner made itself
// (not the deterministic engine's reference run).
func plannerReceipts(res *investigate.HealResult, tool string) []investigate.Receipt {
	var out []investigate.Receipt
	for _, r := range res.Timeline {
		if r.Tool == tool && r.Planner == "llm" {
			out = append(out, r)
		}
	}
	return out
}
