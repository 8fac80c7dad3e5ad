package k8smcp

import (
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
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

// httpClient connects the real mcp-go client over streamable HTTP.
func httpClient(t *testing.T, s *scenario.Scenario, opts Options) *client.Client {
	t.Helper()
	url, stop, err := StartWith(s, opts)
	require.NoError(t, err)
	t.Cleanup(stop)
	cli, err := client.NewStreamableHttpClient(url)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cli.Close() })
	require.NoError(t, cli.Start(ctxT(t)))
	initialize(t, cli)
	return cli
}

func initialize(t *testing.T, cli *client.Client) {
	t.Helper()
	req := mcpgo.InitializeRequest{}
	req.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcpgo.Implementation{Name: "test", Version: "1"}
	res, err := cli.Initialize(ctxT(t), req)
	require.NoError(t, err)
	assert.Equal(t, ServerName, res.ServerInfo.Name)
}

func call(t *testing.T, cli *client.Client, name string, args map[string]any) (string, bool) {
	t.Helper()
	req := mcpgo.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := cli.CallTool(ctxT(t), req)
	require.NoError(t, err)
	require.NotEmpty(t, res.Content)
	tc, ok := mcpgo.AsTextContent(res.Content[0])
	require.True(t, ok)
	return tc.Text, res.IsError
}

func TestToolsAreTheRealServersReadOnlyTools(t *testing.T) {
	cli := httpClient(t, load(t, cartDir), Options{})
	res, err := cli.ListTools(ctxT(t), mcpgo.ListToolsRequest{})
	require.NoError(t, err)
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		require.NotNil(t, tl.Annotations.ReadOnlyHint, tl.Name)
		assert.True(t, *tl.Annotations.ReadOnlyHint, tl.Name)
		assert.False(t, *tl.Annotations.DestructiveHint, tl.Name)
		assert.Equal(t, "object", tl.InputSchema.Type)
	}
	assert.ElementsMatch(t, []string{"pods_list", "pods_list_in_namespace", "pods_get", "pods_log", "events_list",
		"namespaces_list", "resources_list", "resources_get"}, names)
}

func TestUnsafeModeOffersWriteTools(t *testing.T) {
	cli := httpClient(t, load(t, cartDir), Options{Unsafe: true})
	res, err := cli.ListTools(ctxT(t), mcpgo.ListToolsRequest{})
	require.NoError(t, err)
	ann := map[string]mcpgo.ToolAnnotation{}
	for _, tl := range res.Tools {
		ann[tl.Name] = tl.Annotations
	}
	require.Contains(t, ann, "pods_delete")
	assert.True(t, *ann["pods_delete"].DestructiveHint)
	assert.True(t, *ann["resources_create_or_update"].DestructiveHint)
	assert.Nil(t, ann["pods_run"].ReadOnlyHint, "pods_run is not annotated read-only")
	assert.True(t, *ann["configuration_view"].ReadOnlyHint)
}

func TestPodsListInNamespaceYAML(t *testing.T) {
	tr := sim.NewTranscript(nil)
	cli := httpClient(t, load(t, cartDir), Options{Transcript: tr})
	text, isErr := call(t, cli, "pods_list_in_namespace", map[string]any{"namespace": "shop"})
	require.False(t, isErr, text)
	var pods []map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(text), &pods))
	assert.Len(t, pods, 15)
	assert.Equal(t, "Pod", pods[0]["kind"])

	text, _ = call(t, cli, "pods_list_in_namespace", map[string]any{"namespace": "shop", "labelSelector": "app.kubernetes.io/name=cart"})
	require.NoError(t, yaml.Unmarshal([]byte(text), &pods))
	require.Len(t, pods, 3)
	for _, p := range pods {
		n := p["metadata"].(map[string]any)["name"].(string)
		assert.True(t, strings.HasPrefix(n, "cart-"), n)
	}

	text, _ = call(t, cli, "pods_list", map[string]any{"fieldSelector": "spec.nodeName=ip-10-0-3-87.ec2.internal"})
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
	cli := httpClient(t, load(t, cartDir), Options{ListOutput: OutputTable})
	text, isErr := call(t, cli, "pods_list_in_namespace", map[string]any{"namespace": "shop"})
	require.False(t, isErr)
	assert.Regexp(t, regexp.MustCompile(`NAMESPACE\s+APIVERSION\s+KIND\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES\s+LABELS`), text)
	assert.Regexp(t, regexp.MustCompile(`shop\s+v1\s+Pod\s+cart-dzq4gtp8tn-wp7rz\s+0/1\s+CrashLoopBackOff\s+6 \(\d+m\d*s? ago\)`), text)
}

func TestPodsGetAndResources(t *testing.T) {
	cli := httpClient(t, load(t, cartDir), Options{})
	text, isErr := call(t, cli, "pods_get", map[string]any{"namespace": "shop", "name": "cart-dzq4gtp8tn-wp7rz"})
	require.False(t, isErr, text)
	var pod map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(text), &pod))
	assert.Equal(t, "cart-dzq4gtp8tn-wp7rz", pod["metadata"].(map[string]any)["name"])
	assert.Contains(t, text, "OOMKilled")

	text, isErr = call(t, cli, "pods_get", map[string]any{"namespace": "shop", "name": "nope"})
	assert.True(t, isErr)
	assert.Equal(t, `failed to get pod nope in namespace shop: pods "nope" not found`, text)

	text, isErr = call(t, cli, "resources_list", map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "shop"})
	require.False(t, isErr)
	var deps []map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(text), &deps))
	assert.Len(t, deps, 10)

	text, isErr = call(t, cli, "resources_get", map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "shop", "name": "cart"})
	require.False(t, isErr)
	assert.Contains(t, text, "128Mi")

	text, isErr = call(t, cli, "resources_get", map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "shop", "name": "ghost"})
	assert.True(t, isErr)
	assert.Contains(t, text, `deployments.apps "ghost" not found`)

	text, isErr = call(t, cli, "resources_list", map[string]any{"apiVersion": "v1", "kind": "Pod", "labelSelector": "a in (b"})
	assert.True(t, isErr, text)
}

func TestEventsListFormat(t *testing.T) {
	cli := httpClient(t, load(t, cartDir), Options{})
	text, isErr := call(t, cli, "events_list", map[string]any{"namespace": "shop"})
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

	text, _ = call(t, cli, "events_list", map[string]any{"namespace": "nowhere"})
	assert.Equal(t, "# No events found", text)
}

func TestPodsLogPreviousContainer(t *testing.T) {
	cli := httpClient(t, load(t, payoutsDir), Options{})
	text, isErr := call(t, cli, "pods_log", map[string]any{"namespace": "payments", "name": "payouts-worker-79f5cw5zl-6bgzv", "previous": true, "tail": 5})
	require.False(t, isErr, text)
	lines := strings.Split(strings.TrimSpace(text), "\n")
	assert.LessOrEqual(t, len(lines), 5)
	assert.Contains(t, text, "required env PAYOUTS_BANK_API_URL is empty")

	text, isErr = call(t, cli, "pods_log", map[string]any{"namespace": "payments", "name": "payouts-api-9866h6f4w-dstt7", "previous": true})
	assert.True(t, isErr, "no terminated container")
	assert.Contains(t, text, "previous terminated container")

	text, isErr = call(t, cli, "pods_log", map[string]any{"namespace": "payments", "name": "missing-pod"})
	assert.True(t, isErr)
	assert.Contains(t, text, `pods "missing-pod" not found`)
}

func TestNamespacesList(t *testing.T) {
	cli := httpClient(t, load(t, cartDir), Options{})
	text, isErr := call(t, cli, "namespaces_list", nil)
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

	cli := client.NewClient(transport.NewIO(serverToClientR, clientToServerW, nil))
	require.NoError(t, cli.Start(ctxT(t)))
	initialize(t, cli)
	text, isErr := call(t, cli, "pods_get", map[string]any{"name": "cart-dzq4gtp8tn-98hrq"})
	require.False(t, isErr, text)
	assert.Contains(t, text, "OOMKilled")

	_ = cli.Close()
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
