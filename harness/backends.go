// Package harness runs scenarios: it serves a scenario's frozen telemetry
// through the simulators (real HTTP APIs on loopback), builds the session
// configuration that points the engine at them, and scores results against
// the ground truth. `bot eval`, `bot investigate --scenario`, `bot demo` and
// end-to-end tests share it. It is a test/demo harness: production paths
// never import it.
package harness

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"time"

	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sim"
	"github.com/autoheal/autoheal/sim/faults"
	ghsim "github.com/autoheal/autoheal/sim/github"
	jaegersim "github.com/autoheal/autoheal/sim/jaeger"
	"github.com/autoheal/autoheal/sim/k8smcp"
	lokisim "github.com/autoheal/autoheal/sim/loki"
)

// Options configure the simulated backends.
type Options struct {
	// Transcript records every call the engine makes to a simulator.
	Transcript *sim.Transcript
	// Latency is added to every simulated backend call (the concurrency benchmark uses 200 ms).
	Latency time.Duration
	// GitHubToken, when set, is the only token the GitHub simulator accepts.
	GitHubToken string
	// Listen is the address pattern for the simulators (default 127.0.0.1:0).
	Listen string
	Logger *slog.Logger
}

// Backends are the running simulators of one scenario.
type Backends struct {
	Scenario *scenario.Scenario
	// URLs by service: jaeger, loki, prometheus, github (empty when the
	// scenario has no data for that backend).
	URLs map[string]string
	// Faults inject failures per service.
	Faults map[string]*faults.Injector
	// GitHub is the GitHub simulator (nil without repo/ and changes.json).
	GitHub *ghsim.Server
	// Settings are added to the session configuration last: a test points
	// the engine at a real backend with them (jaeger_url, jaeger_api).
	Settings map[string]string
	servers  []*httptest.Server
	token    string
}

// Start serves the scenario's backends. Files a scenario lacks are not
// served, so the engine sees those backends as not configured.
func Start(s *scenario.Scenario, opts Options) (*Backends, error) {
	b := &Backends{Scenario: s, URLs: map[string]string{}, Faults: map[string]*faults.Injector{}, token: opts.GitHubToken}
	serve := func(service string, h http.Handler) error {
		inj := faults.New(h, faults.Options{Service: service, Transcript: opts.Transcript, Logger: opts.Logger})
		if opts.Latency > 0 {
			if err := inj.Set("/", faults.Fault{Latency: opts.Latency}); err != nil {
				return err
			}
		}
		srv := httptest.NewUnstartedServer(inj)
		if opts.Listen != "" {
			l, err := net.Listen("tcp", opts.Listen)
			if err != nil {
				return fmt.Errorf("%s simulator: %w", service, err)
			}
			srv.Listener = l
		}
		srv.Start()
		b.servers = append(b.servers, srv)
		b.URLs[service] = srv.URL
		b.Faults[service] = inj
		return nil
	}
	var err error
	defer func() {
		if err != nil {
			b.Close()
		}
	}()
	if s.Traces != nil {
		var h *jaegersim.Handler
		if h, err = jaegersim.New(s.Traces, jaegersim.Options{Now: s.Now, Transcript: opts.Transcript, Logger: opts.Logger}); err != nil {
			return nil, fmt.Errorf("jaeger simulator: %w", err)
		}
		if err = serve("jaeger", h); err != nil {
			return nil, err
		}
	}
	if s.Logs != nil {
		var h *lokisim.Handler
		if h, err = lokisim.New(s.Logs, lokisim.Options{Now: s.Now, Transcript: opts.Transcript, Logger: opts.Logger}); err != nil {
			return nil, fmt.Errorf("loki simulator: %w", err)
		}
		if err = serve("loki", h); err != nil {
			return nil, err
		}
	}
	if err = startMetrics(b, s, opts, serve); err != nil {
		return nil, err
	}
	if s.K8s != nil {
		var ks *k8smcp.Server
		if ks, err = k8smcp.New(s, k8smcp.Options{Transcript: opts.Transcript, Logger: opts.Logger}); err != nil {
			return nil, fmt.Errorf("kubernetes MCP simulator: %w", err)
		}
		if err = serve("k8s", ks.Handler()); err != nil {
			return nil, err
		}
	}
	if (s.Repo != nil || s.Changes != nil) && s.Config["repo"] != "" {
		gopts := ghsim.Options{Transcript: opts.Transcript, Logger: opts.Logger}
		if opts.GitHubToken != "" {
			gopts.Tokens = []string{opts.GitHubToken}
		}
		if b.GitHub, err = ghsim.NewFromScenario(s, gopts); err != nil {
			return nil, fmt.Errorf("github simulator: %w", err)
		}
		if err = serve("github", b.GitHub.Handler()); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// Close stops every simulator.
func (b *Backends) Close() {
	for _, f := range b.Faults {
		f.ReleaseHangs()
	}
	for _, s := range b.servers {
		s.Close()
	}
	b.servers = nil
}

// Config is the session configuration pointing at the simulators, on top of
// the scenario's own config (repo, ref, service_name, log_service_label).
func (b *Backends) Config() map[string]string {
	cfg := map[string]string{}
	for k, v := range b.Scenario.Config {
		cfg[k] = v
	}
	if u := b.URLs["jaeger"]; u != "" {
		cfg["jaeger_url"] = u
	}
	if u := b.URLs["loki"]; u != "" {
		cfg["loki_url"] = u
	}
	if u := b.URLs["prometheus"]; u != "" {
		cfg["prometheus_url"] = u
	}
	if u := b.URLs["k8s"]; u != "" {
		cfg["k8s_mcp_url"] = u + k8smcp.Path
	}
	if u := b.URLs["github"]; u != "" {
		cfg["github_api_url"] = u + "/"
		if b.token != "" {
			cfg["github_token"] = b.token
		}
	} else {
		delete(cfg, "repo") // no repository served: source and changes are unavailable
	}
	for k, v := range b.Settings {
		cfg[k] = v
	}
	return cfg
}

// Describe lists the simulator URLs, one per line, for `bot sim`.
func (b *Backends) Describe() string {
	var keys []string
	for k := range b.URLs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var lines []string
	for _, k := range keys {
		lines = append(lines, fmt.Sprintf("%-11s %s", k, b.URLs[k]))
	}
	return strings.Join(lines, "\n")
}
