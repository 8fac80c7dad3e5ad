package quote

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
)

// idempotencyTTL is how long a quote response is kept for replays of the same key.
const idempotencyTTL = 10 * time.Minute

type idempotencyStore struct {
	rdb *redis.Client
	log *zap.Logger
}

var errDuplicate = errors.New("duplicate idempotency key")

// claim records key; on a replay it returns the stored response (nil while
// the first request is still being priced) together with errDuplicate.
func (s *idempotencyStore) claim(ctx context.Context, key string) ([]byte, error) {
	ok, err := s.rdb.SetNX(ctx, "quote:idem:"+key, "pending", idempotencyTTL).Result()
	if err != nil {
		return nil, err
	}
	if ok {
		return nil, nil
	}
	prev, err := s.rdb.Get(ctx, "quote:idem:"+key).Bytes()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, err
	}
	if string(prev) == "pending" {
		prev = nil
	}
	s.log.Warn("duplicate idempotency key, replaying stored response",
		zap.String("idempotency_key", key), zap.Bool("has_response", prev != nil))
	return prev, errDuplicate
}

func (s *idempotencyStore) store(ctx context.Context, key string, body []byte) error {
	return s.rdb.Set(ctx, "quote:idem:"+key, body, idempotencyTTL).Err()
}
