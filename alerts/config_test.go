package alerts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const goodConfig = `
mcp_servers:            # another section: not ours, left alone
  - name: argocd
    url: http://argocd-mcp:8080/mcp
routing:
  default_channel: C0INCIDENTS
  cooldown: 45m
  dedupe_window: 2m
  issue_key_labels: [cluster]
  required_labels: [namespace]
  investigate:
    severities: [Critical, warning]
  session:
    repo: acme/shop
    log_service_label: service_name
  routes:
    - name: watchdog
      matchers: ['alertname="Watchdog"']
      ignore: true
    - name: payments
      matchers: ['namespace="payments"', 'severity=~"critical|warning"']
      channel: C0PAYMENTS
      cooldown: 1d
      issue_key_labels: [region]
      session: {repo: acme/payments, service_name: payments-api}
    - name: sandbox
      matchers: ['namespace=~"sandbox-.*"']
      investigate: false
    - name: noisy
      matchers: ['team!="core"', 'alertname!~"Kube.*"']
      investigate: {matchers: ['severity="critical"']}
`

func TestParseConfigRouting(t *testing.T) {
	cfg, err := ParseConfig("config.yaml", []byte(goodConfig))
	require.NoError(t, err)
	r := cfg.Routing
	require.NotNil(t, r)
	assert.Equal(t, "C0INCIDENTS", r.DefaultChannel)
	assert.Equal(t, 45*time.Minute, r.Cooldown)
	assert.Equal(t, 2*time.Minute, r.DedupeWindow)
	assert.Equal(t, []string{"cluster"}, r.IssueKeyLabels)
	assert.Equal(t, []string{"namespace"}, r.RequiredLabels)
	assert.Equal(t, map[string]string{"repo": "acme/shop", "log_service_label": "service_name"}, r.Session)
	require.Len(t, r.Routes, 4)

	cases := []struct {
		name     string
		labels   map[string]string
		route    string
		channel  string
		invest   bool
		ignore   bool
		cooldown time.Duration
		keys     []string
		repo     string
	}{
		{"first match wins", map[string]string{"alertname": "Watchdog", "namespace": "payments", "severity": "critical"}, "watchdog", "C0INCIDENTS", true, true, 45 * time.Minute, []string{"cluster"}, "acme/shop"},
		{"route channel, cooldown, labels, session", map[string]string{"alertname": "HighLatency", "namespace": "payments", "severity": "critical", "team": "core"}, "payments", "C0PAYMENTS", true, false, 24 * time.Hour, []string{"cluster", "region"}, "acme/payments"},
		{"regex is anchored", map[string]string{"alertname": "HighLatency", "namespace": "payments", "severity": "critical-ish", "team": "core"}, "default", "C0INCIDENTS", false, false, 45 * time.Minute, []string{"cluster"}, "acme/shop"},
		{"post only", map[string]string{"alertname": "X", "namespace": "sandbox-7", "severity": "critical"}, "sandbox", "C0INCIDENTS", false, false, 45 * time.Minute, []string{"cluster"}, "acme/shop"},
		{"route policy by matchers", map[string]string{"alertname": "DiskFull", "team": "infra", "severity": "critical"}, "noisy", "C0INCIDENTS", true, false, 45 * time.Minute, []string{"cluster"}, "acme/shop"},
		{"route policy refuses", map[string]string{"alertname": "DiskFull", "team": "infra", "severity": "warning"}, "noisy", "C0INCIDENTS", false, false, 45 * time.Minute, []string{"cluster"}, "acme/shop"},
		{"default policy by severity (case-insensitive)", map[string]string{"alertname": "KubeX", "team": "core", "severity": "WARNING"}, "default", "C0INCIDENTS", true, false, 45 * time.Minute, []string{"cluster"}, "acme/shop"},
		{"default policy refuses info", map[string]string{"alertname": "KubeX", "team": "core", "severity": "info"}, "default", "C0INCIDENTS", false, false, 45 * time.Minute, []string{"cluster"}, "acme/shop"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := r.Decide(c.labels)
			assert.Equal(t, c.route, d.Route)
			assert.Equal(t, c.channel, d.Channel)
			assert.Equal(t, c.invest, d.Investigate)
			assert.Equal(t, c.ignore, d.Ignore)
			assert.Equal(t, c.cooldown, d.Cooldown)
			assert.Equal(t, c.keys, d.KeyLabels)
			assert.Equal(t, c.repo, d.Session["repo"])
		})
	}
}

func TestParseConfigWithoutRouting(t *testing.T) {
	cfg, err := ParseConfig("c.yaml", []byte("mcp_servers: []\nsomething_else: {a: 1}\n"))
	require.NoError(t, err)
	assert.Nil(t, cfg.Routing)
	cfg, err = ParseConfig("c.yaml", nil)
	require.NoError(t, err)
	assert.Nil(t, cfg.Routing)
}

func TestParseConfigErrorsNameTheLine(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       []string
	}{
		{"unknown key inside routing", "routing:\n  default_channel: C0A1\n  cooldwn: 5m\n", []string{`c.yaml:3: routing.cooldwn: unknown key "cooldwn"`}},
		{"unknown key in a route", "routing:\n  default_channel: C0A1\n  routes:\n    - matchers: ['a=\"b\"']\n      chanel: C0B2\n", []string{`c.yaml:5: routing.routes[0].chanel: unknown key "chanel"`}},
		{"missing default channel", "routing:\n  cooldown: 5m\n", []string{"c.yaml:2: routing.default_channel: is required"}},
		{"channel name instead of id", "routing:\n  default_channel: '#incidents'\n", []string{`c.yaml:2: routing.default_channel: "#incidents" is not a Slack channel id`}},
		{"bad matcher operator", "routing:\n  default_channel: C0A1\n  routes:\n    - matchers: ['severity>critical']\n", []string{"c.yaml:4: routing.routes[0].matchers[0]"}},
		{"bad regex", "routing:\n  default_channel: C0A1\n  routes:\n    - matchers: ['service=~\"(cart\"']\n", []string{"c.yaml:4: routing.routes[0].matchers[0]", "bad regular expression"}},
		{"bad duration", "routing:\n  default_channel: C0A1\n  cooldown: soon\n", []string{`c.yaml:3: routing.cooldown: "soon" is not a duration`}},
		{"zero dedupe window", "routing:\n  default_channel: C0A1\n  dedupe_window: 0s\n", []string{"c.yaml:3: routing.dedupe_window: must be positive"}},
		{"secret in session", "routing:\n  default_channel: C0A1\n  session:\n    github_token: ghp_x\n", []string{"c.yaml:4: routing.session.github_token: github_token is a secret: set it with GITHUB_TOKEN"}},
		{"invalid session value", "routing:\n  default_channel: C0A1\n  session:\n    loki_url: ftp://x\n", []string{"c.yaml:4: routing.session.loki_url: loki_url: must be an http(s) URL"}},
		{"unknown setting", "routing:\n  default_channel: C0A1\n  session:\n    rep: a/b\n", []string{`c.yaml:4: routing.session.rep: unknown setting "rep"`}},
		{"route without matchers", "routing:\n  default_channel: C0A1\n  routes:\n    - channel: C0B2\n", []string{"c.yaml:4: routing.routes[0].matchers: is required"}},
		{"bad label name", "routing:\n  default_channel: C0A1\n  issue_key_labels: [ok, 'not-a-label']\n", []string{`c.yaml:3: routing.issue_key_labels[1]: "not-a-label" is not a label name`}},
		{"investigate not a bool", "routing:\n  default_channel: C0A1\n  investigate: sometimes\n", []string{`c.yaml:3: routing.investigate: must be true or false`}},
		{"duplicate route names", "routing:\n  default_channel: C0A1\n  routes:\n    - {name: a, matchers: ['x=\"1\"']}\n    - {name: a, matchers: ['x=\"2\"']}\n", []string{`c.yaml:5: routing.routes[1].name: route name "a" is also used by routes[0]`}},
		{"routing not a mapping", "routing: [1, 2]\n", []string{"c.yaml:1: routing: must be a mapping"}},
		{"yaml syntax", "routing:\n  default_channel: C0A1\n   bad: indent\n", []string{"c.yaml: line 3"}},
		{"several problems at once", "routing:\n  default_channel: nope\n  cooldown: x\n", []string{"c.yaml:2:", "c.yaml:3:"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseConfig("c.yaml", []byte(c.yaml))
			require.Error(t, err)
			for _, w := range c.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestLoadConfigExampleFile(t *testing.T) {
	cfg, err := LoadConfig(filepath.Join("testdata", "config.yaml"))
	require.NoError(t, err)
	require.NotNil(t, cfg.Routing)
	assert.NotEmpty(t, cfg.Routing.Routes)
	_, err = LoadConfig(filepath.Join(t.TempDir(), "missing.yaml"))
	require.Error(t, err)
	assert.True(t, os.IsNotExist(errorsUnwrapAll(err)))
}

func errorsUnwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		next := u.Unwrap()
		if next == nil {
			return err
		}
		err = next
	}
}

func TestParseMatcher(t *testing.T) {
	cases := []struct {
		in      string
		labels  map[string]string
		matches bool
	}{
		{`severity="critical"`, map[string]string{"severity": "critical"}, true},
		{`severity=critical`, map[string]string{"severity": "critical"}, true},
		{` severity = "critical" `, map[string]string{"severity": "warning"}, false},
		{`team!="qa"`, map[string]string{}, true},
		{`team!=qa`, map[string]string{"team": "qa"}, false},
		{`service=~"cart|checkout"`, map[string]string{"service": "checkout"}, true},
		{`service=~"cart|checkout"`, map[string]string{"service": "checkout-v2"}, false},
		{`service!~"cart.*"`, map[string]string{"service": "cartography"}, false},
		{`service!~"cart.*"`, map[string]string{"service": "ad"}, true},
		{`msg="a \"quoted\" = value"`, map[string]string{"msg": `a "quoted" = value`}, true},
		{`missing=""`, map[string]string{}, true},
	}
	for _, c := range cases {
		m, err := ParseMatcher(c.in)
		require.NoError(t, err, c.in)
		assert.Equal(t, c.matches, m.Matches(c.labels), c.in)
	}
	for _, bad := range []string{"", "=x", "severity", "sev erity=x", `a="unterminated`, `a=b"c`, `1a=b`, `a=~"("`, "a<b"} {
		_, err := ParseMatcher(bad)
		assert.Error(t, err, bad)
	}
	m, _ := ParseMatcher(`a=~"x|y"`)
	assert.Equal(t, `a=~"x|y"`, m.String())
	assert.True(t, strings.HasPrefix(m.String(), "a=~"))
}
