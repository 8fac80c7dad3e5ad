package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/internal/redistest"
	"github.com/autoheal/autoheal/sessions"
)

// bot audit reads the records serve writes (same REDIS_URL and prefix),
// filters them, and prints a table or JSON lines.
func TestAuditCommand(t *testing.T) {
	rdb := redistest.Client(t)
	prefix := redistest.Prefix(t, rdb, "autoheal-audit-cmd-")
	store, err := sessions.New(rdb, sessions.Options{Prefix: prefix})
	require.NoError(t, err)
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)
	for _, r := range []sessions.AuditRecord{
		{At: now.Add(-50 * time.Hour), Action: sessions.AuditApproved, IssueKey: "old-key", User: "U0APPROVER", Channel: "C0OLD", ThreadTS: "1.1", PRNumber: 1, PRURL: "https://github.example/a/b/pull/1"},
		{At: now.Add(-2 * time.Hour), Action: sessions.AuditRefused, IssueKey: "slack-C0INC-1764606240.000100", User: "U0ONCALL", Channel: "C0INC", ThreadTS: "1764606240.000100", Proposal: "m-Ev1", Detail: "approve"},
		{At: now.Add(-time.Hour), Action: sessions.AuditRejected, IssueKey: "slack-C0INC-1764606240.000100", User: "U0APPROVER", Channel: "C0INC", ThreadTS: "1764606240.000100", Proposal: "m-Ev1", Detail: "wrong line"},
		{At: now.Add(-time.Minute), Action: sessions.AuditUpdated, IssueKey: "checkouterrorratehigh-checkout-03be3deddb", User: "U0APPROVER", Channel: "C0ALERTS", ThreadTS: "1764600000.000200", Proposal: "ai-x", PRNumber: 7, PRURL: "https://github.example/a/b/pull/7"},
	} {
		require.NoError(t, store.RecordAudit(ctx, r))
	}
	env := map[string]string{"REDIS_URL": redistest.URL(), "AUTOHEAL_REDIS_PREFIX": prefix}
	run := func(args ...string) (string, error) {
		var out, errOut bytes.Buffer
		err := audit(ctx, args, func(k string) string { return env[k] }, func() time.Time { return now }, &out, &errOut)
		return out.String(), err
	}

	out, err := run()
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 5)
	assert.Regexp(t, `^TIME \(UTC\)\s+ACTION\s+USER\s+WHERE\s+ISSUE KEY\s+PULL REQUEST\s+DETAIL$`, lines[0])
	assert.Regexp(t, `^2026-11-29 16:00:00\s+approved\s+U0APPROVER\s+C0OLD/1.1\s+old-key\s+#1 https://github.example/a/b/pull/1\s*$`, lines[1])
	assert.Regexp(t, `refused\s+U0ONCALL\s+C0INC/1764606240.000100\s+slack-C0INC-1764606240.000100\s+-\s+proposal m-Ev1 approve$`, lines[2])
	assert.Contains(t, lines[4], "updated")

	out, err = run("--channel", "C0INC", "--action", "rejected,refused", "--json")
	require.NoError(t, err)
	lines = strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2)
	var rec sessions.AuditRecord
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &rec))
	assert.Equal(t, sessions.AuditRejected, rec.Action)
	assert.Equal(t, "wrong line", rec.Detail)

	out, err = run("--since", "24h", "--user", "U0APPROVER")
	require.NoError(t, err)
	assert.Contains(t, out, "rejected")
	assert.Contains(t, out, "updated")
	assert.NotContains(t, out, "old-key")

	out, err = run("--key", "checkouterrorratehigh-checkout-03be3deddb", "--since", "2026-12-01", "--until", "2026-12-02T00:00:00Z")
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(out, "\n"), out)
	out, err = run("--limit", "1", "--json")
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(out, "\n"))
	assert.Contains(t, out, `"action":"updated"`)
	out, err = run("--user", "U0NOBODY")
	require.NoError(t, err)
	assert.Equal(t, "No audit records match.\n", out)

	for _, bad := range [][]string{{"--action", "merged"}, {"--since", "yesterday"}, {"--limit", "-1"}, {"extra"}} {
		_, err := run(bad...)
		assert.ErrorIs(t, err, errUsage, "%v", bad)
	}
	_, err = run("--action", "merged")
	assert.ErrorContains(t, err, `unknown audit action "merged" (want one of approved, updated, rejected, refused, failed, issue_created, mcp_call)`)
}
