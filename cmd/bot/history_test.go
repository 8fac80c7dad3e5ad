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

	"github.com/autoheal/autoheal/sessions"
)

func TestHistoryListsAndSearchesTheMemory(t *testing.T) {
	_, both := testRedis(t)
	url, prefix, _ := strings.Cut(both, "|")
	t.Setenv("REDIS_URL", url)
	t.Setenv("AUTOHEAL_REDIS_PREFIX", prefix)
	ctx := context.Background()
	store, closeStore, err := storeFromEnv(ctx)
	require.NoError(t, err)
	defer closeStore()
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for i, r := range []sessions.MemoryRecord{
		{ID: "job-a", Channel: "C1", ThreadTS: "1.1", At: t0, Service: "payment", Bucket: "code_bug", ErrorType: "null_pointer",
			Template: "TypeError: Cannot read properties of undefined (reading 'units')", File: "src/payment/charge.js", Line: 58,
			PRURL: "https://github.com/acme/shop/pull/41", PRNumber: 41, PRState: "merged"},
		{ID: "job-b", Channel: "C1", ThreadTS: "2.2", At: t0.Add(time.Hour), Service: "cart", Bucket: "infrastructure", ErrorType: "oom",
			Template: "OOMKilled", Decision: "rejected"},
	} {
		r.Fingerprint = string(rune('a' + i))
		require.NoError(t, store.Remember(ctx, r))
	}
	run := func(args ...string) string {
		var out, errb bytes.Buffer
		require.NoError(t, runHistory(ctx, args, &out, &errb), errb.String())
		return out.String()
	}
	all := run()
	assert.Less(t, strings.Index(all, "cart"), strings.Index(all, "payment"), "newest first")
	assert.Contains(t, all, "PR #41 merged")
	assert.Contains(t, all, "src/payment/charge.js:58")

	only := run("--search", "reading units")
	assert.Contains(t, only, "payment")
	assert.NotContains(t, only, "cart")
	assert.Contains(t, run("--service", "cart"), "rejected")
	assert.Contains(t, run("--bucket", "flake"), "no incidents remembered")

	var got sessions.MemoryRecord
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(run("--json", "--limit", "1"))), &got))
	assert.Equal(t, "job-b", got.ID)

	var out, errb bytes.Buffer
	assert.ErrorIs(t, runHistory(ctx, []string{"--limit", "0"}, &out, &errb), errUsage)
}
