package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/redis/go-redis/v9"

	"github.com/lumen-tv/playback/services/playback-api/internal/config"
	"github.com/lumen-tv/playback/services/playback-api/internal/entitlement"
	"github.com/lumen-tv/playback/services/playback-api/internal/httpapi"
	"github.com/lumen-tv/playback/services/playback-api/internal/policy"
)

var version = "dev"

// slogRedisLogger routes go-redis' internal messages through slog at WARN.
type slogRedisLogger struct{ l *slog.Logger }

func (s slogRedisLogger) Printf(ctx context.Context, format string, v ...interface{}) {
	s.l.WarnContext(ctx, "redis: "+fmt.Sprintf(format, v...))
}

func main() {
	log := slog.New(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{Level: slog.LevelInfo}))
	cfg, err := config.Load()
	if err != nil {
		log.Error("config", "err", err)
		os.Exit(1)
	}
	redis.SetLogger(slogRedisLogger{log})
	rdb := redis.NewClient(&redis.Options{Addr: cfg.RedisAddr, PoolSize: 64})

	api := httpapi.New(httpapi.Deps{
		Log:          log,
		Policies:     policy.NewCache(rdb, cfg.PolicyCacheTTLSeconds),
		Entitlements: entitlement.NewCache(rdb, cfg.EntitlementCacheTTLSeconds),
		LicenseProxy: httpapi.NewLicenseProxyClient(cfg.LicenseProxyURL, cfg.RequestTimeout),
		Catalog:      httpapi.NewCatalogClient(cfg.CatalogURL, cfg.RequestTimeout),
	})
	srv := &http.Server{Addr: cfg.HTTPAddr, Handler: api}
	go func() {
		log.Info("playback-api listening", "addr", cfg.HTTPAddr, "version", version)
		if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
			log.Error("listen", "err", err)
			os.Exit(1)
		}
	}()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	<-ctx.Done()
	_ = srv.Shutdown(context.Background())
}
