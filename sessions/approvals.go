package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// ApprovalState is where a proposed fix stands in the pull-request flow.
type ApprovalState string

const (
	ApprovalPending   ApprovalState = "pending"
	ApprovalApproving ApprovalState = "approving"
	ApprovalApproved  ApprovalState = "approved"
	ApprovalRejected  ApprovalState = "rejected"
	ApprovalFailed    ApprovalState = "failed"
)

// Step is the last GitHub step completed, so a resumed approval skips it.
type Step string

const (
	StepBranch Step = "branch"
	StepCommit Step = "commit"
	StepPR     Step = "pr"
)

var (
	// ErrInvalidTransition is returned when an approval is not in a state
	// that allows the operation (reject after approve, for example).
	ErrInvalidTransition = errors.New("sessions: approval state does not allow this")
	// ErrLeaseLost is returned when the caller no longer holds the approving
	// lease (it expired and another replica resumed, or the flow ended).
	ErrLeaseLost = errors.New("sessions: approval lease is no longer held")
)

// Approval is the record behind an Approve/Reject button pair.
type Approval struct {
	Key       string
	State     ApprovalState
	By        string // who approved or rejected
	Reason    string // rejection reason
	Branch    string
	PRNumber  int
	PRURL     string
	Step      Step   // last completed GitHub step
	Error     string // last failure, kept for the retry
	UpdatedAt time.Time
	// Lease is set by BeginApproval for the caller that started; pass it to
	// RecordStep, CompleteApproval and FailApproval. Empty otherwise.
	Lease string
}

// AuditEntry is one line of an approval's audit log.
type AuditEntry struct {
	At    time.Time `json:"at"`
	Entry string    `json:"entry"`
}

const (
	maxAuditEntries = 200
	maxAuditLen     = 500
	maxErrorLen     = 2000
)

func (s *Store) approvalKeys(key string) (record, audit string) {
	tag := "{" + keyPart(key) + "}"
	return s.key("approval", tag), s.key("approval", tag, "audit")
}

func parseApproval(key string, m map[string]string) Approval {
	a := Approval{
		Key:       key,
		State:     ApprovalState(m["state"]),
		By:        m["by"],
		Reason:    m["reason"],
		Branch:    m["branch"],
		PRNumber:  atoi(m["pr_number"]),
		PRURL:     m["pr_url"],
		Step:      Step(m["step"]),
		Error:     m["error"],
		UpdatedAt: fromMS(m["updated_at"]),
	}
	if a.State == "" {
		a.State = ApprovalPending
	}
	return a
}

func auditJSON(at time.Time, entry string) string {
	b, _ := json.Marshal(AuditEntry{At: at.UTC(), Entry: truncate(entry, maxAuditLen)})
	return string(b)
}

// Common Lua prologue: ARGV[1] now ms, ARGV[2] ttl ms, ARGV[3] audit json,
// ARGV[4] audit max. audit() appends to the bounded log.
const approvalLuaPrologue = `
local now = tonumber(ARGV[1])
local function audit()
  redis.call('RPUSH', KEYS[2], ARGV[3])
  redis.call('LTRIM', KEYS[2], -tonumber(ARGV[4]), -1)
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
end
local function touch()
  redis.call('HSET', KEYS[1], 'updated_at', ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
local state = redis.call('HGET', KEYS[1], 'state') or 'pending'
`

// beginScript: ARGV[5] user, ARGV[6] lease token, ARGV[7] lease ms.
// Returns {started, HGETALL}.
var beginApprovalScript = redis.NewScript(approvalLuaPrologue + `
local ok = state == 'pending' or state == 'failed'
if state == 'approving' then
  local untilMs = tonumber(redis.call('HGET', KEYS[1], 'lease_until') or '0') or 0
  ok = untilMs <= now
end
if not ok then return {0, redis.call('HGETALL', KEYS[1])} end
redis.call('HSET', KEYS[1], 'state', 'approving', 'by', ARGV[5], 'lease', ARGV[6],
  'lease_until', string.format('%d', now + tonumber(ARGV[7])))
touch()
audit()
return {1, redis.call('HGETALL', KEYS[1])}
`)

// leasedScript runs an update only for the current lease holder.
// ARGV[5] lease token, ARGV[6] lease ms, ARGV[7] op, ARGV[8..] fields.
// Returns {status, HGETALL}: 1 done, 0 lease lost.
var leasedApprovalScript = redis.NewScript(approvalLuaPrologue + `
if state ~= 'approving' or redis.call('HGET', KEYS[1], 'lease') ~= ARGV[5] then
  return {0, redis.call('HGETALL', KEYS[1])}
end
local op = ARGV[7]
if op == 'step' then
  redis.call('HSET', KEYS[1], 'step', ARGV[8], 'lease_until', string.format('%d', now + tonumber(ARGV[6])))
  if ARGV[9] ~= '' then redis.call('HSET', KEYS[1], 'branch', ARGV[9]) end
  if ARGV[10] ~= '0' then redis.call('HSET', KEYS[1], 'pr_number', ARGV[10]) end
  if ARGV[11] ~= '' then redis.call('HSET', KEYS[1], 'pr_url', ARGV[11]) end
elseif op == 'complete' then
  redis.call('HSET', KEYS[1], 'state', 'approved', 'step', 'pr', 'pr_number', ARGV[8], 'pr_url', ARGV[9])
  redis.call('HDEL', KEYS[1], 'lease', 'lease_until', 'error')
elseif op == 'fail' then
  redis.call('HSET', KEYS[1], 'state', 'failed', 'error', ARGV[8])
  redis.call('HDEL', KEYS[1], 'lease', 'lease_until')
end
touch()
audit()
return {1, redis.call('HGETALL', KEYS[1])}
`)

// rejectScript: ARGV[5] user, ARGV[6] reason. Returns {ok, HGETALL}.
var rejectApprovalScript = redis.NewScript(approvalLuaPrologue + `
if state ~= 'pending' and state ~= 'failed' then return {0, redis.call('HGETALL', KEYS[1])} end
redis.call('HSET', KEYS[1], 'state', 'rejected', 'by', ARGV[5], 'reason', ARGV[6])
redis.call('HDEL', KEYS[1], 'lease', 'lease_until')
touch()
audit()
return {1, redis.call('HGETALL', KEYS[1])}
`)

func (s *Store) runApproval(ctx context.Context, op string, script *redis.Script, key, entry string, args ...any) (bool, Approval, error) {
	if err := checkID("approval key", key, 512); err != nil {
		return false, Approval{}, err
	}
	rec, audit := s.approvalKeys(key)
	now := time.Now()
	all := append([]any{ms(now), s.opts.ApprovalTTL.Milliseconds(), auditJSON(now, entry), maxAuditEntries}, args...)
	res, err := script.Run(ctx, s.rdb, []string{rec, audit}, all...).Slice()
	if err != nil {
		return false, Approval{}, fmt.Errorf("sessions: %s approval %q: %w", op, key, err)
	}
	if len(res) != 2 {
		return false, Approval{}, fmt.Errorf("sessions: %s approval %q: unexpected reply", op, key)
	}
	m, err := pairs(res[1])
	if err != nil {
		return false, Approval{}, err
	}
	return res[0] == int64(1), parseApproval(key, m), nil
}

// BeginApproval moves an approval from pending or failed (or from an
// approving state whose lease expired) to approving, for user. started is
// false when another click or replica is already approving, or the fix is
// already approved or rejected: double clicks and two replicas yield one
// pull request. A missing record counts as pending. When started, the
// returned Approval carries the Lease and the Step to resume after.
func (s *Store) BeginApproval(ctx context.Context, key, user string) (Approval, bool, error) {
	if err := checkID("user", user, 128); err != nil {
		return Approval{}, false, err
	}
	lease, err := randomToken()
	if err != nil {
		return Approval{}, false, err
	}
	ok, a, err := s.runApproval(ctx, "begin", beginApprovalScript, key, "approve clicked by "+user,
		user, lease, s.opts.ApprovalLease.Milliseconds())
	if err != nil {
		return Approval{}, false, err
	}
	if ok {
		a.Lease = lease
	}
	return a, ok, nil
}

// StepUpdate carries what a completed GitHub step produced; empty fields
// are left unchanged.
type StepUpdate struct {
	Branch   string
	PRNumber int
	PRURL    string
}

// RecordStep records the last completed GitHub step and extends the lease.
func (s *Store) RecordStep(ctx context.Context, key, lease string, step Step, upd StepUpdate) (Approval, error) {
	switch step {
	case StepBranch, StepCommit, StepPR:
	default:
		return Approval{}, invalid("unknown approval step %q", step)
	}
	if upd.PRNumber < 0 {
		return Approval{}, invalid("negative PR number")
	}
	return s.leased(ctx, "record step", key, lease, "step "+string(step)+" done", "step",
		string(step), truncate(upd.Branch, 255), upd.PRNumber, truncate(upd.PRURL, 500))
}

// CompleteApproval marks the fix approved with its pull request.
func (s *Store) CompleteApproval(ctx context.Context, key, lease string, prNumber int, prURL string) (Approval, error) {
	if prNumber <= 0 {
		return Approval{}, invalid("PR number must be positive, got %d", prNumber)
	}
	return s.leased(ctx, "complete", key, lease, fmt.Sprintf("approved: PR #%d", prNumber), "complete",
		prNumber, truncate(prURL, 500))
}

// FailApproval returns the approval to a retryable state (failed), keeping
// the error, the branch and the last step for the next attempt. The error
// text is stored and shown: it must not contain secrets.
func (s *Store) FailApproval(ctx context.Context, key, lease, errMsg string) (Approval, error) {
	if errMsg == "" {
		errMsg = "unknown error"
	}
	return s.leased(ctx, "fail", key, lease, "failed: "+errMsg, "fail", truncate(errMsg, maxErrorLen))
}

func (s *Store) leased(ctx context.Context, op, key, lease, entry string, args ...any) (Approval, error) {
	if lease == "" {
		return Approval{}, fmt.Errorf("%s approval %q: empty lease: %w", op, key, ErrLeaseLost)
	}
	all := append([]any{lease, s.opts.ApprovalLease.Milliseconds()}, args...)
	ok, a, err := s.runApproval(ctx, op, leasedApprovalScript, key, entry, all...)
	if err != nil {
		return Approval{}, err
	}
	if !ok {
		return a, fmt.Errorf("%s approval %q (state %s): %w", op, key, a.State, ErrLeaseLost)
	}
	return a, nil
}

// Reject rejects a pending or failed approval. From any other state it
// returns the current approval and ErrInvalidTransition.
func (s *Store) Reject(ctx context.Context, key, user, reason string) (Approval, error) {
	if err := checkID("user", user, 128); err != nil {
		return Approval{}, err
	}
	reason = truncate(reason, maxAuditLen)
	entry := "rejected by " + user
	if reason != "" {
		entry += ": " + reason
	}
	ok, a, err := s.runApproval(ctx, "reject", rejectApprovalScript, key, entry, user, reason)
	if err != nil {
		return Approval{}, err
	}
	if !ok {
		return a, fmt.Errorf("reject approval %q in state %s: %w", key, a.State, ErrInvalidTransition)
	}
	return a, nil
}

// GetApproval returns an approval, or ErrNotFound.
func (s *Store) GetApproval(ctx context.Context, key string) (Approval, error) {
	if err := checkID("approval key", key, 512); err != nil {
		return Approval{}, err
	}
	rec, _ := s.approvalKeys(key)
	m, err := s.rdb.HGetAll(ctx, rec).Result()
	if err != nil {
		return Approval{}, fmt.Errorf("sessions: get approval %q: %w", key, err)
	}
	if len(m) == 0 {
		return Approval{}, fmt.Errorf("approval %q: %w", key, ErrNotFound)
	}
	return parseApproval(key, m), nil
}

// Audit appends an entry (an unauthorized click, for example) to an
// approval's audit log, which keeps the latest 200 entries.
func (s *Store) Audit(ctx context.Context, key, entry string) error {
	if err := checkID("approval key", key, 512); err != nil {
		return err
	}
	if entry == "" {
		return invalid("empty audit entry")
	}
	_, audit := s.approvalKeys(key)
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.RPush(ctx, audit, auditJSON(time.Now(), entry))
		p.LTrim(ctx, audit, -maxAuditEntries, -1)
		p.PExpire(ctx, audit, s.opts.ApprovalTTL)
		return nil
	})
	if err != nil {
		return fmt.Errorf("sessions: audit approval %q: %w", key, err)
	}
	return nil
}

// AuditLog returns an approval's audit log, oldest first.
func (s *Store) AuditLog(ctx context.Context, key string) ([]AuditEntry, error) {
	if err := checkID("approval key", key, 512); err != nil {
		return nil, err
	}
	_, audit := s.approvalKeys(key)
	raw, err := s.rdb.LRange(ctx, audit, 0, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("sessions: audit log of approval %q: %w", key, err)
	}
	out := make([]AuditEntry, 0, len(raw))
	for _, r := range raw {
		var e AuditEntry
		if err := json.Unmarshal([]byte(r), &e); err != nil {
			continue // foreign entry; the log is advisory
		}
		out = append(out, e)
	}
	return out, nil
}
