// Package embedded runs an in-process Redis (miniredis) so that the demo
// works without a Redis server. It is for the demo and tests only:
// miniredis keeps everything in memory and serves one process.
//
// The sessions package works on it unchanged. miniredis implements every
// command the package uses — XADD with MAXLEN, XREADGROUP with BLOCK, XACK,
// XDEL, XAUTOCLAIM, XCLAIM with IDLE/RETRYCOUNT/JUSTID, XPENDING (summary
// and extended), XINFO CONSUMERS, XGROUP, EVAL/EVALSHA with redis.call on
// all of these, WATCH/MULTI — so no fallback path is needed. One difference
// is handled here: miniredis does not expire keys with the clock unless
// asked, so Start enables clock-driven TTLs (locks, claims and
// de-duplication keys depend on expiry).
package embedded

import (
	"context"
	"fmt"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/autoheal/autoheal/sessions"
)

// Server is a running in-process Redis.
type Server struct {
	mr     *miniredis.Miniredis
	client *redis.Client
}

// Start starts miniredis on a random local port and returns a connected client.
func Start() (*Server, error) {
	mr := miniredis.NewMiniRedis()
	mr.ClockTTL(true)
	if err := mr.Start(); err != nil {
		return nil, fmt.Errorf("embedded redis: start: %w", err)
	}
	client := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		_ = client.Close()
		mr.Close()
		return nil, fmt.Errorf("embedded redis: ping: %w", err)
	}
	return &Server{mr: mr, client: client}, nil
}

// Client returns the client connected to the server.
func (s *Server) Client() *redis.Client { return s.client }

// Addr returns host:port of the server.
func (s *Server) Addr() string { return s.mr.Addr() }

// URL returns a redis:// URL for the server.
func (s *Server) URL() string { return "redis://" + s.mr.Addr() + "/0" }

// Close closes the client and stops the server.
func (s *Server) Close() error {
	err := s.client.Close()
	s.mr.Close()
	return err
}

// Open returns a client for redisURL, or, when redisURL is empty, starts an
// embedded server. close releases whichever was opened.
func Open(ctx context.Context, redisURL string) (client redis.UniversalClient, close func() error, err error) {
	if redisURL != "" {
		c, err := sessions.Connect(ctx, redisURL)
		if err != nil {
			return nil, nil, err
		}
		return c, c.Close, nil
	}
	s, err := Start()
	if err != nil {
		return nil, nil, err
	}
	return s.Client(), s.Close, nil
}
