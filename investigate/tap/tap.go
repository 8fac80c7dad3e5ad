// Package tap lets a caller see what the capabilities fetch from their
// backends during an investigation: a Recorder carried by the context
// receives every HTTP answer (investigate/httpc) and every MCP tool result
// (investigate/mcp). `bot capture` records one investigation this way and
// turns what it saw into a scenario. Without a Recorder in the context
// nothing is kept and nothing costs more than a context lookup.
//
// A Recorder sees backend data before any redaction: whoever keeps it
// must pass it through redact/ before it leaves the process.
package tap

import (
	"context"
	"encoding/json"
	"net/url"
)

// HTTP is one answered HTTP request.
type HTTP struct {
	Method string
	URL    *url.URL // with the query; never the headers (credentials)
	Status int
	Body   []byte // as received (already bounded by the client's size cap)
}

// Tool is one MCP tool call that returned a result.
type Tool struct {
	Server string // the MCP server's configured name (kubernetes, argocd…)
	Tool   string
	Args   json.RawMessage
	Text   string // the text content of the result
	// Truncated: the client cut the text at its size cap.
	Truncated bool
}

// Recorder receives what the backends answered. Tool calls run
// concurrently, so implementations must be safe for concurrent use; the
// bodies and texts are theirs to keep (the clients do not reuse them).
type Recorder interface {
	HTTP(HTTP)
	Tool(Tool)
}

type key struct{}

// With returns a context whose backend calls are reported to r.
func With(ctx context.Context, r Recorder) context.Context {
	return context.WithValue(ctx, key{}, r)
}

// From returns the Recorder of ctx, or nil.
func From(ctx context.Context) Recorder {
	r, _ := ctx.Value(key{}).(Recorder)
	return r
}
