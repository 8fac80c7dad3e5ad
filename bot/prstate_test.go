package bot

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/render"
	githubsim "github.com/autoheal/autoheal/sim/github"
	slacksim "github.com/autoheal/autoheal/sim/slack"
)

// A recalled incident's pull request is read again from GitHub: once the
// earlier fix is merged, "Seen before" says so (and flags the regression),
// and the memory keeps the new state; when GitHub cannot answer, the
// recall still shows what the memory holds.
func TestRecalledPullRequestStateIsRefreshed(t *testing.T) {
	p := newPREnv(t, "checkout-fails-payment-typeerror", 1)
	ctx := testCtx(t)
	_, firstJob, rec := p.investigate(t)
	_, err := p.sim.BlockAction(slacksim.BlockActionOptions{Channel: incidentChannel, MessageTS: rec.MessageTS, User: approver, ActionID: render.ActionApprove})
	require.NoError(t, err)
	eventually(t, "the pull request remembered", func() bool {
		r, err := p.replicas[0].store.Recall(ctx, firstJob)
		return err == nil && r.PRNumber == 1 && r.PRState == "open"
	})
	owner, name, _ := strings.Cut(p.s.Config["repo"], "/")

	// GitHub fails: the recall shows the state the memory holds.
	id, err := p.b.GitHub.Inject(githubsim.Fault{Method: "GET", Path: "/repos/" + owner + "/" + name + "/pulls/1", Kind: githubsim.FaultServerError, Status: 502})
	require.NoError(t, err)
	_, secondJob, _ := p.investigateAgain(t)
	msg, _ := p.sim.Message(incidentChannel, p.waitResult(t, secondJob).MessageTS)
	assert.Contains(t, blocksText(msg), "(open)", "the stored state, GitHub being down")
	assert.Positive(t, p.b.GitHub.FaultHits(id), "GitHub was asked")
	p.b.GitHub.RemoveFault(id)

	// The fix is merged on GitHub; the next recall reads it (a new
	// replica: nothing cached).
	_, err = p.b.GitHub.MergePullRequest(owner, name, 1)
	require.NoError(t, err)
	fresh := p.startBot(t, func(o *Options) {
		o.Now = func() time.Time { return p.s.Now }
		o.Remediator, o.Approvers = RemediatorFromService(p.svc), p.svc
		o.NoWorker = false
	})
	p.replicas[0].cancel() // the next job goes to the new replica
	_, thirdJob, _ := p.investigateAgain(t)
	msg, _ = p.sim.Message(incidentChannel, p.waitResult(t, thirdJob).MessageTS)
	text := blocksText(msg)
	assert.Contains(t, text, "(merged)")
	assert.Contains(t, text, "Regression:", "the same failure after its fix was merged")
	r, err := fresh.store.Recall(ctx, firstJob)
	require.NoError(t, err)
	assert.Equal(t, "merged", r.PRState, "the memory keeps the state read")
}

// investigateAgain mentions the scenario in a new thread and waits for the
// result (whatever it offers).
func (p *prEnv) investigateAgain(t *testing.T) (thread string, jobID string, rec any) {
	t.Helper()
	m, err := p.sim.MentionEvent(slacksim.MentionOptions{Channel: incidentChannel, User: oncall, Text: mentionText(t, p.s)})
	require.NoError(t, err)
	jobID = MentionJobID(m.EventID)
	return m.ThreadTS, jobID, p.waitResult(t, jobID)
}

func TestPROfURL(t *testing.T) {
	for raw, want := range map[string]struct {
		repo string
		n    int
		ok   bool
	}{
		"https://github.com/acme/shop/pull/41":       {"acme/shop", 41, true},
		"https://ghe.acme.dev/acme/shop/pull/7":      {"acme/shop", 7, true},
		"https://github.com/acme/shop/issues/41":     {"", 0, false},
		"https://github.com/acme/shop/pull/x":        {"", 0, false},
		"/acme/shop/pull/41":                         {"", 0, false},
		"https://github.com/acme/shop/pull/41/files": {"", 0, false},
		"https://github.com/acme/shop/pull/-3":       {"", 0, false},
	} {
		repo, n, ok := prOfURL(raw)
		assert.Equal(t, want.ok, ok, raw)
		assert.Equal(t, want.repo, repo, raw)
		assert.Equal(t, want.n, n, raw)
	}
}

func TestPRStateCacheIsBounded(t *testing.T) {
	var c prStateCache
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range prStateCacheSize + 50 {
		c.put(strings.Repeat("x", i%7)+string(rune('a'+i%26))+time.Duration(i).String(), "open", now)
	}
	assert.LessOrEqual(t, len(c.entries), prStateCacheSize)
	c.put("acme/shop#1", "merged", now)
	st, ok := c.get("acme/shop#1", now.Add(prStateTTL+time.Minute))
	assert.True(t, ok, "a merged pull request stays merged longer")
	assert.Equal(t, "merged", st)
	c.put("acme/shop#2", "open", now)
	_, ok = c.get("acme/shop#2", now.Add(prStateTTL+time.Minute))
	assert.False(t, ok, "an open one is read again")
}
