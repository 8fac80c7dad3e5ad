package metrics

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate/llm"
	"github.com/autoheal/autoheal/sessions"
)

type fakeDepth struct {
	d   sessions.Depth
	err error
}

func (f *fakeDepth) Depth(context.Context) (sessions.Depth, error) { return f.d, f.err }

func scrape(t *testing.T, r *Registry) string {
	t.Helper()
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

func TestRegistryExposesEveryFamily(t *testing.T) {
	q := &fakeDepth{d: sessions.Depth{Stream: 7, Pending: 3, Waiting: 4, Dead: 2}}
	counters := llm.NewCounters()
	counters.Add(llm.MetricPromptTokens, 1200, "model", "gpt-4o-mini")
	counters.Add(llm.MetricCost, 0.25, "model", "gpt-4o-mini")
	r := New(Options{Queue: q, LLM: counters})
	r.AlertsReceived("firing", 3)
	r.AlertsReceived("resolved", 1)
	r.AlertsDeduplicated(2)
	r.WebhookRejected(ReasonUnauthorized)
	r.WebhookEnqueued(3 * time.Millisecond)
	r.IncidentEvent("opened")
	r.InvestigationDone("ok", "HIGH", "deterministic", 4*time.Second)
	r.InvestigationDone("failed", "", "", time.Second)
	r.Approval("approved")
	r.Approval("refused")
	r.Approval("refused")
	r.ApprovalResumed()

	out := scrape(t, r)
	for _, want := range []string{
		`autoheal_alerts_received_total{status="firing"} 3`,
		`autoheal_alerts_received_total{status="resolved"} 1`,
		`autoheal_alerts_deduplicated_total 2`,
		`autoheal_alerts_rejected_total{reason="unauthorized"} 1`,
		`autoheal_alerts_rejected_total{reason="queue_full"} 0`,
		`autoheal_webhook_enqueue_seconds_count 1`,
		`autoheal_incident_events_total{event="opened"} 1`,
		`autoheal_investigations_total{band="HIGH",mode="deterministic",outcome="ok"} 1`,
		`autoheal_investigations_total{band="none",mode="none",outcome="failed"} 1`,
		`autoheal_investigation_duration_seconds_bucket{outcome="ok",le="5"} 1`,
		`autoheal_approvals_total{action="approved"} 1`,
		`autoheal_approvals_resumed_total 1`,
		`autoheal_approvals_total{action="refused"} 2`,
		`autoheal_approvals_total{action="updated"} 0`,
		`autoheal_approvals_total{action="rejected"} 0`,
		`autoheal_queue_jobs{state="waiting"} 4`,
		`autoheal_queue_jobs{state="pending"} 3`,
		`autoheal_queue_length 7`,
		`autoheal_queue_dead_letters 2`,
		`autoheal_queue_up 1`,
		`autoheal_llm_prompt_tokens_total{model="gpt-4o-mini"} 1200`,
		`autoheal_llm_cost_usd_total{model="gpt-4o-mini"} 0.25`,
		`go_goroutines`,
		`process_resident_memory_bytes`,
	} {
		assert.Contains(t, out, want)
	}

	// Read on every scrape.
	q.d.Dead = 5
	assert.Contains(t, scrape(t, r), "autoheal_queue_dead_letters 5")
	q.err = errors.New("redis down")
	out = scrape(t, r)
	assert.Contains(t, out, "autoheal_queue_up 0")
	assert.NotContains(t, out, "autoheal_queue_dead_letters")
	assert.True(t, strings.Contains(out, "autoheal_alerts_received_total"), "the rest still answers")
}
