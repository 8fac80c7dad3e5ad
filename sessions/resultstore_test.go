package sessions

import (
	"bytes"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResultDocRoundTripAndReplace(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb)})

	_, err := s.ResultDoc(ctx, "job-doc")
	require.ErrorIs(t, err, ErrNotFound)

	require.NoError(t, s.PutResultDoc(ctx, "job-doc", []byte(`{"summary":"first"}`)))
	require.NoError(t, s.PutResultDoc(ctx, "job-doc", []byte(`{"summary":"second"}`)))
	got, err := s.ResultDoc(ctx, "job-doc")
	require.NoError(t, err)
	assert.JSONEq(t, `{"summary":"second"}`, string(got))
}

func TestResultDocBounds(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb)})

	err := s.PutResultDoc(ctx, "job-big", bytes.Repeat([]byte("x"), MaxResultDocBytes+1))
	require.ErrorIs(t, err, ErrResultTooLarge)
	_, err = s.ResultDoc(ctx, "job-big")
	require.ErrorIs(t, err, ErrNotFound, "nothing of an oversized document is stored")

	require.ErrorIs(t, s.PutResultDoc(ctx, "job-empty", nil), ErrInvalidArgument)
	require.ErrorIs(t, s.PutResultDoc(ctx, "", []byte("{}")), ErrInvalidArgument)
	require.NoError(t, s.PutResultDoc(ctx, "job-max", bytes.Repeat([]byte("y"), MaxResultDocBytes)))
}

func TestResultDocExpires(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb), ResultTTL: 150 * time.Millisecond})

	require.NoError(t, s.PutResultDoc(ctx, "job-ttl", []byte("{}")))
	ttl, err := rdb.PTTL(ctx, s.jobRecordKey("job-ttl")).Result()
	require.NoError(t, err)
	assert.Greater(t, ttl, time.Duration(0), "the record carries a TTL")
	assert.Eventually(t, func() bool {
		_, err := s.ResultDoc(ctx, "job-ttl")
		return err != nil
	}, 5*time.Second, 20*time.Millisecond)
	_, err = s.ResultDoc(ctx, "job-ttl")
	assert.ErrorIs(t, err, ErrNotFound)
}

func TestClaimJobMessageFirstWins(t *testing.T) {
	rdbA, rdbB := newRedis(t), newRedis(t)
	ctx := ctxT(t)
	prefix := uniquePrefix(t, rdbA)
	replicas := []*Store{newStore(t, rdbA, Options{Prefix: prefix}), newStore(t, rdbB, Options{Prefix: prefix})}

	_, _, err := replicas[0].JobMessage(ctx, "job-msg")
	require.ErrorIs(t, err, ErrNotFound)

	type won struct{ channel, ts string }
	var mu sync.Mutex
	winners := map[won]int{}
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			ch, ts, err := replicas[i%2].ClaimJobMessage(ctx, "job-msg", "C0INC", "1700000000.00000"+string(rune('0'+i)))
			if assert.NoError(t, err) {
				mu.Lock()
				winners[won{ch, ts}]++
				mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
	require.Len(t, winners, 1, "every caller sees the same winner")
	for w, n := range winners {
		assert.Equal(t, 10, n)
		ch, ts, err := replicas[1].JobMessage(ctx, "job-msg")
		require.NoError(t, err)
		assert.Equal(t, w.channel, ch)
		assert.Equal(t, w.ts, ts)
	}

	// The result document lives in the same record and does not disturb it.
	require.NoError(t, replicas[0].PutResultDoc(ctx, "job-msg", []byte("{}")))
	_, ts, err := replicas[0].JobMessage(ctx, "job-msg")
	require.NoError(t, err)
	assert.NotEmpty(t, ts)
}
