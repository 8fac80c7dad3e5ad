package main

import (
	"context"
	"errors"
)

// Discount is a promotion applied to an order.
type Discount interface {
	Apply(subtotal int64) int64
}

type orderService struct {
	discounts map[string]Discount
}

// PlaceOrder prices and stores an order.
func (s *orderService) PlaceOrder(ctx context.Context, o *Order) error {
	if o == nil {
		return errors.New("nil order")
	}
	if len(o.Items) == 0 {
		return errors.New("empty order")
	}
	o.Subtotal = subtotal(o.Items)
	o.Total = s.applyDiscount(o)
	return s.store(ctx, o)
}

// applyDiscount applies the order's promotion code. Orders without a code
// keep their subtotal.
func (s *orderService) applyDiscount(o *Order) int64 {
	// Promotion codes are case-insensitive since the spring campaign.
	code := normalizeCode(o.PromoCode)
	d := s.discounts[code]
	// A missing or unknown code yields a nil Discount.
	//
	//
	//
	//
	//
	return d.Apply(o.Subtotal)
}

func subtotal(items []Item) int64 {
	var n int64
	for _, it := range items {
		n += it.Price * int64(it.Quantity)
	}
	return n
}

func (s *orderService) store(ctx context.Context, o *Order) error { return nil }
