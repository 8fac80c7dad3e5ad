package bot

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/alertmanager/template"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/alerts"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/render"
	"github.com/autoheal/autoheal/sessions"
)

// Once the result is posted, the alert's root message no longer says
// AutoHeal is investigating: it shows the outcome in one line (headline and
// badge), and keeps showing it through re-fires and the resolution.
func TestAlertRootShowsTheOutcomeOnceTheResultIsPosted(t *testing.T) {
	a := newAlertEnv(t, "checkout-fails-payment-typeerror", nil, nil)
	key := a.key(t)
	a.send(t, a.s.Trigger.Alert)
	inc := a.incident(t, key, "the thread to open", nil)
	invID := AlertInvestigationJobID(key, inc.LastInvestigatedAt)
	a.waitResult(t, invID)
	doc, err := a.rb.loadDoc(context.Background(), invID)
	require.NoError(t, err)
	line := render.OutcomeOf(doc.Result).Line()
	require.Contains(t, line, render.Badge(doc.Result.RootCause.Band))

	eventually(t, "the root to show the outcome", func() bool {
		m, _ := a.sim.Message(incidentChannel, inc.RootTS)
		return strings.Contains(blocksText(m), line)
	})
	root, _ := a.sim.Message(incidentChannel, inc.RootTS)
	assert.NotContains(t, blocksText(root), "investigating")
	assert.Contains(t, root.Text, "[FIRING] CheckoutErrorRateHigh")
	assert.Contains(t, root.Text, "("+string(doc.Result.RootCause.Band)+")")

	// A re-fire within the cooldown updates the count and keeps the outcome.
	a.send(t, a.variant(t, func(al *template.Alert) { al.StartsAt = al.StartsAt.Add(time.Hour) }))
	inc = a.incident(t, key, "the re-fire", func(i sessions.Incident) bool { return i.FireCount == 2 })
	eventually(t, "the root to show the re-fire", func() bool {
		m, _ := a.sim.Message(incidentChannel, inc.RootTS)
		return strings.Contains(m.Text, "fired 2 times")
	})
	root, _ = a.sim.Message(incidentChannel, inc.RootTS)
	assert.Contains(t, blocksText(root), line)
	assert.NotContains(t, blocksText(root), "investigating")

	// Resolved: still there, next to how long it lasted.
	a.send(t, a.variant(t, func(al *template.Alert) {
		al.Status, al.EndsAt = "resolved", time.Date(2026, 12, 1, 16, 55, 0, 0, time.UTC)
	}))
	inc = a.incident(t, key, "the resolution", func(i sessions.Incident) bool { return i.Status == sessions.IncidentResolved })
	eventually(t, "the root to say resolved", func() bool {
		m, _ := a.sim.Message(incidentChannel, inc.RootTS)
		return strings.Contains(m.Text, "[RESOLVED]")
	})
	root, _ = a.sim.Message(incidentChannel, inc.RootTS)
	assert.Contains(t, blocksText(root), line)
	assert.Contains(t, blocksText(root), "Lasted")
}

// An investigation that fails for good turns the root's "investigating"
// into a failure line.
func TestAlertRootSaysWhenTheInvestigationFailed(t *testing.T) {
	failing := InvestigatorFunc(func(context.Context, *investigate.Engine, investigate.Issue) (*investigate.HealResult, error) {
		return nil, errors.New("loki answered 502 three times")
	})
	a := newAlertEnv(t, "checkout-fails-payment-typeerror", nil, func(o *Options) {
		o.NoWorker = true
		o.Investigator = failing
	})
	msg, err := alerts.Decode(a.s.Trigger.Alert)
	require.NoError(t, err)
	plan, err := alerts.DefaultRouting(incidentChannel).Plan(msg, time.Now())
	require.NoError(t, err)
	require.Len(t, plan.Jobs, 1)
	job := plan.Jobs[0]
	ctx := testCtx(t)

	// Not the last attempt: retried, and the root still says investigating.
	job.EntryID, job.Attempt = "1700000000000-0", 1
	require.Error(t, a.rb.HandleJob(ctx, job))
	inc, err := a.store.GetIncident(ctx, job.Key)
	require.NoError(t, err)
	root, _ := a.sim.Message(incidentChannel, inc.RootTS)
	assert.Contains(t, blocksText(root), "AutoHeal is investigating in the thread")

	// The last attempt: the failure is shown in the thread and on the root.
	job.Attempt = a.rb.queue.Options().MaxAttempts
	require.Error(t, a.rb.HandleJob(ctx, job))
	thread := a.botMessages(incidentChannel, inc.RootTS)
	assert.Contains(t, thread[len(thread)-1].Text, ":x: The investigation failed", "the thread says it too")
	root, _ = a.sim.Message(incidentChannel, inc.RootTS)
	txt := blocksText(root)
	assert.NotContains(t, txt, "investigating")
	assert.Contains(t, txt, ":x: The investigation failed: loki answered 502 three times — see the thread")
	assert.Contains(t, root.Text, "investigation failed")
}

// A mention that investigates outside an alert's thread leaves every root
// alone, and a later result of the same incident replaces an earlier one
// but never the other way round.
func TestAlertRootOutcomeOrder(t *testing.T) {
	a := newAlertEnv(t, "checkout-fails-payment-typeerror", nil, func(o *Options) { o.NoWorker = true })
	msg, err := alerts.Decode(a.s.Trigger.Alert)
	require.NoError(t, err)
	plan, err := alerts.DefaultRouting(incidentChannel).Plan(msg, time.Now())
	require.NoError(t, err)
	job := plan.Jobs[0]
	job.EntryID, job.Attempt = "1700000000000-0", 1
	ctx := testCtx(t)
	require.NoError(t, a.rb.HandleJob(ctx, job))
	inc, err := a.store.GetIncident(ctx, job.Key)
	require.NoError(t, err)
	log := testLogger()

	t0 := time.Now()
	newer := render.AlertOutcome{Headline: "Root cause: newer", Band: investigate.BandMedium}
	older := render.AlertOutcome{Headline: "Root cause: older", Band: investigate.BandHigh}
	a.rb.settleAlertRoot(ctx, inc.Channel, inc.RootTS, "job-newer", t0.Add(time.Minute), newer, log)
	a.rb.settleAlertRoot(ctx, inc.Channel, inc.RootTS, "job-older", t0, older, log)
	root, _ := a.sim.Message(incidentChannel, inc.RootTS)
	assert.Contains(t, blocksText(root), newer.Line())
	assert.NotContains(t, blocksText(root), "older")

	// Not an alert thread: nothing changes.
	before := len(a.webCalls(0))
	a.rb.settleAlertRoot(ctx, incidentChannel, "1700000000.000100", "job-x", t0.Add(time.Hour), older, log)
	assert.Len(t, a.webCalls(0), before)
}
