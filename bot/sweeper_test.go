package bot

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/remediate"
	"github.com/autoheal/autoheal/render"
	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sessions"
	"github.com/autoheal/autoheal/sim/faults"
	slacksim "github.com/autoheal/autoheal/sim/slack"
)

// resumeMetrics counts resumed approvals.
type resumeMetrics struct {
	noMetrics
	resumed atomic.Int64
}

func (m *resumeMetrics) ApprovalResumed() { m.resumed.Add(1) }

// mortalSlack is a replica's Slack Web API until the replica dies: after
// that nothing it writes reaches Slack.
type mortalSlack struct {
	SlackAPI
	dead atomic.Bool
}

var errDead = errors.New("the replica is dead")

func (m *mortalSlack) PostMessageContext(ctx context.Context, ch string, o ...slack.MsgOption) (string, string, error) {
	if m.dead.Load() {
		return "", "", errDead
	}
	return m.SlackAPI.PostMessageContext(ctx, ch, o...)
}

func (m *mortalSlack) UpdateMessageContext(ctx context.Context, ch, ts string, o ...slack.MsgOption) (string, string, string, error) {
	if m.dead.Load() {
		return "", "", "", errDead
	}
	return m.SlackAPI.UpdateMessageContext(ctx, ch, ts, o...)
}

func (m *mortalSlack) PostEphemeralContext(ctx context.Context, ch, user string, o ...slack.MsgOption) (string, error) {
	if m.dead.Load() {
		return "", errDead
	}
	return m.SlackAPI.PostEphemeralContext(ctx, ch, user, o...)
}

func (m *mortalSlack) DeleteMessageContext(ctx context.Context, ch, ts string) (string, string, error) {
	if m.dead.Load() {
		return "", "", errDead
	}
	return m.SlackAPI.DeleteMessageContext(ctx, ch, ts)
}

// A replica dies while opening a pull request: its branch and commit are
// on GitHub, its call that opens the pull request never returns, its Redis
// connection is gone. The other replica's sweeper resumes the approval
// when its lease runs out: one pull request, one link in the thread, the
// result shown approved.
func TestApprovalInterruptedByACrashIsResumedByAnotherReplica(t *testing.T) {
	e := newEnv(t, envOptions{store: sessions.Options{ApprovalLease: time.Second}})
	ctx := testCtx(t)
	s, err := scenario.Load(examplesDir + "/checkout-fails-payment-typeerror")
	require.NoError(t, err)
	const token = "ghs_sweeper_test_token_0123456789"
	b, err := harness.Start(s, harness.Options{GitHubToken: token})
	require.NoError(t, err)
	t.Cleanup(b.Close)
	require.NoError(t, e.store.Set(ctx, sessions.ChannelScope(incidentChannel), b.Config()))
	approvers, err := remediate.ParseApprovers(approver)
	require.NoError(t, err)
	// Each replica has its own pull-request service over its own store
	// (its own Redis connection), as separate processes do.
	var doomedSlack *mortalSlack
	replica := func(m Metrics) *runningBot {
		return e.startBot(t, func(o *Options) {
			if doomedSlack == nil {
				doomedSlack = &mortalSlack{SlackAPI: o.Slack}
				o.API = doomedSlack
			}
			svc, err := remediate.New(remediate.Options{
				GitHub: remediate.GitHubOptions{APIURL: b.URLs["github"] + "/", Token: token},
				Repo:   s.Config["repo"], Store: o.Store, Approvers: approvers, Logger: testLogger(),
			})
			require.NoError(t, err)
			o.Now = func() time.Time { return s.Now }
			o.Remediator, o.Approvers = RemediatorFromService(svc), svc
			o.SweepInterval, o.DrainTimeout = 100*time.Millisecond, 100*time.Millisecond
			o.Metrics = m
		})
	}
	doomed := replica(nil)
	doomedConn := e.sim.Connections()[0].ID
	metrics := &resumeMetrics{}
	survivor := replica(metrics)
	p := &prEnv{testEnv: e, s: s, b: b, replicas: []*runningBot{doomed, survivor}}
	thread, jobID, rec := p.investigate(t)

	// The doomed replica gets the click and hangs where the pull request
	// is opened, after the branch and the commit.
	owner, name, _ := strings.Cut(s.Config["repo"], "/")
	gh := b.Faults["github"]
	require.NoError(t, gh.Set("/repos/"+owner+"/"+name+"/pulls", faults.Fault{Kind: faults.Hang, Method: http.MethodPost, Times: 1}))
	env, _, err := e.sim.BlockActionEnvelope(slacksim.BlockActionOptions{Channel: incidentChannel, MessageTS: rec.MessageTS, User: approver, ActionID: render.ActionApprove})
	require.NoError(t, err)
	_, err = e.sim.PushTo(doomedConn, env)
	require.NoError(t, err)
	eventually(t, "the doomed replica to be opening the pull request", func() bool { return gh.Injected() == 1 })
	inFlight, err := e.store.InFlightApproval(ctx, jobID)
	require.NoError(t, err, "the approval is recorded in flight")
	assert.Equal(t, approver, inFlight.User)
	a, err := e.store.GetApproval(ctx, inFlight.IssueKey)
	require.NoError(t, err)
	assert.Equal(t, sessions.StepCommit, a.Step, "the branch and its commit are done")
	assert.Zero(t, p.pulls(t))
	m, _ := e.sim.Message(incidentChannel, rec.MessageTS)
	assert.Contains(t, blocksText(m), "opening a pull request")

	// It dies: no more Slack, no more Redis (its lease is not renewed), and
	// its GitHub call never returns.
	doomedSlack.dead.Store(true)
	doomed.cancel()
	require.NoError(t, doomed.store.Client().Close())

	eventually(t, "the survivor to open the pull request and link it", func() bool { return len(p.linkReplies(thread)) == 1 })
	eventually(t, "the result to show the approval", func() bool {
		m, _ := e.sim.Message(incidentChannel, rec.MessageTS)
		return strings.Contains(blocksText(m), ":white_check_mark: Approved by")
	})
	assert.Equal(t, 1, p.pulls(t), "one pull request")
	doc, err := survivor.loadDoc(ctx, jobID)
	require.NoError(t, err)
	require.NotNil(t, doc.PR)
	assert.Equal(t, 1, doc.PR.Number)
	assert.Equal(t, render.ApprovalApproved, doc.Approval.State)
	assert.Equal(t, approver, doc.Approval.By, "approved by the clicker, not by the sweeper")
	assert.Contains(t, p.linkReplies(thread)[0].Text, "#1")
	eventually(t, "the approval to leave the in-flight index", func() bool {
		_, err := e.store.InFlightApproval(ctx, jobID)
		return err != nil
	})
	_, err = e.store.InFlightApproval(ctx, jobID)
	assert.ErrorIs(t, err, sessions.ErrNotFound)
	a, err = e.store.GetApproval(ctx, inFlight.IssueKey)
	require.NoError(t, err)
	assert.Equal(t, sessions.ApprovalApproved, a.State)
	assert.Equal(t, 1, a.PRNumber)
	assert.EqualValues(t, 1, metrics.resumed.Load(), "resumed once")

	// Later sweeps find nothing to do: still one link.
	time.Sleep(300 * time.Millisecond)
	assert.Len(t, p.linkReplies(thread), 1)
	assert.Equal(t, 1, p.pulls(t))
}

// An approval whose carry-out keeps being interrupted is given up: the
// result shows it failed, with Retry, and it leaves the in-flight index.
func TestApprovalInterruptedTooOftenOffersRetry(t *testing.T) {
	p := newPREnv(t, "checkout-fails-payment-typeerror", 1)
	ctx := testCtx(t)
	r := p.replicas[0]
	thread, jobID, rec := p.investigate(t)
	doc, err := r.loadDoc(ctx, jobID)
	require.NoError(t, err)
	e := sessions.InFlight{JobID: jobID, IssueKey: r.remediationKey(ctx, doc, jobID), User: approver,
		Channel: incidentChannel, ThreadTS: thread, MessageTS: rec.MessageTS}
	for range maxApprovalAttempts {
		_, err := p.store.MarkInFlight(ctx, e) // each one a replica that died
		require.NoError(t, err)
	}
	require.NoError(t, p.store.ExtendInFlight(ctx, jobID, time.Now().Add(-time.Second)))

	assert.Equal(t, 1, r.sweepApprovals(ctx))
	m, _ := p.sim.Message(incidentChannel, rec.MessageTS)
	assert.Contains(t, blocksText(m), "interrupted 5 times")
	assert.Contains(t, blocksText(m), "Retry pull request")
	_, err = p.store.InFlightApproval(ctx, jobID)
	assert.ErrorIs(t, err, sessions.ErrNotFound)
	assert.Zero(t, p.pulls(t), "nothing was pushed")
	assert.Zero(t, r.sweepApprovals(ctx), "nothing left to sweep")
}
