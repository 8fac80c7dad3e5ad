package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// Check is one readiness check; it must honour ctx.
type Check func(ctx context.Context) error

// ServerOptions configure the operations HTTP server.
type ServerOptions struct {
	// Addr is the listen address (":8080").
	Addr string
	// Ready are the checks that decide readiness, by name (redis): what a
	// replica needs to accept webhooks and run queued work.
	Ready map[string]Check
	// Health are checks /readyz reports without gating readiness (slack):
	// an outage of Slack must not take every replica out of service while
	// Redis can still queue the alerts.
	Health map[string]Check
	// Report, when set, is told every check's outcome (a metric).
	Report func(name string, err error)
	// CheckTimeout bounds one readiness check (default 2 s).
	CheckTimeout time.Duration
	Logger       *slog.Logger
}

// Server is the small HTTP server of a replica: /healthz (the process
// answers) and /readyz (its dependencies answer). Mux is exported so other
// parts of the product mount their handlers (the Alertmanager webhook,
// /metrics) before Serve.
type Server struct {
	Mux *http.ServeMux
	o   ServerOptions
	log *slog.Logger
}

// NewServer returns a server with /healthz and /readyz mounted.
func NewServer(o ServerOptions) *Server {
	if o.CheckTimeout <= 0 {
		o.CheckTimeout = 2 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	s := &Server{Mux: http.NewServeMux(), o: o, log: o.Logger.With("component", "http")}
	s.Mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	s.Mux.HandleFunc("GET /readyz", s.readyz)
	return s
}

// Handle mounts an extra handler.
func (s *Server) Handle(pattern string, h http.Handler) { s.Mux.Handle(pattern, h) }

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ready := s.runChecks(r.Context(), s.o.Ready)
	status, code := "ready", http.StatusOK
	for _, res := range ready {
		if res != "ok" {
			status, code = "not ready", http.StatusServiceUnavailable
		}
	}
	body := map[string]any{"status": status, "checks": ready}
	if len(s.o.Health) > 0 {
		body["health"] = s.runChecks(r.Context(), s.o.Health)
	}
	writeJSON(w, code, body)
}

// runChecks runs checks in parallel, each bounded by CheckTimeout, and
// returns "ok" or the error text by name.
func (s *Server) runChecks(ctx context.Context, checks map[string]Check) map[string]string {
	results := make(map[string]string, len(checks))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for n, check := range checks {
		wg.Go(func() {
			cctx, cancel := context.WithTimeout(ctx, s.o.CheckTimeout)
			defer cancel()
			err := check(cctx)
			if s.o.Report != nil {
				s.o.Report(n, err)
			}
			res := "ok"
			if err != nil {
				res = err.Error()
			}
			mu.Lock()
			results[n] = res
			mu.Unlock()
		})
	}
	wg.Wait()
	return results
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// Serve listens on Addr until ctx ends, then shuts down gracefully within
// grace. A nil error means a clean stop.
func (s *Server) Serve(ctx context.Context, grace time.Duration) error {
	ln, err := net.Listen("tcp", s.o.Addr)
	if err != nil {
		return fmt.Errorf("http server: listen on %s: %w", s.o.Addr, err)
	}
	return s.ServeListener(ctx, ln, grace)
}

// ServeListener is Serve on an open listener.
func (s *Server) ServeListener(ctx context.Context, ln net.Listener, grace time.Duration) error {
	srv := &http.Server{
		Handler:           s.Mux,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	s.log.Info("http server listening", "addr", ln.Addr().String())
	select {
	case err := <-errc:
		return fmt.Errorf("http server: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("http server: shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("http server: %w", err)
	}
	return nil
}

// CachedCheck runs check at most once per ttl (failures once per failTTL)
// and answers from the cache in between: auth.test on every probe would
// spend Slack's rate limit.
func CachedCheck(check Check, ttl, failTTL time.Duration) Check {
	var mu sync.Mutex
	var at time.Time
	var last error
	checked := false
	return func(ctx context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		if checked {
			keep := ttl
			if last != nil {
				keep = failTTL
			}
			if time.Since(at) < keep {
				return last
			}
		}
		last = check(ctx)
		at, checked = time.Now(), true
		return last
	}
}

// ReadyChecks decide the replica's readiness: Redis answers a PING. A
// replica with Redis accepts webhooks and runs queued work whatever Slack
// does (results wait in the queue's retries).
func (b *Bot) ReadyChecks() map[string]Check {
	return map[string]Check{
		"redis": func(ctx context.Context) error {
			if err := b.o.Store.Client().Ping(ctx).Err(); err != nil {
				return fmt.Errorf("redis: %w", err)
			}
			return nil
		},
	}
}

// HealthChecks are reported next to readiness without gating it: Slack
// accepts the bot token (auth.test, cached for five minutes, thirty seconds
// after a failure). Errors never carry tokens.
func (b *Bot) HealthChecks() map[string]Check {
	return map[string]Check{
		"slack": CachedCheck(func(ctx context.Context) error {
			if _, err := b.api.AuthTestContext(ctx); err != nil {
				return fmt.Errorf("slack auth.test: %s", b.o.Redactor.String(err.Error()))
			}
			return nil
		}, 5*time.Minute, 30*time.Second),
	}
}
