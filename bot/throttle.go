package bot

import (
	"context"
	"sync"
	"time"
)

// editThrottle spaces the edits of one message by the update interval,
// whatever makes them: the progress updater's final state, then a click
// re-rendering the result (Approve, Reject, the pull request's link) within
// milliseconds. Slack asks for about one update per message every few
// seconds. It is per replica: edits of one message come from the replica
// handling its job or click.
type editThrottle struct {
	interval time.Duration
	clock    Clock

	mu   sync.Mutex
	last map[string]time.Time // channel + ts -> the latest edit, done or booked
}

// maxThrottled bounds the messages remembered; entries older than the
// interval are forgotten first.
const maxThrottled = 4096

func newEditThrottle(interval time.Duration, clock Clock) *editThrottle {
	return &editThrottle{interval: interval, clock: clock, last: map[string]time.Time{}}
}

// wait books the next edit slot of the message and sleeps until it.
func (t *editThrottle) wait(ctx context.Context, channel, ts string) error {
	key := channel + "/" + ts
	t.mu.Lock()
	now := t.clock.Now()
	due := now
	if last, ok := t.last[key]; ok && last.Add(t.interval).After(now) {
		due = last.Add(t.interval)
	}
	t.last[key] = due
	t.pruneLocked(now)
	t.mu.Unlock()
	if d := due.Sub(now); d > 0 {
		ch, stop := t.clock.After(d)
		select {
		case <-ch:
		case <-ctx.Done():
			stop()
			return ctx.Err()
		}
	}
	return nil
}

// mark records an edit made elsewhere (the progress updater's).
func (t *editThrottle) mark(channel, ts string, at time.Time) {
	key := channel + "/" + ts
	t.mu.Lock()
	if at.After(t.last[key]) {
		t.last[key] = at
	}
	t.pruneLocked(at)
	t.mu.Unlock()
}

func (t *editThrottle) pruneLocked(now time.Time) {
	if len(t.last) <= maxThrottled {
		return
	}
	for k, at := range t.last {
		if at.Add(t.interval).Before(now) {
			delete(t.last, k)
		}
	}
}
