package loki

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The patterns endpoint answers in Loki 3's documented shape, only when
// enabled (Loki serves it with the pattern ingester on; off by default).
func TestPatterns(t *testing.T) {
	sc := loadScenario(t, "checkout-fails-payment-typeerror")
	from, to := sc.Now.Add(-time.Hour), sc.Now
	q := url.Values{"query": {`{service_name="payment"}`}, "start": {ns(from)}, "end": {ns(to)}}

	off := start(t, sc.Logs, Options{Now: sc.Now})
	code, _ := do(t, off.URL, "/loki/api/v1/patterns", q)
	assert.Equal(t, http.StatusNotFound, code, "without the pattern ingester, as Loki's default")

	on := start(t, sc.Logs, Options{Now: sc.Now, Patterns: true})
	code, body := do(t, on.URL, "/loki/api/v1/patterns", q)
	require.Equal(t, http.StatusOK, code, body)
	var res struct {
		Status string `json:"status"`
		Data   []struct {
			Pattern string     `json:"pattern"`
			Level   string     `json:"level"`
			Samples [][2]int64 `json:"samples"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &res))
	assert.Equal(t, "success", res.Status)
	require.NotEmpty(t, res.Data)
	var total int64
	var typeErrorWarn bool
	for _, p := range res.Data {
		assert.NotEmpty(t, p.Pattern)
		assert.NotContains(t, p.Pattern, "<_> <_>", "consecutive variables collapse")
		require.NotEmpty(t, p.Samples)
		for i, s := range p.Samples {
			assert.Zero(t, s[0]%10, "samples are 10 s buckets, in seconds")
			assert.GreaterOrEqual(t, s[0], from.Unix()-10)
			assert.LessOrEqual(t, s[0], to.Unix())
			if i > 0 {
				assert.Greater(t, s[0], p.Samples[i-1][0], "ascending")
			}
			total += s[1]
		}
		typeErrorWarn = typeErrorWarn || (p.Level == "warn" && strings.Contains(p.Pattern, "TypeError"))
	}
	assert.True(t, typeErrorWarn, "payment's TypeErrors have their own pattern, at the level of their stream (pino's 40: warn)")
	want := len(entriesOf(sc, map[string]string{"service_name": "payment"}, from, to.Add(time.Nanosecond), func(string) bool { return true }))
	assert.Equal(t, int64(want), total, "every line of the window is counted once")

	code, body = do(t, on.URL, "/loki/api/v1/patterns", url.Values{"query": {`{service_name="payment"} |= "x"`}, "start": {ns(from)}, "end": {ns(to)}})
	assert.Equal(t, http.StatusBadRequest, code, body)
}

func TestPatternOf(t *testing.T) {
	for in, want := range map[string]string{
		`GET /api/cart/42 took 17ms`:                           `GET <_> took <_>`,
		`level=error msg="charge failed" order=9f2c retries=3`: `level=error msg="charge failed" order=<_> retries=<_>`,
		`connect ECONNREFUSED 10.96.142.37:7070`:               `connect ECONNREFUSED <_>`,
		`user "u-123" not found`:                               `user "<_>" not found`,
	} {
		assert.Equal(t, want, patternOf(in), in)
	}
}
