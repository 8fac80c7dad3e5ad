// Package loki simulates Loki's HTTP query API over a scenario's log
// streams: /loki/api/v1/query_range, /query, /labels, /label/{name}/values,
// /series and, when enabled, Loki 3's /patterns, with a LogQL subset implemented by a real parser (stream
// selectors, line filters, json/logfmt/regexp parsers, label filters,
// line_format, drop/keep, count_over_time/rate/bytes_over_time/bytes_rate,
// vector aggregations and binary operations).
//
// Behaviour follows Loki: timestamps accept nanosecond epochs, seconds (up
// to 10 digits or with a fraction) and RFC 3339; log queries return the
// newest limit entries for direction=backward (the default) over
// [start, end); metric range windows are (t-range, t]; parse errors answer
// 400 with Loki's "parse error ..." text; a log query on the instant
// endpoint is rejected as Loki 3 does.
package loki

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
const ServiceName = "loki"

const (
	defaultLimit      = 100
	defaultMaxEntries = 5000 // Loki's max_entries_limit_per_query default
	defaultQueryRange = time.Hour
	defaultLabelRange = 6 * time.Hour
	maxPoints         = 11000
)

// Options configure the simulator.
type Options struct {
	// Now is the simulated clock for parameters that default to the
	// current time. Zero means the wall clock.
	Now time.Time
	// MaxEntriesLimit caps the limit parameter (default 5000, as Loki).
	MaxEntriesLimit int
	// Transcript records every call; nil records nothing.
	Transcript *sim.Transcript
	// Logger receives debug lines; nil discards them.
	Logger *slog.Logger
	// Patterns serves /loki/api/v1/patterns, as Loki 3 does with the
	// pattern ingester enabled; off (the default), the route is a 404.
	Patterns bool
}

// Handler serves the Loki query API. It is immutable after New and safe
// for concurrent use.
type Handler struct {
	opts    Options
	log     *slog.Logger
	mux     *http.ServeMux
	streams []*stream // sorted by label key
}

// New indexes the streams (nil means no logs) and returns the handler.
func New(logs *scenario.Logs, opts Options) (*Handler, error) {
	if opts.MaxEntriesLimit <= 0 {
		opts.MaxEntriesLimit = defaultMaxEntries
	}
	h := &Handler{opts: opts, log: opts.Logger}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	if logs != nil {
		if err := h.index(logs); err != nil {
			return nil, err
		}
	}
	h.routes()
	return h, nil
}

func (h *Handler) index(logs *scenario.Logs) error {
	byKey := map[string]*stream{}
	for i, s := range logs.Streams {
		if len(s.Stream) == 0 {
			return fmt.Errorf("stream %d: no labels", i)
		}
		key := labelsKey(s.Stream)
		st, ok := byKey[key]
		if !ok {
			lbls := make(map[string]string, len(s.Stream))
			for k, v := range s.Stream {
				lbls[k] = v
			}
			st = &stream{labels: lbls, key: key}
			byKey[key] = st
			h.streams = append(h.streams, st)
		}
		for j, v := range s.Values {
			if len(v) < 2 {
				return fmt.Errorf("stream %s value %d: want [timestamp, line], got %d elements", key, j, len(v))
			}
			ts, err := strconv.ParseInt(v[0], 10, 64)
			if err != nil {
				return fmt.Errorf("stream %s value %d: timestamp %q is not nanoseconds: %w", key, j, v[0], err)
			}
			st.entries = append(st.entries, entry{ts: ts, line: v[1]})
		}
	}
	for _, st := range h.streams {
		sort.SliceStable(st.entries, func(a, b int) bool { return st.entries[a].ts < st.entries[b].ts })
	}
	sort.Slice(h.streams, func(a, b int) bool { return h.streams[a].key < h.streams[b].key })
	return nil
}

func (h *Handler) routes() {
	mux := http.NewServeMux()
	for _, m := range []string{"GET ", "POST "} {
		mux.HandleFunc(m+"/loki/api/v1/query_range", h.queryRange)
		mux.HandleFunc(m+"/loki/api/v1/query", h.queryInstant)
		mux.HandleFunc(m+"/loki/api/v1/labels", h.labels)
		mux.HandleFunc(m+"/loki/api/v1/label", h.labels)
		mux.HandleFunc(m+"/loki/api/v1/series", h.series)
		mux.HandleFunc(m+"/loki/api/v1/patterns", h.patterns)
	}
	mux.HandleFunc("GET /loki/api/v1/label/{name}/values", h.labelValues)
	mux.HandleFunc("GET /loki/api/v1/status/buildinfo", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]string{"version": "3.4.2", "revision": "simulator", "branch": "", "buildUser": "", "buildDate": "", "goVersion": ""})
		h.record(r, http.StatusOK, nil)
	})
	mux.HandleFunc("GET /ready", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ready\n"))
	})
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

func (h *Handler) record(r *http.Request, status int, summary map[string]any) {
	if summary == nil {
		summary = map[string]any{}
	}
	summary["status"] = status
	h.opts.Transcript.Record(ServiceName, r.Method+" "+r.URL.Path, sim.FormParams(r.Form), summary)
	h.log.Debug("loki call", "method", r.Method, "path", r.URL.Path, "status", status)
}

// fail writes Loki's plain-text error.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, code int, err error) {
	http.Error(w, err.Error(), code)
	h.record(r, code, map[string]any{"error": err.Error()})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(v)
}

// parseTime follows Loki: empty -> def; a value with a fraction is float
// seconds; an integer of up to 10 digits is seconds, longer is
// nanoseconds; otherwise RFC 3339.
func parseTime(v string, def time.Time) (time.Time, error) {
	if v == "" {
		return def, nil
	}
	if strings.Contains(v, ".") {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			s, frac := math.Modf(f)
			frac = math.Round(frac*1000) / 1000
			return time.Unix(int64(s), int64(frac*float64(time.Second))), nil
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
			return t, nil
		}
		return time.Time{}, fmt.Errorf("cannot parse %q to a valid timestamp", v)
	}
	if len(strings.TrimPrefix(v, "-")) <= 10 {
		return time.Unix(n, 0), nil
	}
	return time.Unix(0, n), nil
}

// parseStep accepts a duration (30s, 1m) or float seconds.
func parseStep(v string) (time.Duration, error) {
	if d, err := parseDuration(v); err == nil {
		return d, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("cannot parse %q to a valid duration", v)
	}
	return time.Duration(f * float64(time.Second)), nil
}

type rangeParams struct {
	expr       Expr
	start, end time.Time
	limit      int
	forward    bool
	step       time.Duration
}

var errLogInstant = errors.New("log queries are not supported as an instant query type, please change your query to a range query type")

func (h *Handler) parseCommon(r *http.Request) (Expr, int, bool, error) {
	if err := r.ParseForm(); err != nil {
		return nil, 0, false, err
	}
	q := r.Form.Get("query")
	expr, err := Parse(q)
	if err != nil {
		return nil, 0, false, err
	}
	limit := defaultLimit
	if v := r.Form.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, 0, false, fmt.Errorf("invalid parameter \"limit\": %q is not an integer", v)
		}
		limit = n
	}
	if limit <= 0 {
		return nil, 0, false, errors.New("limit must be a positive value")
	}
	if limit > h.opts.MaxEntriesLimit {
		return nil, 0, false, fmt.Errorf("max entries limit per query exceeded, limit > max_entries_limit (%d > %d)", limit, h.opts.MaxEntriesLimit)
	}
	forward := false
	switch strings.ToLower(r.Form.Get("direction")) {
	case "", "backward":
	case "forward":
		forward = true
	default:
		return nil, 0, false, fmt.Errorf("invalid direction %q: must be forward or backward", r.Form.Get("direction"))
	}
	return expr, limit, forward, nil
}

func (h *Handler) queryRange(w http.ResponseWriter, r *http.Request) {
	p, err := h.parseRange(r)
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, err)
		return
	}
	st := &execStats{started: time.Now()}
	if sel, ok := p.expr.(*LogSelector); ok {
		streams := h.selectLogs(sel, p.start.UnixNano(), p.end.UnixNano(), p.forward, p.limit, st)
		h.writeStreams(w, r, streams, st)
		return
	}
	ev := &evaluator{h: h, from: p.start.UnixNano(), to: p.end.UnixNano(), st: st, cache: map[*RangeAggregation][]*windowed{}}
	all := map[string]*series{}
	for t := p.start.UnixNano(); t <= p.end.UnixNano(); t += int64(p.step) {
		v, err := ev.eval(p.expr, t)
		if err != nil {
			h.fail(w, r, http.StatusBadRequest, err)
			return
		}
		if v.isScalar { // a scalar over a range is a one-series matrix
			v.vec = []sample{{labels: map[string]string{}, key: "{}", v: v.scalar}}
		}
		for _, s := range v.vec {
			ser, ok := all[s.key]
			if !ok {
				ser = &series{labels: s.labels, key: s.key}
				all[s.key] = ser
			}
			ser.points = append(ser.points, point{ts: t, v: s.v})
		}
	}
	h.writeMatrix(w, r, all, st)
}

func (h *Handler) parseRange(r *http.Request) (rangeParams, error) {
	var p rangeParams
	var err error
	if p.expr, p.limit, p.forward, err = h.parseCommon(r); err != nil {
		return p, err
	}
	now := h.now()
	if p.end, err = parseTime(r.Form.Get("end"), now); err != nil {
		return p, fmt.Errorf("invalid parameter \"end\": %w", err)
	}
	defStart := p.end.Add(-defaultQueryRange)
	if v := r.Form.Get("since"); v != "" {
		d, err := parseDuration(v)
		if err != nil {
			return p, fmt.Errorf("invalid parameter \"since\": %w", err)
		}
		defStart = p.end.Add(-d)
	}
	if p.start, err = parseTime(r.Form.Get("start"), defStart); err != nil {
		return p, fmt.Errorf("invalid parameter \"start\": %w", err)
	}
	if p.end.Before(p.start) {
		return p, errors.New("end timestamp must not be before or equal to start time")
	}
	if v := r.Form.Get("step"); v != "" {
		if p.step, err = parseStep(v); err != nil {
			return p, fmt.Errorf("invalid parameter \"step\": %w", err)
		}
		if p.step <= 0 {
			return p, errors.New("zero or negative query resolution step widths are not accepted. Try a positive integer")
		}
	} else {
		// Loki's default: about 250 points, at least a second.
		secs := math.Max(math.Floor(p.end.Sub(p.start).Seconds()/250), 1)
		p.step = time.Duration(secs) * time.Second
	}
	if _, isLog := p.expr.(*LogSelector); !isLog && p.end.Sub(p.start)/p.step > maxPoints {
		return p, errors.New("exceeded maximum resolution of 11,000 points per timeseries. Try increasing the value of the step parameter")
	}
	return p, nil
}

func (h *Handler) queryInstant(w http.ResponseWriter, r *http.Request) {
	expr, _, _, err := h.parseCommon(r)
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, err)
		return
	}
	t, err := parseTime(r.Form.Get("time"), h.now())
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, fmt.Errorf("invalid parameter \"time\": %w", err))
		return
	}
	if _, isLog := expr.(*LogSelector); isLog {
		h.fail(w, r, http.StatusBadRequest, errLogInstant)
		return
	}
	st := &execStats{started: time.Now()}
	ev := &evaluator{h: h, from: t.UnixNano(), to: t.UnixNano(), st: st, cache: map[*RangeAggregation][]*windowed{}}
	v, err := ev.eval(expr, t.UnixNano())
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, err)
		return
	}
	if v.isScalar {
		writeJSON(w, map[string]any{"status": "success", "data": map[string]any{
			"resultType": "scalar", "result": []any{unixSeconds(t.UnixNano()), formatValue(v.scalar)}, "stats": statsJSON(st),
		}})
		h.record(r, http.StatusOK, map[string]any{"resultType": "scalar"})
		return
	}
	sort.Slice(v.vec, func(i, j int) bool { return v.vec[i].key < v.vec[j].key })
	result := make([]map[string]any, len(v.vec))
	for i, s := range v.vec {
		result[i] = map[string]any{"metric": s.labels, "value": []any{unixSeconds(t.UnixNano()), formatValue(s.v)}}
	}
	writeJSON(w, map[string]any{"status": "success", "data": map[string]any{
		"resultType": "vector", "result": result, "stats": statsJSON(st),
	}})
	h.record(r, http.StatusOK, map[string]any{"resultType": "vector", "series": len(result)})
}

func (h *Handler) writeStreams(w http.ResponseWriter, r *http.Request, streams []resultStream, st *execStats) {
	type jsonStream struct {
		Stream map[string]string `json:"stream"`
		Values [][2]string       `json:"values"`
	}
	result := make([]jsonStream, len(streams))
	for i, s := range streams {
		vals := make([][2]string, len(s.entries))
		for j, e := range s.entries {
			vals[j] = [2]string{strconv.FormatInt(e.ts, 10), e.line}
		}
		lbls := s.labels
		if lbls == nil {
			lbls = map[string]string{}
		}
		result[i] = jsonStream{Stream: lbls, Values: vals}
	}
	writeJSON(w, map[string]any{"status": "success", "data": map[string]any{
		"resultType": "streams", "result": result, "stats": statsJSON(st),
	}})
	h.record(r, http.StatusOK, map[string]any{"resultType": "streams", "streams": len(result), "entries": st.entriesOut})
}

func (h *Handler) writeMatrix(w http.ResponseWriter, r *http.Request, all map[string]*series, st *execStats) {
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	result := make([]map[string]any, len(keys))
	points := 0
	for i, k := range keys {
		s := all[k]
		vals := make([][]any, len(s.points))
		for j, p := range s.points {
			vals[j] = []any{unixSeconds(p.ts), formatValue(p.v)}
		}
		points += len(vals)
		result[i] = map[string]any{"metric": s.labels, "values": vals}
	}
	writeJSON(w, map[string]any{"status": "success", "data": map[string]any{
		"resultType": "matrix", "result": result, "stats": statsJSON(st),
	}})
	h.record(r, http.StatusOK, map[string]any{"resultType": "matrix", "series": len(result), "points": points})
}

// statsJSON is the summary part of Loki's query statistics.
func statsJSON(st *execStats) map[string]any {
	exec := time.Since(st.started).Seconds()
	perSec := func(n int) int64 {
		if exec <= 0 {
			return 0
		}
		return int64(float64(n) / exec)
	}
	return map[string]any{"summary": map[string]any{
		"bytesProcessedPerSecond": perSec(st.bytesProcessed),
		"linesProcessedPerSecond": perSec(st.linesProcessed),
		"totalBytesProcessed":     st.bytesProcessed,
		"totalLinesProcessed":     st.linesProcessed,
		"totalEntriesReturned":    st.entriesOut,
		"totalPostFilterLines":    st.entriesOut,
		"execTime":                exec,
		"queueTime":               0,
		"subqueries":              0,
		"splits":                  0,
		"shards":                  0,
	}}
}

// unixSeconds renders a nanosecond timestamp as Prometheus-style float
// seconds with millisecond precision.
func unixSeconds(ns int64) json.Number {
	ms := ns / int64(time.Millisecond)
	s, rem := ms/1000, ms%1000
	if rem == 0 {
		return json.Number(strconv.FormatInt(s, 10))
	}
	frac := strings.TrimRight(fmt.Sprintf("%03d", rem), "0")
	return json.Number(strconv.FormatInt(s, 10) + "." + frac)
}

func formatValue(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// Label endpoints.

// selectedStreams returns the streams with an entry in [start, end] that
// match the optional selectors.
func (h *Handler) selectedStreams(r *http.Request, selectors []string) ([]*stream, error) {
	now := h.now()
	end, err := parseTime(r.Form.Get("end"), now)
	if err != nil {
		return nil, fmt.Errorf("invalid parameter \"end\": %w", err)
	}
	defStart := end.Add(-defaultLabelRange)
	if v := r.Form.Get("since"); v != "" {
		d, err := parseDuration(v)
		if err != nil {
			return nil, fmt.Errorf("invalid parameter \"since\": %w", err)
		}
		defStart = end.Add(-d)
	}
	start, err := parseTime(r.Form.Get("start"), defStart)
	if err != nil {
		return nil, fmt.Errorf("invalid parameter \"start\": %w", err)
	}
	var sels [][]*Matcher
	for _, s := range selectors {
		if s == "" {
			continue
		}
		e, err := Parse(s)
		if err != nil {
			return nil, err
		}
		sel, ok := e.(*LogSelector)
		if !ok || len(sel.Stages) > 0 {
			return nil, errors.New("only label matchers are supported")
		}
		sels = append(sels, sel.Matchers)
	}
	var out []*stream
	for _, s := range h.streams {
		if len(window(s.entries, start.UnixNano(), end.UnixNano()+1)) == 0 {
			continue
		}
		if len(sels) == 0 {
			out = append(out, s)
			continue
		}
		for _, ms := range sels {
			if matchesAll(ms, s.labels) {
				out = append(out, s)
				break
			}
		}
	}
	return out, nil
}

func (h *Handler) labels(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	streams, err := h.selectedStreams(r, []string{r.Form.Get("query")})
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, err)
		return
	}
	set := map[string]bool{}
	for _, s := range streams {
		for k := range s.labels {
			set[k] = true
		}
	}
	names := sortedKeys(set)
	writeJSON(w, map[string]any{"status": "success", "data": names})
	h.record(r, http.StatusOK, map[string]any{"labels": len(names)})
}

func (h *Handler) labelValues(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	name := r.PathValue("name")
	streams, err := h.selectedStreams(r, []string{r.Form.Get("query")})
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, err)
		return
	}
	set := map[string]bool{}
	for _, s := range streams {
		if v, ok := s.labels[name]; ok {
			set[v] = true
		}
	}
	values := sortedKeys(set)
	writeJSON(w, map[string]any{"status": "success", "data": values})
	h.record(r, http.StatusOK, map[string]any{"values": len(values)})
}

func (h *Handler) series(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	matches := r.Form["match[]"]
	if len(matches) == 0 {
		matches = r.Form["match"]
	}
	streams, err := h.selectedStreams(r, matches)
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, err)
		return
	}
	data := make([]map[string]string, len(streams))
	for i, s := range streams {
		data[i] = s.labels
	}
	writeJSON(w, map[string]any{"status": "success", "data": data})
	h.record(r, http.StatusOK, map[string]any{"series": len(data)})
}

func sortedKeys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
