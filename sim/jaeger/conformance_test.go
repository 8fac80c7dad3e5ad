package jaeger_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/internal/jaegertest"
	"github.com/autoheal/autoheal/scenario"
	jaegersim "github.com/autoheal/autoheal/sim/jaeger"
)

// answer is what a query returned, reduced to what must agree between the
// real Jaeger and the simulator: the status, the set of names (services,
// operations) or traces, and each trace's failing spans.
type answer struct {
	Status int
	Names  []string            `json:",omitempty"`
	Traces map[string][]string `json:",omitempty"` // trace ID -> sorted failing span IDs
}

// TestConformanceWithRealJaeger sends the same queries to Jaeger v1.75.0
// (default all-in-one, memory storage, the scenario exported to it over
// OTLP/HTTP) and to the simulator, through both APIs, and requires the same
// answers. Jaeger's own service (it traces its queries) is the one
// difference allowed in service listings.
func TestConformanceWithRealJaeger(t *testing.T) {
	jaegertest.Require(t)
	for _, name := range []string{"ad-npe-missing-context", "cart-oomkilled-low-limit", "checkout-fails-payment-typeerror"} {
		t.Run(name, func(t *testing.T) {
			sc, err := scenario.Load(filepath.Join("../../testdata/examples", name))
			require.NoError(t, err)
			real := jaegertest.Start(t)
			real.LoadTraces(t, sc.Traces)
			h, err := jaegersim.New(sc.Traces, jaegersim.Options{Now: sc.Now})
			require.NoError(t, err)
			sim := httptest.NewServer(h)
			t.Cleanup(sim.Close)

			queries := conformanceQueries(t, sc)
			for _, q := range queries {
				want := ask(t, real.QueryURL, q)
				got := ask(t, sim.URL, q)
				if strings.HasSuffix(q.path, "/services") {
					want.Names = withoutSelf(want.Names)
				}
				assert.Equal(t, want, got, "%s?%s", q.path, q.query.Encode())
			}
			t.Logf("%d queries answered alike", len(queries))
		})
	}
}

type query struct {
	path  string
	query url.Values
}

// conformanceQueries are the queries of the engine and those whose
// handling differs between storages: status and attribute filters, depth
// limits, parameter spellings, time windows.
func conformanceQueries(t *testing.T, sc *scenario.Scenario) []query {
	t.Helper()
	from, to := sc.Now.Add(-6*time.Hour), sc.Now
	us := func(tm time.Time) string { return strconv.FormatInt(tm.UnixMicro(), 10) }
	rfc := func(tm time.Time) string { return tm.UTC().Format(time.RFC3339Nano) }
	services := map[string]bool{}
	var exceptionType, hostName, operation, traceID string
	for _, tr := range sc.Traces.Data {
		traceID = tr.TraceID
		for _, s := range tr.Spans {
			services[tr.Processes[s.ProcessID].ServiceName] = true
			operation = s.OperationName
			for _, l := range s.Logs {
				for _, f := range l.Fields {
					if f.Key == "exception.type" {
						exceptionType = fmt.Sprint(f.Value)
					}
				}
			}
			for _, kv := range tr.Processes[s.ProcessID].Tags {
				if kv.Key == "host.name" {
					hostName = fmt.Sprint(kv.Value)
				}
			}
		}
	}
	qs := []query{
		{path: "/api/services"},
		{path: "/api/v3/services"},
		{path: "/api/traces/" + traceID},
		{path: "/api/v3/traces/" + traceID},
		{path: "/api/traces/00000000000000000000000000000001"},
		{path: "/api/v3/traces/00000000000000000000000000000001"},
		{path: "/api/traces", query: url.Values{"start": {us(from)}, "end": {us(to)}}}, // no service: 400
	}
	for svc := range services {
		v1 := func(extra url.Values) query {
			q := url.Values{"service": {svc}, "start": {us(from)}, "end": {us(to)}, "limit": {"1000"}}
			for k, v := range extra {
				q[k] = v
			}
			return query{path: "/api/traces", query: q}
		}
		v3 := func(extra url.Values) query {
			q := url.Values{"query.service_name": {svc}, "query.start_time_min": {rfc(from)}, "query.start_time_max": {rfc(to)}, "query.num_traces": {"1000"}}
			for k, v := range extra {
				q[k] = v
			}
			return query{path: "/api/v3/traces", query: q}
		}
		qs = append(qs,
			query{path: "/api/services/" + svc + "/operations"},
			query{path: "/api/v3/operations", query: url.Values{"service": {svc}}},
			query{path: "/api/v3/operations", query: url.Values{"service": {svc}, "span_kind": {"server"}}},
			v1(nil),
			v1(url.Values{"tags": {`{"error":"true"}`}}),
			v1(url.Values{"tags": {`{"otel.status_code":"ERROR"}`}}),
			v1(url.Values{"tag": {"error:true"}}),
			v1(url.Values{"tags": {`{"exception.type":"` + exceptionType + `"}`}}),
			v1(url.Values{"tags": {`{"host.name":"` + hostName + `"}`}}),
			v1(url.Values{"tags": {`{"span.kind":"server"}`}}),
			v1(url.Values{"limit": {"2"}}),
			v1(url.Values{"limit": {"0"}}),
			v1(url.Values{"limit": {"-1"}}),
			v1(url.Values{"minDuration": {"2ms"}}),
			v1(url.Values{"operation": {operation}}),
			v1(url.Values{"start": {us(sc.Now.Add(-10 * time.Minute))}}),
			v3(nil),
			v3(url.Values{"query.attributes": {`{"error":"true"}`}}),
			v3(url.Values{"query.num_traces": {"2"}}),
			v3(url.Values{"query.num_traces": nil, "query.search_depth": {"20"}}),
			v3(url.Values{"query.operation_name": {operation}}),
			v3(url.Values{"query.duration_min": {"2ms"}}),
			v3(url.Values{"query.start_time_min": {rfc(sc.Now.Add(-10 * time.Minute))}}),
			query{path: "/api/v3/traces", query: url.Values{"query.serviceName": {svc}, "query.startTimeMin": {rfc(from)}, "query.startTimeMax": {rfc(to)}, "query.num_traces": {"20"}}},
		)
	}
	return qs
}

// ask sends a query and reduces the answer.
func ask(t *testing.T, base string, q query) answer {
	t.Helper()
	u := base + q.path
	if len(q.query) > 0 {
		u += "?" + q.query.Encode()
	}
	resp, err := http.Get(u)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	a := answer{Status: resp.StatusCode}
	if resp.StatusCode != http.StatusOK {
		return a
	}
	switch {
	case q.path == "/api/services", strings.HasSuffix(q.path, "/operations") && !strings.HasPrefix(q.path, "/api/v3"):
		var r struct{ Data []string }
		require.NoError(t, json.Unmarshal(body, &r), string(body))
		a.Names = sorted(r.Data)
	case q.path == "/api/v3/services":
		var r struct{ Services []string }
		require.NoError(t, json.Unmarshal(body, &r), string(body))
		a.Names = sorted(r.Services)
	case q.path == "/api/v3/operations":
		var r struct {
			Operations []struct{ Name, SpanKind string }
		}
		require.NoError(t, json.Unmarshal(body, &r), string(body))
		for _, op := range r.Operations {
			a.Names = append(a.Names, op.Name+"/"+op.SpanKind)
		}
		a.Names = sorted(a.Names)
	case strings.HasPrefix(q.path, "/api/v3/traces"):
		a.Traces = v3Traces(t, body)
	default:
		a.Traces = v1Traces(t, body)
	}
	return a
}

func v1Traces(t *testing.T, body []byte) map[string][]string {
	var r struct {
		Data []struct {
			TraceID string
			Spans   []struct {
				SpanID string
				Tags   []struct {
					Key   string
					Value any
				}
			}
		}
	}
	require.NoError(t, json.Unmarshal(body, &r), string(body))
	out := map[string][]string{}
	for _, tr := range r.Data {
		failing := []string{}
		for _, s := range tr.Spans {
			for _, kv := range s.Tags {
				if (kv.Key == "otel.status_code" && kv.Value == "ERROR") || (kv.Key == "error" && (kv.Value == true || kv.Value == "true")) {
					failing = append(failing, s.SpanID)
					break
				}
			}
		}
		out[tr.TraceID] = sorted(failing)
	}
	return out
}

func v3Traces(t *testing.T, body []byte) map[string][]string {
	var r struct {
		Result struct {
			ResourceSpans []struct {
				ScopeSpans []struct {
					Spans []struct {
						TraceID, SpanID string
						Status          struct{ Code json.RawMessage }
					}
				}
			}
		}
	}
	require.NoError(t, json.Unmarshal(body, &r), string(body))
	out := map[string][]string{}
	for _, rs := range r.Result.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				if _, ok := out[s.TraceID]; !ok {
					out[s.TraceID] = []string{}
				}
				if c := strings.Trim(string(s.Status.Code), `"`); c == "2" || c == "STATUS_CODE_ERROR" {
					out[s.TraceID] = append(out[s.TraceID], s.SpanID)
				}
			}
		}
	}
	for k, v := range out {
		out[k] = sorted(v)
	}
	return out
}

func withoutSelf(names []string) []string {
	var out []string
	for _, n := range names {
		if n != "jaeger" {
			out = append(out, n)
		}
	}
	return out
}

func sorted(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
