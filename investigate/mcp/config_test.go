package mcp

import (
	"encoding/json"
	"errors"
	"os"
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

func TestParseConfigFile(t *testing.T) {
	yml := `# AUTOHEAL_CONFIG
routing:
  default_channel: C0INCIDENTS
mcp_servers:
  - name: argocd
    url: http://argocd-mcp.argocd.svc:8080/mcp
    headers:
      Authorization: ARGOCD_MCP_AUTH
      X-Api-Key: {env: ARGOCD_API_KEY, prefix: "Key "}
      X-Token: {file: /var/run/secrets/argocd/token}
    tools: [list_applications, get_application]
    timeout: 15s
  - name: legacy
    transport: sse
    url: https://legacy.example.com/sse
    tools: [search]
  - name: kubernetes
    transport: stdio
    command: kubernetes-mcp-server
    args: [--read-only]
    env: [KUBECONFIG]
`
	got, err := ParseConfigFile("config.yaml", []byte(yml))
	require.NoError(t, err)
	require.Len(t, got, 3)
	a := got[0]
	assert.Equal(t, "http", a.Transport())
	assert.Equal(t, map[string]string{"Authorization": "ARGOCD_MCP_AUTH", "X-Api-Key": "ARGOCD_API_KEY"}, a.Headers)
	assert.Equal(t, map[string]string{"X-Token": "/var/run/secrets/argocd/token"}, a.HeaderFiles)
	assert.Equal(t, map[string]string{"X-Api-Key": "Key "}, a.HeaderPrefix)
	assert.Equal(t, []string{"list_applications", "get_application"}, a.Tools)
	assert.Equal(t, 15*time.Second, a.Timeout)
	assert.Equal(t, "sse", got[1].Transport())
	assert.Equal(t, "stdio", got[2].Transport())
	assert.Equal(t, []string{"--read-only"}, got[2].Args)
	assert.Equal(t, []string{"KUBECONFIG"}, got[2].Env)

	none, err := ParseConfigFile("config.yaml", []byte("routing:\n  default_channel: C0INCIDENTS\n"))
	require.NoError(t, err)
	assert.Empty(t, none)
	none, err = ParseConfigFile("config.yaml", []byte("mcp_servers:\n"))
	require.NoError(t, err)
	assert.Empty(t, none)
}

func TestParseConfigFileErrorsNameTheLine(t *testing.T) {
	yml := `mcp_servers:
  - name: argocd
    url: http://argocd/mcp
    token: abc
    headers:
      Authorization: Bearer s3cr3t-value
      X-Both: {env: A, file: /x}
      X-Rel: {file: token.txt}
      X-Odd: {env: A, secret: b}
  - name: argocd
    url: http://other/mcp
  - name: Bad_Name
    url: http://x/mcp
  - name: mixed
    transport: stdio
    url: http://x/mcp
  - name: neither
    tools: [ok, "rm -rf"]
    timeout: soon
  - url: http://nameless/mcp
`
	_, err := ParseConfigFile("/etc/autoheal/config.yaml", []byte(yml))
	require.Error(t, err)
	msg := err.Error()
	for _, want := range []string{
		`/etc/autoheal/config.yaml:4: mcp_servers[0].token: unknown key "token" (known: args, command, env, headers, name, timeout, tools, transport, url)`,
		`/etc/autoheal/config.yaml:6: mcp_servers[0].headers.Authorization: the value must name an environment variable`,
		`/etc/autoheal/config.yaml:7: mcp_servers[0].headers.X-Both: want exactly one of env: VARIABLE or file: /path`,
		`/etc/autoheal/config.yaml:8: mcp_servers[0].headers.X-Rel: file: want an absolute path`,
		`/etc/autoheal/config.yaml:9: mcp_servers[0].headers.X-Odd.secret: unknown key "secret" (known: env, file, prefix)`,
		`/etc/autoheal/config.yaml:12: mcp_servers[2].name: "Bad_Name": want lower-case letters`,
		`/etc/autoheal/config.yaml:14: mcp_servers[3].transport: invalid transport: stdio needs command`,
		`/etc/autoheal/config.yaml:18: mcp_servers[4].tools[1]: "rm -rf" is not a tool name`,
		`/etc/autoheal/config.yaml:19: mcp_servers[4].timeout: "soon": want a duration`,
		`/etc/autoheal/config.yaml:20: mcp_servers[5].name: is required`,
	} {
		assert.Contains(t, msg, want)
	}
	assert.NotContains(t, msg, "s3cr3t", "a secret pasted in place of a variable name is not echoed")

	// A name used twice is reported once the first server is valid.
	_, err = ParseConfigFile("c.yaml", []byte("mcp_servers:\n  - {name: a, url: 'http://x/mcp', tools: [t]}\n  - {name: a, url: 'http://y/mcp'}\n"))
	assert.ErrorContains(t, err, `c.yaml:3: mcp_servers[1].name: server name "a" is also used by mcp_servers[0]`)
	_, err = ParseConfigFile("c.yaml", []byte("mcp_servers: {name: a}\n"))
	assert.ErrorContains(t, err, "c.yaml:1: mcp_servers: must be a list of servers")
	_, err = ParseConfigFile("c.yaml", []byte("mcp_servers:\n  - {name: n, command: x, headers: {A: B}}\n"))
	assert.ErrorContains(t, err, "c.yaml:2: mcp_servers[0].headers: invalid header: headers apply to url servers only")
	_, err = ParseConfigFile("c.yaml", []byte("mcp_servers: [\n"))
	assert.ErrorContains(t, err, "c.yaml: ")
}

func TestHeaderValues(t *testing.T) {
	dir := t.TempDir()
	file := dir + "/token"
	require.NoError(t, os.WriteFile(file, []byte("from-file\n"), 0o600))
	c := ServerConfig{Name: "a", URL: "http://x/mcp",
		Headers:      map[string]string{"Authorization": "A_TOKEN"},
		HeaderFiles:  map[string]string{"X-Token": file},
		HeaderPrefix: map[string]string{"Authorization": "Bearer ", "X-Token": "Key "}}
	require.NoError(t, c.Validate())
	env := map[string]string{"A_TOKEN": "from-env"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	h, err := c.HeaderValues(lookup, nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"Authorization": "Bearer from-env", "X-Token": "Key from-file"}, h)

	delete(env, "A_TOKEN")
	_, err = c.HeaderValues(lookup, nil)
	assert.ErrorContains(t, err, "environment variable A_TOKEN is not set")
	env["A_TOKEN"] = "from-env"
	c.HeaderFiles["X-Token"] = dir + "/missing"
	_, err = c.HeaderValues(lookup, nil)
	assert.ErrorContains(t, err, "file "+dir+"/missing cannot be read")
	require.NoError(t, os.WriteFile(file, []byte("two\nlines-of-secret\n"), 0o600))
	c.HeaderFiles["X-Token"] = file
	_, err = c.HeaderValues(lookup, nil)
	assert.ErrorContains(t, err, "holds more than one line")
	assert.NotContains(t, err.Error(), "lines-of-secret")

	assert.ErrorIs(t, ServerConfig{Name: "a", URL: "http://x", Headers: map[string]string{"A": "X"}, HeaderFiles: map[string]string{"A": "/f"}}.Validate(), ErrInvalidHeader)
	assert.ErrorIs(t, ServerConfig{Name: "a", URL: "http://x", HeaderFiles: map[string]string{"A": "rel/f"}}.Validate(), ErrInvalidHeader)
	assert.ErrorIs(t, ServerConfig{Name: "a", URL: "http://x", HeaderPrefix: map[string]string{"A": "Bearer "}}.Validate(), ErrInvalidHeader)
	assert.ErrorIs(t, ServerConfig{Name: "a", URL: "http://x", Kind: "websocket"}.Validate(), ErrInvalidKind)
	assert.ErrorIs(t, ServerConfig{Name: "a", Command: "x", Kind: "sse"}.Validate(), ErrInvalidKind)
}
