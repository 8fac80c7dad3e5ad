package sessions

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// ResultRecord says where a job's final message was posted.
type ResultRecord struct {
	JobID     string
	Channel   string
	MessageTS string
	PostedAt  time.Time
}

func (s *Store) resultKeys(jobID string) (record, claim string) {
	tag := "{" + keyPart(jobID) + "}"
	return s.key("result", tag), s.key("result", tag, "claim")
}

var claimResultScript = redis.NewScript(`
if redis.call('HEXISTS', KEYS[1], 'ts') == 1 then return 0 end
if redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[1]) then return 1 end
return 0`)

// ClaimResultPost claims the right to post jobID's result. It returns false
// when the result is already posted or another poster's claim is live.
//
// Idempotent posting protocol for a job's final message, which may run
// again on another replica after a crash:
//
//  1. GetResult: if the result is already posted, update that message
//     instead of posting a new one.
//  2. ClaimResultPost: true means "you post"; false means another poster
//     holds a live claim (or it was posted meanwhile) — return a retryable
//     error and let the queue retry later.
//  3. Post, then MarkResultPosted with the message ts. On a failed post,
//     ReleaseResultPost so the retry need not wait.
//
// A claim expires after Options.ResultClaimTTL, so a replica that dies
// between claim and mark blocks a retry for that long, never forever. The
// only window for a duplicate post is a crash after posting and before
// marking.
func (s *Store) ClaimResultPost(ctx context.Context, jobID string) (bool, error) {
	if err := checkID("job id", jobID, 512); err != nil {
		return false, err
	}
	rec, claim := s.resultKeys(jobID)
	n, err := claimResultScript.Run(ctx, s.rdb, []string{rec, claim}, s.opts.ResultClaimTTL.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("sessions: claim result post %q: %w", jobID, err)
	}
	return n == 1, nil
}

// MarkResultPosted records where jobID's result was posted and drops the claim.
func (s *Store) MarkResultPosted(ctx context.Context, jobID, channel, messageTS string) error {
	if err := checkID("job id", jobID, 512); err != nil {
		return err
	}
	if err := checkID("channel", channel, 128); err != nil {
		return err
	}
	if err := checkID("message ts", messageTS, 64); err != nil {
		return err
	}
	rec, claim := s.resultKeys(jobID)
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, rec, "job_id", jobID, "channel", channel, "ts", messageTS, "posted_at", ms(time.Now()))
		p.PExpire(ctx, rec, s.opts.ResultTTL)
		p.Del(ctx, claim)
		return nil
	})
	if err != nil {
		return fmt.Errorf("sessions: mark result posted %q: %w", jobID, err)
	}
	return nil
}

// ReleaseResultPost drops a claim after a failed post so a retry may post at
// once. Only the claimer should call it.
func (s *Store) ReleaseResultPost(ctx context.Context, jobID string) error {
	if err := checkID("job id", jobID, 512); err != nil {
		return err
	}
	_, claim := s.resultKeys(jobID)
	if err := s.rdb.Del(ctx, claim).Err(); err != nil {
		return fmt.Errorf("sessions: release result post %q: %w", jobID, err)
	}
	return nil
}

// GetResult returns where jobID's result was posted, or ErrNotFound.
func (s *Store) GetResult(ctx context.Context, jobID string) (ResultRecord, error) {
	if err := checkID("job id", jobID, 512); err != nil {
		return ResultRecord{}, err
	}
	rec, _ := s.resultKeys(jobID)
	m, err := s.rdb.HGetAll(ctx, rec).Result()
	if err != nil {
		return ResultRecord{}, fmt.Errorf("sessions: get result %q: %w", jobID, err)
	}
	if m["ts"] == "" {
		return ResultRecord{}, fmt.Errorf("result of job %q: %w", jobID, ErrNotFound)
	}
	return ResultRecord{JobID: jobID, Channel: m["channel"], MessageTS: m["ts"], PostedAt: fromMS(m["posted_at"])}, nil
}
