package ingest

import (
	"context"
	"encoding/json"

	"github.com/segmentio/kafka-go"

	"github.com/veloce/dispatch/driver-locator/internal/geo"
	"github.com/veloce/dispatch/driver-locator/internal/hub"
)

type Consumer struct {
	r   *kafka.Reader
	hub *hub.Hub
}

type position struct {
	DriverID string  `json:"driver_id"`
	Lat      float64 `json:"lat"`
	Lng      float64 `json:"lng"`
	Heading  int     `json:"heading"`
	TS       int64   `json:"ts"`
}

func (c *Consumer) handle(ctx context.Context, m kafka.Message) error {
	var p position
	if err := json.Unmarshal(m.Value, &p); err != nil {
		return nil // malformed, skip
	}
	zone := geo.Hash(p.Lat, p.Lng, 6)
	c.hub.Broadcast(zone, m.Value)
	return nil
}
