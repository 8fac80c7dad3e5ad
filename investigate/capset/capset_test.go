package capset_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/config"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/capset"
	"github.com/autoheal/autoheal/investigate/k8s"
	"github.com/autoheal/autoheal/investigate/mcp"
	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sim/k8smcp"
)

const example = "../../testdata/examples/cart-oomkilled-low-limit"

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// Two MCP servers of a config file, both the Kubernetes MCP simulator:
// "kubernetes" over streamable HTTP backs the Kubernetes capability,
// "cluster-b" over SSE with a bearer token read from a file offers its
// allowlisted tools as cluster-b__<tool>.
func TestBuildOffersTheToolsOfTheConfiguredMCPServers(t *testing.T) {
	s, err := scenario.Load(example)
	require.NoError(t, err)

	k8sURL, stopK8s, err := k8smcp.Start(s, nil)
	require.NoError(t, err)
	t.Cleanup(stopK8s)

	const token = "t0ken-from-a-mounted-secret"
	simB, err := k8smcp.New(s, k8smcp.Options{})
	require.NoError(t, err)
	var unauthorized atomic.Int64
	sse := simB.SSEHandler()
	srvB := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			unauthorized.Add(1)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		sse.ServeHTTP(w, r)
	}))
	t.Cleanup(srvB.Close)

	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte(token+"\n"), 0o600))
	cfg := fmt.Sprintf(`
routing:
  default_channel: C0INCIDENTS
mcp_servers:
  - name: kubernetes
    url: %s
  - name: cluster-b
    transport: sse
    url: %s/sse
    headers:
      Authorization: {file: %s, prefix: "Bearer "}
    tools: [pods_list, events_list]
    timeout: 5s
`, k8sURL, srvB.URL, tokenFile)
	servers, err := mcp.ParseConfigFile("config.yaml", []byte(cfg))
	require.NoError(t, err)
	require.Len(t, servers, 2)

	mgr := mcp.NewManager(mcp.Options{}, 0)
	// Connections close before the simulators stop (cleanups run last first).
	t.Cleanup(func() { assert.NoError(t, mgr.Close()) })

	caps, err := capset.Build(ctxT(t), config.OperatorSettings(map[string]string{"namespace": "shop"}), capset.Options{MCP: mgr, MCPServers: servers})
	require.NoError(t, err)
	e := investigate.New(investigate.Options{Capabilities: caps})
	var names []string
	for _, ts := range e.ToolSpecs() {
		names = append(names, ts.Name)
	}
	assert.Contains(t, names, k8s.ToolWorkloadStatus, "the server named kubernetes backs the Kubernetes capability")
	assert.Contains(t, names, "cluster-b__pods_list")
	assert.Contains(t, names, "cluster-b__events_list")
	assert.NotContains(t, names, "cluster-b__pods_get", "not on the server's allowlist")
	for _, n := range names {
		assert.False(t, strings.HasPrefix(n, "kubernetes__"), "the Kubernetes server is not offered twice: %s", n)
	}

	var k8sCap, b investigate.Capability
	for _, c := range caps {
		switch {
		case c.Family() == investigate.FamilyK8s:
			k8sCap = c
		case c.Family() == investigate.FamilyMCP && len(c.Tools()) > 0 && strings.HasPrefix(c.Tools()[0].Name, "cluster-b__"):
			b = c
		}
	}
	require.NotNil(t, k8sCap)
	require.NotNil(t, b)

	res, err := b.Call(ctxT(t), "cluster-b__pods_list", json.RawMessage(`{}`))
	require.NoError(t, err)
	assert.Contains(t, res.Data.(map[string]any)["text"], "cart-", "the pods of the scenario")
	_, err = b.Call(ctxT(t), "cluster-b__pods_get", json.RawMessage(`{"name":"x"}`))
	assert.Error(t, err, "a tool off the allowlist is refused")

	res, err = k8sCap.Call(ctxT(t), k8s.ToolWorkloadStatus, json.RawMessage(`{"namespace":"shop","services":["cart"]}`))
	require.NoError(t, err)
	assert.Contains(t, res.Summary, "OOM-killed", "read through the kubernetes server of the config file")
	assert.Zero(t, unauthorized.Load(), "the token file's value went out as a bearer token")
}

// A server that cannot be reached still yields a capability, unavailable
// with the reason; Build without a manager says what is missing.
func TestBuildReportsUnreachableServers(t *testing.T) {
	servers, err := mcp.ParseConfigFile("config.yaml", []byte(`
mcp_servers:
  - name: gone
    url: http://127.0.0.1:1/mcp
    tools: [anything]
`))
	require.NoError(t, err)
	mgr := mcp.NewManager(mcp.Options{ConnectTimeout: 2 * time.Second}, 0)
	defer mgr.Close()
	caps, err := capset.Build(ctxT(t), config.Settings{}, capset.Options{MCP: mgr, MCPServers: servers})
	require.NoError(t, err)
	var gone investigate.Capability
	for _, c := range caps {
		if c.Family() == investigate.FamilyMCP {
			gone = c
		}
	}
	require.NotNil(t, gone)
	av := gone.Availability()
	assert.False(t, av.Configured)
	assert.Contains(t, av.Reason, "gone")

	_, err = capset.Build(ctxT(t), config.Settings{}, capset.Options{MCPServers: servers})
	assert.True(t, errors.Is(err, capset.ErrNoManager))
}
