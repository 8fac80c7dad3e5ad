package harness

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sim/faults"
)

// Broken backend responses never crash the engine nor hang it beyond its
// deadline: each broken family becomes a failed receipt with the right kind,
// and the investigation still concludes from the families that work.
func TestBrokenBackends(t *testing.T) {
	s, err := scenario.Load(examplesDir + "/ad-npe-missing-context")
	require.NoError(t, err)
	cases := []struct {
		name    string
		service string
		fault   faults.Fault
		kinds   []investigate.ErrorKind
	}{
		{"malformed JSON from Loki", "loki", faults.Fault{Kind: faults.Malformed}, []investigate.ErrorKind{investigate.ErrKindBadResponse}},
		{"truncated Jaeger body", "jaeger", faults.Fault{Kind: faults.Truncated}, []investigate.ErrorKind{investigate.ErrKindBadResponse, investigate.ErrKindUnreachable}},
		{"50 MB Loki body", "loki", faults.Fault{Kind: faults.Huge, HugeBytes: 50 << 20}, []investigate.ErrorKind{investigate.ErrKindTooLarge}},
		{"hanging Prometheus", "prometheus", faults.Fault{Kind: faults.Hang}, []investigate.ErrorKind{investigate.ErrKindTimeout}},
		{"Jaeger 401", "jaeger", faults.Fault{Kind: faults.Status, Status: 401}, []investigate.ErrorKind{investigate.ErrKindUnauthorized}},
		{"GitHub 503 on every call", "github", faults.Fault{Kind: faults.Status, Status: 503}, []investigate.ErrorKind{investigate.ErrKindServer, investigate.ErrKindBadResponse}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Start(s, Options{})
			require.NoError(t, err)
			defer b.Close()
			require.NoError(t, b.Faults[tc.service].Set("/", tc.fault))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := RunWith(ctx, b, RunOptions{Engine: investigate.Options{Deadline: 5 * time.Second, ToolTimeout: 2 * time.Second}})
			require.NoError(t, err)
			require.NotNil(t, res)
			family := map[string]investigate.Family{"loki": investigate.FamilyLogs, "jaeger": investigate.FamilyTraces,
				"prometheus": investigate.FamilyMetrics, "github": investigate.FamilyChanges}[tc.service]
			var failed *investigate.Receipt
			for i, r := range res.Timeline {
				if r.Family == family && !r.OK {
					failed = &res.Timeline[i]
				}
			}
			require.NotNil(t, failed, "a failed %s receipt", family)
			assert.Contains(t, tc.kinds, failed.ErrorKind, "error: %s", failed.Error)
			assert.NotEmpty(t, failed.Error)
			listed := false
			for _, u := range res.ToolsUnavailable {
				listed = listed || u.Family == family
			}
			assert.True(t, listed, "%s listed as unavailable", family)
			// The other families still carry the investigation.
			assert.Equal(t, "ad", res.RootCause.Service)
		})
	}
}

// A backend that hangs longer than the whole investigation may take: the
// engine answers at its deadline with what arrived.
func TestDeadlineBoundsAHangingBackend(t *testing.T) {
	s, err := scenario.Load(examplesDir + "/checkout-fails-payment-typeerror")
	require.NoError(t, err)
	b, err := Start(s, Options{})
	require.NoError(t, err)
	defer b.Close()
	require.NoError(t, b.Faults["loki"].Set("/", faults.Fault{Kind: faults.Hang}))
	res, err := RunWith(context.Background(), b, RunOptions{Engine: investigate.Options{Deadline: time.Second, ToolTimeout: time.Hour}})
	require.NoError(t, err)
	var logs *investigate.Receipt
	for i, r := range res.Timeline {
		if r.Family == investigate.FamilyLogs {
			logs = &res.Timeline[i]
		}
	}
	require.NotNil(t, logs)
	assert.False(t, logs.OK)
	assert.Equal(t, investigate.ErrKindTimeout, logs.ErrorKind)
	assert.Equal(t, "payment", res.RootCause.Service, "traces alone still point at payment")
}
