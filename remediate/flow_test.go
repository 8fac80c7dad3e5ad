package remediate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/sessions"
	ghsim "github.com/autoheal/autoheal/sim/github"
)

const threadURL = "https://acme.slack.com/archives/C0INCIDENT/p1764606240000100"

// expectedPaymentFix is charge.js with line 58 guarded.
func expectedPaymentFix(t *testing.T, e *ghEnv) string {
	t.Helper()
	lines := scenarioLines(t, e.sc, paymentFile)
	src := lines[57]
	out := append(append(append([]string{}, lines[:57]...), "  if (request.shippingCost) {", "  "+src, "  }"), lines[58:]...)
	return strings.Join(out, "\n") + "\n"
}

// ghClient is a go-github client acting as a person on the simulator.
func ghClient(t *testing.T, e *ghEnv) *github.Client {
	t.Helper()
	c, err := github.NewClient(nil).WithAuthToken(testToken).WithEnterpriseURLs(e.http.URL, e.http.URL)
	require.NoError(t, err)
	return c
}

// pushFile commits a file change to a branch the way a person would.
func pushFile(t *testing.T, e *ghEnv, branch, path, content, message string) {
	t.Helper()
	c := ghClient(t, e)
	ctx := ctxT(t)
	fc, _, _, err := c.Repositories.GetContents(ctx, e.owner, e.name, path, &github.RepositoryContentGetOptions{Ref: branch})
	require.NoError(t, err)
	_, _, err = c.Repositories.UpdateFile(ctx, e.owner, e.name, path, &github.RepositoryContentFileOptions{
		Message: github.String(message), Content: []byte(content), SHA: fc.SHA, Branch: github.String(branch),
	})
	require.NoError(t, err)
}

func TestApproveOpensOnePullRequest(t *testing.T) {
	e := newGHEnv(t, paymentScenario, ghsim.Options{})
	store, _ := newStore(t)
	s := newService(t, e, svcConfig{store: store})
	ctx := ctxT(t)
	key := "checkouterrorratehigh-checkout-03be3deddb"
	res := paymentResult(t, e.sc, key, false)

	prop, err := s.Propose(ctx, res)
	require.NoError(t, err)
	require.True(t, prop.Eligible(), prop.Ineligible)
	assert.Equal(t, KindCodePatch, prop.Kind)
	assert.Equal(t, "fix(payment): null pointer at charge.js:58", prop.Title)
	assert.Contains(t, prop.RegressionTest, "buildLineItems")
	assert.Equal(t, expectedPaymentFix(t, e), string(prop.Files[0].Content))
	assert.Equal(t, res.Fix.Patch.Diff, s.ViewPatch(prop), "the display diff is the patch as applied")

	out, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, Result: res, Proposal: prop, ThreadURL: threadURL, FireCount: 1})
	require.NoError(t, err)
	assert.Equal(t, StatusCreated, out.Status)
	assert.True(t, out.Created)
	assert.Equal(t, "autoheal/"+key, out.Branch)
	assert.Equal(t, 1, out.PRNumber)
	assert.Contains(t, out.PRURL, "/pull/1")
	assert.Contains(t, out.Message, "<@U0APPROVER> approved the fix: pull request #1 opened")

	prs := e.pulls(t)
	require.Len(t, prs, 1)
	pr := prs[0]
	assert.Equal(t, "autoheal/"+key, pr.Head)
	assert.Equal(t, "main", pr.Base)
	assert.Equal(t, "fix(payment): null pointer at charge.js:58", pr.Title)
	require.Len(t, pr.Commits, 1, "one commit with the change")
	assert.Equal(t, out.CommitSHA, pr.HeadSHA)
	for _, want := range []string{
		"**Root cause:** JavaScript undefined dereference in payment",
		"| Service | payment |", "| Location | src/payment/charge.js:58 (buildLineItems) |", "| Bucket | code bug |",
		"| Confidence | **HIGH** |", "_HIGH: error type known",
		"TypeError: Cannot read properties of undefined (reading 'units')", "### Evidence",
		"### Suggested regression test", "with an order that has no shipping cost",
		"### Slack thread\n\n" + threadURL,
		"<!-- autoheal:issue-key=" + key + " -->",
	} {
		assert.Contains(t, pr.Body, want)
	}
	assert.Equal(t, expectedPaymentFix(t, e), e.file(t, pr.HeadSHA, paymentFile))
	assert.Equal(t, string(e.sc.Repo.Files[paymentFile]), e.file(t, "main", paymentFile), "main is untouched")
	msg, err := e.sim.CommitMessage(e.owner, e.name, pr.HeadSHA)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(msg, "autoheal: fix(payment): null pointer at charge.js:58\n"), msg)
	assert.Contains(t, msg, "AutoHeal-Issue-Key: "+key)
	assert.Contains(t, msg, "Approved-by: U0APPROVER (Slack)")

	a, err := store.GetApproval(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, sessions.ApprovalApproved, a.State)
	assert.Equal(t, 1, a.PRNumber)
	assert.Equal(t, "autoheal/"+key, a.Branch)
	assert.Equal(t, sessions.StepPR, a.Step)

	// A second click (double click) finds the approved record: same PR, no writes.
	posts := e.count("POST", "/pulls")
	again, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, Result: res, Proposal: prop, ThreadURL: threadURL})
	require.NoError(t, err)
	assert.Equal(t, StatusExisting, again.Status)
	assert.Equal(t, out.PRNumber, again.PRNumber)
	assert.Equal(t, out.PRURL, again.PRURL)
	assert.Equal(t, posts, e.count("POST", "/pulls"))
	assert.Len(t, e.pulls(t), 1)
}

func TestApproveComputesProposalWhenMissing(t *testing.T) {
	e := newGHEnv(t, paymentScenario, ghsim.Options{})
	store, _ := newStore(t)
	s := newService(t, e, svcConfig{store: store})
	res := paymentResult(t, e.sc, "k-no-proposal", false)
	out, err := s.Approve(ctxT(t), ApproveRequest{IssueKey: "k-no-proposal", User: approver, Result: res})
	require.NoError(t, err)
	assert.Equal(t, StatusCreated, out.Status)
	assert.Equal(t, expectedPaymentFix(t, e), e.file(t, "autoheal/k-no-proposal", paymentFile))
}

func TestConcurrentClicksOnTwoReplicasOpenOnePullRequest(t *testing.T) {
	e := newGHEnv(t, paymentScenario, ghsim.Options{})
	// Two replicas: each its own Store and Service over the same Redis keys.
	stores, _ := newStores(t, 2)
	replicas := []*Service{newService(t, e, svcConfig{store: stores[0]}), newService(t, e, svcConfig{store: stores[1]})}
	key := "concurrent-key"
	res := paymentResult(t, e.sc, key, false)
	ctx := ctxT(t)

	const clicksPerReplica = 4
	var wg sync.WaitGroup
	outs := make(chan Outcome, 2*clicksPerReplica)
	errs := make(chan error, 2*clicksPerReplica)
	start := make(chan struct{})
	for _, s := range replicas {
		for i := 0; i < clicksPerReplica; i++ {
			wg.Add(1)
			go func(s *Service) {
				defer wg.Done()
				<-start
				out, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, Result: res, ThreadURL: threadURL})
				outs <- out
				errs <- err
			}(s)
		}
	}
	close(start)
	wg.Wait()
	close(outs)
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	created := 0
	for o := range outs {
		switch o.Status {
		case StatusCreated:
			created++
		case StatusExisting, StatusInProgress:
		default:
			t.Fatalf("unexpected outcome %+v", o)
		}
	}
	assert.Equal(t, 1, created)
	assert.Len(t, e.pulls(t), 1)
	assert.Equal(t, []string{"autoheal/" + key}, e.autohealBranches(t))
	assert.Equal(t, 1, e.count("POST", "/pulls"))
	assert.Equal(t, 1, e.count("POST", "/git/refs"))
}

// alwaysGrant is an approval store whose lease is always granted, as when
// the lease of a slow replica expired and another took over: the GitHub
// steps alone must then keep it to one pull request.
type alwaysGrant struct{}

func (alwaysGrant) BeginApproval(context.Context, string, sessions.Actor) (sessions.Approval, bool, error) {
	return sessions.Approval{State: sessions.ApprovalApproving, Lease: "lease"}, true, nil
}
func (alwaysGrant) RecordStep(context.Context, string, string, sessions.Step, sessions.StepUpdate) (sessions.Approval, error) {
	return sessions.Approval{}, nil
}
func (alwaysGrant) CompleteApproval(context.Context, string, string, sessions.Completion) (sessions.Approval, error) {
	return sessions.Approval{}, nil
}
func (alwaysGrant) FailApproval(context.Context, string, string, string) (sessions.Approval, error) {
	return sessions.Approval{}, nil
}
func (alwaysGrant) GetApproval(context.Context, string) (sessions.Approval, error) {
	return sessions.Approval{}, sessions.ErrNotFound
}
func (alwaysGrant) Reject(context.Context, string, sessions.Actor, string) (sessions.Approval, error) {
	return sessions.Approval{}, nil
}
func (alwaysGrant) RecordAudit(context.Context, sessions.AuditRecord) error { return nil }

func TestGitHubStepsAreIdempotentWhenTwoReplicasRunThemAtOnce(t *testing.T) {
	e := newGHEnv(t, paymentScenario, ghsim.Options{})
	a := newService(t, e, svcConfig{store: alwaysGrant{}})
	b := newService(t, e, svcConfig{store: alwaysGrant{}})
	key := "lease-expired-key"
	res := paymentResult(t, e.sc, key, false)
	ctx := ctxT(t)
	for round := 0; round < 3; round++ {
		var wg sync.WaitGroup
		for _, s := range []*Service{a, b, a, b} {
			wg.Add(1)
			go func(s *Service) {
				defer wg.Done()
				out, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, Result: res})
				assert.NoError(t, err)
				assert.Contains(t, []Status{StatusCreated, StatusExisting}, out.Status)
			}(s)
		}
		wg.Wait()
	}
	prs := e.pulls(t)
	require.Len(t, prs, 1)
	assert.Equal(t, []string{"autoheal/" + key}, e.autohealBranches(t))
	require.Len(t, prs[0].Commits, 1, "racing replicas reuse the branch instead of stacking commits")
	assert.Equal(t, expectedPaymentFix(t, e), e.file(t, prs[0].HeadSHA, paymentFile))
}

func TestCrashBetweenBranchAndPullRequestResumes(t *testing.T) {
	e := newGHEnv(t, paymentScenario, ghsim.Options{})
	store, _ := newStore(t)
	s := newService(t, e, svcConfig{store: store})
	ctx := ctxT(t)
	key := "crash-key"
	res := paymentResult(t, e.sc, key, false)
	_, err := e.sim.Inject(ghsim.Fault{Method: "POST", Path: "/repos/acme/astronomy-shop/pulls", Kind: ghsim.FaultServerError, Status: 502, Times: 1})
	require.NoError(t, err)

	out, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, Result: res, ThreadURL: threadURL})
	require.Error(t, err)
	assert.Equal(t, StatusFailed, out.Status)
	assert.True(t, out.Retryable)
	assert.Equal(t, "GitHub failed to create the pull request (HTTP 502, a GitHub-side error). Nothing half-done blocks a retry: click Approve again to resume.", out.Message)
	assert.Empty(t, e.pulls(t))
	head, err := e.sim.HeadCommit(e.owner, e.name, "autoheal/"+key)
	require.NoError(t, err, "the branch was created before the failure")

	a, err := store.GetApproval(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, sessions.ApprovalFailed, a.State)
	assert.Equal(t, sessions.StepCommit, a.Step)
	assert.Equal(t, "autoheal/"+key, a.Branch)
	assert.Equal(t, out.Message, a.Error)

	again, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, Result: res, ThreadURL: threadURL})
	require.NoError(t, err)
	assert.Equal(t, StatusCreated, again.Status)
	prs := e.pulls(t)
	require.Len(t, prs, 1)
	assert.Equal(t, head, prs[0].HeadSHA, "the PR points at the commit of the first attempt")
	assert.Len(t, prs[0].Commits, 1)
	assert.Equal(t, 1, e.count("POST", "/git/commits"), "the resumed attempt made no new commit")
	assert.Equal(t, 1, e.count("POST", "/git/refs"))
}

func TestApproveWhenPullRequestExistsButRecordWasLost(t *testing.T) {
	// A replica opened the PR and died before recording it: the next click
	// finds the PR by its head branch and completes the record.
	e := newGHEnv(t, paymentScenario, ghsim.Options{})
	first := newService(t, e, svcConfig{store: alwaysGrant{}})
	key := "lost-record"
	res := paymentResult(t, e.sc, key, false)
	ctx := ctxT(t)
	out, err := first.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, Result: res})
	require.NoError(t, err)
	require.Equal(t, StatusCreated, out.Status)

	store, _ := newStore(t)
	s := newService(t, e, svcConfig{store: store})
	again, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, Result: res})
	require.NoError(t, err)
	assert.Equal(t, StatusExisting, again.Status)
	assert.Equal(t, out.PRNumber, again.PRNumber)
	assert.Equal(t, ConvergedNone, again.Converged, "the PR already had the change")
	a, err := store.GetApproval(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, sessions.ApprovalApproved, a.State)
	assert.Equal(t, out.PRNumber, a.PRNumber)
	assert.Len(t, e.pulls(t), 1)
}

func TestUnauthorizedClicksAreRefusedAndAudited(t *testing.T) {
	e := newGHEnv(t, paymentScenario, ghsim.Options{})
	store, _ := newStore(t)
	s := newService(t, e, svcConfig{store: store, approvers: approver + ", <!subteam^S0ONCALL|@oncall>", groups: staticGroups{"S0ONCALL": {"U0GROUPMEMBER"}}})
	ctx := ctxT(t)
	key := "authz-key"
	res := paymentResult(t, e.sc, key, false)

	out, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: outsider, Result: res})
	require.NoError(t, err)
	assert.Equal(t, StatusUnauthorized, out.Status)
	assert.Equal(t, "Only approvers can approve AutoHeal fixes, and you are not one (directly or through a user group in AUTOHEAL_APPROVERS). Ask one of the approvers: <@U0APPROVER>, <!subteam^S0ONCALL>.", out.Ephemeral)
	assert.Equal(t, "<@U0OUTSIDER> tried to approve the fix but is not an approver; the click was refused and recorded in the audit log.", out.Message)
	rej, err := s.Reject(ctx, RejectRequest{IssueKey: key, User: outsider, Reason: "looks wrong", Channel: "C0INCIDENT", ThreadTS: "1.2"})
	require.NoError(t, err)
	assert.Equal(t, StatusUnauthorized, rej.Status)

	log, err := store.AuditLog(ctx, key)
	require.NoError(t, err)
	require.Len(t, log, 2)
	assert.Equal(t, []sessions.AuditAction{sessions.AuditRefused, sessions.AuditRefused}, []sessions.AuditAction{log[0].Action, log[1].Action})
	assert.Equal(t, []string{"approve", "reject"}, []string{log[0].Detail, log[1].Detail})
	assert.Equal(t, outsider, log[0].User)
	assert.Equal(t, "C0INCIDENT", log[1].Channel)
	_, err = store.GetApproval(ctx, key)
	assert.ErrorIs(t, err, sessions.ErrNotFound, "a refused click does not touch the approval")
	assert.Zero(t, e.count("POST", ""), "nothing was written to GitHub")

	// A member of an approver user group may approve.
	ok, err := s.Authorize(ctx, "U0GROUPMEMBER")
	require.NoError(t, err)
	assert.True(t, ok)
	out, err = s.Approve(ctx, ApproveRequest{IssueKey: key, User: "U0GROUPMEMBER", Result: res})
	require.NoError(t, err)
	assert.Equal(t, StatusCreated, out.Status)
	log, err = store.AuditLog(ctx, key)
	require.NoError(t, err)
	require.Len(t, log, 3)
	assert.Equal(t, sessions.AuditApproved, log[2].Action)
	assert.Equal(t, "U0GROUPMEMBER", log[2].User)
	assert.Equal(t, out.PRNumber, log[2].PRNumber)
}

func TestRejectThenApprove(t *testing.T) {
	e := newGHEnv(t, paymentScenario, ghsim.Options{})
	store, _ := newStore(t)
	s := newService(t, e, svcConfig{store: store})
	ctx := ctxT(t)
	key := "reject-key"
	out, err := s.Reject(ctx, RejectRequest{IssueKey: key, User: approver, Reason: "we will roll back instead"})
	require.NoError(t, err)
	assert.Equal(t, StatusRejected, out.Status)
	assert.Equal(t, "<@U0APPROVER> rejected the fix: we will roll back instead. No pull request will be opened.", out.Message)

	ap, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, Result: paymentResult(t, e.sc, key, false)})
	require.NoError(t, err)
	assert.Equal(t, StatusRejected, ap.Status)
	assert.Contains(t, ap.Message, "rejected by <@U0APPROVER>: we will roll back instead")
	assert.Empty(t, e.pulls(t))
	assert.Zero(t, e.count("POST", ""))
}

func TestPatchThatDoesNotApplyOffersNoPullRequest(t *testing.T) {
	e := newGHEnv(t, paymentScenario, ghsim.Options{})
	store, _ := newStore(t)
	s := newService(t, e, svcConfig{store: store})
	ctx := ctxT(t)
	key := "stale-patch"
	res := paymentResult(t, e.sc, key, false)
	// The patch was made against a different version of the file.
	res.Fix.Patch.Diff = strings.Replace(res.Fix.Patch.Diff, " function buildLineItems(request) {", " function buildLineItems(req) {", 1)

	prop, err := s.Propose(ctx, res)
	require.NoError(t, err)
	assert.False(t, prop.Eligible())
	assert.Equal(t, KindNone, prop.Kind)
	assert.Equal(t, `Patch does not apply cleanly to src/payment/charge.js at main: hunk 1 (@@ -55,7 +55,9 @@) does not match anywhere: it expects line 56 to be "function buildLineItems(req) {", but the file has "function buildLineItems(request) {".`, prop.Ineligible)
	assert.Empty(t, prop.Files)
	assert.Equal(t, prop.Ineligible, s.ViewPatch(prop))

	out, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, Result: res, Proposal: prop})
	require.NoError(t, err)
	assert.Equal(t, StatusIneligible, out.Status)
	assert.Equal(t, prop.Ineligible, out.Message)
	assert.Zero(t, e.count("POST", ""))
	_, err = store.GetApproval(ctx, key)
	assert.ErrorIs(t, err, sessions.ErrNotFound)
}

func TestBaseMovedSinceTheInvestigation(t *testing.T) {
	e := newGHEnv(t, paymentScenario, ghsim.Options{})
	store, _ := newStore(t)
	s := newService(t, e, svcConfig{store: store})
	ctx := ctxT(t)
	orig := string(e.sc.Repo.Files[paymentFile])

	t.Run("unrelated change above: re-applied at an offset", func(t *testing.T) {
		key := "moved-ok"
		res := paymentResult(t, e.sc, key, false)
		prop, err := s.Propose(ctx, res)
		require.NoError(t, err)
		require.True(t, prop.Eligible())
		pushFile(t, e, "main", paymentFile, "// header added on main\n"+orig, "add a header")

		out, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, Result: res, Proposal: prop})
		require.NoError(t, err)
		assert.Equal(t, StatusCreated, out.Status)
		assert.Contains(t, out.Message, "main moved since the investigation; the change was re-applied on top of it.")
		assert.Equal(t, "// header added on main\n"+expectedPaymentFix(t, e), e.file(t, "autoheal/"+key, paymentFile))
	})
	t.Run("conflicting change: a clear refusal", func(t *testing.T) {
		key := "moved-conflict"
		res := paymentResult(t, e.sc, key, false)
		prop, err := s.Propose(ctx, res)
		require.NoError(t, err)
		require.True(t, prop.Eligible())
		cur := e.file(t, "main", paymentFile)
		pushFile(t, e, "main", paymentFile, strings.Replace(cur, "function buildLineItems(request) {", "function buildLineItems(order) {", 1), "rename")

		out, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, Result: res, Proposal: prop})
		require.Error(t, err)
		assert.Equal(t, StatusFailed, out.Status)
		assert.False(t, out.Retryable)
		assert.True(t, strings.HasPrefix(out.Message, "src/payment/charge.js changed on main since the investigation and the change no longer applies: hunk 1 (@@ -55,7 +55,9 @@)"), out.Message)
		assert.NotContains(t, e.autohealBranches(t), "autoheal/"+key)
	})
}

// staticGroups resolves user groups from a map.
type staticGroups map[string][]string

func (g staticGroups) GroupMembers(_ context.Context, id string) ([]string, error) {
	m, ok := g[id]
	if !ok {
		return nil, errors.New("no such group")
	}
	return m, nil
}

func TestManifestEditPullRequestByteForByte(t *testing.T) {
	e := newGHEnv(t, cartScenario, ghsim.Options{})
	store, _ := newStore(t)
	s := newService(t, e, svcConfig{store: store})
	ctx := ctxT(t)
	key := "kubecontaineroomkilled-cart-1234567890"
	res := cartResult(e.sc, key, "256Mi")

	prop, err := s.Propose(ctx, res)
	require.NoError(t, err)
	require.True(t, prop.Eligible(), prop.Ineligible)
	assert.Equal(t, KindManifestEdit, prop.Kind)
	assert.Equal(t, "fix(cart): set memory to 256Mi in cart.yaml", prop.Title)
	assert.Contains(t, s.ViewPatch(prop), "-              memory: 128Mi\n+              memory: 256Mi\n")

	out, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, Result: res, Proposal: prop, ThreadURL: threadURL})
	require.NoError(t, err)
	require.Equal(t, StatusCreated, out.Status)
	orig := string(e.sc.Repo.Files[cartManifest])
	want := strings.Replace(orig, "              memory: 128Mi\n", "              memory: 256Mi\n", 1)
	require.NotEqual(t, orig, want)
	assert.Equal(t, want, e.file(t, out.CommitSHA, cartManifest))
	pr := e.pulls(t)[0]
	assert.Contains(t, pr.Body, "| Bucket | infrastructure |")
	assert.Contains(t, pr.Body, "`spec.template.spec.containers[cart].resources.limits.memory`: `128Mi` → `256Mi`")

	// Re-fire asking for more memory: offered, then on approval one
	// incremental commit on the same PR, replacing AutoHeal's 256Mi.
	offer, err := s.Refire(ctx, RefireRequest{IssueKey: key, Reinvestigated: true, Result: cartResult(e.sc, key, "512Mi"), ThreadURL: threadURL, FireCount: 2})
	require.NoError(t, err)
	assert.Equal(t, StatusUpdateOffered, offer.Status)
	again, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, ProposalID: "ai-2", Result: cartResult(e.sc, key, "512Mi"), ThreadURL: threadURL})
	require.NoError(t, err)
	assert.Equal(t, ConvergedCommitted, again.Converged)
	assert.Equal(t, strings.Replace(orig, "              memory: 128Mi\n", "              memory: 512Mi\n", 1), e.file(t, again.CommitSHA, cartManifest))
	assert.Len(t, e.pulls(t), 1)
	assert.Contains(t, e.pulls(t)[0].Title, "512Mi")
}

func TestGitHubFailuresGiveClearMessagesAndRetrySucceeds(t *testing.T) {
	repoPath := "/repos/acme/astronomy-shop"
	tests := []struct {
		name      string
		fault     ghsim.Fault
		message   string // exact, or a prefix when prefix is set
		prefix    bool
		retryable bool
		always    bool // fails until removed (else once)
	}{
		{
			name:    "403 creating the branch",
			fault:   ghsim.Fault{Method: "POST", Path: repoPath + "/git/refs", Kind: ghsim.FaultForbidden},
			message: "GitHub refused to create the branch: the token lacks contents:write (403).",
		},
		{
			name:    "403 creating the pull request",
			fault:   ghsim.Fault{Method: "POST", Path: repoPath + "/pulls", Kind: ghsim.FaultForbidden},
			message: "GitHub refused to create the pull request: the token lacks pull_requests:write (403).",
		},
		{
			name:    "404: the token cannot see the repository",
			fault:   ghsim.Fault{Method: "GET", Path: repoPath + "**", Kind: ghsim.FaultNotFound},
			message: "GitHub could not read the repository (404): the repository or ref does not exist, or the token cannot see it (it needs metadata:read).",
			always:  true,
		},
		{
			name:    "422 creating the pull request",
			fault:   ghsim.Fault{Method: "POST", Path: repoPath + "/pulls", Kind: ghsim.FaultValidation, Message: "base branch is archived"},
			message: "GitHub rejected the request to create the pull request (422): Validation Failed: base branch is archived.",
		},
		{
			name:      "503 creating the commit",
			fault:     ghsim.Fault{Method: "POST", Path: repoPath + "/git/commits", Kind: ghsim.FaultServerError, Status: 503},
			message:   "GitHub failed to create the commit (HTTP 503, a GitHub-side error). Nothing half-done blocks a retry: click Approve again to resume.",
			retryable: true,
		},
		{
			name:      "primary rate limit",
			fault:     ghsim.Fault{Method: "POST", Path: repoPath + "/git/trees", Kind: ghsim.FaultRateLimit, RetryAfter: time.Second},
			message:   "GitHub rate limit reached while trying to create the commit; retry after ",
			prefix:    true,
			retryable: true,
		},
		{
			name:      "secondary rate limit (429)",
			fault:     ghsim.Fault{Method: "POST", Path: repoPath + "/pulls", Kind: ghsim.FaultSecondaryRateLimit, Status: 429, RetryAfter: time.Second},
			message:   "GitHub secondary rate limit reached (too many requests in a short time) while trying to create the pull request; retry after ",
			prefix:    true,
			retryable: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newGHEnv(t, paymentScenario, ghsim.Options{})
			store, _ := newStore(t)
			s := newService(t, e, svcConfig{store: store})
			ctx := ctxT(t)
			key := "fault-" + strings.ReplaceAll(strings.ToLower(tc.name), " ", "-")
			key = strings.Trim(nonSlug.ReplaceAllString(key, "-"), "-")
			res := paymentResult(t, e.sc, key, false)
			prop, err := s.Propose(ctx, res)
			require.NoError(t, err)
			require.True(t, prop.Eligible())
			if !tc.always {
				tc.fault.Times = 1
			}
			id, err := e.sim.Inject(tc.fault)
			require.NoError(t, err)

			out, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, Result: res, Proposal: prop, ThreadURL: threadURL})
			require.Error(t, err)
			var ge *GitHubError
			require.ErrorAs(t, err, &ge)
			assert.Equal(t, StatusFailed, out.Status)
			if tc.prefix {
				assert.True(t, strings.HasPrefix(out.Message, tc.message), out.Message)
				assert.False(t, out.RetryAt.IsZero())
				assert.Regexp(t, `retry after \d\d:\d\d(:\d\d)? UTC\.$`, out.Message)
			} else {
				assert.Equal(t, tc.message, out.Message)
			}
			assert.Equal(t, tc.retryable, out.Retryable)
			assert.NotContains(t, out.Message, testToken)
			assert.NotContains(t, err.Error(), testToken)
			a, gerr := store.GetApproval(ctx, key)
			require.NoError(t, gerr)
			assert.Equal(t, sessions.ApprovalFailed, a.State)
			assert.Equal(t, out.Message, a.Error)
			assert.Empty(t, e.pulls(t))

			e.sim.RemoveFault(id) // permissions fixed, GitHub recovered
			if !out.RetryAt.IsZero() {
				// go-github refuses requests until the limit resets.
				time.Sleep(time.Until(out.RetryAt) + 100*time.Millisecond)
			}
			again, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, Result: res, Proposal: prop, ThreadURL: threadURL})
			require.NoError(t, err)
			assert.Equal(t, StatusCreated, again.Status)
			assert.Len(t, e.pulls(t), 1)
			assert.Equal(t, []string{"autoheal/" + key}, e.autohealBranches(t))
			assert.Equal(t, expectedPaymentFix(t, e), e.file(t, "autoheal/"+key, paymentFile))
		})
	}
}

func TestCreateIssueForAFlake(t *testing.T) {
	e := newGHEnv(t, cartScenario, ghsim.Options{})
	store, _ := newStore(t)
	s := newService(t, e, svcConfig{store: store})
	ctx := ctxT(t)
	key := "kubepodcrashlooping-cart-eccb937875"
	res := flakeResult(e.sc, key)

	prop, err := s.Propose(ctx, res)
	require.NoError(t, err)
	assert.False(t, prop.Eligible())
	assert.Equal(t, ReasonFlake, prop.Ineligible)
	assert.Contains(t, prop.Report, "## Flake report: cart")

	out, err := s.CreateIssue(ctx, IssueRequest{IssueKey: key, User: approver, Result: res, ThreadURL: threadURL})
	require.NoError(t, err)
	assert.Equal(t, StatusCreated, out.Status)
	again, err := s.CreateIssue(ctx, IssueRequest{IssueKey: key, User: approver, Result: res, ThreadURL: threadURL})
	require.NoError(t, err)
	assert.Equal(t, StatusExisting, again.Status)
	assert.Equal(t, out.IssueURL, again.IssueURL)

	issues, err := e.sim.Issues(e.owner, e.name)
	require.NoError(t, err)
	require.Len(t, issues, 1)
	assert.Equal(t, []string{"autoheal"}, issues[0].Labels)
	assert.Contains(t, issues[0].Body, "| Frequency | 10 failures between 18:02 and 18:35 |")
	assert.Contains(t, issues[0].Body, "Slack thread: "+threadURL)
	assert.Contains(t, issues[0].Body, Marker(key))
	assert.Empty(t, e.pulls(t), "flakes never get a PR")

	// Approve on a flake is refused with the reason, nothing written.
	ap, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, Result: res})
	require.NoError(t, err)
	assert.Equal(t, StatusIneligible, ap.Status)
	assert.Equal(t, "Flakes get a report, not a PR.", ap.Message)
}

func TestOutcomeOfAClickWhileAnotherIsInProgress(t *testing.T) {
	e := newGHEnv(t, paymentScenario, ghsim.Options{})
	store, _ := newStore(t)
	s := newService(t, e, svcConfig{store: store})
	ctx := ctxT(t)
	key := "busy-key"
	_, started, err := store.BeginApproval(ctx, key, sessions.Actor{User: "U0OTHERAPPROVER"})
	require.NoError(t, err)
	require.True(t, started)
	out, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, Result: paymentResult(t, e.sc, key, false)})
	require.NoError(t, err)
	assert.Equal(t, StatusInProgress, out.Status)
	assert.Equal(t, "<@U0OTHERAPPROVER> already approved this fix; the pull request is being opened.", out.Ephemeral)
	assert.Zero(t, e.count("POST", ""))
}

func TestPerRequestCredentials(t *testing.T) {
	e := newGHEnv(t, paymentScenario, ghsim.Options{})
	store, _ := newStore(t)
	// The service's own token is wrong; the thread's setting is right.
	s := newService(t, e, svcConfig{store: store, github: &GitHubOptions{APIURL: e.apiURL(), Token: "ghp_wrongwrongwrongwrongwrongwrong0000"}})
	ctx := ctxT(t)
	key := "creds-key"
	res := paymentResult(t, e.sc, key, false)
	out, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, Result: res})
	require.Error(t, err)
	assert.Equal(t, StatusFailed, out.Status)
	assert.Contains(t, out.Message, "Could not prepare the change: GitHub rejected the credentials (401)")

	out, err = s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, Result: res, Credentials: &Credentials{Token: testToken}})
	require.NoError(t, err)
	assert.Equal(t, StatusCreated, out.Status)
	fmt.Fprint(&strings.Builder{}, out) // outcomes print without panicking
}
