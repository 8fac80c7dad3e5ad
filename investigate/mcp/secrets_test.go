package mcp

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/redact"
)

// Secret values planted in the answers below; none may come out.
var plantedSecretValues = []string{
	"cGxhbnRlZC15YW1sLXBhc3N3b3Jk", "cGxhbnRlZC1sYXN0LWFwcGxpZWQ=", "planted-string-data-value",
	"cGxhbnRlZC1qc29uLXZhbHVl", "cGxhbnRlZC1saXN0LWl0ZW0=", "cGxhbnRlZC10YWJsZQ==", "cGxhbnRlZC1zdHJ1Y3R1cmVk",
}

// Answers a server may give that hold Secrets: a YAML List (with a
// ConfigMap whose data must stay), pretty JSON, the API's SecretList
// (items without kind), a kubectl table with a custom value column, and
// the same YAML cut short.
const (
	secretYAMLList = `apiVersion: v1
items:
- apiVersion: v1
  data:
    password: cGxhbnRlZC15YW1sLXBhc3N3b3Jk
    username: YXBw
  kind: Secret
  metadata:
    annotations:
      kubectl.kubernetes.io/last-applied-configuration: |
        {"apiVersion":"v1","data":{"password":"cGxhbnRlZC1sYXN0LWFwcGxpZWQ="},"kind":"Secret","metadata":{"name":"db"}}
    name: db
    namespace: shop
  type: Opaque
- apiVersion: v1
  data:
    LOG_LEVEL: debug
  kind: ConfigMap
  metadata:
    name: app-config
- apiVersion: v1
  kind: Secret
  metadata:
    name: tls
  stringData:
    tls.key: planted-string-data-value
kind: List
`
	secretJSON = `{
  "apiVersion": "v1",
  "data": {
    "api-token": "cGxhbnRlZC1qc29uLXZhbHVl"
  },
  "kind": "Secret",
  "metadata": {"name": "payments-api"},
  "type": "Opaque"
}`
	secretListJSON = `{"apiVersion":"v1","kind":"SecretList","items":[{"metadata":{"name":"x"},"data":{"key":"cGxhbnRlZC1saXN0LWl0ZW0="}}]}`
	secretTable    = `NAMESPACE   KIND     NAME   TYPE     DATA   PASSWORD
shop        Secret   db     Opaque   2      cGxhbnRlZC10YWJsZQ==
shop        Pod      db-0   <none>   <none> <none>
`
	plainTable = `NAMESPACE   APIVERSION   KIND     NAME   TYPE     DATA   AGE   LABELS
shop        v1           Secret   db     Opaque   2      3d    app=db
`
)

func TestGuardSecretsMasksEveryForm(t *testing.T) {
	cut := func(s, before string) string { return s[:strings.Index(s, before)] }
	for name, out := range map[string]string{
		"yaml list": GuardSecrets(secretYAMLList), "json": GuardSecrets(secretJSON), "secret list": GuardSecrets(secretListJSON),
		"table": GuardSecrets(secretTable),
		// Cut before the kind line: the object may be a Secret.
		"yaml cut short": GuardCutSecrets(cut(secretYAMLList, "username")),
		"json cut short": GuardCutSecrets(cut(secretJSON, `"kind"`)),
	} {
		for _, v := range plantedSecretValues {
			assert.NotContains(t, out, v, name)
		}
		assert.Contains(t, out, redact.Mask, name)
	}
	out := GuardSecrets(secretYAMLList)
	assert.Contains(t, out, "password: "+redact.Mask, "the key names stay: they are evidence")
	assert.Contains(t, out, "LOG_LEVEL: debug", "a ConfigMap's data stays")
	assert.Contains(t, out, "name: db")
	assert.Contains(t, GuardSecrets(secretJSON), `"api-token": "`+redact.Mask+`"`)
	assert.Contains(t, GuardSecrets(secretTable), "shop        Pod      db-0", "other rows stay")
	assert.Contains(t, GuardCutSecrets(cut(secretYAMLList, "  stringData")), "LOG_LEVEL: debug", "an object whose kind is shown stays")

	for _, keep := range []string{plainTable,
		"spec:\n  containers:\n  - env:\n    - name: DB_URL\n      valueFrom:\n        secretKeyRef: {name: db, key: url}\n",
		"kind: SecretProviderClass\nspec:\n  parameters:\n    objects: x\n",
		`Error: secret "db" not found`} {
		assert.Equal(t, keep, GuardSecrets(keep))
	}
}

func TestSecretRequests(t *testing.T) {
	for _, args := range []string{
		`{"apiVersion":"v1","kind":"Secret","name":"db"}`, `{"apiVersion":"v1","kind":"secrets"}`,
		`{"resource":"secrets/db-creds"}`, `{"kind":"v1/Secret"}`, `{"command":"kubectl get secret db -o yaml"}`,
		`{"args":["describe","secrets","-n","shop"]}`, `{"query":{"gvr":{"resource":"secrets","version":"v1"}}}`,
	} {
		assert.NotEmpty(t, secretRequest(json.RawMessage(args)), args)
	}
	for _, args := range []string{
		`{"apiVersion":"apps/v1","kind":"Deployment","name":"secret-rotator"}`, `{"name":"secrets"}`,
		`{"query":"why does the secret rotator fail"}`, `{"kind":"SecretProviderClass"}`, `{}`,
	} {
		assert.Empty(t, secretRequest(json.RawMessage(args)), args)
	}
}

// startSecretServer serves an mcp-go server that reports itself as
// reported, with read-only tools that answer Secrets whatever they are
// asked, and an unannotated pods_list.
func startSecretServer(t *testing.T, reported string) (string, *calls) {
	t.Helper()
	rec, hooks := recordingHooks(nil)
	s := server.NewMCPServer(reported, "1.0.0", server.WithToolCapabilities(false), server.WithHooks(hooks))
	forms := map[string]string{"yaml": secretYAMLList, "json": secretJSON, "list": secretListJSON, "table": secretTable}
	s.AddTool(mcpgo.NewTool("get", ro(mcpgo.WithDescription("Reads objects."), mcpgo.WithString("form"), mcpgo.WithString("kind"), mcpgo.WithString("command"))...),
		func(_ context.Context, r mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(forms[r.GetString("form", "yaml")]), nil
		})
	s.AddTool(mcpgo.NewTool("get_structured", ro(mcpgo.WithDescription("Reads objects as structure."))...),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultStructured(map[string]any{"kind": "Secret", "data": map[string]any{"token": "cGxhbnRlZC1zdHJ1Y3R1cmVk"}}, "one secret"), nil
		})
	unannotated := mcpgo.NewTool("pods_list", mcpgo.WithDescription("Lists pods."))
	unannotated.Annotations = mcpgo.ToolAnnotation{}
	s.AddTool(unannotated, func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText("pods"), nil
	})
	hs := httptest.NewServer(server.NewStreamableHTTPServer(s))
	t.Cleanup(hs.Close)
	return hs.URL + "/mcp", rec
}

// Any server, not only the built-in Kubernetes capability: a request for
// Secrets never leaves, and Secret values in any answer are masked.
func TestSecretGuardAppliesToEveryServer(t *testing.T) {
	url, rec := startSecretServer(t, "argocd-mcp")
	cl, err := NewClient(ServerConfig{Name: "argocd", URL: url, Tools: []string{"get", "get_structured"}}, Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cl.Close() })
	ctx := ctxT(t)

	for _, args := range []string{`{"kind":"Secret"}`, `{"command":"kubectl get secrets -A -o yaml"}`} {
		_, err := cl.CallTool(ctx, "get", json.RawMessage(args))
		assert.Equal(t, investigate.ErrKindForbidden, kindOf(t, err), args)
		assert.Contains(t, err.Error(), "Secrets are not read")
	}
	assert.Zero(t, rec.total(), "a request for Secrets never reaches the server")

	for _, form := range []string{"yaml", "json", "list", "table"} {
		res, err := cl.CallTool(ctx, "get", json.RawMessage(`{"form":"`+form+`","kind":"ConfigMap"}`))
		require.NoError(t, err, form)
		for _, v := range plantedSecretValues {
			assert.NotContains(t, res.Text, v, form)
		}
	}
	// An answer cut short (here before the first Secret's kind line).
	short, err := NewClient(ServerConfig{Name: "argocd", URL: url, Tools: []string{"get"}}, Options{MaxTextBytes: strings.Index(secretYAMLList, "  kind: Secret")})
	require.NoError(t, err)
	t.Cleanup(func() { _ = short.Close() })
	res, err := short.CallTool(ctx, "get", json.RawMessage(`{"form":"yaml"}`))
	require.NoError(t, err)
	assert.True(t, res.Truncated)
	assert.NotContains(t, res.Text, plantedSecretValues[0])

	res, err = cl.CallTool(ctx, "get_structured", nil)
	require.NoError(t, err)
	assert.NotContains(t, string(res.Structured), "cGxhbnRlZC1zdHJ1Y3R1cmVk")
	assert.Contains(t, string(res.Structured), `"token"`)

	// The capability the planners see gets the masked answer too.
	c := NewCapability(cl)
	out, err := c.Call(ctx, "argocd__get", json.RawMessage(`{"form":"yaml"}`))
	require.NoError(t, err)
	b, _ := json.Marshal(out)
	for _, v := range plantedSecretValues {
		assert.NotContains(t, string(b), v)
	}
}

// A server cannot pick its own allowlist by calling itself "kubernetes":
// the built-in read-only list goes with the name the operator configured.
func TestAllowlistFollowsTheConfiguredNameNotTheReportedOne(t *testing.T) {
	url, rec := startSecretServer(t, "kubernetes")
	ctx := ctxT(t)
	tool := func(cl *Client, name string) Tool {
		tools, err := cl.Tools(ctx)
		require.NoError(t, err)
		for _, tl := range tools {
			if tl.Name == name {
				return tl
			}
		}
		t.Fatalf("no tool %s", name)
		return Tool{}
	}
	client := func(cfg ServerConfig) *Client {
		cl, err := NewClient(cfg, Options{})
		require.NoError(t, err)
		t.Cleanup(func() { _ = cl.Close() })
		return cl
	}

	impostor := client(ServerConfig{Name: "metrics", URL: url})
	assert.False(t, tool(impostor, "pods_list").Allowed)
	assert.Contains(t, tool(impostor, "pods_list").Refusal, "no allowlist")
	_, err := impostor.CallTool(ctx, "pods_list", nil)
	assert.Equal(t, investigate.ErrKindForbidden, kindOf(t, err))

	listed := client(ServerConfig{Name: "metrics2", URL: url, Tools: []string{"pods_list"}})
	assert.False(t, tool(listed, "pods_list").Allowed, "an unannotated tool is not read-only because the server says it is Kubernetes")
	assert.Contains(t, tool(listed, "pods_list").Refusal, "not annotated read-only")
	_, err = listed.CallTool(ctx, "pods_list", nil)
	assert.Equal(t, investigate.ErrKindForbidden, kindOf(t, err))
	assert.Zero(t, rec.tool("pods_list"))

	// The operator configuring it as the Kubernetes server is what counts.
	operator := client(ServerConfig{Name: "kubernetes", URL: url})
	assert.True(t, tool(operator, "pods_list").Allowed)
	_, err = operator.CallTool(ctx, "pods_list", nil)
	require.NoError(t, err)
}
