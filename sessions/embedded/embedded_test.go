package embedded_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/sessions"
	"github.com/autoheal/autoheal/sessions/embedded"
)

func start(t *testing.T) *embedded.Server {
	t.Helper()
	srv, err := embedded.Start()
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func queueOpts(consumer string) sessions.QueueOptions {
	return sessions.QueueOptions{
		Stream:            "{autoheal}:jobs",
		Consumer:          consumer,
		Concurrency:       3,
		VisibilityTimeout: 300 * time.Millisecond,
		ClaimInterval:     30 * time.Millisecond,
		BlockTimeout:      30 * time.Millisecond,
		RetryBackoff:      10 * time.Millisecond,
		MaxAttempts:       2,
		Logger:            quiet(),
	}
}

func run(t *testing.T, q *sessions.Queue, h sessions.Handler) func() error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- q.Run(ctx, h) }()
	var once sync.Once
	var err error
	stop := func() error {
		once.Do(func() {
			cancel()
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				err = errors.New("Run did not return")
			}
		})
		return err
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}

func waitDepth(t *testing.T, q *sessions.Queue, want sessions.Depth) {
	t.Helper()
	require.Eventually(t, func() bool {
		d, err := q.Depth(context.Background())
		return err == nil && d == want
	}, 20*time.Second, 20*time.Millisecond)
}

func TestQueueHappyPathOnEmbeddedRedis(t *testing.T) {
	srv := start(t)
	ctx := context.Background()
	var (
		mu     sync.Mutex
		counts = map[string]int{}
	)
	var queues []*sessions.Queue
	for _, name := range []string{"a", "b"} {
		q, err := sessions.NewQueue(srv.Client(), queueOpts(name))
		require.NoError(t, err)
		queues = append(queues, q)
		run(t, q, func(ctx context.Context, job sessions.Job) error {
			mu.Lock()
			counts[job.ID]++
			mu.Unlock()
			return nil
		})
	}
	const n = 40
	for i := 0; i < n; i++ {
		_, err := queues[i%2].Enqueue(ctx, sessions.Job{ID: fmt.Sprintf("j%02d", i), Kind: "investigate"})
		require.NoError(t, err)
	}
	waitDepth(t, queues[0], sessions.Depth{})
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, counts, n)
	for id, c := range counts {
		assert.Equal(t, 1, c, "job %s", id)
	}
}

func TestQueueReclaimAndDeadLetterOnEmbeddedRedis(t *testing.T) {
	srv := start(t)
	ctx := context.Background()
	rdb := srv.Client()
	opts := queueOpts("survivor")
	q, err := sessions.NewQueue(rdb, opts)
	require.NoError(t, err)
	_, err = q.Enqueue(ctx, sessions.Job{ID: "orphan", Kind: "k"})
	require.NoError(t, err)
	_, err = q.Enqueue(ctx, sessions.Job{ID: "failing", Kind: "k"})
	require.NoError(t, err)

	// A replica reads the first entry and dies.
	require.NoError(t, rdb.XGroupCreateMkStream(ctx, opts.Stream, "autoheal", "0").Err())
	res, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "autoheal", Consumer: "killed", Streams: []string{opts.Stream, ">"}, Count: 1, Block: -1}).Result()
	require.NoError(t, err)
	require.Len(t, res[0].Messages, 1)

	attempts := make(chan string, 8)
	run(t, q, func(ctx context.Context, job sessions.Job) error {
		attempts <- fmt.Sprintf("%s#%d", job.ID, job.Attempt)
		if job.ID == "failing" {
			return fmt.Errorf("still failing on attempt %d", job.Attempt)
		}
		return nil
	})
	waitDepth(t, q, sessions.Depth{Dead: 1})
	close(attempts)
	var seen []string
	for a := range attempts {
		seen = append(seen, a)
	}
	assert.ElementsMatch(t, []string{"orphan#2", "failing#1", "failing#2"}, seen)
	dls, err := q.DeadLetters(ctx, 5)
	require.NoError(t, err)
	require.Len(t, dls, 1)
	assert.Equal(t, "failing", dls[0].Job.ID)
	assert.Equal(t, "still failing on attempt 2", dls[0].Error)
}

func TestStoreOnEmbeddedRedis(t *testing.T) {
	srv := start(t)
	ctx := context.Background()
	key := make([]byte, sessions.KeySize)
	_, _ = rand.Read(key)
	s, err := sessions.New(srv.Client(), sessions.Options{EncryptionKey: key, Logger: quiet()})
	require.NoError(t, err)

	scope := sessions.ThreadScope("C1", "1.1")
	require.NoError(t, s.Set(ctx, scope, map[string]string{"github_token": "ghp_demo", "repo": "acme/shop"}))
	got, err := s.Resolve(ctx, "C1", "1.1", nil)
	require.NoError(t, err)
	assert.Equal(t, "ghp_demo", got.Value("github_token"))

	_, err = s.Lock(ctx, "l", 100*time.Millisecond)
	require.NoError(t, err)
	_, err = s.Lock(ctx, "l", time.Minute)
	require.ErrorIs(t, err, sessions.ErrLocked)
	require.Eventually(t, func() bool {
		_, err := s.Lock(ctx, "l", time.Minute)
		return err == nil
	}, 5*time.Second, 20*time.Millisecond, "TTLs run with the clock on the embedded server")

	_, created, investigate, err := s.OpenOrFire(ctx, "K1", time.Now(), time.Minute)
	require.NoError(t, err)
	assert.True(t, created)
	assert.True(t, investigate)
	a, ok, err := s.BeginApproval(ctx, "K1", sessions.Actor{User: "U1", Proposal: "job-1", Channel: "C1", ThreadTS: "1.1"})
	require.NoError(t, err)
	require.True(t, ok)
	_, err = s.CompleteApproval(ctx, "K1", a.Lease, sessions.Completion{PRNumber: 7, PRURL: "https://example/pull/7"})
	require.NoError(t, err)
	// The audit log (a stream) works on the embedded server too.
	log, err := s.ReadAudit(ctx, sessions.AuditQuery{Channel: "C1", Since: time.Now().Add(-time.Hour)})
	require.NoError(t, err)
	require.Len(t, log, 1)
	assert.Equal(t, sessions.AuditApproved, log[0].Action)
}

func TestOpen(t *testing.T) {
	ctx := context.Background()
	c, closeFn, err := embedded.Open(ctx, "")
	require.NoError(t, err)
	require.NoError(t, c.Ping(ctx).Err())
	require.NoError(t, closeFn())

	_, _, err = embedded.Open(ctx, "redis://user:hunter2@[::1")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "hunter2", "a Redis URL may hold a password")
}
