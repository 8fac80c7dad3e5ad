// Package prom is the metrics capability: Prometheus /api/v1/query and
// /api/v1/query_range. Its health check reads a fixed set of well-known
// series (Kubernetes container state, memory against limits, request error
// rates from span metrics and HTTP/gRPC servers, connection pools,
// certificate expiry) with plain selectors and analyses them client-side, so
// it works against any Prometheus-compatible backend.
package prom

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/httpc"
)

// Tool names.
const (
	ToolHealth     = "metrics_health"
	ToolQueryRange = "metrics_query_range"
	ToolQuery      = "metrics_query"
)

// healthMetrics are read by metrics_health.
var healthMetrics = append([]string{
	"kube_pod_container_status_restarts_total",
	"kube_pod_container_status_last_terminated_reason",
	"kube_pod_container_status_terminated_reason",
	"kube_pod_container_status_waiting_reason",
	"kube_pod_status_reason",
	"kube_node_status_condition",
	"kube_pod_container_resource_limits",
	"container_memory_working_set_bytes",
	"traces_span_metrics_calls_total", "traces_spanmetrics_calls_total", "calls_total",
	"http_server_requests_seconds_count", "http_requests_total", "http_server_request_duration_seconds_count",
	"grpc_server_handled_total",
	"hikaricp_connections_pending", "db_client_connections_pending_requests", "pgbouncer_pools_client_waiting_connections",
	"probe_ssl_earliest_cert_expiry", "x509_cert_not_after", "certmanager_certificate_expiration_timestamp_seconds",
	"container_cpu_cfs_throttled_periods_total", "container_cpu_cfs_periods_total",
	"kube_horizontalpodautoscaler_status_current_replicas", "kube_horizontalpodautoscaler_spec_max_replicas", "kube_horizontalpodautoscaler_spec_min_replicas", "kube_horizontalpodautoscaler_status_desired_replicas",
	"go_goroutines", "jvm_threads_live_threads",
	"node_timex_offset_seconds",
	"redis_memory_used_bytes", "redis_memory_max_bytes",
	// Usage and its ceiling, paired by name (limits.go).
	"process_open_fds", "process_max_fds",
	"kubelet_volume_stats_used_bytes", "kubelet_volume_stats_capacity_bytes",
	"rabbitmq_disk_space_available_bytes", "rabbitmq_disk_space_available_limit_bytes", "rabbitmq_alarms_free_disk_space_watermark", "rabbitmq_alarms_memory_used_watermark",
}, latencyHistograms...)

// latencyHistograms are the request-duration histograms latency is read
// from (OpenTelemetry semantic conventions, Micrometer, client_golang).
var latencyHistograms = []string{
	"http_server_request_duration_seconds_bucket", "http_server_requests_seconds_bucket", "http_request_duration_seconds_bucket",
	"traces_span_metrics_duration_seconds_bucket",
}

// Config configures the capability.
type Config struct {
	URL     string
	Token   string
	Timeout time.Duration
	MaxBody int64
	// Guard checks the addresses dialled for a user-supplied URL (nil:
	// an operator's URL, unrestricted).
	Guard *httpc.Guard
}

// Capability implements investigate.Capability for Prometheus.
type Capability struct {
	cfg    Config
	client *httpc.Client
	err    error
}

// New builds the capability; a missing URL makes it unavailable.
func New(cfg Config) *Capability {
	c := &Capability{cfg: cfg}
	if strings.TrimSpace(cfg.URL) == "" {
		return c
	}
	c.client, c.err = httpc.New(httpc.Options{BaseURL: cfg.URL, Header: httpc.Bearer(cfg.Token), Timeout: cfg.Timeout, MaxBody: cfg.MaxBody, Guard: cfg.Guard})
	return c
}

// Family implements investigate.Capability.
func (c *Capability) Family() investigate.Family { return investigate.FamilyMetrics }

// Availability implements investigate.Capability.
func (c *Capability) Availability() investigate.Availability {
	switch {
	case strings.TrimSpace(c.cfg.URL) == "":
		return investigate.Availability{Kind: investigate.ErrKindNotConfigured, Reason: "prometheus_url is not set"}
	case c.err != nil:
		return investigate.Availability{Kind: investigate.ErrKindNotConfigured, Reason: c.err.Error()}
	}
	return investigate.Availability{Configured: true}
}

// Tools implements investigate.Capability.
func (c *Capability) Tools() []investigate.ToolSpec {
	win := func(extra map[string]any) map[string]any {
		m := map[string]any{
			"start": map[string]any{"type": "string", "description": "window start, RFC 3339"},
			"end":   map[string]any{"type": "string", "description": "window end, RFC 3339"},
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	return []investigate.ToolSpec{
		{Name: ToolHealth, Family: investigate.FamilyMetrics,
			Description: "Check container restarts and termination reasons (OOMKilled...), waiting reasons (CrashLoopBackOff, ImagePullBackOff), evictions, node pressure, memory against limits, request error rates per service, connection pools and certificate expiry in a window.",
			Parameters: investigate.Schema(win(map[string]any{
				"namespace": map[string]any{"type": "string"},
				"services":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			}), "start", "end")},
		{Name: ToolQueryRange, Family: investigate.FamilyMetrics, Description: "Run a PromQL range query.",
			Parameters: investigate.Schema(win(map[string]any{
				"query": map[string]any{"type": "string"},
				"step":  map[string]any{"type": "string", "description": "e.g. 30s, 1m (default: window/120)"},
			}), "query", "start", "end")},
		{Name: ToolQuery, Family: investigate.FamilyMetrics, Description: "Run a PromQL instant query at a time.",
			Parameters: investigate.Schema(map[string]any{
				"query": map[string]any{"type": "string"},
				"time":  map[string]any{"type": "string", "description": "RFC 3339"},
			}, "query", "time")},
	}
}

// Series is one result series.
type Series struct {
	Metric map[string]string
	Points []Point
}

// Point is one sample.
type Point struct {
	T time.Time
	V float64
}

// Call implements investigate.Capability.
func (c *Capability) Call(ctx context.Context, tool string, args json.RawMessage) (*investigate.ToolResult, error) {
	if av := c.Availability(); !av.Configured {
		return nil, investigate.NewToolError(av.Kind, av.Reason, nil)
	}
	var a struct {
		Namespace string   `json:"namespace"`
		Services  []string `json:"services"`
		Query     string   `json:"query"`
		Start     string   `json:"start"`
		End       string   `json:"end"`
		Time      string   `json:"time"`
		Step      string   `json:"step"`
	}
	if err := investigate.DecodeArgs(args, &a); err != nil {
		return nil, err
	}
	if tool == ToolQuery {
		at, err := investigate.ParseTime(a.Time)
		if err != nil || at.IsZero() || strings.TrimSpace(a.Query) == "" {
			return nil, investigate.NewToolError(investigate.ErrKindInvalidArgs, "query and time are required", err)
		}
		series, err := c.instant(ctx, a.Query, at)
		if err != nil {
			return nil, err
		}
		return &investigate.ToolResult{Summary: querySummary(series), Data: compact(series, 40)}, nil
	}
	start, err1 := investigate.ParseTime(a.Start)
	end, err2 := investigate.ParseTime(a.End)
	if err1 != nil || err2 != nil || start.IsZero() || !end.After(start) {
		return nil, investigate.NewToolError(investigate.ErrKindInvalidArgs, "start and end are required and end must be after start", nil)
	}
	step := defaultStep(start, end)
	if a.Step != "" {
		d, err := time.ParseDuration(a.Step)
		if err != nil || d <= 0 {
			return nil, investigate.NewToolError(investigate.ErrKindInvalidArgs, "step must be a positive duration like 30s", err)
		}
		step = max(d, (end.Sub(start))/11000) // Prometheus refuses more than 11,000 points per series
	}
	switch tool {
	case ToolQueryRange:
		if strings.TrimSpace(a.Query) == "" {
			return nil, investigate.NewToolError(investigate.ErrKindInvalidArgs, "query is required", nil)
		}
		series, err := c.rangeQuery(ctx, a.Query, start, end, step)
		if err != nil {
			return nil, err
		}
		return &investigate.ToolResult{Summary: querySummary(series), Data: compact(series, 40)}, nil
	case ToolHealth:
		sel := `{__name__=~"` + strings.Join(healthMetrics, "|") + `"}`
		series, err := c.rangeQuery(ctx, sel, start, end, step)
		if err != nil {
			return nil, err
		}
		series = mergeSeries(series, c.scope(ctx, a.Namespace, start, end, step))
		return Analyze(series, start, end, a.Namespace, a.Services), nil
	}
	return nil, fmt.Errorf("%w: %s", investigate.ErrUnknownTool, tool)
}

// scope reads every series of the namespace (or of the backend) when there
// are at most scopeLimit of them; nothing otherwise. It asks the series
// index first (cheap: no samples are read). Its failures are not the
// health check's: the fixed list stands on its own.
func (c *Capability) scope(ctx context.Context, namespace string, start, end time.Time, step time.Duration) []Series {
	match, rangeSel := scopeSelectors(namespace)
	v := url.Values{}
	v.Set("match[]", match)
	v.Set("start", strconv.FormatFloat(float64(start.UnixMilli())/1000, 'f', 3, 64))
	v.Set("end", strconv.FormatFloat(float64(end.UnixMilli())/1000, 'f', 3, 64))
	v.Set("limit", strconv.Itoa(scopeLimit+1))
	var body struct {
		Status string              `json:"status"`
		Data   []map[string]string `json:"data"`
	}
	if err := c.client.GetJSON(ctx, "/api/v1/series", v, &body); err != nil || body.Status != "success" || len(body.Data) == 0 || len(body.Data) > scopeLimit {
		return nil
	}
	series, err := c.rangeQuery(ctx, rangeSel, start, end, step)
	if err != nil {
		return nil
	}
	return series
}

func defaultStep(start, end time.Time) time.Duration {
	step := end.Sub(start) / 240
	if step < 15*time.Second {
		step = 15 * time.Second
	}
	return step.Round(time.Second)
}

type apiResponse struct {
	Status    string `json:"status"`
	ErrorType string `json:"errorType"`
	Error     string `json:"error"`
	Data      struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	} `json:"data"`
}

func (c *Capability) rangeQuery(ctx context.Context, q string, start, end time.Time, step time.Duration) ([]Series, error) {
	v := url.Values{}
	v.Set("query", q)
	v.Set("start", strconv.FormatFloat(float64(start.UnixMilli())/1000, 'f', 3, 64))
	v.Set("end", strconv.FormatFloat(float64(end.UnixMilli())/1000, 'f', 3, 64))
	v.Set("step", strconv.FormatFloat(step.Seconds(), 'f', -1, 64))
	var body apiResponse
	if err := c.client.GetJSON(ctx, "/api/v1/query_range", v, &body); err != nil {
		return nil, err
	}
	return decode(body)
}

func (c *Capability) instant(ctx context.Context, q string, at time.Time) ([]Series, error) {
	v := url.Values{}
	v.Set("query", q)
	v.Set("time", strconv.FormatFloat(float64(at.UnixMilli())/1000, 'f', 3, 64))
	var body apiResponse
	if err := c.client.GetJSON(ctx, "/api/v1/query", v, &body); err != nil {
		return nil, err
	}
	return decode(body)
}

// errorTypeRE matches the error types of the Prometheus API (bad_data, timeout…).
var errorTypeRE = regexp.MustCompile(`^[a-z_]{1,20}$`)

func decode(body apiResponse) ([]Series, error) {
	if body.Status != "success" {
		// The error text is response text: only the API's error type is kept.
		return nil, investigate.NewToolError(investigate.ErrKindInvalidArgs, "prometheus error "+errorTypeRE.FindString(body.ErrorType), nil)
	}
	type raw struct {
		Metric map[string]string `json:"metric"`
		Values [][2]any          `json:"values"`
		Value  [2]any            `json:"value"`
	}
	var rs []raw
	switch body.Data.ResultType {
	case "matrix", "vector":
		if err := json.Unmarshal(body.Data.Result, &rs); err != nil {
			return nil, investigate.NewToolError(investigate.ErrKindBadResponse, "prometheus result", err)
		}
	case "scalar":
		var r [2]any
		if err := json.Unmarshal(body.Data.Result, &r); err != nil {
			return nil, investigate.NewToolError(investigate.ErrKindBadResponse, "prometheus scalar", err)
		}
		rs = []raw{{Value: r}}
	default:
		return nil, investigate.NewToolError(investigate.ErrKindBadResponse, fmt.Sprintf("unexpected result type %q", body.Data.ResultType), nil)
	}
	out := make([]Series, 0, len(rs))
	for _, r := range rs {
		s := Series{Metric: r.Metric}
		vals := r.Values
		if len(vals) == 0 && r.Value[0] != nil {
			vals = [][2]any{r.Value}
		}
		for _, p := range vals {
			ts, ok := p[0].(float64)
			vs, ok2 := p[1].(string)
			if !ok || !ok2 {
				continue
			}
			v, err := strconv.ParseFloat(vs, 64)
			if err != nil {
				continue
			}
			s.Points = append(s.Points, Point{T: time.UnixMilli(int64(ts * 1000)).UTC(), V: v})
		}
		out = append(out, s)
	}
	return out, nil
}

// compact summarizes series for an LLM: labels, first/last/min/max values.
func compact(series []Series, limit int) any {
	type view struct {
		Metric                map[string]string
		First, Last, Min, Max float64
		FirstTime, LastTime   time.Time
		Points                int
	}
	var out []view
	for i, s := range series {
		if i >= limit || len(s.Points) == 0 {
			continue
		}
		v := view{Metric: s.Metric, First: s.Points[0].V, Last: s.Points[len(s.Points)-1].V, Min: math.Inf(1), Max: math.Inf(-1),
			FirstTime: s.Points[0].T, LastTime: s.Points[len(s.Points)-1].T, Points: len(s.Points)}
		for _, p := range s.Points {
			v.Min, v.Max = math.Min(v.Min, p.V), math.Max(v.Max, p.V)
		}
		out = append(out, v)
	}
	return map[string]any{"series": len(series), "shown": out}
}

// querySummary says what a query returned in one line: the number of
// series and the highest value, with its series' labels and time, so that
// a query's answer reads as evidence in the timeline.
func querySummary(series []Series) string {
	var best *Series
	var top Point
	for i := range series {
		for _, p := range series[i].Points {
			if best == nil || p.V > top.V {
				best, top = &series[i], p
			}
		}
	}
	n := fmt.Sprintf("%d series", len(series))
	if best == nil {
		return n
	}
	keys := make([]string, 0, len(best.Metric))
	for k := range best.Metric {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var labels []string
	for _, k := range keys {
		if len(labels) == 4 {
			labels = append(labels, "…")
			break
		}
		labels = append(labels, k+"="+strconv.Quote(best.Metric[k]))
	}
	return fmt.Sprintf("%s; highest %s {%s} at %s", n, strconv.FormatFloat(top.V, 'g', 4, 64), strings.Join(labels, ", "), top.T.UTC().Format("15:04Z"))
}

var podSuffixRE = regexp.MustCompile(`-(?:[a-z0-9]{6,10}-[a-z0-9]{5}|[a-z0-9]{5}|\d+)$`)

// serviceOf names the workload a series belongs to.
func serviceOf(m map[string]string) string {
	for _, k := range []string{"service_name", "service", "container", "app", "deployment", "k8s_deployment_name", "application", "job"} {
		if v := m[k]; v != "" && !genericJob(v) {
			if k == "job" {
				if i := strings.LastIndex(v, "/"); i >= 0 {
					v = v[i+1:]
				}
			}
			return v
		}
	}
	if p := m["pod"]; p != "" {
		return podSuffixRE.ReplaceAllString(p, "")
	}
	return ""
}

func genericJob(v string) bool {
	switch v {
	case "kube-state-metrics", "kubelet", "cadvisor", "node-exporter", "otel-collector", "opentelemetry-collector", "prometheus", "blackbox", "blackbox-exporter", "kubernetes-nodes", "kubernetes-pods", "POD":
		return true
	}
	return false
}

func sortedKeys[M ~map[string]V, V any](m M) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}
