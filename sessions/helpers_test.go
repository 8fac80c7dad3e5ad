package sessions

import (
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/internal/redistest"
)

// testRedisURL is the Redis the tests use: REDIS_URL, else a local default.
func testRedisURL() string { return redistest.URL() }

// newRedis connects to the test Redis and fails (never skips) when it is
// unreachable: these tests are about real Redis semantics.
func newRedis(t testing.TB) *redis.Client { return redistest.Client(t) }

// uniquePrefix returns a random key prefix whose keys are deleted when the
// test ends.
func uniquePrefix(t testing.TB, rdb redis.UniversalClient) string {
	return redistest.Prefix(t, rdb, "autoheal-test-")
}

func testKey(t testing.TB) []byte {
	t.Helper()
	k := make([]byte, KeySize)
	_, err := rand.Read(k)
	require.NoError(t, err)
	return k
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func newStore(t testing.TB, rdb redis.UniversalClient, opts Options) *Store {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = quietLogger()
	}
	s, err := New(rdb, opts)
	require.NoError(t, err)
	return s
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func testLogger() *slog.Logger {
	if os.Getenv("SESSIONS_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return quietLogger()
}
