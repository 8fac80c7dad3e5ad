package entitlement

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

type Cache struct {
	rdb *redis.Client
	ttl time.Duration
}

func NewCache(rdb *redis.Client, ttlSeconds int) *Cache {
	return &Cache{rdb: rdb, ttl: time.Duration(ttlSeconds) * time.Second}
}

func (c *Cache) Put(ctx context.Context, accountID, titleID string, ok bool) error {
	v := "0"
	if ok {
		v = "1"
	}
	return c.rdb.Set(ctx, "ent:"+accountID+":"+titleID, v, c.ttl).Err()
}

func (c *Cache) Get(ctx context.Context, accountID, titleID string) (ok, found bool, err error) {
	v, err := c.rdb.Get(ctx, "ent:"+accountID+":"+titleID).Result()
	if err == redis.Nil {
		return false, false, nil
	}
	return v == "1", err == nil, err
}
