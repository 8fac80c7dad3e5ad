// Package prom simulates the Prometheus HTTP API over a scenario's raw
// samples: /api/v1/query, /query_range, /series, /labels,
// /label/{name}/values, /metadata and /status/buildinfo.
//
// PromQL is parsed and evaluated by Prometheus' own engine
// (github.com/prometheus/prometheus/promql, configured as a default server:
// 5m lookback delta, @ and negative offsets on, experimental functions
// off), over an in-memory storage that keeps the samples in Prometheus'
// XOR chunks. The handlers follow web/api/v1: the same parameters, error
// types and status codes (bad_data 400 for a query that does not parse,
// execution 422 for one that fails), warnings and infos from the engine's
// annotations, and the same JSON bytes.
//
// Scenario samples carry no staleness markers unless Options.StaleMarkers
// adds the ones scraping would have written. Native histograms do not
// exist here: scenarios hold float samples.
package prom

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/timestamp"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/prometheus/prometheus/storage"

	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sim"
)

// ServiceName is the transcript service name of this simulator.
const ServiceName = "prometheus"

// Defaults of the prometheus server's query flags.
const (
	lookbackDelta   = 5 * time.Minute // --query.lookback-delta
	queryTimeout    = 2 * time.Minute // --query.timeout
	queryMaxSamples = 50_000_000      // --query.max-samples
	evalInterval    = time.Minute     // global evaluation_interval: the step of a subquery without one
)

// Options configure the simulator.
type Options struct {
	// Now is the simulated clock for instant queries without "time".
	// Zero means the wall clock.
	Now time.Time
	// Transcript records every call; nil records nothing.
	Transcript *sim.Transcript
	// Logger receives debug lines; nil discards them.
	Logger *slog.Logger
	// StaleMarkers ends every run of samples with a staleness marker, as a
	// scraping Prometheus does when a series disappears; without it a
	// series that ends stays visible for the 5m lookback delta, as data
	// imported with promtool does.
	StaleMarkers bool
}

// Handler serves the Prometheus API. It is immutable after New and safe for
// concurrent use.
type Handler struct {
	opts   Options
	log    *slog.Logger
	mux    *http.ServeMux
	store  *memStorage
	parser parser.Parser
	engine *promql.Engine
}

// New loads the samples (nil means no metrics) and returns the handler.
func New(metrics *scenario.Metrics, opts Options) (*Handler, error) {
	h := &Handler{opts: opts, log: opts.Logger, parser: parser.NewParser(parser.Options{})}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	var err error
	if h.store, err = newMemStorage(metrics, opts.StaleMarkers); err != nil {
		return nil, err
	}
	h.engine = promql.NewEngine(promql.EngineOpts{
		Logger:                   h.log,
		MaxSamples:               queryMaxSamples,
		Timeout:                  queryTimeout,
		LookbackDelta:            lookbackDelta,
		NoStepSubqueryIntervalFn: func(int64) int64 { return evalInterval.Milliseconds() },
		EnableAtModifier:         true,
		EnableNegativeOffset:     true,
		Parser:                   h.parser,
	})
	h.routes()
	return h, nil
}

func (h *Handler) routes() {
	mux := http.NewServeMux()
	for _, m := range []string{"GET ", "POST "} {
		mux.HandleFunc(m+"/api/v1/query", h.api(h.query))
		mux.HandleFunc(m+"/api/v1/query_range", h.api(h.queryRange))
		mux.HandleFunc(m+"/api/v1/series", h.api(h.series))
		mux.HandleFunc(m+"/api/v1/labels", h.api(h.labelNames))
		mux.HandleFunc(m+"/api/v1/query_exemplars", h.api(func(*http.Request) result { return result{data: []any{}} }))
	}
	mux.HandleFunc("GET /api/v1/label/{name}/values", h.api(h.labelValues))
	mux.HandleFunc("GET /api/v1/metadata", h.api(func(*http.Request) result { return result{data: map[string]any{}} }))
	mux.HandleFunc("GET /api/v1/status/buildinfo", h.api(func(*http.Request) result { return result{data: buildInfo()} }))
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

// Error types of web/api/v1 and their status codes.
const (
	errBadData   = "bad_data"
	errExec      = "execution"
	errCanceled  = "canceled"
	errTimeout   = "timeout"
	errInternal  = "internal"
	errCostLimit = "cost_limit"
)

var errorStatus = map[string]int{
	errBadData: http.StatusBadRequest, errExec: http.StatusUnprocessableEntity, errCostLimit: http.StatusUnprocessableEntity,
	errCanceled: 499, errTimeout: http.StatusServiceUnavailable, errInternal: http.StatusInternalServerError,
}

type apiError struct {
	typ string
	err error
}

// result is what an endpoint answers: data and annotations, or an error.
type result struct {
	data     any
	err      *apiError
	warnings []string
	infos    []string
	summary  map[string]any // for the transcript
}

func badData(err error) result { return result{err: &apiError{errBadData, err}} }

func invalidParam(err error, name string) result {
	return badData(fmt.Errorf("invalid parameter %q: %w", name, err))
}

// engineError maps an error of a running query as web/api/v1's returnAPIError.
func engineError(err error) *apiError {
	var (
		eqc   promql.ErrQueryCanceled
		eqt   promql.ErrQueryTimeout
		es    promql.ErrStorage
		etms  promql.ErrTooManySeries
		etmss promql.ErrTooManySamplesRead
	)
	switch {
	case errors.As(err, &eqc), errors.Is(err, context.Canceled):
		return &apiError{errCanceled, err}
	case errors.As(err, &eqt):
		return &apiError{errTimeout, err}
	case errors.As(err, &etms), errors.As(err, &etmss):
		return &apiError{errCostLimit, err}
	case errors.As(err, &es):
		return &apiError{errInternal, err}
	}
	return &apiError{errExec, err}
}

// constructionError maps an error building a query as web/api/v1's
// queryConstructionError: anything but a timeout or cancellation is a bad
// "query" parameter.
func constructionError(err error) *apiError {
	if _, ok := errors.AsType[promql.ErrQueryTimeout](err); ok {
		return engineError(err)
	}
	if _, ok := errors.AsType[promql.ErrQueryCanceled](err); ok {
		return engineError(err)
	}
	return &apiError{errBadData, fmt.Errorf("invalid parameter %q: %w", "query", err)}
}

// api wraps an endpoint: form parsing, encoding and the transcript.
func (h *Handler) api(f func(*http.Request) result) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var res result
		if err := r.ParseForm(); err != nil {
			res = badData(fmt.Errorf("error parsing form values: %w", err))
		} else {
			res = f(r)
		}
		summary := res.summary
		if summary == nil {
			summary = map[string]any{}
		}
		resp, code := response{Status: "success", Data: res.data, Warnings: res.warnings, Infos: res.infos}, http.StatusOK
		if res.err != nil {
			resp, code = response{Status: "error", ErrorType: res.err.typ, Error: res.err.err.Error()}, errorStatus[res.err.typ]
			summary = map[string]any{"errorType": res.err.typ, "error": res.err.err.Error()}
		}
		summary["status"] = code
		b, err := apiJSON.Marshal(&resp)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = w.Write(b)
		h.record(r, summary)
	}
}

func (h *Handler) record(r *http.Request, summary map[string]any) {
	h.opts.Transcript.Record(ServiceName, r.Method+" "+r.URL.Path, sim.FormParams(r.Form), summary)
	h.log.Debug("prometheus call", "method", r.Method, "path", r.URL.Path, "status", summary["status"])
}

// The query endpoints.

func (h *Handler) query(r *http.Request) result {
	limit, err := parseLimit(r.FormValue("limit"))
	if err != nil {
		return invalidParam(err, "limit")
	}
	ts := h.now()
	if v := r.FormValue("time"); v != "" {
		if ts, err = parseTime(v); err != nil {
			return invalidParam(fmt.Errorf("invalid time value for 'time': %w", err), "time")
		}
	}
	return h.run(r, limit, func(ctx context.Context, opts promql.QueryOpts) (promql.Query, error) {
		return h.engine.NewInstantQuery(ctx, h.store, opts, r.FormValue("query"), ts)
	})
}

func (h *Handler) queryRange(r *http.Request) result {
	limit, err := parseLimit(r.FormValue("limit"))
	if err != nil {
		return invalidParam(err, "limit")
	}
	start, err := parseTime(r.FormValue("start"))
	if err != nil {
		return invalidParam(err, "start")
	}
	end, err := parseTime(r.FormValue("end"))
	if err != nil {
		return invalidParam(err, "end")
	}
	if end.Before(start) {
		return invalidParam(errors.New("end timestamp must not be before start time"), "end")
	}
	step, err := parseDuration(r.FormValue("step"))
	if err != nil {
		return invalidParam(err, "step")
	}
	if step <= 0 {
		return invalidParam(errors.New("zero or negative query resolution step widths are not accepted. Try a positive integer"), "step")
	}
	if end.Sub(start)/step > 11000 {
		return badData(errors.New("exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)"))
	}
	return h.run(r, limit, func(ctx context.Context, opts promql.QueryOpts) (promql.Query, error) {
		return h.engine.NewRangeQuery(ctx, h.store, opts, r.FormValue("query"), start, end, step)
	})
}

// run applies the optional timeout and lookback_delta, builds the query and
// runs it. The result is encoded before the query is closed (the engine
// reuses its memory afterwards).
func (h *Handler) run(r *http.Request, limit int, build func(context.Context, promql.QueryOpts) (promql.Query, error)) result {
	ctx, cancel, fail := withTimeout(r)
	if fail != nil {
		return *fail
	}
	defer cancel()
	opts, err := queryOpts(r)
	if err != nil {
		return badData(err)
	}
	qry, err := build(ctx, opts)
	if err != nil {
		return result{err: constructionError(err)}
	}
	defer qry.Close()
	res := qry.Exec(ctx)
	if res.Err != nil {
		return result{err: engineError(res.Err)}
	}
	var truncated []string
	switch v := res.Value.(type) {
	case promql.Matrix:
		v, truncated = truncate(v, limit)
		res.Value = v
	case promql.Vector:
		v, truncated = truncate(v, limit)
		res.Value = v
	}
	warn, info := res.Warnings.AsStrings(r.FormValue("query"), 10, 10)
	warn = append(warn, truncated...)
	summary := map[string]any{"resultType": string(res.Value.Type())}
	switch v := res.Value.(type) {
	case promql.Vector:
		summary["series"] = len(v)
	case promql.Matrix:
		summary["series"], summary["points"] = len(v), v.TotalSamples()
	}
	b, err := marshalResult(res.Value)
	if err != nil {
		return result{err: &apiError{errInternal, err}}
	}
	return result{data: queryData{ResultType: res.Value.Type(), Result: b}, warnings: warn, infos: info, summary: summary}
}

// withTimeout applies the optional "timeout" parameter.
func withTimeout(r *http.Request) (context.Context, context.CancelFunc, *result) {
	ctx := r.Context()
	v := r.FormValue("timeout")
	if v == "" {
		return ctx, func() {}, nil
	}
	d, err := parseDuration(v)
	if err != nil {
		res := invalidParam(err, "timeout")
		return nil, nil, &res
	}
	if d <= 0 {
		res := invalidParam(fmt.Errorf("timeout must be positive, got %s", d), "timeout")
		return nil, nil, &res
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	return ctx, cancel, nil
}

// queryOpts reads lookback_delta as web/api/v1's extractQueryOpts does.
func queryOpts(r *http.Request) (promql.QueryOpts, error) {
	var lookback time.Duration
	if v := r.FormValue("lookback_delta"); v != "" {
		d, err := parseDuration(v)
		if err != nil {
			return nil, fmt.Errorf("error parsing lookback delta duration: %w", err)
		}
		lookback = d
	}
	return promql.NewPrometheusQueryOpts(r.FormValue("stats") == "all", lookback, nil), nil
}

// The metadata endpoints.

var (
	// minTime and maxTime are web/api/v1's defaults of optional ranges.
	minTime = time.Unix(math.MinInt64/1000+62135596801, 0).UTC()
	maxTime = time.Unix(math.MaxInt64/1000-62135596801, 999999999).UTC()
)

// metaArgs are the parameters of the metadata endpoints.
type metaArgs struct {
	limit int
	q     storage.Querier     // over the optional start and end
	sets  [][]*labels.Matcher // match[]; each needs a matcher an empty value fails
}

// readMetaArgs reads them in web/api/v1's order. The series endpoint
// reports a bad match[] as an invalid parameter, the label endpoints as
// plain bad data.
func (h *Handler) readMetaArgs(r *http.Request, series bool) (metaArgs, *result) {
	fail := func(res result) (metaArgs, *result) { return metaArgs{}, &res }
	var a metaArgs
	var err error
	if a.limit, err = parseLimit(r.FormValue("limit")); err != nil {
		return fail(invalidParam(err, "limit"))
	}
	start, end := minTime, maxTime
	if v := r.FormValue("start"); v != "" {
		if start, err = parseTime(v); err != nil {
			return fail(invalidParam(fmt.Errorf("invalid time value for 'start': %w", err), "start"))
		}
	}
	if v := r.FormValue("end"); v != "" {
		if end, err = parseTime(v); err != nil {
			return fail(invalidParam(fmt.Errorf("invalid time value for 'end': %w", err), "end"))
		}
	}
	a.sets, err = h.parser.ParseMetricSelectors(r.Form["match[]"])
	for _, ms := range a.sets {
		if err == nil && !slices.ContainsFunc(ms, func(m *labels.Matcher) bool { return m != nil && !m.Matches("") }) {
			err = errors.New("match[] must contain at least one non-empty matcher")
		}
	}
	switch {
	case err != nil && series:
		return fail(invalidParam(err, "match[]"))
	case err != nil:
		return fail(badData(err))
	}
	a.q, _ = h.store.Querier(timestamp.FromTime(start), timestamp.FromTime(end))
	return a, nil
}

// truncate applies a limit as web/api/v1 does, with its warning.
func truncate[T any](s []T, limit int) ([]T, []string) {
	if limit > 0 && len(s) > limit {
		return s[:limit], []string{"results truncated due to limit"}
	}
	return s, nil
}

func (h *Handler) series(r *http.Request) result {
	if len(r.Form["match[]"]) == 0 {
		return badData(errors.New("no match[] parameter provided"))
	}
	a, res := h.readMetaArgs(r, true)
	if res != nil {
		return *res
	}
	seen := map[string]bool{}
	var out []labels.Labels
	for _, ms := range a.sets {
		set := a.q.Select(r.Context(), true, nil, ms...)
		for set.Next() {
			if l := set.At().Labels(); !seen[l.String()] {
				seen[l.String()] = true
				out = append(out, l)
			}
		}
	}
	slices.SortFunc(out, labels.Compare)
	out, warnings := truncate(out, a.limit)
	return result{data: labelsJSON(out), warnings: warnings, summary: map[string]any{"series": len(out)}}
}

func (h *Handler) labelNames(r *http.Request) result {
	return h.labelQuery(r, "labels", func(q storage.Querier, ms []*labels.Matcher) ([]string, error) {
		names, _, err := q.LabelNames(r.Context(), nil, ms...)
		return names, err
	})
}

func (h *Handler) labelValues(r *http.Request) result {
	name := r.PathValue("name")
	if strings.HasPrefix(name, "U__") {
		name = model.UnescapeName(name, model.ValueEncodingEscaping)
	}
	if !model.UTF8Validation.IsValidLabelName(name) {
		return badData(fmt.Errorf("invalid label name: %q", name))
	}
	return h.labelQuery(r, "values", func(q storage.Querier, ms []*labels.Matcher) ([]string, error) {
		vals, _, err := q.LabelValues(r.Context(), name, nil, ms...)
		return vals, err
	})
}

// labelQuery unions the names or values over every match[] set.
func (h *Handler) labelQuery(r *http.Request, what string, f func(storage.Querier, []*labels.Matcher) ([]string, error)) result {
	a, res := h.readMetaArgs(r, false)
	if res != nil {
		return *res
	}
	sets := a.sets
	if len(sets) == 0 {
		sets = [][]*labels.Matcher{nil}
	}
	set := map[string]struct{}{}
	for _, ms := range sets {
		vals, err := f(a.q, ms)
		if err != nil {
			return result{err: &apiError{errExec, err}}
		}
		for _, v := range vals {
			set[v] = struct{}{}
		}
	}
	out, warnings := truncate(sortedLimited(set, nil), a.limit)
	return result{data: out, warnings: warnings, summary: map[string]any{what: len(out)}}
}

// Parameters, as web/api/v1 parses them.

func parseLimit(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, errors.New("limit must be non-negative")
	}
	return n, nil
}

// parseTime accepts float unix seconds or RFC 3339.
func parseTime(s string) (time.Time, error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		sec, frac := math.Modf(f)
		frac = math.Round(frac*1000) / 1000
		return time.Unix(int64(sec), int64(frac*float64(time.Second))).UTC(), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("cannot parse %q to a valid timestamp", s)
}

// parseDuration accepts float seconds or a Prometheus duration.
func parseDuration(s string) (time.Duration, error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		ts := f * float64(time.Second)
		if math.IsNaN(ts) || ts >= float64(math.MaxInt64) || ts < float64(math.MinInt64) {
			return 0, fmt.Errorf("cannot parse %q to a valid duration. It overflows int64", s)
		}
		return time.Duration(ts), nil
	}
	if d, err := model.ParseDuration(s); err == nil {
		return time.Duration(d), nil
	}
	return 0, fmt.Errorf("cannot parse %q to a valid duration", s)
}

// buildInfo names the Prometheus release whose engine answers: module
// version v0.3XX.Y is release 3.XX.Y.
func buildInfo() map[string]string {
	version := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/prometheus/prometheus" {
				var major, minor, patch int
				if _, err := fmt.Sscanf(d.Version, "v0.%1d%d.%d", &major, &minor, &patch); err == nil {
					version = fmt.Sprintf("%d.%d.%d", major, minor, patch)
				}
			}
		}
	}
	return map[string]string{"version": version, "revision": "simulator", "branch": "", "buildUser": "", "buildDate": "", "goVersion": ""}
}
