package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fastQueue returns options with short timings so tests run quickly.
func fastQueue(stream, consumer string) QueueOptions {
	return QueueOptions{
		Stream:            stream,
		Group:             "bots",
		Consumer:          consumer,
		Concurrency:       4,
		VisibilityTimeout: 2 * time.Second,
		ClaimInterval:     50 * time.Millisecond,
		BlockTimeout:      50 * time.Millisecond,
		RetryBackoff:      20 * time.Millisecond,
		DrainTimeout:      5 * time.Second,
		Logger:            testLogger(),
	}
}

func newQueue(t testing.TB, rdb redis.UniversalClient, opts QueueOptions) *Queue {
	t.Helper()
	q, err := NewQueue(rdb, opts)
	require.NoError(t, err)
	return q
}

// runQueue runs q in the background; stop cancels it and returns Run's error.
func runQueue(t *testing.T, q *Queue, h Handler) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- q.Run(ctx, h) }()
	var (
		once sync.Once
		err  error
	)
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				err = errors.New("Run did not return within 30s of cancellation")
			}
		})
		return err
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}

func waitDepth(t *testing.T, q *Queue, want Depth) {
	t.Helper()
	ctx := ctxT(t)
	var last Depth
	ok := assert.Eventually(t, func() bool {
		d, err := q.Depth(ctx)
		last = d
		return err == nil && d == want
	}, 20*time.Second, 20*time.Millisecond)
	if !ok {
		t.Fatalf("queue depth: want %+v, last %+v", want, last)
	}
}

func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(20 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		var zero T
		return zero
	}
}

func TestQueueOptionsValidation(t *testing.T) {
	rdb := newRedis(t)
	base := fastQueue("s", "c")
	tests := []struct {
		name string
		mod  func(*QueueOptions)
	}{
		{"no stream", func(o *QueueOptions) { o.Stream = "" }},
		{"negative block", func(o *QueueOptions) { o.BlockTimeout = -time.Second }},
		{"sub-millisecond block would block forever", func(o *QueueOptions) { o.BlockTimeout = time.Microsecond }},
		{"heartbeat not below visibility", func(o *QueueOptions) { o.HeartbeatInterval = o.VisibilityTimeout }},
		{"concurrency too high", func(o *QueueOptions) { o.Concurrency = 5000 }},
		{"negative concurrency", func(o *QueueOptions) { o.Concurrency = -1 }},
		{"negative attempts", func(o *QueueOptions) { o.MaxAttempts = -1 }},
		{"tiny visibility", func(o *QueueOptions) { o.VisibilityTimeout = time.Millisecond }},
		{"consumer idle below visibility", func(o *QueueOptions) { o.ConsumerIdleTimeout = time.Second }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := base
			tt.mod(&o)
			_, err := NewQueue(rdb, o)
			assert.ErrorIs(t, err, ErrInvalidArgument)
		})
	}
	q, err := NewQueue(rdb, QueueOptions{Stream: "s"})
	require.NoError(t, err)
	o := q.Options()
	assert.Equal(t, time.Second, o.BlockTimeout, "a zero block timeout takes the default instead of blocking forever")
	assert.Less(t, o.HeartbeatInterval, o.VisibilityTimeout)
	assert.NotEmpty(t, o.Consumer)
}

func TestQueueEachJobOnceAcrossThreeConsumers(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	stream := uniquePrefix(t, rdb) + ":jobs"
	const n = 150

	var (
		mu     sync.Mutex
		counts = map[string]int{}
		by     = map[string]int{}
	)
	var queues []*Queue
	for i := 0; i < 3; i++ {
		consumer := fmt.Sprintf("replica-%d", i)
		q := newQueue(t, newRedis(t), fastQueue(stream, consumer))
		queues = append(queues, q)
		runQueue(t, q, func(ctx context.Context, job Job) error {
			mu.Lock()
			counts[job.ID]++
			by[consumer]++
			mu.Unlock()
			return nil
		})
	}

	var wg sync.WaitGroup
	for p := 0; p < 5; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			for i := p; i < n; i += 5 {
				_, err := queues[p%3].Enqueue(ctx, Job{ID: fmt.Sprintf("job-%03d", i), Kind: "investigate", Key: "K"})
				assert.NoError(t, err)
			}
		}(p)
	}
	wg.Wait()

	waitDepth(t, queues[0], Depth{})
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, counts, n)
	for id, c := range counts {
		assert.Equal(t, 1, c, "job %s ran %d times", id, c)
	}
	total := 0
	for _, c := range by {
		total += c
	}
	assert.Equal(t, n, total)
}

func TestQueueJobFields(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	q := newQueue(t, rdb, fastQueue(uniquePrefix(t, rdb)+":jobs", "c1"))
	got := make(chan Job, 1)
	runQueue(t, q, func(ctx context.Context, job Job) error { got <- job; return nil })

	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	id, err := q.Enqueue(ctx, Job{ID: "evt-1", Kind: "alert", Key: "K9", Payload: json.RawMessage(`{"a":1}`), EnqueuedAt: at, Attempt: 7})
	require.NoError(t, err)
	job := recv(t, got, "job")
	assert.Equal(t, "evt-1", job.ID)
	assert.Equal(t, "alert", job.Kind)
	assert.Equal(t, "K9", job.Key)
	assert.JSONEq(t, `{"a":1}`, string(job.Payload))
	assert.True(t, at.Equal(job.EnqueuedAt))
	assert.Equal(t, 1, job.Attempt, "attempts are counted by the queue, not the producer")
	assert.Equal(t, id, job.EntryID)

	// An empty ID gets a random one.
	_, err = q.Enqueue(ctx, Job{Kind: "alert"})
	require.NoError(t, err)
	job = recv(t, got, "job without id")
	assert.Len(t, job.ID, 32)
	assert.False(t, job.EnqueuedAt.IsZero())
}

func TestQueueEnqueueValidation(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	opts := fastQueue(uniquePrefix(t, rdb)+":jobs", "c1")
	opts.MaxPayloadBytes = 1024
	q := newQueue(t, rdb, opts)
	_, err := q.Enqueue(ctx, Job{ID: "x"})
	assert.ErrorIs(t, err, ErrInvalidArgument, "kind is required")
	_, err = q.Enqueue(ctx, Job{ID: "x", Kind: "k", Payload: json.RawMessage(`"` + strings.Repeat("a", 2000) + `"`)})
	assert.ErrorIs(t, err, ErrJobTooLarge)
	_, err = q.Enqueue(ctx, Job{ID: "x", Kind: "k", Payload: json.RawMessage(`{bad json`)})
	assert.Error(t, err)
	d, err := q.Depth(ctx)
	require.NoError(t, err)
	assert.Equal(t, Depth{}, d)
}

func TestQueueFull(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	opts := fastQueue(uniquePrefix(t, rdb)+":jobs", "c1")
	opts.MaxLen = 5
	q := newQueue(t, rdb, opts)
	for i := 0; i < 5; i++ {
		_, err := q.Enqueue(ctx, Job{ID: fmt.Sprint(i), Kind: "k"})
		require.NoError(t, err)
	}
	_, err := q.Enqueue(ctx, Job{ID: "overflow", Kind: "k"})
	require.ErrorIs(t, err, ErrQueueFull)
	d, err := q.Depth(ctx)
	require.NoError(t, err)
	assert.Equal(t, Depth{Stream: 5, Waiting: 5}, d)

	// Consuming frees room: acknowledged entries leave the stream.
	done := make(chan string, 5)
	stop := runQueue(t, q, func(ctx context.Context, job Job) error { done <- job.ID; return nil })
	for i := 0; i < 5; i++ {
		recv(t, done, "job")
	}
	waitDepth(t, q, Depth{})
	require.NoError(t, stop())
	_, err = q.Enqueue(ctx, Job{ID: "fits-now", Kind: "k"})
	require.NoError(t, err)
}

func TestQueueDedupeWindow(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	opts := fastQueue(uniquePrefix(t, rdb)+":jobs", "c1")
	opts.DedupeWindow = time.Minute
	q := newQueue(t, rdb, opts)
	first, err := q.Enqueue(ctx, Job{ID: "alert-fp-1", Kind: "alert"})
	require.NoError(t, err)
	again, err := q.Enqueue(ctx, Job{ID: "alert-fp-1", Kind: "alert"})
	require.ErrorIs(t, err, ErrDuplicateJob)
	assert.Equal(t, first, again)
	_, err = q.Enqueue(ctx, Job{ID: "alert-fp-2", Kind: "alert"})
	require.NoError(t, err)
	d, err := q.Depth(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(2), d.Stream)
}

func TestQueueReclaimsJobOfStoppedConsumer(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	stream := uniquePrefix(t, rdb) + ":jobs"

	// Replica A takes the job and hangs; it is shut down and its handler never returns.
	optsA := fastQueue(stream, "A")
	optsA.VisibilityTimeout = 600 * time.Millisecond
	optsA.DrainTimeout = 50 * time.Millisecond
	qA := newQueue(t, newRedis(t), optsA)
	startedA := make(chan Job, 1)
	hang := make(chan struct{})
	t.Cleanup(func() { close(hang) })
	stopA := runQueue(t, qA, func(ctx context.Context, job Job) error {
		startedA <- job
		<-hang // ignores ctx, like a wedged process
		return errors.New("wedged")
	})
	_, err := qA.Enqueue(ctx, Job{ID: "long-investigation", Kind: "investigate"})
	require.NoError(t, err)
	jobA := recv(t, startedA, "job on A")
	assert.Equal(t, 1, jobA.Attempt)
	require.ErrorIs(t, stopA(), ErrDrainTimeout)

	// Replica B picks it up after the visibility timeout and completes it once.
	optsB := fastQueue(stream, "B")
	optsB.VisibilityTimeout = 600 * time.Millisecond
	qB := newQueue(t, newRedis(t), optsB)
	doneB := make(chan Job, 4)
	runQueue(t, qB, func(ctx context.Context, job Job) error { doneB <- job; return nil })
	jobB := recv(t, doneB, "job on B")
	assert.Equal(t, "long-investigation", jobB.ID)
	assert.Equal(t, 2, jobB.Attempt)
	assert.Equal(t, jobA.EntryID, jobB.EntryID)
	waitDepth(t, qB, Depth{})
	select {
	case j := <-doneB:
		t.Fatalf("job ran twice on B: %+v", j)
	default:
	}
}

func TestQueueReclaimsEntryOfKilledConsumer(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	stream := uniquePrefix(t, rdb) + ":jobs"
	opts := fastQueue(stream, "survivor")
	opts.VisibilityTimeout = 300 * time.Millisecond
	q := newQueue(t, rdb, opts)
	_, err := q.Enqueue(ctx, Job{ID: "j1", Kind: "k"})
	require.NoError(t, err)

	// A replica reads the entry and is killed before doing anything.
	require.NoError(t, rdb.XGroupCreateMkStream(ctx, stream, opts.Group, "0").Err())
	res, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: opts.Group, Consumer: "killed", Streams: []string{stream, ">"}, Count: 1, Block: -1}).Result()
	require.NoError(t, err)
	require.Len(t, res[0].Messages, 1)

	done := make(chan Job, 2)
	runQueue(t, q, func(ctx context.Context, job Job) error { done <- job; return nil })
	job := recv(t, done, "reclaimed job")
	assert.Equal(t, "j1", job.ID)
	assert.Equal(t, 2, job.Attempt)
	waitDepth(t, q, Depth{})
}

func TestQueueLongJobOnLiveConsumerIsNotStolen(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	stream := uniquePrefix(t, rdb) + ":jobs"
	var runs, cancelled atomic.Int32
	done := make(chan struct{}, 2)
	h := func(ctx context.Context, job Job) error {
		runs.Add(1)
		select {
		case <-time.After(2400 * time.Millisecond): // three visibility timeouts
		case <-ctx.Done():
			cancelled.Add(1)
			return ctx.Err()
		}
		done <- struct{}{}
		return nil
	}
	var queues []*Queue
	for _, name := range []string{"A", "B"} {
		opts := fastQueue(stream, name)
		opts.VisibilityTimeout = 800 * time.Millisecond
		opts.HeartbeatInterval = 100 * time.Millisecond
		q := newQueue(t, newRedis(t), opts)
		queues = append(queues, q)
		runQueue(t, q, h)
	}
	_, err := queues[0].Enqueue(ctx, Job{ID: "slow", Kind: "investigate"})
	require.NoError(t, err)
	recv(t, done, "slow job")
	waitDepth(t, queues[1], Depth{})
	assert.Equal(t, int32(1), runs.Load(), "the heartbeat kept the job on its consumer")
	assert.Zero(t, cancelled.Load())
}

func TestQueueRetriesThenDeadLetters(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	opts := fastQueue(uniquePrefix(t, rdb)+":jobs", "c1")
	opts.VisibilityTimeout = 400 * time.Millisecond
	opts.MaxAttempts = 3
	q := newQueue(t, rdb, opts)

	var (
		mu       sync.Mutex
		attempts []int
		healthy  atomic.Bool
	)
	succeeded := make(chan Job, 1)
	runQueue(t, q, func(ctx context.Context, job Job) error {
		if healthy.Load() {
			succeeded <- job
			return nil
		}
		mu.Lock()
		attempts = append(attempts, job.Attempt)
		mu.Unlock()
		return fmt.Errorf("loki unreachable (attempt %d)", job.Attempt)
	})
	_, err := q.Enqueue(ctx, Job{ID: "flaky", Kind: "investigate", Key: "K1"})
	require.NoError(t, err)

	waitDepth(t, q, Depth{Dead: 1})
	mu.Lock()
	assert.Equal(t, []int{1, 2, 3}, attempts)
	mu.Unlock()

	dls, err := q.DeadLetters(ctx, 10)
	require.NoError(t, err)
	require.Len(t, dls, 1)
	dl := dls[0]
	assert.Equal(t, "flaky", dl.Job.ID)
	assert.Equal(t, "K1", dl.Job.Key)
	assert.Equal(t, "loki unreachable (attempt 3)", dl.Error, "the last error is kept")
	assert.Equal(t, 3, dl.Attempts)
	assert.WithinDuration(t, time.Now(), dl.FailedAt, time.Minute)

	// Once the backend is back, an operator retries it with fresh attempts.
	healthy.Store(true)
	_, err = q.RetryDeadLetter(ctx, dl.ID)
	require.NoError(t, err)
	job := recv(t, succeeded, "retried job")
	assert.Equal(t, "flaky", job.ID)
	assert.Equal(t, 1, job.Attempt)
	waitDepth(t, q, Depth{})
	_, err = q.RetryDeadLetter(ctx, dl.ID)
	assert.ErrorIs(t, err, ErrNotFound)
}

func TestQueueFailureOutcomes(t *testing.T) {
	tests := []struct {
		name     string
		fail     func(job Job) error // nil error: success
		attempts []int
		dead     string // expected dead-letter error, "" for none
	}{
		{
			name: "transient failure then success",
			fail: func(job Job) error {
				if job.Attempt == 1 {
					return errors.New("timeout")
				}
				return nil
			},
			attempts: []int{1, 2},
		},
		{
			name:     "permanent failure is not retried",
			fail:     func(job Job) error { return Permanent(errors.New("repo acme/shop not found")) },
			attempts: []int{1},
			dead:     "repo acme/shop not found",
		},
		{
			name: "panic is a failure",
			fail: func(job Job) error {
				if job.Attempt == 1 {
					panic("nil map write")
				}
				return nil
			},
			attempts: []int{1, 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rdb := newRedis(t)
			ctx := ctxT(t)
			opts := fastQueue(uniquePrefix(t, rdb)+":jobs", "c1")
			opts.VisibilityTimeout = 300 * time.Millisecond
			q := newQueue(t, rdb, opts)
			var (
				mu       sync.Mutex
				attempts []int
			)
			runQueue(t, q, func(ctx context.Context, job Job) error {
				mu.Lock()
				attempts = append(attempts, job.Attempt)
				mu.Unlock()
				return tt.fail(job)
			})
			_, err := q.Enqueue(ctx, Job{ID: "j", Kind: "k"})
			require.NoError(t, err)
			want := Depth{}
			if tt.dead != "" {
				want.Dead = 1
			}
			waitDepth(t, q, want)
			mu.Lock()
			assert.Equal(t, tt.attempts, attempts)
			mu.Unlock()
			if tt.dead != "" {
				dls, err := q.DeadLetters(ctx, 1)
				require.NoError(t, err)
				require.Len(t, dls, 1)
				assert.Equal(t, tt.dead, dls[0].Error)
			}
		})
	}
}

func TestQueueCrashLoopingJobIsDeadLettered(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	stream := uniquePrefix(t, rdb) + ":jobs"
	opts := fastQueue(stream, "survivor")
	opts.VisibilityTimeout = 200 * time.Millisecond
	opts.MaxAttempts = 3
	q := newQueue(t, rdb, opts)
	entry, err := q.Enqueue(ctx, Job{ID: "oom", Kind: "k"})
	require.NoError(t, err)

	// Three replicas died running it: delivered three times, never acknowledged.
	require.NoError(t, rdb.XGroupCreateMkStream(ctx, stream, opts.Group, "0").Err())
	_, err = rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: opts.Group, Consumer: "dead-3", Streams: []string{stream, ">"}, Count: 1, Block: -1}).Result()
	require.NoError(t, err)
	require.NoError(t, rdb.Do(ctx, "XCLAIM", stream, opts.Group, "dead-3", 0, entry, "RETRYCOUNT", 3, "JUSTID").Err())

	var runs atomic.Int32
	runQueue(t, q, func(ctx context.Context, job Job) error { runs.Add(1); return nil })
	waitDepth(t, q, Depth{Dead: 1})
	assert.Zero(t, runs.Load(), "a job that killed every consumer is not run again")
	dls, err := q.DeadLetters(ctx, 1)
	require.NoError(t, err)
	require.Len(t, dls, 1)
	assert.Contains(t, dls[0].Error, "no completion after 3 deliveries")
	assert.Equal(t, "oom", dls[0].Job.ID)
}

func TestQueueUndecodableEntryIsDeadLettered(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	stream := uniquePrefix(t, rdb) + ":jobs"
	q := newQueue(t, rdb, fastQueue(stream, "c1"))
	require.NoError(t, rdb.XAdd(ctx, &redis.XAddArgs{Stream: stream, Values: []string{"job", "not json"}}).Err())
	var runs atomic.Int32
	runQueue(t, q, func(ctx context.Context, job Job) error { runs.Add(1); return nil })
	waitDepth(t, q, Depth{Dead: 1})
	assert.Zero(t, runs.Load())
	dls, err := q.DeadLetters(ctx, 5)
	require.NoError(t, err)
	require.Len(t, dls, 1)
	assert.Contains(t, dls[0].Error, "undecodable job")
	assert.Equal(t, "not json", dls[0].RawJob)
}

func TestQueueDrainsOnShutdown(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	opts := fastQueue(uniquePrefix(t, rdb)+":jobs", "c1")
	opts.Concurrency = 3
	q := newQueue(t, rdb, opts)
	started := make(chan string, 3)
	var completed, sawCancel atomic.Int32
	stop := runQueue(t, q, func(ctx context.Context, job Job) error {
		started <- job.ID
		time.Sleep(300 * time.Millisecond)
		if ctx.Err() != nil {
			sawCancel.Add(1)
		}
		completed.Add(1)
		return nil
	})
	for i := 0; i < 3; i++ {
		_, err := q.Enqueue(ctx, Job{ID: fmt.Sprint(i), Kind: "k"})
		require.NoError(t, err)
	}
	for i := 0; i < 3; i++ {
		recv(t, started, "started job")
	}
	require.NoError(t, stop(), "a drained shutdown returns nil")
	assert.Equal(t, int32(3), completed.Load(), "running handlers finished before Run returned")
	assert.Zero(t, sawCancel.Load(), "handlers keep their context during the drain")
	d, err := q.Depth(ctx)
	require.NoError(t, err)
	assert.Equal(t, Depth{}, d, "and were acknowledged")

	// Nothing is read after shutdown.
	_, err = q.Enqueue(ctx, Job{ID: "late", Kind: "k"})
	require.NoError(t, err)
	d, err = q.Depth(ctx)
	require.NoError(t, err)
	assert.Equal(t, Depth{Stream: 1, Waiting: 1}, d)
}

func TestQueueRunTwiceRefused(t *testing.T) {
	rdb := newRedis(t)
	q := newQueue(t, rdb, fastQueue(uniquePrefix(t, rdb)+":jobs", "c1"))
	started := make(chan struct{})
	var once sync.Once
	stop := runQueue(t, q, func(ctx context.Context, job Job) error { return nil })
	go func() {
		// Wait until the first Run is registered.
		for !q.running.Load() {
			time.Sleep(5 * time.Millisecond)
		}
		once.Do(func() { close(started) })
	}()
	recv(t, started, "first run")
	err := q.Run(context.Background(), func(ctx context.Context, job Job) error { return nil })
	assert.ErrorIs(t, err, ErrQueueRunning)
	require.NoError(t, stop())
}

func TestQueueRecreatesDeletedStream(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	stream := uniquePrefix(t, rdb) + ":jobs"
	q := newQueue(t, rdb, fastQueue(stream, "c1"))
	done := make(chan string, 4)
	runQueue(t, q, func(ctx context.Context, job Job) error { done <- job.ID; return nil })
	_, err := q.Enqueue(ctx, Job{ID: "before", Kind: "k"})
	require.NoError(t, err)
	assert.Equal(t, "before", recv(t, done, "first job"))

	require.NoError(t, rdb.Del(ctx, stream).Err()) // an operator flushed the key
	require.Eventually(t, func() bool {
		n, err := rdb.Exists(ctx, stream).Result()
		return err == nil && n == 1
	}, 20*time.Second, 20*time.Millisecond, "the consumer recreates its group")
	_, err = q.Enqueue(ctx, Job{ID: "after", Kind: "k"})
	require.NoError(t, err)
	assert.Equal(t, "after", recv(t, done, "job after recreation"))
}

func TestQueuePrunesIdleConsumers(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	stream := uniquePrefix(t, rdb) + ":jobs"
	opts := fastQueue(stream, "alive")
	opts.VisibilityTimeout = 100 * time.Millisecond
	opts.BlockTimeout = 20 * time.Millisecond
	opts.ConsumerIdleTimeout = 300 * time.Millisecond
	q := newQueue(t, rdb, opts)
	require.NoError(t, rdb.XGroupCreateMkStream(ctx, stream, opts.Group, "0").Err())
	require.NoError(t, rdb.XGroupCreateConsumer(ctx, stream, opts.Group, "gone-replica").Err())

	consumers := func() []string {
		cs, err := rdb.XInfoConsumers(ctx, stream, opts.Group).Result()
		require.NoError(t, err)
		var names []string
		for _, c := range cs {
			names = append(names, c.Name)
		}
		sort.Strings(names)
		return names
	}
	require.Equal(t, []string{"gone-replica"}, consumers())
	runQueue(t, q, func(ctx context.Context, job Job) error { return nil })
	require.Eventually(t, func() bool {
		return !slices.Contains(consumers(), "gone-replica")
	}, 20*time.Second, 50*time.Millisecond)
}

func TestDeadLettersValidation(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	q := newQueue(t, rdb, fastQueue(uniquePrefix(t, rdb)+":jobs", "c1"))
	_, err := q.DeadLetters(ctx, 0)
	assert.ErrorIs(t, err, ErrInvalidArgument)
	dls, err := q.DeadLetters(ctx, 10)
	require.NoError(t, err)
	assert.Empty(t, dls)
	_, err = q.RetryDeadLetter(ctx, "1-1")
	assert.ErrorIs(t, err, ErrNotFound)
}

func TestQueueStoppedBeforeItStartsIsACleanStop(t *testing.T) {
	rdb := newRedis(t)
	q := newQueue(t, rdb, fastQueue(uniquePrefix(t, rdb)+":jobs", "c1"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.NoError(t, q.Run(ctx, func(ctx context.Context, job Job) error { return nil }), "shutdown during start-up is not an error")
	assert.False(t, q.running.Load(), "a later Run may start")
}
