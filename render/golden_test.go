package render

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json from the current output")

// toJSON renders v as Slack would receive it (indented for review).
func toJSON(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	require.NoError(t, enc.Encode(v))
	return buf.Bytes()
}

func golden(t *testing.T, name string, v any) {
	t.Helper()
	got := toJSON(t, v)
	path := filepath.Join("testdata", name+".golden.json")
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run go test ./render -update")
	assert.Equal(t, string(want), string(got), "output differs from %s; run go test ./render -update and review the diff", path)
}

// mustValid asserts every message and modal in v passes the validator.
func mustValid(t *testing.T, v any) {
	t.Helper()
	switch v := v.(type) {
	case Message:
		require.NoError(t, Validate(v))
		assert.LessOrEqual(t, textLen(v.Text), MaxFallbackText, "fallback text")
	case ResultMessages:
		mustValid(t, v.Main)
		for _, m := range v.FollowUps {
			mustValid(t, m)
		}
	case []Message:
		for _, m := range v {
			mustValid(t, m)
		}
	case slack.ModalViewRequest:
		require.NoError(t, ValidateModal(v))
	default:
		t.Fatalf("unexpected payload type %T", v)
	}
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		require.NoError(t, err)
		return v
	}
}

func TestGolden(t *testing.T) {
	eligible := ApprovalView{Eligible: true}
	cases := map[string]func(t *testing.T) any{
		"progress_running": func(t *testing.T) any {
			steps := StepsFromReceipts(codeBugResult().Timeline[:3])
			steps = append(steps, Step{Label: "Source: reading AdService.java", Status: StepRunning})
			return must[Message](t)(ProgressMessage(Progress{
				Title: "ad service is throwing errors since 10am", Trigger: investigate.TriggerMention, Steps: steps,
				Hypothesis: "NullPointerException in AdService.getAds", Band: investigate.BandMedium,
				Elapsed: 12 * time.Second, Mode: investigate.ModeDeterministic, Action: &action,
			}))
		},
		"progress_alert_failures": func(t *testing.T) any {
			return must[Message](t)(ProgressMessage(Progress{
				Title: "HighErrorRate: checkout error rate above 5%", Trigger: investigate.TriggerAlert,
				Steps: StepsFromReceipts(lowResult().Timeline), Band: investigate.BandLow, Elapsed: 33 * time.Second,
				Mode: investigate.ModeLLM,
			}))
		},
		"result_code_bug_pending": func(t *testing.T) any {
			return must[ResultMessages](t)(Result(codeBugResult(), ResultOptions{RepoWebURL: webBase, Approval: eligible, Action: action,
				ThreadLink: "https://acme.slack.com/archives/C0INCIDENT/p1764497400000900"}))
		},
		"result_code_bug_approved": func(t *testing.T) any {
			return must[ResultMessages](t)(Result(codeBugResult(), ResultOptions{RepoWebURL: webBase, Action: action, OmitTimeline: true,
				Approval: ApprovalView{Eligible: true, State: ApprovalApproved, By: "U0ONCALL", PRURL: "https://github.com/acme/astronomy-shop/pull/42"}}))
		},
		"result_code_bug_rejected": func(t *testing.T) any {
			return must[ResultMessages](t)(Result(codeBugResult(), ResultOptions{RepoWebURL: webBase, Action: action, OmitTimeline: true,
				Approval: ApprovalView{Eligible: true, State: ApprovalRejected, By: "U0ONCALL", RejectReason: "the null check hides the real bug <upstream>"}}))
		},
		"result_oom_colorbar": func(t *testing.T) any {
			return must[ResultMessages](t)(Result(oomResult(), ResultOptions{RepoWebURL: "https://ghe.acme.io", Ref: "release/2.1", Action: action, ColorBar: true,
				Approval: ApprovalView{Eligible: true}}))
		},
		"result_low": func(t *testing.T) any {
			return must[ResultMessages](t)(Result(lowResult(), ResultOptions{Action: action, CreateIssue: true,
				Approval: ApprovalView{Note: "No PR: band LOW is below MEDIUM"}}))
		},
		"result_view_patch": func(t *testing.T) any {
			return PatchMessages(codeBugResult(), true)
		},
		"result_patch_upload": func(t *testing.T) any {
			r := codeBugResult()
			r.Fix.Patch.Diff = strings.Repeat(adDiff, 60) // ~30 KB
			return PatchMessages(r, false)
		},
		"alert_firing": func(t *testing.T) any {
			return AlertRoot(Alert{Name: "HighErrorRate", Severity: "critical", Service: "checkout", Namespace: "shop",
				Summary: "checkout error rate is 12% (> 5%)", Description: "5xx responses on /api/checkout",
				GeneratorURL: "http://prometheus:9090/graph?g0.expr=rate%28x%5B5m%5D%29&g0.tab=1", StartsAt: t0.Add(-10 * time.Minute), FireCount: 1})
		},
		"alert_refired": func(t *testing.T) any {
			return AlertRoot(Alert{Name: "HighErrorRate", Severity: "warning", Service: "checkout", Namespace: "shop",
				Summary: "checkout error rate is 7%", StartsAt: t0.Add(-time.Hour), FireCount: 3, LastFired: t0})
		},
		"alert_resolved": func(t *testing.T) any {
			return AlertRoot(Alert{Name: "HighErrorRate", Severity: "critical", Service: "checkout", Namespace: "shop",
				Summary: "checkout error rate is 12% (> 5%)", StartsAt: t0.Add(-23 * time.Minute), Resolved: true, EndsAt: t0, FireCount: 2})
		},
		"alert_resolved_reply": func(t *testing.T) any {
			return AlertResolvedReply(Alert{Name: "HighErrorRate", StartsAt: t0.Add(-23*time.Minute - 10*time.Second), Resolved: true, EndsAt: t0, FireCount: 2})
		},
		"config_modal": func(t *testing.T) any {
			return must[slack.ModalViewRequest](t)(ConfigModal(Settings{
				"repo":         {Value: "acme/astronomy-shop", Source: SourceChannel},
				"loki_url":     {Value: "https://loki.acme.io", Source: SourceThread},
				"github_token": {Value: "ghp_plantedSecretValue123456", Source: SourceEnv},
			}, action.Meta()))
		},
		"reject_modal": func(t *testing.T) any {
			m := action.Meta()
			m.MessageTS = "1764497999.000100"
			return must[slack.ModalViewRequest](t)(RejectModal(m))
		},
		"status": func(t *testing.T) any {
			return Status(StatusView{
				Settings: Settings{
					"repo":         {Value: "acme/astronomy-shop", Source: SourceChannel},
					"jaeger_url":   {Value: "https://jaeger.acme.io", Source: SourceEnv},
					"github_token": {Value: "ghp_plantedSecretValue123456", Source: SourceThread},
				},
				Capabilities: []CapabilityStatus{
					{Family: investigate.FamilyTraces, Available: true},
					{Family: investigate.FamilyLogs, Kind: investigate.ErrKindNotConfigured, Reason: "set loki_url"},
					{Family: investigate.FamilyK8s, Kind: investigate.ErrKindUnreachable, Reason: "MCP server did not answer"},
				},
				Planner:     "deterministic — OPENAI_API_KEY not set",
				QueueDepth:  2,
				DeadLetters: []DeadLetter{{JobID: "1764490000000-0", Issue: "payment fails", Reason: "investigation timed out after 3 attempts", At: t0, Attempts: 3}},
			})
		},
		"help": func(t *testing.T) any { return Help(HelpOptions{MinBand: investigate.BandMedium, PullRequests: true}) },
		"ack_saved": func(t *testing.T) any {
			return ConfigSaved(SavedAck{Saved: map[string]string{"repo": "acme/shop", "loki_url": "https://loki", "github_token": "ghp_plantedSecretValue123456"}, FromMessage: true})
		},
		"missing_credential": func(t *testing.T) any {
			return must[Message](t)(MissingCredential("github_token", &action))
		},
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			v := build(t)
			mustValid(t, v)
			golden(t, name, v)
		})
	}
}
