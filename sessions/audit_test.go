package sessions

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAuditQueryFilters(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb)})
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	recs := []AuditRecord{
		{At: t0, Action: AuditRefused, IssueKey: "slack-C1-1.1", User: "U9", Channel: "C1", ThreadTS: "1.1", Detail: "approve"},
		{At: t0.Add(time.Minute), Action: AuditApproved, IssueKey: "slack-C1-1.1", User: "U1", Channel: "C1", ThreadTS: "1.1", Proposal: "m-1", PRNumber: 3},
		{At: t0.Add(2 * time.Minute), Action: AuditRejected, IssueKey: "alert-k", User: "U2", Channel: "C2", ThreadTS: "2.2", Proposal: "ai-1", Detail: "wrong"},
		{At: t0.Add(3 * time.Minute), Action: AuditUpdated, IssueKey: "alert-k", User: "U1", Channel: "C2", ThreadTS: "2.2", Proposal: "ai-2", PRNumber: 4},
	}
	for _, r := range recs {
		require.NoError(t, s.RecordAudit(ctx, r))
	}
	actions := func(q AuditQuery) []string {
		t.Helper()
		got, err := s.ReadAudit(ctx, q)
		require.NoError(t, err)
		var out []string
		for _, r := range got {
			out = append(out, string(r.Action))
		}
		return out
	}
	assert.Equal(t, []string{"refused", "approved", "rejected", "updated"}, actions(AuditQuery{}))
	assert.Equal(t, []string{"rejected", "updated"}, actions(AuditQuery{IssueKey: "alert-k"}))
	assert.Equal(t, []string{"refused", "approved"}, actions(AuditQuery{Channel: "C1"}))
	assert.Equal(t, []string{"approved", "updated"}, actions(AuditQuery{User: "U1"}))
	assert.Equal(t, []string{"refused", "rejected"}, actions(AuditQuery{Actions: []AuditAction{AuditRefused, AuditRejected}}))
	assert.Equal(t, []string{"approved", "rejected"}, actions(AuditQuery{Since: t0.Add(time.Minute), Until: t0.Add(3 * time.Minute)}))
	assert.Equal(t, []string{"rejected", "updated"}, actions(AuditQuery{Limit: 2}), "the latest ones")
	assert.Empty(t, actions(AuditQuery{User: "U1", Actions: []AuditAction{AuditRefused}}))

	got, err := s.AuditLog(ctx, "alert-k")
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, recs[2], got[0], "records read back as written")

	for _, bad := range []AuditRecord{{Action: "merged", IssueKey: "k"}, {Action: AuditApproved}, {Action: AuditApproved, IssueKey: "k", User: "U\n1"}} {
		assert.ErrorIs(t, s.RecordAudit(ctx, bad), ErrInvalidArgument)
	}
	_, err = ParseAuditAction("approve")
	assert.ErrorContains(t, err, "want one of approved, updated, rejected, refused, failed, issue_created, mcp_call")
	_, err = s.ReadAudit(ctx, AuditQuery{Limit: -1})
	assert.ErrorIs(t, err, ErrInvalidArgument)
}

// The audit stream pages through more records than one read returns.
func TestAuditReadsPastOnePage(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb)})
	n, k1 := auditPage+30, 0
	for i := range n {
		require.NoError(t, s.RecordAudit(ctx, AuditRecord{Action: AuditRefused, IssueKey: fmt.Sprintf("k%d", i%3), User: "U1"}))
		if i%3 == 1 {
			k1++
		}
	}
	all, err := s.ReadAudit(ctx, AuditQuery{})
	require.NoError(t, err)
	assert.Len(t, all, n)
	some, err := s.ReadAudit(ctx, AuditQuery{IssueKey: "k1"})
	require.NoError(t, err)
	assert.Len(t, some, k1)
}

// Records written before the audit stream (free-text lists per approval,
// mention refusals under "job:<id>") are read too, under one key form.
func TestLegacyAuditLogsAreRead(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb)})
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	legacy := func(key string, entries ...string) {
		_, list := s.approvalKeys(key)
		for i, e := range entries {
			b, err := json.Marshal(map[string]any{"at": at.Add(time.Duration(i) * time.Second), "entry": e})
			require.NoError(t, err)
			require.NoError(t, rdb.RPush(ctx, list, string(b)).Err())
		}
	}
	// A mention result: the bot filed the refusal under job:, the approval under slack-.
	legacy("job:m-42", "unauthorized approve by U9")
	legacy("slack-m-42", "approve clicked by U1", "step branch done", "approved: PR #5")
	rec, _ := s.approvalKeys("slack-m-42")
	require.NoError(t, rdb.HSet(ctx, rec, "state", "approved", "by", "U1", "pr_number", "5", "pr_url", "https://github.example/a/b/pull/5").Err())
	require.NoError(t, s.MarkResultPosted(ctx, "m-42", "C0INC", "1700000000.000100"))
	// An alert's approval.
	legacy("alertk", "unauthorized reject click by U8 refused", "rejected by U2: roll back instead", "failed: GitHub refused")

	got, err := s.ReadAudit(ctx, AuditQuery{IssueKey: "slack-m-42"})
	require.NoError(t, err)
	require.Len(t, got, 2, "clicks and steps are not decisions")
	assert.Equal(t, AuditRecord{At: at, Action: AuditRefused, IssueKey: "slack-m-42", User: "U9", Channel: "C0INC", Detail: "approve", Legacy: true}, got[0])
	assert.Equal(t, AuditRecord{At: at.Add(2 * time.Second), Action: AuditApproved, IssueKey: "slack-m-42", User: "U1", Channel: "C0INC",
		PRNumber: 5, PRURL: "https://github.example/a/b/pull/5", Legacy: true}, got[1])

	got, err = s.ReadAudit(ctx, AuditQuery{IssueKey: "alertk"})
	require.NoError(t, err)
	require.Len(t, got, 3)
	assert.Equal(t, []AuditAction{AuditRefused, AuditRejected, AuditFailed}, []AuditAction{got[0].Action, got[1].Action, got[2].Action})
	assert.Equal(t, "U8", got[0].User)
	assert.Equal(t, "reject", got[0].Detail)
	assert.Equal(t, "roll back instead", got[1].Detail)

	// New records and legacy ones come out together, by time.
	require.NoError(t, s.RecordAudit(ctx, AuditRecord{Action: AuditRejected, IssueKey: "alertk", User: "U3"}))
	got, err = s.ReadAudit(ctx, AuditQuery{User: "U3"})
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.False(t, got[0].Legacy)
	got, err = s.ReadAudit(ctx, AuditQuery{Channel: "C0INC", Actions: []AuditAction{AuditApproved}})
	require.NoError(t, err)
	require.Len(t, got, 1)
}
