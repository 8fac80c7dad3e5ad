// Package prom simulates the Prometheus HTTP API over a scenario's raw
// samples: /api/v1/query, /query_range, /series, /labels,
// /label/{name}/values, /metadata and /status/buildinfo, with a PromQL
// subset implemented by a real parser and evaluator.
//
// Semantics follow Prometheus 3: an instant selector takes the newest sample
// in (t-5m, t]; a range selector the samples in (t-range, t]; offset and @
// shift the evaluation time; rate, increase and delta correct counter resets
// and extrapolate towards the window edges exactly like Prometheus'
// extrapolatedRate; query_range evaluates the expression independently at
// every step. Aggregations (sum, avg, min, max, count, group, stddev,
// stdvar, topk, bottomk, quantile) take by/without; binary operators support
// bool, on/ignoring and group_left/group_right; and/or/unless are set
// operations. Subqueries are evaluated at step-aligned instants.
// Unsupported functions and aggregations answer 400 bad_data naming them.
// Native histograms do not exist here: scenarios hold float samples.
package prom

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sim"
)

// ServiceName is the transcript service name of this simulator.
const ServiceName = "prometheus"

// maxPoints is Prometheus' limit of points per series in a range query.
const maxPoints = 11000

// Options configure the simulator.
type Options struct {
	// Now is the simulated clock for instant queries without "time".
	// Zero means the wall clock.
	Now time.Time
	// Transcript records every call; nil records nothing.
	Transcript *sim.Transcript
	// Logger receives debug lines; nil discards them.
	Logger *slog.Logger
}

// Handler serves the Prometheus API. It is immutable after New and safe for
// concurrent use.
type Handler struct {
	opts   Options
	log    *slog.Logger
	mux    *http.ServeMux
	series []*storedSeries // sorted by labels
	byName map[string][]*storedSeries
}

// New indexes the samples (nil means no metrics) and returns the handler.
func New(metrics *scenario.Metrics, opts Options) (*Handler, error) {
	h := &Handler{opts: opts, log: opts.Logger, byName: map[string][]*storedSeries{}}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	if metrics != nil {
		if err := h.index(metrics); err != nil {
			return nil, err
		}
	}
	h.routes()
	return h, nil
}

func (h *Handler) index(metrics *scenario.Metrics) error {
	byKey := map[string]*storedSeries{}
	for i, s := range metrics.Series {
		if len(s.Metric) == 0 {
			return fmt.Errorf("series %d: no labels", i)
		}
		lbls := Labels{}
		for k, v := range s.Metric {
			if v != "" { // an empty label value is the same as no label
				lbls[k] = v
			}
		}
		key := lbls.key()
		st, ok := byKey[key]
		if !ok {
			st = &storedSeries{metric: lbls}
			byKey[key] = st
			h.series = append(h.series, st)
		}
		for j, pair := range s.Values {
			t, err := sampleTime(pair[0])
			if err != nil {
				return fmt.Errorf("series %s sample %d: %w", key, j, err)
			}
			v, err := sampleValue(pair[1])
			if err != nil {
				return fmt.Errorf("series %s sample %d: %w", key, j, err)
			}
			st.t = append(st.t, t)
			st.v = append(st.v, v)
		}
	}
	for _, st := range h.series {
		sortSamples(st)
	}
	sort.Slice(h.series, func(i, j int) bool { return h.series[i].metric.key() < h.series[j].metric.key() })
	for _, st := range h.series {
		name := st.metric["__name__"]
		h.byName[name] = append(h.byName[name], st)
	}
	return nil
}

// sortSamples orders samples by time; of duplicates the last one wins.
func sortSamples(st *storedSeries) {
	idx := make([]int, len(st.t))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return st.t[idx[a]] < st.t[idx[b]] })
	t := make([]int64, 0, len(idx))
	v := make([]float64, 0, len(idx))
	for _, i := range idx {
		if n := len(t); n > 0 && t[n-1] == st.t[i] {
			v[n-1] = st.v[i]
			continue
		}
		t = append(t, st.t[i])
		v = append(v, st.v[i])
	}
	st.t, st.v = t, v
}

// sampleTime reads unix seconds (a JSON number or string) as milliseconds.
func sampleTime(x any) (int64, error) {
	var f float64
	switch v := x.(type) {
	case float64:
		f = v
	case json.Number:
		var err error
		if f, err = v.Float64(); err != nil {
			return 0, fmt.Errorf("timestamp %q: %w", v, err)
		}
	case string:
		var err error
		if f, err = strconv.ParseFloat(v, 64); err != nil {
			return 0, fmt.Errorf("timestamp %q is not unix seconds", v)
		}
	default:
		return 0, fmt.Errorf("timestamp %v is not unix seconds", x)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("timestamp %v is not finite", f)
	}
	return int64(math.Round(f * 1000)), nil
}

func sampleValue(x any) (float64, error) {
	switch v := x.(type) {
	case string:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, fmt.Errorf("value %q is not a float", v)
		}
		return f, nil
	case float64:
		return v, nil
	case json.Number:
		return v.Float64()
	}
	return 0, fmt.Errorf("value %v is not a float", x)
}

func (h *Handler) routes() {
	mux := http.NewServeMux()
	for _, m := range []string{"GET ", "POST "} {
		mux.HandleFunc(m+"/api/v1/query", h.query)
		mux.HandleFunc(m+"/api/v1/query_range", h.queryRange)
		mux.HandleFunc(m+"/api/v1/series", h.seriesAPI)
		mux.HandleFunc(m+"/api/v1/labels", h.labels)
	}
	mux.HandleFunc("GET /api/v1/label/{name}/values", h.labelValues)
	mux.HandleFunc("GET /api/v1/metadata", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		h.success(w, r, map[string]any{}, map[string]any{"metrics": 0})
	})
	mux.HandleFunc("GET /api/v1/status/buildinfo", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		h.success(w, r, map[string]string{
			"version": "3.5.0", "revision": "simulator", "branch": "", "buildUser": "", "buildDate": "", "goVersion": "",
		}, nil)
	})
	mux.HandleFunc("GET /api/v1/query_exemplars", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		h.success(w, r, []any{}, nil)
	})
	for _, p := range []string{"GET /-/healthy", "GET /-/ready"} {
		mux.HandleFunc(p, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = w.Write([]byte("Prometheus Server is Ready.\n"))
		})
	}
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

// API errors.
type apiError struct {
	typ  string // bad_data, execution
	code int
	err  error
}

func badData(format string, args ...any) *apiError {
	return &apiError{typ: "bad_data", code: http.StatusBadRequest, err: fmt.Errorf(format, args...)}
}

func (h *Handler) record(r *http.Request, summary map[string]any) {
	params := map[string]any{}
	for k, v := range r.Form {
		if len(v) == 1 {
			params[k] = v[0]
		} else {
			params[k] = v
		}
	}
	h.opts.Transcript.Record(ServiceName, r.Method+" "+r.URL.Path, params, summary)
	h.log.Debug("prometheus call", "method", r.Method, "path", r.URL.Path, "status", summary["status"])
}

// response is the API envelope, fields in Prometheus' order.
type response struct {
	Status    string `json:"status"`
	Data      any    `json:"data,omitempty"`
	ErrorType string `json:"errorType,omitempty"`
	Error     string `json:"error,omitempty"`
}

func (h *Handler) fail(w http.ResponseWriter, r *http.Request, e *apiError) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.code)
	_ = json.NewEncoder(w).Encode(response{Status: "error", ErrorType: e.typ, Error: e.err.Error()})
	h.record(r, map[string]any{"status": e.code, "errorType": e.typ, "error": e.err.Error()})
}

func (h *Handler) success(w http.ResponseWriter, r *http.Request, data any, summary map[string]any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(response{Status: "success", Data: data})
	if summary == nil {
		summary = map[string]any{}
	}
	summary["status"] = http.StatusOK
	h.record(r, summary)
}

// parseTime accepts float unix seconds or RFC 3339, like Prometheus.
func parseTime(s string) (time.Time, error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
		sec, frac := math.Modf(f)
		frac = math.Round(frac*1000) / 1000
		return time.Unix(int64(sec), int64(frac*float64(time.Second))).UTC(), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("cannot parse %q to a valid timestamp", s)
}

// parseStep accepts float seconds or a Prometheus duration.
func parseStep(s string) (time.Duration, error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		ts := f * float64(time.Second)
		if ts > float64(math.MaxInt64) || ts < float64(math.MinInt64) {
			return 0, fmt.Errorf("cannot parse %q to a valid duration. It overflows int64", s)
		}
		return time.Duration(ts), nil
	}
	if d, err := parseDurationLit(s); err == nil {
		return d, nil
	}
	return 0, fmt.Errorf("cannot parse %q to a valid duration", s)
}

func (h *Handler) parseQuery(r *http.Request) (Node, *apiError) {
	q := r.Form.Get("query")
	n, err := ParseExpr(q)
	if err != nil {
		return nil, badData("invalid parameter \"query\": %w", err)
	}
	return n, nil
}

func (h *Handler) query(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		h.fail(w, r, badData("error parsing form values: %w", err))
		return
	}
	ts := h.now()
	if v := r.Form.Get("time"); v != "" {
		t, err := parseTime(v)
		if err != nil {
			h.fail(w, r, badData("invalid parameter \"time\": %w", err))
			return
		}
		ts = t
	}
	n, apiErr := h.parseQuery(r)
	if apiErr != nil {
		h.fail(w, r, apiErr)
		return
	}
	ms := ts.UnixMilli()
	ev := &evaluator{db: h, start: ms, end: ms, selected: map[*VectorSelector][]*storedSeries{}}
	v, err := ev.eval(n, ms)
	if err != nil {
		h.fail(w, r, &apiError{typ: "execution", code: http.StatusUnprocessableEntity, err: err})
		return
	}
	switch x := v.(type) {
	case Scalar:
		h.success(w, r, queryData{ResultType: "scalar", Result: pointJSON(ms, x.V)}, map[string]any{"resultType": "scalar"})
	case String:
		h.success(w, r, queryData{ResultType: "string", Result: []any{timestampJSON(ms), x.V}}, map[string]any{"resultType": "string"})
	case Vector:
		if !keepsOrder(n) {
			sortVector(x)
		}
		out := make([]sampleJSON, len(x))
		for i, s := range x {
			out[i] = sampleJSON{Metric: metricJSON(s.Metric), Value: pointJSON(ms, s.F)}
		}
		h.success(w, r, queryData{ResultType: "vector", Result: out}, map[string]any{"resultType": "vector", "series": len(out)})
	case Matrix:
		h.writeMatrix(w, r, x)
	}
}

func (h *Handler) queryRange(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		h.fail(w, r, badData("error parsing form values: %w", err))
		return
	}
	start, err := parseTime(r.Form.Get("start"))
	if err != nil {
		h.fail(w, r, badData("invalid parameter \"start\": %w", err))
		return
	}
	end, err := parseTime(r.Form.Get("end"))
	if err != nil {
		h.fail(w, r, badData("invalid parameter \"end\": %w", err))
		return
	}
	if end.Before(start) {
		h.fail(w, r, badData("end timestamp must not be before start time"))
		return
	}
	step, err := parseStep(r.Form.Get("step"))
	if err != nil {
		h.fail(w, r, badData("invalid parameter \"step\": %w", err))
		return
	}
	if step <= 0 {
		h.fail(w, r, badData("zero or negative query resolution step widths are not accepted. Try a positive integer"))
		return
	}
	if end.Sub(start)/step > maxPoints {
		h.fail(w, r, badData("exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)"))
		return
	}
	n, apiErr := h.parseQuery(r)
	if apiErr != nil {
		h.fail(w, r, apiErr)
		return
	}
	if t := n.Type(); t != TypeVector && t != TypeScalar {
		h.fail(w, r, badData("invalid expression type %q for range query, must be Scalar or instant Vector", t))
		return
	}
	s, e, st := start.UnixMilli(), end.UnixMilli(), step.Milliseconds()
	if st == 0 {
		st = 1
	}
	ev := &evaluator{db: h, start: s, end: e, selected: map[*VectorSelector][]*storedSeries{}}
	byKey := map[string]*Series{}
	for ts := s; ts <= e; ts += st {
		v, err := ev.eval(n, ts)
		if err != nil {
			h.fail(w, r, &apiError{typ: "execution", code: http.StatusUnprocessableEntity, err: err})
			return
		}
		vec, ok := v.(Vector)
		if sc, isScalar := v.(Scalar); isScalar {
			vec, ok = Vector{{Metric: Labels{}, F: sc.V}}, true
		}
		if !ok {
			h.fail(w, r, &apiError{typ: "execution", code: http.StatusUnprocessableEntity, err: errors.New("unexpected value type in range query")})
			return
		}
		for _, smp := range vec {
			k := smp.Metric.key()
			ser, ok := byKey[k]
			if !ok {
				ser = &Series{Metric: smp.Metric}
				byKey[k] = ser
			}
			ser.Points = append(ser.Points, Point{T: ts, F: smp.F})
		}
	}
	m := make(Matrix, 0, len(byKey))
	for _, ser := range byKey {
		m = append(m, *ser)
	}
	h.writeMatrix(w, r, m)
}

type sampleJSON struct {
	Metric map[string]string `json:"metric"`
	Value  []any             `json:"value,omitempty"`
	Values [][]any           `json:"values,omitempty"`
}

type queryData struct {
	ResultType string `json:"resultType"`
	Result     any    `json:"result"`
}

func (h *Handler) writeMatrix(w http.ResponseWriter, r *http.Request, m Matrix) {
	sort.Slice(m, func(i, j int) bool { return m[i].Metric.key() < m[j].Metric.key() })
	out := make([]sampleJSON, len(m))
	points := 0
	for i, s := range m {
		vals := make([][]any, len(s.Points))
		for j, p := range s.Points {
			vals[j] = pointJSON(p.T, p.F)
		}
		points += len(vals)
		out[i] = sampleJSON{Metric: metricJSON(s.Metric), Values: vals}
	}
	h.success(w, r, queryData{ResultType: "matrix", Result: out}, map[string]any{"resultType": "matrix", "series": len(out), "points": points})
}

// keepsOrder reports whether the outermost function orders its output.
func keepsOrder(n Node) bool {
	for {
		p, ok := n.(*ParenExpr)
		if !ok {
			break
		}
		n = p.Expr
	}
	c, ok := n.(*Call)
	return ok && (c.Func.name == "sort" || c.Func.name == "sort_desc")
}

func sortVector(v Vector) {
	sort.SliceStable(v, func(i, j int) bool { return v[i].Metric.key() < v[j].Metric.key() })
}

func metricJSON(l Labels) map[string]string {
	if l == nil {
		return map[string]string{}
	}
	return l
}

// timestampJSON renders milliseconds as Prometheus does: seconds with a
// three-digit fraction when it is not zero.
func timestampJSON(ms int64) json.Number {
	sign := ""
	if ms < 0 {
		sign, ms = "-", -ms
	}
	s := sign + strconv.FormatInt(ms/1000, 10)
	if frac := ms % 1000; frac != 0 {
		s += fmt.Sprintf(".%03d", frac)
	}
	return json.Number(s)
}

func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func pointJSON(ms int64, f float64) []any { return []any{timestampJSON(ms), formatFloat(f)} }

// Metadata endpoints.

// matchedSeries returns the series that have a sample in [start, end] and
// match one of the selectors (all series without selectors).
func (h *Handler) matchedSeries(r *http.Request, selectors []string, required bool) ([]*storedSeries, *apiError) {
	if required && len(selectors) == 0 {
		return nil, badData("no match[] parameter provided")
	}
	start, end := int64(math.MinInt64), int64(math.MaxInt64)
	if v := r.Form.Get("start"); v != "" {
		t, err := parseTime(v)
		if err != nil {
			return nil, badData("invalid parameter \"start\": %w", err)
		}
		start = t.UnixMilli()
	}
	if v := r.Form.Get("end"); v != "" {
		t, err := parseTime(v)
		if err != nil {
			return nil, badData("invalid parameter \"end\": %w", err)
		}
		end = t.UnixMilli()
	}
	var sels []*VectorSelector
	for _, s := range selectors {
		n, err := ParseExpr(s)
		if err != nil {
			return nil, badData("invalid parameter \"match[]\": %w", err)
		}
		vs, ok := n.(*VectorSelector)
		if !ok {
			return nil, badData("invalid parameter \"match[]\": 1:1: parse error: expected type instant vector in selector, got %s", n.Type())
		}
		sels = append(sels, vs)
	}
	var out []*storedSeries
	for _, s := range h.series {
		lo := sort.Search(len(s.t), func(i int) bool { return s.t[i] >= start })
		if lo >= len(s.t) || s.t[lo] > end {
			continue
		}
		if len(sels) == 0 {
			out = append(out, s)
			continue
		}
		for _, vs := range sels {
			ok := true
			for _, m := range vs.Matchers {
				if !m.Matches(s.metric[m.Name]) {
					ok = false
					break
				}
			}
			if ok {
				out = append(out, s)
				break
			}
		}
	}
	return out, nil
}

func (h *Handler) seriesAPI(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		h.fail(w, r, badData("error parsing form values: %w", err))
		return
	}
	ss, apiErr := h.matchedSeries(r, r.Form["match[]"], true)
	if apiErr != nil {
		h.fail(w, r, apiErr)
		return
	}
	data := make([]map[string]string, len(ss))
	for i, s := range ss {
		data[i] = s.metric
	}
	h.success(w, r, data, map[string]any{"series": len(data)})
}

func (h *Handler) labels(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		h.fail(w, r, badData("error parsing form values: %w", err))
		return
	}
	ss, apiErr := h.matchedSeries(r, r.Form["match[]"], false)
	if apiErr != nil {
		h.fail(w, r, apiErr)
		return
	}
	set := map[string]bool{}
	for _, s := range ss {
		for k := range s.metric {
			set[k] = true
		}
	}
	names := sortedSet(set)
	h.success(w, r, names, map[string]any{"labels": len(names)})
}

func (h *Handler) labelValues(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		h.fail(w, r, badData("error parsing form values: %w", err))
		return
	}
	name := r.PathValue("name")
	if strings.HasPrefix(name, "U__") {
		name = unescapeLabelName(name)
	}
	if name == "" || strings.ContainsAny(name, "{}\"") {
		h.fail(w, r, badData("invalid label name: %q", name))
		return
	}
	ss, apiErr := h.matchedSeries(r, r.Form["match[]"], false)
	if apiErr != nil {
		h.fail(w, r, apiErr)
		return
	}
	set := map[string]bool{}
	for _, s := range ss {
		if v, ok := s.metric[name]; ok {
			set[v] = true
		}
	}
	vals := sortedSet(set)
	h.success(w, r, vals, map[string]any{"values": len(vals)})
}

// unescapeLabelName decodes Prometheus' U__ escaping of UTF-8 label names
// in the label values path (U__ prefix, _XX_ hex code points, __ for _).
func unescapeLabelName(s string) string {
	s = strings.TrimPrefix(s, "U__")
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '_' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '_' {
			b.WriteByte('_')
			i++
			continue
		}
		end := strings.IndexByte(s[i+1:], '_')
		if end < 0 {
			return ""
		}
		code, err := strconv.ParseUint(s[i+1:i+1+end], 16, 32)
		if err != nil {
			return ""
		}
		b.WriteRune(rune(code))
		i += end + 1
	}
	return b.String()
}

func sortedSet(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
