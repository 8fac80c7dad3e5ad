package batch

import (
	"context"
	"log/slog"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/polarsense/telemetry-platform/services/telemetry-writer/internal/config"
	"github.com/polarsense/telemetry-platform/services/telemetry-writer/internal/metrics"
)

type Batcher struct {
	cfg   config.Config
	conn  driver.Conn
	log   *slog.Logger
	rows  []Row
	msgs  []jetstream.Msg
	first time.Time
	stats stats
}

type stats struct {
	flushes int
	rows    int
}

// Add appends a decoded reading; the message is acked only after the
// INSERT that contains it succeeded.
func (b *Batcher) Add(ctx context.Context, r Row, m jetstream.Msg) {
	if len(b.rows) == 0 {
		b.first = time.Now()
	}
	b.rows = append(b.rows, r)
	b.msgs = append(b.msgs, m)
	if len(b.rows) >= b.cfg.MaxRows || time.Since(b.first) >= b.cfg.FlushInterval {
		b.Flush(ctx)
	}
}

func (b *Batcher) Flush(ctx context.Context) {
	if len(b.rows) == 0 {
		return
	}
	start := time.Now()
	batch, err := b.conn.PrepareBatch(ctx, "INSERT INTO readings")
	if err == nil {
		for _, r := range b.rows {
			if err = batch.AppendStruct(&r); err != nil {
				break
			}
		}
	}
	if err == nil {
		err = batch.Send()
	}
	if err != nil {
		b.log.Error("clickhouse insert failed, nak batch", "rows", len(b.rows), "err", err)
		metrics.InsertErrors.Inc()
		for _, m := range b.msgs {
			_ = m.NakWithDelay(2 * time.Second)
		}
	} else {
		b.log.Debug("flushed batch", "rows", len(b.rows), "took_ms", time.Since(start).Milliseconds())
		metrics.RowsWritten.Add(float64(len(b.rows)))
		for _, m := range b.msgs {
			_ = m.Ack()
		}
	}
	metrics.Flushes.Inc()
	b.stats.flushes++
	b.stats.rows += len(b.rows)
	b.rows = b.rows[:0]
	b.msgs = b.msgs[:0]
}

// ReportStats logs one line every five minutes so that batch sizes show up without
// debug logging.
func (b *Batcher) ReportStats(ctx context.Context) {
	t := time.NewTicker(5 * time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			avg := 0
			if b.stats.flushes > 0 {
				avg = b.stats.rows / b.stats.flushes
			}
			b.log.Info("writer stats", "inserts", b.stats.flushes, "rows", b.stats.rows, "avg_rows_per_insert", avg,
				"flush_interval", b.cfg.FlushInterval.String())
			b.stats = stats{}
		}
	}
}
