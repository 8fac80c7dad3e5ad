package main

import (
	"log/slog"
	"net/http"
	"os"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"

	"github.com/wayfarer/trips/services/fare-aggregator/internal/api"
	"github.com/wayfarer/trips/services/fare-aggregator/internal/providers/blueferries"
	"github.com/wayfarer/trips/services/fare-aggregator/internal/providers/coachline"
	"github.com/wayfarer/trips/services/fare-aggregator/internal/providers/rail"
	"github.com/wayfarer/trips/services/fare-aggregator/internal/search"
	"github.com/wayfarer/trips/services/fare-aggregator/internal/telemetry"
)

func main() {
	log := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	shutdown := telemetry.Init("fare-aggregator")
	defer shutdown()

	s := search.New(log,
		rail.New(os.Getenv("RAIL_CONNECTOR_URL")),
		coachline.New(os.Getenv("COACHLINE_API_KEY")),
		blueferries.New(os.Getenv("BLUEFERRIES_API_KEY")),
	)
	mux := http.NewServeMux()
	mux.Handle("GET /v1/fares/search", api.SearchHandler(s, log))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	srv := &http.Server{Addr: ":8080", Handler: otelhttp.NewHandler(mux, "fare-aggregator")}
	log.Info("listening", "addr", srv.Addr)
	if err := srv.ListenAndServe(); err != nil {
		log.Error("server stopped", "err", err)
		os.Exit(1)
	}
}
