// Package mcp connects AutoHeal to Model Context Protocol servers (stdio
// child processes or streamable HTTP endpoints) with the mcp-go client and
// offers their tools as investigation capabilities, read-only only.
//
// Safety rules enforced here, whatever a planner asks:
//   - only allowlisted tools are callable (ServerConfig.Tools, or the
//     built-in read-only list of a known server; nothing otherwise);
//   - a tool the server marks destructive is never called, and a tool that
//     is not marked read-only is called only when a known server's built-in
//     read-only list names it;
//   - a stdio child sees only the environment variables its configuration
//     names (plus PATH and HOME), never the bot's tokens;
//   - a tool error (isError) is a failed call, never a success;
//   - the allowlist of a known server is chosen by the name the operator
//     configured, never by the name a server reports about itself;
//   - no call may ask for Kubernetes Secrets, and Secret values in any
//     answer are masked (secrets.go).
//
// One Client per server is shared by every investigation of the process:
// it connects lazily, lists the server's tools once per connection, bounds
// every call with a timeout and reconnects once when the transport broke.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/tap"
	"github.com/autoheal/autoheal/redact"
)

// Defaults of Options.
const (
	DefaultMaxTextBytes     = 256 << 10
	DefaultMaxResponseBytes = 32 << 20
	DefaultConnectTimeout   = 15 * time.Second
	DefaultMaxTools         = 256
	// defaultPath is the PATH of a stdio child when the bot has none.
	defaultPath = "/usr/local/bin:/usr/bin:/bin"
)

// Options tune a Client.
type Options struct {
	Logger *slog.Logger
	// LookupEnv resolves the variables named by ServerConfig.Env and
	// ServerConfig.Headers (default os.LookupEnv).
	LookupEnv func(string) (string, bool)
	// ReadFile reads the files named by ServerConfig.HeaderFiles (default
	// os.ReadFile).
	ReadFile func(string) ([]byte, error)
	// Header holds literal header values added to HTTP requests (a bearer
	// token from a session secret, say). Values are never logged.
	Header map[string]string
	// MaxTextBytes caps the text content kept from one tool result
	// (default 256 KiB); longer text is cut and marked truncated.
	MaxTextBytes int
	// MaxResponseBytes caps one HTTP response body (default 32 MiB).
	MaxResponseBytes int64
	// ConnectTimeout bounds connecting, the handshake and the tool list
	// (default 15 s).
	ConnectTimeout time.Duration
	// MaxTools caps the tools kept from a server's list (default 256).
	MaxTools int
	// HTTPTransport is the round tripper for HTTP servers (default
	// http.DefaultTransport).
	HTTPTransport http.RoundTripper
	// ClientVersion is reported in the handshake (default "dev").
	ClientVersion string
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.LookupEnv == nil {
		o.LookupEnv = os.LookupEnv
	}
	if o.ReadFile == nil {
		o.ReadFile = os.ReadFile
	}
	if o.MaxTextBytes <= 0 {
		o.MaxTextBytes = DefaultMaxTextBytes
	}
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.MaxTools <= 0 {
		o.MaxTools = DefaultMaxTools
	}
	if o.HTTPTransport == nil {
		o.HTTPTransport = http.DefaultTransport
	}
	if o.ClientVersion == "" {
		o.ClientVersion = "dev"
	}
	return o
}

// Tool is one tool of a server with the policy decision about it.
type Tool struct {
	Name        string
	Title       string
	Description string
	// InputSchema is a sanitized JSON schema of the arguments object.
	InputSchema json.RawMessage
	// Allowed is true when the tool may be called; Refusal says why not.
	Allowed bool
	Refusal string
	// SchemaFixes lists what SanitizeSchema repaired.
	SchemaFixes []string
}

// Result is what a tool call returned.
type Result struct {
	// Text joins the text contents, cut at MaxTextBytes.
	Text      string
	Truncated bool
	// Structured is the structured content as JSON, when present and
	// within MaxTextBytes.
	Structured json.RawMessage
	// Other describes non-text contents (images, resources) by type.
	Other []string
}

// Client is a lazily connected MCP client of one server, safe for
// concurrent use.
type Client struct {
	cfg   ServerConfig
	opts  Options
	known *KnownServer

	connectMu chan struct{} // one connect at a time, waitable with a context
	mu        sync.Mutex
	cur       *session
	lastErr   error
	closed    bool

	lists    atomic.Int64 // tools/list calls made
	connects atomic.Int64 // successful connections
}

type session struct {
	cli    *client.Client
	cancel context.CancelFunc
	tools  map[string]Tool
	order  []string
	server string
}

// NewClient validates cfg and returns a client; nothing is connected yet.
func NewClient(cfg ServerConfig, opts Options) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	return &Client{cfg: cfg, opts: opts, known: known(cfg.Name), connectMu: make(chan struct{}, 1)}, nil
}

// Name is the configured server name.
func (c *Client) Name() string { return c.cfg.Name }

// Config returns the server configuration.
func (c *Client) Config() ServerConfig { return c.cfg }

// ListCalls reports how many tools/list requests the client made.
func (c *Client) ListCalls() int64 { return c.lists.Load() }

// Connects reports how many connections the client established.
func (c *Client) Connects() int64 { return c.connects.Load() }

// LastError is the error of the last failed connection attempt (nil once
// a connection succeeds).
func (c *Client) LastError() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastErr
}

// CachedTools returns the tools of the current connection without any
// network call (nil before the first connection).
func (c *Client) CachedTools() []Tool {
	c.mu.Lock()
	s := c.cur
	c.mu.Unlock()
	if s == nil {
		return nil
	}
	return s.list()
}

func (s *session) list() []Tool {
	out := make([]Tool, 0, len(s.order))
	for _, n := range s.order {
		out = append(out, s.tools[n])
	}
	return out
}

// Tools connects if needed and returns the server's tools (listed once per
// connection) with the policy decision for each.
func (c *Client) Tools(ctx context.Context) ([]Tool, error) {
	s, err := c.session(ctx)
	if err != nil {
		return nil, err
	}
	return s.list(), nil
}

// Close closes the connection (and stops a stdio child). The client must
// not be used afterwards.
func (c *Client) Close() error {
	c.mu.Lock()
	s := c.cur
	c.cur = nil
	c.closed = true
	c.mu.Unlock()
	if s != nil {
		return s.close()
	}
	return nil
}

func (s *session) close() error {
	err := s.cli.Close()
	s.cancel()
	return err
}

// ErrClosed is returned after Close.
var ErrClosed = errors.New("mcp client closed")

// session returns the current connection, connecting if there is none.
func (c *Client) session(ctx context.Context) (*session, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, investigate.NewToolError(investigate.ErrKindUnreachable, "mcp server "+c.cfg.Name, ErrClosed)
	}
	if s := c.cur; s != nil {
		c.mu.Unlock()
		return s, nil
	}
	c.mu.Unlock()

	select {
	case c.connectMu <- struct{}{}:
	case <-ctx.Done():
		return nil, c.classify(ctx, ctx.Err(), "connect")
	}
	defer func() { <-c.connectMu }()

	c.mu.Lock()
	if s := c.cur; s != nil || c.closed {
		c.mu.Unlock()
		if s == nil {
			return nil, investigate.NewToolError(investigate.ErrKindUnreachable, "mcp server "+c.cfg.Name, ErrClosed)
		}
		return s, nil
	}
	c.mu.Unlock()

	s, err := c.connect(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.lastErr = err
		return nil, err
	}
	if c.closed {
		_ = s.close()
		return nil, investigate.NewToolError(investigate.ErrKindUnreachable, "mcp server "+c.cfg.Name, ErrClosed)
	}
	c.cur, c.lastErr = s, nil
	return s, nil
}

// drop forgets a broken session so the next call reconnects.
func (c *Client) drop(s *session, why error) {
	c.mu.Lock()
	if c.cur == s {
		c.cur = nil
	}
	c.mu.Unlock()
	c.opts.Logger.Warn("mcp connection dropped", "server", c.cfg.Name, "err", why)
	_ = s.close()
}

func (c *Client) connect(ctx context.Context) (*session, error) {
	ctx, cancelConnect := context.WithTimeout(ctx, c.opts.ConnectTimeout)
	defer cancelConnect()
	// The connection outlives the call that opened it: it gets its own
	// context, cancelled when the session closes.
	life, cancel := context.WithCancel(context.Background())
	cli, res, err := c.handshake(ctx, life)
	if err != nil {
		cancel()
		return nil, err
	}
	c.lists.Add(1)
	lt, err := cli.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		_ = cli.Close()
		cancel()
		return nil, c.classify(ctx, err, "tools/list")
	}
	s := &session{cli: cli, cancel: cancel, tools: map[string]Tool{}, server: res.ServerInfo.Name}
	for i, t := range lt.Tools {
		if i >= c.opts.MaxTools {
			c.opts.Logger.Warn("mcp server lists too many tools; the rest are ignored", "server", c.cfg.Name, "max", c.opts.MaxTools, "listed", len(lt.Tools))
			break
		}
		if _, dup := s.tools[t.Name]; dup || !toolNameRE.MatchString(t.Name) {
			continue
		}
		d := decide(c.cfg, c.known, t)
		tool := Tool{Name: t.Name, Title: t.Title, Description: truncate(t.Description, 1024), Allowed: d.Allowed, Refusal: d.Reason}
		schema, fixes, err := SanitizeSchema(t.InputSchema)
		if err != nil && tool.Allowed {
			tool.Allowed, tool.Refusal = false, fmt.Sprintf("tool %q refused: %v", t.Name, err)
		}
		tool.InputSchema, tool.SchemaFixes = schema, fixes
		if len(fixes) > 0 {
			c.opts.Logger.Info("mcp tool schema repaired", "server", c.cfg.Name, "tool", t.Name, "fixes", fixes)
		}
		s.tools[t.Name] = tool
		s.order = append(s.order, t.Name)
	}
	sort.Strings(s.order)
	c.connects.Add(1)
	c.opts.Logger.Info("mcp server connected", "server", c.cfg.Name, "transport", c.cfg.Transport(),
		"server_name", res.ServerInfo.Name, "protocol", res.ProtocolVersion, "tools", len(s.order))
	return s, nil
}

// transport builds a fresh transport of the configured kind.
func (c *Client) transport() (transport.Interface, error) {
	switch c.cfg.Transport() {
	case TransportStdio:
		return transport.NewStdioWithOptions(c.cfg.Command, nil, c.cfg.Args,
			transport.WithCommandFunc(c.command),
			transport.WithCommandLogger(c.opts.Logger)), nil
	case TransportSSE:
		h, err := c.headers()
		if err != nil {
			return nil, err
		}
		hc := &http.Client{Transport: &capTransport{base: c.opts.HTTPTransport, max: c.opts.MaxResponseBytes}}
		t, err := transport.NewSSE(c.cfg.URL, transport.WithHTTPClient(hc), transport.WithHeaders(h), transport.WithSSELogger(c.opts.Logger))
		if err != nil {
			return nil, investigate.NewToolError(investigate.ErrKindNotConfigured, "mcp server "+c.cfg.Name+": url", err)
		}
		return t, nil
	default:
		h, err := c.headers()
		if err != nil {
			return nil, err
		}
		hc := &http.Client{Transport: &capTransport{base: c.opts.HTTPTransport, max: c.opts.MaxResponseBytes}}
		t, err := transport.NewStreamableHTTP(c.cfg.URL, transport.WithHTTPBasicClient(hc),
			transport.WithHTTPHeaders(h), transport.WithHTTPLogger(c.opts.Logger))
		if err != nil {
			return nil, investigate.NewToolError(investigate.ErrKindNotConfigured, "mcp server "+c.cfg.Name+": url", err)
		}
		return t, nil
	}
}

// command builds the stdio child with a scrubbed environment: mcp-go's
// default appends the bot's whole environment (Slack, LLM and GitHub
// tokens) to the child's.
func (c *Client) command(ctx context.Context, command string, _ []string, args []string) (*exec.Cmd, error) {
	cmd := exec.CommandContext(ctx, command, args...)
	cmd.Env = ChildEnv(c.cfg.Env, c.opts.LookupEnv)
	cmd.WaitDelay = 2 * time.Second
	return cmd, nil
}

// ChildEnv is the environment of a stdio child: PATH and HOME, plus the
// variables names lists that are set in the bot's environment.
func ChildEnv(names []string, lookup func(string) (string, bool)) []string {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	path, ok := lookup("PATH")
	if !ok || path == "" {
		path = defaultPath
	}
	env := []string{"PATH=" + path}
	if home, ok := lookup("HOME"); ok && home != "" {
		env = append(env, "HOME="+home)
	}
	for _, n := range names {
		if n == "PATH" || n == "HOME" {
			continue
		}
		if v, ok := lookup(n); ok {
			env = append(env, n+"="+v)
		}
	}
	return env
}

// headers resolves ServerConfig.Headers and HeaderFiles (see
// ServerConfig.HeaderValues) and adds the literal Options.Header. A
// missing secret is an error that names the variable or file, not a value.
func (c *Client) headers() (map[string]string, error) {
	h, err := c.cfg.HeaderValues(c.opts.LookupEnv, c.opts.ReadFile)
	if err != nil {
		return nil, investigate.NewToolError(investigate.ErrKindNotConfigured, err.Error(), nil)
	}
	for k, v := range c.opts.Header {
		h[k] = v
	}
	return h, nil
}

// CallTool calls one tool of the server with a JSON object of arguments.
// The call is refused before reaching the server unless the tool is
// allowlisted and read-only. A broken transport is reconnected and the
// call retried once (every permitted tool is read-only, hence idempotent).
func (c *Client) CallTool(ctx context.Context, name string, args json.RawMessage) (*Result, error) {
	return c.CallToolMax(ctx, name, args, c.opts.MaxTextBytes)
}

// CallToolMax is CallTool keeping at most maxText bytes of text (callers
// that parse large answers, such as pod lists, ask for more than the
// client's default).
func (c *Client) CallToolMax(ctx context.Context, name string, args json.RawMessage, maxText int) (*Result, error) {
	if maxText <= 0 {
		maxText = c.opts.MaxTextBytes
	}
	label := c.cfg.Name + "__" + name
	allow := c.cfg.Tools
	if len(allow) == 0 && c.known != nil {
		allow = c.known.ReadOnly
	}
	if !contains(allow, name) {
		d := decide(c.cfg, c.known, mcpgo.Tool{Name: name})
		return nil, investigate.NewToolError(investigate.ErrKindForbidden, d.Reason, nil)
	}
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil {
		return nil, investigate.NewToolError(investigate.ErrKindInvalidArgs, label+": arguments must be a JSON object", err)
	}
	if why := secretRequest(args); why != "" {
		return nil, investigate.NewToolError(investigate.ErrKindForbidden, why, nil)
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.CallTimeout())
	defer cancel()
	for attempt := 0; ; attempt++ {
		s, err := c.session(ctx)
		if err != nil {
			return nil, err
		}
		t, ok := s.tools[name]
		if !ok {
			return nil, investigate.NewToolError(investigate.ErrKindNotFound, fmt.Sprintf("server %q does not offer tool %q", c.cfg.Name, name), nil)
		}
		if !t.Allowed {
			return nil, investigate.NewToolError(investigate.ErrKindForbidden, t.Refusal, nil)
		}
		req := mcpgo.CallToolRequest{}
		req.Params.Name = name
		req.Params.Arguments = args
		res, err := s.cli.CallTool(ctx, req)
		if err == nil {
			out, err := c.result(label, res, maxText)
			if rec := tap.From(ctx); rec != nil && out != nil {
				rec.Tool(tap.Tool{Server: c.cfg.Name, Tool: name, Args: args, Text: out.Text, Truncated: out.Truncated})
			}
			return out, err
		}
		if attempt == 0 && ctx.Err() == nil && brokenTransport(err) {
			c.drop(s, err)
			continue
		}
		return nil, c.classify(ctx, err, "tools/call "+name)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// result converts a tool result; isError becomes a failed call.
func (c *Client) result(label string, res *mcpgo.CallToolResult, maxText int) (*Result, error) {
	if res == nil {
		return nil, investigate.NewToolError(investigate.ErrKindBadResponse, label+": empty result", nil)
	}
	out := &Result{}
	var b strings.Builder
	for _, ct := range res.Content {
		if tc, ok := mcpgo.AsTextContent(ct); ok {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			if room := maxText - b.Len(); room < len(tc.Text) {
				b.WriteString(cutUTF8(redact.String(tc.Text), max(room, 0))) // masked before it is cut
				out.Truncated = true
				break
			}
			b.WriteString(tc.Text)
			continue
		}
		out.Other = append(out.Other, contentKind(ct))
	}
	out.Text = GuardSecrets(b.String())
	if out.Truncated {
		out.Text = GuardCutSecrets(out.Text)
	}
	if res.IsError {
		msg := strings.TrimSpace(out.Text)
		if msg == "" {
			msg = "the tool reported an error without a message"
		}
		return nil, investigate.NewToolError(investigate.ErrKindToolError, label+": "+investigate.Quote(msg, 300), nil)
	}
	if res.StructuredContent != nil || len(res.RawStructuredContent) > 0 {
		raw := res.RawStructuredContent
		if len(raw) == 0 {
			raw, _ = json.Marshal(res.StructuredContent)
		}
		if len(raw) <= maxText && json.Valid(raw) {
			out.Structured = guardStructured(raw)
		} else {
			out.Truncated = true
		}
	}
	return out, nil
}

func contentKind(ct mcpgo.Content) string {
	switch v := ct.(type) {
	case mcpgo.ImageContent:
		return "image " + v.MIMEType
	case *mcpgo.ImageContent:
		return "image " + v.MIMEType
	case mcpgo.AudioContent:
		return "audio " + v.MIMEType
	case mcpgo.EmbeddedResource:
		return "resource"
	case mcpgo.ResourceLink:
		return "resource link " + v.URI
	}
	return fmt.Sprintf("%T", ct)
}

func cutUTF8(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// brokenTransport reports whether err means the connection is unusable
// (child exited, session lost, connection refused or reset), as opposed to
// an answer from the server.
func brokenTransport(err error) bool {
	var auth *transport.AuthorizationRequiredError
	if errors.As(err, &auth) {
		return false
	}
	if errors.Is(err, transport.ErrSessionTerminated) || errors.Is(err, transport.ErrTransportClosed) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var te *transport.Error
	return errors.As(err, &te)
}

// classify turns a client error into a ToolError whose kind says what went
// wrong; messages never carry header values.
func (c *Client) classify(ctx context.Context, err error, stage string) error {
	var te *investigate.ToolError
	if errors.As(err, &te) {
		return err
	}
	msg := fmt.Sprintf("mcp server %s: %s", c.cfg.Name, stage)
	var auth *transport.AuthorizationRequiredError
	switch {
	case errors.Is(err, context.DeadlineExceeded) || (ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded)):
		return investigate.NewToolError(investigate.ErrKindTimeout, msg, context.DeadlineExceeded)
	case errors.Is(err, context.Canceled):
		return investigate.NewToolError(investigate.ErrKindTimeout, msg+": cancelled", context.Canceled)
	case errors.As(err, &auth):
		return investigate.NewToolError(investigate.ErrKindUnauthorized, msg+": the server requires authorization", nil)
	case errors.Is(err, errTooLarge):
		return investigate.NewToolError(investigate.ErrKindTooLarge, msg, errTooLarge)
	case errors.Is(err, mcpgo.ErrInvalidParams):
		return investigate.NewToolError(investigate.ErrKindInvalidArgs, msg, mcpgo.ErrInvalidParams)
	case errors.Is(err, mcpgo.ErrMethodNotFound):
		return investigate.NewToolError(investigate.ErrKindNotFound, msg, mcpgo.ErrMethodNotFound)
	}
	// mcp-go's status errors end with the response body, and JSON-RPC
	// errors carry the server's text: neither reaches a receipt, only the
	// status and the kind.
	if m := statusRE.FindStringSubmatch(err.Error()); m != nil {
		code, _ := strconv.Atoi(m[1])
		msg = fmt.Sprintf("%s: HTTP %d", msg, code)
		switch {
		case code == 401:
			return investigate.NewToolError(investigate.ErrKindUnauthorized, msg, nil)
		case code == 403:
			return investigate.NewToolError(investigate.ErrKindForbidden, msg, nil)
		case code == 404:
			return investigate.NewToolError(investigate.ErrKindNotFound, msg, nil)
		case code == 429:
			return investigate.NewToolError(investigate.ErrKindRateLimited, msg, nil)
		case code >= 500:
			return investigate.NewToolError(investigate.ErrKindServer, msg, nil)
		}
		return investigate.NewToolError(investigate.ErrKindBadResponse, msg, nil)
	}
	if brokenTransport(err) || errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
		return investigate.NewToolError(investigate.ErrKindUnreachable, msg, err)
	}
	return investigate.NewToolError(investigate.ErrKindServer, msg+": the server answered with an error", nil)
}

// statusRE finds the HTTP status in mcp-go's transport errors.
var statusRE = regexp.MustCompile(`status (?:code: )?(\d{3})\b`)

var errTooLarge = errors.New("response body too large")

// capTransport fails responses whose body exceeds max bytes.
type capTransport struct {
	base http.RoundTripper
	max  int64
}

func (t *capTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	resp.Body = &capBody{rc: resp.Body, left: t.max}
	return resp, nil
}

type capBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *capBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One more byte tells a body of exactly max bytes from a longer one.
		var one [1]byte
		if n, _ := b.rc.Read(one[:]); n > 0 {
			return 0, errTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *capBody) Close() error { return b.rc.Close() }
