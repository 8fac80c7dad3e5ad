// Package capset builds the investigation capabilities from resolved
// settings (thread > channel > environment): one place that knows which
// key configures which backend. It takes config.Settings, whose endpoint
// groups are already bound (sessions.Resolve), and hands each capability
// one endpoint: its URL with the credentials bound to it, never a URL from
// one scope with a token from another.
package capset

import (
	"context"
	"errors"
	"time"

	"github.com/autoheal/autoheal/config"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/gh"
	"github.com/autoheal/autoheal/investigate/httpc"
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
	// MCP shares MCP connections between investigations; its owner closes
	// it. Nil gives the Kubernetes capability a private connection, which
	// Close releases.
	MCP *mcp.Manager
	// Guard checks the connections to URLs set in a thread or channel
	// (private addresses refused unless allowlisted). Nil: a Guard with an
	// empty allowlist. The operator's URLs are not guarded.
	Guard *httpc.Guard
	// MCPServers are the operator's MCP servers (the mcp_servers: section
	// of the config file). The one named "kubernetes" backs the Kubernetes
	// capability when no k8s_mcp_url is set; Build offers the tools of the
	// others as <name>__<tool>.
	MCPServers []mcp.ServerConfig
}

// ErrNoManager is returned by Build for MCP servers without Options.MCP.
var ErrNoManager = errors.New("capset: MCP servers need Options.MCP (the process-wide connection manager)")

// Build is FromConfig plus one capability per MCP server of
// opts.MCPServers other than the Kubernetes one, connected through opts.MCP
// in parallel within ctx so that their tool lists are known. A server that
// cannot be reached still yields a capability reporting itself unavailable
// with the reason; the error is for configurations the manager refuses.
func Build(ctx context.Context, cfg config.Settings, opts Options) ([]investigate.Capability, error) {
	var extra []investigate.Capability
	var err error
	if len(opts.MCPServers) > 0 {
		if opts.MCP == nil {
			err = ErrNoManager
		} else {
			extra, err = opts.MCP.Capabilities(ctx, opts.MCPServers, k8s.ServerName)
		}
	}
	opts.Extra = append(append([]investigate.Capability(nil), opts.Extra...), extra...)
	return FromConfig(cfg, opts), err
}

// FromConfig returns every capability; those whose keys are missing report
// themselves unavailable with the reason. Each capability gets one bound
// endpoint; those whose URL a user set connect through the guard.
func FromConfig(cfg config.Settings, opts Options) []investigate.Capability {
	guard := func(ep config.Endpoint) *httpc.Guard {
		if !ep.UserURL {
			return nil
		}
		if opts.Guard == nil {
			opts.Guard = httpc.NewGuard(httpc.GuardOptions{})
		}
		return opts.Guard
	}
	traces, logs, metrics := cfg.Endpoint("jaeger_url"), cfg.Endpoint("loki_url"), cfg.Endpoint("prometheus_url")
	github, kube := cfg.Endpoint("github_api_url"), cfg.Endpoint("k8s_mcp_url")
	changes, source := gh.New(gh.Config{APIURL: github.URL, Token: github.Bound["github_token"], Repo: cfg.Get("repo"), Ref: cfg.Get("ref"),
		Timeout: opts.Timeout, MaxBody: opts.MaxBody, Guard: guard(github)})
	k8sCfg := k8s.Config{URL: kube.URL, Server: k8s.FromMCPConfig(opts.MCPServers), Namespace: cfg.Get("namespace"),
		Timeout: opts.Timeout, Manager: opts.MCP}
	if g := guard(kube); g != nil {
		// A user's MCP URL gets a private, guarded connection, never one of
		// the shared manager's.
		k8sCfg.Manager, k8sCfg.ClientOptions = nil, mcp.Options{HTTPTransport: g.Transport()}
	}
	caps := []investigate.Capability{
		jaeger.New(jaeger.Config{URL: traces.URL, Token: traces.Bound["jaeger_token"], API: jaeger.API(cfg.Get("jaeger_api")),
			Timeout: opts.Timeout, MaxBody: opts.MaxBody, Guard: guard(traces)}),
		loki.New(loki.Config{URL: logs.URL, Token: logs.Bound["loki_token"], OrgID: logs.Bound["loki_org_id"], ServiceLabel: cfg.Get("log_service_label"),
			Timeout: opts.Timeout, MaxBody: opts.MaxBody, Guard: guard(logs)}),
		prom.New(prom.Config{URL: metrics.URL, Token: metrics.Bound["prometheus_token"], Timeout: opts.Timeout, MaxBody: opts.MaxBody, Guard: guard(metrics)}),
		changes,
		source,
		k8s.New(k8sCfg),
	}
	return append(caps, opts.Extra...)
}

// Close releases what FromConfig opened for one investigation alone (a
// private Kubernetes MCP connection when Options.MCP was nil). Shared
// connections belong to Options.MCP and stay open for other
// investigations.
func Close(caps []investigate.Capability) error {
	var errs []error
	for _, c := range caps {
		if k, ok := c.(*k8s.Capability); ok {
			errs = append(errs, k.Close())
		}
	}
	return errors.Join(errs...)
}
