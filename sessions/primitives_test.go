package sessions

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFirstSeenAcrossReplicas(t *testing.T) {
	ctx := ctxT(t)
	rdbA, rdbB := newRedis(t), newRedis(t) // two replicas, two connections pools
	prefix := uniquePrefix(t, rdbA)
	replicas := []*Store{newStore(t, rdbA, Options{Prefix: prefix}), newStore(t, rdbB, Options{Prefix: prefix})}

	const events, callers = 10, 40
	var firsts [events]atomic.Int32
	var wg sync.WaitGroup
	for c := 0; c < callers; c++ {
		for e := 0; e < events; e++ {
			wg.Add(1)
			go func(c, e int) {
				defer wg.Done()
				first, err := replicas[c%2].FirstSeen(ctx, fmt.Sprintf("Ev%04d", e), time.Minute)
				if !assert.NoError(t, err) {
					return
				}
				if first {
					firsts[e].Add(1)
				}
			}(c, e)
		}
	}
	wg.Wait()
	for e := range firsts {
		assert.Equal(t, int32(1), firsts[e].Load(), "event %d must be answered exactly once", e)
	}

	ttl, err := rdbA.PTTL(ctx, replicas[0].key("seen", "Ev0000")).Result()
	require.NoError(t, err)
	assert.Greater(t, ttl, time.Duration(0))
	assert.LessOrEqual(t, ttl, time.Minute)
}

func TestFirstSeenAndDoneValidate(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb)})
	_, err := s.FirstSeen(ctx, "", time.Minute)
	assert.ErrorIs(t, err, ErrInvalidArgument)
	_, err = s.FirstSeen(ctx, "x", 0)
	assert.ErrorIs(t, err, ErrInvalidArgument)

	// Done and FirstSeen are separate namespaces; odd ids are hashed safely.
	id := "post result {job 1}\n"
	require.NoError(t, s.MarkDone(ctx, id[:len(id)-1], time.Minute))
	done, err := s.Done(ctx, id[:len(id)-1])
	require.NoError(t, err)
	assert.True(t, done)
	first, err := s.FirstSeen(ctx, id[:len(id)-1], time.Minute)
	require.NoError(t, err)
	assert.True(t, first)
	assert.ErrorIs(t, s.MarkDone(ctx, id, time.Minute), ErrInvalidArgument, "control characters are refused")
}

func TestDoneIsRecordedOnlyWhenMarked(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb)})
	done, err := s.Done(ctx, "refire reply k")
	require.NoError(t, err)
	assert.False(t, done, "asking does not claim it (unlike Once)")
	done, err = s.Done(ctx, "refire reply k")
	require.NoError(t, err)
	assert.False(t, done)

	require.NoError(t, s.MarkDone(ctx, "refire reply k", 200*time.Millisecond))
	done, err = s.Done(ctx, "refire reply k")
	require.NoError(t, err)
	assert.True(t, done)
	require.Eventually(t, func() bool {
		done, err := s.Done(ctx, "refire reply k")
		return err == nil && !done
	}, 5*time.Second, 50*time.Millisecond, "done expires with its ttl")

	assert.ErrorIs(t, s.MarkDone(ctx, "k", 0), ErrInvalidArgument)
	_, err = s.Done(ctx, "bad\nkey")
	assert.ErrorIs(t, err, ErrInvalidArgument)
}

func TestLockContention(t *testing.T) {
	ctx := ctxT(t)
	rdbA, rdbB := newRedis(t), newRedis(t)
	prefix := uniquePrefix(t, rdbA)
	replicas := []*Store{newStore(t, rdbA, Options{Prefix: prefix}), newStore(t, rdbB, Options{Prefix: prefix})}

	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		held   []*Lock
		locked atomic.Int32
	)
	for i := 0; i < 30; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			l, err := replicas[i%2].Lock(ctx, "investigate:C1/1.1", time.Minute)
			if err != nil {
				assert.ErrorIs(t, err, ErrLocked)
				locked.Add(1)
				return
			}
			mu.Lock()
			held = append(held, l)
			mu.Unlock()
		}(i)
	}
	wg.Wait()
	require.Len(t, held, 1, "exactly one holder")
	assert.Equal(t, int32(29), locked.Load())

	owner := held[0]
	require.NoError(t, owner.Extend(ctx, time.Minute))
	require.NoError(t, owner.Unlock(ctx))
	require.ErrorIs(t, owner.Unlock(ctx), ErrLockLost, "a second unlock is reported")

	next, err := replicas[1].Lock(ctx, "investigate:C1/1.1", time.Minute)
	require.NoError(t, err, "free again after unlock")
	require.NoError(t, next.Unlock(ctx))
}

func TestLockExpiryDoesNotLetStaleHolderUnlock(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb)})

	stale, err := s.Lock(ctx, "approve:K1", 150*time.Millisecond)
	require.NoError(t, err)
	var fresh *Lock
	require.Eventually(t, func() bool {
		fresh, err = s.Lock(ctx, "approve:K1", time.Minute)
		return err == nil
	}, 5*time.Second, 25*time.Millisecond, "the lock is free after its TTL")

	assert.ErrorIs(t, stale.Unlock(ctx), ErrLockLost)
	assert.ErrorIs(t, stale.Extend(ctx, time.Minute), ErrLockLost)
	_, err = s.Lock(ctx, "approve:K1", time.Minute)
	assert.ErrorIs(t, err, ErrLocked, "the stale holder did not release the new holder's lock")
	require.NoError(t, fresh.Unlock(ctx))
}
