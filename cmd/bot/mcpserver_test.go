package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/config"
	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/mcpserve"
	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sessions"
)

// scenarioEnv points the environment's backend settings at a scenario's
// simulators, as an operator would point them at production.
func scenarioEnv(t *testing.T, dir string) (*scenario.Scenario, string, string) {
	t.Helper()
	s, err := scenario.Load(dir)
	require.NoError(t, err)
	b, err := harness.Start(s, harness.Options{})
	require.NoError(t, err)
	t.Cleanup(b.Close)
	for _, k := range config.Keys {
		t.Setenv(k.Env, "")
	}
	for k, v := range b.Config() {
		key, ok := config.Lookup(k)
		require.True(t, ok, k)
		t.Setenv(key.Env, v)
	}
	t.Setenv("OPENAI_API_KEY", "")
	return s, s.Now.Add(-time.Hour).Format(time.RFC3339), s.Now.Format(time.RFC3339)
}

// The MCP server answers investigate over stdio and streamable HTTP with
// the result `bot investigate` gives; its key reads the result back, the
// call shows in the recent incidents' audit, and HTTP needs the token.
func TestMCPServerInvestigatesLikeTheCLI(t *testing.T) {
	s, since, until := scenarioEnv(t, "../../testdata/examples/checkout-fails-payment-typeerror")
	_, both := testRedis(t)
	url, prefix, _ := strings.Cut(both, "|")
	t.Setenv("REDIS_URL", url)
	t.Setenv("AUTOHEAL_REDIS_PREFIX", prefix)
	text := "checkout is failing, customers get errors on PlaceOrder"
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	var out, errb bytes.Buffer
	require.NoError(t, runInvestigate(ctx, []string{"--json", "--since", since, "--until", until, text}, &out, &errb), errb.String())
	var cli investigate.HealResult
	require.NoError(t, json.Unmarshal(out.Bytes(), &cli))
	require.Equal(t, s.Truth.Service, cli.RootCause.Service)

	var remembered string // set below, before check runs
	call := func(c *client.Client, tool string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tool, args
		res, err := c.CallTool(ctx, req)
		require.NoError(t, err)
		return res
	}
	check := func(name string, c *client.Client) string {
		t.Helper()
		_, err := c.Initialize(ctx, mcp.InitializeRequest{})
		require.NoError(t, err, name)
		tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
		require.NoError(t, err)
		var names []string
		for _, tl := range tools.Tools {
			names = append(names, tl.Name)
			require.NotNil(t, tl.Annotations.ReadOnlyHint, tl.Name)
			assert.True(t, *tl.Annotations.ReadOnlyHint, "%s is read-only", tl.Name)
		}
		assert.ElementsMatch(t, []string{mcpserve.ToolInvestigate, mcpserve.ToolGetResult, mcpserve.ToolListRecent, mcpserve.ToolExplain}, names)

		res := call(c, mcpserve.ToolInvestigate, map[string]any{"text": text, "since": since, "until": until})
		require.False(t, res.IsError, "%s: %v", name, res.Content)
		var got struct {
			Key    string                 `json:"key"`
			Result investigate.HealResult `json:"result"`
		}
		raw, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, &got))
		for _, f := range []struct{ a, b any }{
			{cli.RootCause.Service, got.Result.RootCause.Service}, {cli.RootCause.File, got.Result.RootCause.File},
			{cli.RootCause.Line, got.Result.RootCause.Line}, {cli.RootCause.Bucket, got.Result.RootCause.Bucket},
			{cli.RootCause.ErrorType, got.Result.RootCause.ErrorType}, {cli.RootCause.Band, got.Result.RootCause.Band},
		} {
			assert.Equal(t, f.a, f.b, "%s: the same result as bot investigate", name)
		}
		assert.Contains(t, res.Content[0].(mcp.TextContent).Text, "key: "+got.Key)

		back := call(c, mcpserve.ToolGetResult, map[string]any{"key": got.Key})
		require.False(t, back.IsError, "%v", back.Content)
		assert.Contains(t, back.Content[0].(mcp.TextContent).Text, got.Result.RootCause.File)
		why := call(c, mcpserve.ToolExplain, map[string]any{"key": got.Key})
		require.False(t, why.IsError)
		assert.Contains(t, why.Content[0].(mcp.TextContent).Text, string(got.Result.RootCause.Band))
		recent := call(c, mcpserve.ToolListRecent, map[string]any{"limit": 100})
		require.False(t, recent.IsError, "%v", recent.Content)
		assert.Contains(t, recent.Content[0].(mcp.TextContent).Text, "key="+remembered, "the incident memory's recent incidents")
		missing := call(c, mcpserve.ToolGetResult, map[string]any{"key": "no-such-key"})
		assert.True(t, missing.IsError)
		bad := call(c, mcpserve.ToolInvestigate, map[string]any{"text": text, "since": "last tuesday"})
		assert.True(t, bad.IsError)
		return got.Key
	}

	// stdio: the server bot mcp runs, over a pair of pipes.
	store, closeStore, err := storeFromEnv(ctx)
	require.NoError(t, err)
	defer closeStore()
	// A result the bot posted in Slack, remembered: list_recent_incidents
	// lists the memory.
	remembered = fmt.Sprintf("m-EvMCPLIST%d", time.Now().UnixNano())
	require.NoError(t, store.Remember(ctx, sessions.MemoryRecord{ID: remembered, At: time.Now().UTC(), Service: "ad", Bucket: "code_bug",
		ErrorType: "null_pointer", Fingerprint: "mcp-list-test", Band: "HIGH"}))
	srv := mcpserve.New(mcpOptions(store, time.Minute, nil))
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	go func() { _ = server.NewStdioServer(srv).Listen(ctx, toServer, fromServer) }()
	stdio := client.NewClient(transport.NewIO(toClient, fromClient, io.NopCloser(strings.NewReader(""))))
	require.NoError(t, stdio.Start(ctx))
	check("stdio", stdio)
	_ = stdio.Close()

	// streamable HTTP: bot mcp --http, with and without the token.
	addr := freeAddr(t)
	t.Setenv(mcpTokenEnv, "")
	assert.ErrorIs(t, runMCP(ctx, []string{"--http", addr}, io.Discard, io.Discard), errUsage, "no token, no HTTP")
	token := "mcp-test-token-0123456789abcdef"
	t.Setenv(mcpTokenEnv, token)
	hctx, hcancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- runMCP(hctx, []string{"--http", addr, "--no-llm"}, io.Discard, io.Discard) }()
	defer func() { hcancel(); <-done }()
	endpoint := "http://" + addr + "/mcp"
	require.Eventually(t, func() bool {
		anon, err := client.NewStreamableHttpClient(endpoint)
		if err != nil || anon.Start(ctx) != nil {
			return false
		}
		_, err = anon.Initialize(ctx, mcp.InitializeRequest{})
		// mcp-go reports a 401 as "authorization required".
		return err != nil && strings.Contains(err.Error(), "authorization required")
	}, 20*time.Second, 50*time.Millisecond, "without the token the server answers 401")
	for _, auth := range []string{"", "Bearer wrong-token-0123456789abcdef"} {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "authorization %q", auth)
	}
	httpc, err := client.NewStreamableHttpClient(endpoint, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	require.NoError(t, err)
	require.NoError(t, httpc.Start(ctx))
	check("http", httpc)
	_ = httpc.Close()

	audit, err := store.AuditLog(ctx, "mcp-server")
	require.NoError(t, err)
	var lines []string
	for _, a := range audit {
		assert.Equal(t, sessions.AuditMCPCall, a.Action)
		lines = append(lines, a.Detail)
	}
	joined := strings.Join(lines, "\n")
	assert.Contains(t, joined, "mcp investigate by stdio: ok")
	assert.Contains(t, joined, "mcp investigate by token:")
	assert.Contains(t, joined, "mcp get_result by")
	assert.NotContains(t, joined, token)
}
