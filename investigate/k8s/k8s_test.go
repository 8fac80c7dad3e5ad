package k8s

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/mcp"
	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sim"
	"github.com/autoheal/autoheal/sim/k8smcp"
)

const (
	examples = "../../testdata/examples"
	corpus   = "../../testdata/scenarios"
)

// helperFlag makes the test binary serve a scenario over stdio (see TestMain).
const helperFlag = "-k8smcp-stdio-helper"

func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == helperFlag {
		if err := k8smcp.ServeStdio(context.Background(), os.Args[2], os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

type fixture struct {
	cap *Capability
	tr  *sim.Transcript
	sc  *scenario.Scenario
}

func start(t *testing.T, dir string, opts k8smcp.Options, cfg Config) *fixture {
	t.Helper()
	sc, err := scenario.Load(dir)
	require.NoError(t, err)
	require.NotNil(t, sc.K8s, "scenario has k8s.json")
	if opts.Transcript == nil {
		opts.Transcript = sim.NewTranscript(nil)
	}
	url, stop, err := k8smcp.StartWith(sc, opts)
	require.NoError(t, err)
	t.Cleanup(stop)
	cfg.URL = url
	c := New(cfg)
	t.Cleanup(func() { _ = c.Close() })
	return &fixture{cap: c, tr: opts.Transcript, sc: sc}
}

func (f *fixture) status(t *testing.T, args string) *investigate.ToolResult {
	t.Helper()
	res, err := f.cap.Call(ctxT(t), ToolWorkloadStatus, json.RawMessage(args))
	require.NoError(t, err)
	return res
}

func (f *fixture) calls(method string) int {
	n := 0
	for _, e := range f.tr.Filter(k8smcp.ServiceName) {
		if e.Method == method {
			n++
		}
	}
	return n
}

func bySig(fs []investigate.Finding, service, sig string) *investigate.Finding {
	for i := range fs {
		if fs[i].Service == service && fs[i].Signature == sig {
			return &fs[i]
		}
	}
	return nil
}

func services(fs []investigate.Finding) map[string]bool {
	out := map[string]bool{}
	for _, f := range fs {
		out[f.Service] = true
	}
	return out
}

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestCartOOMKilledLowLimit(t *testing.T) {
	fx := start(t, examples+"/cart-oomkilled-low-limit", k8smcp.Options{}, Config{})
	res := fx.status(t, `{"namespace":"shop"}`)

	require.Len(t, res.Findings, 1, "only cart: checkout, frontend and the currency decoys are healthy in Kubernetes")
	f := res.Findings[0]
	assert.Equal(t, investigate.KindK8sEvent, f.Kind)
	assert.Equal(t, investigate.FamilyK8s, f.Family)
	assert.Equal(t, "cart", f.Service)
	assert.Equal(t, "k8s-oomkilled", f.Signature)
	assert.Equal(t, investigate.ErrOOM, f.ErrorType)
	assert.Equal(t, "128Mi", f.Attrs["memory_limit"])
	assert.Equal(t, "64Mi", f.Attrs["memory_request"])
	assert.Equal(t, "137", f.Attrs["exit_code"])
	assert.Equal(t, "OOMKilled", f.Attrs["reason"])
	assert.Equal(t, "cart", f.Attrs["container"])
	assert.Equal(t, "3", f.Attrs["pods_affected"])
	assert.Equal(t, "ghcr.io/acme/cart:1.14.0", f.Attrs["image"])
	assert.Equal(t, 16, f.Count, "restarts of the three pods")
	assert.Equal(t, mustTime("2026-11-27T18:07:31Z"), f.Time, "the first crash back-off")
	assert.Equal(t, mustTime("2026-11-27T18:35:25Z"), f.LastTime, "the last OOM kill")
	assert.Contains(t, f.Quote, "OOMKilled (exit 137)")
	assert.Contains(t, f.Quote, "memory limit 128Mi")

	assert.Contains(t, res.Summary, "cart: container OOM-killed")
	assert.Equal(t, 1, fx.calls("tools/call pods_list_in_namespace"))
	assert.Zero(t, fx.calls("tools/call pods_list"))
	assert.Zero(t, fx.calls("tools/call pods_log"), "OOM kills explain themselves: no log reading")
}

func TestPayoutsWorkerCrashLoopRenamedEnv(t *testing.T) {
	fx := start(t, corpus+"/payouts-worker-crashloop-renamed-env", k8smcp.Options{}, Config{})
	res := fx.status(t, `{}`)

	loop := bySig(res.Findings, "payouts-worker", "missing-env")
	require.NotNil(t, loop, "%+v", res.Findings)
	assert.Equal(t, investigate.KindK8sEvent, loop.Kind, "the crash loop now carries its cause")
	assert.Equal(t, investigate.ErrConfig, loop.ErrorType)
	assert.Equal(t, "PAYOUTS_BANK_API_URL", loop.Attrs["env_var"])
	assert.Equal(t, "false", loop.Attrs["env_defined"])
	assert.Equal(t, "BANK_API_URL", loop.Attrs["env_similar"], "the renamed variable")
	assert.Equal(t, "CrashLoopBackOff", loop.Attrs["reason"])
	assert.Equal(t, 24, loop.Count)
	assert.Contains(t, loop.Quote, "required env PAYOUTS_BANK_API_URL is empty")

	var logs *investigate.Finding
	for i := range res.Findings {
		if res.Findings[i].Kind == investigate.KindLogPattern {
			logs = &res.Findings[i]
		}
	}
	require.NotNil(t, logs)
	assert.Equal(t, "payouts-worker", logs.Service)
	assert.Equal(t, investigate.FamilyK8s, logs.Family)
	assert.Equal(t, "missing-env", logs.Signature)
	assert.Equal(t, "previous_container_logs", logs.Attrs["source"])

	assert.False(t, services(res.Findings)["payouts-api"], "one old restart of payouts-api explains nothing")
	assert.Nil(t, bySig(res.Findings, "payouts-worker", "k8s-crashloop"), "no bare crash-loop symptom once the cause is known")
	previous, current := 0, 0
	for _, e := range fx.tr.Filter(k8smcp.ServiceName) {
		if e.Method == "tools/call pods_log" {
			if e.Params.(map[string]any)["previous"] == true {
				previous++
			} else {
				current++
			}
		}
	}
	assert.LessOrEqual(t, previous, DefaultLogPods, "previous logs of a few crashed containers")
	assert.LessOrEqual(t, current, maxCurrentLogPods, "current logs of a few running workloads")
}

func TestPodcastIngestImagePullBackOff(t *testing.T) {
	fx := start(t, corpus+"/podcast-ingest-imagepullbackoff-tag", k8smcp.Options{}, Config{})
	res := fx.status(t, `{"namespace":"audio"}`)
	f := bySig(res.Findings, "podcast-ingest", "k8s-imagepull")
	require.NotNil(t, f, "%+v", res.Findings)
	assert.Equal(t, investigate.ErrConfig, f.ErrorType)
	assert.Equal(t, "ghcr.io/northwave-audio/podcast-ingest:v2.14.0", f.Attrs["image"])
	assert.Equal(t, "ghcr.io/northwave-audio/podcast-ingest:2.13.2", f.Attrs["previous_image"])
	assert.Equal(t, "ImagePullBackOff", f.Attrs["reason"])
	assert.Equal(t, mustTime("2026-02-24T12:49:02Z"), f.Time)
	assert.Contains(t, f.Quote, "not found")
	assert.Equal(t, map[string]bool{"podcast-ingest": true}, services(res.Findings), "feed-poller is healthy; rollout events are not findings")
}

func TestSearchAPIReadinessProbeWrongPort(t *testing.T) {
	fx := start(t, corpus+"/search-api-readiness-probe-wrong-port", k8smcp.Options{}, Config{})
	res := fx.status(t, `{}`)
	f := bySig(res.Findings, "search-api", "k8s-probe")
	require.NotNil(t, f, "%+v", res.Findings)
	assert.Equal(t, "readiness", f.Attrs["probe"])
	assert.Equal(t, "8080", f.Attrs["probe_port"])
	assert.Equal(t, "8081", f.Attrs["container_ports"])
	assert.Equal(t, "true", f.Attrs["probe_port_mismatch"])
	assert.Equal(t, "search-api", f.Attrs["container"])
	assert.Equal(t, "2", f.Attrs["pods_affected"])
	assert.Equal(t, 1280, f.Count)
	assert.Contains(t, f.Quote, "targets port 8080 but container search-api listens on 8081")
	assert.False(t, services(res.Findings)["catalog-indexer"], "a Killing event is not a finding")
}

func TestNodeMemoryPressureEvictions(t *testing.T) {
	fx := start(t, corpus+"/node-memory-pressure-report-job-evictions", k8smcp.Options{}, Config{})
	res := fx.status(t, `{}`)
	const node = "ip-10-2-3-44.eu-west-1.compute.internal"

	hog := bySig(res.Findings, "nightly-report", "k8s-evicted")
	require.NotNil(t, hog, "%+v", res.Findings)
	assert.Equal(t, investigate.ErrResourceExhaustion, hog.ErrorType)
	assert.Equal(t, "no_memory_limit_on_pressured_node", hog.Attrs["role"])
	assert.Equal(t, "none", hog.Attrs["memory_limit"])
	assert.Equal(t, "256Mi", hog.Attrs["memory_request"])
	assert.Equal(t, node, hog.Attrs["node"])
	assert.Equal(t, mustTime("2026-01-08T02:21:14Z"), hog.Time, "when the node entered MemoryPressure")

	victims := bySig(res.Findings, "storefront-web", "k8s-evicted")
	require.NotNil(t, victims)
	assert.Equal(t, "Evicted", victims.Attrs["reason"])
	assert.Equal(t, node, victims.Attrs["node"])
	assert.Contains(t, victims.Quote, "evicted from node "+node)
	assert.Equal(t, "nightly-report", victims.Attrs["pressure_suspects"], "victims point at what fills the node")

	for _, f := range res.Findings {
		assert.NotEqual(t, "storefront-tls", f.Service, "certificate issuing is normal")
	}
	data := res.Data.(map[string]any)
	require.Contains(t, data, "nodes_under_pressure")
}

func TestPressuredNodeSeenFromAnotherNamespace(t *testing.T) {
	fx := start(t, corpus+"/node-memory-pressure-report-job-evictions", k8smcp.Options{}, Config{})
	res := fx.status(t, `{"namespace":"storefront"}`)
	require.NotNil(t, bySig(res.Findings, "storefront-web", "k8s-evicted"))
	hog := bySig(res.Findings, "nightly-report", "k8s-evicted")
	require.NotNil(t, hog, "the job in namespace analytics shares the pressured node")
	assert.Equal(t, "analytics", hog.Attrs["namespace"])
	assert.Equal(t, 1, fx.calls("tools/call pods_list"), "one cluster-wide read, by node")
}

func TestHealthyNamespaceWidensToTheCluster(t *testing.T) {
	fx := start(t, corpus+"/search-api-readiness-probe-wrong-port", k8smcp.Options{}, Config{})
	res := fx.status(t, `{"namespace":"edge"}`)
	f := bySig(res.Findings, "search-api", "k8s-probe")
	require.NotNil(t, f, "%+v", res.Findings)
	assert.Equal(t, "edge", f.Attrs["outside_namespace"])
	assert.Equal(t, investigate.ErrConfig, f.ErrorType, "a probe on a port the container does not listen on is misconfigured")
	assert.Contains(t, res.Summary, "nothing wrong in namespace edge")
	assert.Equal(t, "edge", res.Data.(map[string]any)["widened_from_namespace"])

	healthy := start(t, corpus+"/catalog-web-n-plus-one-timeouts", k8smcp.Options{}, Config{})
	res = healthy.status(t, `{"namespace":"nowhere"}`)
	assert.Empty(t, res.Findings)
	assert.NotContains(t, res.Summary, "cluster-wide", "a healthy cluster keeps the namespace answer")
}

func TestAnsweredProbeIsASymptom(t *testing.T) {
	fx := start(t, corpus+"/export-service-networkpolicy-blocks-redis", k8smcp.Options{}, Config{})
	res := fx.status(t, `{}`)
	f := bySig(res.Findings, "export-service", "k8s-probe")
	require.NotNil(t, f)
	assert.Empty(t, f.Attrs["probe_port_mismatch"])
	assert.Equal(t, investigate.ErrNetwork, f.ErrorType, "503s from a well-configured probe support the error the crash logs show")
	assert.Equal(t, "previous_container_logs", f.Attrs["error_type_from"])
	logs := bySig(res.Findings, "export-service", "connect-timeout")
	require.NotNil(t, logs, "%+v", res.Findings)
	assert.Equal(t, investigate.KindLogPattern, logs.Kind)
}

func TestOrdersDBSecretKeyRenamed(t *testing.T) {
	fx := start(t, corpus+"/orders-db-secret-key-renamed", k8smcp.Options{}, Config{})
	res := fx.status(t, `{"services":["orders-api"]}`)
	f := bySig(res.Findings, "orders-api", "k8s-configerror")
	require.NotNil(t, f, "%+v", res.Findings)
	assert.Equal(t, investigate.ErrConfig, f.ErrorType)
	assert.Equal(t, "orders-db", f.Attrs["secret"])
	assert.Equal(t, "DB_PASSWORD", f.Attrs["secret_key"])
	assert.Equal(t, "DB_PASSWORD", f.Attrs["env_var"])
	assert.Equal(t, "CreateContainerConfigError", f.Attrs["reason"])
	assert.Equal(t, 180, f.Count, "the Failed event repeats")
	assert.Equal(t, map[string]bool{"orders-api": true}, services(res.Findings))
}

func TestNoiseKeepsTimingAndCounts(t *testing.T) {
	fx := start(t, corpus+"/quote-engine-oomkilled-helm-limit", k8smcp.Options{}, Config{})
	res := fx.status(t, `{}`)
	oom := bySig(res.Findings, "quote-engine", "k8s-oomkilled")
	require.NotNil(t, oom)
	old := bySig(res.Findings, "broker-portal", "conn-refused")
	require.NotNil(t, old, "one restart hours ago is reported...")
	assert.Equal(t, 1, old.Count, "...with its count")
	assert.True(t, old.Time.Before(oom.Time.Add(-6*time.Hour)), "...and its time, so that the engine can weigh it")
	assert.Greater(t, oom.Count, 10)
}

func TestServicesFilter(t *testing.T) {
	fx := start(t, corpus+"/quote-engine-oomkilled-helm-limit", k8smcp.Options{}, Config{})
	res := fx.status(t, `{"services":["broker-portal"]}`)
	assert.Equal(t, map[string]bool{"broker-portal": true}, services(res.Findings))
}

func TestTableAndJSONListOutputs(t *testing.T) {
	for _, out := range []string{k8smcp.OutputTable, k8smcp.OutputJSON} {
		t.Run(out, func(t *testing.T) {
			fx := start(t, examples+"/cart-oomkilled-low-limit", k8smcp.Options{ListOutput: out}, Config{Namespace: "shop"})
			res := fx.status(t, `{}`)
			f := bySig(res.Findings, "cart", "k8s-oomkilled")
			require.NotNil(t, f, "%+v", res.Findings)
			assert.Equal(t, "128Mi", f.Attrs["memory_limit"])
			assert.Equal(t, 16, f.Count)
			if out == k8smcp.OutputTable {
				assert.Equal(t, 3, fx.calls("tools/call pods_get"), "only the unhealthy pods are read one by one")
			}
		})
	}
}

func TestTableOutputReadsNodesAndReplicaSetsOneByOne(t *testing.T) {
	fx := start(t, corpus+"/podcast-ingest-imagepullbackoff-tag", k8smcp.Options{ListOutput: k8smcp.OutputTable}, Config{})
	res := fx.status(t, `{"namespace":"audio"}`)
	f := bySig(res.Findings, "podcast-ingest", "k8s-imagepull")
	require.NotNil(t, f, "%+v", res.Findings)
	assert.Equal(t, "ghcr.io/northwave-audio/podcast-ingest:2.13.2", f.Attrs["previous_image"], "ReplicaSets read with resources_get")

	fx = start(t, corpus+"/node-memory-pressure-report-job-evictions", k8smcp.Options{ListOutput: k8smcp.OutputTable}, Config{})
	res = fx.status(t, `{}`)
	hog := bySig(res.Findings, "nightly-report", "k8s-evicted")
	require.NotNil(t, hog, "node conditions read with resources_get: %+v", res.Findings)
	assert.LessOrEqual(t, fx.calls("tools/call resources_get"), maxTableGets)
}

func TestToolsListedOnceAcrossInvestigations(t *testing.T) {
	fx := start(t, corpus+"/podcast-ingest-imagepullbackoff-tag", k8smcp.Options{}, Config{})
	for i := 0; i < 3; i++ {
		fx.status(t, `{}`)
	}
	assert.Equal(t, 1, fx.calls("tools/list"))
}

func TestOnlyReadOnlyToolsReachTheServer(t *testing.T) {
	fx := start(t, examples+"/cart-oomkilled-low-limit", k8smcp.Options{Unsafe: true}, Config{})
	fx.status(t, `{}`)
	ctx := ctxT(t)
	for _, tool := range []string{"pods_delete", "pods_run", "pods_exec", "resources_create_or_update", "resources_delete", "configuration_view"} {
		_, err := fx.cap.cl.CallTool(ctx, tool, json.RawMessage(`{"name":"cart-dzq4gtp8tn-wp7rz","namespace":"shop","image":"x","resource":"x","command":["sh"]}`))
		assert.Equal(t, investigate.ErrKindForbidden, investigate.KindOf(err), tool)
	}
	allowed := map[string]bool{}
	for _, tl := range mcp.KubernetesReadOnlyTools {
		allowed["tools/call "+tl] = true
	}
	for _, e := range fx.tr.Filter(k8smcp.ServiceName) {
		if strings.HasPrefix(e.Method, "tools/call ") {
			assert.True(t, allowed[e.Method], "%s reached the server", e.Method)
		}
	}
	tools, err := fx.cap.cl.Tools(ctx)
	require.NoError(t, err)
	for _, tl := range tools {
		if tl.Name == "pods_delete" || tl.Name == "pods_run" || tl.Name == "configuration_view" {
			assert.False(t, tl.Allowed, tl.Name)
		}
	}
}

func TestPassThroughTools(t *testing.T) {
	fx := start(t, corpus+"/payouts-worker-crashloop-renamed-env", k8smcp.Options{}, Config{Namespace: "payments"})
	ctx := ctxT(t)

	res, err := fx.cap.Call(ctx, ToolPodsLog, json.RawMessage(`{"name":"payouts-worker-79f5cw5zl-zrbgz","previous":true}`))
	require.NoError(t, err)
	require.NotEmpty(t, res.Findings)
	assert.Equal(t, "payouts-worker", res.Findings[0].Service)
	assert.Equal(t, "missing-env", res.Findings[0].Signature)
	assert.Equal(t, "PAYOUTS_BANK_API_URL", res.Findings[0].Attrs["env_var"])
	assert.Contains(t, res.Data.(map[string]any)["text"], "PAYOUTS_BANK_API_URL")

	res, err = fx.cap.Call(ctx, ToolPodsGet, json.RawMessage(`{"name":"payouts-worker-79f5cw5zl-zrbgz"}`))
	require.NoError(t, err)
	require.NotEmpty(t, res.Findings)
	assert.Equal(t, "k8s-crashloop", res.Findings[0].Signature)

	res, err = fx.cap.Call(ctx, ToolEventsList, nil)
	require.NoError(t, err)
	assert.NotNil(t, bySig(res.Findings, "payouts-worker", "k8s-crashloop"))

	res, err = fx.cap.Call(ctx, ToolResourcesGet, json.RawMessage(`{"apiVersion":"apps/v1","kind":"Deployment","name":"payouts-worker"}`))
	require.NoError(t, err)
	assert.Contains(t, res.Data.(map[string]any)["text"], "BANK_API_URL")

	_, err = fx.cap.Call(ctx, ToolPodsGet, json.RawMessage(`{"name":"no-such-pod"}`))
	assert.Equal(t, investigate.ErrKindToolError, investigate.KindOf(err), "isError is a failed call")

	for _, args := range []string{`{"apiVersion":"v1","kind":"Secret","name":"payouts-bank-credentials"}`, `{"apiVersion":"v1","kind":"secret"}`} {
		tool := ToolResourcesGet
		if !strings.Contains(args, "name") {
			tool = ToolResourcesList
		}
		_, err = fx.cap.Call(ctx, tool, json.RawMessage(args))
		assert.Equal(t, investigate.ErrKindForbidden, investigate.KindOf(err))
	}
	for _, e := range fx.tr.Filter(k8smcp.ServiceName) {
		assert.NotContains(t, fmt.Sprint(e.Params), "Secret", "Secrets are never requested")
	}

	_, err = fx.cap.Call(ctx, ToolPodsLog, json.RawMessage(`{"name":"x","bogus":1}`))
	assert.Equal(t, investigate.ErrKindInvalidArgs, investigate.KindOf(err))
	_, err = fx.cap.Call(ctx, "k8s_unknown", nil)
	assert.ErrorIs(t, err, investigate.ErrUnknownTool)
}

func TestToolSchemas(t *testing.T) {
	c := New(Config{URL: "http://127.0.0.1:1/mcp"})
	names := map[string]bool{}
	for _, s := range c.Tools() {
		names[s.Name] = true
		assert.Equal(t, investigate.FamilyK8s, s.Family)
		assert.NoError(t, mcp.CheckSchemaObject(s.Parameters), s.Name)
	}
	assert.True(t, names[ToolWorkloadStatus])
	assert.Len(t, names, 8)
}

func TestAvailability(t *testing.T) {
	av := New(Config{}).Availability()
	assert.False(t, av.Configured)
	assert.Equal(t, investigate.ErrKindNotConfigured, av.Kind)
	assert.Contains(t, av.Reason, "k8s_mcp_url")
	_, err := New(Config{}).Call(context.Background(), ToolWorkloadStatus, nil)
	assert.Equal(t, investigate.ErrKindNotConfigured, investigate.KindOf(err))

	av = New(Config{URL: "ftp://nope"}).Availability()
	assert.False(t, av.Configured)
	assert.Contains(t, av.Reason, "url")

	assert.True(t, New(Config{URL: "http://127.0.0.1:1/mcp"}).Availability().Configured, "configuration only, no network")

	srv := FromMCPConfig([]mcp.ServerConfig{{Name: "tickets", URL: "http://t"}, {Name: "kubernetes", Command: "kubernetes-mcp-server"}})
	require.NotNil(t, srv)
	assert.True(t, New(Config{Server: srv}).Availability().Configured)
	assert.Nil(t, FromMCPConfig(nil))
}

func TestUnreachableServerFailsTheCall(t *testing.T) {
	c := New(Config{URL: "http://127.0.0.1:1/mcp", Timeout: 2 * time.Second})
	defer c.Close()
	_, err := c.Call(ctxT(t), ToolWorkloadStatus, nil)
	assert.Equal(t, investigate.ErrKindUnreachable, investigate.KindOf(err))
}

func TestOverStdio(t *testing.T) {
	dir := corpus + "/payouts-worker-crashloop-renamed-env"
	c := New(Config{Server: &mcp.ServerConfig{Name: ServerName, Command: os.Args[0], Args: []string{helperFlag, dir}}})
	defer c.Close()
	res, err := c.Call(ctxT(t), ToolWorkloadStatus, json.RawMessage(`{"namespace":"payments"}`))
	require.NoError(t, err)
	f := bySig(res.Findings, "payouts-worker", "missing-env")
	require.NotNil(t, f, "%+v", res.Findings)
	assert.Equal(t, "PAYOUTS_BANK_API_URL", f.Attrs["env_var"])
}

func TestSharedManagerConnection(t *testing.T) {
	sc, err := scenario.Load(corpus + "/podcast-ingest-imagepullbackoff-tag")
	require.NoError(t, err)
	tr := sim.NewTranscript(nil)
	url, stop, err := k8smcp.Start(sc, tr)
	require.NoError(t, err)
	defer stop()
	m := mcp.NewManager(mcp.Options{}, 0)
	defer m.Close()
	for i := 0; i < 2; i++ {
		c := New(Config{URL: url, Manager: m})
		_, err := c.Call(ctxT(t), ToolWorkloadStatus, nil)
		require.NoError(t, err)
		require.NoError(t, c.Close(), "a shared client stays open")
	}
	lists := 0
	for _, e := range tr.Entries() {
		if e.Method == "tools/list" {
			lists++
		}
	}
	assert.Equal(t, 1, lists, "two investigations, one connection")
}

func TestBearerToken(t *testing.T) {
	sc, err := scenario.Load(corpus + "/podcast-ingest-imagepullbackoff-tag")
	require.NoError(t, err)
	srv, err := k8smcp.New(sc, k8smcp.Options{})
	require.NoError(t, err)
	const token = "k8s-mcp-session-token"
	h := srv.Handler()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer hs.Close()

	ok := New(Config{URL: hs.URL + "/mcp", Token: token})
	res, err := ok.Call(ctxT(t), ToolWorkloadStatus, nil)
	require.NoError(t, err)
	assert.NotNil(t, bySig(res.Findings, "podcast-ingest", "k8s-imagepull"))

	bad := New(Config{URL: hs.URL + "/mcp", Token: "wrong-" + token})
	_, err = bad.Call(ctxT(t), ToolWorkloadStatus, nil)
	assert.Equal(t, investigate.ErrKindUnauthorized, investigate.KindOf(err))
	assert.NotContains(t, err.Error(), token)
}

func TestDisruptionBudgetSelectingNoPods(t *testing.T) {
	fx := start(t, "../../testdata/holdout3/claims-api-pdb-selector-mismatch-node-upgrade", k8smcp.Options{}, Config{})
	res := fx.status(t, `{}`)

	f := bySig(res.Findings, "claims-api", "pdb-selects-nothing")
	require.NotNil(t, f, "claims-api's budget selects app=claims-api, its pods carry app.kubernetes.io/name")
	assert.Equal(t, investigate.ErrConfig, f.ErrorType)
	assert.Equal(t, "app=claims-api", f.Attrs["selector"])
	assert.Contains(t, f.Attrs["pod_labels"], "app.kubernetes.io/name=claims-api")
	assert.NotContains(t, f.Attrs["pod_labels"], "pod-template-hash")
	assert.Equal(t, "3", f.Attrs["pods_stopped"], "the pods stopped within ten minutes of the first")
	assert.Nil(t, bySig(res.Findings, "policy-api", "pdb-selects-nothing"), "policy-api's budget selects its pods")
	assert.Equal(t, 1, countArgs(fx, "PodDisruptionBudget"))
}

func TestDisruptionBudgetNeedsPlannedDisruptions(t *testing.T) {
	three := 0
	b := disruptionBudget{Metadata: meta{Name: "api", Namespace: "ns"}}
	b.Spec.Selector.MatchLabels = map[string]string{"app": "api-old"}
	b.Status.ExpectedPods = &three
	p := pod{Metadata: meta{Name: "api-7f6d5c9b8d-x7kq2", Namespace: "ns", Labels: map[string]string{"app": "api"}}}
	kill := func(name, at string) event {
		e := event{Reason: "Killing", Type: "Normal", FirstTimestamp: at, LastTimestamp: at}
		e.InvolvedObject.Kind, e.InvolvedObject.Name, e.InvolvedObject.Namespace = "Pod", name, "ns"
		return e
	}
	drain := event{Reason: "Drain", Type: "Normal", FirstTimestamp: "2026-06-16T14:20:00Z"}
	drain.InvolvedObject.Kind, drain.InvolvedObject.Name = "Node", "node-1"
	kills := []event{kill("api-7f6d5c9b8d-b4wzt", "2026-06-16T14:21:00Z"), kill("api-7f6d5c9b8d-m9rlv", "2026-06-16T14:21:30Z")}

	run := func(events []event) []investigate.Finding {
		a := newAnalyzer(&snapshot{pods: []pod{p}, events: events, budgets: []disruptionBudget{b}})
		a.scanPods()
		a.scanBudgets()
		fs, _ := a.findings(nil)
		return fs
	}
	assert.Nil(t, bySig(run(kills), "api", "pdb-selects-nothing"), "no drain: a budget that selects nothing did not matter")
	got := bySig(run(append(kills, drain)), "api", "pdb-selects-nothing")
	require.NotNil(t, got)
	assert.Equal(t, mustTime("2026-06-16T14:21:00Z"), got.Time, "when the first pod was stopped")
	assert.Nil(t, bySig(run([]event{kills[0], drain}), "api", "pdb-selects-nothing"), "one pod stopped is what a budget allows anyway")
}

// countArgs counts calls whose arguments mention s.
func countArgs(f *fixture, s string) int {
	n := 0
	for _, e := range f.tr.Filter(k8smcp.ServiceName) {
		if strings.Contains(fmt.Sprint(e.Params), s) {
			n++
		}
	}
	return n
}

func TestLivenessKillsAreCounted(t *testing.T) {
	fx := start(t, "../../testdata/holdout6/rx-api-liveness-probe-deep-healthcheck-restart-storm", k8smcp.Options{}, Config{})
	res := fx.status(t, `{"namespace":"rx"}`)
	f := bySig(res.Findings, "rx-api", "k8s-probe")
	require.NotNil(t, f)
	assert.Equal(t, "8", f.Attrs["liveness_kills"], "restarts the kubelet made for failing liveness (6 events, some repeated)")
	assert.Equal(t, "liveness,readiness", f.Attrs["probes"])
}
