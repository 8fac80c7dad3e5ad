package prom_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/prom"
	"github.com/autoheal/autoheal/scenario"
	promsim "github.com/autoheal/autoheal/sim/prom"
)

func health(t *testing.T, dir string) *investigate.ToolResult {
	t.Helper()
	return healthWith(t, dir, time.Hour, promsim.Options{})
}

// healthWith runs metrics_health over the window that ends at the scenario's clock.
func healthWith(t *testing.T, dir string, window time.Duration, opts promsim.Options) *investigate.ToolResult {
	t.Helper()
	s, err := scenario.Load(dir)
	require.NoError(t, err)
	opts.Now = s.Now
	h, err := promsim.New(s.Metrics, opts)
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c := prom.New(prom.Config{URL: srv.URL})
	args, _ := json.Marshal(map[string]any{"start": s.Now.Add(-window).Format(time.RFC3339), "end": s.Now.Format(time.RFC3339)})
	res, err := c.Call(context.Background(), prom.ToolHealth, args)
	require.NoError(t, err)
	return res
}

func find(res *investigate.ToolResult, pred func(investigate.Finding) bool) *investigate.Finding {
	for i := range res.Findings {
		if pred(res.Findings[i]) {
			return &res.Findings[i]
		}
	}
	return nil
}

func TestHealthFindsOOMKillsAndMemoryAtLimit(t *testing.T) {
	res := health(t, "../../testdata/examples/cart-oomkilled-low-limit")
	oom := find(res, func(f investigate.Finding) bool { return f.Service == "cart" && f.Signature == "k8s-oomkilled" })
	require.NotNil(t, oom, res.Summary)
	assert.Equal(t, investigate.ErrOOM, oom.ErrorType)
	mem := find(res, func(f investigate.Finding) bool { return f.Service == "cart" && f.Signature == "memory-near-limit" })
	require.NotNil(t, mem)
	assert.Equal(t, "128Mi", mem.Attrs["limit"])
	restarts := find(res, func(f investigate.Finding) bool { return f.Service == "cart" && f.Attrs["metric"] == "restarts" })
	require.NotNil(t, restarts)
	assert.Equal(t, "16", restarts.Attrs["restarts"])
	assert.Nil(t, find(res, func(f investigate.Finding) bool { return f.Service == "checkout" && f.Signature == "memory-near-limit" }),
		"checkout's memory is far from its limit")
}

func TestHealthDatesTheErrorRateOnset(t *testing.T) {
	s, err := scenario.Load("../../testdata/examples/checkout-fails-payment-typeerror")
	require.NoError(t, err)
	res := health(t, s.Dir)
	rate := find(res, func(f investigate.Finding) bool { return f.Signature == "error-rate" && f.Service == "payment" })
	require.NotNil(t, rate, res.Summary)
	deploy := time.Date(2026, 12, 1, 16, 12, 0, 0, time.UTC)
	assert.WithinDuration(t, deploy, rate.Time, 5*time.Minute, "the onset is dated at the payment rollout")
}

// TestHealthDoesNotLeanOnTheLookbackTail: a scraping Prometheus ends a
// vanished series with a staleness marker, imported data lets it linger for
// the 5m lookback delta; the findings must not depend on which. Over these
// windows (the engine's own) the markers change the series: shipment's
// onset moves by 38s and its baseline error ratio drops from 1.8% to 0.1%.
func TestHealthDoesNotLeanOnTheLookbackTail(t *testing.T) {
	for _, tc := range []struct {
		dir    string
		window time.Duration
	}{
		{"../../testdata/examples/cart-oomkilled-low-limit", 90 * time.Minute},
		{"../../testdata/scenarios/dispatch-nil-vehicle-panic", 68 * time.Minute},
		{"../../testdata/scenarios/shipment-eta-invalid-time-value", 76 * time.Minute},
	} {
		t.Run(filepath.Base(tc.dir), func(t *testing.T) {
			imported := healthWith(t, tc.dir, tc.window, promsim.Options{})
			scraped := healthWith(t, tc.dir, tc.window, promsim.Options{StaleMarkers: true})
			require.NotEmpty(t, imported.Findings)
			require.Len(t, scraped.Findings, len(imported.Findings))
			for i, f := range imported.Findings {
				g := scraped.Findings[i]
				assert.Equal(t, f.Service+" "+f.Signature, g.Service+" "+g.Signature)
				assert.WithinDuration(t, f.Time, g.Time, time.Minute, f.Quote)
			}
		})
	}
}
