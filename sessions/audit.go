package sessions

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// The audit log of approvals is one Redis stream (<prefix>:audit) of
// AuditRecords, each naming the issue key, who, what, on which proposal and
// where, so that it reads the same for mention threads and alert threads
// and can be filtered by any of them. Stream ids are millisecond
// timestamps, so a time range is a range of ids. The stream keeps the
// latest MaxAuditRecords records.
//
// Before this log existed, each approval kept a free-text list
// (approval:{<key>}:audit), and unauthorized clicks on mention results were
// filed under "job:<job id>" while the approval used "slack-<job id>".
// ReadAudit still reads those lists (until they expire) and files both
// forms under "slack-<job id>".

// AuditAction is what an audit record says happened.
type AuditAction string

// Audit actions.
const (
	AuditApproved     AuditAction = "approved"      // a pull request was opened (or linked) for an approved fix
	AuditUpdated      AuditAction = "updated"       // an open pull request got an approved new fix
	AuditRejected     AuditAction = "rejected"      // a proposed fix was rejected
	AuditRefused      AuditAction = "refused"       // a click by someone who is not an approver was refused
	AuditFailed       AuditAction = "failed"        // an approved fix could not be pushed (retryable)
	AuditIssueCreated AuditAction = "issue_created" // a report was filed as a GitHub issue
	AuditMCPCall      AuditAction = "mcp_call"      // a tool call to AutoHeal's own MCP server (bot mcp)
)

// DecisionActions are the actions that decide on a proposed fix.
var DecisionActions = []AuditAction{AuditApproved, AuditUpdated, AuditRejected, AuditRefused, AuditFailed, AuditIssueCreated}

// AuditActions lists every action, in the order they are documented.
var AuditActions = append(append([]AuditAction(nil), DecisionActions...), AuditMCPCall)

// ParseAuditAction reads an action name.
func ParseAuditAction(s string) (AuditAction, error) {
	for _, a := range AuditActions {
		if string(a) == strings.ToLower(strings.TrimSpace(s)) {
			return a, nil
		}
	}
	names := make([]string, len(AuditActions))
	for i, a := range AuditActions {
		names[i] = string(a)
	}
	return "", invalid("unknown audit action %q (want one of %s)", truncate(s, 40), strings.Join(names, ", "))
}

// AuditRecord is one entry of the audit log.
type AuditRecord struct {
	At       time.Time   `json:"at"`
	Action   AuditAction `json:"action"`
	IssueKey string      `json:"issue_key"`
	User     string      `json:"user,omitempty"`
	// Proposal is the job id of the investigation whose fix was decided.
	Proposal string `json:"proposal,omitempty"`
	Channel  string `json:"channel,omitempty"`
	ThreadTS string `json:"thread_ts,omitempty"`
	PRNumber int    `json:"pr_number,omitempty"`
	PRURL    string `json:"pr_url,omitempty"`
	// Detail is the rejection reason, the failure, or what a refused click
	// tried to do. It must not contain secrets.
	Detail string `json:"detail,omitempty"`
	// Legacy is set on records read from the per-approval logs written
	// before this log existed (no channel or proposal, user sometimes
	// from the approval record).
	Legacy bool `json:"legacy,omitempty"`
}

// MaxAuditRecords bounds the audit stream (approximately, as XADD MAXLEN ~).
const MaxAuditRecords = 100_000

func (s *Store) auditKey() string { return s.key("audit") }

// RecordAudit appends a record to the audit log (At defaults to now).
func (s *Store) RecordAudit(ctx context.Context, rec AuditRecord) error {
	if _, err := ParseAuditAction(string(rec.Action)); err != nil {
		return err
	}
	if err := checkID("audit issue key", rec.IssueKey, 512); err != nil {
		return err
	}
	if rec.User != "" {
		if err := checkID("audit user", rec.User, 128); err != nil {
			return err
		}
	}
	if rec.At.IsZero() {
		rec.At = time.Now()
	}
	rec.At = rec.At.UTC()
	rec.Detail = truncate(rec.Detail, maxAuditLen)
	rec.PRURL = truncate(rec.PRURL, 500)
	rec.Legacy = false
	raw, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("sessions: audit record: %w", err)
	}
	// Redis picks the id from its clock; the record keeps the replica's.
	err = s.rdb.XAdd(ctx, &redis.XAddArgs{Stream: s.auditKey(), MaxLen: MaxAuditRecords, Approx: true, Values: []any{"r", string(raw)}}).Err()
	if err != nil {
		return fmt.Errorf("sessions: record audit %s of %q: %w", rec.Action, rec.IssueKey, err)
	}
	return nil
}

// AuditQuery selects audit records; zero fields select everything.
type AuditQuery struct {
	IssueKey string
	Channel  string
	User     string
	Actions  []AuditAction
	// Since and Until bound the records' time (Until exclusive).
	Since, Until time.Time
	// Limit keeps the latest Limit matching records (0: all).
	Limit int
}

func (q AuditQuery) match(r AuditRecord) bool {
	switch {
	case q.IssueKey != "" && r.IssueKey != q.IssueKey,
		q.Channel != "" && r.Channel != q.Channel,
		q.User != "" && r.User != q.User,
		!q.Since.IsZero() && r.At.Before(q.Since),
		!q.Until.IsZero() && !r.At.Before(q.Until):
		return false
	}
	if len(q.Actions) == 0 {
		return true
	}
	for _, a := range q.Actions {
		if r.Action == a {
			return true
		}
	}
	return false
}

// auditPage is how many stream entries one read fetches.
const auditPage = 500

// ReadAudit returns the matching records, oldest first: the audit stream
// and the legacy per-approval logs.
func (s *Store) ReadAudit(ctx context.Context, q AuditQuery) ([]AuditRecord, error) {
	if q.Limit < 0 {
		return nil, invalid("negative audit limit")
	}
	out, err := s.readAuditStream(ctx, q)
	if err != nil {
		return nil, err
	}
	legacy, err := s.readLegacyAudit(ctx, q)
	if err != nil {
		return nil, err
	}
	out = append(out, legacy...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[len(out)-q.Limit:]
	}
	return out, nil
}

// auditClockSlack is how far a record's time (the replica's clock) may be
// from its stream id (the Redis server's clock) when a read stops early.
const auditClockSlack = time.Minute

// readAuditStream walks the stream newest first, so that a Limit or the
// start of the time range ends the walk early.
func (s *Store) readAuditStream(ctx context.Context, q AuditQuery) ([]AuditRecord, error) {
	var out []AuditRecord
	end := "+"
	stop := int64(-1)
	if !q.Since.IsZero() {
		stop = q.Since.Add(-auditClockSlack).UnixMilli()
	}
walk:
	for {
		msgs, err := s.rdb.XRevRangeN(ctx, s.auditKey(), end, "-", auditPage).Result()
		if err != nil {
			return nil, fmt.Errorf("sessions: read audit log: %w", err)
		}
		for _, m := range msgs {
			if idMS(m.ID) < stop {
				break walk
			}
			raw, _ := m.Values["r"].(string)
			var r AuditRecord
			if json.Unmarshal([]byte(raw), &r) != nil {
				continue // not ours; the log is append-only and advisory
			}
			if q.match(r) {
				out = append(out, r)
			}
		}
		if len(msgs) < auditPage || (q.Limit > 0 && len(out) >= q.Limit) {
			break
		}
		end = "(" + msgs[len(msgs)-1].ID
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// idMS is the millisecond part of a stream id.
func idMS(id string) int64 {
	ms, _, _ := strings.Cut(id, "-")
	n, _ := strconv.ParseInt(ms, 10, 64)
	return n
}

// AuditLog returns the audit records of one issue key, oldest first.
func (s *Store) AuditLog(ctx context.Context, key string) ([]AuditRecord, error) {
	if err := checkID("approval key", key, 512); err != nil {
		return nil, err
	}
	return s.ReadAudit(ctx, AuditQuery{IssueKey: key})
}

// Entries of the legacy free-text logs that were decisions (clicks and
// steps were logged too; they are not decisions).
var (
	legacyApproved = regexp.MustCompile(`^approved: PR #(\d+)$`)
	legacyRejected = regexp.MustCompile(`^rejected by (\S+?)(?:: (.*))?$`)
	legacyFailed   = regexp.MustCompile(`^failed: (.*)$`)
	legacyRefused  = regexp.MustCompile(`^unauthorized (.+?)(?: click)? by (\S+)(?: refused)?$`)
)

// readLegacyAudit reads the per-approval free-text logs.
func (s *Store) readLegacyAudit(ctx context.Context, q AuditQuery) ([]AuditRecord, error) {
	pattern := globEscape(s.key("approval")) + ":{*}:audit"
	var out []AuditRecord
	iter := s.rdb.Scan(ctx, 0, pattern, 200).Iterator()
	for iter.Next(ctx) {
		name := iter.Val()
		part := strings.TrimSuffix(strings.TrimPrefix(name, s.key("approval")+":{"), "}:audit")
		recs, err := s.legacyRecords(ctx, name, part)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			if q.match(r) {
				out = append(out, r)
			}
		}
	}
	if err := iter.Err(); err != nil {
		return nil, fmt.Errorf("sessions: scan legacy audit logs: %w", err)
	}
	return out, nil
}

// legacyRecords parses one legacy log. part is the key as it appears in
// the Redis key name (hashed when the issue key had unusual characters).
func (s *Store) legacyRecords(ctx context.Context, name, part string) ([]AuditRecord, error) {
	raw, err := s.rdb.LRange(ctx, name, 0, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("sessions: read legacy audit log: %w", err)
	}
	key := part
	if id, ok := strings.CutPrefix(part, "job:"); ok {
		key = "slack-" + id // the bot's refusals and its approvals of one mention result
	}
	var by, prURL, channel string
	if a, err := s.GetApproval(ctx, part); err == nil {
		by, prURL, channel = a.By, a.PRURL, a.Channel
	}
	if channel == "" {
		channel = s.legacyChannel(ctx, key)
	}
	var out []AuditRecord
	for _, line := range raw {
		var e struct {
			At    time.Time `json:"at"`
			Entry string    `json:"entry"`
		}
		if json.Unmarshal([]byte(line), &e) != nil {
			continue
		}
		r := AuditRecord{At: e.At.UTC(), IssueKey: key, Channel: channel, Legacy: true}
		if m := legacyApproved.FindStringSubmatch(e.Entry); m != nil {
			r.Action, r.User, r.PRNumber = AuditApproved, by, atoi(m[1])
			if strings.HasSuffix(prURL, "/"+m[1]) {
				r.PRURL = prURL
			}
		} else if m := legacyRejected.FindStringSubmatch(e.Entry); m != nil {
			r.Action, r.User, r.Detail = AuditRejected, m[1], m[2]
		} else if m := legacyFailed.FindStringSubmatch(e.Entry); m != nil {
			r.Action, r.User, r.Detail = AuditFailed, by, m[1]
		} else if m := legacyRefused.FindStringSubmatch(e.Entry); m != nil {
			r.Action, r.User, r.Detail = AuditRefused, m[2], m[1]
		} else {
			continue
		}
		out = append(out, r)
	}
	return out, nil
}

// legacyChannel finds the channel of a legacy record's thread: the result
// of a mention's job, or an alert's incident.
func (s *Store) legacyChannel(ctx context.Context, key string) string {
	if id, ok := strings.CutPrefix(key, "slack-"); ok {
		if rec, err := s.GetResult(ctx, id); err == nil {
			return rec.Channel
		}
		return ""
	}
	if inc, err := s.GetIncident(ctx, key); err == nil {
		return inc.Channel
	}
	return ""
}

// globEscape quotes the glob characters of a literal for SCAN MATCH.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '*', '?', '[', ']', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
