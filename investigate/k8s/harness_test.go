package k8s_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/k8s"
	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sim/faults"
	"github.com/autoheal/autoheal/sim/k8smcp"
)

// withK8s is the RunOptions.Extra hook: a Kubernetes MCP simulator and the
// k8s capability for scenarios that have k8s.json.
func withK8s(_ context.Context, b *harness.Backends) ([]investigate.Capability, func(), error) {
	if b.Scenario.K8s == nil {
		return nil, nil, nil
	}
	url, stop, err := k8smcp.Start(b.Scenario, nil)
	if err != nil {
		return nil, nil, err
	}
	c := k8s.New(k8s.Config{URL: url, Namespace: b.Scenario.Config["namespace"]})
	return []investigate.Capability{c}, func() { _ = c.Close(); stop() }, nil
}

func TestEngineUsesKubernetesEvidence(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cases, sum, err := harness.Evaluate(ctx, []string{"../../testdata/examples/cart-oomkilled-low-limit"}, harness.RunOptions{Extra: withK8s})
	require.NoError(t, err)
	require.Len(t, cases, 1)
	c := cases[0]
	require.NoError(t, c.Err)
	assert.True(t, c.Score.RootCause, "root cause: %+v", c.Result.RootCause)
	assert.Zero(t, sum.HighWrong)
	var k8sCalls int
	for _, r := range c.Result.Timeline {
		if r.Family == investigate.FamilyK8s {
			k8sCalls++
			assert.True(t, r.OK, r.Error)
			assert.Equal(t, k8s.ToolWorkloadStatus, r.Tool)
		}
	}
	assert.Equal(t, 1, k8sCalls, "the deterministic planner calls k8s_workload_status once")
	var k8sEvidence bool
	for _, f := range c.Result.Evidence {
		if f.Family == investigate.FamilyK8s && f.Signature == "k8s-oomkilled" {
			k8sEvidence = true
		}
	}
	assert.True(t, k8sEvidence, "the OOM kill is part of the evidence")
}

// TestCorpusWithKubernetes compares the evaluation of the scenarios that
// have k8s.json with and without the Kubernetes capability. It reports;
// it asserts only that Kubernetes evidence never turns a correct root cause
// into a wrong HIGH.
func TestCorpusWithKubernetes(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus evaluation")
	}
	dirs, _ := filepath.Glob("../../testdata/scenarios/*/k8s.json")
	ex, _ := filepath.Glob("../../testdata/examples/*/k8s.json")
	dirs = append(dirs, ex...)
	for i := range dirs {
		dirs[i] = filepath.Dir(dirs[i])
	}
	sort.Strings(dirs)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	without, sumWithout, err := harness.Evaluate(ctx, dirs, harness.RunOptions{})
	require.NoError(t, err)
	with, sumWith, err := harness.Evaluate(ctx, dirs, harness.RunOptions{Extra: withK8s})
	require.NoError(t, err)
	var b strings.Builder
	for i := range with {
		w, o := with[i], without[i]
		if w.Result == nil || o.Result == nil {
			continue
		}
		fmt.Fprintf(&b, "%-50s without: %-5v %-14s %-22s %-6s | with: %-5v %-14s %-22s %-6s\n", w.Name,
			o.Score.RootCause, o.Result.RootCause.Bucket, o.Result.RootCause.Service, o.Result.RootCause.Band,
			w.Score.RootCause, w.Result.RootCause.Bucket, w.Result.RootCause.Service, w.Result.RootCause.Band)
	}
	t.Logf("\n%s\nwithout k8s: %+v\nwith k8s:    %+v", b.String(), sumWithout, sumWith)
	if os.Getenv("K8S_EVAL_STRICT") != "" { // engine weights change often; opt in
		assert.GreaterOrEqual(t, sumWith.RCCorrect, sumWithout.RCCorrect)
	}
	assert.LessOrEqual(t, sumWith.HighWrong, sumWithout.HighWrong, "Kubernetes evidence must not add wrong HIGH answers")
}

// TestThroughTheFaultInjector serves the simulator the way harness.Start
// serves the other simulators: behind sim/faults, so that latency and
// failures can be injected into Kubernetes calls too.
func TestThroughTheFaultInjector(t *testing.T) {
	sc, err := scenario.Load("../../testdata/scenarios/podcast-ingest-imagepullbackoff-tag")
	require.NoError(t, err)
	srv, err := k8smcp.New(sc, k8smcp.Options{})
	require.NoError(t, err)
	inj := faults.New(srv.Handler(), faults.Options{Service: "k8s"})
	hs := httptest.NewServer(inj)
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	require.NoError(t, inj.Set("/", faults.Fault{Latency: 20 * time.Millisecond}))
	c := k8s.New(k8s.Config{URL: hs.URL + k8smcp.Path})
	res, err := c.Call(ctx, k8s.ToolWorkloadStatus, nil)
	require.NoError(t, err)
	assert.NotEmpty(t, res.Findings)

	require.NoError(t, inj.Set("/", faults.Fault{Kind: faults.Status, Status: 503, Times: 100}))
	other := k8s.New(k8s.Config{URL: hs.URL + k8smcp.Path + "?fresh=1"})
	_, err = other.Call(ctx, k8s.ToolWorkloadStatus, nil)
	require.Error(t, err)
	assert.Contains(t, []investigate.ErrorKind{investigate.ErrKindServer, investigate.ErrKindUnreachable}, investigate.KindOf(err))
}
