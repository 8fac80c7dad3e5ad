package investigate

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLogTextLevels(t *testing.T) {
	cases := map[string]string{
		"[2026-11-05 06:36:51] production.ERROR: 2 records were found.": "error",
		"[2026-11-05 06:36:51] local.WARNING: Stripe webhook throttled": "warn",
		"2026-11-05 06:36:51 INFO started":                              "info",
		`{"level":"warn","msg":"lease renewal failed"}`:                 "warn",
		`level=error msg="dial failed" err="connection refused"`:        "error",
		"plain line without a level":                                    "",
	}
	for line, want := range cases {
		_, got := LogText(line)
		assert.Equal(t, want, got, line)
	}
}
