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

// A flake gets a report, not a pull request: its result offers "Create
// issue". Only an approver may click it; the click opens one GitHub issue
// (go-github against the GitHub simulator) whatever the number of clicks,
// links it in the thread and on the result, and the button goes away.
func TestCreateIssueButton(t *testing.T) {
	e := newEnv(t, envOptions{})
	s, err := scenario.Load("../testdata/scenarios/quote-api-concurrentmodification-flake")
	require.NoError(t, err)
	const token = "ghs_issue_test_token_0123456789"
	b, err := harness.Start(s, harness.Options{GitHubToken: token})
	require.NoError(t, err)
	t.Cleanup(b.Close)
	ctx := testCtx(t)
	require.NoError(t, e.store.Set(ctx, sessions.ChannelScope(incidentChannel), b.Config()))
	approvers, err := remediate.ParseApprovers(approver)
	require.NoError(t, err)
	svc, err := remediate.New(remediate.Options{
		GitHub:    remediate.GitHubOptions{APIURL: b.URLs["github"] + "/", Token: token},
		Repo:      s.Config["repo"],
		Store:     e.store,
		Approvers: approvers,
	})
	require.NoError(t, err)
	rb := e.startBot(t, func(o *Options) {
		o.Now = func() time.Time { return s.Now }
		o.Remediator, o.Approvers, o.Issues = RemediatorFromService(svc), svc, IssuesFromService(svc)
	})

	m, err := e.sim.MentionEvent(slacksim.MentionOptions{Channel: incidentChannel, User: oncall, Text: s.Trigger.Mention})
	require.NoError(t, err)
	rec := e.waitResult(t, MentionJobID(m.EventID))
	result, _ := e.sim.Message(incidentChannel, rec.MessageTS)
	blocks := string(result.Blocks)
	require.Contains(t, blocks, render.ActionCreateIssue, "a flake's result offers Create issue")
	assert.NotContains(t, blocks, render.ActionApprove, "and no pull request")
	owner, name, _ := strings.Cut(s.Config["repo"], "/")
	issues := func() int {
		list, err := b.GitHub.Issues(owner, name)
		require.NoError(t, err)
		return len(list)
	}

	// Not an approver: refused, audited, nothing created.
	_, err = e.sim.BlockAction(slacksim.BlockActionOptions{Channel: incidentChannel, MessageTS: rec.MessageTS, User: oncall, ActionID: render.ActionCreateIssue})
	require.NoError(t, err)
	e.waitEphemeral(t, oncall, "You cannot create issues")
	eventually(t, "the audit line", func() bool {
		for _, msg := range e.botMessages(incidentChannel, m.ThreadTS) {
			if strings.Contains(msg.Text, "<@"+oncall+"> clicked Create issue but is not an approver") {
				return true
			}
		}
		return false
	})
	assert.Zero(t, issues())

	// The approver clicks twice in a row: one issue.
	for range 2 {
		_, err = e.sim.BlockAction(slacksim.BlockActionOptions{Channel: incidentChannel, MessageTS: rec.MessageTS, User: approver, ActionID: render.ActionCreateIssue})
		require.NoError(t, err)
	}
	var link string
	eventually(t, "the issue's link in the thread", func() bool {
		for _, msg := range e.botMessages(incidentChannel, m.ThreadTS) {
			if strings.Contains(msg.Text, "<@"+approver+"> opened an issue with this report: ") {
				link = msg.Text[strings.LastIndex(msg.Text, " ")+1:]
				return true
			}
		}
		return false
	})
	assert.Contains(t, link, "/issues/")
	eventually(t, "the second click's answer", func() bool {
		for _, ep := range e.sim.Ephemerals(incidentChannel, approver) {
			if strings.Contains(ep.Text, "An issue was already created: "+link) || strings.Contains(ep.Text, "already being created") {
				return true
			}
		}
		return false
	})
	assert.Equal(t, 1, issues(), "one issue, however many clicks")
	list, err := b.GitHub.Issues(owner, name)
	require.NoError(t, err)
	assert.Contains(t, list[0].Body, "Flake report")
	assert.Contains(t, list[0].Body, remediate.Marker(threadIssueKey(incidentChannel, m.ThreadTS)))
	eventually(t, "the result without the button, with the link", func() bool {
		msg, _ := e.sim.Message(incidentChannel, rec.MessageTS)
		return !strings.Contains(string(msg.Blocks), render.ActionCreateIssue) && strings.Contains(blocksText(msg), link)
	})
	doc, err := rb.loadDoc(context.Background(), MentionJobID(m.EventID))
	require.NoError(t, err)
	assert.Equal(t, link, doc.IssueURL)
}
