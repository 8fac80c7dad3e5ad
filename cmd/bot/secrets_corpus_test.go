package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/redact"
	oaisim "github.com/autoheal/autoheal/sim/openai"
)

// plantedSecret is one credential testdata/secrets/plant.py planted in the
// checkout-planted-secrets incident.
type plantedSecret struct {
	ID    string   `json:"id"`
	Value string   `json:"value"`
	Where []string `json:"where"`
}

func loadPlantedSecrets(t *testing.T) (string, []plantedSecret) {
	t.Helper()
	b, err := os.ReadFile("../../testdata/secrets/planted.json")
	require.NoError(t, err)
	var m struct {
		Scenario string          `json:"scenario"`
		Planted  []plantedSecret `json:"planted"`
	}
	require.NoError(t, json.Unmarshal(b, &m))
	require.GreaterOrEqual(t, len(m.Planted), 40, "at least 40 planted secrets")
	return filepath.Join("../..", m.Scenario), m.Planted
}

// leakCheck collects every text the flow produced, by where it went.
type leakCheck struct {
	planted []plantedSecret
	outputs map[string]string
}

func (c *leakCheck) add(where, text string) {
	if c.outputs == nil {
		c.outputs = map[string]string{}
	}
	c.outputs[where] += text + "\n"
}

// assertNoLeak fails for every planted value an output shows, whole or as
// a prefix of 8 characters or more (what a cut before masking leaves), as
// written or JSON-escaped.
func (c *leakCheck) assertNoLeak(t *testing.T) {
	t.Helper()
	var leaks []string
	for where, text := range c.outputs {
		for _, p := range c.planted {
			prefix := p.Value[:min(8, len(p.Value))]
			esc, _ := json.Marshal(prefix)
			if strings.Contains(text, prefix) || strings.Contains(text, strings.Trim(string(esc), `"`)) {
				leaks = append(leaks, fmt.Sprintf("%s (planted in %s) reached %s", p.ID, p.Where[0], where))
			}
		}
	}
	sort.Strings(leaks)
	if len(leaks) > 0 {
		t.Errorf("%d planted secrets leaked:\n%s", len(leaks), strings.Join(leaks, "\n"))
	}
}

// The planted-secrets corpus over the whole flow: an incident whose logs,
// span attributes, exception messages, Kubernetes objects (as the MCP
// server answers them), commit messages, patches, source files and alert
// annotations hold 40+ credentials of different formats. Neither the Slack
// flow (bot demo: the alert through the webhook, the thread, the Approve
// click, the pull request, the re-fire) nor the CLI (--json), with or
// without the model, may let one reach Slack, a model request, GitHub,
// a log line, printed output or a transcript.
func TestPlantedSecretsNeverLeave(t *testing.T) {
	dir, planted := loadPlantedSecrets(t)
	t.Setenv("REDIS_URL", "") // the embedded Redis
	t.Setenv("AUTOHEAL_ENCRYPTION_KEY", "")
	t.Setenv("AUTOHEAL_WEBHOOK_TOKEN", "")

	for _, name := range []string{"deterministic", "llm", "llm-reads-everything"} {
		withModel := name != "deterministic"
		t.Run(name, func(t *testing.T) {
			c := &leakCheck{planted: planted}
			if withModel {
				var srv *oaisim.Server
				if name == "llm-reads-everything" {
					srv = curiousModelEnv(t)
				} else {
					srv = modelEnv(t)
				}
				defer func() {
					require.NotEmpty(t, srv.Requests(), "the model planned the investigation")
					var bodies strings.Builder
					for i, r := range srv.Requests() {
						c.add(fmt.Sprintf("model request %d", i+1), string(r.Body))
						bodies.Write(r.Body)
					}
					require.Contains(t, bodies.String(), redact.Mask, "planted values reached the prompts, masked")
					c.assertNoLeak(t)
				}()
			} else {
				t.Setenv("OPENAI_API_KEY", "")
				defer c.assertNoLeak(t)
			}

			// The Slack flow, with debug logs.
			tmp := t.TempDir()
			tr := filepath.Join(tmp, "demo-transcript.jsonl")
			var stdout, stderr bytes.Buffer
			prs := 0
			hooks := demoHooks{Inspect: func(b *harness.Backends) { prs = inspectGitHub(t, b, c) }}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			err := demo(ctx, []string{"--scenario", dir, "--transcript", tr, "-v"}, &stdout, &stderr, hooks)
			require.NoError(t, err, stderr.String())
			if name != "llm-reads-everything" { // that model's answer, lacking a file:line, offers no fix to approve
				require.Equal(t, 1, prs, "the approved fix opened a pull request:\n%s", stdout.String())
			}
			require.Contains(t, stdout.String(), "payment", "the thread shows the diagnosis")
			require.Contains(t, stdout.String(), redact.Mask, "planted values reached the thread, masked")
			c.add("the demo's output (Slack thread)", stdout.String())
			c.add("log lines (slog, debug)", stderr.String())
			raw, err := os.ReadFile(tr)
			require.NoError(t, err)
			require.Contains(t, string(raw), "chat.postMessage", "the transcript holds the Slack calls")
			c.add("the demo transcript (Slack, GitHub, backends)", string(raw))

			// The CLI: --json, its transcript, its logs and, with the
			// model, the recorded session.
			itr := filepath.Join(tmp, "investigate-transcript.jsonl")
			args := []string{"investigate", "--scenario", dir, "--json", "--log-level", "debug", "--transcript", itr}
			if withModel {
				args = append(args, "--record", filepath.Join(tmp, "session.jsonl"))
			}
			out, errOut, code := run(t, args...)
			require.Equal(t, 0, code, errOut)
			require.Contains(t, out, `"src/payment/charge.js"`)
			c.add("investigate --json", out)
			c.add("investigate log lines", errOut)
			for _, f := range []string{itr, filepath.Join(tmp, "session.jsonl")} {
				if b, err := os.ReadFile(f); err == nil {
					c.add(filepath.Base(f), string(b))
				}
			}
		})
	}
}

// inspectGitHub adds everything the bot wrote to the GitHub simulator and
// returns the number of pull requests: titles, bodies, comments, commit
// messages, branch names, and the lines the pull request changed (what the
// repository already held is not the bot's doing).
func inspectGitHub(t *testing.T, b *harness.Backends, c *leakCheck) int {
	owner, name, _ := strings.Cut(b.Scenario.Config["repo"], "/")
	issues, err := b.GitHub.Issues(owner, name)
	require.NoError(t, err)
	for _, is := range issues {
		c.add("GitHub issue or pull request", is.Title+"\n"+is.Body)
		for _, cm := range is.Comments {
			c.add("GitHub comment", cm.Body)
		}
	}
	branches, _ := b.GitHub.Branches(owner, name)
	c.add("GitHub branches", strings.Join(branches, "\n"))
	prs, err := b.GitHub.PullRequests(owner, name)
	require.NoError(t, err)
	for _, pr := range prs {
		for _, sha := range pr.Commits {
			msg, err := b.GitHub.CommitMessage(owner, name, sha)
			require.NoError(t, err)
			c.add("GitHub commit message", msg)
		}
		files, _ := b.GitHub.Files(owner, name, pr.Head)
		for _, f := range files {
			head, _ := b.GitHub.FileAt(owner, name, pr.Head, f)
			base, _ := b.GitHub.FileAt(owner, name, pr.Base, f)
			had := map[string]bool{}
			for _, l := range strings.Split(string(base), "\n") {
				had[l] = true
			}
			for _, l := range strings.Split(string(head), "\n") {
				if !had[l] {
					c.add("a line the pull request wrote to "+f, l)
				}
			}
		}
	}
	return len(prs)
}

// curiousModelEnv points the planner at a model that first reads everything
// it can about the incident (pods as YAML, their logs through the
// Kubernetes MCP server, the Deployment, ConfigMaps, events, the Secret —
// refused —, raw logs, a whole trace, another source file), then
// investigates as the scripted investigator does: every tool's output
// reaches a model request.
func curiousModelEnv(t *testing.T) *oaisim.Server {
	t.Helper()
	inv := oaisim.Investigator{}
	ns := "astronomy-shop"
	reads := oaisim.Calls(
		oaisim.Call("k8s_pods_list", map[string]any{"namespace": ns}),
		oaisim.Call("k8s_pods_get", map[string]any{"namespace": ns, "name": "payment-zjgbbfsd7-9l69s"}),
		oaisim.Call("k8s_pods_log", map[string]any{"namespace": ns, "name": "payment-zjgbbfsd7-9l69s", "tail": 200}),
		oaisim.Call("k8s_pods_log", map[string]any{"namespace": ns, "name": "payment-zjgbbfsd7-jxn98", "tail": 200}),
		oaisim.Call("k8s_resources_get", map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "namespace": ns, "name": "payment"}),
		oaisim.Call("k8s_resources_list", map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "namespace": ns}),
		oaisim.Call("k8s_resources_get", map[string]any{"apiVersion": "v1", "kind": "Secret", "namespace": ns, "name": "payment-acquirer"}),
		oaisim.Call("k8s_events_list", map[string]any{"namespace": ns}),
		oaisim.Call("logs_query", map[string]any{"query": `{service_name="frontend"}`, "start": "2026-12-01T15:00:00Z", "end": "2026-12-01T16:24:00Z"}),
		oaisim.Call("traces_get", map[string]any{"trace_id": "13390bbea0ac5ebb6b66adca3ce7ca6a"}),
		oaisim.Call("traces_get", map[string]any{"trace_id": "be0585eaa749cc95a19fc308e78a5a06"}),
		oaisim.Call("source_read", map[string]any{"file": "src/payment/logger.js", "line": 2}),
	)
	t.Setenv("AUTOHEAL_LLM_MAX_TOOL_CALLS", "24")
	return modelEnvWith(t, oaisim.ModelFunc(func(req *oaisim.ChatRequest) oaisim.Reply {
		if len(req.Messages) <= 2 { // the first request: read everything
			return reads
		}
		return inv.Reply(req)
	}))
}
