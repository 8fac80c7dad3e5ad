package capture

import (
	"strings"
	"sync"

	"github.com/autoheal/autoheal/investigate/tap"
)

// Backend names the source of a recorded answer.
type Backend string

const (
	Jaeger     Backend = "jaeger"
	Loki       Backend = "loki"
	Prometheus Backend = "prometheus"
	GitHub     Backend = "github"
	Kubernetes Backend = "kubernetes"
)

// Recorder keeps what the capabilities fetched during a capture (it is a
// tap.Recorder: put it in the investigation's context with tap.With).
// Only successful answers are kept, in the order they arrived.
type Recorder struct {
	mu    sync.Mutex
	http  []tap.HTTP
	tools []tap.Tool
	bytes int64
	// onAnswer, when set, is told of each answer kept (the progress bar).
	onAnswer func(answers int, bytes int64)
}

// NewRecorder returns an empty recorder; onAnswer (may be nil) is called
// after each answer kept with the running totals.
func NewRecorder(onAnswer func(answers int, bytes int64)) *Recorder {
	return &Recorder{onAnswer: onAnswer}
}

// HTTP implements tap.Recorder.
func (r *Recorder) HTTP(h tap.HTTP) {
	if h.Status < 200 || h.Status > 299 || h.URL == nil {
		return
	}
	r.mu.Lock()
	r.http = append(r.http, h)
	r.bytes += int64(len(h.Body))
	n, b, f := len(r.http)+len(r.tools), r.bytes, r.onAnswer
	r.mu.Unlock()
	if f != nil {
		f(n, b)
	}
}

// Tool implements tap.Recorder.
func (r *Recorder) Tool(t tap.Tool) {
	r.mu.Lock()
	r.tools = append(r.tools, t)
	r.bytes += int64(len(t.Text))
	n, b, f := len(r.http)+len(r.tools), r.bytes, r.onAnswer
	r.mu.Unlock()
	if f != nil {
		f(n, b)
	}
}

// Answers returns how many answers are kept so far (a mark for Since).
func (r *Recorder) Answers() (http, tools int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.http), len(r.tools)
}

// HTTPFrom returns the HTTP answers of one backend kept from index mark on.
func (r *Recorder) HTTPFrom(b Backend, mark int) []tap.HTTP {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []tap.HTTP
	for _, h := range r.http[min(mark, len(r.http)):] {
		if backendOf(h.URL.Path) == b {
			out = append(out, h)
		}
	}
	return out
}

// ToolsOf returns the tool results of one MCP server.
func (r *Recorder) ToolsOf(server string) []tap.Tool {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []tap.Tool
	for _, t := range r.tools {
		if t.Server == server {
			out = append(out, t)
		}
	}
	return out
}

// backendOf tells the backend of a request by its path, as each API names
// its routes (a base URL may add a prefix: /jaeger/api/traces).
func backendOf(path string) Backend {
	switch {
	case strings.Contains(path, "/loki/api/v1/"):
		return Loki
	case strings.Contains(path, "/repos/"):
		return GitHub // api.github.com/repos/… and GitHub Enterprise /api/v3/repos/…
	case strings.Contains(path, "/api/v1/query"), strings.Contains(path, "/api/v1/series"),
		strings.Contains(path, "/api/v1/label"), strings.Contains(path, "/api/v1/metadata"):
		return Prometheus
	case strings.Contains(path, "/api/traces"), strings.Contains(path, "/api/services"),
		strings.Contains(path, "/api/v3/traces"), strings.Contains(path, "/api/v3/services"), strings.Contains(path, "/api/v3/operations"):
		return Jaeger
	}
	return ""
}
