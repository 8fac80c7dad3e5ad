package sessions

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// IncidentStatus is the state of an alert's incident thread.
type IncidentStatus string

const (
	IncidentFiring   IncidentStatus = "firing"
	IncidentResolved IncidentStatus = "resolved"
)

// ErrRootTaken is returned by SetRootTS when the incident already has a
// different root message (the caller should delete its duplicate).
var ErrRootTaken = errors.New("sessions: incident already has a root message")

// Incident is the record that makes every fire of one alert (issue key)
// converge on one Slack thread.
type Incident struct {
	Key                string
	Channel            string
	RootTS             string
	FireCount          int
	FirstFiredAt       time.Time
	LastFiredAt        time.Time
	LastInvestigatedAt time.Time
	Status             IncidentStatus
	ResolvedAt         time.Time
}

func (s *Store) incidentKey(key string) string { return s.key("incident", keyPart(key)) }

func (s *Store) threadIndexKey(channel, ts string) string {
	return s.key("incident-thread", keyPart(channel), keyPart(ts))
}

func parseIncident(m map[string]string) Incident {
	return Incident{
		Key:                m["key"],
		Channel:            m["channel"],
		RootTS:             m["root_ts"],
		FireCount:          atoi(m["fire_count"]),
		FirstFiredAt:       fromMS(m["first_fired_at"]),
		LastFiredAt:        fromMS(m["last_fired_at"]),
		LastInvestigatedAt: fromMS(m["last_investigated_at"]),
		Status:             IncidentStatus(m["status"]),
		ResolvedAt:         fromMS(m["resolved_at"]),
	}
}

// openOrFireScript creates or updates an incident atomically.
// ARGV: key, now ms, cooldown ms, ttl ms, root claim timeout ms.
// Returns {created, investigate, HGETALL}.
var openOrFireScript = redis.NewScript(`
local h = KEYS[1]
local now = tonumber(ARGV[2])
local created, investigate = 0, 0
if redis.call('EXISTS', h) == 0 then
  redis.call('HSET', h, 'key', ARGV[1], 'fire_count', 1, 'first_fired_at', ARGV[2],
    'last_fired_at', ARGV[2], 'last_investigated_at', ARGV[2], 'status', 'firing',
    'root_claimed_at', ARGV[2])
  created, investigate = 1, 1
else
  redis.call('HINCRBY', h, 'fire_count', 1)
  local lastFired = tonumber(redis.call('HGET', h, 'last_fired_at') or '0') or 0
  if now > lastFired then redis.call('HSET', h, 'last_fired_at', ARGV[2]) end
  if redis.call('HGET', h, 'status') ~= 'firing' then
    redis.call('HSET', h, 'status', 'firing')
    redis.call('HDEL', h, 'resolved_at')
  end
  local last = tonumber(redis.call('HGET', h, 'last_investigated_at') or '0') or 0
  if now - last >= tonumber(ARGV[3]) then
    investigate = 1
    redis.call('HSET', h, 'last_investigated_at', ARGV[2])
  end
  if not redis.call('HGET', h, 'root_ts') then
    local claimed = tonumber(redis.call('HGET', h, 'root_claimed_at') or '0') or 0
    if now - claimed >= tonumber(ARGV[5]) then
      created = 1
      redis.call('HSET', h, 'root_claimed_at', ARGV[2])
    end
  end
end
redis.call('PEXPIRE', h, ARGV[4])
return {created, investigate, redis.call('HGETALL', h)}
`)

// OpenOrFire records one fire of the alert with issue key key, atomically
// across replicas. Exactly one of any number of concurrent first calls gets
// created=true: that caller posts the thread's root message and records it
// with SetRootTS; the others wait for it (WaitRootTS). created is also true
// for a later fire when the creator never recorded a root within
// Options.RootClaimTimeout (it crashed), so the thread is not lost.
//
// investigate is true for exactly one caller per cooldown window: the
// creator, or the first fire at least cooldown after the last granted
// investigation. A fire on a resolved incident re-opens it (status firing).
func (s *Store) OpenOrFire(ctx context.Context, key string, now time.Time, cooldown time.Duration) (inc Incident, created, investigate bool, err error) {
	if err := checkID("issue key", key, 512); err != nil {
		return Incident{}, false, false, err
	}
	if cooldown < 0 {
		return Incident{}, false, false, invalid("cooldown must not be negative, got %s", cooldown)
	}
	if now.IsZero() {
		return Incident{}, false, false, invalid("fire time is zero")
	}
	res, err := openOrFireScript.Run(ctx, s.rdb, []string{s.incidentKey(key)},
		key, ms(now), cooldown.Milliseconds(), s.opts.IncidentTTL.Milliseconds(), s.opts.RootClaimTimeout.Milliseconds(),
	).Slice()
	if err != nil {
		return Incident{}, false, false, fmt.Errorf("sessions: open or fire incident %q: %w", key, err)
	}
	if len(res) != 3 {
		return Incident{}, false, false, fmt.Errorf("sessions: open or fire incident %q: unexpected reply of %d items", key, len(res))
	}
	m, err := pairs(res[2])
	if err != nil {
		return Incident{}, false, false, fmt.Errorf("open or fire incident %q: %w", key, err)
	}
	return parseIncident(m), res[0] == int64(1), res[1] == int64(1), nil
}

// setRootScript records the root message unless a different one exists.
// Returns {status, HGETALL}: 0 missing, 1 set (or same), 2 taken.
var setRootScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return {0, {}} end
local cur = redis.call('HGET', KEYS[1], 'root_ts')
if cur and cur ~= ARGV[2] then return {2, redis.call('HGETALL', KEYS[1])} end
redis.call('HSET', KEYS[1], 'channel', ARGV[1], 'root_ts', ARGV[2])
return {1, redis.call('HGETALL', KEYS[1])}
`)

// SetRootTS records the root message of an incident's thread and indexes the
// thread (channel, ts) back to the issue key for the Re-investigate button.
// If another root was recorded first it returns that incident and ErrRootTaken.
func (s *Store) SetRootTS(ctx context.Context, key, channel, ts string) (Incident, error) {
	if err := checkID("issue key", key, 512); err != nil {
		return Incident{}, err
	}
	if err := (Scope{Channel: channel, ThreadTS: ts}).validate(); err != nil {
		return Incident{}, err
	}
	if ts == "" {
		return Incident{}, invalid("root ts is empty")
	}
	res, err := setRootScript.Run(ctx, s.rdb, []string{s.incidentKey(key)}, channel, ts).Slice()
	if err != nil {
		return Incident{}, fmt.Errorf("sessions: set root of incident %q: %w", key, err)
	}
	if len(res) != 2 {
		return Incident{}, fmt.Errorf("sessions: set root of incident %q: unexpected reply", key)
	}
	m, err := pairs(res[1])
	if err != nil {
		return Incident{}, err
	}
	inc := parseIncident(m)
	switch res[0] {
	case int64(0):
		return Incident{}, fmt.Errorf("incident %q: %w", key, ErrNotFound)
	case int64(2):
		return inc, fmt.Errorf("incident %q root %s/%s: %w", key, inc.Channel, inc.RootTS, ErrRootTaken)
	}
	if err := s.rdb.Set(ctx, s.threadIndexKey(channel, ts), key, s.opts.IncidentTTL).Err(); err != nil {
		return inc, fmt.Errorf("sessions: index thread of incident %q: %w", key, err)
	}
	return inc, nil
}

// WaitRootTS polls until the incident's root message is recorded, for
// replicas that lost the creation race. poll <= 0 means 100ms. Bound the
// wait with ctx; on timeout the caller should queue its update or retry.
func (s *Store) WaitRootTS(ctx context.Context, key string, poll time.Duration) (Incident, error) {
	if poll <= 0 {
		poll = 100 * time.Millisecond
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		inc, err := s.GetIncident(ctx, key)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return Incident{}, err
		}
		if err == nil && inc.RootTS != "" {
			return inc, nil
		}
		select {
		case <-ctx.Done():
			return inc, fmt.Errorf("sessions: waiting for the root message of incident %q: %w", key, ctx.Err())
		case <-t.C:
		}
	}
}

var resolveIncidentScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
redis.call('HSET', KEYS[1], 'status', 'resolved', 'resolved_at', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('HGETALL', KEYS[1])
`)

// ResolveIncident marks an incident resolved at at.
func (s *Store) ResolveIncident(ctx context.Context, key string, at time.Time) (Incident, error) {
	return s.updateIncident(ctx, "resolve", resolveIncidentScript, key, at)
}

var markInvestigatedScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
local last = tonumber(redis.call('HGET', KEYS[1], 'last_investigated_at') or '0') or 0
if tonumber(ARGV[1]) > last then redis.call('HSET', KEYS[1], 'last_investigated_at', ARGV[1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('HGETALL', KEYS[1])
`)

// MarkInvestigated records an investigation started outside OpenOrFire (the
// Re-investigate button), so the cooldown counts from it. Times never move
// backwards.
func (s *Store) MarkInvestigated(ctx context.Context, key string, at time.Time) (Incident, error) {
	return s.updateIncident(ctx, "mark investigated", markInvestigatedScript, key, at)
}

func (s *Store) updateIncident(ctx context.Context, op string, script *redis.Script, key string, at time.Time) (Incident, error) {
	if err := checkID("issue key", key, 512); err != nil {
		return Incident{}, err
	}
	if at.IsZero() {
		return Incident{}, invalid("%s: time is zero", op)
	}
	res, err := script.Run(ctx, s.rdb, []string{s.incidentKey(key)}, ms(at), s.opts.IncidentTTL.Milliseconds()).Result()
	if err != nil {
		return Incident{}, fmt.Errorf("sessions: %s incident %q: %w", op, key, err)
	}
	m, err := pairs(res)
	if err != nil {
		return Incident{}, err
	}
	if len(m) == 0 {
		return Incident{}, fmt.Errorf("incident %q: %w", key, ErrNotFound)
	}
	return parseIncident(m), nil
}

// GetIncident returns the incident with issue key key, or ErrNotFound.
func (s *Store) GetIncident(ctx context.Context, key string) (Incident, error) {
	if err := checkID("issue key", key, 512); err != nil {
		return Incident{}, err
	}
	m, err := s.rdb.HGetAll(ctx, s.incidentKey(key)).Result()
	if err != nil {
		return Incident{}, fmt.Errorf("sessions: get incident %q: %w", key, err)
	}
	if len(m) == 0 {
		return Incident{}, fmt.Errorf("incident %q: %w", key, ErrNotFound)
	}
	return parseIncident(m), nil
}

// IncidentForThread returns the issue key whose thread root is (channel, ts).
func (s *Store) IncidentForThread(ctx context.Context, channel, ts string) (string, error) {
	if err := (Scope{Channel: channel, ThreadTS: ts}).validate(); err != nil {
		return "", err
	}
	key, err := s.rdb.Get(ctx, s.threadIndexKey(channel, ts)).Result()
	if errors.Is(err, redis.Nil) {
		return "", fmt.Errorf("incident for thread %s/%s: %w", channel, ts, ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("sessions: incident for thread %s/%s: %w", channel, ts, err)
	}
	return key, nil
}
