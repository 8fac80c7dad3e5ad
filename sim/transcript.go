// Package sim holds simulators of the services AutoHeal talks to (Slack,
// Jaeger, Loki, Prometheus, GitHub, Kubernetes over MCP, OpenAI). They are
// test fixtures fed by scenarios: the demo, the evaluation and the tests use
// them; production code paths never do.
package sim

import (
	"encoding/json"
	"io"
	"net/url"
	"sync"
	"time"
)

// Entry is one call a client made to a simulator, as JSON lines of the
// transcript: {"time", "service", "method", "params", "response"}.
type Entry struct {
	Time     time.Time `json:"time"`
	Service  string    `json:"service"` // slack | github | jaeger | loki | prometheus | k8s | openai | alertmanager
	Method   string    `json:"method"`  // chat.update, GET /api/traces, tools/call pods_list ...
	Params   any       `json:"params"`
	Response any       `json:"response"`
}

// Transcript records simulator calls. It is safe for concurrent use; a nil
// *Transcript records nothing.
type Transcript struct {
	mu      sync.Mutex
	entries []Entry
	w       io.Writer
	enc     *json.Encoder
}

// NewTranscript returns a transcript that also streams each entry as a JSON
// line to w (w may be nil).
func NewTranscript(w io.Writer) *Transcript {
	t := &Transcript{w: w}
	if w != nil {
		t.enc = json.NewEncoder(w)
	}
	return t
}

// Record appends an entry stamped with the current time.
func (t *Transcript) Record(service, method string, params, response any) {
	if t == nil {
		return
	}
	e := Entry{Time: time.Now().UTC(), Service: service, Method: method, Params: params, Response: response}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.entries = append(t.entries, e)
	if t.enc != nil {
		_ = t.enc.Encode(e) // a broken transcript sink must not break the simulated service
	}
}

// FormParams flattens request parameters for an entry: a parameter given
// once is its value, one given several times the list of them.
func FormParams(form url.Values) map[string]any {
	params := make(map[string]any, len(form))
	for k, v := range form {
		if len(v) == 1 {
			params[k] = v[0]
		} else {
			params[k] = v
		}
	}
	return params
}

// Entries returns a copy of what was recorded.
func (t *Transcript) Entries() []Entry {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Entry(nil), t.entries...)
}

// Filter returns the entries of one service.
func (t *Transcript) Filter(service string) []Entry {
	var out []Entry
	for _, e := range t.Entries() {
		if e.Service == service {
			out = append(out, e)
		}
	}
	return out
}
