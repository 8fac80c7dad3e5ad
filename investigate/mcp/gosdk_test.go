package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sim/k8smcp"
)

// These tests hold the client to MCP servers built on the official go-sdk
// (github.com/modelcontextprotocol/go-sdk), the SDK kubernetes-mcp-server
// uses: sim/k8smcp serves a scenario with that server's tools over stateful
// and stateless streamable HTTP and over stdio.

const (
	helperK8s     = "k8s-sim"
	helperK8sHTTP = "k8s-sim-http"
	cartScenario  = "../../testdata/examples/cart-oomkilled-low-limit"
)

// runK8sSim serves the simulator for a helper process.
func runK8sSim(mode string, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "k8s-sim: scenario directory required")
		return 2
	}
	sc, err := scenario.Load(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var versions []string
	if len(args) > 1 {
		versions = strings.Split(args[1], ",")
	}
	srv, err := k8smcp.New(sc, k8smcp.Options{ProtocolVersions: versions})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if mode == helperK8s {
		if err := srv.Serve(context.Background(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	fmt.Println(hs.URL)
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// logRecords collects the client's log lines.
type logRecords struct {
	mu   sync.Mutex
	msgs []map[string]string
}

func (l *logRecords) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecords) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logRecords) WithGroup(string) slog.Handler            { return l }
func (l *logRecords) Handle(_ context.Context, r slog.Record) error {
	m := map[string]string{"msg": r.Message}
	r.Attrs(func(a slog.Attr) bool { m[a.Key] = a.Value.String(); return true })
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, m)
	return nil
}

// attr is an attribute of the first line with the message.
func (l *logRecords) attr(msg, key string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, m := range l.msgs {
		if m["msg"] == msg {
			return m[key]
		}
	}
	return ""
}

// startK8sHTTP serves the cart scenario over streamable HTTP in process.
func startK8sHTTP(t *testing.T, opts k8smcp.Options) string {
	t.Helper()
	sc, err := scenario.Load(cartScenario)
	require.NoError(t, err)
	srv, err := k8smcp.New(sc, opts)
	require.NoError(t, err)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return hs.URL
}

// TestNewestVersionIsRefusedByStatefulGoSDKServers reproduces the failure
// against a stateful go-sdk server: asked for the newest protocol version,
// mcp-go takes the server's answer to server/discover as agreement, and
// every later request is refused.
func TestNewestVersionIsRefusedByStatefulGoSDKServers(t *testing.T) {
	listNewest := func(t *testing.T, url string) error {
		cli, err := client.NewStreamableHttpClient(url)
		require.NoError(t, err)
		defer cli.Close()
		require.NoError(t, cli.Start(ctxT(t)))
		req := mcpgo.InitializeRequest{}
		req.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
		_, err = cli.Initialize(ctxT(t), req)
		require.NoError(t, err, "server/discover is answered")
		_, err = cli.ListTools(ctxT(t), mcpgo.ListToolsRequest{})
		return err
	}
	t.Run("unsupported-version error (go-sdk v1.8)", func(t *testing.T) {
		err := listNewest(t, startK8sHTTP(t, k8smcp.Options{}))
		var refused mcpgo.UnsupportedProtocolVersionError
		require.ErrorAs(t, err, &refused)
		assert.Equal(t, mcpgo.ProtocolVersion20260728, refused.Version)
		assert.Equal(t, []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}, refused.Supported)
	})
	t.Run("plain-text 400 (earlier go-sdk releases)", func(t *testing.T) {
		url := startHelperHTTP(t, "plaintextstatefulrejection=1")
		err := listNewest(t, url)
		require.Error(t, err)
		assert.Contains(t, err.Error(), `protocol version "2026-07-28" is only supported on stateless HTTP servers`)
	})
}

// startHelperHTTP runs the simulator over HTTP in a child process with the
// go-sdk compatibility settings given (MCPGODEBUG is read at start-up).
func startHelperHTTP(t *testing.T, godebug string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], helperFlag, helperK8sHTTP, cartScenario)
	cmd.Env = append(os.Environ(), "MCPGODEBUG="+godebug)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	})
	url, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	return strings.TrimSpace(url)
}

// TestListsAndCallsToolsOnGoSDKServers: the bot lists and calls the
// Kubernetes tools over every transport, against current servers and
// servers that speak only older versions or only the newest one.
func TestListsAndCallsToolsOnGoSDKServers(t *testing.T) {
	type server struct {
		name     string
		cfg      func(t *testing.T) ServerConfig
		protocol string // negotiated
	}
	http := func(opts k8smcp.Options) func(t *testing.T) ServerConfig {
		return func(t *testing.T) ServerConfig {
			return ServerConfig{Name: "kubernetes", URL: startK8sHTTP(t, opts)}
		}
	}
	stdio := func(versions ...string) func(t *testing.T) ServerConfig {
		return func(*testing.T) ServerConfig {
			args := []string{helperFlag, helperK8s, cartScenario}
			if len(versions) > 0 {
				args = append(args, strings.Join(versions, ","))
			}
			return ServerConfig{Name: "kubernetes", Command: os.Args[0], Args: args}
		}
	}
	for _, tc := range []server{
		{"stateful HTTP", http(k8smcp.Options{}), "2025-11-25"},
		{"stateless HTTP", http(k8smcp.Options{Stateless: true}), "2025-11-25"},
		{"stdio", stdio(), "2025-11-25"},
		{"stateful HTTP, 2025-06-18 only", http(k8smcp.Options{ProtocolVersions: []string{"2025-06-18"}}), "2025-06-18"},
		{"stateful HTTP, 2024-11-05 only", http(k8smcp.Options{ProtocolVersions: []string{"2024-11-05"}}), "2024-11-05"},
		{"stdio, 2025-03-26 only", stdio("2025-03-26"), "2025-03-26"},
		{"stateless HTTP, 2026-07-28 only", http(k8smcp.Options{Stateless: true, ProtocolVersions: []string{"2026-07-28"}}), "2026-07-28"},
		// Over stdio the go-sdk answers the handshake even when narrowed to
		// 2026-07-28 (at 2025-11-25) and serves the session.
		{"stdio, 2026-07-28 only", stdio("2026-07-28"), "2025-11-25"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs := &logRecords{}
			cl, err := NewClient(tc.cfg(t), Options{Logger: slog.New(logs)})
			require.NoError(t, err)
			t.Cleanup(func() { _ = cl.Close() })
			ctx := ctxT(t)
			tools, err := cl.Tools(ctx)
			require.NoError(t, err)
			allowed := map[string]bool{}
			for _, tl := range tools {
				allowed[tl.Name] = tl.Allowed
			}
			for _, name := range []string{"pods_list", "pods_list_in_namespace", "pods_get", "pods_log", "events_list", "namespaces_list", "resources_list", "resources_get"} {
				assert.True(t, allowed[name], name)
			}
			res, err := cl.CallTool(ctx, "pods_list_in_namespace", json.RawMessage(`{"namespace":"shop","labelSelector":"app.kubernetes.io/name=cart"}`))
			require.NoError(t, err)
			assert.Contains(t, res.Text, "cart-dzq4gtp8tn-wp7rz")
			_, err = cl.CallTool(ctx, "pods_get", json.RawMessage(`{"namespace":"shop","name":"nope"}`))
			assert.Equal(t, "tool_error", string(kindOf(t, err)), "isError is a failed call")
			assert.Equal(t, tc.protocol, logs.attr("mcp server connected", "protocol"))
			assert.Equal(t, k8smcp.ServerName, logs.attr("mcp server connected", "server_name"))
		})
	}
}

func TestVersionToRetry(t *testing.T) {
	for _, tc := range []struct {
		err             error
		requested, want string
	}{
		{mcpgo.UnsupportedProtocolVersionError{Version: "2025-11-25", Supported: []string{"2026-07-28"}}, "2025-11-25", "2026-07-28"},
		{mcpgo.UnsupportedProtocolVersionError{Version: "2026-07-28", Supported: []string{"2025-11-25", "2025-06-18"}}, "2026-07-28", "2025-11-25"},
		{fmt.Errorf("failed to send initialized notification: notification failed with status 400: Bad Request: Unsupported protocol version (supported versions: 2026-07-28)"), "2025-11-25", "2026-07-28"},
		{fmt.Errorf("status 400: Unsupported protocol version (supported versions: 2031-01-01)"), "2025-11-25", ""},         // none mcp-go knows
		{mcpgo.UnsupportedProtocolVersionError{Version: "2025-11-25", Supported: []string{"2025-11-25"}}, "2025-11-25", ""}, // nothing else to ask
		{mcpgo.UnsupportedProtocolVersionError{Version: "2025-11-25"}, "2025-11-25", ""},
		{fmt.Errorf("connection refused"), "2025-11-25", ""},
	} {
		assert.Equal(t, tc.want, versionToRetry(tc.err, tc.requested), tc.err.Error())
	}
}
