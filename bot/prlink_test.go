package bot

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/remediate"
	"github.com/autoheal/autoheal/render"
	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sessions"
	slacksim "github.com/autoheal/autoheal/sim/slack"
)

// prEnv is two bot replicas with the real pull-request flow (remediate,
// go-github) against the GitHub simulator of a scenario.
type prEnv struct {
	*testEnv
	s        *scenario.Scenario
	b        *harness.Backends
	svc      *remediate.Service
	replicas []*runningBot
}

func newPREnv(t *testing.T, scen string, replicas int) *prEnv {
	t.Helper()
	e := newEnv(t, envOptions{})
	s, err := scenario.Load(examplesDir + "/" + scen)
	require.NoError(t, err)
	const token = "ghs_pr_link_test_token_0123456789"
	b, err := harness.Start(s, harness.Options{GitHubToken: token})
	require.NoError(t, err)
	t.Cleanup(b.Close)
	require.NoError(t, e.store.Set(testCtx(t), sessions.ChannelScope(incidentChannel), b.Config()))
	approvers, err := remediate.ParseApprovers(approver)
	require.NoError(t, err)
	svc, err := remediate.New(remediate.Options{
		GitHub: remediate.GitHubOptions{APIURL: b.URLs["github"] + "/", Token: token},
		Repo:   s.Config["repo"], Store: e.store, Approvers: approvers,
	})
	require.NoError(t, err)
	p := &prEnv{testEnv: e, s: s, b: b, svc: svc}
	for range replicas {
		p.replicas = append(p.replicas, e.startBot(t, func(o *Options) {
			o.Now = func() time.Time { return s.Now }
			o.Remediator, o.Approvers = RemediatorFromService(svc), svc
		}))
	}
	return p
}

// investigate mentions the scenario in a new thread and waits for its result.
func (p *prEnv) investigate(t *testing.T) (thread string, jobID string, rec sessions.ResultRecord) {
	t.Helper()
	m, err := p.sim.MentionEvent(slacksim.MentionOptions{Channel: incidentChannel, User: oncall, Text: mentionText(t, p.s)})
	require.NoError(t, err)
	jobID = MentionJobID(m.EventID)
	rec = p.waitResult(t, jobID)
	msg, _ := p.sim.Message(incidentChannel, rec.MessageTS)
	require.Contains(t, string(msg.Blocks), render.ActionApprove, "the result offers Approve")
	return m.ThreadTS, jobID, rec
}

func (p *prEnv) pulls(t *testing.T) int {
	t.Helper()
	owner, name, _ := strings.Cut(p.s.Config["repo"], "/")
	prs, err := p.b.GitHub.PullRequests(owner, name)
	require.NoError(t, err)
	return len(prs)
}

// linkReplies returns the thread's replies that link a pull request.
func (p *prEnv) linkReplies(thread string) []slacksim.Message {
	var out []slacksim.Message
	for _, m := range p.botMessages(incidentChannel, thread) {
		if strings.HasPrefix(m.Text, "Pull request opened:") || strings.HasPrefix(m.Text, "Pull request already open") {
			out = append(out, m)
		}
	}
	return out
}

// The approval that opens the pull request leaves exactly one reply in
// the investigation thread linking it, though both replicas got the click
// and the approver clicked again.
func TestApprovalLinksThePullRequestOnceInTheThread(t *testing.T) {
	p := newPREnv(t, "checkout-fails-payment-typeerror", 2)
	ctx := testCtx(t)
	thread, jobID, rec := p.investigate(t)

	// The click reaches both replicas (Slack retried it on the other connection).
	env, _, err := p.sim.BlockActionEnvelope(slacksim.BlockActionOptions{Channel: incidentChannel, MessageTS: rec.MessageTS, User: approver, ActionID: render.ActionApprove})
	require.NoError(t, err)
	conns := p.sim.Connections()
	require.Len(t, conns, 2)
	again := env
	again.EnvelopeID = ""
	_, err = p.sim.PushTo(conns[0].ID, env)
	require.NoError(t, err)
	_, err = p.sim.PushTo(conns[1].ID, again)
	require.NoError(t, err)
	eventually(t, "the link in the thread and the other replica's answer", func() bool {
		return len(p.linkReplies(thread)) > 0 && len(p.sim.Ephemerals(incidentChannel, approver)) > 0
	})
	// Slack delivers the click once more after it shows approved (a retry:
	// the button itself is gone by then).
	eventually(t, "the result to show the approval", func() bool {
		m, _ := p.sim.Message(incidentChannel, rec.MessageTS)
		return strings.Contains(blocksText(m), ":white_check_mark: Approved by")
	})
	before := len(p.sim.Ephemerals(incidentChannel, approver))
	retry := env
	retry.EnvelopeID = ""
	_, err = p.sim.PushTo(conns[1].ID, retry)
	require.NoError(t, err)
	eventually(t, "the retried click's answer", func() bool { return len(p.sim.Ephemerals(incidentChannel, approver)) > before })
	p.waitEphemeral(t, approver, "already approved")

	assert.Equal(t, 1, p.pulls(t), "one pull request")
	links := p.linkReplies(thread)
	require.Len(t, links, 1, "exactly one reply links the pull request")
	doc, err := p.replicas[0].loadDoc(ctx, jobID)
	require.NoError(t, err)
	require.NotNil(t, doc.PR)
	assert.Equal(t, 1, doc.PR.Number)
	assert.NotEmpty(t, doc.PR.Title)
	want := "Pull request opened: <" + doc.PR.URL + "|#1 " + render.Escape(doc.PR.Title) + ">"
	assert.Equal(t, want+"\n", strings.TrimPrefix(blocksTextOf(t, links[0]), ""))
	assert.Contains(t, doc.PR.URL, p.b.URLs["github"]+"/acme/", "the link names the GitHub simulator")
}

// A click whose replica died after the pull request was opened (the result
// still says opening): the next click finds the pull request, shows it
// approved and links it, once.
func TestApprovalLeftOpeningIsResumedAndLinkedOnce(t *testing.T) {
	p := newPREnv(t, "checkout-fails-payment-typeerror", 1)
	ctx := testCtx(t)
	thread, jobID, rec := p.investigate(t)
	doc, err := p.replicas[0].loadDoc(ctx, jobID)
	require.NoError(t, err)

	// What the dead replica did: recorded "opening", opened the pull request.
	out, err := p.svc.Approve(ctx, remediate.ApproveRequest{IssueKey: p.replicas[0].remediationKey(ctx, doc, jobID), User: approver, ProposalID: jobID, Result: doc.Result})
	require.NoError(t, err)
	require.Equal(t, remediate.StatusCreated, out.Status)
	doc.Approval = render.ApprovalView{Eligible: true, State: render.ApprovalOpening, By: approver}
	enc, err := encodeResultDoc(*doc)
	require.NoError(t, err)
	require.NoError(t, p.store.PutResultDoc(ctx, jobID, enc))
	assert.Empty(t, p.linkReplies(thread))

	env, _, err := p.sim.BlockActionEnvelope(slacksim.BlockActionOptions{Channel: incidentChannel, MessageTS: rec.MessageTS, User: approver, ActionID: render.ActionApprove})
	require.NoError(t, err)
	for i := range 2 {
		before := len(p.sim.Ephemerals(incidentChannel, approver))
		again := env
		again.EnvelopeID = ""
		_, err = p.sim.PushTo(p.sim.Connections()[0].ID, again)
		require.NoError(t, err)
		if i == 0 {
			eventually(t, "the link", func() bool { return len(p.linkReplies(thread)) == 1 })
		}
		eventually(t, "the click's answer", func() bool { return len(p.sim.Ephemerals(incidentChannel, approver)) > before })
	}
	eps := p.sim.Ephemerals(incidentChannel, approver)
	assert.Contains(t, eps[len(eps)-1].Text, "This fix is already approved.", "the second click finds it approved")
	m, _ := p.sim.Message(incidentChannel, rec.MessageTS)
	assert.Contains(t, blocksText(m), ":white_check_mark: Approved by")
	assert.Len(t, p.linkReplies(thread), 1)
	assert.Contains(t, p.linkReplies(thread)[0].Text, "#1")
	assert.Equal(t, 1, p.pulls(t))
}

// Two threads (two issue keys) whose investigations propose the same
// change: the second approval links the first thread's open pull request
// in its own thread instead of opening a duplicate.
func TestSameFixInTwoThreadsLinksOnePullRequest(t *testing.T) {
	p := newPREnv(t, "checkout-fails-payment-typeerror", 1)
	thread1, job1, rec1 := p.investigate(t)
	thread2, job2, rec2 := p.investigate(t)
	require.NotEqual(t, thread1, thread2)
	require.NotEqual(t, job1, job2)

	_, err := p.sim.BlockAction(slacksim.BlockActionOptions{Channel: incidentChannel, MessageTS: rec1.MessageTS, User: approver, ActionID: render.ActionApprove})
	require.NoError(t, err)
	eventually(t, "the first link", func() bool { return len(p.linkReplies(thread1)) == 1 })
	_, err = p.sim.BlockAction(slacksim.BlockActionOptions{Channel: incidentChannel, MessageTS: rec2.MessageTS, User: approver, ActionID: render.ActionApprove})
	require.NoError(t, err)
	eventually(t, "the second thread's link", func() bool { return len(p.linkReplies(thread2)) == 1 })

	assert.Equal(t, 1, p.pulls(t), "no duplicate pull request")
	first, second := p.linkReplies(thread1)[0], p.linkReplies(thread2)[0]
	assert.True(t, strings.HasPrefix(first.Text, "Pull request opened: #1 "), first.Text)
	assert.True(t, strings.HasPrefix(second.Text, "Pull request already open for the same change: #1 "), second.Text)
	ctx := context.Background()
	d1, err := p.replicas[0].loadDoc(ctx, job1)
	require.NoError(t, err)
	d2, err := p.replicas[0].loadDoc(ctx, job2)
	require.NoError(t, err)
	require.NotNil(t, d1.PR)
	require.NotNil(t, d2.PR)
	assert.Equal(t, d1.PR.URL, d2.PR.URL)
	assert.True(t, d2.PR.SameFix)
	m, _ := p.sim.Message(incidentChannel, rec2.MessageTS)
	assert.Contains(t, blocksText(m), ":white_check_mark: Approved by", "the second result shows approved, with the same pull request")
	assert.Contains(t, blocksText(m), d1.PR.URL)
}

// blocksTextOf is the mrkdwn of a message's first section.
func blocksTextOf(t *testing.T, m slacksim.Message) string {
	t.Helper()
	b := blocksText(m)
	i := strings.Index(b, `"text":"`)
	require.GreaterOrEqual(t, i, 0, b)
	rest := b[i+len(`"text":"`):]
	j := strings.Index(rest, `","type":"mrkdwn"`)
	require.GreaterOrEqual(t, j, 0, b)
	return strings.ReplaceAll(rest[:j], `\n`, "\n") + "\n"
}
