package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/redis/go-redis/v9"
)

// MemoryRecord is one past incident in the incident memory: what an
// investigation found (redacted before it gets here), where its result was
// posted, and what people did about it. Fingerprint groups incidents whose
// findings are the same (service, bucket, error type, error template,
// location).
type MemoryRecord struct {
	ID        string    `json:"id"` // the investigation job's id
	IssueKey  string    `json:"issue_key,omitempty"`
	Channel   string    `json:"channel"`
	ThreadTS  string    `json:"thread_ts"`
	MessageTS string    `json:"message_ts,omitempty"`
	At        time.Time `json:"at"`

	Service     string   `json:"service"`
	Bucket      string   `json:"bucket"`
	ErrorType   string   `json:"error_type"`
	Template    string   `json:"template,omitempty"` // the normalised error text
	File        string   `json:"file,omitempty"`
	Line        int      `json:"line,omitempty"`
	Changes     []string `json:"changes,omitempty"` // short SHAs the result blamed
	Band        string   `json:"band"`
	Summary     string   `json:"summary,omitempty"`
	Fingerprint string   `json:"fingerprint"`
	// Proposal identifies the change proposed (a hash of the patch or
	// manifest edit), so that "the same proposal" can be recognised.
	Proposal string `json:"proposal,omitempty"`

	PRURL    string `json:"pr_url,omitempty"`
	PRNumber int    `json:"pr_number,omitempty"`
	PRState  string `json:"pr_state,omitempty"` // open, merged or closed, as last read from GitHub
	Decision string `json:"decision,omitempty"` // approved or rejected
	By       string `json:"by,omitempty"`       // who decided
	Reason   string `json:"reason,omitempty"`   // why it was rejected
}

// Limits of the memory's indexes: the incidents kept per fingerprint and
// per service for similarity lookups.
const maxMemoryPerIndex = 200

func (s *Store) memoryKey(id string) string            { return s.key("mem", "rec", id) }
func (s *Store) memoryRecentKey() string               { return s.key("mem", "recent") }
func (s *Store) memoryFingerprintKey(fp string) string { return s.key("mem", "fp", fp) }
func (s *Store) memoryServiceKey(svc string) string    { return s.key("mem", "svc", svc) }

// Remember keeps rec (replacing an earlier record of the same id) and
// indexes it by time, fingerprint and service. Everything expires after
// Options.MemoryTTL; the oldest incidents past Options.MaxMemory, and past
// maxMemoryPerIndex in one index, are forgotten.
func (s *Store) Remember(ctx context.Context, rec MemoryRecord) error {
	if err := checkID("memory id", rec.ID, 300); err != nil {
		return err
	}
	if rec.At.IsZero() {
		return invalid("memory record %s: no time", rec.ID)
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("memory record %s: %w", rec.ID, err)
	}
	if len(b) > MaxResultDocBytes {
		return fmt.Errorf("memory record %s is %d bytes: %w", rec.ID, len(b), ErrResultTooLarge)
	}
	ttl := s.opts.MemoryTTL
	score := float64(rec.At.UnixMilli())
	_, err = s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, s.memoryKey(rec.ID), b, ttl)
		index := func(key string, keep int) {
			p.ZAdd(ctx, key, redis.Z{Score: score, Member: rec.ID})
			p.ZRemRangeByRank(ctx, key, 0, int64(-keep-1))
			p.Expire(ctx, key, ttl)
		}
		index(s.memoryRecentKey(), s.opts.MaxMemory)
		if rec.Fingerprint != "" {
			index(s.memoryFingerprintKey(rec.Fingerprint), maxMemoryPerIndex)
		}
		if rec.Service != "" {
			index(s.memoryServiceKey(rec.Service), maxMemoryPerIndex)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("remember incident %s: %w", rec.ID, err)
	}
	return nil
}

// Recall returns one remembered incident, or ErrNotFound.
func (s *Store) Recall(ctx context.Context, id string) (MemoryRecord, error) {
	b, err := s.rdb.Get(ctx, s.memoryKey(id)).Bytes()
	if errors.Is(err, redis.Nil) {
		return MemoryRecord{}, ErrNotFound
	}
	if err != nil {
		return MemoryRecord{}, fmt.Errorf("recall incident %s: %w", id, err)
	}
	var rec MemoryRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return MemoryRecord{}, fmt.Errorf("recall incident %s: %w", id, err)
	}
	return rec, nil
}

// Amend changes a remembered incident (a decision, a pull request's state)
// with optimistic locking; ErrNotFound when it was never remembered or is
// forgotten.
func (s *Store) Amend(ctx context.Context, id string, change func(*MemoryRecord)) error {
	key := s.memoryKey(id)
	for attempt := range 50 {
		err := s.rdb.Watch(ctx, func(tx *redis.Tx) error {
			b, err := tx.Get(ctx, key).Bytes()
			if errors.Is(err, redis.Nil) {
				return ErrNotFound
			}
			if err != nil {
				return err
			}
			var rec MemoryRecord
			if err := json.Unmarshal(b, &rec); err != nil {
				return err
			}
			change(&rec)
			nb, err := json.Marshal(rec)
			if err != nil {
				return err
			}
			ttl, err := tx.PTTL(ctx, key).Result()
			if err != nil || ttl <= 0 {
				ttl = s.opts.MemoryTTL
			}
			_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Set(ctx, key, nb, ttl)
				return nil
			})
			return err
		}, key)
		if errors.Is(err, redis.TxFailedErr) {
			// Another writer won: back off a little, then read again.
			time.Sleep(time.Duration(1+rand.IntN(2+attempt)) * time.Millisecond)
			continue
		}
		if err != nil && !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("amend incident %s: %w", id, err)
		}
		return err
	}
	return fmt.Errorf("amend incident %s: too much contention", id)
}

// RecentIncidents returns up to limit remembered incidents, newest first,
// from all of them (index "") or from one fingerprint or service index.
func (s *Store) RecentIncidents(ctx context.Context, by MemoryIndex, limit int) ([]MemoryRecord, error) {
	if limit <= 0 {
		return nil, nil
	}
	key := s.memoryRecentKey()
	switch {
	case by.Fingerprint != "":
		key = s.memoryFingerprintKey(by.Fingerprint)
	case by.Service != "":
		key = s.memoryServiceKey(by.Service)
	}
	ids, err := s.rdb.ZRevRange(ctx, key, 0, int64(limit-1)).Result()
	if err != nil {
		return nil, fmt.Errorf("recent incidents: %w", err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = s.memoryKey(id)
	}
	vals, err := s.rdb.MGet(ctx, keys...).Result()
	if err != nil {
		return nil, fmt.Errorf("recent incidents: %w", err)
	}
	out := make([]MemoryRecord, 0, len(vals))
	var gone []any
	for i, v := range vals {
		str, ok := v.(string)
		if !ok {
			gone = append(gone, ids[i]) // expired: drop it from the index
			continue
		}
		var rec MemoryRecord
		if err := json.Unmarshal([]byte(str), &rec); err != nil {
			s.log.Warn("unreadable memory record skipped", "id", ids[i], "err", err)
			continue
		}
		out = append(out, rec)
	}
	if len(gone) > 0 {
		_ = s.rdb.ZRem(ctx, key, gone...).Err()
	}
	return out, nil
}

// MemoryIndex chooses the incidents RecentIncidents reads: all (zero
// value), one fingerprint's, or one service's.
type MemoryIndex struct {
	Fingerprint string
	Service     string
}
