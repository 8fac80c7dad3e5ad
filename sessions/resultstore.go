package sessions

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// MaxResultDocBytes bounds one stored result document (a job's result as
// JSON). Callers trim what they store to fit.
const MaxResultDocBytes = 512 << 10

// ErrResultTooLarge is returned by PutResultDoc for a document over
// MaxResultDocBytes.
var ErrResultTooLarge = errors.New("sessions: result document is too large")

// Job records live in one hash per job, next to the result-posting record
// (same hash tag): "doc" holds the result document, "channel"/"msg" the
// message the job reports progress in. They expire after Options.ResultTTL.
func (s *Store) jobRecordKey(jobID string) string {
	return s.key("job", "{"+keyPart(jobID)+"}")
}

// PutResultDoc keeps a job's result document (opaque bytes, typically the
// result as JSON) for Options.ResultTTL, replacing any earlier one, so that
// later clicks (view the patch, approve, re-investigate) and a re-run of
// the job after a crash can use it without investigating again.
func (s *Store) PutResultDoc(ctx context.Context, jobID string, doc []byte) error {
	if err := checkID("job id", jobID, 512); err != nil {
		return err
	}
	if len(doc) == 0 {
		return invalid("job %q: empty result document", truncate(jobID, 80))
	}
	if len(doc) > MaxResultDocBytes {
		return fmt.Errorf("job %q: %d bytes, at most %d: %w", truncate(jobID, 80), len(doc), MaxResultDocBytes, ErrResultTooLarge)
	}
	key := s.jobRecordKey(jobID)
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, key, "doc", doc)
		p.PExpire(ctx, key, s.opts.ResultTTL)
		return nil
	})
	if err != nil {
		return fmt.Errorf("sessions: put result of job %q: %w", truncate(jobID, 80), err)
	}
	return nil
}

// ResultDoc returns a job's result document, or ErrNotFound when none was
// stored or it expired.
func (s *Store) ResultDoc(ctx context.Context, jobID string) ([]byte, error) {
	if err := checkID("job id", jobID, 512); err != nil {
		return nil, err
	}
	b, err := s.rdb.HGet(ctx, s.jobRecordKey(jobID), "doc").Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("result of job %q: %w", truncate(jobID, 80), ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("sessions: get result of job %q: %w", truncate(jobID, 80), err)
	}
	return b, nil
}

// claimJobMessageScript: KEYS record; ARGV channel, ts, ttl ms. Sets the
// message once and returns the channel and ts that are recorded.
var claimJobMessageScript = redis.NewScript(`
if redis.call('HSETNX', KEYS[1], 'msg', ARGV[2]) == 1 then
  redis.call('HSET', KEYS[1], 'channel', ARGV[1])
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return redis.call('HMGET', KEYS[1], 'channel', 'msg')`)

// ClaimJobMessage records the message a job reports its progress in, once:
// the first caller's channel and ts win, and every caller gets the winner
// back. A job re-run after a crash thus keeps updating the message the first
// run posted; a caller that lost the race should remove its own message.
func (s *Store) ClaimJobMessage(ctx context.Context, jobID, channel, ts string) (string, string, error) {
	if err := checkID("job id", jobID, 512); err != nil {
		return "", "", err
	}
	if err := checkID("channel", channel, 128); err != nil {
		return "", "", err
	}
	if err := checkID("message ts", ts, 64); err != nil {
		return "", "", err
	}
	res, err := claimJobMessageScript.Run(ctx, s.rdb, []string{s.jobRecordKey(jobID)}, channel, ts, s.opts.ResultTTL.Milliseconds()).Slice()
	if err != nil {
		return "", "", fmt.Errorf("sessions: claim message of job %q: %w", truncate(jobID, 80), err)
	}
	if len(res) != 2 {
		return "", "", fmt.Errorf("sessions: claim message of job %q: unexpected reply", truncate(jobID, 80))
	}
	return str(res[0]), str(res[1]), nil
}

// JobMessage returns the message recorded by ClaimJobMessage, or ErrNotFound.
func (s *Store) JobMessage(ctx context.Context, jobID string) (string, string, error) {
	if err := checkID("job id", jobID, 512); err != nil {
		return "", "", err
	}
	vals, err := s.rdb.HMGet(ctx, s.jobRecordKey(jobID), "channel", "msg").Result()
	if err != nil {
		return "", "", fmt.Errorf("sessions: message of job %q: %w", truncate(jobID, 80), err)
	}
	channel, ts := str(vals[0]), str(vals[1])
	if ts == "" {
		return "", "", fmt.Errorf("message of job %q: %w", truncate(jobID, 80), ErrNotFound)
	}
	return channel, ts, nil
}
