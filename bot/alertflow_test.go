package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/alertmanager/template"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/alerts"
	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sessions"
	slacksim "github.com/autoheal/autoheal/sim/slack"
)

const webhookToken = "bot-test-webhook-token-0123456789"

// alertEnv is a replica with the Alertmanager webhook in front of its queue.
type alertEnv struct {
	*testEnv
	rb  *runningBot
	url string
	s   *scenario.Scenario
}

func newAlertEnv(t *testing.T, scen string, routing *alerts.Routing, mod func(*Options)) *alertEnv {
	t.Helper()
	e := newEnv(t, envOptions{})
	s, _ := e.scenarioEnv(t, scen)
	require.True(t, s.Trigger.IsAlert())
	rb := e.startBot(t, func(o *Options) {
		o.Now = func() time.Time { return s.Now }
		if mod != nil {
			mod(o)
		}
	})
	if routing == nil {
		routing = alerts.DefaultRouting(incidentChannel)
	}
	// The webhook's side of the same queue, with the dedupe window serve uses.
	wq, err := sessions.NewQueue(e.rdb, sessions.QueueOptions{Stream: rb.queue.Options().Stream, DedupeWindow: routing.DedupeWindow, Logger: testLogger()})
	require.NoError(t, err)
	wh, err := alerts.NewWebhook(alerts.WebhookOptions{Token: webhookToken, Routing: routing, Queue: wq, Logger: testLogger()})
	require.NoError(t, err)
	srv := httptest.NewServer(wh)
	t.Cleanup(srv.Close)
	return &alertEnv{testEnv: e, rb: rb, url: srv.URL, s: s}
}

// send posts a webhook body as Alertmanager does.
func (a *alertEnv) send(t *testing.T, body []byte) alerts.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, a.url, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+webhookToken)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var out alerts.Response
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return out
}

// variant rewrites the scenario's alerts (status, start, end).
func (a *alertEnv) variant(t *testing.T, mod func(*template.Alert)) []byte {
	t.Helper()
	m, err := alerts.Decode(a.s.Trigger.Alert)
	require.NoError(t, err)
	for i := range m.Alerts {
		mod(&m.Alerts[i])
	}
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return b
}

func (a *alertEnv) key(t *testing.T) string {
	t.Helper()
	m, err := alerts.Decode(a.s.Trigger.Alert)
	require.NoError(t, err)
	incs := m.Incidents()
	require.Len(t, incs, 1)
	return incs[0].Key
}

// incident waits until the incident's thread is open and cond holds.
func (a *alertEnv) incident(t *testing.T, key string, what string, cond func(sessions.Incident) bool) sessions.Incident {
	t.Helper()
	var inc sessions.Incident
	eventually(t, what, func() bool {
		got, err := a.store.GetIncident(context.Background(), key)
		inc = got
		return err == nil && got.RootTS != "" && (cond == nil || cond(got))
	})
	return inc
}

func (a *alertEnv) roots() []slacksim.Message {
	var out []slacksim.Message
	for _, m := range a.sim.Messages(incidentChannel) {
		if m.BotID != "" && (m.ThreadTS == "" || m.ThreadTS == m.TS) {
			out = append(out, m)
		}
	}
	return out
}

func countPrefix(msgs []slacksim.Message, prefix string) int {
	n := 0
	for _, m := range msgs {
		if strings.HasPrefix(m.Text, prefix) {
			n++
		}
	}
	return n
}

// An Alertmanager notification opens a thread in the incident channel and
// investigates in it; re-fires converge on it without a second
// investigation within the cooldown; the resolution closes it.
func TestAlertOpensConvergesAndResolvesOneThread(t *testing.T) {
	a := newAlertEnv(t, "checkout-fails-payment-typeerror", nil, nil)
	key := a.key(t)
	out := a.send(t, a.s.Trigger.Alert)
	assert.Equal(t, 1, out.Queued)

	inc := a.incident(t, key, "the thread to open", nil)
	assert.Equal(t, incidentChannel, inc.Channel)
	invID := AlertInvestigationJobID(key, inc.LastInvestigatedAt)
	rec := a.waitResult(t, invID)
	roots := a.roots()
	require.Len(t, roots, 1)
	assert.Equal(t, inc.RootTS, roots[0].TS)
	assert.Contains(t, roots[0].Text, "[FIRING] CheckoutErrorRateHigh")
	assert.Contains(t, blocksText(roots[0]), "View source")
	assert.Contains(t, blocksText(roots[0]), "Severity")
	replies := a.botMessages(incidentChannel, inc.RootTS)[1:]
	require.NotEmpty(t, replies)
	assert.Equal(t, rec.MessageTS, replies[0].TS)
	assert.True(t, strings.HasPrefix(replies[0].Text, "Root cause"), replies[0].Text)
	assert.Contains(t, blocksText(replies[0]), "key `"+key+"`")

	// The same notification again (a retry): dropped at the webhook.
	out = a.send(t, a.s.Trigger.Alert)
	assert.Equal(t, 1, out.Duplicate)
	// Two re-fires (the alert started again): counted, root updated, one reply.
	for i := 1; i <= 2; i++ {
		out = a.send(t, a.variant(t, func(al *template.Alert) { al.StartsAt = al.StartsAt.Add(time.Duration(i) * time.Hour) }))
		assert.Equal(t, 1, out.Queued)
	}
	inc = a.incident(t, key, "three fires", func(i sessions.Incident) bool { return i.FireCount == 3 })
	eventually(t, "the root to show the re-fires", func() bool {
		m, _ := a.sim.Message(incidentChannel, inc.RootTS)
		return strings.Contains(m.Text, "fired 3 times")
	})
	eventually(t, "the queue to drain", func() bool {
		d, err := a.rb.queue.Depth(context.Background())
		return err == nil && d.Stream == 0
	})
	thread := a.botMessages(incidentChannel, inc.RootTS)
	assert.Equal(t, 1, countPrefix(thread, ":repeat:"), "one re-fire reply per cooldown")
	assert.Equal(t, 1, countPrefix(thread, "Root cause"), "no second investigation within the cooldown")
	assert.Equal(t, 0, countPrefix(thread, "Investigating"))
	assert.Len(t, a.roots(), 1, "re-fires converge on the one thread")

	// Resolved.
	end := time.Date(2026, 12, 1, 16, 55, 0, 0, time.UTC)
	out = a.send(t, a.variant(t, func(al *template.Alert) {
		al.Status, al.EndsAt = "resolved", end
	}))
	assert.Equal(t, 1, out.Queued)
	inc = a.incident(t, key, "the resolution", func(i sessions.Incident) bool { return i.Status == sessions.IncidentResolved })
	eventually(t, "the thread to say resolved", func() bool {
		return countPrefix(a.botMessages(incidentChannel, inc.RootTS), "CheckoutErrorRateHigh resolved after") == 1
	})
	root, _ := a.sim.Message(incidentChannel, inc.RootTS)
	assert.Contains(t, root.Text, "[RESOLVED] CheckoutErrorRateHigh")
	assert.Contains(t, blocksText(root), "Lasted")
	assert.Equal(t, end, inc.ResolvedAt.UTC())
}

// A job delivered again (its replica died after finishing, or the entry was
// reclaimed) counts its fire once and posts nothing twice.
func TestAlertJobRerunIsIdempotent(t *testing.T) {
	a := newAlertEnv(t, "checkout-fails-payment-typeerror", nil, func(o *Options) { o.NoWorker = true })
	msg, err := alerts.Decode(a.s.Trigger.Alert)
	require.NoError(t, err)
	plan, err := alerts.DefaultRouting(incidentChannel).Plan(msg, time.Now())
	require.NoError(t, err)
	require.Len(t, plan.Jobs, 1)
	job := plan.Jobs[0]
	job.EntryID, job.Attempt = "1700000000000-0", 1
	ctx := testCtx(t)
	require.NoError(t, a.rb.HandleJob(ctx, job))
	before := len(a.webCalls(0))
	job.Attempt = 2
	require.NoError(t, a.rb.HandleJob(ctx, job))
	assert.Len(t, a.webCalls(0), before, "nothing posted or updated again")
	inc, err := a.store.GetIncident(ctx, job.Key)
	require.NoError(t, err)
	assert.Equal(t, 1, inc.FireCount, "the fire is counted once")
	assert.Len(t, a.roots(), 1)
	assert.Equal(t, 1, countPrefix(a.botMessages(incidentChannel, inc.RootTS), "Root cause"))

	// Another entry (a later notification) is another fire.
	job.EntryID, job.Attempt = "1700000000001-0", 1
	require.NoError(t, a.rb.HandleJob(ctx, job))
	inc, err = a.store.GetIncident(ctx, job.Key)
	require.NoError(t, err)
	assert.Equal(t, 2, inc.FireCount)
}

// A route that only posts opens the thread without investigating and says
// how to ask for one.
func TestAlertPostOnlyRoute(t *testing.T) {
	cfg, err := alerts.ParseConfig("c.yaml", []byte("routing:\n  default_channel: "+incidentChannel+"\n  investigate: {severities: [critical]}\n"))
	require.NoError(t, err)
	a := newAlertEnv(t, "checkout-fails-payment-typeerror", cfg.Routing, nil) // its severity is "page"
	a.send(t, a.s.Trigger.Alert)
	inc := a.incident(t, a.key(t), "the thread to open", nil)
	eventually(t, "the queue to drain", func() bool {
		d, err := a.rb.queue.Depth(context.Background())
		return err == nil && d.Stream == 0
	})
	root, _ := a.sim.Message(incidentChannel, inc.RootTS)
	assert.Contains(t, blocksText(root), "Mention @autoheal in the thread to investigate")
	assert.NotContains(t, blocksText(root), "AutoHeal is investigating")
	assert.Len(t, a.botMessages(incidentChannel, inc.RootTS), 1, "no investigation in the thread")
}

type fakeRefirer struct {
	mu   sync.Mutex
	reqs []RefireRequest
	// failures is how many calls fail before one succeeds.
	failures int
}

func (f *fakeRefirer) Refire(_ context.Context, req RefireRequest) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = append(f.reqs, req)
	if len(f.reqs) <= f.failures {
		return "", errors.New("github: 502 server_error")
	}
	return ":link: Pull request updated for this re-fire.", nil
}

func (f *fakeRefirer) calls() []RefireRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]RefireRequest(nil), f.reqs...)
}

// After the cooldown a re-fire investigates again in the same thread and
// converges the pull request with the new result.
func TestAlertRefireAfterCooldownInvestigatesAgainAndConvergesThePR(t *testing.T) {
	cfg, err := alerts.ParseConfig("c.yaml", []byte("routing:\n  default_channel: "+incidentChannel+"\n  cooldown: 0s\n"))
	require.NoError(t, err)
	ref := &fakeRefirer{}
	a := newAlertEnv(t, "checkout-fails-payment-typeerror", cfg.Routing, func(o *Options) { o.Refirer = ref })
	key := a.key(t)
	a.send(t, a.s.Trigger.Alert)
	inc := a.incident(t, key, "the thread to open", nil)
	first := a.waitResult(t, AlertInvestigationJobID(key, inc.LastInvestigatedAt))

	a.send(t, a.variant(t, func(al *template.Alert) { al.StartsAt = al.StartsAt.Add(time.Hour) }))
	inc = a.incident(t, key, "the re-fire", func(i sessions.Incident) bool { return i.FireCount == 2 })
	second := a.waitResult(t, AlertInvestigationJobID(key, inc.LastInvestigatedAt))
	assert.NotEqual(t, first.MessageTS, second.MessageTS)
	eventually(t, "the pull request note", func() bool {
		return countPrefix(a.botMessages(incidentChannel, inc.RootTS), ":link:") == 1
	})
	thread := a.botMessages(incidentChannel, inc.RootTS)
	assert.Equal(t, 2, countPrefix(thread, "Root cause"), "two investigations in one thread")
	assert.Equal(t, 1, countPrefix(thread, ":repeat:"))
	assert.Len(t, a.roots(), 1)
	calls := ref.calls()
	require.Len(t, calls, 1)
	assert.Equal(t, key, calls[0].IssueKey)
	assert.Equal(t, 2, calls[0].FireCount)
	assert.True(t, calls[0].Reinvestigated, "this fire was investigated")
	require.NotNil(t, calls[0].Result)
	assert.NotEmpty(t, calls[0].Result.RootCause.Band, "the new investigation's result")
	assert.NotEmpty(t, calls[0].Settings.Get("github_api_url"), "the thread's settings go along")
}

// Within the cooldown a re-fire runs no investigation: the pull request is
// converged with the latest result, and told that nothing new was
// investigated (Reinvestigated false).
func TestAlertRefireWithinCooldownTellsThePRNothingNewWasInvestigated(t *testing.T) {
	ref := &fakeRefirer{}
	a := newAlertEnv(t, "checkout-fails-payment-typeerror", nil, func(o *Options) { o.Refirer = ref })
	key := a.key(t)
	a.send(t, a.s.Trigger.Alert)
	inc := a.incident(t, key, "the thread to open", nil)
	a.waitResult(t, AlertInvestigationJobID(key, inc.LastInvestigatedAt))

	a.send(t, a.variant(t, func(al *template.Alert) { al.StartsAt = al.StartsAt.Add(time.Hour) }))
	eventually(t, "the refirer call", func() bool { return len(ref.calls()) == 1 })
	calls := ref.calls()
	assert.False(t, calls[0].Reinvestigated, "no investigation ran for this fire")
	assert.Equal(t, 2, calls[0].FireCount)
	require.NotNil(t, calls[0].Result, "the latest earlier result goes along")
	thread := a.botMessages(incidentChannel, inc.RootTS)
	assert.Equal(t, 1, countPrefix(thread, "Root cause"), "no second investigation")
}

// A re-fire follow-up is recorded only once it succeeded: a pull request
// that could not be converged (GitHub answering 502) is converged by the
// job's next attempt, and the thread gets its note once, with one
// "fired again" reply and one investigation.
func TestAlertRefireFollowUpThatFailedIsDoneByTheNextAttempt(t *testing.T) {
	ref := &fakeRefirer{failures: 1}
	a := newAlertEnv(t, "checkout-fails-payment-typeerror", nil, func(o *Options) { o.Refirer = ref })
	key := a.key(t)
	a.send(t, a.s.Trigger.Alert)
	inc := a.incident(t, key, "the thread to open", nil)
	a.waitResult(t, AlertInvestigationJobID(key, inc.LastInvestigatedAt))

	a.send(t, a.variant(t, func(al *template.Alert) { al.StartsAt = al.StartsAt.Add(time.Hour) }))
	eventually(t, "the pull request note after the retry", func() bool {
		return countPrefix(a.botMessages(incidentChannel, inc.RootTS), ":link:") == 1
	})
	calls := ref.calls()
	require.Len(t, calls, 2, "the failed convergence was tried again")
	assert.Equal(t, calls[0].FireCount, calls[1].FireCount, "by the same fire's next attempt")
	thread := a.botMessages(incidentChannel, inc.RootTS)
	assert.Equal(t, 1, countPrefix(thread, ":repeat:"), "the fired-again reply is not repeated by the retry")
	assert.Equal(t, 1, countPrefix(thread, "Root cause"))
}
