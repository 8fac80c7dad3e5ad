package remediate

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	ghsim "github.com/autoheal/autoheal/sim/github"
)

// A re-fire that ran no new investigation (e.g. it came within the cooldown or
// the dedupe window) says so on the pull request and in the thread, and
// changes nothing, even when the result it carries would propose another
// change: it never claims new evidence.
func TestRefireWithoutANewInvestigationClaimsNothingNew(t *testing.T) {
	e := newGHEnv(t, paymentScenario, ghsim.Options{})
	store, _ := newStore(t)
	s := newService(t, e, svcConfig{store: store})
	ctx := ctxT(t)
	key := "refire-dedup-key"
	out, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, Result: paymentResult(t, e.sc, key, false), ThreadURL: threadURL})
	require.NoError(t, err)
	require.Equal(t, StatusCreated, out.Status)
	commits := e.count("POST", "/git/commits")
	head := e.pulls(t)[0].HeadSHA

	at := time.Date(2026, 12, 1, 17, 10, 0, 0, time.UTC)
	for i, res := range []bool{false, true} { // the same result, and one that would differ
		ref, err := s.Refire(ctx, RefireRequest{IssueKey: key, Result: paymentResult(t, e.sc, key, res), ThreadURL: threadURL, FireCount: 2 + i, At: at})
		require.NoError(t, err)
		assert.Equal(t, StatusConverged, ref.Status)
		assert.Equal(t, ConvergedCommented, ref.Converged)
		assert.Equal(t, out.PRNumber, ref.PRNumber)
		assert.Equal(t, "Fired again; no new investigation ran for this fire, so there is no new evidence and pull request #1 is unchanged: "+out.PRURL, ref.Message)
		for _, claim := range []string{"new investigation proposes", "still applies", "different fix", "new fix"} {
			assert.NotContains(t, ref.Message, claim)
		}
	}
	pr := e.pulls(t)[0]
	assert.Equal(t, head, pr.HeadSHA, "no commit")
	assert.Equal(t, commits, e.count("POST", "/git/commits"))
	require.Len(t, pr.Comments, 2)
	for i, c := range pr.Comments {
		assert.Contains(t, c.Body, "This incident fired again (fire #"+string(rune('2'+i))+") at 2026-12-01 17:10 UTC.")
		assert.Contains(t, c.Body, "No new investigation ran for this fire, so there is no new evidence. This pull request is unchanged.")
		assert.NotContains(t, c.Body, "The new investigation")
		assert.NotContains(t, c.Body, "```diff")
		assert.Contains(t, c.Body, "Slack thread: "+threadURL)
		assert.Contains(t, c.Body, Marker(key))
	}
}
