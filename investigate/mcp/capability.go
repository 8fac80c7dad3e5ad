package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/redact"
)

// ToolSeparator joins a server name and a tool name in offered tool names.
const ToolSeparator = "__"

// maxOfferedName is the longest tool name planners accept (OpenAI functions).
const maxOfferedName = 64

// DefaultMaxDataBytes caps the text a generic MCP tool hands to planners.
const DefaultMaxDataBytes = 16 << 10

// Capability offers the allowed tools of one MCP server to planners, as
// <server>__<tool> with the server's (sanitized) input schemas.
type Capability struct {
	cl      *Client
	maxData int
}

// NewCapability wraps a client. Tools() lists nothing until Prepare (or a
// call) has connected once.
func NewCapability(cl *Client) *Capability {
	return &Capability{cl: cl, maxData: DefaultMaxDataBytes}
}

// Client returns the underlying client.
func (c *Capability) Client() *Client { return c.cl }

// Family implements investigate.Capability.
func (c *Capability) Family() investigate.Family { return investigate.FamilyMCP }

// Availability implements investigate.Capability: configured unless the
// last connection attempt failed (no network call is made here).
func (c *Capability) Availability() investigate.Availability {
	if err := c.cl.LastError(); err != nil && c.cl.CachedTools() == nil {
		return investigate.Availability{Kind: investigate.KindOf(err), Reason: err.Error()}
	}
	return investigate.Availability{Configured: true}
}

// Prepare connects (if needed) and fetches the tool list so that Tools()
// can offer it. It is cheap once connected.
func (c *Capability) Prepare(ctx context.Context) error {
	_, err := c.cl.Tools(ctx)
	return err
}

// Tools implements investigate.Capability with the allowed tools of the
// current connection.
func (c *Capability) Tools() []investigate.ToolSpec {
	var out []investigate.ToolSpec
	for _, t := range c.cl.CachedTools() {
		if !t.Allowed {
			continue
		}
		name := c.cl.Name() + ToolSeparator + t.Name
		if len(name) > maxOfferedName || strings.ContainsAny(t.Name, ".") {
			continue // planners cannot call it by this name
		}
		desc := strings.TrimSpace(t.Description)
		if desc == "" {
			desc = t.Title
		}
		out = append(out, investigate.ToolSpec{
			Name:        name,
			Family:      investigate.FamilyMCP,
			Description: fmt.Sprintf("[MCP server %s, read-only] %s", c.cl.Name(), desc),
			Parameters:  t.InputSchema,
		})
	}
	return out
}

// Call implements investigate.Capability.
func (c *Capability) Call(ctx context.Context, tool string, args json.RawMessage) (*investigate.ToolResult, error) {
	name, ok := strings.CutPrefix(tool, c.cl.Name()+ToolSeparator)
	if !ok || name == "" {
		return nil, fmt.Errorf("%w: %s", investigate.ErrUnknownTool, tool)
	}
	res, err := c.cl.CallTool(ctx, name, args)
	if err != nil {
		return nil, err
	}
	text, cut := res.Text, res.Truncated
	if len(text) > c.maxData {
		text, cut = cutUTF8(redact.String(text), c.maxData), true // masked before it is cut
	}
	data := map[string]any{"server": c.cl.Name(), "tool": name, "text": text}
	if cut {
		data["truncated"] = true
	}
	if len(res.Structured) > 0 && len(res.Structured) <= c.maxData {
		data["structured"] = res.Structured
	}
	if len(res.Other) > 0 {
		data["other_content"] = res.Other
	}
	return &investigate.ToolResult{Summary: summarize(tool, res), Data: data}, nil
}

// summarize is one line: the first non-empty line of the text and its size.
func summarize(tool string, res *Result) string {
	first := ""
	for _, l := range strings.Split(res.Text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			first = l
			break
		}
	}
	lines := strings.Count(res.Text, "\n") + 1
	if res.Text == "" {
		lines = 0
	}
	s := fmt.Sprintf("%s: %d lines", tool, lines)
	if res.Truncated {
		s += " (truncated)"
	}
	if first != "" {
		s += ": " + investigate.Quote(first, 120)
	}
	return s
}

// Manager holds one Client per server configuration for the whole process,
// so that investigations share connections. Safe for concurrent use.
type Manager struct {
	opts Options
	max  int

	mu      sync.Mutex
	clients map[string]*entry // by config fingerprint
	closed  bool
}

type entry struct {
	cl   *Client
	used time.Time
}

// NewManager returns an empty manager; maxClients bounds the live
// connections (default 64; the least recently used is closed beyond it).
func NewManager(opts Options, maxClients int) *Manager {
	if maxClients <= 0 {
		maxClients = 64
	}
	return &Manager{opts: opts, max: maxClients, clients: map[string]*entry{}}
}

// Client returns the shared client of a configuration, creating it on
// first use. A changed configuration gets a new client.
func (m *Manager) Client(cfg ServerConfig) (*Client, error) {
	return m.ClientWithHeader(cfg, nil)
}

// ClientWithHeader is Client with literal header values added to the
// manager's (a per-session bearer token, say); clients differ by header.
func (m *Manager) ClientWithHeader(cfg ServerConfig, header map[string]string) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	opts := m.opts
	if len(header) > 0 {
		h := make(map[string]string, len(opts.Header)+len(header))
		for k, v := range opts.Header {
			h[k] = v
		}
		for k, v := range header {
			h[k] = v
		}
		opts.Header = h
	}
	key := fingerprint(cfg, opts.Header)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	if e, ok := m.clients[key]; ok {
		e.used = time.Now()
		return e.cl, nil
	}
	cl, err := NewClient(cfg, opts)
	if err != nil {
		return nil, err
	}
	m.clients[key] = &entry{cl: cl, used: time.Now()}
	if len(m.clients) > m.max {
		oldest := ""
		for k, e := range m.clients {
			if k != key && (oldest == "" || e.used.Before(m.clients[oldest].used)) {
				oldest = k
			}
		}
		if e := m.clients[oldest]; e != nil {
			delete(m.clients, oldest)
			go func() { _ = e.cl.Close() }()
		}
	}
	return cl, nil
}

// fingerprint identifies a configuration (literal header values hashed in,
// never stored).
func fingerprint(cfg ServerConfig, header map[string]string) string {
	h := sha256.New()
	b, _ := json.Marshal(cfg)
	h.Write(b)
	keys := make([]string, 0, len(header))
	for k := range header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(h, "\x00%s\x00%s", k, header[k])
	}
	return cfg.Name + "/" + hex.EncodeToString(h.Sum(nil))[:16]
}

// Capabilities returns one capability per server, connecting them in
// parallel (bounded by ctx) so that their tool lists are known. A server
// that cannot be reached still yields a capability, which reports itself
// unavailable with the reason. Servers in skip are left out (the
// Kubernetes server, say, used by its own capability).
func (m *Manager) Capabilities(ctx context.Context, cfgs []ServerConfig, skip ...string) ([]investigate.Capability, error) {
	var caps []*Capability
	var errs []error
	for _, cfg := range cfgs {
		if contains(skip, cfg.Name) {
			continue
		}
		cl, err := m.Client(cfg)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		caps = append(caps, NewCapability(cl))
	}
	var wg sync.WaitGroup
	for _, c := range caps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Prepare(ctx); err != nil {
				m.opts.withDefaults().Logger.Warn("mcp server unavailable", "server", c.cl.Name(), "err", err)
			}
		}()
	}
	wg.Wait()
	out := make([]investigate.Capability, len(caps))
	for i, c := range caps {
		out[i] = c
	}
	return out, errors.Join(errs...)
}

// Close closes every client.
func (m *Manager) Close() error {
	m.mu.Lock()
	clients := m.clients
	m.clients = map[string]*entry{}
	m.closed = true
	m.mu.Unlock()
	var errs []error
	for _, e := range clients {
		if err := e.cl.Close(); err != nil {
			errs = append(errs, fmt.Errorf("mcp server %s: %w", e.cl.Name(), err))
		}
	}
	return errors.Join(errs...)
}
