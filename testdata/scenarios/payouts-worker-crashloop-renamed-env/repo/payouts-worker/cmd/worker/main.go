package main

import (
	"log/slog"
	"os"

	"github.com/tidepool-market/payments/payouts-worker/internal/config"
	"github.com/tidepool-market/payments/payouts-worker/internal/worker"
)

func main() {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	cfg, err := config.Load()
	if err != nil {
		log.Error("startup failed", "err", err)
		os.Exit(1)
	}
	log.Info("payouts-worker starting", "queue", cfg.Queue, "batch_size", cfg.BatchSize)
	worker.Run(cfg, log)
}
