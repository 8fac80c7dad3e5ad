package sessions

import (
	"context"
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

// Approval is the record of an issue key's fix: the latest decision on a
// proposal (who approved or rejected which proposal, where) and the pull
// request the key has.
type Approval struct {
	Key   string
	State ApprovalState
	By    string // who approved or rejected
	// Proposal names the proposed change the state is about (the job id of
	// the investigation that proposed it); empty in records written before
	// proposals were recorded.
	Proposal string
	// Channel and ThreadTS are where the decision was made.
	Channel   string
	ThreadTS  string
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
	// LeaseUntil is when an approving state's lease runs out (another
	// click or replica may then resume it); zero in other states.
	LeaseUntil time.Time
}

// Actor is who acts on an approval, on which proposal, and where; the
// audit log records it with every decision. Proposal may be empty (a
// caller that does not name proposals): such a click never re-decides an
// approved or rejected key.
type Actor struct {
	User     string
	Proposal string
	Channel  string
	ThreadTS string
}

// Completion is what a finished approval produced: the pull request (or,
// for "Create issue" records, the issue) and how it is audited.
type Completion struct {
	PRNumber int
	PRURL    string
	// Action is AuditApproved (a pull request opened or linked),
	// AuditUpdated (an open pull request got the approved change) or
	// AuditIssueCreated; default AuditApproved.
	Action AuditAction
}

const (
	maxAuditLen = 500
	maxErrorLen = 2000
)

func (s *Store) approvalKeys(key string) (record, legacyAudit string) {
	tag := "{" + keyPart(key) + "}"
	return s.key("approval", tag), s.key("approval", tag, "audit")
}

func parseApproval(key string, m map[string]string) Approval {
	a := Approval{
		Key:       key,
		State:     ApprovalState(m["state"]),
		By:        m["by"],
		Proposal:  m["proposal"],
		Channel:   m["channel"],
		ThreadTS:  m["thread_ts"],
		Reason:    m["reason"],
		Branch:    m["branch"],
		PRNumber:  atoi(m["pr_number"]),
		PRURL:     m["pr_url"],
		Step:      Step(m["step"]),
		Error:     m["error"],
		UpdatedAt: fromMS(m["updated_at"]),
	}
	if a.State == ApprovalApproving {
		a.LeaseUntil = fromMS(m["lease_until"])
	}
	if a.State == "" {
		a.State = ApprovalPending
	}
	return a
}

// Common Lua prologue: ARGV[1] now ms, ARGV[2] ttl ms. decided() says
// whether the key's latest decision (approved or rejected) may be taken
// again for the proposal ARGV[p]: only for a named proposal other than the
// one decided.
const approvalLuaPrologue = `
local now = tonumber(ARGV[1])
local function touch()
  redis.call('HSET', KEYS[1], 'updated_at', ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
local state = redis.call('HGET', KEYS[1], 'state') or 'pending'
local function newProposal(p)
  return p ~= '' and p ~= (redis.call('HGET', KEYS[1], 'proposal') or '')
end
local function actor(user, proposal, channel, thread)
  redis.call('HSET', KEYS[1], 'by', user, 'channel', channel, 'thread_ts', thread)
  if proposal ~= '' then redis.call('HSET', KEYS[1], 'proposal', proposal) end
end
`

// beginScript: ARGV[3] user, ARGV[4] proposal, ARGV[5] channel, ARGV[6]
// thread, ARGV[7] lease token, ARGV[8] lease ms. Returns {started, HGETALL}.
var beginApprovalScript = redis.NewScript(approvalLuaPrologue + `
local ok = state == 'pending' or state == 'failed'
if state == 'approving' then
  local untilMs = tonumber(redis.call('HGET', KEYS[1], 'lease_until') or '0') or 0
  ok = untilMs <= now
elseif state == 'approved' or state == 'rejected' then
  ok = newProposal(ARGV[4])
  if ok then redis.call('HDEL', KEYS[1], 'step', 'reason', 'error') end
end
if not ok then return {0, redis.call('HGETALL', KEYS[1])} end
actor(ARGV[3], ARGV[4], ARGV[5], ARGV[6])
redis.call('HSET', KEYS[1], 'state', 'approving', 'lease', ARGV[7],
  'lease_until', string.format('%d', now + tonumber(ARGV[8])))
touch()
return {1, redis.call('HGETALL', KEYS[1])}
`)

// leasedScript runs an update only for the current lease holder.
// ARGV[3] lease token, ARGV[4] lease ms, ARGV[5] op, ARGV[6..] fields.
// Returns {status, HGETALL}: 1 done, 0 lease lost.
var leasedApprovalScript = redis.NewScript(approvalLuaPrologue + `
if state ~= 'approving' or redis.call('HGET', KEYS[1], 'lease') ~= ARGV[3] then
  return {0, redis.call('HGETALL', KEYS[1])}
end
local op = ARGV[5]
if op == 'step' then
  redis.call('HSET', KEYS[1], 'step', ARGV[6], 'lease_until', string.format('%d', now + tonumber(ARGV[4])))
  if ARGV[7] ~= '' then redis.call('HSET', KEYS[1], 'branch', ARGV[7]) end
  if ARGV[8] ~= '0' then redis.call('HSET', KEYS[1], 'pr_number', ARGV[8]) end
  if ARGV[9] ~= '' then redis.call('HSET', KEYS[1], 'pr_url', ARGV[9]) end
elseif op == 'complete' then
  redis.call('HSET', KEYS[1], 'state', 'approved', 'step', 'pr', 'pr_number', ARGV[6], 'pr_url', ARGV[7])
  redis.call('HDEL', KEYS[1], 'lease', 'lease_until', 'error')
elseif op == 'fail' then
  redis.call('HSET', KEYS[1], 'state', 'failed', 'error', ARGV[6])
  redis.call('HDEL', KEYS[1], 'lease', 'lease_until')
end
touch()
return {1, redis.call('HGETALL', KEYS[1])}
`)

// rejectScript: ARGV[3] user, ARGV[4] proposal, ARGV[5] channel, ARGV[6]
// thread, ARGV[7] reason. Returns {ok, HGETALL}.
var rejectApprovalScript = redis.NewScript(approvalLuaPrologue + `
local ok = state == 'pending' or state == 'failed'
if state == 'approved' or state == 'rejected' then ok = newProposal(ARGV[4]) end
if not ok then return {0, redis.call('HGETALL', KEYS[1])} end
actor(ARGV[3], ARGV[4], ARGV[5], ARGV[6])
redis.call('HSET', KEYS[1], 'state', 'rejected', 'reason', ARGV[7])
redis.call('HDEL', KEYS[1], 'lease', 'lease_until', 'step', 'error')
touch()
return {1, redis.call('HGETALL', KEYS[1])}
`)

func (s *Store) runApproval(ctx context.Context, op string, script *redis.Script, key string, args ...any) (bool, Approval, error) {
	if err := checkID("approval key", key, 512); err != nil {
		return false, Approval{}, err
	}
	rec, _ := s.approvalKeys(key)
	all := append([]any{ms(time.Now()), s.opts.ApprovalTTL.Milliseconds()}, args...)
	res, err := script.Run(ctx, s.rdb, []string{rec}, all...).Slice()
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
// approving state whose lease expired) to approving, for by.User. A key
// whose fix was approved or rejected starts again only for another named
// proposal (a re-investigation's fix, the update of an open pull request,
// a regression's new fix): the same proposal clicked twice, on one replica
// or two, yields one pull request. started is false when another click or
// replica is approving, or this proposal is decided already. A missing
// record counts as pending. When started, the returned Approval carries
// the Lease, the Branch and PR of the key, and the Step to resume after.
func (s *Store) BeginApproval(ctx context.Context, key string, by Actor) (Approval, bool, error) {
	if err := by.validate(); err != nil {
		return Approval{}, false, err
	}
	lease, err := randomToken()
	if err != nil {
		return Approval{}, false, err
	}
	ok, a, err := s.runApproval(ctx, "begin", beginApprovalScript, key,
		by.User, by.Proposal, by.Channel, by.ThreadTS, lease, s.opts.ApprovalLease.Milliseconds())
	if err != nil {
		return Approval{}, false, err
	}
	if ok {
		a.Lease = lease
	}
	return a, ok, nil
}

func (by Actor) validate() error {
	if err := checkID("user", by.User, 128); err != nil {
		return err
	}
	for _, f := range []struct{ what, v string }{{"proposal", by.Proposal}, {"channel", by.Channel}, {"thread", by.ThreadTS}} {
		if f.v == "" {
			continue
		}
		if err := checkID(f.what, f.v, 200); err != nil {
			return err
		}
	}
	return nil
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
	return s.leased(ctx, "record step", key, lease, "step",
		string(step), truncate(upd.Branch, 255), upd.PRNumber, truncate(upd.PRURL, 500))
}

// CompleteApproval marks the fix approved with its pull request, and
// audits it (done.Action) with who approved which proposal where.
func (s *Store) CompleteApproval(ctx context.Context, key, lease string, done Completion) (Approval, error) {
	if done.PRNumber <= 0 {
		return Approval{}, invalid("PR number must be positive, got %d", done.PRNumber)
	}
	switch done.Action {
	case "":
		done.Action = AuditApproved
	case AuditApproved, AuditUpdated, AuditIssueCreated:
	default:
		return Approval{}, invalid("completion action %q", done.Action)
	}
	a, err := s.leased(ctx, "complete", key, lease, "complete", done.PRNumber, truncate(done.PRURL, 500))
	if err != nil {
		return a, err
	}
	s.auditDecision(ctx, a, done.Action, "")
	return a, nil
}

// FailApproval returns the approval to a retryable state (failed), keeping
// the error, the branch and the last step for the next attempt, and
// audits the failure. The error text is stored and shown: it must not
// contain secrets.
func (s *Store) FailApproval(ctx context.Context, key, lease, errMsg string) (Approval, error) {
	if errMsg == "" {
		errMsg = "unknown error"
	}
	a, err := s.leased(ctx, "fail", key, lease, "fail", truncate(errMsg, maxErrorLen))
	if err != nil {
		return a, err
	}
	s.auditDecision(ctx, a, AuditFailed, a.Error)
	return a, nil
}

func (s *Store) leased(ctx context.Context, op, key, lease string, args ...any) (Approval, error) {
	if lease == "" {
		return Approval{}, fmt.Errorf("%s approval %q: empty lease: %w", op, key, ErrLeaseLost)
	}
	all := append([]any{lease, s.opts.ApprovalLease.Milliseconds()}, args...)
	ok, a, err := s.runApproval(ctx, op, leasedApprovalScript, key, all...)
	if err != nil {
		return Approval{}, err
	}
	if !ok {
		return a, fmt.Errorf("%s approval %q (state %s): %w", op, key, a.State, ErrLeaseLost)
	}
	return a, nil
}

// Reject rejects a pending or failed approval, or a new proposal of a key
// whose earlier proposal was approved or rejected (the pull request, if
// any, stays recorded), and audits it. Otherwise (opening in progress, the
// same proposal decided) it returns the current approval and
// ErrInvalidTransition.
func (s *Store) Reject(ctx context.Context, key string, by Actor, reason string) (Approval, error) {
	if err := by.validate(); err != nil {
		return Approval{}, err
	}
	reason = truncate(reason, maxAuditLen)
	ok, a, err := s.runApproval(ctx, "reject", rejectApprovalScript, key, by.User, by.Proposal, by.Channel, by.ThreadTS, reason)
	if err != nil {
		return Approval{}, err
	}
	if !ok {
		return a, fmt.Errorf("reject approval %q in state %s: %w", key, a.State, ErrInvalidTransition)
	}
	s.auditDecision(ctx, a, AuditRejected, reason)
	return a, nil
}

// auditDecision records a decision taken on a: an audit failure is
// logged, never undoes the decision.
func (s *Store) auditDecision(ctx context.Context, a Approval, action AuditAction, detail string) {
	rec := AuditRecord{Action: action, IssueKey: a.Key, User: a.By, Proposal: a.Proposal, Channel: a.Channel,
		ThreadTS: a.ThreadTS, PRNumber: a.PRNumber, PRURL: a.PRURL, Detail: detail}
	if action == AuditRejected || action == AuditFailed {
		rec.PRNumber, rec.PRURL = 0, ""
	}
	if err := s.RecordAudit(context.WithoutCancel(ctx), rec); err != nil {
		s.log.Warn("approval decision not audited", "issue_key", a.Key, "action", action, "err", err)
	}
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
