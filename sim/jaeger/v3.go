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

// api_v3 gateway parameters. Recent Jaeger releases accept the camelCase
// names of the proto3 JSON mapping and keep the snake_case ones as aliases.
var (
	v3ServiceName   = [2]string{"query.serviceName", "query.service_name"}
	v3OperationName = [2]string{"query.operationName", "query.operation_name"}
	v3TimeMin       = [2]string{"query.startTimeMin", "query.start_time_min"}
	v3TimeMax       = [2]string{"query.startTimeMax", "query.start_time_max"}
	v3SearchDepth   = [2]string{"query.searchDepth", "query.search_depth"}
	v3DurationMin   = [2]string{"query.durationMin", "query.duration_min"}
	v3DurationMax   = [2]string{"query.durationMax", "query.duration_max"}
	v3RawTraces     = [2]string{"query.rawTraces", "query.raw_traces"}
	v3SpanKind      = [2]string{"spanKind", "span_kind"}
)

const (
	v3NumTraces  = "query.num_traces" // deprecated alias of search depth
	v3Attributes = "query.attributes"
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

func param(q url.Values, names [2]string) (value, name string) {
	if v := q.Get(names[0]); v != "" {
		return v, names[0]
	}
	return q.Get(names[1]), names[1]
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
	kind, _ := param(q, v3SpanKind)
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
	found := h.find(q)
	h.v3Traces(w, r, found)
}

func (h *Handler) v3Trace(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	id, err := parseTraceID(r.PathValue("trace_id"))
	if err != nil {
		h.v3Error(w, r, malformed("trace_id", err), http.StatusBadRequest)
		return
	}
	for _, names := range [][2]string{{"startTime", "start_time"}, {"endTime", "end_time"}} {
		if v, name := param(q, names); v != "" {
			if _, err := time.Parse(time.RFC3339Nano, v); err != nil {
				h.v3Error(w, r, malformed(name, err), http.StatusBadRequest)
				return
			}
		}
	}
	if v, name := param(q, [2]string{"rawTraces", "raw_traces"}); v != "" {
		if _, err := strconv.ParseBool(v); err != nil {
			h.v3Error(w, r, malformed(name, err), http.StatusBadRequest)
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
		data.ResourceSpans = append(data.ResourceSpans, toOTLP(t)...)
	}
	writeJSON(w, struct {
		Result tracesData `json:"result"`
	}{data})
	h.record(r, http.StatusOK, summary(found))
}

// parseV3Query follows apiv3's parseFindTracesQuery.
func parseV3Query(q url.Values) (query, error) {
	out := query{limit: defaultSearchDepth}
	out.service, _ = param(q, v3ServiceName)
	out.operation, _ = param(q, v3OperationName)
	if v := q.Get(v3Attributes); v != "" {
		if err := json.Unmarshal([]byte(v), &out.tags); err != nil {
			return out, malformed(v3Attributes, err)
		}
	}
	minS, minName := param(q, v3TimeMin)
	maxS, maxName := param(q, v3TimeMax)
	if minS == "" || maxS == "" {
		return out, fmt.Errorf("%s and %s are required", v3TimeMin[0], v3TimeMax[0])
	}
	var err error
	if out.start, err = time.Parse(time.RFC3339Nano, minS); err != nil {
		return out, malformed(minName, err)
	}
	if out.end, err = time.Parse(time.RFC3339Nano, maxS); err != nil {
		return out, malformed(maxName, err)
	}
	if !out.start.Before(out.end) {
		return out, fmt.Errorf("%s must be before %s", v3TimeMin[0], v3TimeMax[0])
	}
	n, depthName := param(q, v3SearchDepth)
	if n == "" {
		n, depthName = q.Get(v3NumTraces), v3NumTraces
	}
	if n != "" {
		depth, err := strconv.ParseInt(n, 10, 32)
		if err != nil {
			return out, malformed(depthName, err)
		}
		out.limit = int(depth)
	}
	for _, d := range []struct {
		names [2]string
		into  *time.Duration
	}{{v3DurationMin, &out.minDuration}, {v3DurationMax, &out.maxDuration}} {
		if v, name := param(q, d.names); v != "" {
			if *d.into, err = time.ParseDuration(v); err != nil {
				return out, malformed(name, err)
			}
		}
	}
	if v, name := param(q, v3RawTraces); v != "" {
		if _, err := strconv.ParseBool(v); err != nil {
			return out, malformed(name, err)
		}
	}
	return out, nil
}
