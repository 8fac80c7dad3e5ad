package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// MaxInFlight bounds the approvals being carried out at once (across
// replicas); past it a new approval is refused until some finish.
const MaxInFlight = 10000

// ErrTooManyInFlight is returned by MarkInFlight when MaxInFlight
// approvals are being carried out already.
var ErrTooManyInFlight = errors.New("sessions: too many approvals in flight")

// InFlight is an approval being carried out: a click was accepted and the
// pull request is not linked in the thread yet. The replica carrying it
// out keeps its lease alive; when that replica dies (SIGKILL, OOM, node
// loss) the lease runs out and StuckApprovals hands it to another
// replica, which resumes it (remediate finds the branch and pull request
// the dead one left, so the resumed approval opens none twice).
type InFlight struct {
	// JobID names the proposal: the investigation whose result is approved.
	JobID    string `json:"job_id"`
	IssueKey string `json:"issue_key"`
	// User approved; Channel and ThreadTS are the investigation's thread,
	// MessageTS the result message (empty when unknown).
	User      string `json:"user"`
	Channel   string `json:"channel"`
	ThreadTS  string `json:"thread_ts"`
	MessageTS string `json:"message_ts,omitempty"`
	// Since is when the approval was first accepted; Attempts counts the
	// carry-outs started (the click's and every resumption).
	Since    time.Time `json:"since"`
	Attempts int       `json:"attempts"`
	// LeaseUntil is when the approval counts as stuck unless its carrier
	// extends the lease (not stored in the JSON: the index's score).
	LeaseUntil time.Time `json:"-"`
}

func (e InFlight) validate() error {
	if err := checkID("job id", e.JobID, 512); err != nil {
		return err
	}
	if err := checkID("approval key", e.IssueKey, 512); err != nil {
		return err
	}
	if err := checkID("user", e.User, 128); err != nil {
		return err
	}
	for _, f := range []struct{ what, v string }{{"channel", e.Channel}, {"thread", e.ThreadTS}, {"message", e.MessageTS}} {
		if f.v != "" {
			if err := checkID(f.what, f.v, 200); err != nil {
				return err
			}
		}
	}
	return nil
}

// inFlightKeys are the index of approvals in flight: a hash (job id ->
// InFlight JSON) and a sorted set (job id by lease deadline, Unix ms). The
// hash tag keeps both in one slot on Redis Cluster.
func (s *Store) inFlightKeys() (entries, due string) {
	base := s.key("{approvals-in-flight}")
	return base, base + ":due"
}

// ApprovalLease is how long an approval's carrier may stay silent before
// another replica takes the approval over (Options.ApprovalLease).
func (s *Store) ApprovalLease() time.Duration { return s.opts.ApprovalLease }

// markInFlightScript: KEYS entries, due; ARGV[1] job id, ARGV[2] JSON,
// ARGV[3] deadline ms, ARGV[4] max entries. Returns 0 when full.
var markInFlightScript = redis.NewScript(`
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[4]) then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1`)

// MarkInFlight records that e.JobID's approval is being carried out, with
// a lease of Options.ApprovalLease from now. Marking a job already in
// flight (a resumption) keeps its Since and counts one more attempt; the
// returned InFlight is what was stored.
func (s *Store) MarkInFlight(ctx context.Context, e InFlight) (InFlight, error) {
	if err := e.validate(); err != nil {
		return InFlight{}, err
	}
	now := time.Now().UTC()
	e.Since, e.Attempts = now, 1
	if old, err := s.InFlightApproval(ctx, e.JobID); err == nil {
		e.Since, e.Attempts = old.Since, old.Attempts+1
	} else if !errors.Is(err, ErrNotFound) {
		return InFlight{}, err
	}
	e.LeaseUntil = now.Add(s.opts.ApprovalLease)
	b, err := json.Marshal(e)
	if err != nil {
		return InFlight{}, fmt.Errorf("sessions: encode approval in flight %q: %w", e.JobID, err)
	}
	entries, due := s.inFlightKeys()
	n, err := markInFlightScript.Run(ctx, s.rdb, []string{entries, due}, e.JobID, b, ms(e.LeaseUntil), MaxInFlight).Int()
	if err != nil {
		return InFlight{}, fmt.Errorf("sessions: mark approval %q in flight: %w", e.JobID, err)
	}
	if n == 0 {
		return InFlight{}, fmt.Errorf("mark approval %q in flight (max %d): %w", e.JobID, MaxInFlight, ErrTooManyInFlight)
	}
	return e, nil
}

// ExtendInFlight moves the lease deadline of an approval in flight to
// until (its carrier's heartbeat, or a sweeper postponing a resumption).
// It returns ErrNotFound when the approval is no longer in flight.
func (s *Store) ExtendInFlight(ctx context.Context, jobID string, until time.Time) error {
	if err := checkID("job id", jobID, 512); err != nil {
		return err
	}
	_, due := s.inFlightKeys()
	n, err := s.rdb.ZAddXX(ctx, due, redis.Z{Score: float64(ms(until)), Member: jobID}).Result()
	if err != nil {
		return fmt.Errorf("sessions: extend approval %q in flight: %w", jobID, err)
	}
	if n == 0 {
		// ZADD XX counts only added members; tell an update from a miss.
		if _, err := s.rdb.ZScore(ctx, due, jobID).Result(); errors.Is(err, redis.Nil) {
			return fmt.Errorf("approval %q in flight: %w", jobID, ErrNotFound)
		} else if err != nil {
			return fmt.Errorf("sessions: extend approval %q in flight: %w", jobID, err)
		}
	}
	return nil
}

// ClearInFlight records that an approval was carried out (or given up):
// no replica resumes it any more.
func (s *Store) ClearInFlight(ctx context.Context, jobID string) error {
	if err := checkID("job id", jobID, 512); err != nil {
		return err
	}
	entries, due := s.inFlightKeys()
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HDel(ctx, entries, jobID)
		p.ZRem(ctx, due, jobID)
		return nil
	})
	if err != nil {
		return fmt.Errorf("sessions: clear approval %q in flight: %w", jobID, err)
	}
	return nil
}

// InFlightApproval returns an approval in flight, or ErrNotFound.
func (s *Store) InFlightApproval(ctx context.Context, jobID string) (InFlight, error) {
	if err := checkID("job id", jobID, 512); err != nil {
		return InFlight{}, err
	}
	entries, due := s.inFlightKeys()
	var raw *redis.StringCmd
	var score *redis.FloatCmd
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		raw = p.HGet(ctx, entries, jobID)
		score = p.ZScore(ctx, due, jobID)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return InFlight{}, fmt.Errorf("sessions: approval %q in flight: %w", jobID, err)
	}
	if raw.Err() != nil || score.Err() != nil {
		return InFlight{}, fmt.Errorf("approval %q in flight: %w", jobID, ErrNotFound)
	}
	return decodeInFlight(jobID, raw.Val(), score.Val())
}

func decodeInFlight(jobID, raw string, score float64) (InFlight, error) {
	var e InFlight
	if err := json.Unmarshal([]byte(raw), &e); err != nil {
		return InFlight{}, fmt.Errorf("sessions: decode approval %q in flight: %w", jobID, err)
	}
	e.JobID = jobID
	e.LeaseUntil = time.UnixMilli(int64(score)).UTC()
	return e, nil
}

// StuckApprovals returns up to limit approvals in flight whose lease ran
// out by now, the longest stuck first: their carrier died. A record that
// cannot be decoded is dropped.
func (s *Store) StuckApprovals(ctx context.Context, now time.Time, limit int) ([]InFlight, error) {
	if limit <= 0 || limit > MaxInFlight {
		return nil, invalid("stuck approvals limit must be in 1..%d, got %d", MaxInFlight, limit)
	}
	entries, due := s.inFlightKeys()
	ids, err := s.rdb.ZRangeArgsWithScores(ctx, redis.ZRangeArgs{Key: due, Start: "-inf", Stop: strconv.FormatInt(ms(now), 10),
		ByScore: true, Count: int64(limit)}).Result()
	if err != nil {
		return nil, fmt.Errorf("sessions: stuck approvals: %w", err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	fields := make([]string, len(ids))
	for i, z := range ids {
		fields[i], _ = z.Member.(string)
	}
	raws, err := s.rdb.HMGet(ctx, entries, fields...).Result()
	if err != nil {
		return nil, fmt.Errorf("sessions: stuck approvals: %w", err)
	}
	out := make([]InFlight, 0, len(ids))
	for i, raw := range raws {
		str, ok := raw.(string)
		if !ok {
			continue // cleared since the range was read
		}
		e, err := decodeInFlight(fields[i], str, ids[i].Score)
		if err != nil {
			s.log.Warn("dropping an approval in flight whose record cannot be read", "job_id", fields[i], "err", err)
			_ = s.ClearInFlight(ctx, fields[i])
			continue
		}
		out = append(out, e)
	}
	return out, nil
}
