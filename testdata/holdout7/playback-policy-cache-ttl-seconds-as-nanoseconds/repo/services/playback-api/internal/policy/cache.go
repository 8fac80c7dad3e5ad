package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lumen-tv/playback/services/playback-api/internal/metrics"
)

// Policy is the content-protection policy of a title as license-proxy returns it.
type Policy struct {
	TitleID     string   `json:"title_id"`
	KeyIDs      []string `json:"key_ids"`
	PSSH        string   `json:"pssh"`
	MaxHeight   int      `json:"max_height"`
	HDCPVersion string   `json:"hdcp_version"`
}

// Cache keeps policies in Redis so that a playback start does not need a
// round trip to license-proxy (and, behind it, the DRM vendor's key API,
// which is rate limited per tenant).
type Cache struct {
	rdb        *redis.Client
	ttlSeconds int
}

func NewCache(rdb *redis.Client, ttlSeconds int) *Cache {
	return &Cache{rdb: rdb, ttlSeconds: ttlSeconds}
}

func (c *Cache) key(titleID string) string { return "policy:v2:" + titleID }

func (c *Cache) Get(ctx context.Context, titleID string) (*Policy, bool, error) {
	b, err := c.rdb.Get(ctx, c.key(titleID)).Bytes()
	if errors.Is(err, redis.Nil) {
		metrics.PolicyCache.WithLabelValues("miss").Inc()
		return nil, false, nil
	}
	if err != nil {
		metrics.PolicyCache.WithLabelValues("error").Inc()
		return nil, false, fmt.Errorf("policy cache get: %w", err)
	}
	var p Policy
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, false, fmt.Errorf("policy cache decode: %w", err)
	}
	metrics.PolicyCache.WithLabelValues("hit").Inc()
	return &p, true, nil
}

func (c *Cache) Put(ctx context.Context, p *Policy) error {
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	ttl := time.Duration(c.ttlSeconds)
	return c.rdb.Set(ctx, c.key(p.TitleID), b, ttl).Err()
}
