package server

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	allocv1 "github.com/northpeak/fulfilment/gen/go/alloc/v1"
	"github.com/northpeak/fulfilment/services/stock-allocator/internal/allocate"
)

type Server struct {
	allocv1.UnimplementedStockAllocatorServer
	alloc *allocate.Allocator
}

func New(a *allocate.Allocator) *Server { return &Server{alloc: a} }

func (s *Server) AllocateOrder(ctx context.Context, req *allocv1.AllocateOrderRequest) (*allocv1.AllocateOrderResponse, error) {
	if len(req.GetOrder().GetLines()) == 0 {
		return nil, status.Error(codes.InvalidArgument, "order has no lines")
	}
	plans, err := s.alloc.Allocate(ctx, req.GetOrder())
	switch {
	case errors.Is(err, allocate.ErrInsufficientStock), errors.Is(err, allocate.ErrTooManyParcels):
		return nil, status.Error(codes.FailedPrecondition, err.Error())
	case err != nil:
		return nil, status.Errorf(codes.Unavailable, "allocate: %v", err)
	}
	resp := &allocv1.AllocateOrderResponse{OrderId: req.GetOrder().GetOrderId()}
	for _, p := range plans {
		sh := &allocv1.Shipment{WarehouseId: p.WarehouseID, Carrier: p.Carrier}
		for sku, qty := range p.Lines {
			sh.Lines = append(sh.Lines, &allocv1.ShipmentLine{Sku: sku, Quantity: qty})
		}
		resp.Shipments = append(resp.Shipments, sh)
	}
	return resp, nil
}
