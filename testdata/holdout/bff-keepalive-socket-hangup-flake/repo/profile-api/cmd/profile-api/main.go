package main

import (
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/learnloop/web/profile-api/internal/api"
)

func main() {
	log := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	srv := &http.Server{
		Addr:              ":8080",
		Handler:           api.Routes(log),
		ReadHeaderTimeout: 2 * time.Second,
		WriteTimeout:      10 * time.Second,
		IdleTimeout:       5 * time.Second,
	}
	log.Info("profile-api listening", "addr", srv.Addr)
	if err := srv.ListenAndServe(); err != nil {
		log.Error("server stopped", "err", err)
		os.Exit(1)
	}
}
