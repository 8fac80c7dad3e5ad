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
			a, ok, err := replicas[i%2].BeginApproval(ctx, "fix:K1", fmt.Sprintf("U%d", i%3))
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

	a, ok, err := s.BeginApproval(ctx, key, "U1")
	require.NoError(t, err)
	require.True(t, ok)
	lease := a.Lease

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
	a, ok, err = s.BeginApproval(ctx, key, "U2")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, StepBranch, a.Step)
	assert.Equal(t, "autoheal/k2", a.Branch)
	assert.Equal(t, "U2", a.By)
	lease2 := a.Lease
	assert.NotEqual(t, lease, lease2)

	_, err = s.RecordStep(ctx, key, lease2, StepCommit, StepUpdate{})
	require.NoError(t, err)
	a, err = s.CompleteApproval(ctx, key, lease2, 42, "https://github.example/acme/shop/pull/42")
	require.NoError(t, err)
	assert.Equal(t, ApprovalApproved, a.State)
	assert.Equal(t, 42, a.PRNumber)
	assert.Equal(t, StepPR, a.Step)
	assert.Empty(t, a.Error, "success clears the last error")

	// Nothing moves an approved fix.
	_, ok, err = s.BeginApproval(ctx, key, "U3")
	require.NoError(t, err)
	assert.False(t, ok, "approved twice would open a second PR")
	a, err = s.Reject(ctx, key, "U3", "changed my mind")
	require.ErrorIs(t, err, ErrInvalidTransition)
	assert.Equal(t, ApprovalApproved, a.State)
	_, err = s.CompleteApproval(ctx, key, lease2, 43, "x")
	require.ErrorIs(t, err, ErrLeaseLost)

	got, err := s.GetApproval(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, ApprovalApproved, got.State)
	assert.Equal(t, "https://github.example/acme/shop/pull/42", got.PRURL)
	assert.Empty(t, got.Lease, "leases are not handed out by reads")

	log, err := s.AuditLog(ctx, key)
	require.NoError(t, err)
	var entries []string
	for _, e := range log {
		entries = append(entries, e.Entry)
	}
	assert.Equal(t, []string{
		"approve clicked by U1", "step branch done", "failed: github: 502 on create commit",
		"approve clicked by U2", "step commit done", "approved: PR #42",
	}, entries)
}

func TestRejectOnlyFromPendingOrFailed(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb)})

	a, err := s.Reject(ctx, "fix:pending", "U1", "not this way")
	require.NoError(t, err)
	assert.Equal(t, ApprovalRejected, a.State)
	assert.Equal(t, "not this way", a.Reason)
	_, ok, err := s.BeginApproval(ctx, "fix:pending", "U2")
	require.NoError(t, err)
	assert.False(t, ok, "a rejected fix cannot be approved")

	a, ok, err = s.BeginApproval(ctx, "fix:approving", "U1")
	require.NoError(t, err)
	require.True(t, ok)
	_, err = s.Reject(ctx, "fix:approving", "U2", "")
	require.ErrorIs(t, err, ErrInvalidTransition, "cannot reject while the PR is being opened")

	_, err = s.FailApproval(ctx, "fix:approving", a.Lease, "boom")
	require.NoError(t, err)
	a, err = s.Reject(ctx, "fix:approving", "U2", "")
	require.NoError(t, err)
	assert.Equal(t, ApprovalRejected, a.State)
}

func TestApprovalLeaseExpiryAllowsResume(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb), ApprovalLease: 150 * time.Millisecond})

	first, ok, err := s.BeginApproval(ctx, "fix:K5", "U1")
	require.NoError(t, err)
	require.True(t, ok)
	_, err = s.RecordStep(ctx, "fix:K5", first.Lease, StepBranch, StepUpdate{Branch: "autoheal/k5"})
	require.NoError(t, err)
	// The replica dies. Until the lease runs out, clicks are refused...
	_, ok, err = s.BeginApproval(ctx, "fix:K5", "U2")
	require.NoError(t, err)
	require.False(t, ok)
	// ...then another replica resumes from the recorded step.
	var second Approval
	require.Eventually(t, func() bool {
		second, ok, err = s.BeginApproval(ctx, "fix:K5", "U2")
		return err == nil && ok
	}, 5*time.Second, 20*time.Millisecond)
	assert.Equal(t, StepBranch, second.Step)
	assert.Equal(t, "autoheal/k5", second.Branch)
	_, err = s.RecordStep(ctx, "fix:K5", first.Lease, StepCommit, StepUpdate{})
	assert.ErrorIs(t, err, ErrLeaseLost, "the dead replica cannot write any more")
}

func TestApprovalAuditIsBounded(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb)})
	for i := 0; i < maxAuditEntries+25; i++ {
		require.NoError(t, s.Audit(ctx, "fix:K6", fmt.Sprintf("unauthorized approve click by U%d", i)))
	}
	log, err := s.AuditLog(ctx, "fix:K6")
	require.NoError(t, err)
	require.Len(t, log, maxAuditEntries)
	assert.Equal(t, "unauthorized approve click by U25", log[0].Entry, "oldest entries are dropped")
	assert.Equal(t, fmt.Sprintf("unauthorized approve click by U%d", maxAuditEntries+24), log[len(log)-1].Entry)
	assert.WithinDuration(t, time.Now(), log[0].At, time.Minute)

	_, err = s.GetApproval(ctx, "fix:K6")
	assert.ErrorIs(t, err, ErrNotFound, "auditing does not create an approval")
	assert.ErrorIs(t, s.Audit(ctx, "fix:K6", ""), ErrInvalidArgument)
}

func TestApprovalInputValidation(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb)})
	_, _, err := s.BeginApproval(ctx, "", "U1")
	assert.ErrorIs(t, err, ErrInvalidArgument)
	_, _, err = s.BeginApproval(ctx, "k", "")
	assert.ErrorIs(t, err, ErrInvalidArgument)
	_, err = s.RecordStep(ctx, "k", "lease", Step("deploy"), StepUpdate{})
	assert.ErrorIs(t, err, ErrInvalidArgument)
	_, err = s.CompleteApproval(ctx, "k", "lease", 0, "")
	assert.ErrorIs(t, err, ErrInvalidArgument)
	_, err = s.FailApproval(ctx, "k", "", "x")
	assert.ErrorIs(t, err, ErrLeaseLost)
}
