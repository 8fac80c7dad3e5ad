package bot

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/render"
)

// fakeClock is a manually advanced clock whose timers fire on Advance.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	cond   *sync.Cond
}

type fakeTimer struct {
	at   time.Time
	ch   chan time.Time
	done bool
}

func newFakeClock() *fakeClock {
	c := &fakeClock{now: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}
	c.cond = sync.NewCond(&c.mu)
	return c
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) (<-chan time.Time, func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: c.now.Add(d), ch: make(chan time.Time, 1)}
	if d <= 0 {
		t.ch <- c.now
		t.done = true
	} else {
		c.timers = append(c.timers, t)
	}
	c.cond.Broadcast()
	return t.ch, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !t.done
		t.done = true
		c.cond.Broadcast()
		return was
	}
}

// waitTimer blocks until a timer is pending and returns its deadline.
func (c *fakeClock) waitTimer(t *testing.T) time.Time {
	t.Helper()
	deadline := time.AfterFunc(10*time.Second, func() {
		c.mu.Lock()
		c.cond.Broadcast()
		c.mu.Unlock()
	})
	defer deadline.Stop()
	start := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		for _, tm := range c.timers {
			if !tm.done {
				return tm.at
			}
		}
		if time.Since(start) > 10*time.Second {
			t.Fatal("no timer was set")
		}
		c.cond.Wait()
	}
}

// Advance moves the clock and fires the timers that are due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	keep := c.timers[:0]
	for _, tm := range c.timers {
		if tm.done {
			continue
		}
		if !tm.at.After(c.now) {
			tm.done = true
			tm.ch <- c.now
			continue
		}
		keep = append(keep, tm)
	}
	c.timers = keep
	c.cond.Broadcast()
}

// AdvanceTo moves the clock to t (no-op when t is in the past).
func (c *fakeClock) AdvanceTo(t time.Time) {
	if d := t.Sub(c.Now()); d > 0 {
		c.Advance(d)
	}
}

// testInterval is the updaters' interval in these tests.
const testInterval = 3 * time.Second

type updateCall struct {
	at   time.Time
	text string
}

// fakeUpdater records chat.update calls at the fake clock's time and
// answers them with scripted errors.
type fakeUpdater struct {
	clock *fakeClock
	mu    sync.Mutex
	errs  []error // answers, in order; nil = success; beyond the list: success
	calls []updateCall
	seen  chan updateCall
}

func newFakeUpdater(c *fakeClock, errs ...error) *fakeUpdater {
	return &fakeUpdater{clock: c, errs: errs, seen: make(chan updateCall, 1000)}
}

func (f *fakeUpdater) UpdateMessageContext(_ context.Context, channel, ts string, opts ...slack.MsgOption) (string, string, string, error) {
	_, vals, err := slack.UnsafeApplyMsgOptions("xoxb-test", channel, "https://slack.test/api/", opts...)
	if err != nil {
		return "", "", "", err
	}
	c := updateCall{at: f.clock.Now(), text: vals.Get("text")}
	f.mu.Lock()
	var answer error
	if n := len(f.calls); n < len(f.errs) {
		answer = f.errs[n]
	}
	f.calls = append(f.calls, c)
	f.mu.Unlock()
	f.seen <- c
	return channel, ts, c.text, answer
}

func (f *fakeUpdater) next(t *testing.T) updateCall {
	t.Helper()
	select {
	case c := <-f.seen:
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("no chat.update call")
		return updateCall{}
	}
}

func (f *fakeUpdater) all() []updateCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]updateCall(nil), f.calls...)
}

// waitFinishing waits until Finish has handed over the final state.
func waitFinishing(t *testing.T, u *Updater) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		u.mu.Lock()
		f := u.finished
		u.mu.Unlock()
		if f {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("Finish did not hand over the final state")
		}
		runtime.Gosched()
	}
}

func msg(s string) render.Message { return render.Message{Text: s} }

func newTestUpdater(t *testing.T, api MessageUpdater, c *fakeClock, lastWrite time.Time) (*Updater, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	u := NewUpdater(UpdaterOptions{API: api, Channel: "C0INC", TS: "1.000001", Interval: testInterval, Clock: c, LastWrite: lastWrite})
	u.Start(ctx)
	t.Cleanup(u.Stop)
	return u, ctx
}

func TestUpdaterCoalescesToOneUpdatePerInterval(t *testing.T) {
	c := newFakeClock()
	api := newFakeUpdater(c)
	start := c.Now()
	u, ctx := newTestUpdater(t, api, c, start) // the message was just posted

	u.Set(msg("step 1"))
	due := c.waitTimer(t)
	assert.Equal(t, start.Add(3*time.Second), due, "the first edit waits the interval after the post")
	u.Set(msg("step 2"))
	u.Set(msg("step 3"))
	c.AdvanceTo(due)
	first := api.next(t)
	assert.Equal(t, "step 3", first.text, "only the newest state is sent")
	assert.Equal(t, due, first.at)

	u.Set(msg("step 4"))
	due = c.waitTimer(t)
	assert.Equal(t, first.at.Add(3*time.Second), due)
	c.Advance(time.Second) // not due yet
	u.Set(msg("step 5"))

	done := make(chan error, 1)
	go func() { done <- u.Finish(ctx, msg("result")) }()
	waitFinishing(t, u)
	c.AdvanceTo(due)
	last := api.next(t)
	require.NoError(t, <-done)
	assert.Equal(t, "result", last.text, "the final state replaces pending intermediate ones")
	assert.Equal(t, due, last.at, "the final state also respects the interval")
	assert.Len(t, api.all(), 2)
	assert.Equal(t, 2, u.Sent())
}

func TestUpdaterFirstUpdateAtOnceWithoutLastWrite(t *testing.T) {
	c := newFakeClock()
	api := newFakeUpdater(c)
	u, ctx := newTestUpdater(t, api, c, time.Time{})
	require.NoError(t, u.Finish(ctx, msg("result")))
	calls := api.all()
	require.Len(t, calls, 1)
	assert.Equal(t, c.Now(), calls[0].at)
}

func TestUpdaterHonoursRetryAfter(t *testing.T) {
	c := newFakeClock()
	api := newFakeUpdater(c, &slack.RateLimitedError{RetryAfter: 7 * time.Second})
	u, ctx := newTestUpdater(t, api, c, time.Time{})

	done := make(chan error, 1)
	go func() { done <- u.Finish(ctx, msg("result")) }()
	limited := api.next(t)
	due := c.waitTimer(t)
	assert.Equal(t, limited.at.Add(7*time.Second), due, "the retry waits Retry-After")
	c.AdvanceTo(due)
	retried := api.next(t)
	require.NoError(t, <-done)
	assert.Equal(t, "result", retried.text, "the rate-limited state is not lost")
}

func TestUpdaterRateLimitedBodyKeepsNewestState(t *testing.T) {
	c := newFakeClock()
	api := newFakeUpdater(c, slack.SlackErrorResponse{Err: "ratelimited"})
	u, ctx := newTestUpdater(t, api, c, time.Time{})

	u.Set(msg("step 1"))
	limited := api.next(t)
	assert.Equal(t, "step 1", limited.text)
	due := c.waitTimer(t)
	assert.Equal(t, limited.at.Add(3*time.Second), due, "a ratelimited body backs off by the interval")
	u.Set(msg("step 2"))
	done := make(chan error, 1)
	go func() { done <- u.Finish(ctx, msg("result")) }()
	waitFinishing(t, u)
	c.AdvanceTo(due)
	got := api.next(t)
	require.NoError(t, <-done)
	assert.Equal(t, "result", got.text)
	assert.Len(t, api.all(), 2, "the superseded states were never sent")
}

func TestUpdaterRetriesTransientFinalFailures(t *testing.T) {
	c := newFakeClock()
	api := newFakeUpdater(c, errors.New("connection reset by peer"))
	u, ctx := newTestUpdater(t, api, c, time.Time{})
	done := make(chan error, 1)
	go func() { done <- u.Finish(ctx, msg("result")) }()
	api.next(t)
	c.AdvanceTo(c.waitTimer(t))
	assert.Equal(t, "result", api.next(t).text)
	require.NoError(t, <-done)
}

func TestUpdaterReportsPermanentFinalFailure(t *testing.T) {
	c := newFakeClock()
	api := newFakeUpdater(c, slack.SlackErrorResponse{Err: "message_not_found"})
	u, ctx := newTestUpdater(t, api, c, time.Time{})
	err := u.Finish(ctx, msg("result"))
	require.Error(t, err)
	assert.Equal(t, errMessageNotFound, slackCode(err), "the caller can tell the message is gone")
	assert.Len(t, api.all(), 1, "a permanent failure is not retried")
}

func TestUpdaterDropsFailedIntermediateStates(t *testing.T) {
	c := newFakeClock()
	api := newFakeUpdater(c, errors.New("boom"), errors.New("boom again"))
	u, ctx := newTestUpdater(t, api, c, time.Time{})
	u.Set(msg("step 1"))
	first := api.next(t)
	// A failed edit is not retried at once: the next one waits a backoff
	// (about one interval, jittered), and a second failure doubles it.
	u.Set(msg("step 2"))
	due := c.waitTimer(t)
	assert.GreaterOrEqual(t, due.Sub(first.at), 4*testInterval/5)
	c.AdvanceTo(due)
	second := api.next(t)
	assert.Equal(t, "step 2", second.text)
	done := make(chan error, 1)
	go func() { done <- u.Finish(ctx, msg("result")) }()
	due = c.waitTimer(t)
	assert.GreaterOrEqual(t, due.Sub(second.at), 2*4*testInterval/5)
	c.AdvanceTo(due)
	got := api.next(t)
	require.NoError(t, <-done)
	assert.Equal(t, "result", got.text, "the failed intermediate states are dropped, the final one goes")
}

// Past MaxEdits intermediate edits, states wait for the final one: the
// investigation's share of the Slack call budget is never exceeded.
func TestUpdaterKeepsToMaxEdits(t *testing.T) {
	c := newFakeClock()
	api := newFakeUpdater(c)
	u := NewUpdater(UpdaterOptions{API: api, Channel: "C1", TS: "1.1", Interval: testInterval, MaxEdits: 2, Clock: c})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	u.Start(ctx)
	for i := range 5 {
		u.Set(msg(fmt.Sprintf("step %d", i)))
		if i < 2 {
			api.next(t)
		}
		c.Advance(testInterval)
	}
	done := make(chan error, 1)
	go func() { done <- u.Finish(ctx, msg("result")) }()
	got := api.next(t)
	require.NoError(t, <-done)
	assert.Equal(t, "result", got.text)
	assert.Len(t, api.all(), 3, "two intermediate edits, then the final state")
}

func TestUpdaterStopAbandonsPendingStates(t *testing.T) {
	c := newFakeClock()
	api := newFakeUpdater(c)
	u, ctx := newTestUpdater(t, api, c, c.Now())
	u.Set(msg("step 1"))
	c.waitTimer(t)
	u.Stop()
	err := u.Finish(ctx, msg("result"))
	require.ErrorIs(t, err, ErrUpdaterStopped)
	assert.Empty(t, api.all())
}

// Under any sequence of states and clock moves, edits are at least one
// interval apart and the last edit is the final state.
func TestUpdaterIntervalProperty(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 42))
			c := newFakeClock()
			var errs []error
			for i := 0; i < 40; i++ {
				switch rng.IntN(8) {
				case 0:
					errs = append(errs, &slack.RateLimitedError{RetryAfter: time.Duration(1+rng.IntN(5)) * time.Second})
				case 1:
					errs = append(errs, slack.SlackErrorResponse{Err: "ratelimited"})
				default:
					errs = append(errs, nil)
				}
			}
			api := newFakeUpdater(c, errs...)
			u, ctx := newTestUpdater(t, api, c, c.Now())
			for i := 0; i < 30; i++ {
				u.Set(msg(fmt.Sprintf("step %d", i)))
				c.Advance(time.Duration(rng.IntN(1500)) * time.Millisecond)
			}
			done := make(chan error, 1)
			go func() { done <- u.Finish(ctx, msg("result")) }()
			for finished := false; !finished; {
				select {
				case err := <-done:
					require.NoError(t, err)
					finished = true
				case <-api.seen:
				case <-time.After(5 * time.Millisecond):
					// Nothing moved: let the clock reach the next timer.
					c.mu.Lock()
					var next time.Time
					for _, tm := range c.timers {
						if !tm.done && (next.IsZero() || tm.at.Before(next)) {
							next = tm.at
						}
					}
					c.mu.Unlock()
					if !next.IsZero() {
						c.AdvanceTo(next)
					}
				}
			}
			var ok []updateCall
			calls := api.all()
			for i, call := range calls {
				if i >= len(errs) || errs[i] == nil {
					ok = append(ok, call)
				}
			}
			require.NotEmpty(t, ok)
			assert.Equal(t, "result", ok[len(ok)-1].text)
			for i := 1; i < len(ok); i++ {
				assert.GreaterOrEqual(t, ok[i].at.Sub(ok[i-1].at), 3*time.Second, "edits %d and %d", i-1, i)
			}
		})
	}
}
