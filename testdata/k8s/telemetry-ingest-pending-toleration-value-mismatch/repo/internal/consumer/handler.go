package consumer

import (
	"time"

	"github.com/IBM/sarama"
	"go.uber.org/zap"

	"github.com/voltgrid/ingest-platform/internal/sink"
	"github.com/voltgrid/ingest-platform/internal/telemetry"
)

type handler struct {
	db         *sink.DB
	log        *zap.Logger
	batchSize  int
	flushEvery time.Duration
}

func (h *handler) Setup(s sarama.ConsumerGroupSession) error {
	h.log.Info("consumer group rebalanced", zap.Int32("generation", s.GenerationID()),
		zap.Any("claims", s.Claims()), zap.String("member_id", s.MemberID()))
	return nil
}

func (h *handler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (h *handler) ConsumeClaim(s sarama.ConsumerGroupSession, c sarama.ConsumerGroupClaim) error {
	batch := make([]telemetry.Reading, 0, h.batchSize)
	tick := time.NewTicker(h.flushEvery)
	defer tick.Stop()
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		start := time.Now()
		if err := h.db.WriteReadings(s.Context(), batch); err != nil {
			return err
		}
		h.log.Info("batch committed", zap.Int32("partition", c.Partition()), zap.Int("records", len(batch)),
			zap.Int64("hwm_lag", c.HighWaterMarkOffset()-s.Context().Value(offsetKey{}).(int64)),
			zap.Duration("took", time.Since(start)))
		batch = batch[:0]
		return nil
	}
	for {
		select {
		case msg, ok := <-c.Messages():
			if !ok {
				return flush()
			}
			r, err := telemetry.Decode(msg.Value)
			if err != nil {
				h.log.Warn("dropping record", zap.Error(err), zap.Int32("partition", msg.Partition), zap.Int64("offset", msg.Offset))
				s.MarkMessage(msg, "")
				continue
			}
			batch = append(batch, r)
			s.MarkMessage(msg, "")
			if len(batch) >= h.batchSize {
				if err := flush(); err != nil {
					return err
				}
			}
		case <-tick.C:
			if err := flush(); err != nil {
				return err
			}
		case <-s.Context().Done():
			return nil
		}
	}
}
