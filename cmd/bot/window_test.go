package main

import (
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/config"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/scenario"
	jaegersim "github.com/autoheal/autoheal/sim/jaeger"
)

func TestParseWindow(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, since, until string
		start, end         time.Time
		err                string
	}{
		{name: "defaults: now, start left to the engine", end: now},
		{name: "yesterday's incident", since: "2026-11-29T14:00:00Z", until: "2026-11-29T16:30:00Z",
			start: time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC), end: time.Date(2026, 11, 29, 16, 30, 0, 0, time.UTC)},
		{name: "offsets", since: "2026-11-29T15:00:00+01:00", start: time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC), end: now},
		{name: "relative since counts back from the end", since: "90m", until: "1h",
			start: now.Add(-150 * time.Minute), end: now.Add(-time.Hour)},
		{name: "relative since to now", since: "2h", start: now.Add(-2 * time.Hour), end: now},
		{name: "until alone", until: "36h", end: now.Add(-36 * time.Hour)},
		{name: "not a time", since: "yesterday 14:00", err: `--since "yesterday 14:00": want an RFC 3339 time`},
		{name: "no zone", until: "2026-11-29T14:00:00", err: `--until "2026-11-29T14:00:00": want an RFC 3339 time`},
		{name: "negative duration", since: "-2h", err: "the duration must be positive"},
		{name: "future end", until: "2026-12-01T00:00:00Z", err: "--until 2026-12-01T00:00:00Z is in the future"},
		{name: "empty window", since: "2026-11-29T16:00:00Z", until: "2026-11-29T16:00:00Z", err: "must be before the end of the window"},
		{name: "start after end", since: "2026-11-29T17:00:00Z", until: "2026-11-29T16:00:00Z", err: "must be before the end of the window"},
		{name: "too long", since: "200h", err: "at most 168h0m0s (7 days)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start, end, err := parseWindow(tc.since, tc.until, now)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.True(t, tc.start.Equal(start), "start %s, want %s", start, tc.start)
			assert.True(t, tc.end.Equal(end), "end %s, want %s", end, tc.end)
		})
	}
}

// TestInvestigateWindowFlags investigates a past incident against real
// protocol endpoints (the Jaeger simulator serving an example's traces):
// the window of every trace search is the one the flags name.
func TestInvestigateWindowFlags(t *testing.T) {
	s, err := scenario.Load(filepath.Join(cliExamples, "ad-npe-missing-context"))
	require.NoError(t, err)
	h, err := jaegersim.New(s.Traces, jaegersim.Options{Now: s.Now})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	for _, k := range config.Keys {
		t.Setenv(k.Env, "")
	}
	t.Setenv("JAEGER_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "")

	since := s.Now.Add(-time.Hour).UTC().Format(time.RFC3339)
	until := s.Now.UTC().Format(time.RFC3339)
	out, stderr, code := run(t, "investigate", "--no-llm", "--json", "--since", since, "--until", until, "ad service is throwing errors")
	require.Equal(t, 0, code, stderr)
	var res investigate.HealResult
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	searches := 0
	for _, r := range res.Timeline {
		if r.Tool == "traces_search_errors" {
			searches++
			assert.Equal(t, since, r.Args["start"])
			assert.Equal(t, until, r.Args["end"])
			assert.True(t, r.OK, r.Error)
		}
	}
	assert.Equal(t, 1, searches)
	assert.Equal(t, "ad", res.RootCause.Service)

	// A window that ends days before the incident finds nothing, even
	// widened (72 hours back from its end) for want of failures.
	out, stderr, code = run(t, "investigate", "--no-llm", "--json", "--until", s.Now.Add(-96*time.Hour).UTC().Format(time.RFC3339), "ad service is throwing errors")
	require.Equal(t, 0, code, stderr)
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.Equal(t, investigate.ErrUnknown, res.RootCause.ErrorType)
	assert.Contains(t, res.RootCause.Description, "No failure was found")
	assert.NotEqual(t, investigate.BucketUnknown, res.RootCause.Bucket, "a bucket is always decided")

	_, stderr, code = run(t, "investigate", "--since", "yesterday", "ad errors")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `--since "yesterday": want an RFC 3339 time`)
	_, stderr, code = run(t, "investigate", "--since", "2h", "--scenario", "x")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--since/--until apply to real backends")
}
