// Package redistest gives tests the real Redis they run against: REDIS_URL,
// else 127.0.0.1:6379 (make test finds or starts one). Tests of Redis
// semantics fail, never skip, when it is unreachable. Only tests use it.
package redistest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// URL is the Redis the tests use.
func URL() string {
	if u := os.Getenv("REDIS_URL"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/0"
}

// Client connects to the test Redis, closed when the test ends.
func Client(t testing.TB) *redis.Client {
	t.Helper()
	opt, err := redis.ParseURL(URL())
	if err != nil {
		t.Fatalf("REDIS_URL is not a valid redis:// URL: %v", err)
	}
	rdb := redis.NewClient(opt)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		_ = rdb.Close()
		t.Fatalf("Redis is unreachable at %s: %v (start one with `redis-server --port 6379 --save ''`, set REDIS_URL, or run `make test`)", opt.Addr, err)
	}
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// Prefix returns a random key prefix starting with name whose keys are
// deleted when the test ends, so tests share one Redis without meeting.
func Prefix(t testing.TB, rdb redis.UniversalClient, name string) string {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	prefix := name + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var keys []string
		iter := rdb.Scan(ctx, 0, prefix+"*", 500).Iterator()
		for iter.Next(ctx) {
			keys = append(keys, iter.Val())
		}
		if len(keys) > 0 {
			_ = rdb.Del(ctx, keys...).Err()
		}
	})
	return prefix
}
