// Package jaeger simulates the Jaeger query service over a scenario's traces.
//
// It serves the two HTTP APIs clients use against real Jaeger:
//   - the v1 JSON API of the UI (/api/services, /api/operations,
//     /api/services/{service}/operations, /api/traces, /api/traces/{traceID});
//   - the api_v3 HTTP gateway (/api/v3/services, /api/v3/operations,
//     /api/v3/traces, /api/v3/traces/{trace_id}) answering OTLP JSON.
//
// Parameter names, defaults, units, response envelopes and error bodies follow
// jaegertracing/jaeger (cmd/query/app/http_handler.go, query_parser.go and
// apiv3/http_gateway.go). Search semantics follow Jaeger's in-memory store: a
// trace matches when one of its spans belongs to the service and satisfies
// operation, tags, duration and start-time bounds.
package jaeger

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sim"
)

// ServiceName is the transcript service name of this simulator.
const ServiceName = "jaeger"

const (
	// defaultSearchLimit is the query service's default for v1 "limit"
	// (the UI sends 20 explicitly).
	defaultSearchLimit = 100
	// defaultSearchDepth is the api_v3 default for query.search_depth.
	defaultSearchDepth = 100
	// defaultLookback is how far back v1 searches go when "start" is absent.
	defaultLookback = 48 * time.Hour
	// maxTraceIDs bounds repeated traceID parameters of one v1 search.
	maxTraceIDs = 1000
)

// Options configure the simulator.
type Options struct {
	// Now is the simulated clock used where Jaeger defaults to the current
	// time (v1 search without start/end). Zero means the wall clock.
	Now time.Time
	// Transcript records every call; nil records nothing.
	Transcript *sim.Transcript
	// Logger receives debug lines; nil discards them.
	Logger *slog.Logger
}

// Handler serves the Jaeger query APIs. It is immutable after New and safe
// for concurrent use.
type Handler struct {
	opts     Options
	log      *slog.Logger
	mux      *http.ServeMux
	traces   []*trace // newest first
	byID     map[traceID]*trace
	services []string
	ops      map[string][]operation // service -> operations sorted by name, kind
}

type operation struct {
	Name     string `json:"name"`
	SpanKind string `json:"spanKind"`
}

// trace is one indexed trace.
type trace struct {
	id    traceID
	raw   *scenario.Trace
	start int64 // earliest span start, µs
	spans []spanIndex
}

// spanIndex holds what searches compare, precomputed once.
type spanIndex struct {
	span    *scenario.Span
	service string
	kind    string
	tags    []kvString // span tags, process tags, log fields; values as strings
}

type kvString struct{ key, value string }

// New indexes the traces (nil means no traces) and returns the handler.
func New(traces *scenario.Traces, opts Options) (*Handler, error) {
	h := &Handler{
		opts: opts,
		log:  opts.Logger,
		byID: map[traceID]*trace{},
		ops:  map[string][]operation{},
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	if traces != nil {
		if err := h.index(traces); err != nil {
			return nil, err
		}
	}
	h.routes()
	return h, nil
}

func (h *Handler) index(traces *scenario.Traces) error {
	services := map[string]bool{}
	ops := map[string]map[operation]bool{}
	for i := range traces.Data {
		raw := normalizeTrace(traces.Data[i])
		id, err := parseTraceID(raw.TraceID)
		if err != nil {
			return fmt.Errorf("trace %d: invalid traceID %q: %w", i, raw.TraceID, err)
		}
		if _, dup := h.byID[id]; dup {
			return fmt.Errorf("trace %d: duplicate traceID %q", i, raw.TraceID)
		}
		t := &trace{id: id, raw: raw, spans: make([]spanIndex, 0, len(raw.Spans))}
		for j := range raw.Spans {
			s := &raw.Spans[j]
			proc, ok := raw.Processes[s.ProcessID]
			if !ok {
				return fmt.Errorf("trace %s span %s: unknown processID %q", raw.TraceID, s.SpanID, s.ProcessID)
			}
			si := spanIndex{span: s, service: proc.ServiceName, kind: spanKind(s.Tags)}
			for _, kv := range s.Tags {
				si.tags = append(si.tags, kvString{kv.Key, valueString(kv)})
			}
			for _, kv := range proc.Tags {
				si.tags = append(si.tags, kvString{kv.Key, valueString(kv)})
			}
			for _, l := range s.Logs {
				for _, kv := range l.Fields {
					si.tags = append(si.tags, kvString{kv.Key, valueString(kv)})
				}
			}
			if j == 0 || s.StartTime < t.start {
				t.start = s.StartTime
			}
			t.spans = append(t.spans, si)
			services[proc.ServiceName] = true
			if ops[proc.ServiceName] == nil {
				ops[proc.ServiceName] = map[operation]bool{}
			}
			ops[proc.ServiceName][operation{Name: s.OperationName, SpanKind: si.kind}] = true
		}
		h.byID[id] = t
		h.traces = append(h.traces, t)
	}
	sort.SliceStable(h.traces, func(i, j int) bool { return h.traces[i].start > h.traces[j].start })
	for s := range services {
		h.services = append(h.services, s)
	}
	sort.Strings(h.services)
	for svc, set := range ops {
		list := make([]operation, 0, len(set))
		for op := range set {
			list = append(list, op)
		}
		sort.Slice(list, func(i, j int) bool {
			if list[i].Name != list[j].Name {
				return list[i].Name < list[j].Name
			}
			return list[i].SpanKind < list[j].SpanKind
		})
		h.ops[svc] = list
	}
	return nil
}

// normalizeTrace copies the trace so that empty collections encode as []
// like Jaeger's UI model does, whatever the scenario file held.
func normalizeTrace(in scenario.Trace) *scenario.Trace {
	out := in
	out.Spans = make([]scenario.Span, len(in.Spans))
	for i, s := range in.Spans {
		if s.References == nil {
			s.References = []scenario.Reference{}
		}
		if s.Tags == nil {
			s.Tags = []scenario.KeyValue{}
		}
		if s.Logs == nil {
			s.Logs = []scenario.SpanLog{}
		}
		if s.TraceID == "" {
			s.TraceID = in.TraceID
		}
		out.Spans[i] = s
	}
	if out.Processes == nil {
		out.Processes = map[string]scenario.Process{}
	}
	return &out
}

func (h *Handler) routes() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/services", h.v1Services)
	mux.HandleFunc("GET /api/services/{service}/operations", h.v1ServiceOperations)
	mux.HandleFunc("GET /api/operations", h.v1Operations)
	mux.HandleFunc("GET /api/traces", h.v1Search)
	mux.HandleFunc("GET /api/traces/{traceID}", h.v1Trace)
	mux.HandleFunc("GET /api/v3/services", h.v3Services)
	mux.HandleFunc("GET /api/v3/operations", h.v3Operations)
	mux.HandleFunc("GET /api/v3/traces", h.v3Search)
	mux.HandleFunc("GET /api/v3/traces/{trace_id}", h.v3Trace)
	h.mux = mux
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

func (h *Handler) now() time.Time {
	if h.opts.Now.IsZero() {
		return time.Now()
	}
	return h.opts.Now
}

// record writes one transcript entry for the request.
func (h *Handler) record(r *http.Request, status int, summary map[string]any) {
	if summary == nil {
		summary = map[string]any{}
	}
	summary["status"] = status
	h.opts.Transcript.Record(ServiceName, r.Method+" "+r.URL.Path, queryParams(r), summary)
	h.log.Debug("jaeger call", "method", r.Method, "path", r.URL.Path, "status", status)
}

// queryParams flattens the query string for the transcript: single values
// as strings, repeated values as lists.
func queryParams(r *http.Request) map[string]any {
	q := r.URL.Query()
	out := make(map[string]any, len(q))
	for k, v := range q {
		if len(v) == 1 {
			out[k] = v[0]
		} else {
			out[k] = v
		}
	}
	return out
}

// writeJSON writes a 200 JSON response.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(v) // the client going away is not our error
}

// spanKind returns the span.kind tag value ("server", "client", ...).
func spanKind(tags []scenario.KeyValue) string {
	for _, kv := range tags {
		if kv.Key == "span.kind" {
			return valueString(kv)
		}
	}
	return ""
}

// valueString renders a tag value as Jaeger's KeyValue.AsString does: bools
// as true/false, int64 in decimal, float64 with 10 significant digits.
func valueString(kv scenario.KeyValue) string {
	switch v := kv.Value.(type) {
	case nil:
		return ""
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case float64:
		if kv.Type == "int64" || (kv.Type != "float64" && v == float64(int64(v))) {
			return strconv.FormatInt(int64(v), 10)
		}
		return strconv.FormatFloat(v, 'g', 10, 64)
	case json.Number:
		return v.String()
	default:
		return fmt.Sprint(v)
	}
}

// traceID is a 128-bit trace ID as Jaeger parses it.
type traceID struct{ high, low uint64 }

// parseTraceID mirrors model.TraceIDFromString: up to 32 hex digits, the
// last 16 are the low word.
func parseTraceID(s string) (traceID, error) {
	var id traceID
	if len(s) > 32 {
		return id, fmt.Errorf("TraceID cannot be longer than 32 hex characters: %s", s)
	}
	if s == "" {
		return id, fmt.Errorf("strconv.ParseUint: parsing %q: invalid syntax", s)
	}
	var err error
	if len(s) > 16 {
		hi := len(s) - 16
		if id.high, err = strconv.ParseUint(s[:hi], 16, 64); err != nil {
			return id, err
		}
		if id.low, err = strconv.ParseUint(s[hi:], 16, 64); err != nil {
			return id, err
		}
		return id, nil
	}
	id.low, err = strconv.ParseUint(s, 16, 64)
	return id, err
}

// String renders the ID as Jaeger does in the v1 API.
func (id traceID) String() string {
	if id.high == 0 {
		return fmt.Sprintf("%016x", id.low)
	}
	return fmt.Sprintf("%x%016x", id.high, id.low)
}

// hex32 renders the ID as OTLP JSON does: 32 lowercase hex digits.
func (id traceID) hex32() string { return fmt.Sprintf("%016x%016x", id.high, id.low) }

// query is a parsed trace search, shared by v1 and api_v3.
type query struct {
	service     string
	operation   string
	tags        map[string]string
	start, end  time.Time // inclusive bounds on span start; zero = unbounded
	minDuration time.Duration
	maxDuration time.Duration
	limit       int // <= 0: no limit
}

// find returns the matching traces, newest first, at most q.limit of them
// (the newest ones, like Jaeger's memory store).
func (h *Handler) find(q query) []*trace {
	var out []*trace
	for _, t := range h.traces {
		if t.matches(q) {
			out = append(out, t)
			if q.limit > 0 && len(out) == q.limit {
				break
			}
		}
	}
	return out
}

func (t *trace) matches(q query) bool {
	for i := range t.spans {
		if t.spans[i].matches(q) {
			return true
		}
	}
	return false
}

func (s *spanIndex) matches(q query) bool {
	// v1 always sends a service; api_v3 may search across services.
	if q.service != "" && s.service != q.service {
		return false
	}
	if q.operation != "" && q.operation != s.span.OperationName {
		return false
	}
	dur := time.Duration(s.span.Duration) * time.Microsecond
	if q.minDuration != 0 && dur < q.minDuration {
		return false
	}
	if q.maxDuration != 0 && dur > q.maxDuration {
		return false
	}
	start := time.UnixMicro(s.span.StartTime)
	if !q.start.IsZero() && start.Before(q.start) {
		return false
	}
	if !q.end.IsZero() && start.After(q.end) {
		return false
	}
	for k, v := range q.tags {
		if !s.hasTag(k, v) {
			return false
		}
	}
	return true
}

// hasTag looks at every tag, not only the first with the key: a span may
// carry the same key several times.
func (s *spanIndex) hasTag(key, value string) bool {
	for _, kv := range s.tags {
		if kv.key == key && kv.value == value {
			return true
		}
	}
	return false
}

func countSpans(ts []*trace) int {
	n := 0
	for _, t := range ts {
		n += len(t.raw.Spans)
	}
	return n
}

func traceIDs(ts []*trace) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.id.String()
	}
	return out
}

// summary is the compact transcript view of a trace result.
func summary(ts []*trace) map[string]any {
	const maxIDs = 20
	ids := traceIDs(ts)
	if len(ids) > maxIDs {
		ids = ids[:maxIDs]
	}
	errorSpans := 0
	for _, t := range ts {
		for _, s := range t.spans {
			if s.hasTag("error", "true") || s.hasTag("otel.status_code", "ERROR") {
				errorSpans++
			}
		}
	}
	return map[string]any{"traces": len(ts), "spans": countSpans(ts), "error_spans": errorSpans, "trace_ids": ids}
}
