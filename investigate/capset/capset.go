// Package capset builds the investigation capabilities from a resolved
// session configuration (thread > channel > environment): one place that
// knows which key configures which backend.
package capset

import (
	"time"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/gh"
	"github.com/autoheal/autoheal/investigate/jaeger"
	"github.com/autoheal/autoheal/investigate/k8s"
	"github.com/autoheal/autoheal/investigate/loki"
	"github.com/autoheal/autoheal/investigate/mcp"
	"github.com/autoheal/autoheal/investigate/prom"
)

// Options tune every capability.
type Options struct {
	// Timeout bounds one backend HTTP call (default 10 s).
	Timeout time.Duration
	// MaxBody caps one backend response (default 8 MiB).
	MaxBody int64
	// Extra capabilities (user-configured MCP toolsets) appended as they are.
	Extra []investigate.Capability
	// MCP shares MCP connections process-wide (nil: the Kubernetes
	// capability's own shared manager).
	MCP *mcp.Manager
	// MCPServers are the operator's MCP servers; the one named "kubernetes"
	// backs the Kubernetes capability when no k8s_mcp_url is set.
	MCPServers []mcp.ServerConfig
}

// FromConfig returns every capability; those whose keys are missing report
// themselves unavailable with the reason.
func FromConfig(cfg map[string]string, opts Options) []investigate.Capability {
	changes, source := gh.New(gh.Config{APIURL: cfg["github_api_url"], Token: cfg["github_token"], Repo: cfg["repo"], Ref: cfg["ref"],
		Timeout: opts.Timeout, MaxBody: opts.MaxBody})
	caps := []investigate.Capability{
		jaeger.New(jaeger.Config{URL: cfg["jaeger_url"], Token: cfg["jaeger_token"], API: jaeger.API(cfg["jaeger_api"]), Timeout: opts.Timeout, MaxBody: opts.MaxBody}),
		loki.New(loki.Config{URL: cfg["loki_url"], Token: cfg["loki_token"], OrgID: cfg["loki_org_id"], ServiceLabel: cfg["log_service_label"], Timeout: opts.Timeout, MaxBody: opts.MaxBody}),
		prom.New(prom.Config{URL: cfg["prometheus_url"], Token: cfg["prometheus_token"], Timeout: opts.Timeout, MaxBody: opts.MaxBody}),
		changes,
		source,
		k8s.New(k8s.Config{URL: cfg["k8s_mcp_url"], Server: k8s.FromMCPConfig(opts.MCPServers), Namespace: cfg["namespace"],
			Timeout: opts.Timeout, Manager: opts.MCP}),
	}
	return append(caps, opts.Extra...)
}
