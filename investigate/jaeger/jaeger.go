// Package jaeger is the traces capability: it searches Jaeger through the
// query service's HTTP API v1 (/api/traces) or the api_v3 HTTP gateway
// (/api/v3/traces, OTLP JSON), which newer Jaeger releases keep as their
// only search API, and turns failing traces into findings.
package jaeger

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/httpc"
)

// Tool names.
const (
	ToolServices     = "traces_list_services"
	ToolSearchErrors = "traces_search_errors"
	ToolGetTrace     = "traces_get"
)

// API selects the search API.
type API string

const (
	APIAuto API = "auto" // v1, falling back to v3 when /api/services is 404
	APIv1   API = "v1"
	APIv3   API = "v3"
)

// Config configures the capability.
type Config struct {
	URL     string
	Token   string
	API     API
	Timeout time.Duration // per HTTP call
	MaxBody int64
	// MaxServices bounds how many services one search fans out to.
	MaxServices int
	// Guard checks the addresses dialled for a user-supplied URL (nil:
	// an operator's URL, unrestricted).
	Guard *httpc.Guard
}

// Capability implements investigate.Capability for Jaeger.
type Capability struct {
	cfg    Config
	client *httpc.Client
	err    error

	mu       sync.Mutex
	resolved API
}

// New builds the capability; a missing URL makes it unavailable, not an error.
func New(cfg Config) *Capability {
	c := &Capability{cfg: cfg}
	if cfg.API == "" {
		cfg.API = APIAuto
		c.cfg.API = APIAuto
	}
	if cfg.MaxServices <= 0 {
		c.cfg.MaxServices = 12
	}
	if strings.TrimSpace(cfg.URL) == "" {
		return c
	}
	c.client, c.err = httpc.New(httpc.Options{BaseURL: cfg.URL, Header: httpc.Bearer(cfg.Token), Timeout: cfg.Timeout, MaxBody: cfg.MaxBody, Guard: cfg.Guard})
	return c
}

// Family implements investigate.Capability.
func (c *Capability) Family() investigate.Family { return investigate.FamilyTraces }

// Availability implements investigate.Capability.
func (c *Capability) Availability() investigate.Availability {
	switch {
	case strings.TrimSpace(c.cfg.URL) == "":
		return investigate.Availability{Kind: investigate.ErrKindNotConfigured, Reason: "jaeger_url is not set"}
	case c.err != nil:
		return investigate.Availability{Kind: investigate.ErrKindNotConfigured, Reason: c.err.Error()}
	}
	return investigate.Availability{Configured: true}
}

var timeProps = map[string]any{
	"start": map[string]any{"type": "string", "description": "window start, RFC 3339"},
	"end":   map[string]any{"type": "string", "description": "window end, RFC 3339"},
}

func props(extra map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range timeProps {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// Tools implements investigate.Capability.
func (c *Capability) Tools() []investigate.ToolSpec {
	return []investigate.ToolSpec{
		{Name: ToolServices, Family: investigate.FamilyTraces, Description: "List the service names that report traces.",
			Parameters: investigate.Schema(map[string]any{})},
		{Name: ToolSearchErrors, Family: investigate.FamilyTraces,
			Description: "Search failing traces (error spans) of one or more services in a time window. Returns where each failure originates: service, exception, stack frame, callee.",
			Parameters: investigate.Schema(props(map[string]any{
				"services":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "services to search (up to 12); empty = every service reporting traces, preferred ones first"},
				"prefer":    map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "names to search first when services is empty"},
				"operation": map[string]any{"type": "string", "description": "optional operation name"},
				"limit":     map[string]any{"type": "integer", "description": "max traces per service (default 20, max 100)"},
			}), "start", "end")},
		{Name: ToolGetTrace, Family: investigate.FamilyTraces, Description: "Fetch one trace by id and analyse where it fails.",
			Parameters: investigate.Schema(map[string]any{"trace_id": map[string]any{"type": "string"}}, "trace_id")},
	}
}

// Call implements investigate.Capability.
func (c *Capability) Call(ctx context.Context, tool string, args json.RawMessage) (*investigate.ToolResult, error) {
	if av := c.Availability(); !av.Configured {
		return nil, investigate.NewToolError(av.Kind, av.Reason, nil)
	}
	switch tool {
	case ToolServices:
		names, err := c.services(ctx)
		if err != nil {
			return nil, err
		}
		apps, warning := applicationServices(names)
		return &investigate.ToolResult{Summary: fmt.Sprintf("%d services report traces", len(apps)), Warning: warning, Data: apps}, nil
	case ToolSearchErrors:
		var a struct {
			Services  []string `json:"services"`
			Prefer    []string `json:"prefer"`
			Operation string   `json:"operation"`
			Start     string   `json:"start"`
			End       string   `json:"end"`
			Limit     int      `json:"limit"`
		}
		if err := investigate.DecodeArgs(args, &a); err != nil {
			return nil, err
		}
		start, end, err := window(a.Start, a.End)
		if err != nil {
			return nil, err
		}
		services := a.Services
		if len(services) == 0 {
			all, err := c.services(ctx)
			if err != nil {
				return nil, err
			}
			apps, warning := applicationServices(all)
			if warning != "" {
				return &investigate.ToolResult{Summary: "0 failing traces: nothing to search", Warning: warning,
					Data: map[string]any{"services": all}}, nil
			}
			services = preferred(apps, a.Prefer)
		}
		return c.searchErrors(ctx, services, a.Operation, start, end, a.Limit)
	case ToolGetTrace:
		var a struct {
			TraceID string `json:"trace_id"`
		}
		if err := investigate.DecodeArgs(args, &a); err != nil {
			return nil, err
		}
		if !traceIDRE(a.TraceID) {
			return nil, investigate.NewToolError(investigate.ErrKindInvalidArgs, "trace_id must be 1-32 hex digits", nil)
		}
		spans, err := c.trace(ctx, a.TraceID)
		if err != nil {
			return nil, err
		}
		an := investigate.AnalyzeTraces(spans)
		return result(an, nil), nil
	}
	return nil, fmt.Errorf("%w: %s", investigate.ErrUnknownTool, tool)
}

// preferred orders services so that those named in prefer come first.
func preferred(all, prefer []string) []string {
	want := map[string]bool{}
	for _, p := range prefer {
		want[investigate.NormalizeServiceName(p)] = true
	}
	var first, rest []string
	for _, s := range all {
		if want[investigate.NormalizeServiceName(s)] {
			first = append(first, s)
		} else {
			rest = append(rest, s)
		}
	}
	return append(first, rest...)
}

func traceIDRE(s string) bool {
	if len(s) == 0 || len(s) > 32 {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return false
		}
	}
	return true
}

func window(startS, endS string) (time.Time, time.Time, error) {
	start, err := investigate.ParseTime(startS)
	if err != nil {
		return time.Time{}, time.Time{}, investigate.NewToolError(investigate.ErrKindInvalidArgs, "start", err)
	}
	end, err := investigate.ParseTime(endS)
	if err != nil {
		return time.Time{}, time.Time{}, investigate.NewToolError(investigate.ErrKindInvalidArgs, "end", err)
	}
	if start.IsZero() || end.IsZero() || !end.After(start) {
		return time.Time{}, time.Time{}, investigate.NewToolError(investigate.ErrKindInvalidArgs, "start and end are required and end must be after start", nil)
	}
	return start, end, nil
}

// api decides which search API the backend speaks (once).
func (c *Capability) api(ctx context.Context) (API, error) {
	if c.cfg.API != APIAuto {
		return c.cfg.API, nil
	}
	c.mu.Lock()
	r := c.resolved
	c.mu.Unlock()
	if r != "" {
		return r, nil
	}
	var body v1Response[[]string]
	err := c.client.GetJSON(ctx, "/api/services", nil, &body)
	switch investigate.KindOf(err) {
	case "", investigate.ErrKindToolError:
		if err == nil {
			r = APIv1
		}
	case investigate.ErrKindNotFound:
		r = APIv3
	}
	if r == "" {
		return "", err
	}
	c.mu.Lock()
	c.resolved = r
	c.mu.Unlock()
	return r, nil
}

func (c *Capability) services(ctx context.Context) ([]string, error) {
	api, err := c.api(ctx)
	if err != nil {
		return nil, err
	}
	var names []string
	if api == APIv3 {
		var body struct {
			Services []string `json:"services"`
		}
		if err := c.client.GetJSON(ctx, "/api/v3/services", nil, &body); err != nil {
			return nil, err
		}
		names = body.Services
	} else {
		var body v1Response[[]string]
		if err := c.client.GetJSON(ctx, "/api/services", nil, &body); err != nil {
			return nil, err
		}
		names = body.Data
	}
	sort.Strings(names)
	return names, nil
}

// selfServices are the services Jaeger reports about itself: its own
// query and collector traces are never an application's failure.
var selfServices = map[string]bool{"jaeger": true, "jaeger-query": true, "jaeger-collector": true, "jaeger-all-in-one": true}

// IsSelfTelemetry reports whether a service name is Jaeger's own.
func IsSelfTelemetry(service string) bool { return selfServices[strings.ToLower(service)] }

// applicationServices drops Jaeger's own services from a listing; warning
// says why the listing cannot be searched when nothing is left.
func applicationServices(all []string) (apps []string, warning string) {
	var self []string
	for _, s := range all {
		if IsSelfTelemetry(s) {
			self = append(self, s)
		} else {
			apps = append(apps, s)
		}
	}
	switch {
	case len(all) == 0:
		return nil, "Jaeger lists no services: no traces are stored for this tenant (is anything sending traces to it?)"
	case len(apps) == 0:
		return nil, fmt.Sprintf("Jaeger lists no service but its own (%s): no application sends traces to it", strings.Join(self, ", "))
	}
	return apps, ""
}

// scanDepth is how many traces of a service one client-side scan reads:
// limit failing traces are looked for among at most this many.
func scanDepth(limit int) int { return min(max(limit*10, 100), 1000) }

// serviceSearch is what one service's search found.
type serviceSearch struct {
	service string
	spans   []investigate.Span // of failing traces only
	// scanned counts the traces read by a client-side scan (0: the
	// server filtered); saturated means the scan hit its depth.
	scanned   int
	saturated bool
	// ignoredFilter: the server-side error filter returned healthy traces.
	ignoredFilter bool
	err           error
}

// searchErrors searches each service for failing traces and analyses the
// failing ones together. A span fails by its status (OTLP status ERROR,
// otel.status_code=ERROR) or, where older storage keeps it, by error=true.
//
// v1 asks the server for error=true first: storages that keep Jaeger's tags
// filter by it. OTLP-native storage (Jaeger v2's memory store) keeps the
// status out of the attributes and answers nothing (or, for error=true, the
// spans whose status is OK), and the api_v3 gateway ignores attributes
// altogether: then the newest traces of the service in the window are
// scanned and filtered here. Healthy traces never reach the analysis.
func (c *Capability) searchErrors(ctx context.Context, services []string, op string, start, end time.Time, limit int) (*investigate.ToolResult, error) {
	if len(services) == 0 {
		return nil, investigate.NewToolError(investigate.ErrKindInvalidArgs, "services: at least one service is required", nil)
	}
	if len(services) > c.cfg.MaxServices {
		services = services[:c.cfg.MaxServices]
	}
	if limit <= 0 {
		limit = 20
	}
	limit = min(limit, 100)
	api, err := c.api(ctx)
	if err != nil {
		return nil, err
	}
	found := make([]serviceSearch, len(services))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8) // bounded fan-out towards one backend
	for i, svc := range services {
		if investigate.Sequential(ctx) {
			found[i] = c.searchService(ctx, api, svc, op, start, end, limit)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			found[i] = c.searchService(ctx, api, svc, op, start, end, limit)
		}()
	}
	wg.Wait()
	var (
		spans                        []investigate.Span
		errs                         []error
		scanned, saturated, filtered []string
	)
	for _, f := range found {
		if f.err != nil {
			errs = append(errs, f.err)
			continue
		}
		spans = append(spans, f.spans...)
		if f.scanned > 0 || api == APIv3 {
			scanned = append(scanned, f.service)
		}
		if f.saturated {
			saturated = append(saturated, f.service)
		}
		if f.ignoredFilter {
			filtered = append(filtered, f.service)
		}
	}
	if len(errs) == len(services) {
		return nil, errs[0] // nothing worked: report the backend's error
	}
	an := investigate.AnalyzeTraces(spans, services...)
	r := result(an, services)
	for _, svc := range services {
		r.Findings = append(r.Findings, investigate.Finding{Kind: investigate.KindInventory, Family: investigate.FamilyTraces, Service: svc})
	}
	depth := scanDepth(limit)
	if len(scanned) > 0 {
		r.Summary += fmt.Sprintf(" (Jaeger did not filter by error server-side in %d of %d services: their newest traces, up to %d each, were scanned here)", len(scanned), len(services), depth)
	}
	if len(filtered) > 0 {
		r.Summary += fmt.Sprintf(" (the error=true filter returned healthy traces of %s: ignored by this storage)", strings.Join(filtered, ", "))
	}
	if len(errs) > 0 {
		r.Summary += fmt.Sprintf(" (%d of %d services could not be searched: %v)", len(errs), len(services), errs[0])
	}
	if an.ErrorTraces == 0 && len(saturated) > 0 {
		r.Warning = fmt.Sprintf("Jaeger cannot filter by span status here and %s had more traces in the window than one answer holds (up to %d are read): only the newest were scanned, older failures may be missed",
			strings.Join(saturated, ", "), depth)
	}
	if data, ok := r.Data.(map[string]any); ok {
		data["api"] = string(api)
		data["scanned_client_side"] = scanned
		data["scan_depth"] = depth
	}
	return r, nil
}

// searchService finds up to limit failing traces of one service, newest first.
func (c *Capability) searchService(ctx context.Context, api API, svc, op string, start, end time.Time, limit int) serviceSearch {
	out := serviceSearch{service: svc}
	if api == APIv1 {
		spans, err := c.searchV1(ctx, svc, op, map[string]string{"error": "true"}, start, end, limit)
		if err != nil {
			out.err = err
			return out
		}
		failing, traces := failingTraces(spans, limit)
		if len(failing) > 0 {
			out.spans = failing
			return out
		}
		out.ignoredFilter = traces > 0
	}
	// Big traces can make a full-depth answer larger than the client takes:
	// read fewer (the newest) rather than nothing, and say the scan was cut.
	var (
		spans []investigate.Span
		err   error
		cut   bool
	)
	for depth := scanDepth(limit); ; depth /= 4 {
		if api == APIv3 {
			spans, err = c.searchV3(ctx, svc, op, start, end, depth)
		} else {
			spans, err = c.searchV1(ctx, svc, op, nil, start, end, depth)
		}
		if investigate.KindOf(err) == investigate.ErrKindTooLarge && depth/4 >= limit {
			cut = true
			continue
		}
		if err != nil {
			out.err = err
			return out
		}
		out.spans, out.scanned = failingTraces(spans, limit)
		out.saturated = cut || out.scanned >= depth
		return out
	}
}

// failingTraces keeps the spans of the first limit traces (in the
// server's order, newest first) that have a failing span, and counts the
// traces it looked at. Jaeger's own spans are dropped.
func failingTraces(spans []investigate.Span, limit int) ([]investigate.Span, int) {
	var order []string
	byTrace := map[string][]investigate.Span{}
	failing := map[string]bool{}
	for _, s := range spans {
		if _, ok := byTrace[s.TraceID]; !ok {
			order = append(order, s.TraceID)
			byTrace[s.TraceID] = nil
		}
		if IsSelfTelemetry(s.Service) {
			continue
		}
		byTrace[s.TraceID] = append(byTrace[s.TraceID], s)
		if s.Error {
			failing[s.TraceID] = true
		}
	}
	var out []investigate.Span
	kept := 0
	for _, id := range order {
		if failing[id] && kept < limit {
			kept++
			out = append(out, byTrace[id]...)
		}
	}
	return out, len(order)
}

func result(an investigate.TraceAnalysis, services []string) *investigate.ToolResult {
	sum := fmt.Sprintf("%d failing traces", an.ErrorTraces)
	if len(services) > 0 {
		sum += " in " + strings.Join(services, ", ")
	}
	if len(an.Findings) > 0 {
		top := an.Findings[0]
		what := firstNonEmpty(top.Exception, string(top.ErrorType), "error")
		sum += fmt.Sprintf("; most originate in %s (%s, %d traces)", top.Service, what, top.Count)
	}
	type finding struct {
		Service, Peer, Exception, ErrorType, File, Quote, Operation string
		Line, Traces                                                int
		First                                                       time.Time
	}
	data := map[string]any{"traces": an.Traces, "failing_traces": an.ErrorTraces, "error_spans_by_service": an.ErrorSpans, "calls": an.Calls}
	var fs []finding
	for _, f := range an.Findings {
		fs = append(fs, finding{Service: f.Service, Peer: f.Peer, Exception: f.Exception, ErrorType: string(f.ErrorType), File: f.File,
			Quote: f.Quote, Operation: f.Attrs["operation"], Line: f.Line, Traces: f.Count, First: f.Time})
	}
	data["origins"] = fs
	// Keep the call graph as findings too: the engine uses it to tell victims from culprits.
	findings := an.Findings
	for caller, callees := range an.Calls {
		for callee, n := range callees {
			findings = append(findings, investigate.Finding{Kind: investigate.KindCallEdge, Family: investigate.FamilyTraces,
				Service: callee, Peer: caller, Count: n})
		}
	}
	return &investigate.ToolResult{Summary: sum, Findings: findings, Data: data}
}

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}

// ---- v1 -------------------------------------------------------------------

type v1Response[T any] struct {
	Data   T `json:"data"`
	Errors []struct {
		Code int    `json:"code"`
		Msg  string `json:"msg"`
	} `json:"errors"`
}

type v1KV struct {
	Key   string `json:"key"`
	Type  string `json:"type"`
	Value any    `json:"value"`
}

type v1Trace struct {
	TraceID string `json:"traceID"`
	Spans   []struct {
		TraceID       string `json:"traceID"`
		SpanID        string `json:"spanID"`
		OperationName string `json:"operationName"`
		References    []struct {
			RefType string `json:"refType"`
			TraceID string `json:"traceID"`
			SpanID  string `json:"spanID"`
		} `json:"references"`
		StartTime int64  `json:"startTime"`
		Duration  int64  `json:"duration"`
		Tags      []v1KV `json:"tags"`
		Logs      []struct {
			Timestamp int64  `json:"timestamp"`
			Fields    []v1KV `json:"fields"`
		} `json:"logs"`
		ProcessID string `json:"processID"`
	} `json:"spans"`
	Processes map[string]struct {
		ServiceName string `json:"serviceName"`
	} `json:"processes"`
}

func kvString(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case bool:
		if t {
			return "true"
		}
		return "false"
	case float64:
		if t == float64(int64(t)) {
			return fmt.Sprintf("%d", int64(t))
		}
		return fmt.Sprintf("%g", t)
	case nil:
		return ""
	default:
		b, _ := json.Marshal(t)
		return string(b)
	}
}

func kvMap(kvs []v1KV) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.Key] = kvString(kv.Value)
	}
	return m
}

func (c *Capability) searchV1(ctx context.Context, svc, op string, tags map[string]string, start, end time.Time, limit int) ([]investigate.Span, error) {
	q := url.Values{}
	q.Set("service", svc)
	if op != "" {
		q.Set("operation", op)
	}
	if len(tags) > 0 {
		tj, _ := json.Marshal(tags)
		q.Set("tags", string(tj))
	}
	q.Set("start", fmt.Sprint(start.UnixMicro()))
	q.Set("end", fmt.Sprint(end.UnixMicro()))
	q.Set("limit", fmt.Sprint(limit))
	var body v1Response[[]v1Trace]
	if err := c.client.GetJSON(ctx, "/api/traces", q, &body); err != nil {
		return nil, err
	}
	return fromV1(body.Data), nil
}

func (c *Capability) trace(ctx context.Context, id string) ([]investigate.Span, error) {
	api, err := c.api(ctx)
	if err != nil {
		return nil, err
	}
	if api == APIv3 {
		var body otlpResponse
		raw := url.Values{"raw_traces": {"true"}} // as in searchV3: read, never adjusted in place
		if err := c.client.GetJSON(ctx, "/api/v3/traces/"+url.PathEscape(id), raw, &body); err != nil {
			return nil, err
		}
		return fromOTLP(body), nil
	}
	var body v1Response[[]v1Trace]
	if err := c.client.GetJSON(ctx, "/api/traces/"+url.PathEscape(id), nil, &body); err != nil {
		return nil, err
	}
	return fromV1(body.Data), nil
}

func fromV1(traces []v1Trace) []investigate.Span {
	var out []investigate.Span
	for _, t := range traces {
		for _, s := range t.Spans {
			attrs := kvMap(s.Tags)
			sp := investigate.Span{
				TraceID: s.TraceID, SpanID: s.SpanID, Name: s.OperationName,
				Service:  t.Processes[s.ProcessID].ServiceName,
				Start:    time.UnixMicro(s.StartTime).UTC(),
				Duration: time.Duration(s.Duration) * time.Microsecond,
				Attrs:    attrs, Kind: strings.ToLower(attrs["span.kind"]),
				StatusMessage: firstNonEmpty(attrs["otel.status_description"], attrs["error.message"]),
			}
			for _, r := range s.References {
				if r.RefType == "CHILD_OF" || sp.ParentID == "" {
					sp.ParentID = r.SpanID
				}
			}
			for _, l := range s.Logs {
				f := kvMap(l.Fields)
				sp.Events = append(sp.Events, investigate.SpanEvent{Name: f["event"], Time: time.UnixMicro(l.Timestamp).UTC(), Attrs: f})
			}
			sp.Error = StatusIsError(attrs["otel.status_code"]) || investigate.IsErrorSpan(attrs, sp.Kind)
			out = append(out, sp)
		}
	}
	return out
}
