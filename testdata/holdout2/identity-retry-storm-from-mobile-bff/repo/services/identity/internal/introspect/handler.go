package introspect

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
	"github.com/rs/zerolog"
)

// Handler serves POST /oauth2/introspect (RFC 7662). Tokens are looked up in
// the session cache first and fall back to Postgres.
type Handler struct {
	db    *pgxpool.Pool
	cache *redis.Client
	log   zerolog.Logger
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	caller, _, _ := r.BasicAuth()
	token := r.PostFormValue("token")

	sess, err := h.lookup(ctx, token)
	switch {
	case errors.Is(err, errNotFound):
		writeJSON(w, http.StatusOK, map[string]any{"active": false})
		return
	case err != nil:
		h.log.Error().Err(err).Str("caller", caller).Msg("introspection lookup failed")
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"error": "temporarily_unavailable"})
		return
	}
	writeJSON(w, http.StatusOK, sess.introspection())
}

func (h *Handler) lookup(ctx context.Context, token string) (*session, error) {
	key := "sess:" + hashToken(token)
	if s, err := h.fromCache(ctx, key); err == nil {
		return s, nil
	} else if !errors.Is(err, redis.Nil) {
		h.log.Warn().Err(err).Msg("session cache unavailable, reading from postgres")
	}
	conn, err := h.db.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	return loadSession(ctx, conn, token)
}
