package bot

import (
	"context"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"
)

// pool is one lane of event handlers: a fixed number of goroutines and a
// bounded queue of acknowledged events. Submitting never blocks: the Socket
// Mode reader must go on acknowledging whatever the handlers do, so a task
// that finds the queue full is shed (the caller logs and counts it).
type pool struct {
	name  string
	n     int
	tasks chan func(context.Context)
	log   *slog.Logger

	once    sync.Once
	closeMu sync.Mutex
	closed  bool
	wg      sync.WaitGroup
}

func newPool(name string, n, queue int, log *slog.Logger) *pool {
	return &pool{name: name, n: n, tasks: make(chan func(context.Context), queue), log: log}
}

// start launches the workers; each task gets its own timeout.
func (p *pool) start(ctx context.Context, timeout time.Duration) {
	p.once.Do(func() {
		for i := 0; i < p.n; i++ {
			p.wg.Go(func() {
				for task := range p.tasks {
					p.run(ctx, timeout, task)
				}
			})
		}
	})
}

func (p *pool) run(ctx context.Context, timeout time.Duration, task func(context.Context)) {
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			p.log.Error("event handler panicked", "panic", r, "stack", string(debug.Stack()))
		}
	}()
	task(tctx)
}

// submitResult says what became of a submitted task.
type submitResult int

const (
	submitted  submitResult = iota
	shedFull                // the lane's queue was full
	shedClosed              // the lane is draining (shutdown)
)

// submit queues a task without waiting.
func (p *pool) submit(task func(context.Context)) submitResult {
	p.closeMu.Lock()
	defer p.closeMu.Unlock()
	if p.closed {
		return shedClosed
	}
	select {
	case p.tasks <- task:
		return submitted
	default:
		return shedFull
	}
}

// drain closes the queue and waits up to timeout for queued and running
// tasks; false when some were still running.
func (p *pool) drain(timeout time.Duration) bool {
	p.closeMu.Lock()
	if !p.closed {
		p.closed = true
		close(p.tasks)
	}
	p.closeMu.Unlock()
	done := make(chan struct{})
	go func() { p.wg.Wait(); close(done) }()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}
