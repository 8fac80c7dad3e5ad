package jaeger_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/jaeger"
	"github.com/autoheal/autoheal/scenario"
	jaegersim "github.com/autoheal/autoheal/sim/jaeger"
)

func serve(t *testing.T, wrap func(http.Handler) http.Handler) (*httptest.Server, *scenario.Scenario) {
	t.Helper()
	s, err := scenario.Load("../../testdata/examples/ad-npe-missing-context")
	require.NoError(t, err)
	h, err := jaegersim.New(s.Traces, jaegersim.Options{Now: s.Now})
	require.NoError(t, err)
	var hh http.Handler = h
	if wrap != nil {
		hh = wrap(h)
	}
	srv := httptest.NewServer(hh)
	t.Cleanup(srv.Close)
	return srv, s
}

func search(t *testing.T, c *jaeger.Capability, s *scenario.Scenario) *investigate.ToolResult {
	t.Helper()
	args, _ := json.Marshal(map[string]any{"start": s.Now.Add(-time.Hour).Format(time.RFC3339), "end": s.Now.Format(time.RFC3339)})
	res, err := c.Call(context.Background(), jaeger.ToolSearchErrors, args)
	require.NoError(t, err)
	return res
}

func originIn(res *investigate.ToolResult, service string) *investigate.Finding {
	for i, f := range res.Findings {
		if f.Service == service && f.Kind == investigate.KindException {
			return &res.Findings[i]
		}
	}
	return nil
}

// Both search APIs lead to the same failure origin: the NPE in ad with its frame.
func TestSearchErrorsV1AndV3(t *testing.T) {
	for _, api := range []jaeger.API{jaeger.APIv1, jaeger.APIv3} {
		t.Run(string(api), func(t *testing.T) {
			srv, s := serve(t, nil)
			c := jaeger.New(jaeger.Config{URL: srv.URL, API: api})
			res := search(t, c, s)
			f := originIn(res, "ad")
			require.NotNil(t, f, res.Summary)
			assert.Equal(t, "java.lang.NullPointerException", f.Exception)
			assert.Equal(t, investigate.ErrNullPointer, f.ErrorType)
			assert.Equal(t, "AdService.java", f.File)
			assert.Equal(t, 137, f.Line)
			assert.Equal(t, 9, f.Count)
			assert.Nil(t, originIn(res, "frontend"), "frontend only relays the failure")
		})
	}
}

// auto: a Jaeger that only serves api_v3 (v1 answers 404) is used through v3.
func TestAutoFallsBackToV3(t *testing.T) {
	var v1Calls int
	srv, s := serve(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.HasPrefix(r.URL.Path, "/api/v3/") {
				v1Calls++
				http.NotFound(w, r)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	c := jaeger.New(jaeger.Config{URL: srv.URL})
	res := search(t, c, s)
	require.NotNil(t, originIn(res, "ad"))
	assert.Equal(t, 1, v1Calls, "the API is probed once")
}

func TestAvailabilityAndBadArgs(t *testing.T) {
	c := jaeger.New(jaeger.Config{})
	av := c.Availability()
	assert.False(t, av.Configured)
	assert.Equal(t, investigate.ErrKindNotConfigured, av.Kind)
	assert.Contains(t, av.Reason, "jaeger_url")

	srv, _ := serve(t, nil)
	c = jaeger.New(jaeger.Config{URL: srv.URL})
	_, err := c.Call(context.Background(), jaeger.ToolSearchErrors, json.RawMessage(`{"start":"yesterday","end":"now"}`))
	assert.Equal(t, investigate.ErrKindInvalidArgs, investigate.KindOf(err))
	_, err = c.Call(context.Background(), jaeger.ToolSearchErrors, json.RawMessage(`{"bogus":1}`))
	assert.Equal(t, investigate.ErrKindInvalidArgs, investigate.KindOf(err))
	_, err = c.Call(context.Background(), jaeger.ToolGetTrace, json.RawMessage(`{"trace_id":"../../etc"}`))
	assert.Equal(t, investigate.ErrKindInvalidArgs, investigate.KindOf(err))
}
