package sessions

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIncidentMemory(t *testing.T) {
	rdb := newRedis(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb), MaxMemory: 5, MemoryTTL: time.Hour})
	ctx := ctxT(t)
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	rec := func(i int, svc, fp string) MemoryRecord {
		return MemoryRecord{ID: fmt.Sprintf("job-%d", i), Channel: "C1", ThreadTS: "1.1", At: t0.Add(time.Duration(i) * time.Minute),
			Service: svc, Bucket: "code_bug", ErrorType: "null_pointer", Fingerprint: fp}
	}
	for i := range 4 {
		require.NoError(t, s.Remember(ctx, rec(i, "payment", "fp-a")))
	}
	require.NoError(t, s.Remember(ctx, rec(4, "cart", "fp-b")))

	all, err := s.RecentIncidents(ctx, MemoryIndex{}, 10)
	require.NoError(t, err)
	require.Len(t, all, 5)
	assert.Equal(t, "job-4", all[0].ID, "newest first")

	byFP, err := s.RecentIncidents(ctx, MemoryIndex{Fingerprint: "fp-a"}, 2)
	require.NoError(t, err)
	require.Len(t, byFP, 2)
	assert.Equal(t, []string{"job-3", "job-2"}, []string{byFP[0].ID, byFP[1].ID})
	bySvc, err := s.RecentIncidents(ctx, MemoryIndex{Service: "cart"}, 10)
	require.NoError(t, err)
	require.Len(t, bySvc, 1)

	// Bounded: a sixth incident forgets the oldest from the recent index.
	require.NoError(t, s.Remember(ctx, rec(5, "cart", "fp-b")))
	all, err = s.RecentIncidents(ctx, MemoryIndex{}, 10)
	require.NoError(t, err)
	require.Len(t, all, 5)
	assert.Equal(t, "job-1", all[4].ID)
	ttl, err := rdb.TTL(ctx, s.memoryKey("job-5")).Result()
	require.NoError(t, err)
	assert.InDelta(t, time.Hour.Seconds(), ttl.Seconds(), 5, "every record expires")

	// Amend: concurrent changes all land.
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			assert.NoError(t, s.Amend(ctx, "job-5", func(r *MemoryRecord) { r.Changes = append(r.Changes, fmt.Sprint(i)) }))
		})
	}
	wg.Wait()
	got, err := s.Recall(ctx, "job-5")
	require.NoError(t, err)
	assert.Len(t, got.Changes, 8)
	assert.ErrorIs(t, s.Amend(ctx, "job-99", func(*MemoryRecord) {}), ErrNotFound)
	_, err = s.Recall(ctx, "job-99")
	assert.ErrorIs(t, err, ErrNotFound)

	// An expired record is skipped and leaves the index.
	require.NoError(t, rdb.Del(ctx, s.memoryKey("job-4")).Err())
	bySvc, err = s.RecentIncidents(ctx, MemoryIndex{Service: "cart"}, 10)
	require.NoError(t, err)
	require.Len(t, bySvc, 1)
	n, err := rdb.ZCard(ctx, s.memoryServiceKey("cart")).Result()
	require.NoError(t, err)
	assert.EqualValues(t, 1, n)

	assert.Error(t, s.Remember(ctx, MemoryRecord{ID: "no-time"}))
}
