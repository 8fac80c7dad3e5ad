package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/autoheal/autoheal/render"
)

// Clock is the updater's time source; tests drive a fake one.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives once d has passed, and a
	// function that stops the timer.
	After(d time.Duration) (<-chan time.Time, func() bool)
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) After(d time.Duration) (<-chan time.Time, func() bool) {
	t := time.NewTimer(d)
	return t.C, t.Stop
}

// DefaultUpdateInterval is the least time between two edits of one message:
// Slack asks for about one update per message every few seconds.
const DefaultUpdateInterval = 3 * time.Second

// UpdaterOptions configure an Updater.
type UpdaterOptions struct {
	API     MessageUpdater
	Channel string
	TS      string
	// Interval is the least time between two chat.update calls on the
	// message (default DefaultUpdateInterval).
	Interval time.Duration
	// RateLimitBackoff is the wait after a `ratelimited` error that came
	// without Retry-After (default Interval).
	RateLimitBackoff time.Duration
	// FinalAttempts bounds the attempts to deliver the final state on
	// failures other than rate limits (default 4).
	FinalAttempts int
	// LastWrite is when the message was last written (posted); the first
	// update waits Interval after it. Zero lets the first update go at once.
	LastWrite time.Time
	// MaxEdits bounds the intermediate edits (the final state always goes):
	// the investigation's share of its Slack call budget. 0: no bound.
	MaxEdits int
	Clock    Clock
	Logger   *slog.Logger
}

// Updater coalesces edits of one Slack message: callers Set the latest
// state as often as they like; at most one chat.update per Interval goes
// out, always carrying the newest state. Rate limits (HTTP 429 with
// Retry-After, `ratelimited` bodies) delay the next edit and lose nothing.
// Finish delivers the final state, which is never dropped: it waits out the
// interval and any rate limit, then retries transient failures.
type Updater struct {
	o   UpdaterOptions
	log *slog.Logger

	mu       sync.Mutex
	pending  *render.Message
	final    bool // pending is the final state
	finished bool // Finish was called
	sent     int
	wake     chan struct{}
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}
	err      error // outcome of the final delivery

	started bool
	// Owned by the loop goroutine.
	lastWrite time.Time
	notBefore time.Time
	edits     int // intermediate edits attempted
	failures  int // intermediate edits failed in a row
}

// ErrUpdaterStopped is returned by Finish after Stop.
var ErrUpdaterStopped = errors.New("bot: progress updater stopped")

// NewUpdater returns an updater for one message; call Start.
func NewUpdater(o UpdaterOptions) *Updater {
	if o.Interval <= 0 {
		o.Interval = DefaultUpdateInterval
	}
	if o.RateLimitBackoff <= 0 {
		o.RateLimitBackoff = o.Interval
	}
	if o.FinalAttempts <= 0 {
		o.FinalAttempts = 4
	}
	if o.Clock == nil {
		o.Clock = realClock{}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Updater{
		o:         o,
		log:       o.Logger.With("channel", o.Channel, "ts", o.TS),
		wake:      make(chan struct{}, 1),
		stop:      make(chan struct{}),
		done:      make(chan struct{}),
		lastWrite: o.LastWrite,
	}
}

// Start runs the delivery loop until the final state is delivered, Stop is
// called or ctx ends.
func (u *Updater) Start(ctx context.Context) {
	u.mu.Lock()
	if u.started {
		u.mu.Unlock()
		return
	}
	u.started = true
	u.mu.Unlock()
	go u.loop(ctx)
}

// Set records the newest intermediate state. It never blocks; states set
// faster than the interval replace each other. After Finish it is ignored.
func (u *Updater) Set(m render.Message) {
	u.mu.Lock()
	if u.finished {
		u.mu.Unlock()
		return
	}
	u.pending = &m
	u.mu.Unlock()
	u.signal()
}

// Finish hands over the final state and waits until it is delivered (or
// fails for good, or ctx ends).
func (u *Updater) Finish(ctx context.Context, m render.Message) error {
	u.mu.Lock()
	if !u.started {
		u.mu.Unlock()
		return errors.New("bot: progress updater not started")
	}
	u.finished = true
	u.pending, u.final = &m, true
	u.mu.Unlock()
	u.signal()
	select {
	case <-u.done:
		u.mu.Lock()
		defer u.mu.Unlock()
		return u.err
	case <-ctx.Done():
		return fmt.Errorf("final update of %s/%s: %w", u.o.Channel, u.o.TS, ctx.Err())
	}
}

// Stop abandons pending states and ends the loop.
func (u *Updater) Stop() {
	u.stopOnce.Do(func() { close(u.stop) })
}

// Sent is the number of successful chat.update calls.
func (u *Updater) Sent() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.sent
}

func (u *Updater) signal() {
	select {
	case u.wake <- struct{}{}:
	default:
	}
}

func (u *Updater) end(err error) {
	u.mu.Lock()
	u.err = err
	u.mu.Unlock()
	close(u.done)
}

func (u *Updater) loop(ctx context.Context) {
	finalFailures := 0
	for {
		u.mu.Lock()
		// Past its share of the call budget, only the final state goes.
		has := u.pending != nil && (u.final || u.o.MaxEdits <= 0 || u.edits < u.o.MaxEdits)
		u.mu.Unlock()
		if !has {
			select {
			case <-u.wake:
				continue
			case <-u.stop:
				u.end(ErrUpdaterStopped)
				return
			case <-ctx.Done():
				u.end(ctx.Err())
				return
			}
		}
		due := u.lastWrite.Add(u.o.Interval)
		if u.lastWrite.IsZero() {
			due = time.Time{}
		}
		if u.notBefore.After(due) {
			due = u.notBefore
		}
		if wait := due.Sub(u.o.Clock.Now()); wait > 0 {
			ch, stopTimer := u.o.Clock.After(wait)
			select {
			case <-ch:
			case <-u.stop:
				stopTimer()
				u.end(ErrUpdaterStopped)
				return
			case <-ctx.Done():
				stopTimer()
				u.end(ctx.Err())
				return
			}
			continue // re-check: the due time may have moved
		}

		u.mu.Lock()
		msg, final := *u.pending, u.final
		u.pending = nil
		u.mu.Unlock()

		if !final {
			u.edits++
		}
		_, _, _, err := u.o.API.UpdateMessageContext(ctx, u.o.Channel, u.o.TS, msg.MsgOptions()...)
		now := u.o.Clock.Now()
		if err == nil {
			u.lastWrite, u.failures = now, 0
			u.mu.Lock()
			u.sent++
			u.mu.Unlock()
			if final {
				u.end(nil)
				return
			}
			continue
		}
		if wait, limited := rateLimitWait(err, u.o.RateLimitBackoff); limited {
			u.log.Info("progress update rate limited; will retry with the newest state", "wait", wait)
			u.notBefore = now.Add(wait)
			u.restore(msg, final)
			continue
		}
		if ctx.Err() != nil {
			u.end(ctx.Err())
			return
		}
		if !final {
			// An intermediate state is superseded by the next one anyway;
			// the next edit waits a growing backoff rather than going at
			// once against a failing Slack.
			u.failures++
			backoff := min(u.o.Interval<<min(u.failures-1, 4), time.Minute)
			u.log.Warn("progress update failed", "err", err, "retry_in", backoff)
			u.notBefore = now.Add(jitter(backoff))
			continue
		}
		finalFailures++
		if !retryable(err) || finalFailures >= u.o.FinalAttempts {
			u.end(fmt.Errorf("final update of %s/%s: %w", u.o.Channel, u.o.TS, err))
			return
		}
		u.log.Warn("final update failed; retrying", "err", err, "attempt", finalFailures)
		u.notBefore = now.Add(jitter(time.Duration(finalFailures) * time.Second))
		u.restore(msg, final)
	}
}

// restore puts an undelivered state back unless a newer one arrived.
func (u *Updater) restore(m render.Message, final bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.pending == nil {
		u.pending, u.final = &m, final
	}
}
