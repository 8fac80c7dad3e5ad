package holds

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fernway/commerce/services/stock-holds/internal/channels"
	"github.com/fernway/commerce/services/stock-holds/internal/store"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"log/slog"
)

// ErrHoldExpired is returned by Confirm when the hold's TTL elapsed before the
// order was placed. The HTTP layer maps it to 410 Gone.
var ErrHoldExpired = errors.New("hold expired")

type Service struct {
	store    store.Store
	channels *channels.Registry
	log      *slog.Logger
	now      func() time.Time
}

func NewService(s store.Store, c *channels.Registry, l *slog.Logger) *Service {
	return &Service{store: s, channels: c, log: l, now: time.Now}
}

// Create reserves quantity of sku for a cart until the channel's hold TTL elapses.
func (s *Service) Create(ctx context.Context, req CreateRequest) (*store.Hold, error) {
	ch, err := s.channels.Get(req.Channel)
	if err != nil {
		return nil, fmt.Errorf("channel %q: %w", req.Channel, err)
	}
	holdTTL := time.Duration(ch.HoldMinutes) * time.Second
	h := &store.Hold{
		ID:        newHoldID(),
		CartID:    req.CartID,
		Lines:     req.Lines,
		Channel:   ch.Name,
		CreatedAt: s.now(),
		ExpiresAt: s.now().Add(holdTTL),
	}
	if err := s.store.Reserve(ctx, h); err != nil {
		return nil, err
	}
	trace.SpanFromContext(ctx).SetAttributes(
		attribute.String("hold.id", h.ID),
		attribute.String("hold.ttl", holdTTL.String()),
	)
	s.log.InfoContext(ctx, "hold created", "hold_id", h.ID, "cart_id", h.CartID, "channel", ch.Name, "ttl", holdTTL.String(), "lines", len(h.Lines))
	return h, nil
}

// Confirm turns a hold into a committed allocation for an order.
func (s *Service) Confirm(ctx context.Context, holdID, orderID string) error {
	h, err := s.store.Get(ctx, holdID)
	if err != nil {
		return err
	}
	if s.now().After(h.ExpiresAt) {
		age := s.now().Sub(h.CreatedAt)
		s.log.WarnContext(ctx, "confirm rejected: hold expired", "hold_id", h.ID, "order_id", orderID,
			"age", age.Round(time.Millisecond).String(), "expired_at", h.ExpiresAt.UTC().Format(time.RFC3339))
		return ErrHoldExpired
	}
	return s.store.Commit(ctx, h.ID, orderID)
}

// Release frees a hold early (cart abandoned, order cancelled).
func (s *Service) Release(ctx context.Context, holdID string) error {
	return s.store.Release(ctx, holdID)
}
