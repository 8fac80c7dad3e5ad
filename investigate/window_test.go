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
	_, ok = ParseSince("since this morning", now)
	assert.False(t, ok, "day words are too vague to date an onset")
}
