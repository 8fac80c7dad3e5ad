package sessions

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResultPostedOnce(t *testing.T) {
	ctx := ctxT(t)
	rdbA, rdbB := newRedis(t), newRedis(t)
	prefix := uniquePrefix(t, rdbA)
	replicas := []*Store{newStore(t, rdbA, Options{Prefix: prefix}), newStore(t, rdbB, Options{Prefix: prefix})}

	_, err := replicas[0].GetResult(ctx, "job-1")
	require.ErrorIs(t, err, ErrNotFound)

	var claimed atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			ok, err := replicas[i%2].ClaimResultPost(ctx, "job-1")
			if assert.NoError(t, err) && ok {
				claimed.Add(1)
			}
		}(i)
	}
	wg.Wait()
	require.Equal(t, int32(1), claimed.Load())

	require.NoError(t, replicas[0].MarkResultPosted(ctx, "job-1", "C1", "1700.0001"))
	rec, err := replicas[1].GetResult(ctx, "job-1")
	require.NoError(t, err)
	assert.Equal(t, "job-1", rec.JobID)
	assert.Equal(t, "C1", rec.Channel)
	assert.Equal(t, "1700.0001", rec.MessageTS)
	assert.WithinDuration(t, time.Now(), rec.PostedAt, time.Minute)

	ok, err := replicas[1].ClaimResultPost(ctx, "job-1")
	require.NoError(t, err)
	assert.False(t, ok, "a posted result is never claimed again")
}

func TestResultClaimOfCrashedPosterExpires(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb), ResultClaimTTL: 200 * time.Millisecond})

	ok, err := s.ClaimResultPost(ctx, "job-crash")
	require.NoError(t, err)
	require.True(t, ok)
	// The claimer "crashes": no mark, no release. A retry is refused for now...
	ok, err = s.ClaimResultPost(ctx, "job-crash")
	require.NoError(t, err)
	require.False(t, ok)
	// ...but not forever.
	require.Eventually(t, func() bool {
		ok, err := s.ClaimResultPost(ctx, "job-crash")
		return err == nil && ok
	}, 5*time.Second, 25*time.Millisecond)
}

func TestResultReleaseAfterFailedPost(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb)})
	ok, err := s.ClaimResultPost(ctx, "job-2")
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, s.ReleaseResultPost(ctx, "job-2"))
	ok, err = s.ClaimResultPost(ctx, "job-2")
	require.NoError(t, err)
	assert.True(t, ok, "released claims can be taken at once")
}
