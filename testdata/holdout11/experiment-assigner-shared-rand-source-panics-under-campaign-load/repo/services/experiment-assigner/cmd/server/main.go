package main

import (
	"log/slog"
	"net/http"
	"os"

	"github.com/sparrowhq/web-platform/services/experiment-assigner/internal/assign"
	"github.com/sparrowhq/web-platform/services/experiment-assigner/internal/api"
)

func main() {
	reg := assign.MustLoadRegistry(os.Getenv("EXPERIMENTS_FILE"))
	a := assign.New(reg)
	mux := http.NewServeMux()
	mux.Handle("GET /v1/assignments", api.AssignHandler(a))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	slog.Info("experiment-assigner listening", "addr", ":8080")
	if err := http.ListenAndServe(":8080", mux); err != nil {
		slog.Error("server stopped", "err", err)
		os.Exit(1)
	}
}
