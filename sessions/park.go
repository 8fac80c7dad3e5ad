package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrParkFull is returned when a channel already holds Options.MaxParked
// investigations waiting for credentials.
var ErrParkFull = errors.New("sessions: too many investigations waiting for credentials in this channel")

// ParkedJob is a job waiting for settings to be given.
type ParkedJob struct {
	Job      Job       `json:"job"`
	Scope    Scope     `json:"scope"`
	Missing  []string  `json:"missing"`
	ParkedAt time.Time `json:"parked_at"`
}

const maxParkedJobBytes = 256 << 10

// Parked jobs of a channel live in one hash (job id -> ParkedJob JSON), so a
// setting given at channel level can release the jobs of every thread.
func (s *Store) parkKey(channel string) string { return s.key("parked", keyPart(channel)) }

// Park keeps job until the settings in missing are given in scope (or in
// its channel). Parking the same job id again replaces it.
func (s *Store) Park(ctx context.Context, scope Scope, job Job, missing []string) error {
	if err := scope.validate(); err != nil {
		return err
	}
	if err := checkID("job id", job.ID, 512); err != nil {
		return err
	}
	if len(missing) == 0 {
		return invalid("park job %q: no missing settings given", job.ID)
	}
	for _, k := range missing {
		if err := checkSettingKey(k); err != nil {
			return err
		}
	}
	missing = slices.Clone(missing)
	sort.Strings(missing)
	missing = slices.Compact(missing)
	b, err := json.Marshal(ParkedJob{Job: job, Scope: scope, Missing: missing, ParkedAt: time.Now().UTC()})
	if err != nil {
		return fmt.Errorf("sessions: encode parked job %q: %w", job.ID, err)
	}
	if len(b) > maxParkedJobBytes {
		return invalid("park job %q: %d bytes, at most %d", job.ID, len(b), maxParkedJobBytes)
	}
	key := s.parkKey(scope.Channel)
	n, err := parkScript.Run(ctx, s.rdb, []string{key}, job.ID, b, s.opts.MaxParked, s.opts.ParkTTL.Milliseconds()).Int()
	if err != nil {
		return fmt.Errorf("sessions: park job %q in %s: %w", job.ID, scope, err)
	}
	if n == 0 {
		return fmt.Errorf("park job %q in %s (max %d): %w", job.ID, scope, s.opts.MaxParked, ErrParkFull)
	}
	return nil
}

var parkScript = redis.NewScript(`
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1`)

// maxUnparkRetries bounds optimistic-lock retries under contention.
const maxUnparkRetries = 20

// Unpark is called after settings were given in scope: given names them.
// Every parked job the settings apply to (same thread for a thread scope,
// any thread of the channel for a channel scope) drops them from its
// missing list; the jobs left with nothing missing are removed and
// returned, exactly once across replicas, for the caller to enqueue again.
func (s *Store) Unpark(ctx context.Context, scope Scope, given []string) ([]ParkedJob, error) {
	if err := scope.validate(); err != nil {
		return nil, err
	}
	if len(given) == 0 {
		return nil, nil
	}
	key := s.parkKey(scope.Channel)
	var ready []ParkedJob
	txf := func(tx *redis.Tx) error {
		ready = ready[:0]
		all, err := tx.HGetAll(ctx, key).Result()
		if err != nil {
			return err
		}
		updates := map[string]string{}
		var done []string
		for id, raw := range all {
			var pj ParkedJob
			if err := json.Unmarshal([]byte(raw), &pj); err != nil {
				s.log.Warn("dropping undecodable parked job", "job_id", id, "err", err)
				done = append(done, id)
				continue
			}
			if scope.IsThread() && pj.Scope != scope {
				continue
			}
			left := slices.DeleteFunc(slices.Clone(pj.Missing), func(k string) bool { return slices.Contains(given, k) })
			if len(left) == len(pj.Missing) {
				continue
			}
			if len(left) == 0 {
				pj.Missing = nil
				ready = append(ready, pj)
				done = append(done, id)
				continue
			}
			pj.Missing = left
			b, err := json.Marshal(pj)
			if err != nil {
				return err
			}
			updates[id] = string(b)
		}
		if len(done) == 0 && len(updates) == 0 {
			return nil
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			if len(done) > 0 {
				p.HDel(ctx, key, done...)
			}
			if len(updates) > 0 {
				p.HSet(ctx, key, updates)
			}
			return nil
		})
		return err
	}
	for i := 0; i < maxUnparkRetries; i++ {
		err := s.rdb.Watch(ctx, txf, key)
		if errors.Is(err, redis.TxFailedErr) {
			continue // another replica changed the hash; read again
		}
		if err != nil {
			return nil, fmt.Errorf("sessions: unpark %s: %w", scope, err)
		}
		sort.Slice(ready, func(a, b int) bool { return ready[a].ParkedAt.Before(ready[b].ParkedAt) })
		return ready, nil
	}
	return nil, fmt.Errorf("sessions: unpark %s: gave up after %d conflicting updates", scope, maxUnparkRetries)
}

// ParkedJobs lists the jobs waiting in a channel (for status messages).
func (s *Store) ParkedJobs(ctx context.Context, channel string) ([]ParkedJob, error) {
	if err := ChannelScope(channel).validate(); err != nil {
		return nil, err
	}
	all, err := s.rdb.HGetAll(ctx, s.parkKey(channel)).Result()
	if err != nil {
		return nil, fmt.Errorf("sessions: parked jobs of %s: %w", channel, err)
	}
	out := make([]ParkedJob, 0, len(all))
	for _, raw := range all {
		var pj ParkedJob
		if json.Unmarshal([]byte(raw), &pj) == nil {
			out = append(out, pj)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].ParkedAt.Before(out[b].ParkedAt) })
	return out, nil
}
