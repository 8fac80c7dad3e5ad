package jaeger

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// api_v3 gateway parameters, as apiv3/http_gateway.go names them: only
// these snake_case names are read; any other parameter (camelCase
// spellings, query.search_depth, query.attributes) is ignored.
const (
	v3ServiceName   = "query.service_name"
	v3OperationName = "query.operation_name"
	v3TimeMin       = "query.start_time_min"
	v3TimeMax       = "query.start_time_max"
	v3NumTraces     = "query.num_traces" // the search depth
	v3DurationMin   = "query.duration_min"
	v3DurationMax   = "query.duration_max"
	v3RawTraces     = "query.raw_traces"
	v3SpanKind      = "span_kind"
)

var errNoTraces = errors.New("No traces found") //nolint:staticcheck // Jaeger's exact message

// gatewayError is api_v3.GRPCGatewayError as encoding/json renders it.
type gatewayError struct {
	Error gatewayErrorDetails `json:"error"`
}

type gatewayErrorDetails struct {
	GrpcCode   int32  `json:"grpcCode,omitempty"`
	HTTPCode   int32  `json:"httpCode,omitempty"`
	Message    string `json:"message,omitempty"`
	HTTPStatus string `json:"httpStatus,omitempty"`
}

// v3Error writes the gateway error body (also through http.Error in Jaeger).
func (h *Handler) v3Error(w http.ResponseWriter, r *http.Request, err error, code int) {
	body, _ := json.Marshal(gatewayError{Error: gatewayErrorDetails{HTTPCode: int32(code), Message: err.Error()}})
	http.Error(w, string(body), code)
	h.record(r, code, map[string]any{"error": err.Error()})
}

func malformed(name string, err error) error {
	return fmt.Errorf("malformed parameter %s: %w", name, err)
}

// v3Services answers {"services":[...]}; proto3 JSON omits an empty list.
func (h *Handler) v3Services(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, struct {
		Services []string `json:"services,omitempty"`
	}{h.services})
	h.record(r, http.StatusOK, map[string]any{"services": len(h.services)})
}

func (h *Handler) v3Operations(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	service := q.Get("service")
	kind := q.Get(v3SpanKind)
	var ops []operation
	for _, op := range h.ops[service] {
		if kind == "" || op.SpanKind == kind {
			ops = append(ops, op)
		}
	}
	type v3Op struct {
		Name     string `json:"name,omitempty"`
		SpanKind string `json:"spanKind,omitempty"`
	}
	out := make([]v3Op, len(ops))
	for i, op := range ops {
		out[i] = v3Op(op)
	}
	writeJSON(w, struct {
		Operations []v3Op `json:"operations,omitempty"`
	}{out})
	h.record(r, http.StatusOK, map[string]any{"operations": len(out)})
}

func (h *Handler) v3Search(w http.ResponseWriter, r *http.Request) {
	q, err := parseV3Query(r.URL.Query())
	if err != nil {
		h.v3Error(w, r, err, http.StatusBadRequest)
		return
	}
	found, err := h.find(q)
	if err != nil {
		h.v3Error(w, r, err, http.StatusInternalServerError)
		return
	}
	h.v3Traces(w, r, found)
}

func (h *Handler) v3Trace(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	id, err := parseTraceID(r.PathValue("trace_id"))
	if err != nil {
		h.v3Error(w, r, malformed("trace_id", err), http.StatusBadRequest)
		return
	}
	for _, name := range []string{"start_time", "end_time"} {
		if v := q.Get(name); v != "" {
			if _, err := time.Parse(time.RFC3339Nano, v); err != nil {
				h.v3Error(w, r, malformed(name, err), http.StatusBadRequest)
				return
			}
		}
	}
	if v := q.Get("raw_traces"); v != "" {
		if _, err := strconv.ParseBool(v); err != nil {
			h.v3Error(w, r, malformed("raw_traces", err), http.StatusBadRequest)
			return
		}
	}
	var found []*trace
	if t, ok := h.byID[id]; ok {
		found = append(found, t)
	}
	h.v3Traces(w, r, found)
}

// v3Traces writes {"result": TracesData} or the gateway's 404 when empty.
func (h *Handler) v3Traces(w http.ResponseWriter, r *http.Request, found []*trace) {
	if len(found) == 0 {
		h.v3Error(w, r, errNoTraces, http.StatusNotFound)
		return
	}
	data := tracesData{ResourceSpans: []resourceSpans{}}
	for _, t := range found {
		data.ResourceSpans = append(data.ResourceSpans, t.otlp...)
	}
	writeJSON(w, struct {
		Result tracesData `json:"result"`
	}{data})
	h.record(r, http.StatusOK, summary(found))
}

// parseV3Query follows apiv3's parseFindTracesQuery: the times are
// required and RFC 3339, the depth is query.num_traces (0 when absent,
// which the store refuses), and nothing else is checked.
func parseV3Query(q url.Values) (query, error) {
	out := query{service: q.Get(v3ServiceName), operation: q.Get(v3OperationName)}
	minS, maxS := q.Get(v3TimeMin), q.Get(v3TimeMax)
	if minS == "" || maxS == "" {
		return out, fmt.Errorf("%s and %s are required", v3TimeMin, v3TimeMax)
	}
	var err error
	if out.start, err = time.Parse(time.RFC3339Nano, minS); err != nil {
		return out, malformed(v3TimeMin, err)
	}
	if out.end, err = time.Parse(time.RFC3339Nano, maxS); err != nil {
		return out, malformed(v3TimeMax, err)
	}
	if n := q.Get(v3NumTraces); n != "" {
		if out.depth, err = strconv.Atoi(n); err != nil {
			return out, malformed(v3NumTraces, err)
		}
	}
	for _, d := range []struct {
		name string
		into *time.Duration
	}{{v3DurationMin, &out.minDuration}, {v3DurationMax, &out.maxDuration}} {
		if v := q.Get(d.name); v != "" {
			if *d.into, err = time.ParseDuration(v); err != nil {
				return out, malformed(d.name, err)
			}
		}
	}
	if v := q.Get(v3RawTraces); v != "" {
		if _, err := strconv.ParseBool(v); err != nil {
			return out, malformed(v3RawTraces, err)
		}
	}
	return out, nil
}
