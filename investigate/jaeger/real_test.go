package jaeger_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/internal/jaegertest"
	"github.com/autoheal/autoheal/investigate/jaeger"
	"github.com/autoheal/autoheal/scenario"
)

// Jaeger v1.75 traces its own queries as service "jaeger". Before any
// application sends traces that is all it lists: the search warns instead of
// reporting 0 failures, and once an application's traces are in, Jaeger's
// own are never searched.
func TestRealJaegerOwnTracesAreIgnored(t *testing.T) {
	real := jaegertest.Start(t)
	deadline := time.Now().Add(30 * time.Second)
	for {
		var body struct{ Data []string }
		resp, err := http.Get(real.QueryURL + "/api/services")
		require.NoError(t, err)
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
		_ = resp.Body.Close()
		if slices.Contains(body.Data, "jaeger") {
			break
		}
		require.True(t, time.Now().Before(deadline), "jaeger never listed its own service: %v", body.Data)
		time.Sleep(200 * time.Millisecond)
	}
	now := time.Now().UTC()
	window, _ := json.Marshal(map[string]any{"start": now.Add(-time.Hour).Format(time.RFC3339), "end": now.Add(time.Minute).Format(time.RFC3339)})
	for _, api := range []jaeger.API{jaeger.APIv1, jaeger.APIv3} {
		c := jaeger.New(jaeger.Config{URL: real.QueryURL, API: api})
		res, err := c.Call(context.Background(), jaeger.ToolSearchErrors, window)
		require.NoError(t, err)
		assert.Equal(t, "Jaeger lists no service but its own (jaeger): no application sends traces to it", res.Warning, api)
	}

	s, err := scenario.Load("../../testdata/examples/ad-npe-missing-context")
	require.NoError(t, err)
	real.LoadTraces(t, s.Traces)
	for _, api := range []jaeger.API{jaeger.APIv1, jaeger.APIv3} {
		c := jaeger.New(jaeger.Config{URL: real.QueryURL, API: api})
		res := search(t, c, s)
		assert.Empty(t, res.Warning, api)
		f := originIn(res, "ad")
		require.NotNil(t, f, res.Summary)
		assert.Equal(t, "java.lang.NullPointerException", f.Exception)
		assert.Equal(t, 137, f.Line)
		assert.Equal(t, 9, f.Count)
		for _, fd := range res.Findings {
			assert.NotEqual(t, "jaeger", fd.Service, "Jaeger's own service is not an application's")
		}
	}
}
