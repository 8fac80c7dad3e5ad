package sessions

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	mrand "math/rand/v2"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Job is one unit of work on the queue.
type Job struct {
	// ID is a stable id chosen by the producer (a hash of the event, for
	// example); it names the job in logs, results and de-duplication.
	ID   string `json:"id"`
	Kind string `json:"kind"`
	// Key is the issue key the job is about, if any.
	Key     string          `json:"key,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`
	// Attempt is set by the queue on delivery: 1 for the first.
	Attempt    int       `json:"attempt,omitempty"`
	EnqueuedAt time.Time `json:"enqueued_at"`
	// EntryID is the stream entry id of this delivery (set by the queue).
	EntryID string `json:"-"`
}

// Handler runs a job. Returning nil acknowledges it; an error leaves it for a
// retry with backoff (or the dead-letter stream after MaxAttempts, or at
// once when wrapped with Permanent). The context is cancelled when the job
// times out, when another consumer took the job over, or at the drain
// deadline of a shutdown.
type Handler func(ctx context.Context, job Job) error

var (
	// ErrQueueFull is returned by Enqueue when the stream holds MaxLen
	// entries; an HTTP handler should answer 503.
	ErrQueueFull = errors.New("sessions: job queue is full")
	// ErrDuplicateJob is returned by Enqueue, with the first entry's id, when
	// a job with the same ID was enqueued within DedupeWindow.
	ErrDuplicateJob = errors.New("sessions: job already enqueued")
	// ErrJobTooLarge is returned by Enqueue for a job over MaxPayloadBytes.
	ErrJobTooLarge = errors.New("sessions: job is too large")
	// ErrQueueRunning is returned by a second concurrent Run on one Queue.
	ErrQueueRunning = errors.New("sessions: queue is already running")
	// ErrDrainTimeout is returned by Run when handlers were still running at
	// the drain deadline; their jobs are reclaimed by other consumers.
	ErrDrainTimeout = errors.New("sessions: handlers still running at the drain deadline")
	// ErrJobLost is the cause of a handler's context cancellation when
	// another consumer took the job over.
	ErrJobLost = errors.New("sessions: job was taken over by another consumer")
	// ErrJobTimeout is the cause of a handler's context cancellation after
	// QueueOptions.JobTimeout.
	ErrJobTimeout = errors.New("sessions: job timed out")

	errShutdown = errors.New("sessions: queue shutting down")
)

type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// Permanent marks a handler error as not worth retrying: the job goes to
// the dead-letter stream at once.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err: err}
}

// IsPermanent reports whether err was marked with Permanent.
func IsPermanent(err error) bool {
	var p *permanentError
	return errors.As(err, &p)
}

// QueueOptions configures a Queue. Zero values take the defaults.
type QueueOptions struct {
	// Stream is the Redis stream key (required). Derived keys append
	// ":dead", ":errors" and ":dedupe:<id>"; in Redis Cluster give the name a
	// hash tag ("{autoheal}:jobs") so they share a slot.
	Stream string
	// Group is the consumer group (default "autoheal").
	Group string
	// Consumer names this replica in the group (default host-pid-random).
	// Two live replicas must not share a name.
	Consumer string
	// Concurrency bounds handlers running at once (default 4, at most 1024).
	Concurrency int
	// VisibilityTimeout: a delivered entry whose owner has not shown life
	// for this long is reclaimed by another consumer (default 1 min).
	VisibilityTimeout time.Duration
	// HeartbeatInterval: how often a running job is kept alive; must be
	// below VisibilityTimeout (default VisibilityTimeout/4).
	HeartbeatInterval time.Duration
	// ClaimInterval: how often to look for entries to reclaim (default
	// VisibilityTimeout/4).
	ClaimInterval time.Duration
	// MaxAttempts: deliveries before a job is dead-lettered (default 3).
	MaxAttempts int
	// RetryBackoff is the first retry delay, doubled per attempt and capped
	// at VisibilityTimeout (default 1s).
	RetryBackoff time.Duration
	// BlockTimeout of XREADGROUP; must be positive because 0 blocks forever
	// (default 1s). It also bounds how long a shutdown waits for a read.
	BlockTimeout time.Duration
	// MaxLen caps the stream: Enqueue returns ErrQueueFull at this length,
	// and XADD trims approximately to it as a safety net (default 10000).
	// Acknowledged entries are deleted, so the length is waiting + running.
	MaxLen int64
	// DeadLetterMaxLen caps the dead-letter stream (default 1000).
	DeadLetterMaxLen int64
	// DedupeWindow: when positive, Enqueue refuses a job ID seen within it
	// with ErrDuplicateJob.
	DedupeWindow time.Duration
	// JobTimeout bounds one handler run (default 15 min).
	JobTimeout time.Duration
	// DrainTimeout bounds the wait for running handlers on shutdown (default 30s).
	DrainTimeout time.Duration
	// ConsumerIdleTimeout: consumers of the group with nothing pending and
	// idle for this long (dead replicas) are removed (default 1 h).
	ConsumerIdleTimeout time.Duration
	// MaxPayloadBytes bounds an encoded job (default 256 KiB).
	MaxPayloadBytes int
	Logger          *slog.Logger
}

func (o *QueueOptions) setDefaults() error {
	if err := checkID("stream", o.Stream, 200); err != nil {
		return err
	}
	if o.Group == "" {
		o.Group = "autoheal"
	}
	if err := checkID("group", o.Group, 200); err != nil {
		return err
	}
	if o.Consumer == "" {
		o.Consumer = defaultConsumerName()
	}
	if err := checkID("consumer", o.Consumer, 200); err != nil {
		return err
	}
	if o.Concurrency == 0 {
		o.Concurrency = 4
	}
	if o.Concurrency < 0 || o.Concurrency > 1024 {
		return invalid("concurrency must be in 1..1024, got %d", o.Concurrency)
	}
	if o.VisibilityTimeout == 0 {
		o.VisibilityTimeout = time.Minute
	}
	if o.VisibilityTimeout < 10*time.Millisecond {
		return invalid("visibility timeout must be at least 10ms, got %s", o.VisibilityTimeout)
	}
	if o.HeartbeatInterval == 0 {
		o.HeartbeatInterval = o.VisibilityTimeout / 4
	}
	if o.HeartbeatInterval <= 0 || o.HeartbeatInterval >= o.VisibilityTimeout {
		return invalid("heartbeat interval must be positive and below the visibility timeout %s, got %s", o.VisibilityTimeout, o.HeartbeatInterval)
	}
	if o.ClaimInterval == 0 {
		o.ClaimInterval = o.VisibilityTimeout / 4
	}
	if o.ClaimInterval <= 0 {
		return invalid("claim interval must be positive, got %s", o.ClaimInterval)
	}
	if o.MaxAttempts == 0 {
		o.MaxAttempts = 3
	}
	if o.MaxAttempts < 1 || o.MaxAttempts > 100 {
		return invalid("max attempts must be in 1..100, got %d", o.MaxAttempts)
	}
	if o.RetryBackoff == 0 {
		o.RetryBackoff = time.Second
	}
	if o.RetryBackoff < 0 {
		return invalid("retry backoff must not be negative, got %s", o.RetryBackoff)
	}
	if o.BlockTimeout == 0 {
		o.BlockTimeout = time.Second
	}
	if o.BlockTimeout < time.Millisecond {
		// go-redis sends BLOCK 0 for sub-millisecond values, which blocks forever.
		return invalid("block timeout must be at least 1ms, got %s", o.BlockTimeout)
	}
	if o.MaxLen == 0 {
		o.MaxLen = 10000
	}
	if o.DeadLetterMaxLen == 0 {
		o.DeadLetterMaxLen = 1000
	}
	if o.MaxLen < 0 || o.DeadLetterMaxLen < 0 {
		return invalid("max lengths must be positive")
	}
	if o.DedupeWindow < 0 {
		return invalid("dedupe window must not be negative, got %s", o.DedupeWindow)
	}
	if o.JobTimeout == 0 {
		o.JobTimeout = 15 * time.Minute
	}
	if o.DrainTimeout == 0 {
		o.DrainTimeout = 30 * time.Second
	}
	if o.ConsumerIdleTimeout == 0 {
		o.ConsumerIdleTimeout = time.Hour
	}
	if o.JobTimeout < 0 || o.DrainTimeout < 0 || o.ConsumerIdleTimeout < 0 {
		return invalid("timeouts must not be negative")
	}
	if min := 2 * (o.VisibilityTimeout + o.BlockTimeout); o.ConsumerIdleTimeout < min {
		return invalid("consumer idle timeout must be at least %s (twice visibility + block timeout), got %s", min, o.ConsumerIdleTimeout)
	}
	if o.MaxPayloadBytes == 0 {
		o.MaxPayloadBytes = 256 << 10
	}
	if o.MaxPayloadBytes < 0 {
		return invalid("max payload bytes must be positive")
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return nil
}

func defaultConsumerName() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "bot"
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// Queue is a work queue on a Redis Stream with a consumer group: at-least-
// once delivery, acknowledgement only after success, reclaiming of entries
// whose consumer died, bounded retries and a dead-letter stream.
//
// Delivery attempts are the consumer group's delivery counter: a read or a
// reclaim counts one; heartbeats and retry scheduling set the counter
// explicitly (XCLAIM RETRYCOUNT) so they do not.
type Queue struct {
	rdb  redis.UniversalClient
	opts QueueOptions
	log  *slog.Logger

	stream, dead, errs string

	running atomic.Bool

	// Owned by the Run loop goroutine.
	claimCursor string
	lastClaim   time.Time
	lastPrune   time.Time

	mu       sync.Mutex
	inflight map[string]struct{}
}

// NewQueue returns a queue over rdb; nothing is sent to Redis until used.
func NewQueue(rdb redis.UniversalClient, opts QueueOptions) (*Queue, error) {
	if rdb == nil {
		return nil, invalid("nil redis client")
	}
	if err := opts.setDefaults(); err != nil {
		return nil, err
	}
	return &Queue{
		rdb:         rdb,
		opts:        opts,
		log:         opts.Logger.With("component", "queue", "stream", opts.Stream, "consumer", opts.Consumer),
		stream:      opts.Stream,
		dead:        opts.Stream + ":dead",
		errs:        opts.Stream + ":errors",
		claimCursor: "0-0",
		inflight:    map[string]struct{}{},
	}, nil
}

// Options returns the queue's effective options.
func (q *Queue) Options() QueueOptions { return q.opts }

func (q *Queue) dedupeKey(id string) string { return q.stream + ":dedupe:" + keyPart(id) }

// enqueueScript: KEYS stream, dedupe key; ARGV cap, job, dedupe ms.
// Returns {status, id}: 0 full, 1 added, 2 duplicate (id of the first).
var enqueueScript = redis.NewScript(`
if ARGV[3] ~= '0' then
  local existing = redis.call('GET', KEYS[2])
  if existing then return {2, existing} end
end
local cap = tonumber(ARGV[1])
if redis.call('XLEN', KEYS[1]) >= cap then return {0, ''} end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', cap, '*', 'job', ARGV[2])
if ARGV[3] ~= '0' then redis.call('SET', KEYS[2], id, 'PX', ARGV[3]) end
return {1, id}
`)

// Enqueue adds a job and returns its stream entry id. job.Kind is
// required; an empty ID gets a random one and a zero EnqueuedAt the current
// time. It returns ErrQueueFull at the cap and, with a DedupeWindow,
// ErrDuplicateJob (and the first entry's id) for a repeated ID.
func (q *Queue) Enqueue(ctx context.Context, job Job) (string, error) {
	if job.ID == "" {
		id, err := randomToken()
		if err != nil {
			return "", err
		}
		job.ID = id
	}
	if err := checkID("job id", job.ID, 512); err != nil {
		return "", err
	}
	if err := checkID("job kind", job.Kind, 64); err != nil {
		return "", err
	}
	if len(job.Key) > 512 {
		return "", invalid("job key is longer than 512 bytes")
	}
	if job.EnqueuedAt.IsZero() {
		job.EnqueuedAt = time.Now().UTC()
	}
	job.Attempt = 0
	b, err := json.Marshal(job)
	if err != nil {
		return "", fmt.Errorf("sessions: encode job %q: %w", job.ID, err)
	}
	if len(b) > q.opts.MaxPayloadBytes {
		return "", fmt.Errorf("job %q is %d bytes, at most %d: %w", job.ID, len(b), q.opts.MaxPayloadBytes, ErrJobTooLarge)
	}
	dedupeKey, dedupeMS := q.stream, int64(0)
	if q.opts.DedupeWindow > 0 {
		dedupeKey, dedupeMS = q.dedupeKey(job.ID), max(1, q.opts.DedupeWindow.Milliseconds())
	}
	res, err := enqueueScript.Run(ctx, q.rdb, []string{q.stream, dedupeKey}, q.opts.MaxLen, b, dedupeMS).Slice()
	if err != nil {
		return "", fmt.Errorf("sessions: enqueue job %q: %w", job.ID, err)
	}
	if len(res) != 2 {
		return "", fmt.Errorf("sessions: enqueue job %q: unexpected reply", job.ID)
	}
	id, _ := res[1].(string)
	switch res[0] {
	case int64(0):
		return "", fmt.Errorf("enqueue job %q (cap %d): %w", job.ID, q.opts.MaxLen, ErrQueueFull)
	case int64(2):
		return id, fmt.Errorf("enqueue job %q: %w", job.ID, ErrDuplicateJob)
	}
	return id, nil
}

// Depth is the state of the queue.
type Depth struct {
	Stream  int64 // entries in the stream: waiting + delivered, not yet acknowledged
	Pending int64 // delivered and not yet acknowledged (running or awaiting retry)
	Waiting int64 // never delivered
	Dead    int64 // in the dead-letter stream
}

// Depth reports the queue's length, pending and dead-letter counts.
func (q *Queue) Depth(ctx context.Context) (Depth, error) {
	var (
		lenCmd, deadCmd *redis.IntCmd
		pendCmd         *redis.XPendingCmd
	)
	_, _ = q.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		lenCmd = p.XLen(ctx, q.stream)
		pendCmd = p.XPending(ctx, q.stream, q.opts.Group)
		deadCmd = p.XLen(ctx, q.dead)
		return nil
	})
	var d Depth
	var err error
	if d.Stream, err = lenCmd.Result(); err != nil {
		return Depth{}, fmt.Errorf("sessions: queue length: %w", err)
	}
	if d.Dead, err = deadCmd.Result(); err != nil {
		return Depth{}, fmt.Errorf("sessions: dead-letter length: %w", err)
	}
	pend, err := pendCmd.Result()
	switch {
	case err == nil:
		d.Pending = pend.Count
	case isNoGroup(err) || errors.Is(err, redis.Nil):
		// no group yet: nothing delivered
	default:
		return Depth{}, fmt.Errorf("sessions: queue pending: %w", err)
	}
	d.Waiting = max(0, d.Stream-d.Pending)
	return d, nil
}

// isNoGroup reports a missing stream or consumer group (deleted under us).
func isNoGroup(err error) bool {
	var rerr redis.Error
	return errors.As(err, &rerr) && strings.HasPrefix(rerr.Error(), "NOGROUP")
}

// DeadLetter is a job that exhausted its attempts or failed permanently.
type DeadLetter struct {
	ID       string // entry id in the dead-letter stream (for RetryDeadLetter)
	Job      Job
	RawJob   string // the stored job when it could not be decoded
	Error    string // the last error
	Attempts int
	FailedAt time.Time
}

// DeadLetters returns up to n dead letters, newest first (n at most 1000).
func (q *Queue) DeadLetters(ctx context.Context, n int) ([]DeadLetter, error) {
	if n <= 0 || n > 1000 {
		return nil, invalid("dead letter count must be in 1..1000, got %d", n)
	}
	msgs, err := q.rdb.XRevRangeN(ctx, q.dead, "+", "-", int64(n)).Result()
	if err != nil {
		return nil, fmt.Errorf("sessions: read dead letters: %w", err)
	}
	out := make([]DeadLetter, 0, len(msgs))
	for _, m := range msgs {
		dl := DeadLetter{
			ID:       m.ID,
			Error:    str(m.Values["error"]),
			Attempts: atoi(str(m.Values["attempts"])),
			FailedAt: fromMS(str(m.Values["failed_at"])),
		}
		raw := str(m.Values["job"])
		if err := json.Unmarshal([]byte(raw), &dl.Job); err != nil {
			dl.RawJob = truncate(raw, 4096)
		}
		dl.Job.Attempt = dl.Attempts
		out = append(out, dl)
	}
	return out, nil
}

// retryDeadScript: KEYS dead, stream; ARGV id, cap.
// Returns {status, id}: 0 not found, 1 re-enqueued, 2 full, 3 no job field.
var retryDeadScript = redis.NewScript(`
local e = redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[1])
if #e == 0 then return {0, ''} end
local cap = tonumber(ARGV[2])
if redis.call('XLEN', KEYS[2]) >= cap then return {2, ''} end
local f = e[1][2]
local job
for i = 1, #f, 2 do if f[i] == 'job' then job = f[i + 1] end end
if not job then return {3, ''} end
local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', cap, '*', 'job', job)
redis.call('XDEL', KEYS[1], ARGV[1])
return {1, id}
`)

// RetryDeadLetter moves a dead letter back onto the queue with fresh
// attempts and returns its new entry id.
func (q *Queue) RetryDeadLetter(ctx context.Context, id string) (string, error) {
	if err := checkID("dead letter id", id, 64); err != nil {
		return "", err
	}
	res, err := retryDeadScript.Run(ctx, q.rdb, []string{q.dead, q.stream}, id, q.opts.MaxLen).Slice()
	if err != nil {
		return "", fmt.Errorf("sessions: retry dead letter %s: %w", id, err)
	}
	if len(res) != 2 {
		return "", fmt.Errorf("sessions: retry dead letter %s: unexpected reply", id)
	}
	switch res[0] {
	case int64(0):
		return "", fmt.Errorf("dead letter %s: %w", id, ErrNotFound)
	case int64(2):
		return "", fmt.Errorf("retry dead letter %s: %w", id, ErrQueueFull)
	case int64(3):
		return "", fmt.Errorf("sessions: dead letter %s holds no job", id)
	}
	newID, _ := res[1].(string)
	return newID, nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// ---- consuming ----

// delivery is one entry handed to this consumer.
type delivery struct {
	entryID string
	raw     string // the job's JSON
	attempt int
}

// Ownership-checked scripts. KEYS: stream, errors hash[, dead stream].
// The XPENDING lookup makes sure this consumer still owns the entry, so a
// slow replica never steals back a job another one reclaimed.
const ownedLua = `
local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1)
if #p == 0 or p[1][2] ~= ARGV[2] then return 0 end
`

// touchScript resets an entry's idle time and delivery counter.
// ARGV: group, consumer, id, idle ms, retry count, error (empty: unchanged), errors ttl ms.
var touchScript = redis.NewScript(ownedLua + `
redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[3], 'IDLE', ARGV[4], 'RETRYCOUNT', ARGV[5], 'JUSTID')
if ARGV[6] ~= '' then
  redis.call('HSET', KEYS[2], ARGV[3], ARGV[6])
  redis.call('PEXPIRE', KEYS[2], ARGV[7])
end
return 1
`)

// ackScript acknowledges and deletes an entry (no ownership check: a job
// that completed need not run again). ARGV: group, id.
var ackScript = redis.NewScript(`
redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
redis.call('XDEL', KEYS[1], ARGV[2])
redis.call('HDEL', KEYS[2], ARGV[2])
return 1
`)

// deadLetterScript moves an owned entry to the dead-letter stream.
// ARGV: group, consumer, id, job, error, attempts, failed at ms, dead maxlen.
var deadLetterScript = redis.NewScript(ownedLua + `
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[8], '*', 'job', ARGV[4], 'error', ARGV[5],
  'attempts', ARGV[6], 'failed_at', ARGV[7], 'entry', ARGV[3])
redis.call('XACK', KEYS[1], ARGV[1], ARGV[3])
redis.call('XDEL', KEYS[1], ARGV[3])
redis.call('HDEL', KEYS[2], ARGV[3])
return 1
`)

const errorsTTL = 7 * 24 * time.Hour

func (q *Queue) ensureGroup(ctx context.Context) error {
	err := q.rdb.XGroupCreateMkStream(ctx, q.stream, q.opts.Group, "0").Err()
	if err != nil && !strings.HasPrefix(err.Error(), "BUSYGROUP") {
		return fmt.Errorf("sessions: create consumer group %q on %q: %w", q.opts.Group, q.stream, err)
	}
	return nil
}

// Run consumes jobs until ctx is cancelled, running at most Concurrency
// handlers at once. On cancellation it stops reading, waits up to
// DrainTimeout for running handlers and returns nil; if handlers are still
// running then, their contexts are cancelled, their jobs are left for other
// consumers, and Run returns ErrDrainTimeout without waiting further.
// Transient Redis errors are logged and retried; Run fails fast only when
// the consumer group cannot be created at start.
func (q *Queue) Run(ctx context.Context, h Handler) error {
	if h == nil {
		return invalid("nil handler")
	}
	if !q.running.CompareAndSwap(false, true) {
		return ErrQueueRunning
	}
	defer q.running.Store(false)
	if err := q.ensureGroup(ctx); err != nil {
		if ctx.Err() != nil {
			return nil // stopped before it started: a clean shutdown, like a stop later on
		}
		return err
	}
	q.log.Info("queue consumer started", "group", q.opts.Group, "concurrency", q.opts.Concurrency)

	// Handlers outlive ctx until the drain deadline.
	base, stop := context.WithCancelCause(context.WithoutCancel(ctx))
	defer stop(errShutdown)
	slots := make(chan struct{}, q.opts.Concurrency)
	var wg sync.WaitGroup
	errDelay := time.Duration(0)

	for {
		n := acquire(ctx, slots)
		if n == 0 {
			break
		}
		ds, err := q.fetch(ctx, n)
		if err != nil {
			releaseSlots(slots, n)
			if ctx.Err() != nil {
				break
			}
			if isNoGroup(err) {
				// The stream or group was deleted under us: recreate it.
				if gerr := q.ensureGroup(ctx); gerr != nil {
					err = gerr
				} else {
					continue
				}
			}
			errDelay = min(max(2*errDelay, 100*time.Millisecond), 5*time.Second)
			q.log.Warn("queue read failed; retrying", "err", err, "delay", errDelay)
			if !sleepCtx(ctx, errDelay) {
				break
			}
			continue
		}
		errDelay = 0
		if ctx.Err() != nil {
			// Read just before shutdown: hand the entries straight back.
			q.giveBack(ds)
			releaseSlots(slots, n)
			break
		}
		releaseSlots(slots, n-len(ds))
		for _, d := range ds {
			wg.Add(1)
			go func(d delivery) {
				defer wg.Done()
				defer func() { <-slots }()
				defer q.untrack(d.entryID)
				q.process(base, h, d)
			}(d)
		}
	}

	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	t := time.NewTimer(q.opts.DrainTimeout)
	defer t.Stop()
	select {
	case <-done:
		q.log.Info("queue consumer stopped")
		return nil
	case <-t.C:
		n := q.inflightCount()
		stop(errShutdown)
		q.log.Warn("drain deadline passed; abandoning running jobs to other consumers", "running", n)
		return fmt.Errorf("%w: %d job(s) abandoned after %s", ErrDrainTimeout, n, q.opts.DrainTimeout)
	}
}

func acquire(ctx context.Context, slots chan struct{}) int {
	select {
	case slots <- struct{}{}:
	case <-ctx.Done():
		return 0
	}
	n := 1
	for n < cap(slots) {
		select {
		case slots <- struct{}{}:
			n++
		default:
			return n
		}
	}
	return n
}

func releaseSlots(slots chan struct{}, n int) {
	for i := 0; i < n; i++ {
		<-slots
	}
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

func (q *Queue) track(id string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, ok := q.inflight[id]; ok {
		return false
	}
	q.inflight[id] = struct{}{}
	return true
}

func (q *Queue) untrack(id string) {
	q.mu.Lock()
	delete(q.inflight, id)
	q.mu.Unlock()
}

func (q *Queue) inflightCount() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.inflight)
}

// fetch returns up to n deliveries: reclaimed entries when a claim scan is
// due and finds some, otherwise new entries (blocking up to BlockTimeout).
// Every returned delivery is tracked as in flight.
func (q *Queue) fetch(ctx context.Context, n int) ([]delivery, error) {
	if time.Since(q.lastClaim) >= q.opts.ClaimInterval {
		q.lastClaim = time.Now()
		ds, err := q.reclaim(ctx, n)
		if err != nil {
			return nil, err
		}
		if len(ds) > 0 {
			return ds, nil
		}
		q.maybePrune(ctx)
	}
	streams, err := q.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{
		Group:    q.opts.Group,
		Consumer: q.opts.Consumer,
		Streams:  []string{q.stream, ">"},
		Count:    int64(n),
		Block:    q.opts.BlockTimeout,
	}).Result()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sessions: read group: %w", err)
	}
	var ds []delivery
	for _, s := range streams {
		for _, m := range s.Messages {
			if q.track(m.ID) {
				ds = append(ds, delivery{entryID: m.ID, raw: str(m.Values["job"]), attempt: 1})
			}
		}
	}
	return ds, nil
}

// reclaim takes over entries idle longer than VisibilityTimeout (their
// consumer died, or a failed job's backoff elapsed).
func (q *Queue) reclaim(ctx context.Context, n int) ([]delivery, error) {
	msgs, next, err := q.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{
		Stream:   q.stream,
		Group:    q.opts.Group,
		Consumer: q.opts.Consumer,
		MinIdle:  q.opts.VisibilityTimeout,
		Start:    q.claimCursor,
		Count:    int64(n),
	}).Result()
	if err != nil {
		return nil, fmt.Errorf("sessions: autoclaim: %w", err)
	}
	if next == "" {
		next = "0-0"
	}
	q.claimCursor = next
	var claimed []redis.XMessage
	for _, m := range msgs {
		// An entry of ours that is still running (its heartbeat was late):
		// the running handler keeps it; do not start it twice.
		if q.track(m.ID) {
			claimed = append(claimed, m)
		}
	}
	if len(claimed) == 0 {
		return nil, nil
	}
	cmds := make([]*redis.XPendingExtCmd, len(claimed))
	_, err = q.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, m := range claimed {
			cmds[i] = p.XPendingExt(ctx, &redis.XPendingExtArgs{
				Stream: q.stream, Group: q.opts.Group, Start: m.ID, End: m.ID, Count: 1, Consumer: q.opts.Consumer,
			})
		}
		return nil
	})
	ds := make([]delivery, 0, len(claimed))
	for i, m := range claimed {
		attempt := 0
		if err == nil {
			if pe, perr := cmds[i].Result(); perr == nil && len(pe) == 1 {
				attempt = int(pe[0].RetryCount)
			}
		}
		if attempt == 0 {
			// Unknown count: assume the worst case so a poison job cannot loop forever.
			attempt = q.opts.MaxAttempts
		}
		ds = append(ds, delivery{entryID: m.ID, raw: str(m.Values["job"]), attempt: attempt})
		q.log.Info("reclaimed idle job (retry due, or its consumer died)", "entry_id", m.ID, "attempt", attempt)
	}
	return ds, nil
}

// maybePrune removes consumers that have nothing pending and have been idle
// longer than ConsumerIdleTimeout (replicas that went away), so the group's
// consumer list stays bounded across restarts.
func (q *Queue) maybePrune(ctx context.Context) {
	if time.Since(q.lastPrune) < q.opts.ConsumerIdleTimeout/2 {
		return
	}
	q.lastPrune = time.Now()
	consumers, err := q.rdb.XInfoConsumers(ctx, q.stream, q.opts.Group).Result()
	if err != nil {
		q.log.Debug("list consumers failed", "err", err)
		return
	}
	for _, c := range consumers {
		if c.Name == q.opts.Consumer || c.Pending > 0 || c.Idle < q.opts.ConsumerIdleTimeout {
			continue
		}
		if err := q.rdb.XGroupDelConsumer(ctx, q.stream, q.opts.Group, c.Name).Err(); err != nil {
			q.log.Debug("remove idle consumer failed", "consumer", c.Name, "err", err)
			continue
		}
		q.log.Info("removed idle consumer", "removed", c.Name, "idle", c.Idle)
	}
}

// giveBack makes entries read during shutdown claimable at once, without
// counting the delivery as an attempt.
func (q *Queue) giveBack(ds []delivery) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, d := range ds {
		if _, err := q.touch(ctx, d.entryID, q.opts.VisibilityTimeout, d.attempt-1, ""); err != nil {
			q.log.Warn("could not hand back an unstarted job; it will be reclaimed after the visibility timeout", "entry_id", d.entryID, "err", err)
		}
		q.untrack(d.entryID)
	}
}

func (q *Queue) touch(ctx context.Context, id string, idle time.Duration, retryCount int, errMsg string) (bool, error) {
	n, err := touchScript.Run(ctx, q.rdb, []string{q.stream, q.errs},
		q.opts.Group, q.opts.Consumer, id, idle.Milliseconds(), max(0, retryCount), errMsg, errorsTTL.Milliseconds(),
	).Int()
	if err != nil {
		return false, fmt.Errorf("sessions: touch entry %s: %w", id, err)
	}
	return n == 1, nil
}

func (q *Queue) process(base context.Context, h Handler, d delivery) {
	log := q.log.With("entry_id", d.entryID, "attempt", d.attempt)
	var job Job
	if err := json.Unmarshal([]byte(d.raw), &job); err != nil {
		q.deadLetter(d, fmt.Sprintf("undecodable job: %v", err), log)
		return
	}
	job.Attempt, job.EntryID = d.attempt, d.entryID
	log = log.With("job_id", job.ID, "kind", job.Kind, "key", job.Key)

	if d.attempt > q.opts.MaxAttempts {
		last, _ := q.rdb.HGet(base, q.errs, d.entryID).Result()
		if last == "" {
			last = fmt.Sprintf("no completion after %d deliveries (consumer died or timed out)", d.attempt-1)
		}
		q.deadLetter(d, last, log)
		return
	}

	ctx, cancel := context.WithCancelCause(base)
	ctx, cancelTimeout := context.WithTimeoutCause(ctx, q.opts.JobTimeout, ErrJobTimeout)
	hbDone := make(chan struct{})
	go q.heartbeat(ctx, cancel, d, log, hbDone)
	start := time.Now()
	err := q.call(ctx, h, job, log)
	cause := context.Cause(ctx)
	cancelTimeout()
	cancel(nil)
	<-hbDone

	opCtx, opCancel := context.WithTimeout(context.WithoutCancel(base), 5*time.Second)
	defer opCancel()
	switch {
	case err == nil:
		if aerr := ackScript.Run(opCtx, q.rdb, []string{q.stream, q.errs}, q.opts.Group, d.entryID).Err(); aerr != nil {
			log.Error("job done but not acknowledged; it may run again", "err", aerr)
			return
		}
		log.Debug("job done", "took", time.Since(start))
	case errors.Is(cause, ErrJobLost):
		log.Warn("job taken over by another consumer; leaving it", "err", err)
	case errors.Is(cause, errShutdown):
		if _, terr := q.touch(opCtx, d.entryID, q.opts.VisibilityTimeout, d.attempt-1, ""); terr != nil {
			log.Warn("could not hand back an interrupted job", "err", terr)
		}
		log.Info("job interrupted by shutdown; handed back", "err", err)
	case IsPermanent(err) || d.attempt >= q.opts.MaxAttempts:
		q.deadLetter(d, err.Error(), log)
	default:
		delay := q.backoff(d.attempt)
		idle := max(0, q.opts.VisibilityTimeout-delay)
		owned, terr := q.touch(opCtx, d.entryID, idle, d.attempt, truncate(err.Error(), maxErrorLen))
		switch {
		case terr != nil:
			log.Warn("job failed; could not schedule the retry, it will be reclaimed after the visibility timeout", "err", err, "schedule_err", terr)
		case !owned:
			log.Warn("job failed after another consumer took it over", "err", err)
		default:
			log.Warn("job failed; will retry", "err", err, "retry_in", delay)
		}
	}
}

func (q *Queue) call(ctx context.Context, h Handler, job Job, log *slog.Logger) (err error) {
	defer func() {
		if r := recover(); r != nil {
			log.Error("job handler panicked", "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("handler panic: %v", r)
		}
	}()
	return h(ctx, job)
}

// heartbeat keeps a running entry from looking idle; if the entry turns out
// to belong to another consumer, it cancels the handler.
func (q *Queue) heartbeat(ctx context.Context, cancel context.CancelCauseFunc, d delivery, log *slog.Logger, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(q.opts.HeartbeatInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		owned, err := q.touch(ctx, d.entryID, 0, d.attempt, "")
		if err != nil {
			if ctx.Err() == nil {
				log.Warn("job heartbeat failed", "err", err)
			}
			continue
		}
		if !owned {
			cancel(ErrJobLost)
			return
		}
	}
}

func (q *Queue) backoff(attempt int) time.Duration {
	d := q.opts.RetryBackoff
	for i := 1; i < attempt && d < q.opts.VisibilityTimeout; i++ {
		d *= 2
	}
	// ±10% jitter spreads retries of jobs that failed together.
	if d > 0 {
		d += time.Duration(mrand.Int64N(int64(d)/5+1)) - d/10
	}
	return min(d, q.opts.VisibilityTimeout)
}

func (q *Queue) deadLetter(d delivery, errMsg string, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	errMsg = truncate(errMsg, maxErrorLen)
	n, err := deadLetterScript.Run(ctx, q.rdb, []string{q.stream, q.errs, q.dead},
		q.opts.Group, q.opts.Consumer, d.entryID, d.raw, errMsg, strconv.Itoa(d.attempt), ms(time.Now()), q.opts.DeadLetterMaxLen,
	).Int()
	switch {
	case err != nil:
		log.Error("could not dead-letter job; it will be reclaimed and tried again", "err", err, "job_err", errMsg)
	case n == 0:
		log.Warn("job to dead-letter was taken over by another consumer")
	default:
		log.Error("job dead-lettered", "job_err", errMsg)
	}
}
