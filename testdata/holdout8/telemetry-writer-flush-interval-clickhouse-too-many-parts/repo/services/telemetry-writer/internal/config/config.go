package config

import (
	"time"

	"github.com/kelseyhightower/envconfig"
)

type Config struct {
	NATSURL    string `envconfig:"NATS_URL" required:"true"`
	Stream     string `envconfig:"NATS_STREAM" default:"TELEMETRY"`
	Consumer   string `envconfig:"NATS_CONSUMER" default:"ch-writer"`
	ClickHouse string `envconfig:"CLICKHOUSE_ADDR" required:"true"`
	Database   string `envconfig:"CLICKHOUSE_DATABASE" default:"telemetry"`
	Password   string `envconfig:"CLICKHOUSE_PASSWORD"`
	// A batch is flushed when it reaches MaxRows or when FlushInterval has
	// passed since its first row, whichever comes first. Every flush is one
	// INSERT and so one new part per partition touched in ClickHouse.
	MaxRows       int           `envconfig:"WRITER_BATCH_MAX_ROWS" default:"50000"`
	FlushInterval time.Duration `envconfig:"WRITER_FLUSH_INTERVAL" default:"5s"`
	FetchBatch    int           `envconfig:"WRITER_FETCH_BATCH" default:"1000"`
	MaxAckPending int           `envconfig:"WRITER_MAX_ACK_PENDING" default:"50000"`
}

func Load() (Config, error) {
	var c Config
	err := envconfig.Process("", &c)
	return c, err
}
