package sessions

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func parkedIDs(p []ParkedJob) []string {
	var ids []string
	for _, j := range p {
		ids = append(ids, j.Job.ID)
	}
	return ids
}

func TestParkAndUnpark(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb)})
	t1, t2 := ThreadScope("C1", "1.1"), ThreadScope("C1", "2.2")
	job1 := Job{ID: "j1", Kind: "investigate", Payload: json.RawMessage(`{"text":"checkout errors"}`)}
	job2 := Job{ID: "j2", Kind: "investigate"}

	require.NoError(t, s.Park(ctx, t1, job1, []string{"github_token", "loki_url", "github_token"}))
	require.NoError(t, s.Park(ctx, t2, job2, []string{"github_token"}))

	// A token given in thread 1 satisfies part of job 1 and nothing of thread 2.
	got, err := s.Unpark(ctx, t1, []string{"github_token"})
	require.NoError(t, err)
	assert.Empty(t, got)
	waiting, err := s.ParkedJobs(ctx, "C1")
	require.NoError(t, err)
	require.Len(t, waiting, 2)
	for _, w := range waiting {
		switch w.Job.ID {
		case "j1":
			assert.Equal(t, []string{"loki_url"}, w.Missing)
		case "j2":
			assert.Equal(t, []string{"github_token"}, w.Missing)
		}
	}

	got, err = s.Unpark(ctx, t1, []string{"loki_url"})
	require.NoError(t, err)
	require.Equal(t, []string{"j1"}, parkedIDs(got))
	assert.JSONEq(t, `{"text":"checkout errors"}`, string(got[0].Job.Payload), "the job comes back as parked")
	assert.Equal(t, t1, got[0].Scope)

	// A channel-level setting releases the jobs of every thread in it.
	got, err = s.Unpark(ctx, ChannelScope("C1"), []string{"github_token"})
	require.NoError(t, err)
	assert.Equal(t, []string{"j2"}, parkedIDs(got))

	got, err = s.Unpark(ctx, ChannelScope("C1"), []string{"github_token", "loki_url"})
	require.NoError(t, err)
	assert.Empty(t, got, "each job is released once")
}

func TestUnparkOnceAcrossReplicas(t *testing.T) {
	ctx := ctxT(t)
	rdbA, rdbB := newRedis(t), newRedis(t)
	prefix := uniquePrefix(t, rdbA)
	replicas := []*Store{newStore(t, rdbA, Options{Prefix: prefix}), newStore(t, rdbB, Options{Prefix: prefix})}
	for i := 0; i < 10; i++ {
		require.NoError(t, replicas[0].Park(ctx, ThreadScope("C1", fmt.Sprintf("%d.0", i)), Job{ID: fmt.Sprintf("j%d", i), Kind: "investigate"}, []string{"github_token"}))
	}
	var (
		mu   sync.Mutex
		seen = map[string]int{}
		wg   sync.WaitGroup
	)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			got, err := replicas[i%2].Unpark(ctx, ChannelScope("C1"), []string{"github_token"})
			if !assert.NoError(t, err) {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, id := range parkedIDs(got) {
				seen[id]++
			}
		}(i)
	}
	wg.Wait()
	require.Len(t, seen, 10)
	for id, n := range seen {
		assert.Equal(t, 1, n, "job %s resumed %d times", id, n)
	}
}

func TestParkIsBounded(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb), MaxParked: 2})
	sc := ThreadScope("C1", "1.1")
	require.NoError(t, s.Park(ctx, sc, Job{ID: "a", Kind: "k"}, []string{"repo"}))
	require.NoError(t, s.Park(ctx, sc, Job{ID: "b", Kind: "k"}, []string{"repo"}))
	require.ErrorIs(t, s.Park(ctx, sc, Job{ID: "c", Kind: "k"}, []string{"repo"}), ErrParkFull)
	require.NoError(t, s.Park(ctx, sc, Job{ID: "a", Kind: "k"}, []string{"repo", "ref"}), "re-parking replaces")
	require.ErrorIs(t, s.Park(ctx, sc, Job{ID: "d", Kind: "k"}, nil), ErrInvalidArgument)

	ttl, err := rdb.PTTL(ctx, s.parkKey("C1")).Result()
	require.NoError(t, err)
	assert.Greater(t, ttl, 0*ttl)
}
