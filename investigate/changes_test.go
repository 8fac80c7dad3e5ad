package investigate

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNamesLooselyToleratesPluralsAndOrder(t *testing.T) {
	cases := []struct {
		text, service string
		want          bool
	}{
		{`"system:serviceaccount:listings:listings-photo-worker"`, "listing-photos-worker", true},
		{"role for photo-worker-listing", "listing-photos-worker", true},
		{"role for search-indexer", "listing-photos-worker", false},
		{"worker pool", "listing-photos-worker", false}, // one shared word is not a name
		{"anything", "api", false},                      // too short to match loosely
	}
	for _, c := range cases {
		assert.Equal(t, c.want, namesLoosely(c.text, c.service), "%q vs %q", c.text, c.service)
	}
}

func TestErrorLineStartsNearALateMatch(t *testing.T) {
	sig := SignatureByID("cloud-access-denied")
	require.NotNil(t, sig)
	prefix := strings.Repeat(`{"level":"error","ts":"2026-11-30T10:00:00Z","logger":"photos.worker", `, 3)
	text := prefix + `"msg":"upload failed", "error":"An error occurred (AccessDenied) when calling the PutObject operation"}`
	got := errorLine(text, sig)
	assert.True(t, strings.HasPrefix(got, "…"), got)
	assert.Contains(t, got, "An error occurred (AccessDenied)")
	assert.Less(t, len(got), len(text)-100)

	short := "ClientError: An error occurred (AccessDenied) when calling the PutObject operation"
	assert.Equal(t, short, errorLine(short, sig))
}
