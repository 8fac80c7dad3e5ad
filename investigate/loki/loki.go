// Package loki is the logs capability: LogQL queries against Loki's
// /loki/api/v1/query_range, with error lines grouped into patterns matched
// against the fingerprint catalogue.
package loki

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/httpc"
)

// Tool names.
const (
	ToolSearchErrors = "logs_search_errors"
	ToolQuery        = "logs_query"
	ToolPatterns     = "logs_patterns"
)

// DefaultServiceLabel is the label naming the service unless configured.
const DefaultServiceLabel = "service_name"

// fallbackServiceLabels are tried, in order, to name a stream's service.
var fallbackServiceLabels = []string{"service_name", "service", "app", "app_kubernetes_io_name", "k8s_container_name", "container", "k8s_deployment_name", "job"}

// ErrorFilter keeps lines that look like failures.
const ErrorFilter = `(?i)(error|exception|panic|fatal|fail|refused|timeout|timed out|killed|oom|traceback|unavailable|denied|invalid|x509|reset by peer|no such host|deadline|unauthorized|forbidden|crit|missing|unexpected|rejected|cannot|could not|unable to|detail:|\x{feff}|●|expect\(received|" 5[0-9][0-9] |status[=:" ]+5[0-9][0-9])`

// accessLogRE matches a combined/ingress access log line: request and status.
var accessLogRE = regexp.MustCompile(`"(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) (\S+) HTTP/[\d.]+" (\d{3}) `)

// ingressUpstreamRE matches ingress-nginx's upstream name [namespace-service-port].
var ingressUpstreamRE = regexp.MustCompile(`\[([a-z0-9][a-z0-9-]*[a-z0-9])\] \[[^\]]*\] \d`)

var statusText = map[string]string{"500": "500 Internal Server Error", "502": "502 Bad Gateway", "503": "503 Service Unavailable", "504": "504 Gateway Timeout"}

// AccessLogText rewrites a 5xx access log line as an error text a human
// (and the fingerprint catalogue) reads: "504 Gateway Timeout from upstream X for GET /path".
func AccessLogText(line string) (text, upstream string, ok bool) {
	m := accessLogRE.FindStringSubmatch(line)
	if m == nil || m[3][0] != '5' {
		return "", "", false
	}
	if u := ingressUpstreamRE.FindStringSubmatch(line); u != nil {
		upstream = u[1]
	}
	st := statusText[m[3]]
	if st == "" {
		st = "HTTP " + m[3]
	}
	text = fmt.Sprintf("%s for %s %s", st, m[1], m[2])
	if upstream != "" {
		text += " from upstream " + upstream
	}
	return text, upstream, true
}

// Config configures the capability.
type Config struct {
	URL          string
	Token        string
	OrgID        string // X-Scope-OrgID for multi-tenant Loki
	ServiceLabel string
	Timeout      time.Duration
	MaxBody      int64
	// Guard checks the addresses dialled for a user-supplied URL (nil:
	// an operator's URL, unrestricted).
	Guard *httpc.Guard
}

// Capability implements investigate.Capability for Loki.
type Capability struct {
	cfg    Config
	client *httpc.Client
	err    error

	mu sync.Mutex
	// noPatterns: the server answered 404 on /loki/api/v1/patterns (Loki
	// before 3.0, or the pattern ingester off): not asked again.
	noPatterns bool
}

// New builds the capability; a missing URL makes it unavailable.
func New(cfg Config) *Capability {
	if cfg.ServiceLabel == "" {
		cfg.ServiceLabel = DefaultServiceLabel
	}
	c := &Capability{cfg: cfg}
	if strings.TrimSpace(cfg.URL) == "" {
		return c
	}
	h := httpc.Bearer(cfg.Token)
	if cfg.OrgID != "" {
		if h == nil {
			h = map[string][]string{}
		}
		h.Set("X-Scope-OrgID", cfg.OrgID)
	}
	c.client, c.err = httpc.New(httpc.Options{BaseURL: cfg.URL, Header: h, Timeout: cfg.Timeout, MaxBody: cfg.MaxBody, Guard: cfg.Guard})
	return c
}

// Family implements investigate.Capability.
func (c *Capability) Family() investigate.Family { return investigate.FamilyLogs }

// Availability implements investigate.Capability.
func (c *Capability) Availability() investigate.Availability {
	switch {
	case strings.TrimSpace(c.cfg.URL) == "":
		return investigate.Availability{Kind: investigate.ErrKindNotConfigured, Reason: "loki_url is not set"}
	case c.err != nil:
		return investigate.Availability{Kind: investigate.ErrKindNotConfigured, Reason: c.err.Error()}
	}
	return investigate.Availability{Configured: true}
}

// Tools implements investigate.Capability.
func (c *Capability) Tools() []investigate.ToolSpec {
	win := map[string]any{
		"start": map[string]any{"type": "string", "description": "window start, RFC 3339"},
		"end":   map[string]any{"type": "string", "description": "window end, RFC 3339"},
		"limit": map[string]any{"type": "integer", "description": "max lines (default 2000, max 5000)"},
	}
	search := map[string]any{
		"services":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "services to search; empty = all"},
		"namespace": map[string]any{"type": "string"},
		"contains":  map[string]any{"type": "string", "description": "optional extra regular expression the lines must match"},
	}
	query := map[string]any{"query": map[string]any{"type": "string", "description": "a LogQL log query, e.g. {service_name=\"ad\"} |= \"Exception\""}}
	for k, v := range win {
		search[k] = v
		query[k] = v
	}
	return []investigate.ToolSpec{
		{Name: ToolSearchErrors, Family: investigate.FamilyLogs,
			Description: "Search error lines of services in a time window and group them into patterns (error type, count, first/last seen, stack frame).",
			Parameters:  investigate.Schema(search, "start", "end")},
		{Name: ToolQuery, Family: investigate.FamilyLogs, Description: "Run a LogQL log query and group the matching lines into patterns.",
			Parameters: investigate.Schema(query, "query", "start", "end")},
		{Name: ToolPatterns, Family: investigate.FamilyLogs,
			Description: "Log patterns of services in a time window, with their level and counts over time (Loki 3's pattern detection; where the server has none, error lines grouped here).",
			Parameters:  investigate.Schema(search, "start", "end")},
		templatesSpec(win),
	}
}

// Call implements investigate.Capability.
func (c *Capability) Call(ctx context.Context, tool string, args json.RawMessage) (*investigate.ToolResult, error) {
	if av := c.Availability(); !av.Configured {
		return nil, investigate.NewToolError(av.Kind, av.Reason, nil)
	}
	var a struct {
		Services  []string `json:"services"`
		Namespace string   `json:"namespace"`
		Contains  string   `json:"contains"`
		Query     string   `json:"query"`
		Start     string   `json:"start"`
		End       string   `json:"end"`
		Limit     int      `json:"limit"`
	}
	if err := investigate.DecodeArgs(args, &a); err != nil {
		return nil, err
	}
	start, err := investigate.ParseTime(a.Start)
	if err != nil {
		return nil, investigate.NewToolError(investigate.ErrKindInvalidArgs, "start", err)
	}
	end, err := investigate.ParseTime(a.End)
	if err != nil {
		return nil, investigate.NewToolError(investigate.ErrKindInvalidArgs, "end", err)
	}
	if start.IsZero() || !end.After(start) {
		return nil, investigate.NewToolError(investigate.ErrKindInvalidArgs, "start and end are required and end must be after start", nil)
	}
	if a.Limit <= 0 {
		a.Limit = 2000
	}
	a.Limit = min(a.Limit, 5000)
	switch tool {
	case ToolSearchErrors:
		if a.Contains != "" {
			if _, err := regexp.Compile(a.Contains); err != nil {
				return nil, investigate.NewToolError(investigate.ErrKindInvalidArgs, "contains is not a valid regular expression", err)
			}
		}
		q := c.errorQuery(a.Services, a.Namespace, a.Contains)
		streams, err := c.queryRange(ctx, q, start, end, a.Limit)
		if err != nil {
			return nil, err
		}
		warning := ""
		if len(streams) == 0 && len(a.Services) == 0 && a.Namespace == "" {
			// The configured service label may not exist here: retry with the
			// first fallback label the backend knows.
			label, labels := c.discoverLabel(ctx, start, end)
			if label != "" && label != c.cfg.ServiceLabel {
				q = buildQuery(label, nil, "", a.Contains)
				if streams, err = c.queryRange(ctx, q, start, end, a.Limit); err != nil {
					return nil, err
				}
			}
			if labels == 0 {
				warning = "Loki has no log streams in this window: nothing ships logs to it for this tenant, so no error lines does not mean no errors"
			}
		}
		r := c.result(q, streams, a.Limit)
		r.Warning = warning
		return r, nil
	case ToolPatterns:
		return c.patterns(ctx, a.Services, a.Namespace, start, end, a.Limit)
	case ToolTemplates:
		if a.Query != "" || a.Contains != "" {
			return nil, investigate.NewToolError(investigate.ErrKindInvalidArgs, ToolTemplates+" reads every line: it takes no query or contains", nil)
		}
		return c.templates(ctx, a.Services, a.Namespace, start, end)
	case ToolQuery:
		if strings.TrimSpace(a.Query) == "" || !strings.Contains(a.Query, "{") {
			return nil, investigate.NewToolError(investigate.ErrKindInvalidArgs, "query must be a LogQL log query starting with a stream selector", nil)
		}
		streams, err := c.queryRange(ctx, a.Query, start, end, a.Limit)
		if err != nil {
			return nil, err
		}
		return c.result(a.Query, streams, a.Limit), nil
	}
	return nil, fmt.Errorf("%w: %s", investigate.ErrUnknownTool, tool)
}

var labelValueEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

func (c *Capability) errorQuery(services []string, namespace, contains string) string {
	return buildQuery(c.cfg.ServiceLabel, services, namespace, contains)
}

func buildQuery(label string, services []string, namespace, contains string) string {
	q := selector(label, services, namespace) + " |~ `" + ErrorFilter + "`"
	if contains != "" && !strings.Contains(contains, "`") {
		q += " |~ `" + contains + "`"
	}
	return q
}

// selector is the stream selector of services (by label) and namespace;
// every stream with the label when both are empty.
func selector(label string, services []string, namespace string) string {
	var matchers []string
	if len(services) > 0 {
		quoted := make([]string, len(services))
		for i, s := range services {
			quoted[i] = regexp.QuoteMeta(s)
		}
		matchers = append(matchers, fmt.Sprintf(`%s=~"%s"`, label, labelValueEscaper.Replace(strings.Join(quoted, "|"))))
	}
	if namespace != "" {
		matchers = append(matchers, fmt.Sprintf(`namespace="%s"`, labelValueEscaper.Replace(namespace)))
	}
	if len(matchers) == 0 {
		matchers = append(matchers, label+`=~".+"`)
	}
	return "{" + strings.Join(matchers, ", ") + "}"
}

// discoverLabel returns the first fallback service label the backend knows
// in the window, and how many labels it knows (-1 when it could not say).
func (c *Capability) discoverLabel(ctx context.Context, start, end time.Time) (string, int) {
	q := url.Values{}
	q.Set("start", strconv.FormatInt(start.UnixNano(), 10))
	q.Set("end", strconv.FormatInt(end.UnixNano(), 10))
	var body struct {
		Data []string `json:"data"`
	}
	if err := c.client.GetJSON(ctx, "/loki/api/v1/labels", q, &body); err != nil {
		return "", -1
	}
	have := map[string]bool{}
	for _, l := range body.Data {
		have[l] = true
	}
	for _, l := range fallbackServiceLabels {
		if have[l] {
			return l, len(body.Data)
		}
	}
	return "", len(body.Data)
}

type stream struct {
	Stream map[string]string `json:"stream"`
	Values [][2]string       `json:"values"`
}

// rangeAnswer is Loki's query_range envelope; the result is decoded by
// its type (streams of log lines, or a matrix of counts).
type rangeAnswer struct {
	Status string `json:"status"`
	Data   struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	} `json:"data"`
}

// getRange sends one query_range request.
func (c *Capability) getRange(ctx context.Context, v url.Values) (rangeAnswer, error) {
	var body rangeAnswer
	err := c.client.GetJSON(ctx, "/loki/api/v1/query_range", v, &body)
	return body, err
}

func (c *Capability) queryRange(ctx context.Context, query string, start, end time.Time, limit int) ([]stream, error) {
	q := url.Values{}
	q.Set("query", query)
	q.Set("start", strconv.FormatInt(start.UnixNano(), 10))
	q.Set("end", strconv.FormatInt(end.UnixNano(), 10))
	q.Set("limit", strconv.Itoa(limit))
	q.Set("direction", "backward")
	body, err := c.getRange(ctx, q)
	if err != nil {
		return nil, err
	}
	if body.Status != "success" {
		return nil, investigate.NewToolError(investigate.ErrKindBadResponse, fmt.Sprintf("loki status %q", body.Status), nil)
	}
	if body.Data.ResultType != "streams" {
		return nil, investigate.NewToolError(investigate.ErrKindInvalidArgs, fmt.Sprintf("query returned %q, want log lines (streams)", body.Data.ResultType), nil)
	}
	var streams []stream
	if err := json.Unmarshal(body.Data.Result, &streams); err != nil {
		return nil, investigate.NewToolError(investigate.ErrKindBadResponse, "streams result", err)
	}
	return streams, nil
}

// ServiceOf names the service of a stream from its labels.
func ServiceOf(labels map[string]string, preferred string) string {
	for _, l := range append([]string{preferred}, fallbackServiceLabels...) {
		if v := labels[l]; v != "" {
			if l == "job" {
				if i := strings.LastIndex(v, "/"); i >= 0 {
					v = v[i+1:]
				}
			}
			return v
		}
	}
	if p := labels["pod"]; p != "" {
		return PodWorkload(p)
	}
	return ""
}

var podSuffixRE = regexp.MustCompile(`-(?:[a-z0-9]{6,10}-[a-z0-9]{5}|[a-z0-9]{5}|\d+)$`)

// PodWorkload strips the ReplicaSet hash and pod suffix: cart-dzq4gtp8tn-wp7rz -> cart.
func PodWorkload(pod string) string { return podSuffixRE.ReplaceAllString(pod, "") }

type pattern struct {
	f       investigate.Finding
	samples []string
	records investigate.Records
	hours   map[int]bool // hours of the day (UTC) it occurred in
}

func (c *Capability) result(query string, streams []stream, limit int) *investigate.ToolResult {
	groups := map[string]*pattern{}
	var order []string
	lines, errorLines := 0, 0
	services := map[string]int{}
	for _, st := range streams {
		svc := ServiceOf(st.Stream, c.cfg.ServiceLabel)
		labelLevel := investigate.NormalizeLevel(firstNonEmpty(st.Stream["level"], st.Stream["severity"], st.Stream["detected_level"]))
		for _, v := range st.Values {
			lines++
			ns, err := strconv.ParseInt(v[0], 10, 64)
			if err != nil {
				continue
			}
			at := time.Unix(0, ns).UTC()
			text, level := investigate.LogText(v[1])
			if level == "" {
				level = labelLevel
			}
			upstream := ""
			if t, up, ok := AccessLogText(v[1]); ok {
				text, upstream, level = t, up, "error"
			}
			f, ok := investigate.TextFinding(investigate.KindLogPattern, investigate.FamilyLogs, svc, text, at)
			if !ok {
				if level != "error" {
					continue // a line that matched the filter but is neither an error nor a known failure
				}
				f = investigate.Finding{Kind: investigate.KindLogPattern, Family: investigate.FamilyLogs, Service: svc,
					ErrorType: investigate.ErrUnknown, Time: at, LastTime: at, Count: 1, Quote: investigate.Quote(text, 200)}
			}
			if f.Attrs == nil {
				f.Attrs = map[string]string{}
			}
			f.Attrs["level"] = level
			if upstream != "" {
				f.Attrs["upstream"] = upstream
			}
			if f.Attrs["causes"] == "" && len(text) > len(f.Quote)+20 {
				f.Attrs["detail"] = investigate.Quote(strings.ReplaceAll(text, "\n", " | "), 400)
			}
			if pod := st.Stream["pod"]; pod != "" {
				f.Attrs["pod"] = pod
			}
			errorLines++
			services[svc]++
			key := svc + "|" + f.Signature + "|" + investigate.Template(f.Quote)
			g, ok := groups[key]
			if !ok {
				g = &pattern{f: f, hours: map[int]bool{}}
				g.f.Count = 0
				groups[key] = g
				order = append(order, key)
			}
			g.f.Count++
			if at.Before(g.f.Time) {
				g.f.Time = at
				g.f.Quote = f.Quote
			}
			if at.After(g.f.LastTime) {
				g.f.LastTime = at
			}
			if g.f.File == "" && f.File != "" {
				g.f.File, g.f.Line, g.f.Function, g.f.Frames = f.File, f.Line, f.Function, f.Frames
			}
			g.hours[at.Hour()] = true
			if len(g.samples) < 2 {
				g.samples = append(g.samples, investigate.Quote(v[1], 300))
			}
			g.records.Add(v[1])
		}
	}
	var findings []investigate.Finding
	type view struct {
		Service, Signature, ErrorType, Quote, File, Level string
		Line, Count                                       int
		First, Last                                       time.Time
		Samples                                           []string
	}
	var views []view
	sort.SliceStable(order, func(i, j int) bool { return groups[order[i]].f.Count > groups[order[j]].f.Count })
	for _, k := range order {
		g := groups[k]
		if rec := g.records.Attr(); rec != "" {
			g.f.Attrs["records"] = rec
		}
		// The hours of the day (UTC) the pattern occurred in, when few:
		// failures that recur at one hour are clock-dependent.
		if len(g.hours) <= 3 && g.f.Count >= 2 {
			var hs []string
			for h := range g.hours {
				hs = append(hs, fmt.Sprintf("%02d", h))
			}
			sort.Strings(hs)
			g.f.Attrs["hours_utc"] = strings.Join(hs, ",")
		}
		findings = append(findings, g.f)
		if len(views) < 25 {
			views = append(views, view{Service: g.f.Service, Signature: g.f.Signature, ErrorType: string(g.f.ErrorType), Quote: g.f.Quote,
				File: g.f.File, Line: g.f.Line, Level: g.f.Attrs["level"], Count: g.f.Count, First: g.f.Time, Last: g.f.LastTime, Samples: g.samples})
		}
	}
	sum := fmt.Sprintf("%d error lines in %d patterns", errorLines, len(findings))
	if len(findings) > 0 {
		top := findings[0]
		sum += fmt.Sprintf("; top: %s %s ×%d", top.Service, firstNonEmpty(top.Exception, top.Signature, "error"), top.Count)
	}
	if lines >= limit {
		sum += fmt.Sprintf(" (limit %d reached)", limit)
	}
	return &investigate.ToolResult{Summary: sum, Findings: findings,
		Data: map[string]any{"query": query, "lines": lines, "error_lines_by_service": services, "patterns": views}}
}

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}
