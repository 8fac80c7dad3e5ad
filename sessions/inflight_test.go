package sessions

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An approval in flight is not stuck while its carrier renews the lease;
// once the carrier stops, it is stuck until it is cleared, and a
// resumption counts one more attempt from the same start.
func TestApprovalsInFlightAreStuckWhenTheirLeaseRunsOut(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb), ApprovalLease: time.Minute})
	other := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb), ApprovalLease: time.Minute})

	e := InFlight{JobID: "m-Ev1", IssueKey: "slack-C1-1.2", User: "U1", Channel: "C1", ThreadTS: "1.2", MessageTS: "1.3"}
	got, err := s.MarkInFlight(ctx, e)
	require.NoError(t, err)
	assert.Equal(t, 1, got.Attempts)
	assert.WithinDuration(t, time.Now().Add(time.Minute), got.LeaseUntil, 5*time.Second)
	first := got.Since

	stuck, err := s.StuckApprovals(ctx, time.Now(), 10)
	require.NoError(t, err)
	assert.Empty(t, stuck, "its lease runs")
	stuck, err = s.StuckApprovals(ctx, time.Now().Add(2*time.Minute), 10)
	require.NoError(t, err)
	require.Len(t, stuck, 1, "the carrier stopped renewing")
	assert.Equal(t, "m-Ev1", stuck[0].JobID)
	assert.Equal(t, "slack-C1-1.2", stuck[0].IssueKey)
	assert.Equal(t, "U1", stuck[0].User)
	assert.Equal(t, "1.3", stuck[0].MessageTS)
	stuck, err = other.StuckApprovals(ctx, time.Now().Add(2*time.Minute), 10)
	require.NoError(t, err)
	assert.Empty(t, stuck, "another prefix has its own index")

	// The carrier's heartbeat moves the deadline.
	require.NoError(t, s.ExtendInFlight(ctx, "m-Ev1", time.Now().Add(10*time.Minute)))
	stuck, err = s.StuckApprovals(ctx, time.Now().Add(2*time.Minute), 10)
	require.NoError(t, err)
	assert.Empty(t, stuck)

	// A resumption marks it again.
	again, err := s.MarkInFlight(ctx, e)
	require.NoError(t, err)
	assert.Equal(t, 2, again.Attempts)
	assert.True(t, again.Since.Equal(first), "since the first click")
	cur, err := s.InFlightApproval(ctx, "m-Ev1")
	require.NoError(t, err)
	assert.Equal(t, 2, cur.Attempts)
	assert.WithinDuration(t, again.LeaseUntil, cur.LeaseUntil, time.Millisecond)

	require.NoError(t, s.ClearInFlight(ctx, "m-Ev1"))
	_, err = s.InFlightApproval(ctx, "m-Ev1")
	assert.ErrorIs(t, err, ErrNotFound)
	assert.ErrorIs(t, s.ExtendInFlight(ctx, "m-Ev1", time.Now()), ErrNotFound, "a heartbeat does not bring it back")
	stuck, err = s.StuckApprovals(ctx, time.Now().Add(time.Hour), 10)
	require.NoError(t, err)
	assert.Empty(t, stuck)
}

func TestStuckApprovalsOldestFirstAndBounded(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb), ApprovalLease: time.Minute})
	for _, id := range []string{"job-a", "job-b", "job-c"} {
		_, err := s.MarkInFlight(ctx, InFlight{JobID: id, IssueKey: "key-" + id, User: "U1"})
		require.NoError(t, err)
	}
	now := time.Now()
	require.NoError(t, s.ExtendInFlight(ctx, "job-c", now.Add(-3*time.Minute)))
	require.NoError(t, s.ExtendInFlight(ctx, "job-a", now.Add(-2*time.Minute)))
	require.NoError(t, s.ExtendInFlight(ctx, "job-b", now.Add(-time.Minute)))

	stuck, err := s.StuckApprovals(ctx, now, 2)
	require.NoError(t, err)
	require.Len(t, stuck, 2)
	assert.Equal(t, "job-c", stuck[0].JobID)
	assert.Equal(t, "job-a", stuck[1].JobID)

	_, err = s.StuckApprovals(ctx, now, 0)
	assert.ErrorIs(t, err, ErrInvalidArgument)
	_, err = s.MarkInFlight(ctx, InFlight{JobID: "job-d", User: "U1"})
	assert.ErrorIs(t, err, ErrInvalidArgument, "an issue key is required")
	_, err = s.MarkInFlight(ctx, InFlight{JobID: "job-d", IssueKey: "k", User: "U1", Channel: "C\n1"})
	assert.ErrorIs(t, err, ErrInvalidArgument)
}

// The approving state's lease is readable, so a sweeper can wait for it.
func TestApprovalLeaseUntilIsReported(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb), ApprovalLease: time.Minute})
	a, ok, err := s.BeginApproval(ctx, "fix:lease", Actor{User: "U1", Proposal: "job-1"})
	require.NoError(t, err)
	require.True(t, ok)
	got, err := s.GetApproval(ctx, "fix:lease")
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now().Add(time.Minute), got.LeaseUntil, 5*time.Second)
	_, err = s.CompleteApproval(ctx, "fix:lease", a.Lease, Completion{PRNumber: 3, PRURL: "https://github.com/o/r/pull/3"})
	require.NoError(t, err)
	got, err = s.GetApproval(ctx, "fix:lease")
	require.NoError(t, err)
	assert.True(t, got.LeaseUntil.IsZero())
}
