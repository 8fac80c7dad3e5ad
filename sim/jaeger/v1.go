package jaeger

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/autoheal/autoheal/scenario"
)

// structuredResponse is the v1 envelope (http_handler.go structuredResponse).
type structuredResponse struct {
	Data   any               `json:"data"`
	Total  int               `json:"total"`
	Limit  int               `json:"limit"`
	Offset int               `json:"offset"`
	Errors []structuredError `json:"errors"`
}

type structuredError struct {
	Code    int    `json:"code,omitempty"`
	Msg     string `json:"msg"`
	TraceID string `json:"traceID,omitempty"`
}

var (
	errServiceRequired = errors.New("parameter 'service' is required")
	errTraceNotFound   = errors.New("trace not found")
	errDurationOrder   = errors.New("'maxDuration' should be greater than 'minDuration'")
)

// v1Error writes Jaeger's v1 error body. Jaeger writes it with http.Error,
// so the content type is text/plain although the body is JSON.
func (h *Handler) v1Error(w http.ResponseWriter, r *http.Request, err error, code int) {
	body, _ := json.Marshal(structuredResponse{Errors: []structuredError{{Code: code, Msg: err.Error()}}})
	http.Error(w, string(body), code)
	h.record(r, code, map[string]any{"error": err.Error()})
}

func (h *Handler) v1Services(w http.ResponseWriter, r *http.Request) {
	services := h.services
	if services == nil {
		services = []string{}
	}
	writeJSON(w, structuredResponse{Data: services, Total: len(services)})
	h.record(r, http.StatusOK, map[string]any{"services": len(services)})
}

func (h *Handler) v1ServiceOperations(w http.ResponseWriter, r *http.Request) {
	service := r.PathValue("service")
	names := []string{}
	seen := map[string]bool{}
	for _, op := range h.ops[service] {
		if !seen[op.Name] {
			seen[op.Name] = true
			names = append(names, op.Name)
		}
	}
	writeJSON(w, structuredResponse{Data: names, Total: len(names)})
	h.record(r, http.StatusOK, map[string]any{"operations": len(names)})
}

func (h *Handler) v1Operations(w http.ResponseWriter, r *http.Request) {
	service := r.FormValue("service")
	if service == "" {
		h.v1Error(w, r, errServiceRequired, http.StatusBadRequest)
		return
	}
	kind := r.FormValue("spanKind")
	data := []operation{}
	for _, op := range h.ops[service] {
		if kind == "" || op.SpanKind == kind {
			data = append(data, op)
		}
	}
	writeJSON(w, structuredResponse{Data: data, Total: len(data)})
	h.record(r, http.StatusOK, map[string]any{"operations": len(data)})
}

func (h *Handler) v1Search(w http.ResponseWriter, r *http.Request) {
	q, ids, err := h.parseV1Query(r)
	if err != nil {
		h.v1Error(w, r, err, http.StatusBadRequest)
		return
	}
	var (
		found  []*trace
		errs   []structuredError
		traces []*scenario.Trace
	)
	if len(ids) > 0 {
		for _, id := range ids {
			t, ok := h.byID[id]
			if !ok {
				errs = append(errs, structuredError{Msg: errTraceNotFound.Error(), TraceID: id.String()})
				continue
			}
			found = append(found, t)
		}
	} else if found, err = h.find(q); err != nil {
		h.v1Error(w, r, err, http.StatusInternalServerError)
		return
	}
	traces = make([]*scenario.Trace, len(found))
	for i, t := range found {
		traces[i] = t.raw
	}
	writeJSON(w, structuredResponse{Data: traces, Errors: errs})
	h.record(r, http.StatusOK, summary(found))
}

func (h *Handler) v1Trace(w http.ResponseWriter, r *http.Request) {
	id, err := parseTraceID(r.PathValue("traceID"))
	if err != nil {
		h.v1Error(w, r, err, http.StatusBadRequest)
		return
	}
	for _, p := range []string{"start", "end"} {
		if v := r.FormValue(p); v != "" {
			if _, err := strconv.ParseInt(v, 10, 64); err != nil {
				h.v1Error(w, r, fmt.Errorf("unable to parse param '%s': %w", p, err), http.StatusBadRequest)
				return
			}
		}
	}
	t, ok := h.byID[id]
	if !ok {
		h.v1Error(w, r, errTraceNotFound, http.StatusNotFound)
		return
	}
	writeJSON(w, structuredResponse{Data: []*scenario.Trace{t.raw}})
	h.record(r, http.StatusOK, summary([]*trace{t}))
}

// parseV1Query follows query_parser.go: start/end in microseconds (defaults
// now-48h and now), durations as Go durations, tags from repeated
// tag=key:value and JSON-encoded tags maps of strings. "lookback" is a UI
// concept that the query service ignores, and so does this simulator.
func (h *Handler) parseV1Query(r *http.Request) (query, []traceID, error) {
	q := query{
		service:   r.FormValue("service"),
		operation: r.FormValue("operation"),
		depth:     defaultSearchLimit,
	}
	now := h.now()
	var err error
	if q.start, err = parseMicros(r.FormValue("start"), "start", now.Add(-defaultLookback)); err != nil {
		return q, nil, err
	}
	if q.end, err = parseMicros(r.FormValue("end"), "end", now); err != nil {
		return q, nil, err
	}
	if q.tags, err = parseTags(r.Form["tag"], r.Form["tags"]); err != nil {
		return q, nil, err
	}
	if v := r.FormValue("limit"); v != "" {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			return q, nil, err
		}
		q.depth = int(n)
	}
	if q.minDuration, err = parseDuration(r.FormValue("minDuration"), "minDuration"); err != nil {
		return q, nil, err
	}
	if q.maxDuration, err = parseDuration(r.FormValue("maxDuration"), "maxDuration"); err != nil {
		return q, nil, err
	}
	rawIDs := r.Form["traceID"]
	if len(rawIDs) > maxTraceIDs {
		return q, nil, fmt.Errorf("too many traceID parameters: %d > %d", len(rawIDs), maxTraceIDs)
	}
	var ids []traceID
	for _, s := range rawIDs {
		id, err := parseTraceID(s)
		if err != nil {
			return q, nil, fmt.Errorf("cannot parse traceID param: %w", err)
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 && q.service == "" {
		return q, nil, errServiceRequired
	}
	if q.minDuration != 0 && q.maxDuration != 0 && q.maxDuration < q.minDuration {
		return q, nil, errDurationOrder
	}
	return q, ids, nil
}

func parseMicros(v, name string, def time.Time) (time.Time, error) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("unable to parse param '%s': %w", name, err)
	}
	return time.UnixMicro(n), nil
}

func parseDuration(v, name string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("unable to parse param '%s': %w", name, err)
	}
	return d, nil
}

// parseTags merges tag=key:value pairs and tags={"k":"v"} maps. Like Jaeger,
// JSON values must be strings: {"error":true} is rejected, {"error":"true"}
// matches a bool tag whose value is true.
func parseTags(simple, jsonTags []string) (map[string]string, error) {
	out := map[string]string{}
	for _, tag := range simple {
		k, v, ok := strings.Cut(tag, ":")
		if !ok {
			return nil, fmt.Errorf("malformed 'tag' parameter, expecting key:value, received: %s", tag)
		}
		out[k] = v
	}
	for _, js := range jsonTags {
		var m map[string]string
		if err := json.Unmarshal([]byte(js), &m); err != nil {
			return nil, fmt.Errorf("malformed 'tags' parameter, cannot unmarshal JSON: %w", err)
		}
		for k, v := range m {
			out[k] = v
		}
	}
	return out, nil
}
