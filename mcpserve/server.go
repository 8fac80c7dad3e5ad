// Package mcpserve is AutoHeal as an MCP server: an IDE agent or another
// assistant can ask for an investigation, read a kept result, list recent
// incidents and have a result explained. Every tool is read-only (no
// approval, no pull request), every call is audited, and the streamable
// HTTP transport requires a bearer token.
package mcpserve

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/sessions"
)

// Tool names (constants, as clients name them).
const (
	ToolInvestigate = "investigate"
	ToolGetResult   = "get_result"
	ToolListRecent  = "list_recent_incidents"
	ToolExplain     = "explain"
)

// Request is what the investigate tool asks for.
type Request struct {
	Text    string
	Service string
	// Alert is an Alertmanager webhook body (version 4), or one alert.
	Alert json.RawMessage
	// Since and Until bound the window (zero: the engine's default).
	Since, Until time.Time
}

// Investigator runs one investigation against the configured backends and
// returns its key (to read it back later), the issue and the result.
type Investigator func(ctx context.Context, req Request) (key string, issue investigate.Issue, res *investigate.HealResult, err error)

// Results reads kept investigations and the incident memory.
type Results interface {
	Result(ctx context.Context, key string) (investigate.Issue, *investigate.HealResult, error)
	Recent(ctx context.Context, limit int) ([]sessions.MemoryRecord, error)
}

// Options configure the server.
type Options struct {
	Investigate Investigator
	Results     Results
	// Explain says why a result concluded what it did (the candidates and
	// their scores from its receipts).
	Explain func(issue investigate.Issue, res *investigate.HealResult) string
	// Audit records every call (who, tool, arguments summary, outcome).
	Audit   func(ctx context.Context, entry string)
	Version string
	Logger  *slog.Logger
}

// maxText bounds the text a tool answers.
const maxText = 60 << 10

// New returns the MCP server with AutoHeal's four read-only tools.
func New(o Options) *server.MCPServer {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Audit == nil {
		o.Audit = func(context.Context, string) {}
	}
	s := server.NewMCPServer("autoheal", o.Version, server.WithToolCapabilities(false), server.WithRecovery())
	h := handlers{o: o}
	readOnly := []mcp.ToolOption{mcp.WithReadOnlyHintAnnotation(true), mcp.WithDestructiveHintAnnotation(false), mcp.WithOpenWorldHintAnnotation(true)}
	tool := func(name, desc string, opts ...mcp.ToolOption) mcp.Tool {
		return mcp.NewTool(name, append(append([]mcp.ToolOption{mcp.WithDescription(desc)}, readOnly...), opts...)...)
	}
	s.AddTool(tool(ToolInvestigate, "Investigate a production incident with AutoHeal (traces, logs, metrics, recent changes, Kubernetes state, the source lines the evidence points at) and return the root cause, its confidence band, its classification and the recommended fix. Read-only: nothing is changed anywhere.",
		mcp.WithString("text", mcp.Description("what is wrong, as an on-call engineer would say it: \"checkout fails since 10:05\"")),
		mcp.WithObject("alert", mcp.Description("an Alertmanager webhook body (version 4) or one alert, instead of or with text")),
		mcp.WithString("service", mcp.Description("the service to focus on (optional)")),
		mcp.WithString("since", mcp.Description("window start: RFC 3339, or a duration back from now such as 2h (optional)")),
		mcp.WithString("until", mcp.Description("window end: RFC 3339, or a duration back from now (optional, default now)")),
	), h.audited(ToolInvestigate, h.investigate))
	s.AddTool(tool(ToolGetResult, "Read a kept AutoHeal result by its key (the key investigate returned, a Slack investigation's job id, or an incident's issue key).",
		mcp.WithString("key", mcp.Required(), mcp.Description("result key, job id or issue key")),
	), h.audited(ToolGetResult, h.getResult))
	s.AddTool(tool(ToolListRecent, "List the incidents AutoHeal investigated recently, newest first: service, classification, location, confidence and what people did.",
		mcp.WithNumber("limit", mcp.Description("how many (1-100, default 20)")),
	), h.audited(ToolListRecent, h.listRecent))
	s.AddTool(tool(ToolExplain, "Explain a kept AutoHeal result: the candidate root causes its evidence supported, their scores, and why the confidence band is what it is.",
		mcp.WithString("key", mcp.Required(), mcp.Description("result key, job id or issue key")),
	), h.audited(ToolExplain, h.explain))
	return s
}

type handlers struct{ o Options }

type callFunc func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error)

// audited records each call and its outcome (never the arguments' values:
// an incident text may hold anything).
func (h handlers) audited(tool string, f callFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		res, err := f(ctx, req)
		outcome := "ok"
		switch {
		case err != nil:
			outcome = "error"
		case res != nil && res.IsError:
			outcome = "refused"
		}
		who := callerOf(ctx)
		h.o.Audit(ctx, fmt.Sprintf("mcp %s by %s: %s (%d ms)", tool, who, outcome, time.Since(start).Milliseconds()))
		h.o.Logger.Info("mcp tool call", "tool", tool, "caller", who, "outcome", outcome, "took", time.Since(start))
		return res, err
	}
}

func (h handlers) investigate(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args := req.GetArguments()
	r := Request{Text: strings.TrimSpace(req.GetString("text", "")), Service: strings.TrimSpace(req.GetString("service", ""))}
	if a, ok := args["alert"]; ok && a != nil {
		raw, err := json.Marshal(a)
		if err != nil {
			return mcp.NewToolResultError("alert: not JSON"), nil
		}
		r.Alert = raw
	}
	now := time.Now()
	var err error
	if r.Since, err = parseWhen(req.GetString("since", ""), now); err != nil {
		return mcp.NewToolResultError("since: " + err.Error()), nil
	}
	if r.Until, err = parseWhen(req.GetString("until", ""), now); err != nil {
		return mcp.NewToolResultError("until: " + err.Error()), nil
	}
	if r.Text == "" && len(r.Alert) == 0 {
		return mcp.NewToolResultError("give text (what is wrong) or an alert"), nil
	}
	if !r.Since.IsZero() && !r.Until.IsZero() && !r.Since.Before(r.Until) {
		return mcp.NewToolResultError("since must be before until"), nil
	}
	key, _, res, err := h.o.Investigate(ctx, r)
	if err != nil {
		return mcp.NewToolResultError("the investigation failed: " + err.Error()), nil
	}
	return resultAnswer(key, res), nil
}

func (h handlers) getResult(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	key := strings.TrimSpace(req.GetString("key", ""))
	_, res, err := h.o.Results.Result(ctx, key)
	if err != nil {
		return notFound(key, err), nil
	}
	return resultAnswer(key, res), nil
}

func (h handlers) explain(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	key := strings.TrimSpace(req.GetString("key", ""))
	issue, res, err := h.o.Results.Result(ctx, key)
	if err != nil {
		return notFound(key, err), nil
	}
	text := res.ConfidenceNote
	if h.o.Explain != nil {
		text = strings.TrimSpace(text + "\n\n" + h.o.Explain(issue, res))
	}
	return mcp.NewToolResultText(bound(text)), nil
}

func (h handlers) listRecent(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	limit := req.GetInt("limit", 20)
	if limit < 1 || limit > 100 {
		return mcp.NewToolResultError("limit: want 1-100"), nil
	}
	recs, err := h.o.Results.Recent(ctx, limit)
	if err != nil {
		return nil, fmt.Errorf("recent incidents: %w", err)
	}
	type incident struct {
		Key       string    `json:"key"`
		IssueKey  string    `json:"issue_key,omitempty"`
		At        time.Time `json:"at"`
		Service   string    `json:"service"`
		Bucket    string    `json:"bucket"`
		ErrorType string    `json:"error_type"`
		Location  string    `json:"location,omitempty"`
		Band      string    `json:"band"`
		Summary   string    `json:"summary,omitempty"`
		Decision  string    `json:"decision,omitempty"`
		PR        string    `json:"pull_request,omitempty"`
		PRState   string    `json:"pull_request_state,omitempty"`
	}
	out := struct {
		Incidents []incident `json:"incidents"`
	}{Incidents: []incident{}}
	var lines []string
	for _, r := range recs {
		loc := ""
		if r.File != "" {
			loc = fmt.Sprintf("%s:%d", r.File, r.Line)
		}
		out.Incidents = append(out.Incidents, incident{Key: r.ID, IssueKey: r.IssueKey, At: r.At, Service: r.Service, Bucket: r.Bucket,
			ErrorType: r.ErrorType, Location: loc, Band: r.Band, Summary: r.Summary, Decision: r.Decision, PR: r.PRURL, PRState: r.PRState})
		lines = append(lines, fmt.Sprintf("%s  %s  %s/%s  %s  %s  key=%s", r.At.UTC().Format(time.RFC3339), r.Service, r.Bucket, r.ErrorType, loc, r.Band, r.ID))
	}
	if len(lines) == 0 {
		lines = []string{"no incidents remembered yet"}
	}
	return mcp.NewToolResultStructured(out, bound(strings.Join(lines, "\n"))), nil
}

// resultAnswer is a result as text (what bot investigate prints) and as
// structured JSON.
func resultAnswer(key string, res *investigate.HealResult) *mcp.CallToolResult {
	text := "key: " + key + "\n\n" + investigate.FormatText(res)
	return mcp.NewToolResultStructured(struct {
		Key    string                  `json:"key"`
		Result *investigate.HealResult `json:"result"`
	}{key, res}, bound(text))
}

func notFound(key string, err error) *mcp.CallToolResult {
	if key == "" {
		return mcp.NewToolResultError("key is required")
	}
	if errors.Is(err, sessions.ErrNotFound) {
		return mcp.NewToolResultError(fmt.Sprintf("no result is kept under %q (results are kept 7 days)", key))
	}
	return mcp.NewToolResultError("the result could not be read")
}

func bound(s string) string {
	if len(s) <= maxText {
		return s
	}
	cut := maxText
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "\n… (cut)"
}

// parseWhen reads RFC 3339 or a duration back from now ("" is zero).
func parseWhen(v string, now time.Time) (time.Time, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t.UTC(), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return time.Time{}, fmt.Errorf("%q is neither RFC 3339 nor a duration back from now (2h, 90m)", v)
	}
	return now.Add(-d).UTC(), nil
}

type callerKey struct{}

// callerOf names the caller for the audit: the HTTP client's token
// fingerprint and address, or "stdio".
func callerOf(ctx context.Context) string {
	if c, ok := ctx.Value(callerKey{}).(string); ok {
		return c
	}
	return "stdio"
}

// HTTPHandler serves the server over streamable HTTP behind a bearer
// token (compared in constant time). Requests without it get 401.
func HTTPHandler(s *server.MCPServer, token string) (http.Handler, error) {
	if len(token) < 16 {
		return nil, errors.New("mcp server: the bearer token must be at least 16 characters")
	}
	want := sha256.Sum256([]byte(token))
	tokenID := fmt.Sprintf("token:%x", want[:4])
	inner := server.NewStreamableHTTPServer(s, server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
		return context.WithValue(ctx, callerKey{}, tokenID+"@"+r.RemoteAddr)
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		sum := sha256.Sum256([]byte(strings.TrimSpace(got)))
		if !ok || subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="autoheal-mcp"`)
			http.Error(w, "missing or invalid bearer token", http.StatusUnauthorized)
			return
		}
		inner.ServeHTTP(w, r)
	}), nil
}
