package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/recovery"
	flagd "github.com/open-feature/go-sdk-contrib/providers/flagd/pkg"
	"github.com/open-feature/go-sdk/openfeature"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	grpccodes "google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	allocv1 "github.com/northpeak/fulfilment/gen/go/alloc/v1"
	"github.com/northpeak/fulfilment/services/stock-allocator/internal/allocate"
	"github.com/northpeak/fulfilment/services/stock-allocator/internal/inventory"
	"github.com/northpeak/fulfilment/services/stock-allocator/internal/server"
	"github.com/northpeak/fulfilment/services/stock-allocator/internal/telemetry"
)

func main() {
	log := slog.New(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	shutdown := telemetry.Setup(ctx, "stock-allocator")
	defer shutdown()

	if err := openfeature.SetProviderAndWait(flagd.NewProvider(flagd.WithInProcessResolver())); err != nil {
		log.Error("flagd provider", "err", err)
		os.Exit(1)
	}
	inv, err := inventory.Dial(os.Getenv("INVENTORY_READ_ADDR"))
	if err != nil {
		log.Error("dial inventory-read", "err", err)
		os.Exit(1)
	}
	alloc := allocate.New(inv, openfeature.NewClient("stock-allocator"))

	// A panic in a handler must not take the whole pod down: log it with the
	// stack, mark the span and answer INTERNAL.
	onPanic := func(ctx context.Context, p any) error {
		stack := debug.Stack()
		log.ErrorContext(ctx, "panic recovered in gRPC handler", "panic", p, "stack", string(stack))
		span := trace.SpanFromContext(ctx)
		span.RecordError(fmt.Errorf("panic: %v", p), trace.WithStackTrace(true))
		span.SetStatus(codes.Error, "panic")
		return status.Error(grpccodes.Internal, "internal error")
	}
	srv := grpc.NewServer(
		grpc.StatsHandler(otelgrpc.NewServerHandler()),
		grpc.ChainUnaryInterceptor(
			telemetry.LoggingInterceptor(log),
			recovery.UnaryServerInterceptor(recovery.WithRecoveryHandlerContext(onPanic)),
		),
	)
	allocv1.RegisterStockAllocatorServer(srv, server.New(alloc))

	lis, err := net.Listen("tcp", ":9090")
	if err != nil {
		log.Error("listen", "err", err)
		os.Exit(1)
	}
	go func() {
		<-ctx.Done()
		srv.GracefulStop()
	}()
	log.Info("stock-allocator listening", "addr", lis.Addr().String())
	if err := srv.Serve(lis); err != nil {
		log.Error("serve", "err", err)
	}
}
