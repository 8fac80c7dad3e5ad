package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"go.uber.org/zap"

	"github.com/voltgrid/ingest-platform/internal/consumer"
	"github.com/voltgrid/ingest-platform/internal/sink"
)

func main() {
	log, _ := zap.NewProduction()
	defer log.Sync()

	cfg, err := consumer.ConfigFromEnv()
	if err != nil {
		log.Fatal("invalid configuration", zap.Error(err))
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()

	db, err := sink.Open(ctx, os.Getenv("TIMESCALE_DSN"))
	if err != nil {
		log.Fatal("connect timescale", zap.Error(err))
	}
	defer db.Close()

	if err := consumer.Run(ctx, cfg, db, log); err != nil {
		log.Fatal("consumer stopped", zap.Error(err))
	}
}
