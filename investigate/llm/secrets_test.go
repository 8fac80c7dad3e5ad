package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/redact"
	"github.com/autoheal/autoheal/scenario"
	oaisim "github.com/autoheal/autoheal/sim/openai"
)

// variants are the spellings a planted value may take in a request.
func variants(v string) []string {
	out := []string{v}
	if c := strings.ReplaceAll(v, " ", ""); c != v {
		out = append(out, c)
	}
	if b, err := json.Marshal(v); err == nil {
		out = append(out, strings.Trim(string(b), `"`))
	}
	return out
}

// The session's secret is registered with the planner's redactor (as the bot
// does for session config); the engine's redactor knows nothing of it, so the
// planner's own path must keep it out. Personal data (emails, card numbers,
// IP addresses where configured) and credential-shaped strings are planted in
// the trigger, the traces and the logs. No request the model receives, no
// recorded exchange and no log line may contain any of them, whichever way
// the conversation goes.
func TestNoPlantedSecretOrPersonalDataReachesTheModel(t *testing.T) {
	t.Parallel()
	pd := loadPlanted(t)
	models := map[string]oaisim.Model{
		"investigator": oaisim.Investigator{},
		"obedient":     oaisim.Obedient(oaisim.Investigator{}),
		"overclaim":    oaisim.Investigator{Overclaim: true},
		"repair": oaisim.NewScript(oaisim.Fixed(oaisim.Text("it is the checkout service")), inv.Reply, inv.Reply,
			inv.Reply, inv.Reply),
		"rate-limited": oaisim.ModelFunc(func(*oaisim.ChatRequest) oaisim.Reply { return oaisim.RateLimited(0) }),
	}
	for name, model := range models {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			secrets := redact.New(redact.Options{})
			secrets.Register(pd.Planted["session_secret"])
			var rec, logs bytes.Buffer
			env := startSim(t, oaisim.Options{Model: model})
			p := newPlanner(t, env, func(s *plannerSetup) {
				s.opts.Redactor = secrets
				s.opts.Record = &rec
				s.opts.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
				s.cfg.RedactIPs = true
			})
			s, err := scenario.Load(planted)
			require.NoError(t, err)
			res, err := harness.Run(context.Background(), s, harness.RunOptions{Investigator: p.Investigate,
				Engine:   investigate.Options{Redactor: redact.New(redact.Options{})},
				Backends: harness.Options{GitHubToken: pd.Planted["session_secret"]}})
			require.NoError(t, err)

			reqs := env.srv.Requests()
			require.NotEmpty(t, reqs)
			var corpus strings.Builder
			for _, r := range reqs {
				corpus.Write(r.Body)
				corpus.WriteString("\n")
				for k, vs := range r.Header {
					corpus.WriteString(k + ": " + strings.Join(vs, ",") + "\n")
				}
			}
			for key, v := range pd.Planted {
				for _, s := range variants(v) {
					assert.NotContains(t, corpus.String(), s, "planted %s in a request", key)
					assert.NotContains(t, rec.String(), s, "planted %s in the recording", key)
					assert.NotContains(t, logs.String(), s, "planted %s in the logs", key)
				}
			}
			assert.NotContains(t, corpus.String(), testKey, "the API key travels only in the Authorization header")
			assert.NotContains(t, rec.String(), testKey)
			assert.NotContains(t, logs.String(), testKey)

			if res.Mode == investigate.ModeLLM {
				// What the model wrote (and what the planner adds) is clean too.
				out, err := json.Marshal(struct {
					S, N, M string
					RC      investigate.RootCause
					F       investigate.Fix
					E       []investigate.Finding
				}{res.Summary, res.ConfidenceNote, res.ModeNote, res.RootCause, res.Fix, res.Evidence})
				require.NoError(t, err)
				for key, v := range pd.Planted {
					assert.NotContains(t, string(out), v, "planted %s in the result", key)
				}
				assert.Contains(t, corpus.String(), "[EMAIL]", "personal data was there, masked")
				assert.Contains(t, corpus.String(), "[CARD]")
				assert.Contains(t, corpus.String(), "[REDACTED]")
			}
		})
	}
}
