package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/alerts"
	"github.com/autoheal/autoheal/bot"
	"github.com/autoheal/autoheal/render"
	"github.com/autoheal/autoheal/sessions"
	"github.com/autoheal/autoheal/sim/faults"
	slacksim "github.com/autoheal/autoheal/sim/slack"
)

const crashApprover = "U0APPROVER"

// Two `bot serve` processes; an alert's result is approved and the
// replica carrying the approval out is SIGKILLed between the branch and
// the pull request (its call that opens the pull request hangs). The
// other replica resumes the approval when its lease runs out: afterwards
// the repository has one pull request and the thread one reply linking
// it, and the result shows it approved.
func TestApprovalKilledMidPullRequestIsResumedByTheOtherReplica(t *testing.T) {
	c := newReplicaCluster(t, "checkout-fails-payment-typeerror", 0, map[string]string{
		"AUTOHEAL_APPROVERS": crashApprover, "AUTOHEAL_APPROVAL_LEASE": "2s",
	})
	c.start(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), replicaTimeout())
	defer cancel()

	// The alert fires now; its investigation's result offers Approve.
	base, err := alerts.Decode(c.scen.Trigger.Alert)
	require.NoError(t, err)
	require.Len(t, base.Alerts, 1)
	body := notification(t, base.Alerts[0], "CheckoutErrorRateHigh", 0)
	m, err := alerts.Decode(body)
	require.NoError(t, err)
	key := m.Incidents()[0].Key
	_, err = c.deliver(ctx, 0, body)
	require.NoError(t, err)
	var inc sessions.Incident
	var rec sessions.ResultRecord
	waitFor(t, ctx, "the result of "+key, func() bool {
		if inc, err = c.store.GetIncident(ctx, key); err != nil || inc.RootTS == "" {
			return false
		}
		rec, err = c.store.GetResult(ctx, bot.AlertInvestigationJobID(key, inc.LastInvestigatedAt))
		return err == nil
	})
	result, ok := c.sim.Message(replicaChannel, rec.MessageTS)
	require.True(t, ok)
	require.Contains(t, string(result.Blocks), render.ActionApprove, "the result offers Approve")

	// Opening the pull request hangs (once): the branch and its commit
	// are pushed, the pull request is not there yet.
	owner, name, _ := strings.Cut(c.scen.Config["repo"], "/")
	gh := c.backend.Faults["github"]
	require.NoError(t, gh.Set("/repos/"+owner+"/"+name+"/pulls", faults.Fault{Kind: faults.Hang, Method: http.MethodPost, Times: 1}))
	env, _, err := c.sim.BlockActionEnvelope(slacksim.BlockActionOptions{Channel: replicaChannel, MessageTS: rec.MessageTS, User: crashApprover, ActionID: render.ActionApprove})
	require.NoError(t, err)
	conns := c.sim.Connections()
	require.NotEmpty(t, conns)
	_, err = c.sim.PushTo(conns[0].ID, env)
	require.NoError(t, err)
	waitFor(t, ctx, "a replica opening the pull request", func() bool { return gh.Injected() == 1 })
	var victim *botProc
	for _, p := range c.procs {
		if strings.Contains(p.logs.String(), `"msg":"approval started"`) {
			victim = p
		}
	}
	require.NotNil(t, victim, "the replica carrying the approval out")
	prs, err := c.backend.GitHub.PullRequests(owner, name)
	require.NoError(t, err)
	require.Empty(t, prs, "killed before the pull request")
	approval, err := c.store.GetApproval(ctx, key)
	require.NoError(t, err)
	require.Equal(t, sessions.StepCommit, approval.Step, "killed after the branch and its commit")
	victim.kill()
	t.Logf("killed %s (pid %d) while it opened the pull request of %s", victim.name, victim.pid(), key)

	waitFor(t, ctx, "the pull request linked in the thread", func() bool { return len(prLinks(c.sim, inc.RootTS)) > 0 })
	waitFor(t, ctx, "the result shown approved", func() bool {
		m, _ := c.sim.Message(replicaChannel, rec.MessageTS)
		return strings.Contains(string(m.Blocks), "Approved by")
	})
	waitFor(t, ctx, "the approval recorded", func() bool {
		a, err := c.store.GetApproval(ctx, key)
		return err == nil && a.State == sessions.ApprovalApproved
	})
	prs, err = c.backend.GitHub.PullRequests(owner, name)
	require.NoError(t, err)
	assert.Len(t, prs, 1, "one pull request")
	links := prLinks(c.sim, inc.RootTS)
	require.Len(t, links, 1, "one reply links it")
	assert.Contains(t, links[0].Text, "#1")
	survivors := strings.Join(logsOf(c.alive()), "\n")
	assert.Contains(t, survivors, "resuming an approval whose replica stopped", "the survivor's sweeper resumed it")

	sctx, scancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer scancel()
	for _, p := range c.alive() {
		assert.NoError(t, p.stop(sctx), "%s exits 0 on SIGTERM", p.name)
	}
}

// prLinks are the thread's replies linking a pull request.
func prLinks(sim *slacksim.Server, rootTS string) []slacksim.Message {
	var out []slacksim.Message
	for _, m := range sim.Thread(replicaChannel, rootTS) {
		if m.BotID != "" && !m.Deleted && (strings.HasPrefix(m.Text, "Pull request opened:") || strings.HasPrefix(m.Text, "Pull request already open")) {
			out = append(out, m)
		}
	}
	return out
}
