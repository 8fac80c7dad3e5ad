package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/require"
)

// helperFlag makes the test binary run an MCP stdio server (see TestMain).
const helperFlag = "-mcp-test-helper"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == helperFlag {
		os.Exit(runHelper(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// runHelper serves the test tools over stdio. Modes:
//
//	serve                 the tools of newTestServer
//	crash-once <marker>   like serve, but the first process to receive a
//	                      tools/call exits without answering (the marker
//	                      file records how many processes started)
//	k8s-sim <dir> [v,...]  the Kubernetes simulator (go-sdk) for a scenario
//	                      over stdio, optionally narrowed to protocol versions
//	k8s-sim-http <dir>    the same over stateful streamable HTTP: prints
//	                      its URL and serves until stdin closes
func runHelper(args []string) int {
	mode := "serve"
	if len(args) > 0 {
		mode = args[0]
	}
	if mode == helperK8s || mode == helperK8sHTTP {
		return runK8sSim(mode, args[1:])
	}
	var crash func()
	if mode == "crash-once" && len(args) > 1 {
		marker := args[1]
		prev, _ := os.ReadFile(marker)
		f, err := os.OpenFile(marker, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err == nil {
			fmt.Fprintln(f, "start")
			f.Close()
		}
		if len(prev) == 0 {
			crash = func() { os.Exit(3) }
		}
	}
	srv, _ := newTestServer(crash)
	if err := server.NewStdioServer(srv).Listen(context.Background(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// calls counts tools/call and tools/list requests a test server received.
type calls struct {
	mu    sync.Mutex
	tools map[string]int
	lists int
}

func (c *calls) tool(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tools[name]
}

func (c *calls) listCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lists
}

func (c *calls) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.tools {
		n += v
	}
	return n
}

func ro(opts ...mcpgo.ToolOption) []mcpgo.ToolOption {
	return append(opts, mcpgo.WithReadOnlyHintAnnotation(true), mcpgo.WithDestructiveHintAnnotation(false))
}

// newTestServer builds an mcp-go server with tools covering the policy
// cases. beforeCall, when set, runs before every tools/call handler.
func newTestServer(beforeCall func()) (*server.MCPServer, *calls) {
	rec, hooks := recordingHooks(beforeCall)
	s := server.NewMCPServer("test-server", "1.0.0", server.WithToolCapabilities(false), server.WithHooks(hooks))
	addTestTools(s)
	return s, rec
}

// recordingHooks count the tools/call and tools/list requests a server
// receives; beforeCall, when set, runs before every tools/call handler.
func recordingHooks(beforeCall func()) (*calls, *server.Hooks) {
	rec := &calls{tools: map[string]int{}}
	hooks := &server.Hooks{}
	hooks.AddBeforeCallTool(func(_ context.Context, _ any, req *mcpgo.CallToolRequest) {
		rec.mu.Lock()
		rec.tools[req.Params.Name]++
		rec.mu.Unlock()
		if beforeCall != nil {
			beforeCall()
		}
	})
	hooks.AddBeforeListTools(func(context.Context, any, *mcpgo.ListToolsRequest) {
		rec.mu.Lock()
		rec.lists++
		rec.mu.Unlock()
	})
	return rec, hooks
}

// addTestTools adds the tools of the policy cases.
func addTestTools(s *server.MCPServer) {
	s.AddTool(mcpgo.NewTool("echo", ro(mcpgo.WithDescription("Echo the message."), mcpgo.WithString("message", mcpgo.Required()))...),
		func(_ context.Context, r mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("echo: " + r.GetString("message", "")), nil
		})
	s.AddTool(mcpgo.NewTool("fail", ro(mcpgo.WithDescription("Always fails."))...),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultError(`pods "nope" not found`), nil
		})
	s.AddTool(mcpgo.NewTool("hang", ro(mcpgo.WithDescription("Never answers."))...),
		func(ctx context.Context, _ mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	s.AddTool(mcpgo.NewTool("big", ro(mcpgo.WithDescription("Returns a lot of text."), mcpgo.WithNumber("bytes"))...),
		func(_ context.Context, r mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(strings.Repeat("x", r.GetInt("bytes", 1000))), nil
		})
	s.AddTool(mcpgo.NewTool("structured", ro(mcpgo.WithDescription("Returns structured content."))...),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultStructured(map[string]any{"pods": 3, "ready": 1}, "3 pods, 1 ready"), nil
		})
	s.AddTool(mcpgo.NewTool("environ", ro(mcpgo.WithDescription("Reports the process environment."))...),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			env := os.Environ()
			sort.Strings(env)
			return mcpgo.NewToolResultText(strings.Join(env, "\n")), nil
		})
	// Not read-only: destructive, unannotated, contradictory.
	s.AddTool(mcpgo.NewTool("delete_everything", mcpgo.WithDescription("Deletes."), mcpgo.WithDestructiveHintAnnotation(true)),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("deleted"), nil
		})
	unannotated := mcpgo.NewTool("write_note", mcpgo.WithDescription("Writes a note."))
	unannotated.Annotations = mcpgo.ToolAnnotation{}
	s.AddTool(unannotated, func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText("written"), nil
	})
	s.AddTool(mcpgo.NewTool("sneaky", mcpgo.WithDescription("Claims read-only but destructive."),
		mcpgo.WithReadOnlyHintAnnotation(true), mcpgo.WithDestructiveHintAnnotation(true)),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("sneaked"), nil
		})
	// A schema using draft-07 "definitions": the client keeps only $defs.
	legacy := mcpgo.NewToolWithRawSchema("legacy_schema", "Uses definitions.", json.RawMessage(`{
		"type": "object",
		"properties": {
			"target": {"$ref": "#/definitions/target", "description": "what to look at"},
			"limit": {"type": "integer"},
			"mode": {"$ref": "#/$defs/mode"}
		},
		"required": ["target", "ghost"],
		"definitions": {"target": {"type": "string"}},
		"$defs": {"mode": {"type": "string", "enum": ["a", "b"]}}
	}`))
	legacy.Annotations = mcpgo.ToolAnnotation{ReadOnlyHint: mcpgo.ToBoolPtr(true)}
	s.AddTool(legacy, func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText("ok"), nil
	})
}

// allTestTools is an allowlist naming every tool of the test server, so
// that refusals come from the read-only rules.
var allTestTools = []string{"echo", "fail", "hang", "big", "structured", "environ", "delete_everything", "write_note", "sneaky", "legacy_schema"}

// httpServer serves an MCP server over streamable HTTP on a fixed
// loopback address so that a test can stop and restart it.
type httpServer struct {
	t    *testing.T
	addr string
	srv  *httptest.Server
	rec  *calls
	// wrap, when set, wraps the MCP handler (auth checks).
	wrap func(http.Handler) http.Handler
	// legacy restricts the server to the session-based protocol versions
	// (initialize handshake, Mcp-Session-Id), as most deployed servers are.
	legacy bool
}

func startHTTP(t *testing.T, wrap func(http.Handler) http.Handler) *httpServer {
	return startHTTPWith(t, &httpServer{wrap: wrap})
}

func startHTTPWith(t *testing.T, h *httpServer) *httpServer {
	t.Helper()
	h.t = t
	h.start("127.0.0.1:0")
	t.Cleanup(h.stop)
	return h
}

func (h *httpServer) start(addr string) {
	h.t.Helper()
	mcpSrv, rec := newTestServer(nil)
	var opts []server.StreamableHTTPOption
	if h.legacy {
		opts = append(opts, server.WithStateful(true),
			server.WithStreamableHTTPProtocolVersions(mcpgo.ProtocolVersion20251125, mcpgo.ProtocolVersion20250618, mcpgo.ProtocolVersion20250326))
	}
	var handler http.Handler = server.NewStreamableHTTPServer(mcpSrv, opts...)
	if h.wrap != nil {
		handler = h.wrap(handler)
	}
	l, err := net.Listen("tcp", addr)
	require.NoError(h.t, err)
	srv := httptest.NewUnstartedServer(handler)
	srv.Listener = l
	srv.Start()
	h.srv, h.rec, h.addr = srv, rec, l.Addr().String()
}

func (h *httpServer) url() string { return "http://" + h.addr + "/mcp" }

func (h *httpServer) stop() {
	if h.srv != nil {
		h.srv.CloseClientConnections()
		h.srv.Close()
		h.srv = nil
	}
}

func (h *httpServer) restart() {
	h.stop()
	h.start(h.addr)
}
