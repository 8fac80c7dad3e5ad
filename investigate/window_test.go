package investigate

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 30, 0, 0, time.UTC)
	cases := []struct {
		text string
		want time.Time
		ok   bool
	}{
		{"ad service is throwing errors since 10am", time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), true},
		{"errors since ~10:05", time.Date(2026, 11, 30, 10, 5, 0, 0, time.UTC), true},
		{"broken since like 9?", time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), true},
		{"failing for the last 20 min", now.Add(-20 * time.Minute), true},
		{"started 2h ago", now.Add(-2 * time.Hour), true},
		{"since 11pm", time.Date(2026, 11, 29, 23, 0, 0, 0, time.UTC), true},
		{"checkout is down", time.Time{}, false},
		// Zones named after the clock time, daylight saving by date.
		{"photos stuck since ~5:15 ET", time.Date(2026, 11, 30, 10, 15, 0, 0, time.UTC), true}, // EST, UTC-5
		{"errors since about 10am CET", time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), true},   // UTC+1
		{"slow since 02:10 PT", time.Date(2026, 11, 30, 10, 10, 0, 0, time.UTC), true},         // PST, UTC-8
		{"since 10:05 UTC and still failing", time.Date(2026, 11, 30, 10, 5, 0, 0, time.UTC), true},
		{"since 9 and rising", time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), true}, // "and" is not a zone
	}
	for _, tc := range cases {
		got, ok := ParseSince(tc.text, now)
		assert.Equal(t, tc.ok, ok, tc.text)
		if tc.ok {
			assert.Equal(t, tc.want, got, tc.text)
		}
	}
}

func TestMatchServices(t *testing.T) {
	known := []string{"ad", "cart", "product-catalog", "PaymentGateway", "checkout-api", "recommendation"}
	assert.ElementsMatch(t, []string{"ad"}, MatchServices("ad service is throwing errors", known))
	assert.ElementsMatch(t, []string{"product-catalog"}, MatchServices("the product catalog returns 500s", known))
	assert.ElementsMatch(t, []string{"PaymentGateway"}, MatchServices("payment gateway down?", known))
	assert.ElementsMatch(t, []string{"checkout-api"}, MatchServices("chekout errors since 10", known), "one-letter typo")
	assert.Empty(t, MatchServices("everything is slow", known))
}

func TestParseSinceCoarse(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 30, 0, 0, time.UTC) // a Monday
	got, ok := ParseSinceCoarse("new titles missing since yesterday evening", now)
	assert.True(t, ok)
	assert.Equal(t, time.Date(2026, 11, 29, 17, 0, 0, 0, time.UTC), got)
	got, ok = ParseSinceCoarse("been going on at least since yesterday", now)
	assert.True(t, ok)
	assert.Equal(t, time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC), got)
	got, ok = ParseSinceCoarse("attachments broken, started yesterday? maybe before", now)
	assert.True(t, ok, "'started' dates a window like 'since'")
	assert.Equal(t, time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC), got)
	_, ok = ParseSince("since this morning", now)
	assert.False(t, ok, "day words are too vague to date an onset")
}

func TestParseSinceFollowsDaylightSaving(t *testing.T) {
	summer := time.Date(2026, 5, 18, 14, 30, 0, 0, time.UTC)
	got, ok := ParseSince("stuck since ~9:45 ET", summer)
	assert.True(t, ok)
	assert.Equal(t, time.Date(2026, 5, 18, 13, 45, 0, 0, time.UTC), got.UTC(), "EDT is UTC-4 in May")
	got, ok = ParseSince("around 15:21 BST", summer)
	assert.True(t, ok)
	assert.Equal(t, time.Date(2026, 5, 18, 14, 21, 0, 0, time.UTC), got.UTC())
}

func TestParseSinceCoarseForDays(t *testing.T) {
	now := time.Date(2026, 8, 19, 10, 5, 0, 0, time.UTC)
	for text, want := range map[string]time.Time{
		"a few every hour, for days at least":          time.Date(2026, 8, 16, 0, 0, 0, 0, time.UTC),
		"it has been failing over the past few days":   time.Date(2026, 8, 16, 10, 5, 0, 0, time.UTC), // three days back from now
		"this has been going on for a couple of weeks": time.Date(2026, 8, 12, 0, 0, 0, 0, time.UTC),
	} {
		got, ok := ParseSinceCoarse(text, now)
		assert.True(t, ok, text)
		assert.Equal(t, want, got, text)
	}
	_, ok := ParseSinceCoarse("the daily report is broken", now)
	assert.False(t, ok)
}
