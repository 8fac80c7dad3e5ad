package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/prometheus/alertmanager/template"

	"github.com/autoheal/autoheal/alerts"
	"github.com/autoheal/autoheal/bot"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/llm"
	"github.com/autoheal/autoheal/mcpserve"
	"github.com/autoheal/autoheal/sessions"
)

// mcpTokenEnv holds the bearer token of `bot mcp --http`.
const mcpTokenEnv = "AUTOHEAL_MCP_TOKEN"

// runMCP is `bot mcp`: AutoHeal as an MCP server over stdio (default) or
// streamable HTTP, investigating with the backends of the environment (as
// `bot investigate` does) and reading kept results from serve's Redis.
func runMCP(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	httpAddr := fs.String("http", "", "serve streamable HTTP on this address (path /mcp) instead of stdio; needs "+mcpTokenEnv+" (16+ characters)")
	deadline := fs.Duration("deadline", 60*time.Second, "bound of one investigation")
	lf := addLLMFlags(fs, true)
	level := addLogLevelFlag(fs, "warn")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: bot mcp [--http ADDR] [--no-llm]\n\nAutoHeal as an MCP server: tools investigate, get_result, list_recent_incidents, explain (read-only).")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	token := strings.TrimSpace(os.Getenv(mcpTokenEnv))
	if *httpAddr != "" && len(token) < 16 {
		return fmt.Errorf("%w: --http needs %s (16 characters or more): the HTTP transport is never open", errUsage, mcpTokenEnv)
	}
	if err := setCLILogger(stderr, *level); err != nil {
		return err
	}
	planner, done, err := lf.planner(stderr)
	if err != nil {
		return err
	}
	defer done()
	// Results are kept in serve's Redis; without one, investigations still
	// run, but get_result and list_recent_incidents have nothing to read.
	var store *sessions.Store
	if st, closeStore, err := storeFromEnv(ctx); err != nil {
		slog.Warn("no Redis for results: get_result and list_recent_incidents will find nothing", "err", err)
	} else {
		defer closeStore()
		store = st
	}
	s := mcpserve.New(mcpOptions(store, *deadline, planner))
	if *httpAddr == "" {
		return server.NewStdioServer(s).Listen(ctx, os.Stdin, stdout)
	}
	h, err := mcpserve.HTTPHandler(s, token)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *httpAddr)
	if err != nil {
		return fmt.Errorf("--http %s: %w", *httpAddr, err)
	}
	fmt.Fprintf(stderr, "autoheal MCP server on http://%s/mcp\n", ln.Addr())
	return serveMCPHTTP(ctx, ln, h)
}

func serveMCPHTTP(ctx context.Context, ln net.Listener, h http.Handler) error {
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: 2 * time.Minute}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return srv.Shutdown(sctx)
}

// mcpOptions wires the MCP server to the environment's backends and to
// the store (nil: nothing kept).
func mcpOptions(store *sessions.Store, deadline time.Duration, planner *llm.Planner) mcpserve.Options {
	o := mcpserve.Options{
		Version: version,
		Logger:  slog.Default().With("component", "mcp-server"),
		Explain: func(issue investigate.Issue, res *investigate.HealResult) string {
			return investigate.New(investigate.Options{}).Explain(issue, res.Timeline)
		},
		Investigate: func(ctx context.Context, r mcpserve.Request) (string, investigate.Issue, *investigate.HealResult, error) {
			issue, err := mcpIssue(r)
			if err != nil {
				return "", issue, nil, err
			}
			res, err := investigateBackends(ctx, envConfig(), issue, deadline, planner, nil)
			if err != nil {
				return "", issue, nil, err
			}
			key := "mcp-" + randomKey()
			if store != nil {
				if err := bot.SaveResult(ctx, store, key, issue, res); err != nil {
					slog.Warn("mcp result not kept", "key", key, "err", err)
				}
			}
			return key, issue, res, nil
		},
		Results: storeResults{store},
	}
	if store != nil {
		o.Audit = func(ctx context.Context, entry string) {
			rec := sessions.AuditRecord{Action: sessions.AuditMCPCall, IssueKey: "mcp-server", Detail: entry}
			if err := store.RecordAudit(context.WithoutCancel(ctx), rec); err != nil {
				slog.Warn("mcp call not audited in Redis", "err", err)
			}
		}
	}
	return o
}

// mcpIssue turns a request into an issue: the text, or an alert's
// summaries and labels.
func mcpIssue(r mcpserve.Request) (investigate.Issue, error) {
	issue := investigate.Issue{Text: r.Text, Service: r.Service, Trigger: investigate.TriggerCLI, Start: r.Since, End: r.Until}
	if len(r.Alert) == 0 {
		return issue, nil
	}
	var as []template.Alert
	if msg, err := alerts.Decode(r.Alert); err == nil {
		as = msg.Alerts
	} else {
		var one template.Alert
		if jerr := json.Unmarshal(r.Alert, &one); jerr != nil || len(one.Labels) == 0 {
			return issue, fmt.Errorf("alert: neither an Alertmanager webhook body nor an alert: %v", err)
		}
		as = []template.Alert{one}
	}
	alerts.BoundAlerts(as)
	ai := alerts.Issue(as, alerts.IssueOptions{Service: r.Service, Now: time.Now()})
	ai.Trigger = investigate.TriggerAlert
	ai.Text = strings.TrimSpace(strings.Join([]string{r.Text, ai.Text}, "\n"))
	if !r.Since.IsZero() {
		ai.Start = r.Since
	}
	if !r.Until.IsZero() {
		ai.End = r.Until
	}
	return ai, nil
}

func randomKey() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// storeResults reads kept results by key, job id or issue key.
type storeResults struct{ store *sessions.Store }

func (r storeResults) Result(ctx context.Context, key string) (investigate.Issue, *investigate.HealResult, error) {
	if r.store == nil || key == "" {
		return investigate.Issue{}, nil, sessions.ErrNotFound
	}
	_, issue, res, err := keptResult(ctx, r.store, key)
	return issue, res, err
}

// threadRE is a thread as bot history prints it: CHANNEL/THREAD_TS.
var threadRE = regexp.MustCompile(`^[CDG][A-Z0-9]{2,24}/[0-9]{1,12}\.[0-9]{1,9}$`)

// keptResult finds a kept result by job id, by an incident's issue key or
// by its thread (CHANNEL/THREAD_TS): the latest investigation remembered
// for the key or thread. sessions.ErrNotFound when there is none.
func keptResult(ctx context.Context, store *sessions.Store, key string) (jobID string, issue investigate.Issue, res *investigate.HealResult, err error) {
	issue, res, err = bot.LoadResult(ctx, store, key)
	if !errors.Is(err, sessions.ErrNotFound) {
		return key, issue, res, err
	}
	recs, rerr := store.RecentIncidents(ctx, sessions.MemoryIndex{}, 1000)
	if rerr != nil {
		return "", investigate.Issue{}, nil, rerr
	}
	for _, rec := range recs {
		if rec.IssueKey == key || threadRE.MatchString(key) && rec.Channel+"/"+rec.ThreadTS == key {
			issue, res, err = bot.LoadResult(ctx, store, rec.ID)
			return rec.ID, issue, res, err
		}
	}
	return "", investigate.Issue{}, nil, err
}

func (r storeResults) Recent(ctx context.Context, limit int) ([]sessions.MemoryRecord, error) {
	if r.store == nil {
		return nil, nil
	}
	return r.store.RecentIncidents(ctx, sessions.MemoryIndex{}, limit)
}
