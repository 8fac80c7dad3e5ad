package sessions

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Connect opens a client for a redis:// or rediss:// URL and checks it
// answers. Errors never include the URL, which may carry a password.
func Connect(ctx context.Context, redisURL string) (*redis.Client, error) {
	if redisURL == "" {
		return nil, invalid("empty Redis URL")
	}
	opt, err := redis.ParseURL(redisURL)
	if err != nil {
		return nil, errors.New("sessions: REDIS_URL is not a valid redis:// or rediss:// URL (value not shown: it may hold a password)")
	}
	rdb := redis.NewClient(opt)
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := rdb.Ping(pctx).Err(); err != nil {
		_ = rdb.Close()
		return nil, fmt.Errorf("sessions: Redis at %s does not answer: %w", opt.Addr, err)
	}
	return rdb, nil
}
