package main

import (
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/trailhead/discovery/internal/aggregator"
	"github.com/trailhead/discovery/internal/backends"
	"github.com/trailhead/discovery/internal/httpapi"
)

func main() {
	slog.SetDefault(slog.New(slog.NewJSONHandler(os.Stdout, nil)))
	agg := aggregator.New(300*time.Millisecond,
		backends.Trails(os.Getenv("TRAILS_URL")),
		backends.Huts(os.Getenv("HUTS_URL")),
		backends.Reviews(os.Getenv("REVIEWS_URL")),
		backends.DidYouMean(os.Getenv("SPELL_URL")),
	)
	slog.Info("search-aggregator listening", "addr", ":8080", "backends", 4, "budget", "300ms")
	if err := http.ListenAndServe(":8080", httpapi.New(agg)); err != nil {
		slog.Error("server stopped", "err", err)
		os.Exit(1)
	}
}
