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
	c.client, c.err = httpc.New(httpc.Options{BaseURL: cfg.URL, Header: httpc.Bearer(cfg.Token), Timeout: cfg.Timeout, MaxBody: cfg.MaxBody})
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
		return &investigate.ToolResult{Summary: fmt.Sprintf("%d services report traces", len(names)), Data: names}, nil
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
			services = preferred(all, a.Prefer)
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

// searchErrors fans out over services and both error markers (error=true and
// otel.status_code=ERROR: OTLP-native spans may carry only the latter), then
// merges traces by id and analyses them together.
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
	markers := []map[string]string{{"error": "true"}, {"otel.status_code": "ERROR"}}
	type res struct {
		spans []investigate.Span
		err   error
	}
	out := make(chan res, len(services)*len(markers))
	var wg sync.WaitGroup
	search := func(svc string, tags map[string]string) {
		var r res
		if api == APIv3 {
			r.spans, r.err = c.searchV3(ctx, svc, op, tags, start, end, limit)
		} else {
			r.spans, r.err = c.searchV1(ctx, svc, op, tags, start, end, limit)
		}
		out <- r
	}
	sem := make(chan struct{}, 8) // bounded fan-out towards one backend
	for _, svc := range services {
		for _, tags := range markers {
			if investigate.Sequential(ctx) {
				search(svc, tags)
				continue
			}
			wg.Add(1)
			go func(svc string, tags map[string]string) {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				search(svc, tags)
			}(svc, tags)
		}
	}
	wg.Wait()
	close(out)
	seen := map[string]bool{} // traceID/spanID
	var spans []investigate.Span
	var errs []error
	for r := range out {
		if r.err != nil {
			errs = append(errs, r.err)
			continue
		}
		for _, s := range r.spans {
			k := s.TraceID + "/" + s.SpanID
			if !seen[k] {
				seen[k] = true
				spans = append(spans, s)
			}
		}
	}
	if len(errs) == len(services)*len(markers) {
		return nil, errs[0] // nothing worked: report the backend's error
	}
	an := investigate.AnalyzeTraces(spans, services...)
	r := result(an, services)
	for _, svc := range services {
		r.Findings = append(r.Findings, investigate.Finding{Kind: investigate.KindInventory, Family: investigate.FamilyTraces, Service: svc})
	}
	if len(errs) > 0 {
		r.Summary += fmt.Sprintf(" (%d of %d searches failed: %v)", len(errs), len(services)*len(markers), errs[0])
	}
	return r, nil
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
	tj, _ := json.Marshal(tags)
	q.Set("tags", string(tj))
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
		if err := c.client.GetJSON(ctx, "/api/v3/traces/"+url.PathEscape(id), nil, &body); err != nil {
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
			sp.Error = investigate.IsErrorSpan(attrs, sp.Kind)
			out = append(out, sp)
		}
	}
	return out
}
