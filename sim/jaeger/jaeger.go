// Package jaeger simulates the Jaeger query service over a scenario's traces.
//
// It serves the two HTTP APIs clients use against real Jaeger:
//   - the v1 JSON API of the UI (/api/services, /api/operations,
//     /api/services/{service}/operations, /api/traces, /api/traces/{traceID});
//   - the api_v3 HTTP gateway (/api/v3/services, /api/v3/operations,
//     /api/v3/traces, /api/v3/traces/{trace_id}) answering OTLP JSON.
//
// It answers as Jaeger v1.75.0 (the all-in-one binary built from
// cmd/jaeger, default configuration, in-memory storage) does once the
// scenario's traces have been sent to it over OTLP (ToOTLP): parameter
// names, defaults, units, envelopes and error bodies follow
// cmd/query/app/http_handler.go, query_parser.go and apiv3/http_gateway.go,
// and searches follow internal/storage/v2/memory/tenant.go. A trace matches
// when one of its spans belongs to the service and satisfies operation,
// start-time, duration and attribute bounds; attributes are compared as
// strings against the span's, its resource's and its events' attributes,
// where OTLP keeps them: the span kind, the status and the scope are span
// fields, not attributes, so tags={"otel.status_code":"ERROR"} matches
// nothing, and the key "error" asks for the span *status*: the v1 API passes
// its value as a string, which the store reads as false, so
// tags={"error":"true"} matches spans whose status is OK. api_v3 ignores
// query.attributes and query.search_depth and reads the depth from
// query.num_traces only; a depth outside 1..max_traces (100000) is a 500.
// The conformance test (jaeger_conformance_test.go) holds the simulator to
// the real binary.
package jaeger

import (
	"encoding/json"
	"errors"
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
	// DefaultMaxTraces is the all-in-one configuration's memory.max_traces:
	// the largest search depth the store accepts.
	DefaultMaxTraces = 100000
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
	// MaxTraces is the store's max_traces (default DefaultMaxTraces).
	MaxTraces int
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
	otlp  []resourceSpans // as Jaeger stores it after an OTLP export
	start int64           // earliest span start, µs
	spans []spanIndex
}

// spanIndex holds what searches compare, precomputed once from the OTLP
// form of the span.
type spanIndex struct {
	span    *scenario.Span
	service string
	kind    string
	status  int        // OTLP status code
	tags    []kvString // span, resource and event attributes, values as strings
}

type kvString struct{ key, value string }

// New indexes the traces (nil means no traces) and returns the handler.
func New(traces *scenario.Traces, opts Options) (*Handler, error) {
	if opts.MaxTraces <= 0 {
		opts.MaxTraces = DefaultMaxTraces
	}
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
			_, os := convertSpan(t, s)
			si := spanIndex{span: s, service: proc.ServiceName, kind: spanKind(s.Tags), status: os.Status.Code}
			for _, kv := range os.Attributes {
				si.tags = append(si.tags, kvString{kv.Key, kv.Value.asString()})
			}
			for _, kv := range resourceAttributes(proc) {
				si.tags = append(si.tags, kvString{kv.Key, kv.Value.asString()})
			}
			for _, ev := range os.Events {
				for _, kv := range ev.Attributes {
					si.tags = append(si.tags, kvString{kv.Key, kv.Value.asString()})
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
		t.otlp = toOTLP(t)
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
	depth       int // search depth: at most this many traces
}

// errInvalidSearchDepth is the memory store's answer to a depth outside
// 1..max_traces; both APIs turn it into a 500.
var errInvalidSearchDepth = errors.New("search depth must be greater than 0 and less than max traces")

// find returns the matching traces, newest first, at most q.depth of them
// (the newest ones, like Jaeger's memory store).
func (h *Handler) find(q query) ([]*trace, error) {
	if q.depth <= 0 || q.depth > h.opts.MaxTraces {
		return nil, errInvalidSearchDepth
	}
	var out []*trace
	for _, t := range h.traces {
		if t.matches(q) {
			out = append(out, t)
			if len(out) == q.depth {
				break
			}
		}
	}
	return out, nil
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
		if k == errorAttribute {
			// The store reads the value as a bool; v1 passes strings, which
			// read as false: "error" then asks for status OK.
			if s.status != statusOK {
				return false
			}
			continue
		}
		if !s.hasTag(k, v) {
			return false
		}
	}
	return true
}

// errorAttribute is the query attribute the memory store compares with the
// span status instead of the attributes.
const errorAttribute = "error"

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
			if s.status == statusError {
				errorSpans++
			}
		}
	}
	return map[string]any{"traces": len(ts), "spans": countSpans(ts), "error_spans": errorSpans, "trace_ids": ids}
}
