package consumer

import (
	"context"
	"time"

	"github.com/IBM/sarama"
	"go.uber.org/zap"

	"github.com/voltgrid/ingest-platform/internal/sink"
)

// Run joins the consumer group and writes decoded telemetry in batches.
func Run(ctx context.Context, cfg Config, db *sink.DB, log *zap.Logger) error {
	sc := sarama.NewConfig()
	sc.Version = sarama.V3_6_0_0
	sc.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{sarama.NewBalanceStrategySticky()}
	sc.Consumer.Offsets.Initial = sarama.OffsetOldest
	// Bigger fetches: chargers report every 10 s and the morning peak is ~40k msg/s.
	sc.Consumer.Fetch.Default = 4 << 20
	sc.Consumer.Fetch.Max = 16 << 20
	sc.Consumer.MaxProcessingTime = 2 * time.Second

	group, err := sarama.NewConsumerGroup(cfg.Brokers, cfg.Group, sc)
	if err != nil {
		return err
	}
	defer group.Close()

	h := &handler{db: db, log: log, batchSize: cfg.BatchSize, flushEvery: cfg.FlushEvery}
	for ctx.Err() == nil {
		if err := group.Consume(ctx, []string{cfg.Topic}, h); err != nil {
			log.Warn("consume returned", zap.Error(err))
			time.Sleep(time.Second)
		}
	}
	return nil
}
