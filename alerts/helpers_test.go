package alerts

import (
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/internal/redistest"
	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sessions"
)

// newRedis connects to the test Redis and fails (never skips) when it is
// unreachable: these tests are about real Redis semantics.
func newRedis(t testing.TB) *redis.Client { return redistest.Client(t) }

// uniquePrefix returns a random key prefix whose keys are deleted when the
// test ends.
func uniquePrefix(t testing.TB, rdb redis.UniversalClient) string {
	return redistest.Prefix(t, rdb, "autoheal-alerts-test-")
}

func newQueue(t testing.TB, rdb redis.UniversalClient, mod func(*sessions.QueueOptions)) *sessions.Queue {
	t.Helper()
	o := sessions.QueueOptions{Stream: uniquePrefix(t, rdb) + ":jobs", DedupeWindow: time.Minute, Logger: quietLogger()}
	if mod != nil {
		mod(&o)
	}
	q, err := sessions.NewQueue(rdb, o)
	require.NoError(t, err)
	return q
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// scenarioAlerts returns the Alertmanager bodies of every alert-triggered
// scenario (examples and the test corpus).
func scenarioAlerts(t testing.TB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, pattern := range []string{"../testdata/examples/*/scenario.yaml", "../testdata/scenarios/*/scenario.yaml"} {
		files, err := filepath.Glob(pattern)
		require.NoError(t, err)
		for _, f := range files {
			s, err := scenario.Load(filepath.Dir(f))
			require.NoError(t, err, f)
			if s.Trigger.IsAlert() {
				out[s.Name] = s.Trigger.Alert
			}
		}
	}
	require.NotEmpty(t, out, "no alert scenarios found")
	return out
}

// recMetrics records what the webhook reports.
type recMetrics struct {
	mu       sync.Mutex
	received map[string]int
	dup      int
	rejected map[string]int
	enqueued int
}

func newRecMetrics() *recMetrics {
	return &recMetrics{received: map[string]int{}, rejected: map[string]int{}}
}

func (m *recMetrics) AlertsReceived(status string, n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.received[status] += n
}

func (m *recMetrics) AlertsDeduplicated(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.dup += n
}

func (m *recMetrics) WebhookRejected(reason string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rejected[reason]++
}

func (m *recMetrics) WebhookEnqueued(time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.enqueued++
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b = append(s.b, p...)
	return len(p), nil
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.b)
}
