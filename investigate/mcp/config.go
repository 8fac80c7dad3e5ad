package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// ServerConfig configures one MCP server. Exactly one of Command (a stdio
// child process) or URL (streamable HTTP, or SSE with Kind "sse") is set.
type ServerConfig struct {
	// Name identifies the server; tools are offered as <name>__<tool>.
	// Lower-case letters, digits and dashes, at most 32 characters.
	Name string `yaml:"name" json:"name"`
	// Kind is the transport: "stdio", "http" (streamable HTTP) or "sse"
	// (the older HTTP+SSE transport). Empty: stdio with Command, http with
	// URL.
	Kind string `yaml:"transport,omitempty" json:"transport,omitempty"`
	// Command and Args start a stdio server.
	Command string   `yaml:"command,omitempty" json:"command,omitempty"`
	Args    []string `yaml:"args,omitempty" json:"args,omitempty"`
	// Env names the environment variables passed through to the child.
	// Nothing else of the bot's environment reaches it (plus PATH and HOME).
	Env []string `yaml:"env,omitempty" json:"env,omitempty"`
	// URL is the streamable HTTP endpoint (http or https).
	URL string `yaml:"url,omitempty" json:"url,omitempty"`
	// Headers maps an HTTP header name to the NAME of the environment
	// variable holding its value (never the value itself).
	Headers map[string]string `yaml:"headers,omitempty" json:"headers,omitempty"`
	// HeaderFiles maps an HTTP header name to the path of a file holding
	// its value (a mounted Secret), read at each connection; surrounding
	// whitespace (the trailing newline) is dropped.
	HeaderFiles map[string]string `yaml:"header_files,omitempty" json:"header_files,omitempty"`
	// HeaderPrefix maps a header of Headers or HeaderFiles to literal text
	// put before its secret value ("Bearer "), so the secret can be the
	// bare token.
	HeaderPrefix map[string]string `yaml:"header_prefix,omitempty" json:"header_prefix,omitempty"`
	// Tools is the allowlist of tool names that may be called. Empty means
	// the built-in read-only list of a known server (see KnownServers), and
	// nothing for any other server.
	Tools []string `yaml:"tools,omitempty" json:"tools,omitempty"`
	// Timeout bounds one tool call (default DefaultCallTimeout).
	Timeout time.Duration `yaml:"timeout,omitempty" json:"timeout,omitempty"`
}

// Limits of a configuration.
const (
	MaxServerNameLen   = 32
	MaxArgs            = 64
	MaxEnv             = 64
	MaxHeaders         = 32
	MaxAllowlist       = 256
	MaxServers         = 32
	MaxCallTimeout     = 5 * time.Minute
	DefaultCallTimeout = 20 * time.Second
)

var (
	serverNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	envNameRE    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	headerNameRE = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
	toolNameRE   = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)
)

// Sentinel errors; a ConfigError wraps one of them.
var (
	ErrInvalidName    = errors.New("invalid server name")
	ErrNoTransport    = errors.New("neither command nor url is set")
	ErrTwoTransports  = errors.New("both command and url are set")
	ErrInvalidURL     = errors.New("invalid url")
	ErrInvalidEnv     = errors.New("invalid environment variable name")
	ErrInvalidHeader  = errors.New("invalid header")
	ErrInvalidTool    = errors.New("invalid tool name")
	ErrInvalidTimeout = errors.New("invalid timeout")
	ErrTooMany        = errors.New("too many entries")
	ErrDuplicate      = errors.New("duplicate server name")
	ErrInvalidKind    = errors.New("invalid transport")
)

// Transports (ServerConfig.Kind).
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
	TransportSSE   = "sse"
)

// ConfigError names the server and the field that is wrong.
type ConfigError struct {
	Server string
	Field  string
	Err    error
	Detail string
}

func (e *ConfigError) Error() string {
	s := e.Server
	if s == "" {
		s = "(unnamed)"
	}
	msg := fmt.Sprintf("mcp server %q: %s: %v", s, e.Field, e.Err)
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

func (e *ConfigError) Unwrap() error { return e.Err }

// Transport reports "stdio", "http" or "sse".
func (c ServerConfig) Transport() string {
	switch {
	case c.Kind != "":
		return c.Kind
	case c.Command != "":
		return TransportStdio
	}
	return TransportHTTP
}

// CallTimeout is the per-call timeout with its default applied.
func (c ServerConfig) CallTimeout() time.Duration {
	if c.Timeout <= 0 {
		return DefaultCallTimeout
	}
	return c.Timeout
}

// Validate checks the configuration and returns a *ConfigError naming the
// first problem.
func (c ServerConfig) Validate() error {
	bad := func(field string, err error, detail string) error {
		return &ConfigError{Server: c.Name, Field: field, Err: err, Detail: detail}
	}
	if len(c.Name) > MaxServerNameLen || !serverNameRE.MatchString(c.Name) {
		return bad("name", ErrInvalidName, fmt.Sprintf("want lower-case letters, digits and dashes, at most %d characters", MaxServerNameLen))
	}
	hasCmd, hasURL := strings.TrimSpace(c.Command) != "", strings.TrimSpace(c.URL) != ""
	switch {
	case !hasCmd && !hasURL:
		return bad("command/url", ErrNoTransport, "")
	case hasCmd && hasURL:
		return bad("command/url", ErrTwoTransports, "")
	}
	switch c.Kind {
	case "":
	case TransportStdio:
		if !hasCmd {
			return bad("transport", ErrInvalidKind, "stdio needs command (and args), not url")
		}
	case TransportHTTP, TransportSSE:
		if !hasURL {
			return bad("transport", ErrInvalidKind, c.Kind+" needs url, not command")
		}
	default:
		return bad("transport", ErrInvalidKind, fmt.Sprintf("%q: want http, sse or stdio", truncate(c.Kind, 20)))
	}
	if hasURL {
		u, err := url.Parse(c.URL)
		if err != nil {
			return bad("url", ErrInvalidURL, "cannot be parsed")
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return bad("url", ErrInvalidURL, "want an http(s) URL with a host")
		}
		if u.User != nil {
			return bad("url", ErrInvalidURL, "credentials in the URL are not allowed; use headers")
		}
		if len(c.Args) > 0 || len(c.Env) > 0 {
			return bad("args/env", ErrTwoTransports, "args and env apply to command servers only")
		}
	}
	if hasCmd {
		if len(c.Headers) > 0 || len(c.HeaderFiles) > 0 {
			return bad("headers", ErrInvalidHeader, "headers apply to url servers only")
		}
		if len(c.Args) > MaxArgs {
			return bad("args", ErrTooMany, fmt.Sprintf("at most %d", MaxArgs))
		}
	}
	if len(c.Env) > MaxEnv {
		return bad("env", ErrTooMany, fmt.Sprintf("at most %d", MaxEnv))
	}
	for _, e := range c.Env {
		if !envNameRE.MatchString(e) {
			return bad("env", ErrInvalidEnv, fmt.Sprintf("%q is not a variable name (list names, not NAME=value)", truncate(e, 40)))
		}
	}
	if len(c.Headers)+len(c.HeaderFiles) > MaxHeaders {
		return bad("headers", ErrTooMany, fmt.Sprintf("at most %d", MaxHeaders))
	}
	for _, h := range sortedKeys(c.Headers) {
		if !headerNameRE.MatchString(h) {
			return bad("headers", ErrInvalidHeader, fmt.Sprintf("%q is not a header name", truncate(h, 40)))
		}
		if !envNameRE.MatchString(c.Headers[h]) {
			return bad("headers", ErrInvalidHeader, fmt.Sprintf("header %s: the value must name an environment variable, not hold the secret", h))
		}
	}
	for _, h := range sortedKeys(c.HeaderFiles) {
		if !headerNameRE.MatchString(h) {
			return bad("headers", ErrInvalidHeader, fmt.Sprintf("%q is not a header name", truncate(h, 40)))
		}
		if _, dup := c.Headers[h]; dup {
			return bad("headers", ErrInvalidHeader, fmt.Sprintf("header %s: both an environment variable and a file", h))
		}
		if p := c.HeaderFiles[h]; !filepath.IsAbs(p) || strings.ContainsAny(p, "\x00\n") {
			return bad("headers", ErrInvalidHeader, fmt.Sprintf("header %s: the file must be an absolute path", h))
		}
	}
	for _, h := range sortedKeys(c.HeaderPrefix) {
		_, env := c.Headers[h]
		_, file := c.HeaderFiles[h]
		if !env && !file {
			return bad("headers", ErrInvalidHeader, fmt.Sprintf("header %s: a prefix without a value", truncate(h, 40)))
		}
		if p := c.HeaderPrefix[h]; len(p) > 64 || strings.ContainsAny(p, "\r\n\x00") {
			return bad("headers", ErrInvalidHeader, fmt.Sprintf("header %s: the prefix must be one line of at most 64 bytes", h))
		}
	}
	if len(c.Tools) > MaxAllowlist {
		return bad("tools", ErrTooMany, fmt.Sprintf("at most %d", MaxAllowlist))
	}
	for _, t := range c.Tools {
		if !toolNameRE.MatchString(t) {
			return bad("tools", ErrInvalidTool, fmt.Sprintf("%q", truncate(t, 40)))
		}
	}
	if c.Timeout < 0 || c.Timeout > MaxCallTimeout {
		return bad("timeout", ErrInvalidTimeout, fmt.Sprintf("want 0 (default %s) to %s", DefaultCallTimeout, MaxCallTimeout))
	}
	return nil
}

// UnmarshalJSON accepts the timeout as a duration string ("15s") or as
// nanoseconds.
func (c *ServerConfig) UnmarshalJSON(b []byte) error {
	type plain ServerConfig
	var aux struct {
		plain
		Timeout json.RawMessage `json:"timeout,omitempty"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&aux); err != nil {
		return err
	}
	*c = ServerConfig(aux.plain)
	c.Timeout = 0
	if len(aux.Timeout) > 0 && string(aux.Timeout) != "null" {
		d, err := parseDuration(aux.Timeout)
		if err != nil {
			return &ConfigError{Server: c.Name, Field: "timeout", Err: ErrInvalidTimeout, Detail: err.Error()}
		}
		c.Timeout = d
	}
	return nil
}

func parseDuration(raw json.RawMessage) (time.Duration, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return time.ParseDuration(s)
	}
	var n int64
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, errors.New("want a duration such as \"15s\"")
	}
	return time.Duration(n), nil
}

// ParseServers reads server configurations from YAML or JSON: either a list
// of servers or an object {"servers": [...]}. Every server is validated and
// names must be unique.
func ParseServers(data []byte) ([]ServerConfig, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var node yaml.Node
	if err := yaml.Unmarshal(data, &node); err != nil {
		return nil, fmt.Errorf("mcp servers: invalid YAML/JSON: %w", err)
	}
	// Round-trip through JSON so both syntaxes share one strict decoder
	// (durations as strings, unknown fields rejected).
	var generic any
	if err := node.Decode(&generic); err != nil {
		return nil, fmt.Errorf("mcp servers: %w", err)
	}
	if m, ok := generic.(map[string]any); ok {
		if len(m) != 1 || m["servers"] == nil {
			return nil, errors.New("mcp servers: want a list of servers or an object with one key \"servers\"")
		}
		generic = m["servers"]
	}
	js, err := json.Marshal(generic)
	if err != nil {
		return nil, fmt.Errorf("mcp servers: %w", err)
	}
	var out []ServerConfig
	if err := json.Unmarshal(js, &out); err != nil {
		var ce *ConfigError
		if errors.As(err, &ce) {
			return nil, ce
		}
		return nil, fmt.Errorf("mcp servers: %w", err)
	}
	if len(out) > MaxServers {
		return nil, &ConfigError{Field: "servers", Err: ErrTooMany, Detail: fmt.Sprintf("at most %d", MaxServers)}
	}
	seen := map[string]bool{}
	for _, c := range out {
		if err := c.Validate(); err != nil {
			return nil, err
		}
		if seen[c.Name] {
			return nil, &ConfigError{Server: c.Name, Field: "name", Err: ErrDuplicate}
		}
		seen[c.Name] = true
	}
	return out, nil
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// HeaderValues resolves the secret headers: Headers from the environment
// (lookup), HeaderFiles from files (readFile), each behind its
// HeaderPrefix. An unset variable or unreadable file is an error naming the
// variable or the path, never a value.
func (c ServerConfig) HeaderValues(lookup func(string) (string, bool), readFile func(string) ([]byte, error)) (map[string]string, error) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	if readFile == nil {
		readFile = os.ReadFile
	}
	h := make(map[string]string, len(c.Headers)+len(c.HeaderFiles))
	for _, name := range sortedKeys(c.Headers) {
		env := c.Headers[name]
		v, ok := lookup(env)
		if v = strings.TrimSpace(v); !ok || v == "" {
			return nil, fmt.Errorf("mcp server %s: header %s: environment variable %s is not set", c.Name, name, env)
		}
		h[name] = c.HeaderPrefix[name] + v
	}
	for _, name := range sortedKeys(c.HeaderFiles) {
		path := c.HeaderFiles[name]
		b, err := readFile(path)
		if err != nil {
			return nil, fmt.Errorf("mcp server %s: header %s: file %s cannot be read: %w", c.Name, name, path, pathErr(err))
		}
		v := strings.TrimSpace(string(b))
		switch {
		case v == "":
			return nil, fmt.Errorf("mcp server %s: header %s: file %s is empty", c.Name, name, path)
		case strings.ContainsAny(v, "\r\n\x00"):
			return nil, fmt.Errorf("mcp server %s: header %s: file %s holds more than one line", c.Name, name, path)
		}
		h[name] = c.HeaderPrefix[name] + v
	}
	return h, nil
}

// pathErr keeps the reason of a file error without repeating the path.
func pathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
