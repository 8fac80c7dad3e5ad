// Package config names the per-thread / per-channel settings a user can give
// with `/autoheal config` or `key: value` lines in a mention: which keys
// exist, which are secrets, and which environment variable is the fallback.
package config

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// Key describes one setting.
type Key struct {
	Name   string // as typed by users: repo, loki_url, github_token ...
	Env    string // environment fallback
	Secret bool   // encrypted at rest, never echoed
	Help   string
	// Validate checks a value; nil accepts anything non-empty.
	Validate func(string) error
}

var repoRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`)

func validURL(v string) error {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("must be an http(s) URL")
	}
	return nil
}

func validRepo(v string) error {
	if !repoRE.MatchString(v) {
		return fmt.Errorf("must be owner/name")
	}
	return nil
}

func oneOf(opts ...string) func(string) error {
	return func(v string) error {
		for _, o := range opts {
			if v == o {
				return nil
			}
		}
		return fmt.Errorf("must be one of %s", strings.Join(opts, ", "))
	}
}

// Keys is the catalogue of settings.
var Keys = []Key{
	{Name: "repo", Env: "AUTOHEAL_REPO", Help: "GitHub repository owner/name holding the services' source", Validate: validRepo},
	{Name: "ref", Env: "AUTOHEAL_REF", Help: "git ref deployed in production (default main)"},
	{Name: "service_name", Env: "AUTOHEAL_SERVICE", Help: "service to focus on when the message does not name one"},
	{Name: "namespace", Env: "AUTOHEAL_NAMESPACE", Help: "Kubernetes namespace of the services"},
	{Name: "log_service_label", Env: "LOKI_SERVICE_LABEL", Help: "Loki label naming the service (default service_name)"},
	{Name: "jaeger_url", Env: "JAEGER_URL", Help: "Jaeger query base URL", Validate: validURL},
	{Name: "jaeger_api", Env: "JAEGER_API", Help: "Jaeger search API: v1, v3 or auto (default auto)", Validate: oneOf("v1", "v3", "auto")},
	{Name: "jaeger_token", Env: "JAEGER_TOKEN", Secret: true, Help: "bearer token for Jaeger"},
	{Name: "loki_url", Env: "LOKI_URL", Help: "Loki base URL", Validate: validURL},
	{Name: "loki_token", Env: "LOKI_TOKEN", Secret: true, Help: "bearer token for Loki"},
	{Name: "loki_org_id", Env: "LOKI_ORG_ID", Help: "Loki tenant (X-Scope-OrgID)"},
	{Name: "prometheus_url", Env: "PROMETHEUS_URL", Help: "Prometheus base URL", Validate: validURL},
	{Name: "prometheus_token", Env: "PROMETHEUS_TOKEN", Secret: true, Help: "bearer token for Prometheus"},
	{Name: "github_api_url", Env: "GITHUB_API_URL", Help: "GitHub API base URL (GitHub Enterprise: https://HOST/api/v3/)", Validate: validURL},
	{Name: "github_token", Env: "GITHUB_TOKEN", Secret: true, Help: "GitHub token with contents:read (and pull_requests:write for approved fixes)"},
	{Name: "k8s_mcp_url", Env: "K8S_MCP_URL", Help: "streamable HTTP URL of a Kubernetes MCP server", Validate: validURL},
}

var byName = func() map[string]Key {
	m := make(map[string]Key, len(Keys))
	for _, k := range Keys {
		m[k.Name] = k
	}
	return m
}()

// Lookup returns the key named name (case-insensitive, '-' accepted for '_').
func Lookup(name string) (Key, bool) {
	k, ok := byName[Normalize(name)]
	return k, ok
}

// Normalize lowercases a key name and maps '-' to '_'.
func Normalize(name string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "-", "_")
}

// IsSecret reports whether the named key holds a secret.
func IsSecret(name string) bool {
	k, ok := Lookup(name)
	return ok && k.Secret
}

// Names returns all key names, sorted.
func Names() []string {
	out := make([]string, 0, len(Keys))
	for _, k := range Keys {
		out = append(out, k.Name)
	}
	sort.Strings(out)
	return out
}

// Check validates one key=value pair and returns the normalized key name.
// The error never contains the value (it may be a secret).
func Check(name, value string) (string, error) {
	k, ok := Lookup(name)
	if !ok {
		return "", fmt.Errorf("unknown config key %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	if strings.TrimSpace(value) == "" {
		return "", fmt.Errorf("%s: empty value", k.Name)
	}
	if k.Validate != nil {
		if err := k.Validate(strings.TrimSpace(value)); err != nil {
			return "", fmt.Errorf("%s: %v", k.Name, err)
		}
	}
	return k.Name, nil
}

// Mask shows a secret as its length class only: "••••" plus the last two
// characters when the secret is long enough that they reveal nothing useful.
func Mask(value string) string {
	if len(value) < 12 {
		return "••••"
	}
	return "••••" + value[len(value)-2:]
}
