package events

import (
	"context"
	"encoding/json"
	"time"

	"github.com/segmentio/kafka-go"
)

const TopicBoxScheduled = "box.scheduled"

// BoxScheduled is consumed by fulfillment (picking) and notifications.
// Contract: schemas/box-scheduled.v2.json.
type BoxScheduled struct {
	BoxID        string    `json:"box_id"`
	CustomerID   string    `json:"customer_id"`
	DeliveryDate string    `json:"delivery_date"`
	Recipes      []string  `json:"recipes"`
	Servings     int       `json:"servings"`
	ScheduledAt  time.Time `json:"scheduled_at"`
}

type Publisher struct {
	w *kafka.Writer
}

func (p *Publisher) BoxScheduled(ctx context.Context, e BoxScheduled) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	return p.w.WriteMessages(ctx, kafka.Message{Topic: TopicBoxScheduled, Key: []byte(e.BoxID), Value: b})
}
