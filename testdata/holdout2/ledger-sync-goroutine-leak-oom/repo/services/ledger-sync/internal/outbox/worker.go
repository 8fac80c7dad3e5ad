package outbox

import (
	"context"
	"log/slog"
	"time"

	"github.com/paylane/ledger/services/ledger-sync/internal/fx"
	"github.com/paylane/ledger/services/ledger-sync/internal/ledgerapi"
	"github.com/prometheus/client_golang/prometheus"
)

// Worker drains the payments outbox into the ledger: every sweep it claims up
// to batchSize pending entries, converts them to the book currency and posts
// them to ledger-api.
type Worker struct {
	store     *Store
	fx        *fx.Client
	ledger    *ledgerapi.Client
	log       *slog.Logger
	batchSize int
	interval  time.Duration

	lookups *prometheus.CounterVec
	pending prometheus.Gauge
}

func (w *Worker) Run(ctx context.Context) error {
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			if err := w.sweep(ctx); err != nil {
				w.log.Error("sweep failed", "err", err)
			}
		}
	}
}

func (w *Worker) sweep(ctx context.Context) error {
	entries, err := w.store.Claim(ctx, w.batchSize)
	if err != nil {
		return err
	}
	posted, deferred := 0, 0
	for _, e := range entries {
		rate, err := w.fx.Rate(e.Currency, e.BookCurrency)
		switch {
		case fx.ErrTimeout(err):
			w.lookups.WithLabelValues("timeout").Inc()
			w.log.Warn("fx lookup failed, deferring entry", "entry_id", e.ID, "err", err)
			deferred++
			_ = w.store.Defer(ctx, e.ID, 30*time.Second)
			continue
		case err != nil:
			w.lookups.WithLabelValues("error").Inc()
			w.log.Warn("fx lookup failed, deferring entry", "entry_id", e.ID, "err", err)
			deferred++
			_ = w.store.Defer(ctx, e.ID, 30*time.Second)
			continue
		}
		w.lookups.WithLabelValues("ok").Inc()
		if err := w.ledger.Post(ctx, e.Posting(rate)); err != nil {
			w.log.Error("post to ledger failed", "entry_id", e.ID, "err", err)
			_ = w.store.Release(ctx, e.ID)
			continue
		}
		_ = w.store.Done(ctx, e.ID)
		posted++
	}
	n, _ := w.store.Pending(ctx)
	w.pending.Set(float64(n))
	if len(entries) > 0 {
		w.log.Info("sweep done", "claimed", len(entries), "posted", posted, "deferred", deferred, "pending", n)
	}
	return nil
}
