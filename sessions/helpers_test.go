package sessions

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// testRedisURL is the Redis the tests use: REDIS_URL, else a local default.
func testRedisURL() string {
	if u := os.Getenv("REDIS_URL"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/0"
}

// newRedis connects to the test Redis and fails (never skips) when it is
// unreachable: these tests are about real Redis semantics.
func newRedis(t testing.TB) *redis.Client {
	t.Helper()
	opt, err := redis.ParseURL(testRedisURL())
	require.NoError(t, err, "REDIS_URL is not a valid redis:// URL")
	rdb := redis.NewClient(opt)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		_ = rdb.Close()
		t.Fatalf("Redis is unreachable at %s: %v\n"+
			"The sessions tests need a real Redis 7. Start one with `redis-server --port 6379 --save ''` "+
			"or `docker run --rm -p 6379:6379 redis:7`, set REDIS_URL to point at another, "+
			"or run `make test`, which starts a throwaway redis-server.", opt.Addr, err)
	}
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// uniquePrefix returns a random key prefix and deletes its keys when the
// test ends.
func uniquePrefix(t testing.TB, rdb redis.UniversalClient) string {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	prefix := "autoheal-test-" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		iter := rdb.Scan(ctx, 0, prefix+"*", 500).Iterator()
		var keys []string
		for iter.Next(ctx) {
			keys = append(keys, iter.Val())
		}
		if len(keys) > 0 {
			_ = rdb.Del(ctx, keys...).Err()
		}
	})
	return prefix
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
