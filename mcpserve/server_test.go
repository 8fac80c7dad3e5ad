package mcpserve

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseWhen(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	got, err := parseWhen("2h", now)
	require.NoError(t, err)
	assert.Equal(t, now.Add(-2*time.Hour), got)
	got, err = parseWhen("2026-12-02T09:30:00+01:00", now)
	require.NoError(t, err)
	assert.Equal(t, time.Date(2026, 12, 2, 8, 30, 0, 0, time.UTC), got)
	got, err = parseWhen("", now)
	require.NoError(t, err)
	assert.True(t, got.IsZero())
	for _, bad := range []string{"yesterday", "-2h", "12:00"} {
		_, err := parseWhen(bad, now)
		assert.Error(t, err, bad)
	}
}

func TestHTTPHandlerNeedsALongToken(t *testing.T) {
	_, err := HTTPHandler(New(Options{}), "short")
	assert.ErrorContains(t, err, "at least 16 characters")
	_, err = HTTPHandler(New(Options{}), "0123456789abcdef")
	assert.NoError(t, err)
}
