package bot

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
)

type fakeGroups struct {
	members map[string][]string
	calls   int
	err     error
}

func (f *fakeGroups) GetUserGroupMembersContext(_ context.Context, group string, _ ...slack.GetUserGroupMembersOption) ([]string, error) {
	f.calls++
	if f.err != nil {
		return nil, f.err
	}
	return f.members[group], nil
}

func TestUserGroupsCache(t *testing.T) {
	ctx := context.Background()
	api := &fakeGroups{members: map[string][]string{"S0ONCALL": {"U0BOB"}}}
	g := NewUserGroups(api)

	got, err := g.GroupMembers(ctx, "S0ONCALL")
	require.NoError(t, err)
	assert.Equal(t, []string{"U0BOB"}, got)
	_, err = g.GroupMembers(ctx, "S0ONCALL")
	require.NoError(t, err)
	assert.Equal(t, 1, api.calls, "members are cached")

	now := time.Now()
	g.now = func() time.Time { return now.Add(groupCacheTTL + time.Second) }
	_, err = g.GroupMembers(ctx, "S0ONCALL")
	require.NoError(t, err)
	assert.Equal(t, 2, api.calls, "the cache expires")

	api.err = errors.New("missing_scope")
	g.now = func() time.Time { return now.Add(3 * groupCacheTTL) }
	_, err = g.GroupMembers(ctx, "S0ONCALL")
	assert.Error(t, err, "a failed lookup is an error, never an empty group")

	_, err = g.GroupMembers(ctx, "@oncall")
	assert.Error(t, err)
}

func contested(r *investigate.HealResult, alt investigate.Band) *investigate.HealResult {
	r.Alternatives = []investigate.Alternative{{Planner: investigate.ModeLLM, RootCause: investigate.RootCause{Service: "other", Band: alt}}}
	return r
}

func TestApprovalView(t *testing.T) {
	patch := &investigate.Patch{File: "a.go", Diff: "--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n"}
	edit := &investigate.ManifestEdit{File: "deploy/cart.yaml", Line: 12, Path: "resources.limits.memory", OldValue: "256Mi", NewValue: "512Mi"}
	res := func(b investigate.Bucket, band investigate.Band, p *investigate.Patch, m *investigate.ManifestEdit) *investigate.HealResult {
		return &investigate.HealResult{RootCause: investigate.RootCause{Bucket: b, Band: band}, Fix: investigate.Fix{Patch: p, ManifestEdit: m}}
	}
	tests := []struct {
		name     string
		r        *investigate.HealResult
		min      investigate.Band
		remedy   bool
		eligible bool
		note     string
	}{
		{"code bug with patch at MEDIUM", res(investigate.BucketCodeBug, investigate.BandMedium, patch, nil), investigate.BandMedium, true, true, ""},
		{"infra manifest edit at HIGH", res(investigate.BucketInfrastructure, investigate.BandHigh, nil, edit), investigate.BandMedium, true, true, ""},
		{"band below the minimum", res(investigate.BucketCodeBug, investigate.BandLow, patch, nil), investigate.BandMedium, true, false, "confidence LOW is below MEDIUM"},
		{"HIGH minimum", res(investigate.BucketCodeBug, investigate.BandMedium, patch, nil), investigate.BandHigh, true, false, "below HIGH"},
		{"code bug without patch", res(investigate.BucketCodeBug, investigate.BandHigh, nil, nil), investigate.BandMedium, true, false, "no code change"},
		{"a patch for infrastructure is never offered", res(investigate.BucketInfrastructure, investigate.BandHigh, patch, nil), investigate.BandMedium, true, false, "operator action"},
		{"flake", res(investigate.BucketFlake, investigate.BandHigh, nil, nil), investigate.BandMedium, true, false, "flake"},
		{"no remediator", res(investigate.BucketCodeBug, investigate.BandHigh, patch, nil), investigate.BandMedium, false, false, "not enabled"},
		{"an alternative as well supported", contested(res(investigate.BucketCodeBug, investigate.BandMedium, patch, nil), investigate.BandMedium), investigate.BandMedium, true, false, "as well supported"},
		{"a less supported alternative", contested(res(investigate.BucketCodeBug, investigate.BandHigh, patch, nil), investigate.BandMedium), investigate.BandMedium, true, true, ""},
		{"needs a human", func() *investigate.HealResult {
			r := res(investigate.BucketCodeBug, investigate.BandMedium, patch, nil)
			r.NeedsHuman = true
			return r
		}(), investigate.BandLow, true, false, "as well supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := approvalView(tt.r, tt.min, tt.remedy)
			assert.Equal(t, tt.eligible, v.Eligible)
			if tt.note != "" {
				assert.Contains(t, v.Note, tt.note)
			}
		})
	}
}

func TestIsAuthError(t *testing.T) {
	assert.True(t, IsAuthError(slack.SlackErrorResponse{Err: "invalid_auth"}))
	assert.True(t, IsAuthError(errors.New("token_revoked")))
	assert.True(t, IsAuthError(errors.Join(errors.New("connect"), slack.SlackErrorResponse{Err: "account_inactive"})))
	assert.False(t, IsAuthError(slack.SlackErrorResponse{Err: "ratelimited"}))
	assert.False(t, IsAuthError(errors.New("dial tcp: connection refused")))
	assert.False(t, IsAuthError(nil))
}

func TestWithRetryHonoursRateLimits(t *testing.T) {
	calls := 0
	err := withRetry(context.Background(), retryPolicy{Attempts: 3, Backoff: time.Millisecond}, func(context.Context) error {
		calls++
		if calls == 1 {
			return slack.SlackErrorResponse{Err: "ratelimited"}
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, 2, calls)

	calls = 0
	err = withRetry(context.Background(), retryPolicy{Attempts: 3, Backoff: time.Millisecond}, func(context.Context) error {
		calls++
		return slack.SlackErrorResponse{Err: "channel_not_found"}
	})
	require.Error(t, err)
	assert.Equal(t, 1, calls, "permanent errors are not retried")

	err = withRetry(context.Background(), retryPolicy{Attempts: 3, MaxWait: time.Second}, func(context.Context) error {
		return &slack.RateLimitedError{RetryAfter: time.Hour}
	})
	assert.ErrorContains(t, err, "longer than", "an absurd Retry-After fails instead of blocking")
}
