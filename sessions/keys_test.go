package sessions

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestKeyPart(t *testing.T) {
	tests := []struct {
		in       string
		verbatim bool
	}{
		{"Ev0123ABC", true},
		{"alert:HighErrorRate:checkout/shop", true},
		{"1700000000.000100", true},
		{"has space", false},
		{"{hash-tag}", false},
		{"new\nline", false},
		{strings.Repeat("a", maxPartLen+1), false},
		{"", false},
	}
	for _, tt := range tests {
		got := keyPart(tt.in)
		if tt.verbatim {
			assert.Equal(t, tt.in, got)
			continue
		}
		assert.True(t, strings.HasPrefix(got, "#"), "%q -> %q", tt.in, got)
		assert.NotContains(t, got, "{")
		assert.Len(t, got, 33)
	}
	assert.NotEqual(t, keyPart("a b"), keyPart("a  b"))
	assert.Equal(t, keyPart("a b"), keyPart("a b"), "stable")
}

func TestTruncateKeepsRunes(t *testing.T) {
	s := strings.Repeat("é", 10) // 2 bytes each
	got := truncate(s, 5)
	assert.Equal(t, "éé…", got)
	assert.Equal(t, "short", truncate("short", 10))
}
