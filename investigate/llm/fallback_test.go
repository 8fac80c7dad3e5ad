package llm_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/scenario"
	oaisim "github.com/autoheal/autoheal/sim/openai"
)

// failingFrom plays the investigator until request n (1-based), then
// answers every request with a server error, as an endpoint that went down
// mid-investigation does.
func failingFrom(n int) oaisim.Model {
	var seen atomic.Int32
	return oaisim.ModelFunc(func(req *oaisim.ChatRequest) oaisim.Reply {
		if int(seen.Add(1)) >= n {
			return oaisim.ServerError(500)
		}
		return inv.Reply(req)
	})
}

// sets are every example and scenario set of the repository.
var sets = []string{"examples", "scenarios", "holdout", "holdout2", "holdout3", "holdout4", "holdout5", "holdout6", "holdout7", "holdout8"}

// conclusion is what a result concludes, without its prose (the evidence
// quoted in the description is a sample that may differ between runs).
type conclusion struct {
	RootCause investigate.RootCause
	Patch     string
	Manifest  string
	Note      string
}

func conclusionOf(res *investigate.HealResult) conclusion {
	c := conclusion{RootCause: res.RootCause, Note: res.ConfidenceNote}
	c.RootCause.Description = ""
	if p := res.Fix.Patch; p != nil {
		c.Patch = p.File
	}
	if m := res.Fix.ManifestEdit; m != nil {
		c.Manifest = fmt.Sprintf("%s:%d %s %s -> %s", m.File, m.Line, m.Path, m.OldValue, m.NewValue)
	}
	return c
}

// Over every example and set, a model that fails at each step in turn
// (the first request, the second...) leaves a result equal to the
// deterministic engine's on the same scenario: the fallback never loses
// what the engine alone finds, whatever the model read before it failed.
func TestFallbackIsNeverWorseThanTheEngineAlone(t *testing.T) {
	t.Parallel()
	var dirs []string
	for _, set := range sets {
		d, err := scenario.Discover(filepath.Join("../../testdata", set))
		require.NoError(t, err)
		dirs = append(dirs, d...)
	}
	require.Greater(t, len(dirs), 100)
	var runs, fellBack atomic.Int32
	check := func(dir string) {
		s, err := scenario.Load(dir)
		require.NoError(t, err)
		b, err := harness.Start(s, harness.Options{})
		require.NoError(t, err)
		defer b.Close()
		det, err := harness.RunWith(context.Background(), b, harness.RunOptions{})
		require.NoError(t, err)
		want := conclusionOf(det)
		for step := 1; step <= 8; step++ {
			env := startSim(t, oaisim.Options{Model: failingFrom(step)})
			p := newPlanner(t, env)
			res, err := harness.RunWith(context.Background(), b, harness.RunOptions{Investigator: p.Investigate, WrapCapabilities: p.WrapCapabilities})
			require.NoError(t, err)
			runs.Add(1)
			if res.Mode == investigate.ModeLLM || len(res.Alternatives) > 0 {
				return // the model answered before its failing request
			}
			fellBack.Add(1)
			name := filepath.Base(filepath.Dir(dir)) + "/" + filepath.Base(dir)
			assert.Contains(t, res.ModeNote, "LLM unavailable (500", "%s, failing at request %d", name, step)
			assert.Equal(t, want, conclusionOf(res), "%s, failing at request %d", name, step)
			assert.GreaterOrEqual(t, len(res.Timeline), len(det.Timeline), "%s: the model's calls are kept in the timeline", name)
		}
	}
	// Scenarios run a few at a time: each run mostly waits on its
	// simulators.
	work := make(chan string)
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for dir := range work {
				check(dir)
			}
		}()
	}
	for _, d := range dirs {
		work <- d
	}
	close(work)
	wg.Wait()
	t.Logf("%d scenarios, %d planner runs, %d fell back", len(dirs), runs.Load(), fellBack.Load())
}
