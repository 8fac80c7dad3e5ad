package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/autoheal/autoheal/alerts"
	"github.com/autoheal/autoheal/chart"
	"github.com/autoheal/autoheal/config"
	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/capset"
	"github.com/autoheal/autoheal/investigate/llm"
	"github.com/autoheal/autoheal/investigate/mcp"
	"github.com/autoheal/autoheal/redact"
	"github.com/autoheal/autoheal/runbooks"
	"github.com/autoheal/autoheal/scenario"
)

func runInvestigate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("investigate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	scen := fs.String("scenario", "", "investigate this scenario directory against its simulators")
	asJSON := fs.Bool("json", false, "print the HealResult as JSON")
	repo := fs.String("repo", "", "GitHub repository owner/name (env AUTOHEAL_REPO)")
	ref := fs.String("ref", "", "git ref deployed (env AUTOHEAL_REF)")
	service := fs.String("service", "", "service to focus on (env AUTOHEAL_SERVICE)")
	namespace := fs.String("namespace", "", "Kubernetes namespace (env AUTOHEAL_NAMESPACE)")
	deadline := fs.Duration("deadline", 60*time.Second, "overall investigation deadline")
	since := fs.String("since", "", "window start: RFC 3339 time, or a duration before the window's end (2h, 90m); default from the issue text, 1-24h back")
	until := fs.String("until", "", "window end: RFC 3339 time, or a duration before now (1h); default now")
	transcript := fs.String("transcript", "", "with --scenario: write every simulator call as JSON lines to this file")
	explain := fs.Bool("explain", false, "also print the candidate root causes the evidence supports, with their scores")
	runbookDir := fs.String("runbooks", "", "runbook library directory (env "+runbooks.DirEnv+")")
	chartFile := fs.String("chart", "", "write the evidence chart (PNG) to this file; none is written when no metric of the blamed service moved at the onset")
	lf := addLLMFlags(fs, true)
	level := addLogLevelFlag(fs, "warn")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := setCLILogger(stderr, *level); err != nil {
		return err
	}
	planner, done, err := lf.planner(stderr)
	if err != nil {
		return err
	}
	defer done()
	library, err := runbookLibrary(*runbookDir)
	if err != nil {
		return err
	}
	var res *investigate.HealResult
	if *scen != "" && (*since != "" || *until != "") {
		return fmt.Errorf("%w: --since/--until apply to real backends; a scenario investigates its own window (its clock is scenario.yaml's now)", errUsage)
	}
	start, end, err := parseWindow(*since, *until, time.Now())
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if *scen != "" {
		s, err := scenario.Load(*scen)
		if err != nil {
			return err
		}
		opts := harness.RunOptions{Engine: investigate.Options{Deadline: *deadline, Logger: slog.Default(), Runbooks: library}}
		if *transcript != "" {
			f, err := os.Create(*transcript)
			if err != nil {
				return err
			}
			defer f.Close()
			opts.Backends.Transcript = simTranscript(f)
		}
		opts.Investigator = investigator(planner)
		opts.WrapCapabilities = wrapFor(planner)
		if *explain {
			opts.Investigator = func(ctx context.Context, e *investigate.Engine, issue investigate.Issue) (*investigate.HealResult, error) {
				var r *investigate.HealResult
				var err error
				if planner != nil {
					r, err = planner.Investigate(ctx, e, issue)
				} else {
					r, err = e.Investigate(ctx, issue)
				}
				if err == nil {
					fmt.Fprintln(stderr, e.Explain(issue, r.Timeline))
				}
				return r, err
			}
		}
		res, err = harness.Run(ctx, s, opts)
		if err != nil {
			return err
		}
	} else {
		text := strings.TrimSpace(strings.Join(fs.Args(), " "))
		if text == "" {
			return fmt.Errorf("%w: give the issue text (\"ad service is throwing errors since 10am\") or --scenario DIR", errUsage)
		}
		cfg := envConfig()
		setGiven(cfg, map[string]string{"repo": *repo, "ref": *ref, "service_name": *service, "namespace": *namespace})
		issue := investigate.Issue{Text: text, Trigger: investigate.TriggerCLI, Start: start, End: end}
		if res, err = investigateBackends(ctx, cfg, issue, *deadline, planner, library); err != nil {
			return err
		}
	}
	if *chartFile != "" {
		if err := writeChart(*chartFile, res, stderr); err != nil {
			return err
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	_, err = io.WriteString(stdout, investigate.FormatText(res))
	return err
}

// writeChart writes the result's evidence chart to path, or says on
// stderr why there is none (no file is written then).
func writeChart(path string, res *investigate.HealResult, stderr io.Writer) error {
	png, err := chart.Evidence(res.Chart)
	if errors.Is(err, chart.ErrNoChart) {
		fmt.Fprintf(stderr, "no chart: no metric of %s moved at the onset\n", firstNonEmptyString(res.RootCause.Service, "the blamed service"))
		return nil
	}
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		return fmt.Errorf("--chart: %w", err)
	}
	fmt.Fprintf(stderr, "chart: %s (%s, %d KB)\n", path, res.Chart.Service+": "+res.Chart.What, (len(png)+1023)/1024)
	return nil
}

// investigateBackends runs one investigation against the real backends
// cfg configures (the environment's settings and the MCP servers of
// AUTOHEAL_CONFIG, as serve uses them), with the model when planner is set.
// The issue's service, namespace, repo and ref default to cfg's.
func investigateBackends(ctx context.Context, cfg map[string]string, issue investigate.Issue, deadline time.Duration, planner *llm.Planner, library investigate.RunbookLibrary) (*investigate.HealResult, error) {
	e, done, err := backendsEngine(ctx, cfg, deadline, planner, library)
	if err != nil {
		return nil, err
	}
	defer done()
	issue = issueFromConfig(issue, cfg)
	if planner != nil {
		return planner.Investigate(ctx, e, issue)
	}
	return e.Investigate(ctx, issue)
}

// backendsEngine builds an engine over the real backends cfg configures;
// done closes its MCP connections.
func backendsEngine(ctx context.Context, cfg map[string]string, deadline time.Duration, planner *llm.Planner, library investigate.RunbookLibrary) (e *investigate.Engine, done func(), err error) {
	for k, v := range cfg {
		if _, err := config.Check(k, v); err != nil {
			return nil, nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		if config.IsSecret(k) {
			redact.Register(v)
		}
	}
	var servers []mcp.ServerConfig
	if path := strings.TrimSpace(os.Getenv(alerts.ConfigEnv)); path != "" {
		var secrets []string
		if servers, secrets, err = loadMCPServers(path, os.Getenv); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", alerts.ConfigEnv, err)
		}
		redact.Register(secrets...)
	}
	mcps := mcp.NewManager(mcp.Options{Logger: slog.Default().With("component", "mcp"), ClientVersion: version}, 0)
	caps, err := capset.Build(ctx, config.OperatorSettings(cfg), capset.Options{MCP: mcps, MCPServers: servers})
	if err != nil {
		_ = mcps.Close()
		return nil, nil, err
	}
	if planner != nil {
		caps = planner.WrapCapabilities(caps) // the model also sees query results, not only findings
	}
	e = investigate.New(investigate.Options{Deadline: deadline, Capabilities: caps, Logger: slog.Default(), Runbooks: library})
	return e, func() { _ = mcps.Close() }, nil
}

// issueFromConfig fills what the issue does not say from the settings.
func issueFromConfig(issue investigate.Issue, cfg map[string]string) investigate.Issue {
	return issue.WithSettings(func(key string) string { return cfg[key] })
}

// setGiven sets in cfg the settings given (flags, a kept incident's own),
// over the environment's; an empty value leaves cfg's.
func setGiven(cfg, given map[string]string) {
	for k, v := range given {
		if v != "" {
			cfg[k] = v
		}
	}
}

// envConfig reads every config key's environment fallback.
func envConfig() map[string]string {
	cfg := map[string]string{}
	for _, k := range config.Keys {
		if v := strings.TrimSpace(os.Getenv(k.Env)); v != "" {
			cfg[k.Name] = v
		}
	}
	return cfg
}
