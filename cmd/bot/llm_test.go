package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
	oaisim "github.com/autoheal/autoheal/sim/openai"
)

const (
	cliExamples = "../../testdata/examples"
	cliKey      = "sk-proj-CliTestKey0123456789abcdefgh"
)

// modelEnv points the LLM planner at a simulator playing the scripted investigator.
func modelEnv(t *testing.T) *oaisim.Server { return modelEnvWith(t, oaisim.Investigator{}) }

// modelEnvWith points the LLM planner at a simulator playing model.
func modelEnvWith(t *testing.T, model oaisim.Model) *oaisim.Server {
	t.Helper()
	srv := oaisim.New(oaisim.Options{Model: model, Keys: []string{cliKey}})
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	t.Setenv("OPENAI_API_KEY", cliKey)
	t.Setenv("OPENAI_BASE_URL", hs.URL+"/v1")
	t.Setenv("AUTOHEAL_MODEL", "sim-model")
	return srv
}

func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := dispatch(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

func TestInvestigateRecordsAndReplaysAModelSession(t *testing.T) {
	srv := modelEnv(t)
	scen := filepath.Join(cliExamples, "checkout-fails-payment-typeerror")
	rec := filepath.Join(t.TempDir(), "session.jsonl")

	out, stderr, code := run(t, "investigate", "--scenario", scen, "--json", "--record", rec)
	require.Equal(t, 0, code, stderr)
	var live investigate.HealResult
	require.NoError(t, json.Unmarshal([]byte(out), &live))
	assert.Equal(t, investigate.ModeLLM, live.Mode, live.ModeNote)
	assert.Equal(t, "src/payment/charge.js", live.RootCause.File)
	assert.NotEmpty(t, srv.Requests())

	b, err := os.ReadFile(rec)
	require.NoError(t, err)
	assert.NotContains(t, string(b), cliKey)
	assert.Equal(t, len(srv.Requests()), strings.Count(strings.TrimSpace(string(b)), "\n")+1)

	// Offline: no key, no endpoint.
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	before := len(srv.Requests())
	out, stderr, code = run(t, "investigate", "--scenario", scen, "--json", "--replay", rec)
	require.Equal(t, 0, code, stderr)
	var replayed investigate.HealResult
	require.NoError(t, json.Unmarshal([]byte(out), &replayed))
	assert.Equal(t, investigate.ModeLLM, replayed.Mode, replayed.ModeNote)
	assert.Equal(t, live.RootCause, replayed.RootCause)
	assert.Equal(t, before, len(srv.Requests()), "the replay never reached the live endpoint")
}

func TestNoLLMForcesTheDeterministicEngine(t *testing.T) {
	srv := modelEnv(t)
	out, stderr, code := run(t, "investigate", "--no-llm", "--json", "--scenario", filepath.Join(cliExamples, "ad-npe-missing-context"))
	require.Equal(t, 0, code, stderr)
	var res investigate.HealResult
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.Equal(t, investigate.ModeDeterministic, res.Mode)
	assert.Empty(t, srv.Requests())

	_, stderr, code = run(t, "investigate", "--no-llm", "--replay", "x.jsonl", "--scenario", "x")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--no-llm excludes --record and --replay")
}

func TestEvalUsesThePlannerWhenConfigured(t *testing.T) {
	srv := modelEnv(t)
	out, stderr, code := run(t, "eval", "--json", cliExamples)
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var sum struct {
		Total     int `json:"total"`
		RCCorrect int `json:"rc_correct"`
		HighWrong int `json:"high_wrong"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &sum))
	assert.Equal(t, sum.Total, sum.RCCorrect)
	assert.Zero(t, sum.HighWrong)
	assert.NotEmpty(t, srv.Requests(), "the model planned the investigations")

	n := len(srv.Requests())
	_, stderr, code = run(t, "eval", "--no-llm", cliExamples)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, n, len(srv.Requests()))
}

// toolShapes describes the fenced tool outputs of a request's first user
// message: per tool (in call order), its findings' kinds and the keys of
// the structured data shown with them. Values are left out: concurrent
// calls complete in any order and the demo's alert names its own window.
func toolShapes(t *testing.T, req *oaisim.ChatRequest) []string {
	t.Helper()
	require.GreaterOrEqual(t, len(req.Messages), 2)
	var out []string
	for _, g := range fencedRE.FindAllStringSubmatch(string(req.Messages[1].Content), -1) {
		if g[1] == "incident" {
			continue
		}
		var v struct {
			Tool     string `json:"tool"`
			Findings []struct {
				Kind string `json:"kind"`
			} `json:"findings"`
			Data any `json:"data"`
		}
		require.NoError(t, json.Unmarshal([]byte(g[2]), &v), g[2])
		var kinds, keys []string
		for _, f := range v.Findings {
			kinds = append(kinds, f.Kind)
		}
		sort.Strings(kinds)
		switch d := v.Data.(type) {
		case map[string]any:
			for k := range d {
				keys = append(keys, k)
			}
			sort.Strings(keys)
		case nil:
			keys = []string{"(no data)"}
		default:
			keys = []string{fmt.Sprintf("(%T)", d)}
		}
		out = append(out, fmt.Sprintf("%s findings=%v data=%v", v.Tool, kinds, keys))
	}
	return out
}

var fencedRE = regexp.MustCompile(`(?s)<<<DATA id=\S+ source=(\S+)>>>\n(.*?)\n<<<END DATA id=\S+>>>`)

// serve and demo (the bot's worker), investigate and eval show the model
// the same tool outputs, Kubernetes data included: the evaluation measures
// the prompt production sends.
func TestEveryPathShowsTheModelTheSameEvidence(t *testing.T) {
	t.Setenv("REDIS_URL", "") // the demo's embedded Redis
	t.Setenv("AUTOHEAL_ENCRYPTION_KEY", "")
	scen := filepath.Join(cliExamples, "cart-oomkilled-low-limit")
	first := func(run func()) []string {
		srv := modelEnv(t)
		run()
		reqs := srv.ChatRequests()
		require.NotEmpty(t, reqs)
		return toolShapes(t, reqs[0])
	}
	cli := first(func() {
		_, stderr, code := run(t, "investigate", "--scenario", scen, "--json")
		require.Equal(t, 0, code, stderr)
	})
	eval := first(func() {
		dir := t.TempDir()
		require.NoError(t, os.CopyFS(filepath.Join(dir, "cart"), os.DirFS(scen)))
		_, stderr, code := run(t, "eval", dir)
		require.Equal(t, 0, code, stderr)
	})
	demo := first(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		var stdout, stderr bytes.Buffer
		require.NoError(t, runDemo(ctx, []string{"--scenario", scen, "--approve=false"}, &stdout, &stderr), stderr.String())
	})

	require.GreaterOrEqual(t, len(cli), 5, "the first round")
	assert.Contains(t, strings.Join(demo, "\n"), "k8s_workload_status findings=[k8s_event] data=[findings namespace pods warning_events workloads_healthy workloads_unhealthy]",
		"the Kubernetes tool's data, not a line count")
	assert.Equal(t, cli, eval, "investigate and eval")
	assert.Equal(t, cli, demo, "investigate and the bot's worker (demo, serve)")
}
