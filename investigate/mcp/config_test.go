package mcp

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidate(t *testing.T) {
	ok := ServerConfig{Name: "github", URL: "https://mcp.example.com/mcp", Tools: []string{"search_code"}}
	require.NoError(t, ok.Validate())
	require.NoError(t, ServerConfig{Name: "kubernetes", Command: "kubernetes-mcp-server", Args: []string{"--read-only"}, Env: []string{"KUBECONFIG"}}.Validate())

	cases := []struct {
		name  string
		cfg   ServerConfig
		want  error
		field string
	}{
		{"empty name", ServerConfig{URL: "http://x"}, ErrInvalidName, "name"},
		{"upper-case name", ServerConfig{Name: "GitHub", URL: "http://x"}, ErrInvalidName, "name"},
		{"underscore name", ServerConfig{Name: "a__b", URL: "http://x"}, ErrInvalidName, "name"},
		{"no transport", ServerConfig{Name: "a"}, ErrNoTransport, "command/url"},
		{"two transports", ServerConfig{Name: "a", URL: "http://x", Command: "x"}, ErrTwoTransports, "command/url"},
		{"bad scheme", ServerConfig{Name: "a", URL: "ftp://x"}, ErrInvalidURL, "url"},
		{"no host", ServerConfig{Name: "a", URL: "http:///mcp"}, ErrInvalidURL, "url"},
		{"credentials in url", ServerConfig{Name: "a", URL: "https://u:p@x/mcp"}, ErrInvalidURL, "url"},
		{"env value instead of name", ServerConfig{Name: "a", Command: "x", Env: []string{"TOKEN=abc"}}, ErrInvalidEnv, "env"},
		{"header holds a secret", ServerConfig{Name: "a", URL: "http://x", Headers: map[string]string{"Authorization": "Bearer abc"}}, ErrInvalidHeader, "headers"},
		{"bad header name", ServerConfig{Name: "a", URL: "http://x", Headers: map[string]string{"Bad Header": "TOKEN"}}, ErrInvalidHeader, "headers"},
		{"headers on stdio", ServerConfig{Name: "a", Command: "x", Headers: map[string]string{"X": "TOKEN"}}, ErrInvalidHeader, "headers"},
		{"env on http", ServerConfig{Name: "a", URL: "http://x", Env: []string{"TOKEN"}}, ErrTwoTransports, "args/env"},
		{"bad tool", ServerConfig{Name: "a", URL: "http://x", Tools: []string{"rm -rf"}}, ErrInvalidTool, "tools"},
		{"negative timeout", ServerConfig{Name: "a", URL: "http://x", Timeout: -time.Second}, ErrInvalidTimeout, "timeout"},
		{"huge timeout", ServerConfig{Name: "a", URL: "http://x", Timeout: time.Hour}, ErrInvalidTimeout, "timeout"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			require.Error(t, err)
			assert.ErrorIs(t, err, tc.want)
			var ce *ConfigError
			require.True(t, errors.As(err, &ce))
			assert.Equal(t, tc.field, ce.Field)
		})
	}
	err := ServerConfig{Name: "a", URL: "http://x", Headers: map[string]string{"Authorization": "Bearer abc"}}.Validate()
	assert.NotContains(t, err.Error(), "abc", "a misplaced secret is not echoed back")
}

func TestParseServers(t *testing.T) {
	yml := `
servers:
  - name: kubernetes
    command: kubernetes-mcp-server
    args: ["--read-only", "--list-output", "yaml"]
    env: [KUBECONFIG]
    timeout: 15s
  - name: tickets
    url: https://tickets.example.com/mcp
    headers: {Authorization: TICKETS_MCP_AUTH}
    tools: [search_tickets]
`
	got, err := ParseServers([]byte(yml))
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, 15*time.Second, got[0].Timeout)
	assert.Equal(t, "stdio", got[0].Transport())
	assert.Equal(t, "http", got[1].Transport())
	assert.Equal(t, "TICKETS_MCP_AUTH", got[1].Headers["Authorization"])

	js := `[{"name":"tickets","url":"https://t/mcp","tools":["a"],"timeout":"2s"}]`
	got, err = ParseServers([]byte(js))
	require.NoError(t, err)
	assert.Equal(t, 2*time.Second, got[0].Timeout)

	_, err = ParseServers([]byte(`[{"name":"a","url":"http://x"},{"name":"a","url":"http://y"}]`))
	assert.ErrorIs(t, err, ErrDuplicate)
	_, err = ParseServers([]byte(`[{"name":"a","url":"http://x","token":"abc"}]`))
	assert.ErrorContains(t, err, "unknown field")
	_, err = ParseServers([]byte(`[{"name":"a","url":"http://x","timeout":"soon"}]`))
	assert.ErrorIs(t, err, ErrInvalidTimeout)
	_, err = ParseServers([]byte(`{"other": []}`))
	assert.Error(t, err)
	got, err = ParseServers(nil)
	assert.NoError(t, err)
	assert.Empty(t, got)
}

func TestServerConfigJSONRoundTrip(t *testing.T) {
	var c ServerConfig
	require.NoError(t, json.Unmarshal([]byte(`{"name":"a","url":"http://x","timeout":1500000000}`), &c))
	assert.Equal(t, 1500*time.Millisecond, c.Timeout)
}

func TestSanitizeSchema(t *testing.T) {
	in := mcpgo.ToolInputSchema{
		Properties: map[string]any{
			"target": map[string]any{"$ref": "#/definitions/target", "description": "what"},
			"mode":   map[string]any{"$ref": "#/$defs/mode"},
			"nested": map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"$ref": "#/$defs/missing"}}},
			"broken": "not a schema",
			"any":    true,
		},
		Required: []string{"target", "ghost"},
		Defs:     map[string]any{"mode": map[string]any{"type": "string"}},
	}
	raw, fixes, err := SanitizeSchema(in)
	require.NoError(t, err)
	require.NoError(t, CheckSchemaObject(raw))
	var got map[string]any
	require.NoError(t, json.Unmarshal(raw, &got))
	assert.Equal(t, "object", got["type"])
	props := got["properties"].(map[string]any)
	assert.Equal(t, map[string]any{"description": "what"}, props["target"], "dangling $ref made permissive")
	assert.Equal(t, map[string]any{"$ref": "#/$defs/mode"}, props["mode"], "resolvable $ref kept")
	assert.Equal(t, map[string]any{}, props["nested"].(map[string]any)["properties"].(map[string]any)["x"])
	assert.Equal(t, map[string]any{}, props["broken"])
	assert.Equal(t, true, props["any"])
	assert.Equal(t, []any{"target"}, got["required"])
	assert.Contains(t, got, "$defs")
	assert.Len(t, fixes, 4)

	empty, _, err := SanitizeSchema(mcpgo.ToolInputSchema{})
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","properties":{}}`, string(empty))

	_, _, err = SanitizeSchema(mcpgo.ToolInputSchema{Type: "string"})
	assert.Error(t, err)

	assert.Error(t, CheckSchemaObject([]byte(`{"type":"object","properties":{"a":1}}`)))
	assert.Error(t, CheckSchemaObject([]byte(`{"type":"array"}`)))
	assert.Error(t, CheckSchemaObject([]byte(`{"type":"object","required":"a"}`)))
}
