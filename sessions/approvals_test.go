package sessions

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBeginApprovalOnceAcrossClicksAndReplicas(t *testing.T) {
	ctx := ctxT(t)
	rdbA, rdbB := newRedis(t), newRedis(t)
	prefix := uniquePrefix(t, rdbA)
	replicas := []*Store{newStore(t, rdbA, Options{Prefix: prefix}), newStore(t, rdbB, Options{Prefix: prefix})}

	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		started []Approval
	)
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			a, ok, err := replicas[i%2].BeginApproval(ctx, "fix:K1", Actor{User: fmt.Sprintf("U%d", i%3), Proposal: "job-1"})
			if !assert.NoError(t, err) {
				return
			}
			if ok {
				mu.Lock()
				started = append(started, a)
				mu.Unlock()
			} else {
				assert.Empty(t, a.Lease, "losers get no lease")
				assert.Equal(t, ApprovalApproving, a.State)
			}
		}(i)
	}
	wg.Wait()
	require.Len(t, started, 1, "one PR flow")
	assert.NotEmpty(t, started[0].Lease)
	assert.Equal(t, ApprovalApproving, started[0].State)
}

func TestApprovalFlow(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb)})
	const key = "fix:K2"

	a, ok, err := s.BeginApproval(ctx, key, Actor{User: "U1", Proposal: "job-1", Channel: "C1", ThreadTS: "1.1"})
	require.NoError(t, err)
	require.True(t, ok)
	lease := a.Lease
	assert.Equal(t, "job-1", a.Proposal)

	a, err = s.RecordStep(ctx, key, lease, StepBranch, StepUpdate{Branch: "autoheal/k2"})
	require.NoError(t, err)
	assert.Equal(t, StepBranch, a.Step)
	assert.Equal(t, "autoheal/k2", a.Branch)

	// The first GitHub call fails: back to a retryable state, progress kept.
	a, err = s.FailApproval(ctx, key, lease, "github: 502 on create commit")
	require.NoError(t, err)
	assert.Equal(t, ApprovalFailed, a.State)
	assert.Equal(t, "github: 502 on create commit", a.Error)
	_, err = s.RecordStep(ctx, key, lease, StepCommit, StepUpdate{})
	require.ErrorIs(t, err, ErrLeaseLost, "the failed attempt's lease is void")

	// Retry resumes after the branch step.
	a, ok, err = s.BeginApproval(ctx, key, Actor{User: "U2", Proposal: "job-1", Channel: "C1", ThreadTS: "1.1"})
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, StepBranch, a.Step)
	assert.Equal(t, "autoheal/k2", a.Branch)
	assert.Equal(t, "U2", a.By)
	lease2 := a.Lease
	assert.NotEqual(t, lease, lease2)

	_, err = s.RecordStep(ctx, key, lease2, StepCommit, StepUpdate{})
	require.NoError(t, err)
	a, err = s.CompleteApproval(ctx, key, lease2, Completion{PRNumber: 42, PRURL: "https://github.example/acme/shop/pull/42"})
	require.NoError(t, err)
	assert.Equal(t, ApprovalApproved, a.State)
	assert.Equal(t, 42, a.PRNumber)
	assert.Equal(t, StepPR, a.Step)
	assert.Empty(t, a.Error, "success clears the last error")

	// Nothing moves the approved proposal, nor a click that names none.
	for _, p := range []string{"job-1", ""} {
		_, ok, err = s.BeginApproval(ctx, key, Actor{User: "U3", Proposal: p})
		require.NoError(t, err)
		assert.False(t, ok, "approved twice would open a second PR")
		a, err = s.Reject(ctx, key, Actor{User: "U3", Proposal: p}, "changed my mind")
		require.ErrorIs(t, err, ErrInvalidTransition)
		assert.Equal(t, ApprovalApproved, a.State)
	}
	_, err = s.CompleteApproval(ctx, key, lease2, Completion{PRNumber: 43, PRURL: "x"})
	require.ErrorIs(t, err, ErrLeaseLost)

	got, err := s.GetApproval(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, ApprovalApproved, got.State)
	assert.Equal(t, "https://github.example/acme/shop/pull/42", got.PRURL)
	assert.Empty(t, got.Lease, "leases are not handed out by reads")

	log, err := s.AuditLog(ctx, key)
	require.NoError(t, err)
	require.Len(t, log, 2, "decisions are audited, steps are not")
	assert.Equal(t, AuditFailed, log[0].Action)
	assert.Equal(t, "U1", log[0].User)
	assert.Equal(t, "github: 502 on create commit", log[0].Detail)
	assert.Equal(t, AuditRecord{At: log[1].At, Action: AuditApproved, IssueKey: key, User: "U2", Proposal: "job-1",
		Channel: "C1", ThreadTS: "1.1", PRNumber: 42, PRURL: "https://github.example/acme/shop/pull/42"}, log[1])
	assert.WithinDuration(t, time.Now(), log[1].At, time.Minute)
}

// A new proposal (a re-investigation, a re-fire's different fix) may be
// decided again after the key's earlier one was rejected or approved; the
// key keeps its pull request.
func TestNewProposalIsDecidedAgain(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb)})
	const key = "fix:K7"

	a, err := s.Reject(ctx, key, Actor{User: "U1", Proposal: "job-1", Channel: "C1", ThreadTS: "1.1"}, "wrong line")
	require.NoError(t, err)
	assert.Equal(t, ApprovalRejected, a.State)
	_, ok, err := s.BeginApproval(ctx, key, Actor{User: "U1", Proposal: "job-1"})
	require.NoError(t, err)
	assert.False(t, ok, "the rejected proposal stays rejected")

	a, ok, err = s.BeginApproval(ctx, key, Actor{User: "U2", Proposal: "job-2", Channel: "C1", ThreadTS: "1.1"})
	require.NoError(t, err)
	require.True(t, ok, "the re-investigation's proposal can be approved")
	assert.Empty(t, a.Reason)
	_, err = s.RecordStep(ctx, key, a.Lease, StepBranch, StepUpdate{Branch: "autoheal/k7"})
	require.NoError(t, err)
	_, err = s.CompleteApproval(ctx, key, a.Lease, Completion{PRNumber: 7, PRURL: "https://github.example/acme/shop/pull/7"})
	require.NoError(t, err)

	// A re-fire's different fix: rejected, then another one approved as an update.
	a, err = s.Reject(ctx, key, Actor{User: "U1", Proposal: "job-3"}, "not yet")
	require.NoError(t, err)
	assert.Equal(t, ApprovalRejected, a.State)
	assert.Equal(t, 7, a.PRNumber, "the key keeps its pull request")
	a, ok, err = s.BeginApproval(ctx, key, Actor{User: "U2", Proposal: "job-4"})
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "autoheal/k7", a.Branch)
	assert.Equal(t, 7, a.PRNumber)
	_, err = s.CompleteApproval(ctx, key, a.Lease, Completion{PRNumber: 7, PRURL: "https://github.example/acme/shop/pull/7", Action: AuditUpdated})
	require.NoError(t, err)

	log, err := s.AuditLog(ctx, key)
	require.NoError(t, err)
	var got []string
	for _, r := range log {
		got = append(got, string(r.Action)+" "+r.User+" "+r.Proposal)
	}
	assert.Equal(t, []string{"rejected U1 job-1", "approved U2 job-2", "rejected U1 job-3", "updated U2 job-4"}, got)
}

func TestRejectOnlyFromPendingOrFailed(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb)})

	a, err := s.Reject(ctx, "fix:pending", Actor{User: "U1"}, "not this way")
	require.NoError(t, err)
	assert.Equal(t, ApprovalRejected, a.State)
	assert.Equal(t, "not this way", a.Reason)
	_, ok, err := s.BeginApproval(ctx, "fix:pending", Actor{User: "U2"})
	require.NoError(t, err)
	assert.False(t, ok, "a rejected fix cannot be approved")

	a, ok, err = s.BeginApproval(ctx, "fix:approving", Actor{User: "U1", Proposal: "job-1"})
	require.NoError(t, err)
	require.True(t, ok)
	for _, p := range []string{"job-1", "job-2"} {
		_, err = s.Reject(ctx, "fix:approving", Actor{User: "U2", Proposal: p}, "")
		require.ErrorIs(t, err, ErrInvalidTransition, "cannot reject while the PR is being opened")
	}

	_, err = s.FailApproval(ctx, "fix:approving", a.Lease, "boom")
	require.NoError(t, err)
	a, err = s.Reject(ctx, "fix:approving", Actor{User: "U2"}, "")
	require.NoError(t, err)
	assert.Equal(t, ApprovalRejected, a.State)
}

func TestApprovalLeaseExpiryAllowsResume(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb), ApprovalLease: 150 * time.Millisecond})

	first, ok, err := s.BeginApproval(ctx, "fix:K5", Actor{User: "U1"})
	require.NoError(t, err)
	require.True(t, ok)
	_, err = s.RecordStep(ctx, "fix:K5", first.Lease, StepBranch, StepUpdate{Branch: "autoheal/k5"})
	require.NoError(t, err)
	// The replica dies. Until the lease runs out, clicks are refused...
	_, ok, err = s.BeginApproval(ctx, "fix:K5", Actor{User: "U2", Proposal: "job-2"})
	require.NoError(t, err)
	require.False(t, ok, "not even for another proposal")
	// ...then another replica resumes from the recorded step.
	var second Approval
	require.Eventually(t, func() bool {
		second, ok, err = s.BeginApproval(ctx, "fix:K5", Actor{User: "U2"})
		return err == nil && ok
	}, 5*time.Second, 20*time.Millisecond)
	assert.Equal(t, StepBranch, second.Step)
	assert.Equal(t, "autoheal/k5", second.Branch)
	_, err = s.RecordStep(ctx, "fix:K5", first.Lease, StepCommit, StepUpdate{})
	assert.ErrorIs(t, err, ErrLeaseLost, "the dead replica cannot write any more")
}

func TestApprovalInputValidation(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb)})
	_, _, err := s.BeginApproval(ctx, "", Actor{User: "U1"})
	assert.ErrorIs(t, err, ErrInvalidArgument)
	_, _, err = s.BeginApproval(ctx, "k", Actor{})
	assert.ErrorIs(t, err, ErrInvalidArgument)
	_, _, err = s.BeginApproval(ctx, "k", Actor{User: "U1", Channel: "C1\n"})
	assert.ErrorIs(t, err, ErrInvalidArgument)
	_, err = s.RecordStep(ctx, "k", "lease", Step("deploy"), StepUpdate{})
	assert.ErrorIs(t, err, ErrInvalidArgument)
	_, err = s.CompleteApproval(ctx, "k", "lease", Completion{})
	assert.ErrorIs(t, err, ErrInvalidArgument)
	_, err = s.CompleteApproval(ctx, "k", "lease", Completion{PRNumber: 1, Action: "merged"})
	assert.ErrorIs(t, err, ErrInvalidArgument)
	_, err = s.FailApproval(ctx, "k", "", "x")
	assert.ErrorIs(t, err, ErrLeaseLost)
}
