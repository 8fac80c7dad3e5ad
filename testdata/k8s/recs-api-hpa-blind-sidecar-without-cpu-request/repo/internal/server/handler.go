package server

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

func (s *Server) homeRails(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RankerTimeout)
	defer cancel()
	start := time.Now()
	rails, err := s.ranker.Rails(ctx, r.URL.Query().Get("profile"))
	if err != nil {
		slog.WarnContext(ctx, "ranking deadline exceeded, serving fallback rails", "profile", r.URL.Query().Get("profile"),
			"elapsed_ms", time.Since(start).Milliseconds())
		rails = s.fallback.Rails()
	}
	writeJSON(w, rails)
}
