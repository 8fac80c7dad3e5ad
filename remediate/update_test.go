package remediate

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/sessions"
	ghsim "github.com/autoheal/autoheal/sim/github"
)

// currencyResult is a second code bug in charge.js, away from line 58:
// charges sent without a currency get a default.
func currencyResult(t testing.TB, e *ghEnv, key string) *investigate.HealResult {
	t.Helper()
	lines := scenarioLines(t, e.sc, paymentFile)
	n := 0
	for i, l := range lines {
		if strings.Contains(l, "currency: amount.currencyCode,") {
			n = i + 1
		}
	}
	require.NotZero(t, n)
	res := paymentResult(t, e.sc, key, false)
	res.Summary = "payment rejects charges whose amount has no currency code"
	res.RootCause.Description = "The acquirer rejects charges without a currency: amount.currencyCode is empty for gift-card orders (src/payment/charge.js:75)."
	res.RootCause.Line, res.RootCause.Function, res.RootCause.ErrorType = n, "charge", investigate.ErrRuntime
	res.Fix.Summary = "Default the currency to USD when the amount has none."
	res.Fix.Patch = &investigate.Patch{File: paymentFile, Explanation: "amount.currencyCode is empty for gift cards.",
		Diff: investigate.UnifiedDiff(paymentFile, lines, n, n, []string{strings.Replace(lines[n-1], "amount.currencyCode,", "amount.currencyCode || 'USD',", 1)})}
	return res
}

// writes counts the requests that change something on GitHub.
func (e *ghEnv) writes() int {
	n := 0
	for _, en := range e.transcript.Filter("github") {
		m, _, _ := strings.Cut(en.Method, " ")
		if m != "GET" && m != "HEAD" {
			n++
		}
	}
	return n
}

// reviewerTweak pushes a change a reviewer made to the top of charge.js on
// the pull request's branch, and returns the tweaked line.
func reviewerTweak(t *testing.T, e *ghEnv, branch string) string {
	t.Helper()
	cur := e.file(t, branch, paymentFile)
	const tweak = "// Reviewed: amounts are integer minor units from here on."
	pushFile(t, e, branch, paymentFile, tweak+"\n"+cur, "review: note on units")
	return tweak
}

// A re-fire whose new investigation proposes a different fix writes
// nothing to GitHub; the approver's click on "Update pull request #N"
// pushes one commit on the pull request's head (keeping what is there) and
// rewrites the title and description for the new root cause.
func TestRefireWithADifferentFixWaitsForTheClick(t *testing.T) {
	e := newGHEnv(t, paymentScenario, ghsim.Options{})
	store, _ := newStore(t)
	s := newService(t, e, svcConfig{store: store, approvers: approver})
	ctx := ctxT(t)
	key := "checkouterrorratehigh-checkout-03be3deddb"
	first, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, ProposalID: "ai-1", Result: paymentResult(t, e.sc, key, false), ThreadURL: threadURL})
	require.NoError(t, err)
	require.Equal(t, StatusCreated, first.Status)
	branch := first.Branch
	tweak := reviewerTweak(t, e, branch)
	before := e.pulls(t)[0]
	require.Len(t, before.Commits, 2)

	// The re-fire: nothing is written, the thread is told what to click.
	writes := e.writes()
	newFix := currencyResult(t, e, key)
	st, err := s.Standing(ctx, key, newFix, nil)
	require.NoError(t, err)
	assert.Equal(t, Standing{PR: &PRRef{Number: 1, URL: first.PRURL, State: "open"}, Update: true}, st)
	ref, err := s.Refire(ctx, RefireRequest{IssueKey: key, Reinvestigated: true, Result: newFix, ThreadURL: threadURL, FireCount: 2})
	require.NoError(t, err)
	assert.Equal(t, StatusUpdateOffered, ref.Status)
	assert.Equal(t, 1, ref.PRNumber)
	assert.Contains(t, ref.Message, "Nothing was pushed")
	assert.Contains(t, ref.Message, "*Update pull request #1*")
	assert.Equal(t, writes, e.writes(), "no GitHub write before the click")
	pr := e.pulls(t)[0]
	assert.Equal(t, before.HeadSHA, pr.HeadSHA)
	assert.Empty(t, pr.Comments)

	// Someone who is not an approver clicks: refused, audited, nothing written.
	upd := ApproveRequest{IssueKey: key, User: outsider, ProposalID: "ai-2", Channel: "C0INCIDENT", ThreadTS: "1764606240.000100", Result: newFix, ThreadURL: threadURL}
	out, err := s.Approve(ctx, upd)
	require.NoError(t, err)
	assert.Equal(t, StatusUnauthorized, out.Status)
	assert.Equal(t, writes, e.writes())

	// The approver's click: one commit on the head, title and body rewritten.
	upd.User = approver
	out, err = s.Approve(ctx, upd)
	require.NoError(t, err)
	require.Equal(t, StatusUpdated, out.Status, out.Message)
	assert.Equal(t, ConvergedCommitted, out.Converged)
	assert.Equal(t, 1, out.PRNumber)
	assert.Contains(t, out.Message, "<@U0APPROVER> approved the update: one commit ("+shortSHA(out.CommitSHA)+") was pushed to pull request #1")
	prs := e.pulls(t)
	require.Len(t, prs, 1, "never a second pull request")
	pr = prs[0]
	require.Len(t, pr.Commits, 3, "one commit added")
	assert.Equal(t, before.HeadSHA, pr.Commits[1], "on top of the reviewer's commit")
	assert.Equal(t, out.CommitSHA, pr.HeadSHA)
	head := e.file(t, pr.HeadSHA, paymentFile)
	assert.Contains(t, head, tweak, "the reviewer's change is kept")
	assert.Contains(t, head, "  if (request.shippingCost) {", "the first fix is kept")
	assert.Contains(t, head, "currency: amount.currencyCode || 'USD',", "the new fix is applied")
	assert.Equal(t, string(e.sc.Repo.Files[paymentFile]), e.file(t, "main", paymentFile), "main is untouched")
	assert.Equal(t, "fix(payment): runtime error at charge.js:75", pr.Title)
	for _, want := range []string{
		"**Root cause:** The acquirer rejects charges without a currency",
		"| Location | src/payment/charge.js:75 (charge) |",
		"_Updated with a new root cause and fix by AutoHeal after approval by Slack user `U0APPROVER`.",
		Marker(key), proposalMarker("ai-2"),
	} {
		assert.Contains(t, pr.Body, want)
	}
	assert.NotContains(t, pr.Body, "null pointer")
	msg, err := e.sim.CommitMessage(e.owner, e.name, pr.HeadSHA)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(msg, "autoheal: update fix: fix(payment): runtime error at charge.js:75\n"), msg)
	assert.Contains(t, msg, "AutoHeal-Issue-Key: "+key)
	assert.Contains(t, msg, "Approved-by: U0APPROVER (Slack)")
	assert.Equal(t, 1, e.count("PATCH", "/pulls/1"))

	// A double click on the same update: no write.
	writes = e.writes()
	again, err := s.Approve(ctx, upd)
	require.NoError(t, err)
	assert.Equal(t, StatusExisting, again.Status)
	assert.Equal(t, writes, e.writes())

	a, err := store.GetApproval(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, sessions.ApprovalApproved, a.State)
	assert.Equal(t, "ai-2", a.Proposal)
	assert.Equal(t, 1, a.PRNumber)
	log, err := store.AuditLog(ctx, key)
	require.NoError(t, err)
	var got []string
	for _, r := range log {
		got = append(got, string(r.Action)+" "+r.User+" "+r.Proposal)
	}
	assert.Equal(t, []string{"approved U0APPROVER ai-1", "refused U0OUTSIDER ai-2", "updated U0APPROVER ai-2"}, got)
	assert.Equal(t, "C0INCIDENT", log[2].Channel)
	assert.Equal(t, 1, log[2].PRNumber)

	// The update is the fix now: the same result on the next re-fire only comments.
	same, err := s.Refire(ctx, RefireRequest{IssueKey: key, Reinvestigated: true, Result: currencyResult(t, e, key), ThreadURL: threadURL, FireCount: 3})
	require.NoError(t, err)
	assert.Equal(t, ConvergedCommented, same.Converged)
}

// A re-fire with the fix the pull request already has only comments.
func TestRefireWithTheSameFixOnlyComments(t *testing.T) {
	e := newGHEnv(t, paymentScenario, ghsim.Options{})
	store, _ := newStore(t)
	s := newService(t, e, svcConfig{store: store})
	ctx := ctxT(t)
	key := "refire-same"

	none, err := s.Refire(ctx, RefireRequest{IssueKey: key, Reinvestigated: true, Result: paymentResult(t, e.sc, key, false)})
	require.NoError(t, err)
	assert.Equal(t, StatusNoPR, none.Status, "no pull request: nothing to do")
	assert.Zero(t, e.writes())

	_, err = s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, ProposalID: "ai-1", Result: paymentResult(t, e.sc, key, false)})
	require.NoError(t, err)
	head := e.pulls(t)[0].HeadSHA
	writes := e.writes()
	at := time.Date(2026, 12, 1, 17, 5, 0, 0, time.UTC)
	same, err := s.Refire(ctx, RefireRequest{IssueKey: key, Reinvestigated: true, Result: paymentResult(t, e.sc, key, false), ThreadURL: threadURL, FireCount: 3, At: at})
	require.NoError(t, err)
	assert.Equal(t, StatusConverged, same.Status)
	assert.Equal(t, ConvergedCommented, same.Converged)
	assert.Contains(t, same.Message, "still applies")
	assert.Equal(t, writes+1, e.writes(), "one comment")
	pr := e.pulls(t)[0]
	assert.Equal(t, head, pr.HeadSHA)
	require.Len(t, pr.Comments, 1)
	c := pr.Comments[0].Body
	assert.Contains(t, c, "fired again (fire #3) at 2026-12-01 17:05 UTC")
	assert.Contains(t, c, "this pull request still applies. No new commit.")
	assert.Contains(t, c, Marker(key))
	st, err := s.Standing(ctx, key, paymentResult(t, e.sc, key, false), nil)
	require.NoError(t, err)
	assert.True(t, st.Same)
	assert.False(t, st.Update)
}

// A new fix that rewrites the lines AutoHeal's earlier commit changed
// replaces that change (the branch has only AutoHeal's commits); with a
// reviewer's commit on the branch it is refused, and nothing is written.
func TestUpdateOfTheSameLines(t *testing.T) {
	e := newGHEnv(t, paymentScenario, ghsim.Options{})
	store, _ := newStore(t)
	s := newService(t, e, svcConfig{store: store})
	ctx := ctxT(t)

	key := "same-lines"
	_, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, ProposalID: "ai-1", Result: paymentResult(t, e.sc, key, false)})
	require.NoError(t, err)
	out, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, ProposalID: "ai-2", Result: paymentResult(t, e.sc, key, true)})
	require.NoError(t, err)
	require.Equal(t, StatusUpdated, out.Status, out.Message)
	pr := e.pulls(t)[0]
	require.Len(t, pr.Commits, 2)
	head := e.file(t, pr.HeadSHA, paymentFile)
	assert.Contains(t, head, "request.shippingCost?.units")
	assert.NotContains(t, head, "if (request.shippingCost) {", "AutoHeal's superseded change is replaced")

	key = "same-lines-reviewed"
	first, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, ProposalID: "ai-1", Result: paymentResult(t, e.sc, key, false)})
	require.NoError(t, err)
	reviewerTweak(t, e, first.Branch)
	st, err := s.Standing(ctx, key, paymentResult(t, e.sc, key, true), nil)
	require.NoError(t, err)
	assert.False(t, st.Update)
	assert.Contains(t, st.Reason, "commits AutoHeal did not make")
	writes := e.writes()
	out, err = s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, ProposalID: "ai-2", Result: paymentResult(t, e.sc, key, true)})
	require.Error(t, err)
	assert.Equal(t, StatusFailed, out.Status)
	assert.Contains(t, out.Message, "The new change to src/payment/charge.js does not apply to the branch of pull request #2")
	assert.Contains(t, out.Message, "so they are not overwritten")
	assert.Equal(t, writes, e.writes())
}

// An update is guarded like a first pull request: a change that would add a
// secret is refused before anything is written.
func TestUpdateIsScannedForSecrets(t *testing.T) {
	e := newGHEnv(t, paymentScenario, ghsim.Options{})
	store, _ := newStore(t)
	s := newService(t, e, svcConfig{store: store})
	ctx := ctxT(t)
	key := "update-secret"
	_, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, ProposalID: "ai-1", Result: paymentResult(t, e.sc, key, false)})
	require.NoError(t, err)
	res := currencyResult(t, e, key)
	res.Fix.Patch.Diff = strings.Replace(res.Fix.Patch.Diff, "|| 'USD',", "|| 'USD', apiKey: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789',", 1)
	writes := e.writes()
	out, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, ProposalID: "ai-2", Result: res})
	require.ErrorIs(t, err, ErrSecretInOutput)
	assert.Equal(t, StatusFailed, out.Status)
	assert.Contains(t, out.Message, "it would add a secret to the repository. Nothing was written to GitHub.")
	assert.Equal(t, writes, e.writes())
}

// Two replicas receive the same update click at once: one commit.
func TestConcurrentUpdateClicksPushOneCommit(t *testing.T) {
	e := newGHEnv(t, paymentScenario, ghsim.Options{})
	stores, _ := newStores(t, 2)
	a := newService(t, e, svcConfig{store: stores[0]})
	b := newService(t, e, svcConfig{store: stores[1]})
	ctx := ctxT(t)
	key := "update-race"
	_, err := a.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, ProposalID: "ai-1", Result: paymentResult(t, e.sc, key, false)})
	require.NoError(t, err)

	var wg sync.WaitGroup
	results := make(chan Outcome, 4)
	for _, s := range []*Service{a, b, a, b} {
		wg.Add(1)
		go func(s *Service) {
			defer wg.Done()
			out, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, ProposalID: "ai-2", Result: currencyResult(t, e, key)})
			assert.NoError(t, err)
			results <- out
		}(s)
	}
	wg.Wait()
	close(results)
	updated := 0
	for o := range results {
		assert.Contains(t, []Status{StatusUpdated, StatusInProgress, StatusExisting}, o.Status)
		if o.Status == StatusUpdated {
			updated++
		}
	}
	assert.Equal(t, 1, updated)
	prs := e.pulls(t)
	require.Len(t, prs, 1)
	require.Len(t, prs[0].Commits, 2, "exactly one incremental commit")
	assert.Equal(t, 1, e.count("PATCH", "/pulls/1"))
}

// Reject, then Re-investigate, gives a proposal that can be approved; the
// rejected one stays rejected.
func TestRejectThenReinvestigateThenApprove(t *testing.T) {
	e := newGHEnv(t, paymentScenario, ghsim.Options{})
	store, _ := newStore(t)
	s := newService(t, e, svcConfig{store: store})
	ctx := ctxT(t)
	key := "reject-reinvestigate"
	rej, err := s.Reject(ctx, RejectRequest{IssueKey: key, User: approver, ProposalID: "ai-1", Reason: "guard hides the bug"})
	require.NoError(t, err)
	require.Equal(t, StatusRejected, rej.Status)

	out, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, ProposalID: "ai-1", Result: paymentResult(t, e.sc, key, false)})
	require.NoError(t, err)
	assert.Equal(t, StatusRejected, out.Status, "the rejected proposal stays rejected")
	assert.Zero(t, e.writes())

	out, err = s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, ProposalID: "r-2", Result: paymentResult(t, e.sc, key, true)})
	require.NoError(t, err)
	require.Equal(t, StatusCreated, out.Status)
	assert.Contains(t, e.file(t, e.pulls(t)[0].HeadSHA, paymentFile), "request.shippingCost?.units")
	log, err := store.AuditLog(ctx, key)
	require.NoError(t, err)
	require.Len(t, log, 2)
	assert.Equal(t, sessions.AuditRejected, log[0].Action)
	assert.Equal(t, "guard hides the bug", log[0].Detail)
	assert.Equal(t, sessions.AuditApproved, log[1].Action)
	assert.Equal(t, "r-2", log[1].Proposal)
}

// closePR merges or closes a pull request the way a person would.
func closePR(t *testing.T, e *ghEnv, number int, merge bool) {
	t.Helper()
	c := ghClient(t, e)
	ctx := ctxT(t)
	if merge {
		_, _, err := c.PullRequests.Merge(ctx, e.owner, e.name, number, "", &github.PullRequestOptions{MergeMethod: "merge"})
		require.NoError(t, err)
		return
	}
	_, _, err := c.PullRequests.Edit(ctx, e.owner, e.name, number, &github.PullRequest{State: github.String("closed")})
	require.NoError(t, err)
}

// A regression after the key's pull request was merged or closed opens a
// new pull request on a new branch, linking the old one; the re-fire
// itself writes nothing to the closed pull request.
func TestRegressionAfterAMergedOrClosedPullRequest(t *testing.T) {
	for _, merged := range []bool{true, false} {
		name := map[bool]string{true: "merged", false: "closed"}[merged]
		t.Run(name, func(t *testing.T) {
			e := newGHEnv(t, paymentScenario, ghsim.Options{})
			store, _ := newStore(t)
			s := newService(t, e, svcConfig{store: store})
			ctx := ctxT(t)
			key := "regression-" + name
			first, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, ProposalID: "ai-1", Result: paymentResult(t, e.sc, key, false)})
			require.NoError(t, err)
			closePR(t, e, first.PRNumber, merged)

			regression := currencyResult(t, e, key)
			if !merged {
				regression = paymentResult(t, e.sc, key, false) // the same fix, never merged
			}
			st, err := s.Standing(ctx, key, regression, nil)
			require.NoError(t, err)
			assert.Equal(t, Standing{PR: &PRRef{Number: 1, URL: first.PRURL, State: name}}, st)
			writes := e.writes()
			ref, err := s.Refire(ctx, RefireRequest{IssueKey: key, Reinvestigated: true, Result: regression, FireCount: 2})
			require.NoError(t, err)
			assert.Equal(t, StatusPRClosed, ref.Status)
			assert.Contains(t, ref.Message, "Fired again after pull request #1 ")
			assert.Equal(t, writes, e.writes(), "nothing is written to a closed pull request")

			out, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, ProposalID: "ai-2", Result: regression, ThreadURL: threadURL})
			require.NoError(t, err)
			require.Equal(t, StatusCreated, out.Status, out.Message)
			assert.NotContains(t, out.Message, "already approved")
			assert.Equal(t, 2, out.PRNumber)
			assert.Equal(t, "autoheal/"+key+"-after-1", out.Branch)
			assert.Equal(t, &PRRef{Number: 1, URL: first.PRURL, State: name}, out.Previous)
			assert.Contains(t, out.Message, "It follows pull request #1 ("+name+")")
			pr := e.pulls(t)[1]
			assert.Equal(t, "open", pr.State)
			assert.Equal(t, out.Branch, pr.Head)
			assert.Contains(t, pr.Body, "### Earlier pull request\n\nThis incident was addressed before by #1 ("+first.PRURL+")")
			a, err := store.GetApproval(ctx, key)
			require.NoError(t, err)
			assert.Equal(t, out.Branch, a.Branch)
			assert.Equal(t, 2, a.PRNumber)

			// The next re-fire converges on the new pull request.
			same, err := s.Refire(ctx, RefireRequest{IssueKey: key, Reinvestigated: true, Result: regression, FireCount: 3})
			require.NoError(t, err)
			assert.Equal(t, ConvergedCommented, same.Converged)
			assert.Equal(t, 2, same.PRNumber)
		})
	}
	t.Run("the same fix after a merge needs no pull request", func(t *testing.T) {
		e := newGHEnv(t, paymentScenario, ghsim.Options{})
		store, _ := newStore(t)
		s := newService(t, e, svcConfig{store: store})
		ctx := ctxT(t)
		key := "regression-same"
		first, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, ProposalID: "ai-1", Result: paymentResult(t, e.sc, key, false)})
		require.NoError(t, err)
		closePR(t, e, first.PRNumber, true)
		writes := e.writes()
		out, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, ProposalID: "ai-2", Result: paymentResult(t, e.sc, key, false)})
		require.NoError(t, err)
		assert.Equal(t, StatusIneligible, out.Status)
		assert.Equal(t, "src/payment/charge.js at main already contains this change; no pull request is needed.", out.Message)
		assert.Equal(t, writes, e.writes())
	})
}
