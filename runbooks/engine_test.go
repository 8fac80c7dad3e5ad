package runbooks_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/runbooks"
	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sim"
)

const oomScenario = "../testdata/examples/cart-oomkilled-low-limit"

// The chart's OOM runbook applies to the cart scenario's
// KubeContainerOOMKilled alert: the deterministic engine runs its two
// PromQL hints against the Prometheus simulator (with the alert's
// container and namespace filled in), their answers are receipts of the
// timeline, and the result names the runbook. The conclusion is the
// engine's own, as without the library.
func TestRunbookHintsRunThroughTheSimulators(t *testing.T) {
	lib, err := runbooks.Load(chartRunbooks)
	require.NoError(t, err)
	s, err := scenario.Load(oomScenario)
	require.NoError(t, err)

	tr := sim.NewTranscript(nil)
	res, err := harness.Run(context.Background(), s, harness.RunOptions{Backends: harness.Options{Transcript: tr},
		Engine: investigate.Options{Runbooks: lib}})
	require.NoError(t, err)
	plain, err := harness.Run(context.Background(), s, harness.RunOptions{})
	require.NoError(t, err)

	assert.Equal(t, []string{"container-oomkilled.md"}, res.Runbooks)
	assert.Empty(t, plain.Runbooks)

	byHint := map[string]investigate.Receipt{}
	for _, rc := range res.Timeline {
		if rc.Runbook != "" {
			byHint[rc.Runbook] = rc
		}
	}
	require.Len(t, byHint, 2, "both hints ran")
	ws := byHint["container-oomkilled.md#working-set"]
	assert.True(t, ws.OK, ws.Error)
	assert.Equal(t, "metrics_query_range", ws.Tool)
	assert.Equal(t, `max by (pod) (container_memory_working_set_bytes{namespace="shop", container="cart"})`, ws.Args["query"])
	assert.Regexp(t, `^3 series; highest 1\.3\d+e\+08 \{pod="cart-`, ws.Summary, "the answer is visible in the timeline")
	limit := byHint["container-oomkilled.md#memory-limit"]
	assert.True(t, limit.OK, limit.Error)
	assert.Equal(t, "metrics_query", limit.Tool)
	assert.Contains(t, limit.Summary, "3 series; highest 1.342e+08", "128Mi, the limit")

	var queries []string
	for _, e := range tr.Entries() {
		if e.Service != "prometheus" {
			continue
		}
		if p, ok := e.Params.(map[string]any); ok {
			if q, _ := p["query"].(string); strings.Contains(q, `container="cart"`) {
				queries = append(queries, e.Method+" "+q)
			}
		}
	}
	assert.Contains(t, queries, `GET /api/v1/query_range max by (pod) (container_memory_working_set_bytes{namespace="shop", container="cart"})`)
	assert.Contains(t, queries, `GET /api/v1/query max by (pod) (kube_pod_container_resource_limits{namespace="shop", container="cart", resource="memory"})`)

	assert.Equal(t, plain.RootCause.Service, res.RootCause.Service)
	assert.Equal(t, plain.RootCause.Bucket, res.RootCause.Bucket)
	assert.Equal(t, plain.RootCause.ErrorType, res.RootCause.ErrorType)
	assert.Equal(t, plain.RootCause.File, res.RootCause.File)
	assert.Equal(t, len(plain.Timeline)+2, len(res.Timeline), "two calls more, no other change")

	text := investigate.FormatText(res)
	assert.Contains(t, text, "Runbook      container-oomkilled.md")
	assert.Contains(t, text, "runbook container-oomkilled.md#working-set")
}

// A runbook that needs the evidence's bucket runs its hints in the second
// round, once the first round has classified the incident; one whose
// bucket the evidence does not reach never runs.
func TestBucketRunbookRunsAfterClassification(t *testing.T) {
	const infra = "---\nmatch:\n  buckets: [infrastructure]\n  services: [cart]\ntools:\n  - {name: restarts, kind: promql, query: 'sum(kube_pod_container_status_restarts_total{container=\"${service}\"})'}\n---\n# Infra\nCheck the limits.\n"
	const code = "---\nmatch:\n  buckets: [code_bug]\ntools:\n  - {name: up, kind: promql_instant, query: up}\n---\n# Code\nRead the stack.\n"
	lib, err := runbooks.Load(writeLib(t, map[string]string{"infra.md": infra, "code.md": code}))
	require.NoError(t, err)
	s, err := scenario.Load(oomScenario)
	require.NoError(t, err)
	res, err := harness.Run(context.Background(), s, harness.RunOptions{Engine: investigate.Options{Runbooks: lib}})
	require.NoError(t, err)
	require.Equal(t, investigate.BucketInfrastructure, res.RootCause.Bucket)
	assert.Equal(t, []string{"infra.md"}, res.Runbooks)
	var hints []string
	for _, rc := range res.Timeline {
		if rc.Runbook != "" {
			hints = append(hints, rc.Runbook)
			assert.True(t, rc.OK, rc.Error)
		}
	}
	assert.Equal(t, []string{"infra.md#restarts"}, hints)
}
