package bot

import (
	"context"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"
)

// pool runs event handlers on a fixed number of goroutines; acknowledged
// events wait in a bounded queue. Submitting to a full queue blocks, which
// slows reading from Slack rather than dropping acknowledged work.
type pool struct {
	n     int
	tasks chan func(context.Context)
	log   *slog.Logger

	once    sync.Once
	closeMu sync.Mutex
	closed  bool
	wg      sync.WaitGroup
}

func newPool(n, queue int, log *slog.Logger) *pool {
	return &pool{n: n, tasks: make(chan func(context.Context), queue), log: log}
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

// submit queues a task; false when the pool is closed or ctx ended first.
func (p *pool) submit(ctx context.Context, task func(context.Context)) bool {
	p.closeMu.Lock()
	defer p.closeMu.Unlock()
	if p.closed {
		return false
	}
	select {
	case p.tasks <- task:
		return true
	case <-ctx.Done():
		return false
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
