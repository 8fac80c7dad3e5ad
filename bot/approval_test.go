package bot

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/render"
	"github.com/autoheal/autoheal/sessions"
	slacksim "github.com/autoheal/autoheal/sim/slack"
)

// fakeRemediator records decisions and answers as configured.
type fakeRemediator struct {
	mu       sync.Mutex
	approves []ApprovalRequest
	rejects  []string
}

func (f *fakeRemediator) Approve(_ context.Context, req ApprovalRequest) (Decision, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.approves = append(f.approves, req)
	return Decision{State: render.ApprovalApproved, PRURL: "https://github.com/acme/astronomy-shop/pull/42"}, nil
}

func (f *fakeRemediator) Reject(_ context.Context, req ApprovalRequest, reason string) (Decision, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rejects = append(f.rejects, reason)
	return Decision{State: render.ApprovalRejected}, nil
}

func (f *fakeRemediator) Standing(context.Context, ApprovalRequest) (PRStanding, error) {
	return PRStanding{}, nil
}

func (f *fakeRemediator) counts() (int, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.approves), len(f.rejects)
}

type onlyUser string

func (u onlyUser) Authorize(_ context.Context, user string) (bool, error) {
	return user == string(u), nil
}

var buttonValueRE = regexp.MustCompile(`"value":"(v1:[^"]+)"`)

// jobOf decodes the job id carried by a message's buttons.
func jobOf(t testing.TB, m slacksim.Message) string {
	t.Helper()
	sub := buttonValueRE.FindStringSubmatch(blocksText(m))
	require.NotNil(t, sub, "no button in %s", m.Text)
	v, err := render.DecodeActionValue(sub[1])
	require.NoError(t, err)
	return v.JobID
}

// Approve, Reject, View patch and Re-investigate on a result: only
// approvers decide, refusals are audited in the thread, the decision shows
// on the result.
func TestApprovalButtons(t *testing.T) {
	e := newEnv(t, envOptions{})
	s, _ := e.scenarioEnv(t, "ad-npe-missing-context")
	rem := &fakeRemediator{}
	e.startBot(t, func(o *Options) {
		o.Now = func() time.Time { return s.Now }
		o.Remediator = rem
		o.Approvers = onlyUser(approver)
	})
	ctx := testCtx(t)
	m, err := e.sim.MentionEvent(slacksim.MentionOptions{Channel: incidentChannel, User: oncall, Text: s.Trigger.Mention})
	require.NoError(t, err)
	jobID := MentionJobID(m.EventID)
	rec := e.waitResult(t, jobID)
	result, _ := e.sim.Message(incidentChannel, rec.MessageTS)
	for _, id := range []string{render.ActionApprove, render.ActionReject, render.ActionViewPatch, render.ActionReinvestigate, render.ActionConfigure} {
		assert.Contains(t, string(result.Blocks), id)
	}

	// Someone who is not an approver clicks Approve.
	_, err = e.sim.BlockAction(slacksim.BlockActionOptions{Channel: incidentChannel, MessageTS: rec.MessageTS, User: oncall, ActionID: render.ActionApprove})
	require.NoError(t, err)
	e.waitEphemeral(t, oncall, "You cannot approve fixes")
	eventually(t, "the audit line", func() bool {
		for _, msg := range e.botMessages(incidentChannel, m.ThreadTS) {
			if strings.Contains(msg.Text, "<@"+oncall+"> clicked Approve but is not an approver") {
				return true
			}
		}
		return false
	})
	audit, err := e.store.AuditLog(ctx, threadIssueKey(incidentChannel, m.ThreadTS))
	require.NoError(t, err)
	require.Len(t, audit, 1)
	assert.Equal(t, sessions.AuditRefused, audit[0].Action)
	assert.Equal(t, oncall, audit[0].User)
	assert.Equal(t, jobID, audit[0].Proposal)
	assert.Equal(t, "approve", audit[0].Detail)
	approves, _ := rem.counts()
	assert.Zero(t, approves, "nothing reaches the remediator")

	// View patch posts the diff in the thread.
	_, err = e.sim.BlockAction(slacksim.BlockActionOptions{Channel: incidentChannel, MessageTS: rec.MessageTS, User: oncall, ActionID: render.ActionViewPatch})
	require.NoError(t, err)
	eventually(t, "the patch in the thread", func() bool {
		for _, msg := range e.botMessages(incidentChannel, m.ThreadTS) {
			if strings.HasPrefix(msg.Text, "Patch for") && strings.Contains(string(msg.Blocks), "+++ b/") {
				return true
			}
		}
		return false
	})

	// The approver rejects, with a reason.
	_, err = e.sim.BlockAction(slacksim.BlockActionOptions{Channel: incidentChannel, MessageTS: rec.MessageTS, User: approver, ActionID: render.ActionReject})
	require.NoError(t, err)
	eventually(t, "the reject form", func() bool { return len(e.sim.Views()) == 1 })
	v := e.sim.Views()[0]
	assert.Equal(t, render.CallbackRejectReason, v.CallbackID)
	sub, err := e.sim.ViewSubmission(slacksim.ViewSubmissionOptions{ViewID: v.ID, User: approver,
		Values: map[string]string{rejectBlockID: "the null check hides the real bug"}})
	require.NoError(t, err)
	_, err = e.sim.WaitAck(ctx, sub.EnvelopeID)
	require.NoError(t, err)
	eventually(t, "the rejection on the result", func() bool {
		msg, _ := e.sim.Message(incidentChannel, rec.MessageTS)
		return strings.Contains(blocksText(msg), "Rejected by <@"+approver+">: the null check hides the real bug")
	})
	_, rejects := rem.counts()
	assert.Equal(t, 1, rejects)

	// Re-investigate: a fresh job in the same thread, approved this time.
	_, err = e.sim.BlockAction(slacksim.BlockActionOptions{Channel: incidentChannel, MessageTS: rec.MessageTS, User: oncall, ActionID: render.ActionReinvestigate})
	require.NoError(t, err)
	var second slacksim.Message
	eventually(t, "the second result", func() bool {
		for _, msg := range e.botMessages(incidentChannel, m.ThreadTS) {
			if msg.TS != rec.MessageTS && strings.HasPrefix(msg.Text, "Root cause") {
				second = msg
				return true
			}
		}
		return false
	})
	job2 := jobOf(t, second)
	assert.NotEqual(t, jobID, job2)
	e.waitResult(t, job2)

	_, err = e.sim.BlockAction(slacksim.BlockActionOptions{Channel: incidentChannel, MessageTS: second.TS, User: approver, ActionID: render.ActionApprove})
	require.NoError(t, err)
	eventually(t, "the approval on the result", func() bool {
		msg, _ := e.sim.Message(incidentChannel, second.TS)
		return strings.Contains(blocksText(msg), "Approved by <@"+approver+">") && strings.Contains(blocksText(msg), "acme/astronomy-shop#42")
	})
	rem.mu.Lock()
	req := rem.approves[0]
	rem.mu.Unlock()
	assert.Equal(t, approver, req.User)
	assert.Equal(t, threadIssueKey(incidentChannel, m.ThreadTS), req.IssueKey, "one key per mention thread")
	assert.Equal(t, job2, req.JobID)
	require.NotNil(t, req.Result)
	assert.NotNil(t, req.Result.Fix.Patch)
	assert.Equal(t, "acme/astronomy-shop", req.Settings.Get("repo"))

	// A second click does not open a second pull request.
	_, err = e.sim.BlockAction(slacksim.BlockActionOptions{Channel: incidentChannel, MessageTS: second.TS, User: approver, ActionID: render.ActionApprove})
	if err == nil {
		e.waitEphemeral(t, approver, "already approved")
	}
	approves, _ = rem.counts()
	assert.Equal(t, 1, approves)
}
