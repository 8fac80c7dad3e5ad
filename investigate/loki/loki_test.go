package loki_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/loki"
	"github.com/autoheal/autoheal/scenario"
	lokisim "github.com/autoheal/autoheal/sim/loki"
)

func start(t *testing.T, dir string) (*httptest.Server, *scenario.Scenario) {
	t.Helper()
	s, err := scenario.Load(dir)
	require.NoError(t, err)
	h, err := lokisim.New(s.Logs, lokisim.Options{Now: s.Now})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, s
}

func window(s *scenario.Scenario) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"start": s.Now.Add(-time.Hour).Format(time.RFC3339), "end": s.Now.Format(time.RFC3339)})
	return b
}

// Error lines are grouped into patterns with the signature, the frame and
// the counts; harmless WARN noise is not a pattern.
func TestSearchErrorsGroupsPatterns(t *testing.T) {
	srv, s := start(t, "../../testdata/examples/checkout-fails-payment-typeerror")
	c := loki.New(loki.Config{URL: srv.URL})
	res, err := c.Call(context.Background(), loki.ToolSearchErrors, window(s))
	require.NoError(t, err)
	var payment *investigate.Finding
	for i, f := range res.Findings {
		if f.Service == "payment" && f.Signature == "node-undefined" {
			payment = &res.Findings[i]
		}
		assert.NotContains(t, f.Quote, "served product", "info lines are not errors")
	}
	require.NotNil(t, payment, res.Summary)
	assert.Equal(t, "/usr/src/app/charge.js", payment.File)
	assert.Equal(t, 58, payment.Line)
	assert.GreaterOrEqual(t, payment.Count, 10)
	assert.True(t, payment.LastTime.After(payment.Time))
}

// A scenario whose service label is not the configured one: the capability
// discovers a label that exists instead of returning nothing.
func TestDiscoversServiceLabel(t *testing.T) {
	srv, s := start(t, "../../testdata/examples/ad-npe-missing-context")
	c := loki.New(loki.Config{URL: srv.URL, ServiceLabel: "app"}) // wrong on purpose
	res, err := c.Call(context.Background(), loki.ToolSearchErrors, window(s))
	require.NoError(t, err)
	found := false
	for _, f := range res.Findings {
		found = found || (f.Service == "ad" && f.ErrorType == investigate.ErrNullPointer)
	}
	assert.True(t, found, res.Summary)
}

func TestAccessLogNamesUpstream(t *testing.T) {
	line := `81.1.1.1 - - [18/Nov/2026:10:03:54 +0000] "GET /api/exports/x.csv HTTP/2.0" 504 160 "-" "Mozilla/5.0" 52 15.001 [analytics-reporting-api-http] [] 10.42.5.187:8000 0 15.001 504 abc`
	text, up, ok := loki.AccessLogText(line)
	require.True(t, ok)
	assert.Equal(t, "analytics-reporting-api-http", up)
	assert.Contains(t, text, "504 Gateway Timeout")
	_, _, ok = loki.AccessLogText(`1.1.1.1 - - [x] "GET / HTTP/1.1" 200 12 "-" "curl"`)
	assert.False(t, ok, "a 200 is not a failure")
}

func TestRejectsBadQueries(t *testing.T) {
	srv, s := start(t, "../../testdata/examples/ad-npe-missing-context")
	c := loki.New(loki.Config{URL: srv.URL})
	args, _ := json.Marshal(map[string]any{"query": "not logql", "start": s.Now.Add(-time.Hour).Format(time.RFC3339), "end": s.Now.Format(time.RFC3339)})
	_, err := c.Call(context.Background(), loki.ToolQuery, args)
	assert.Equal(t, investigate.ErrKindInvalidArgs, investigate.KindOf(err))
	args, _ = json.Marshal(map[string]any{"contains": "([", "start": s.Now.Add(-time.Hour).Format(time.RFC3339), "end": s.Now.Format(time.RFC3339)})
	_, err = c.Call(context.Background(), loki.ToolSearchErrors, args)
	assert.Equal(t, investigate.ErrKindInvalidArgs, investigate.KindOf(err))
}

// Loki 3 with pattern detection: logs_patterns reads its patterns, per
// service, and keeps the failures among them with their counts.
func TestPatternsFromLoki(t *testing.T) {
	s, err := scenario.Load("../../testdata/examples/checkout-fails-payment-typeerror")
	require.NoError(t, err)
	h, err := lokisim.New(s.Logs, lokisim.Options{Now: s.Now, Patterns: true})
	require.NoError(t, err)
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	c := loki.New(loki.Config{URL: srv.URL})
	args, _ := json.Marshal(map[string]any{"services": []string{"payment"}, "start": s.Now.Add(-time.Hour).Format(time.RFC3339), "end": s.Now.Format(time.RFC3339)})
	res, err := c.Call(context.Background(), loki.ToolPatterns, args)
	require.NoError(t, err)
	assert.Equal(t, []string{"/loki/api/v1/patterns"}, paths)
	typeErrors := 0
	for _, f := range res.Findings {
		assert.Equal(t, "loki patterns", f.Attrs["source"])
		assert.Equal(t, "payment", f.Service)
		if f.Signature == "node-undefined" {
			typeErrors += f.Count
			assert.False(t, f.LastTime.Before(f.Time))
		}
	}
	assert.GreaterOrEqual(t, typeErrors, 10, "the TypeError lines, over their patterns (with and without trace ids)")
	assert.Contains(t, res.Summary, "log patterns")
}

// Without pattern detection (Loki 2, or the pattern ingester off: 404) the
// tool groups the error lines itself, quietly, and does not ask again.
func TestPatternsFallBackWithout404Noise(t *testing.T) {
	s, err := scenario.Load("../../testdata/examples/checkout-fails-payment-typeerror")
	require.NoError(t, err)
	h, err := lokisim.New(s.Logs, lokisim.Options{Now: s.Now})
	require.NoError(t, err)
	patternCalls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/loki/api/v1/patterns" {
			patternCalls++
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	c := loki.New(loki.Config{URL: srv.URL})
	args, _ := json.Marshal(map[string]any{"services": []string{"payment"}, "start": s.Now.Add(-time.Hour).Format(time.RFC3339), "end": s.Now.Format(time.RFC3339)})
	for range 2 {
		res, err := c.Call(context.Background(), loki.ToolPatterns, args)
		require.NoError(t, err, "a missing patterns endpoint is not an error")
		assert.Contains(t, res.Summary, "Loki has no pattern detection")
		assert.Empty(t, res.Warning)
		var found bool
		for _, f := range res.Findings {
			found = found || (f.Service == "payment" && f.Signature == "node-undefined")
		}
		assert.True(t, found, res.Summary)
	}
	assert.Equal(t, 1, patternCalls, "the endpoint is probed once")
}

// A Loki with no stream at all in the window answers, but its "no error
// lines" cannot be trusted: a warning.
func TestNoStreamsIsAWarning(t *testing.T) {
	srv, s := start(t, "../../testdata/examples/checkout-fails-payment-typeerror")
	c := loki.New(loki.Config{URL: srv.URL})
	far, _ := json.Marshal(map[string]any{"start": s.Now.Add(-400 * time.Hour).Format(time.RFC3339), "end": s.Now.Add(-399 * time.Hour).Format(time.RFC3339)})
	res, err := c.Call(context.Background(), loki.ToolSearchErrors, far)
	require.NoError(t, err)
	assert.Contains(t, res.Summary, "0 error lines")
	assert.Contains(t, res.Warning, "Loki has no log streams in this window")

	res, err = c.Call(context.Background(), loki.ToolSearchErrors, window(s))
	require.NoError(t, err)
	assert.Empty(t, res.Warning)
}
