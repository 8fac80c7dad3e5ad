package main

import (
	"net/http"
	"os"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.uber.org/zap"

	"github.com/hopper-mobility/marketplace/dispatch/internal/match"
)

func main() {
	log, _ := zap.NewProduction()
	h := &match.Handler{Locations: match.NewLocationClient(os.Getenv("LOCATIONS_URL")), Offers: match.NewOfferSender(), Log: log}
	mux := http.NewServeMux()
	mux.Handle("POST /v1/match", otelhttp.NewHandler(h, "POST /v1/match"))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	log.Info("dispatch listening", zap.String("addr", ":8080"))
	if err := http.ListenAndServe(":8080", mux); err != nil {
		log.Fatal("server stopped", zap.Error(err))
	}
}
