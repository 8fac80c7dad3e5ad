package sessions

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// FirstSeen reports whether id is seen for the first time within ttl, so
// that replicas receiving the same event (a Slack event_id, a retried
// webhook) handle it once. Exactly one concurrent caller gets true.
func (s *Store) FirstSeen(ctx context.Context, id string, ttl time.Duration) (bool, error) {
	return s.setNX(ctx, "seen", id, ttl)
}

func (s *Store) setNX(ctx context.Context, ns, id string, ttl time.Duration) (bool, error) {
	if err := checkID(ns+" id", id, 1024); err != nil {
		return false, err
	}
	if err := checkTTL(ns+" ttl", ttl); err != nil {
		return false, err
	}
	ok, err := s.rdb.SetNX(ctx, s.key(ns, keyPart(id)), "1", ttl).Result()
	if err != nil {
		return false, fmt.Errorf("sessions: %s %q: %w", ns, truncate(id, 80), err)
	}
	return ok, nil
}

var (
	// ErrLocked is returned by Lock when another holder has the lock.
	ErrLocked = errors.New("sessions: lock is held by another holder")
	// ErrLockLost is returned by Unlock and Extend when the lock expired
	// and may have been taken by another holder.
	ErrLockLost = errors.New("sessions: lock is no longer held")
)

// Lock is a held distributed lock. It expires after its TTL unless extended.
type Lock struct {
	rdb   redis.UniversalClient
	key   string
	name  string
	token string
}

// Name returns the lock's name.
func (l *Lock) Name() string { return l.name }

var (
	unlockScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`)
	extendScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`)
)

// Lock acquires the lock name for ttl, or returns ErrLocked.
func (s *Store) Lock(ctx context.Context, name string, ttl time.Duration) (*Lock, error) {
	if err := checkID("lock name", name, 512); err != nil {
		return nil, err
	}
	if err := checkTTL("lock ttl", ttl); err != nil {
		return nil, err
	}
	token, err := randomToken()
	if err != nil {
		return nil, err
	}
	key := s.key("lock", keyPart(name))
	ok, err := s.rdb.SetNX(ctx, key, token, ttl).Result()
	if err != nil {
		return nil, fmt.Errorf("sessions: lock %q: %w", name, err)
	}
	if !ok {
		return nil, fmt.Errorf("lock %q: %w", name, ErrLocked)
	}
	return &Lock{rdb: s.rdb, key: key, name: name, token: token}, nil
}

// Unlock releases the lock if this holder still owns it (compare and
// delete); otherwise it returns ErrLockLost and leaves the other holder alone.
func (l *Lock) Unlock(ctx context.Context) error {
	n, err := unlockScript.Run(ctx, l.rdb, []string{l.key}, l.token).Int()
	if err != nil {
		return fmt.Errorf("sessions: unlock %q: %w", l.name, err)
	}
	if n == 0 {
		return fmt.Errorf("unlock %q: %w", l.name, ErrLockLost)
	}
	return nil
}

// Extend resets the lock's TTL if this holder still owns it.
func (l *Lock) Extend(ctx context.Context, ttl time.Duration) error {
	if err := checkTTL("lock ttl", ttl); err != nil {
		return err
	}
	n, err := extendScript.Run(ctx, l.rdb, []string{l.key}, l.token, ttl.Milliseconds()).Int()
	if err != nil {
		return fmt.Errorf("sessions: extend lock %q: %w", l.name, err)
	}
	if n == 0 {
		return fmt.Errorf("extend %q: %w", l.name, ErrLockLost)
	}
	return nil
}

// Done reports whether the side effect named key was recorded as done
// (MarkDone) and has not expired.
func (s *Store) Done(ctx context.Context, key string) (bool, error) {
	if err := checkID("done key", key, 1024); err != nil {
		return false, err
	}
	n, err := s.rdb.Exists(ctx, s.key("done", keyPart(key))).Result()
	if err != nil {
		return false, fmt.Errorf("sessions: done %q: %w", truncate(key, 80), err)
	}
	return n == 1, nil
}

// MarkDone records the side effect named key as done for ttl. It is
// written after the side effect succeeded, so that a failure or a
// crash before it leaves the work to be done again.
func (s *Store) MarkDone(ctx context.Context, key string, ttl time.Duration) error {
	if err := checkID("done key", key, 1024); err != nil {
		return err
	}
	if err := checkTTL("done ttl", ttl); err != nil {
		return err
	}
	if err := s.rdb.Set(ctx, s.key("done", keyPart(key)), "1", ttl).Err(); err != nil {
		return fmt.Errorf("sessions: mark done %q: %w", truncate(key, 80), err)
	}
	return nil
}
