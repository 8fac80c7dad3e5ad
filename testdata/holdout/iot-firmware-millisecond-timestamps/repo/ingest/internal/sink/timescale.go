package sink

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/aerolumen/telemetry/ingest/internal/model"
)

// BatchSize rows per COPY; flushed at least every FlushEvery.
const (
	BatchSize  = 500
	FlushEvery = 2 * time.Second
)

type Timescale struct{ pool *pgxpool.Pool }

func (t *Timescale) Write(ctx context.Context, rows []model.Reading) error {
	_, err := t.pool.CopyFrom(ctx, pgx.Identifier{"readings"}, []string{"device_id", "ts", "metric", "value"}, copySource(rows))
	return err
}
