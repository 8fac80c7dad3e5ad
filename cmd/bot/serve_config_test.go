package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/autoheal/autoheal/alerts"
	"github.com/autoheal/autoheal/config"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/capset"
	"github.com/autoheal/autoheal/investigate/k8s"
	"github.com/autoheal/autoheal/investigate/mcp"
	"github.com/autoheal/autoheal/redact"
	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sim/k8smcp"
)

func baseServeEnv(extra map[string]string) map[string]string {
	m := map[string]string{"SLACK_APP_TOKEN": "xapp-1-A-1-abc", "SLACK_BOT_TOKEN": "xoxb-1-abc"}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

func writeConfig(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

// serve reads the mcp_servers section of AUTOHEAL_CONFIG: two servers (the
// Kubernetes MCP simulator twice, over HTTP) give the Kubernetes capability
// and the second server's allowlisted tools; the header secret is
// registered with the redactor.
func TestServeLoadsMCPServersFromTheConfigFile(t *testing.T) {
	s, err := scenario.Load("../../testdata/examples/cart-oomkilled-low-limit")
	require.NoError(t, err)
	urlA, stopA, err := k8smcp.Start(s, nil)
	require.NoError(t, err)
	t.Cleanup(stopA)
	urlB, stopB, err := k8smcp.Start(s, nil)
	require.NoError(t, err)
	t.Cleanup(stopB)

	const secret = "mcp-header-secret-0123456789"
	path := writeConfig(t, fmt.Sprintf(`routing:
  default_channel: C0INCIDENTS
mcp_servers:
  - name: kubernetes
    url: %s
  - name: staging
    url: %s
    headers: {Authorization: {env: STAGING_MCP_TOKEN, prefix: "Bearer "}}
    tools: [pods_list, events_list]
`, urlA, urlB))
	t.Setenv("STAGING_MCP_TOKEN", secret) // the MCP clients read the process environment, as in production
	e, err := loadServeEnv(envFrom(baseServeEnv(map[string]string{alerts.ConfigEnv: path, "STAGING_MCP_TOKEN": secret})))
	require.NoError(t, err)
	require.NotNil(t, e.Routing)
	require.Len(t, e.MCPServers, 2)
	assert.Equal(t, "staging", e.MCPServers[1].Name)
	e.registerSecrets()
	assert.NotContains(t, redact.Default.String("token "+secret), secret, "the header's secret is redacted from logs")

	mgr := mcp.NewManager(mcp.Options{}, 0)
	t.Cleanup(func() { _ = mgr.Close() }) // before the simulators stop
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	caps, err := capset.Build(ctx, config.OperatorSettings(e.Settings), capset.Options{MCP: mgr, MCPServers: e.MCPServers})
	require.NoError(t, err)
	var names []string
	for _, ts := range investigate.New(investigate.Options{Capabilities: caps}).ToolSpecs() {
		names = append(names, ts.Name)
	}
	assert.Contains(t, names, k8s.ToolWorkloadStatus)
	assert.Contains(t, names, "staging__pods_list")
	assert.Contains(t, names, "staging__events_list")
}

func TestServeRejectsABadMCPServersSection(t *testing.T) {
	path := writeConfig(t, `mcp_servers:
  - name: argocd
    url: http://argocd-mcp.argocd.svc:8080/mcp
    allowed_tools: [list_applications]
`)
	_, err := loadServeEnv(envFrom(baseServeEnv(map[string]string{alerts.ConfigEnv: path})))
	require.Error(t, err)
	assert.Contains(t, err.Error(), alerts.ConfigEnv+": "+path+`:4: mcp_servers[0].allowed_tools: unknown key "allowed_tools" (known: args, command, env, headers, name, timeout, tools, transport, url)`)

	// A header secret that is not there stops serve at start, naming the
	// variable or the file.
	path = writeConfig(t, `mcp_servers:
  - name: argocd
    url: http://argocd-mcp.argocd.svc:8080/mcp
    headers:
      Authorization: ARGOCD_MCP_AUTH
    tools: [list_applications]
  - name: tickets
    url: http://tickets/mcp
    headers: {X-Token: {file: /nonexistent/token}}
    tools: [search]
`)
	_, err = loadServeEnv(envFrom(baseServeEnv(map[string]string{alerts.ConfigEnv: path})))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "mcp server argocd: header Authorization: environment variable ARGOCD_MCP_AUTH is not set")
	assert.Contains(t, err.Error(), "mcp server tickets: header X-Token: file /nonexistent/token cannot be read")
}

// The config files of the chart's values (configFile.content) parse with
// the bot's own parsers: routing: and mcp_servers: as the bot reads them.
func TestChartConfigFilesParse(t *testing.T) {
	files, err := filepath.Glob("../../deploy/helm/autoheal/ci/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	sections := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		var values struct {
			ConfigFile struct {
				Content map[string]any `yaml:"content"`
			} `yaml:"configFile"`
		}
		require.NoError(t, yaml.Unmarshal(raw, &values), f)
		if len(values.ConfigFile.Content) == 0 {
			continue
		}
		content, err := yaml.Marshal(values.ConfigFile.Content)
		require.NoError(t, err)
		_, err = alerts.ParseConfig(f, content)
		require.NoError(t, err, f)
		_, err = mcp.ParseConfigFile(f, content)
		require.NoError(t, err, f)
		sections += len(values.ConfigFile.Content)
		for k := range values.ConfigFile.Content {
			assert.Contains(t, []string{"routing", mcp.ConfigSection}, k, "%s: the bot reads no section %q", f, k)
		}
	}
	assert.Positive(t, sections, "at least one ci values file shows a config file")
}

func testAppKey(t *testing.T) string {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	return string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}))
}

// The GitHub App's private key comes inline (GITHUB_APP_PRIVATE_KEY) or
// from a file (GITHUB_APP_PRIVATE_KEY_FILE), never both; a bad key stops
// serve at start without the key in the message.
func TestServeGitHubAppKey(t *testing.T) {
	key := testAppKey(t)
	file := filepath.Join(t.TempDir(), "app.pem")
	require.NoError(t, os.WriteFile(file, []byte(key), 0o600))
	app := map[string]string{"GITHUB_APP_ID": "12", "GITHUB_APP_INSTALLATION_ID": "34"}
	with := func(m map[string]string) map[string]string {
		out := baseServeEnv(app)
		for k, v := range m {
			out[k] = v
		}
		return out
	}

	e, err := loadServeEnv(envFrom(with(map[string]string{"GITHUB_APP_PRIVATE_KEY": key})))
	require.NoError(t, err)
	require.NotNil(t, e.GitHubApp)
	assert.Equal(t, int64(12), e.GitHubApp.AppID)
	assert.Equal(t, int64(34), e.GitHubApp.InstallationID)

	e, err = loadServeEnv(envFrom(with(map[string]string{"GITHUB_APP_PRIVATE_KEY": strings.ReplaceAll(strings.TrimSpace(key), "\n", `\n`)})))
	require.NoError(t, err, "a PEM flattened with literal \\n")
	require.NotNil(t, e.GitHubApp)

	e, err = loadServeEnv(envFrom(with(map[string]string{"GITHUB_APP_PRIVATE_KEY_FILE": file})))
	require.NoError(t, err)
	require.NotNil(t, e.GitHubApp)
	assert.Equal(t, key, string(e.GitHubApp.PrivateKeyPEM))

	_, err = loadServeEnv(envFrom(with(map[string]string{"GITHUB_APP_PRIVATE_KEY": key, "GITHUB_APP_PRIVATE_KEY_FILE": file})))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "GITHUB_APP_PRIVATE_KEY and GITHUB_APP_PRIVATE_KEY_FILE are both set")
	assert.NotContains(t, err.Error(), "PRIVATE KEY-----")

	const notAKey = "s3cr3t-not-a-pem-key-material"
	_, err = loadServeEnv(envFrom(with(map[string]string{"GITHUB_APP_PRIVATE_KEY": notAKey})))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "GITHUB_APP_PRIVATE_KEY")
	assert.NotContains(t, err.Error(), notAKey)

	bad := filepath.Join(t.TempDir(), "bad.pem")
	require.NoError(t, os.WriteFile(bad, []byte(notAKey), 0o600))
	_, err = loadServeEnv(envFrom(with(map[string]string{"GITHUB_APP_PRIVATE_KEY_FILE": bad})))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "GITHUB_APP_PRIVATE_KEY_FILE ("+bad+")")
	assert.NotContains(t, err.Error(), notAKey)

	_, err = loadServeEnv(envFrom(baseServeEnv(map[string]string{"GITHUB_APP_ID": "12", "GITHUB_APP_INSTALLATION_ID": "34"})))
	assert.ErrorContains(t, err, "GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_FILE must be")
}

// The chart's values schema knows the same config file keys as the bot's
// parsers, so that helm install rejects what serve would (a camelCase or
// misspelt key) and accepts what it reads.
func TestChartSchemaKnowsTheConfigKeys(t *testing.T) {
	raw, err := os.ReadFile("../../deploy/helm/autoheal/values.schema.json")
	require.NoError(t, err)
	type node struct {
		Properties map[string]*node `json:"properties"`
		Items      *node            `json:"items"`
	}
	var schema node
	require.NoError(t, json.Unmarshal(raw, &schema))
	content := schema.Properties["configFile"].Properties["content"]
	require.NotNil(t, content)
	keys := func(n *node) []string {
		require.NotNil(t, n)
		var out []string
		for k := range n.Properties {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	// The parsers list their keys when they meet an unknown one.
	known := func(err error) []string {
		require.Error(t, err)
		m := regexp.MustCompile(`\(known: ([^)]*)\)`).FindStringSubmatch(err.Error())
		require.Len(t, m, 2, err.Error())
		return strings.Split(m[1], ", ")
	}
	_, err = alerts.ParseConfig("c.yaml", []byte("routing:\n  default_channel: C0INCIDENTS\n  zz: 1\n"))
	assert.Equal(t, known(err), keys(content.Properties["routing"]), "routing:")
	_, err = alerts.ParseConfig("c.yaml", []byte("routing:\n  default_channel: C0INCIDENTS\n  routes: [{matchers: ['a=\"b\"'], zz: 1}]\n"))
	assert.Equal(t, known(err), keys(content.Properties["routing"].Properties["routes"].Items), "routing.routes[]")
	_, err = mcp.ParseConfigFile("c.yaml", []byte("mcp_servers: [{name: a, url: 'http://a/mcp', zz: 1}]\n"))
	assert.Equal(t, known(err), keys(content.Properties[mcp.ConfigSection].Items), "mcp_servers[]")
	assert.Equal(t, []string{"mcp_servers", "routing"}, keys(content))
}

// A top-level section no part of the bot reads is an error, not ignored.
func TestServeRejectsUnknownConfigSections(t *testing.T) {
	path := writeConfig(t, "alerts:\n  defaultChannel: C0INCIDENTS\nrouting:\n  default_channel: C0INCIDENTS\n")
	_, err := loadServeEnv(envFrom(baseServeEnv(map[string]string{alerts.ConfigEnv: path})))
	require.Error(t, err)
	assert.Contains(t, err.Error(), alerts.ConfigEnv+": "+path+`:1: unknown section "alerts" (known: routing, mcp_servers)`)

	path = writeConfig(t, "routing:\n  default_channel: C0INCIDENTS\nmcp_servers: []\n")
	_, err = loadServeEnv(envFrom(baseServeEnv(map[string]string{alerts.ConfigEnv: path})))
	assert.NoError(t, err)
}
