package k8smcp

import (
	"context"
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sim"
)

const (
	cartDir    = "../../testdata/examples/cart-oomkilled-low-limit"
	payoutsDir = "../../testdata/scenarios/payouts-worker-crashloop-renamed-env"
)

func load(t *testing.T, dir string) *scenario.Scenario {
	t.Helper()
	s, err := scenario.Load(dir)
	require.NoError(t, err)
	return s
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// httpClient connects the go-sdk client over streamable HTTP.
func httpClient(t *testing.T, s *scenario.Scenario, opts Options) *mcp.ClientSession {
	t.Helper()
	url, stop, err := StartWith(s, opts)
	require.NoError(t, err)
	t.Cleanup(stop)
	return connect(t, &mcp.StreamableClientTransport{Endpoint: url})
}

func connect(t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctxT(t), tr, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	assert.Equal(t, ServerName, cs.InitializeResult().ServerInfo.Name)
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(ctxT(t), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	require.Len(t, res.Content, 1, "one text content, as the real server answers")
	tc, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok)
	return tc.Text, res.IsError
}

func TestToolsAreTheRealServersReadOnlyTools(t *testing.T) {
	cs := httpClient(t, load(t, cartDir), Options{})
	res, err := cs.ListTools(ctxT(t), nil)
	require.NoError(t, err)
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		require.NotNil(t, tl.Annotations, tl.Name)
		assert.True(t, tl.Annotations.ReadOnlyHint, tl.Name)
		require.NotNil(t, tl.Annotations.DestructiveHint, tl.Name)
		assert.False(t, *tl.Annotations.DestructiveHint, tl.Name)
		assert.True(t, *tl.Annotations.OpenWorldHint, tl.Name)
		assert.Equal(t, tl.Title, tl.Annotations.Title, "the real server copies the title into the annotations")
		schema := tl.InputSchema.(map[string]any)
		assert.Equal(t, "object", schema["type"])
		assert.NotNil(t, schema["properties"], "properties always present, as the real server ensures")
	}
	assert.ElementsMatch(t, []string{"pods_list", "pods_list_in_namespace", "pods_get", "pods_log", "events_list",
		"namespaces_list", "resources_list", "resources_get"}, names)
}

func TestUnsafeModeOffersWriteTools(t *testing.T) {
	cs := httpClient(t, load(t, cartDir), Options{Unsafe: true})
	res, err := cs.ListTools(ctxT(t), nil)
	require.NoError(t, err)
	ann := map[string]*mcp.ToolAnnotations{}
	for _, tl := range res.Tools {
		ann[tl.Name] = tl.Annotations
	}
	require.Contains(t, ann, "pods_delete")
	assert.True(t, *ann["pods_delete"].DestructiveHint)
	assert.True(t, ann["pods_delete"].IdempotentHint)
	assert.True(t, *ann["resources_create_or_update"].DestructiveHint)
	assert.False(t, ann["pods_run"].ReadOnlyHint, "pods_run is not annotated read-only")
	assert.True(t, ann["configuration_view"].ReadOnlyHint)
}

func TestPodsListInNamespaceYAML(t *testing.T) {
	tr := sim.NewTranscript(nil)
	cs := httpClient(t, load(t, cartDir), Options{Transcript: tr})
	text, isErr := call(t, cs, "pods_list_in_namespace", map[string]any{"namespace": "shop"})
	require.False(t, isErr, text)
	var pods []map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(text), &pods))
	assert.Len(t, pods, 15)
	assert.Equal(t, "Pod", pods[0]["kind"])

	text, _ = call(t, cs, "pods_list_in_namespace", map[string]any{"namespace": "shop", "labelSelector": "app.kubernetes.io/name=cart"})
	require.NoError(t, yaml.Unmarshal([]byte(text), &pods))
	require.Len(t, pods, 3)
	for _, p := range pods {
		n := p["metadata"].(map[string]any)["name"].(string)
		assert.True(t, strings.HasPrefix(n, "cart-"), n)
	}

	text, _ = call(t, cs, "pods_list", map[string]any{"fieldSelector": "spec.nodeName=ip-10-0-3-87.ec2.internal"})
	require.NoError(t, yaml.Unmarshal([]byte(text), &pods))
	assert.Len(t, pods, 4)

	methods := map[string]int{}
	for _, e := range tr.Filter(ServiceName) {
		methods[e.Method]++
	}
	assert.Equal(t, 2, methods["tools/call pods_list_in_namespace"])
	assert.Equal(t, 1, methods["tools/call pods_list"])
}

func TestTableOutputMatchesTheRealServer(t *testing.T) {
	cs := httpClient(t, load(t, cartDir), Options{ListOutput: OutputTable})
	text, isErr := call(t, cs, "pods_list_in_namespace", map[string]any{"namespace": "shop"})
	require.False(t, isErr)
	assert.Regexp(t, regexp.MustCompile(`NAMESPACE\s+APIVERSION\s+KIND\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES\s+LABELS`), text)
	assert.Regexp(t, regexp.MustCompile(`shop\s+v1\s+Pod\s+cart-dzq4gtp8tn-wp7rz\s+0/1\s+CrashLoopBackOff\s+6 \(\d+m\d*s? ago\)`), text)
}

func TestPodsGetAndResources(t *testing.T) {
	cs := httpClient(t, load(t, cartDir), Options{})
	text, isErr := call(t, cs, "pods_get", map[string]any{"namespace": "shop", "name": "cart-dzq4gtp8tn-wp7rz"})
	require.False(t, isErr, text)
	var pod map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(text), &pod))
	assert.Equal(t, "cart-dzq4gtp8tn-wp7rz", pod["metadata"].(map[string]any)["name"])
	assert.Contains(t, text, "OOMKilled")

	text, isErr = call(t, cs, "pods_get", map[string]any{"namespace": "shop", "name": "nope"})
	assert.True(t, isErr)
	assert.Equal(t, `failed to get pod nope in namespace shop: pods "nope" not found`, text)

	text, isErr = call(t, cs, "resources_list", map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "shop"})
	require.False(t, isErr)
	var deps []map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(text), &deps))
	assert.Len(t, deps, 10)

	text, isErr = call(t, cs, "resources_get", map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "shop", "name": "cart"})
	require.False(t, isErr)
	assert.Contains(t, text, "128Mi")

	text, isErr = call(t, cs, "resources_get", map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "shop", "name": "ghost"})
	assert.True(t, isErr)
	assert.Contains(t, text, `deployments.apps "ghost" not found`)

	text, isErr = call(t, cs, "resources_list", map[string]any{"apiVersion": "v1", "kind": "Pod", "labelSelector": "a in (b"})
	assert.True(t, isErr, text)
}

func TestEventsListFormat(t *testing.T) {
	cs := httpClient(t, load(t, cartDir), Options{})
	text, isErr := call(t, cs, "events_list", map[string]any{"namespace": "shop"})
	require.False(t, isErr)
	header, body, ok := strings.Cut(text, "\n")
	require.True(t, ok)
	assert.Equal(t, "# The following events (YAML format) were found:", header)
	var evs []map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(body), &evs))
	require.Len(t, evs, 12)
	var backoff map[string]any
	for _, e := range evs {
		if e["Reason"] == "BackOff" && strings.Contains(e["Message"].(string), "wp7rz") {
			backoff = e
		}
	}
	require.NotNil(t, backoff)
	assert.Equal(t, "Warning", backoff["Type"])
	assert.Equal(t, "2026-11-27 18:35:23 +0000 UTC", backoff["Timestamp"], "lastTimestamp of a repeated event, Go time format")
	assert.Equal(t, map[string]any{"apiVersion": "v1", "Kind": "Pod", "Name": "cart-dzq4gtp8tn-wp7rz"}, backoff["InvolvedObject"])

	text, _ = call(t, cs, "events_list", map[string]any{"namespace": "nowhere"})
	assert.Equal(t, "# No events found", text)
}

func TestPodsLogPreviousContainer(t *testing.T) {
	cs := httpClient(t, load(t, payoutsDir), Options{})
	text, isErr := call(t, cs, "pods_log", map[string]any{"namespace": "payments", "name": "payouts-worker-79f5cw5zl-6bgzv", "previous": true, "tail": 5})
	require.False(t, isErr, text)
	lines := strings.Split(strings.TrimSpace(text), "\n")
	assert.LessOrEqual(t, len(lines), 5)
	assert.Contains(t, text, "required env PAYOUTS_BANK_API_URL is empty")

	text, isErr = call(t, cs, "pods_log", map[string]any{"namespace": "payments", "name": "payouts-api-9866h6f4w-dstt7", "previous": true})
	assert.True(t, isErr, "no terminated container")
	assert.Contains(t, text, "previous terminated container")

	text, isErr = call(t, cs, "pods_log", map[string]any{"namespace": "payments", "name": "missing-pod"})
	assert.True(t, isErr)
	assert.Contains(t, text, `pods "missing-pod" not found`)
}

func TestNamespacesList(t *testing.T) {
	cs := httpClient(t, load(t, cartDir), Options{})
	text, isErr := call(t, cs, "namespaces_list", nil)
	require.False(t, isErr)
	assert.Contains(t, text, "name: shop")
}

func TestServeOverStdioStreams(t *testing.T) {
	s := load(t, cartDir)
	srv, err := New(s, Options{})
	require.NoError(t, err)
	clientToServerR, clientToServerW := io.Pipe()
	serverToClientR, serverToClientW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, clientToServerR, serverToClientW) }()

	cs := connect(t, &mcp.IOTransport{Reader: serverToClientR, Writer: clientToServerW})
	text, isErr := call(t, cs, "pods_get", map[string]any{"name": "cart-dzq4gtp8tn-98hrq"})
	require.False(t, isErr, text)
	assert.Contains(t, text, "OOMKilled")

	_ = cs.Close()
	cancel()
	_ = clientToServerW.Close()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("stdio server did not stop")
	}
}

func TestServeStdioLoadsTheScenario(t *testing.T) {
	err := ServeStdio(context.Background(), "/nonexistent/scenario", strings.NewReader(""), io.Discard)
	assert.Error(t, err)
}

func TestSelectors(t *testing.T) {
	reqs, err := parseLabelSelector("app=cart, tier in (web, api),!legacy,env!=dev")
	require.NoError(t, err)
	assert.True(t, matchLabels(reqs, map[string]string{"app": "cart", "tier": "api", "env": "prod"}))
	assert.False(t, matchLabels(reqs, map[string]string{"app": "cart", "tier": "db"}))
	assert.False(t, matchLabels(reqs, map[string]string{"app": "cart", "tier": "web", "legacy": "1"}))
	assert.False(t, matchLabels(reqs, map[string]string{"app": "cart", "tier": "web", "env": "dev"}))
	_, err = parseLabelSelector("bad key=1")
	assert.Error(t, err)
	_, err = parseFieldSelector("spec.unknown=1")
	assert.Error(t, err)
	f, err := parseFieldSelector("status.phase!=Running")
	require.NoError(t, err)
	assert.True(t, matchFields(f, &object{Raw: map[string]any{"status": map[string]any{"phase": "Failed"}}}))
}

func TestHumanDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		30 * time.Second:              "30s",
		5*time.Minute + 3*time.Second: "5m3s",
		47 * time.Minute:              "47m",
		5*time.Hour + 12*time.Minute:  "5h12m",
		30 * time.Hour:                "30h",
		3*24*time.Hour + 4*time.Hour:  "3d4h",
		40 * 24 * time.Hour:           "40d",
	} {
		assert.Equal(t, want, humanDuration(d))
	}
}

func TestObjectsListedUnderEveryVersionOfTheirGroup(t *testing.T) {
	list := `{"apiVersion":"v1","kind":"List","items":[
	 {"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"web","namespace":"shop"},"spec":{"maxReplicas":4}},
	 {"kind":"Ingress","metadata":{"name":"public","namespace":"shop"},"spec":{}}]}`
	var k scenario.K8sList
	require.NoError(t, json.Unmarshal([]byte(list), &k))
	cs := httpClient(t, &scenario.Scenario{Name: "versions", K8s: &k}, Options{})

	text, isErr := call(t, cs, "resources_list", map[string]any{"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "namespace": "shop"})
	require.False(t, isErr, text)
	assert.Contains(t, text, "name: web", "an autoscaling/v1 object is served as autoscaling/v2 too")

	text, _ = call(t, cs, "resources_list", map[string]any{"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "namespace": "shop"})
	assert.Contains(t, text, "name: public", "a kind without apiVersion takes its group's")

	text, _ = call(t, cs, "resources_list", map[string]any{"apiVersion": "apps/v1", "kind": "HorizontalPodAutoscaler", "namespace": "shop"})
	assert.NotContains(t, text, "name: web", "another group is another resource")
}
