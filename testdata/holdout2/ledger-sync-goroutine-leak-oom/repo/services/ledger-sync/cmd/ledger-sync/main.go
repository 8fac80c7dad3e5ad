package main

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/paylane/ledger/services/ledger-sync/internal/config"
	"github.com/paylane/ledger/services/ledger-sync/internal/fx"
	"github.com/paylane/ledger/services/ledger-sync/internal/ledgerapi"
	"github.com/paylane/ledger/services/ledger-sync/internal/outbox"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

var version = "dev"

func main() {
	log := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{Level: slog.LevelInfo}))
	cfg, err := config.FromEnv()
	if err != nil {
		log.Error("invalid configuration", "err", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	store, err := outbox.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		log.Error("open outbox", "err", err)
		os.Exit(1)
	}
	defer store.Close()

	w := outbox.NewWorker(store,
		fx.NewClient(cfg.FXGatewayURL, cfg.FXTimeout),
		ledgerapi.NewClient(cfg.LedgerAPIURL),
		log, cfg.BatchSize, cfg.SweepInterval)

	go func() {
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.Handler())
		mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
		srv := &http.Server{Addr: ":9102", Handler: mux, ReadHeaderTimeout: 5 * time.Second}
		if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
			log.Error("metrics server", "err", err)
		}
	}()

	log.Info("ledger-sync starting", "version", version, "batch_size", cfg.BatchSize,
		"sweep_interval", cfg.SweepInterval, "fx_timeout", cfg.FXTimeout)
	if err := w.Run(ctx); err != nil && ctx.Err() == nil {
		log.Error("worker stopped", "err", err)
		os.Exit(1)
	}
}
