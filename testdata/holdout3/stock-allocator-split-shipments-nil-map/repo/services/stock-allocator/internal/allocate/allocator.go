package allocate

import (
	"context"
	"fmt"

	"github.com/open-feature/go-sdk/openfeature"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	allocv1 "github.com/northpeak/fulfilment/gen/go/alloc/v1"
	"github.com/northpeak/fulfilment/services/stock-allocator/internal/inventory"
)

var tracer = otel.Tracer("github.com/northpeak/fulfilment/services/stock-allocator/internal/allocate")

// Allocator decides which warehouses ship an order.
type Allocator struct {
	inventory *inventory.Client
	flags     *openfeature.Client
}

func New(inv *inventory.Client, flags *openfeature.Client) *Allocator {
	return &Allocator{inventory: inv, flags: flags}
}

// Allocate returns one plan per shipping warehouse, or ErrInsufficientStock
// when the order cannot be filled (the orchestrator then backorders it).
func (a *Allocator) Allocate(ctx context.Context, order *allocv1.Order) ([]*ShipmentPlan, error) {
	ctx, span := tracer.Start(ctx, "Allocator.Allocate", trace.WithAttributes(
		attribute.String("app.order.id", order.GetOrderId()),
		attribute.Int("app.order.lines", len(order.GetLines()))))
	defer span.End()

	stock, err := a.inventory.Snapshot(ctx, skus(order))
	if err != nil {
		return nil, fmt.Errorf("inventory snapshot: %w", err)
	}
	if site, ok := singleSite(order, stock); ok {
		return []*ShipmentPlan{planFor(site, order)}, nil
	}
	country := order.GetShipTo().GetCountry()
	if !a.flags.BooleanValue(ctx, "split-shipments", false, openfeature.NewEvaluationContext(order.GetCustomerId(),
		map[string]any{"country": country, "channel": order.GetChannel()})) {
		// Previous behaviour: the orchestrator backorders the whole order.
		return nil, ErrInsufficientStock
	}
	return splitAcrossWarehouses(order, stock)
}

func skus(order *allocv1.Order) []string {
	out := make([]string, 0, len(order.GetLines()))
	for _, l := range order.GetLines() {
		out = append(out, l.GetSku())
	}
	return out
}
