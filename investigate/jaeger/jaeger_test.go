package jaeger_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/jaeger"
	"github.com/autoheal/autoheal/scenario"
	jaegersim "github.com/autoheal/autoheal/sim/jaeger"
)

func serve(t *testing.T, wrap func(http.Handler) http.Handler) (*httptest.Server, *scenario.Scenario) {
	t.Helper()
	s, err := scenario.Load("../../testdata/examples/ad-npe-missing-context")
	require.NoError(t, err)
	h, err := jaegersim.New(s.Traces, jaegersim.Options{Now: s.Now})
	require.NoError(t, err)
	var hh http.Handler = h
	if wrap != nil {
		hh = wrap(h)
	}
	srv := httptest.NewServer(hh)
	t.Cleanup(srv.Close)
	return srv, s
}

func search(t *testing.T, c *jaeger.Capability, s *scenario.Scenario) *investigate.ToolResult {
	t.Helper()
	args, _ := json.Marshal(map[string]any{"start": s.Now.Add(-time.Hour).Format(time.RFC3339), "end": s.Now.Format(time.RFC3339)})
	res, err := c.Call(context.Background(), jaeger.ToolSearchErrors, args)
	require.NoError(t, err)
	return res
}

func originIn(res *investigate.ToolResult, service string) *investigate.Finding {
	for i, f := range res.Findings {
		if f.Service == service && f.Kind == investigate.KindException {
			return &res.Findings[i]
		}
	}
	return nil
}

// Both search APIs lead to the same failure origin: the NPE in ad with its frame.
func TestSearchErrorsV1AndV3(t *testing.T) {
	for _, api := range []jaeger.API{jaeger.APIv1, jaeger.APIv3} {
		t.Run(string(api), func(t *testing.T) {
			srv, s := serve(t, nil)
			c := jaeger.New(jaeger.Config{URL: srv.URL, API: api})
			res := search(t, c, s)
			f := originIn(res, "ad")
			require.NotNil(t, f, res.Summary)
			assert.Equal(t, "java.lang.NullPointerException", f.Exception)
			assert.Equal(t, investigate.ErrNullPointer, f.ErrorType)
			assert.Equal(t, "AdService.java", f.File)
			assert.Equal(t, 137, f.Line)
			assert.Equal(t, 9, f.Count)
			assert.Nil(t, originIn(res, "frontend"), "frontend only relays the failure")
		})
	}
}

// auto: a Jaeger that only serves api_v3 (v1 answers 404) is used through v3.
func TestAutoFallsBackToV3(t *testing.T) {
	var v1Calls int
	srv, s := serve(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.HasPrefix(r.URL.Path, "/api/v3/") {
				v1Calls++
				http.NotFound(w, r)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	c := jaeger.New(jaeger.Config{URL: srv.URL})
	res := search(t, c, s)
	require.NotNil(t, originIn(res, "ad"))
	assert.Equal(t, 1, v1Calls, "the API is probed once")
}

func TestAvailabilityAndBadArgs(t *testing.T) {
	c := jaeger.New(jaeger.Config{})
	av := c.Availability()
	assert.False(t, av.Configured)
	assert.Equal(t, investigate.ErrKindNotConfigured, av.Kind)
	assert.Contains(t, av.Reason, "jaeger_url")

	srv, _ := serve(t, nil)
	c = jaeger.New(jaeger.Config{URL: srv.URL})
	_, err := c.Call(context.Background(), jaeger.ToolSearchErrors, json.RawMessage(`{"start":"yesterday","end":"now"}`))
	assert.Equal(t, investigate.ErrKindInvalidArgs, investigate.KindOf(err))
	_, err = c.Call(context.Background(), jaeger.ToolSearchErrors, json.RawMessage(`{"bogus":1}`))
	assert.Equal(t, investigate.ErrKindInvalidArgs, investigate.KindOf(err))
	_, err = c.Call(context.Background(), jaeger.ToolGetTrace, json.RawMessage(`{"trace_id":"../../etc"}`))
	assert.Equal(t, investigate.ErrKindInvalidArgs, investigate.KindOf(err))
}

// Healthy traces are never counted as failing: the ad example has 24
// traces, 9 of which fail; both APIs end up with exactly the 9, although
// neither the simulator (like Jaeger's memory store) nor api_v3 filters by
// status server-side.
func TestHealthyTracesAreNotFailing(t *testing.T) {
	for _, api := range []jaeger.API{jaeger.APIv1, jaeger.APIv3} {
		t.Run(string(api), func(t *testing.T) {
			srv, s := serve(t, nil)
			c := jaeger.New(jaeger.Config{URL: srv.URL, API: api})
			res := search(t, c, s)
			data := res.Data.(map[string]any)
			assert.Equal(t, 9, data["traces"], "only failing traces are analysed")
			assert.Equal(t, 9, data["failing_traces"])
			assert.Contains(t, res.Summary, "were scanned here", "the receipt says the search could not filter server-side")
			assert.Empty(t, res.Warning, "every trace of the window was scanned: the answer is complete")
		})
	}
}

// manyTraces is a scenario of n healthy traces of one service, one a second.
func manyTraces(n int, end time.Time, failingFirst bool) *scenario.Traces {
	out := &scenario.Traces{}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("%032x", i+1)
		span := scenario.Span{TraceID: id, SpanID: fmt.Sprintf("%016x", i+1), OperationName: "GET /", ProcessID: "p1",
			StartTime: end.Add(-time.Duration(n-i) * time.Second).UnixMicro(), Duration: 1000,
			Tags: []scenario.KeyValue{{Key: "span.kind", Type: "string", Value: "server"}}}
		if failingFirst && i == 0 {
			span.Tags = append(span.Tags, scenario.KeyValue{Key: "otel.status_code", Type: "string", Value: "ERROR"})
		}
		out.Data = append(out.Data, scenario.Trace{TraceID: id, Spans: []scenario.Span{span},
			Processes: map[string]scenario.Process{"p1": {ServiceName: "web"}}})
	}
	return out
}

// A client-side scan that reached its depth without a failure cannot say
// "no failures": older traces of the window were not read. That is a
// warning, not a silent 0.
func TestSaturatedScanIsAWarning(t *testing.T) {
	end := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	for _, api := range []jaeger.API{jaeger.APIv1, jaeger.APIv3} {
		t.Run(string(api), func(t *testing.T) {
			h, err := jaegersim.New(manyTraces(150, end, true), jaegersim.Options{Now: end})
			require.NoError(t, err)
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			c := jaeger.New(jaeger.Config{URL: srv.URL, API: api})
			args, _ := json.Marshal(map[string]any{"start": end.Add(-time.Hour).Format(time.RFC3339), "end": end.Format(time.RFC3339), "limit": 5})
			res, err := c.Call(context.Background(), jaeger.ToolSearchErrors, args)
			require.NoError(t, err)
			assert.Contains(t, res.Summary, "0 failing traces")
			assert.Contains(t, res.Warning, "web had more traces in the window than one answer holds (up to 100 are read): only the newest were scanned")

			// The same window with fewer traces is read whole: no warning.
			h, err = jaegersim.New(manyTraces(50, end, true), jaegersim.Options{Now: end})
			require.NoError(t, err)
			srv2 := httptest.NewServer(h)
			t.Cleanup(srv2.Close)
			c = jaeger.New(jaeger.Config{URL: srv2.URL, API: api})
			res, err = c.Call(context.Background(), jaeger.ToolSearchErrors, args)
			require.NoError(t, err)
			assert.Contains(t, res.Summary, "1 failing traces")
			assert.Empty(t, res.Warning)
		})
	}
}

// A storage that keeps Jaeger's tags (Elasticsearch, Cassandra, Badger)
// filters error=true itself: one search, no scan.
func TestTagFilteringStorageIsSearchedOnce(t *testing.T) {
	end := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	traces := manyTraces(30, end, true)
	failing := scenario.Traces{Data: traces.Data[:1]}
	var queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/services":
			_, _ = w.Write([]byte(`{"data":["web","jaeger"]}`))
		case "/api/traces":
			queries = append(queries, r.URL.Query().Get("tags"))
			body := traces
			if r.URL.Query().Get("tags") == `{"error":"true"}` {
				body = &failing
			}
			_ = json.NewEncoder(w).Encode(body)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	c := jaeger.New(jaeger.Config{URL: srv.URL, API: jaeger.APIv1})
	args, _ := json.Marshal(map[string]any{"start": end.Add(-time.Hour).Format(time.RFC3339), "end": end.Format(time.RFC3339)})
	res, err := c.Call(context.Background(), jaeger.ToolSearchErrors, args)
	require.NoError(t, err)
	assert.Equal(t, []string{`{"error":"true"}`}, queries, "jaeger itself is not searched; the filtered search suffices")
	assert.Contains(t, res.Summary, "1 failing traces in web")
	assert.NotContains(t, res.Summary, "scanned")
}

// api_v3 bodies may spell enums as numbers (OTLP/JSON) or names (the
// protobuf JSON mapping): both are read.
func TestStatusCodesAsNumbersOrNames(t *testing.T) {
	body := `{"result":{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"web"}}]},
	  "scopeSpans":[{"spans":[
	    {"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331","name":"GET /a","kind":"SPAN_KIND_SERVER",
	     "startTimeUnixNano":"1764496800000000000","endTimeUnixNano":"1764496800100000000","status":{"code":"STATUS_CODE_ERROR","message":"boom"}},
	    {"traceId":"0af7651916cd43dd8448eb211c80319d","spanId":"b7ad6b7169203332","name":"GET /b","kind":2,
	     "startTimeUnixNano":"1764496801000000000","endTimeUnixNano":"1764496801100000000","status":{"code":2}},
	    {"traceId":"0af7651916cd43dd8448eb211c80319e","spanId":"b7ad6b7169203333","name":"GET /c","kind":2,
	     "startTimeUnixNano":"1764496802000000000","endTimeUnixNano":"1764496802100000000","status":{"code":"STATUS_CODE_OK"}},
	    {"traceId":"0af7651916cd43dd8448eb211c80319f","spanId":"b7ad6b7169203334","name":"GET /d","kind":2,
	     "startTimeUnixNano":"1764496803000000000","endTimeUnixNano":"1764496803100000000","status":{}}]}]}]}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v3/services":
			_, _ = w.Write([]byte(`{"services":["web"]}`))
		case "/api/v3/traces":
			assert.Equal(t, "200", r.URL.Query().Get("query.num_traces"), "the depth 1.75 reads")
			assert.Empty(t, r.URL.Query().Get("query.search_depth"))
			assert.Empty(t, r.URL.Query().Get("query.attributes"), "ignored by the gateway: not sent")
			_, _ = w.Write([]byte(body))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	c := jaeger.New(jaeger.Config{URL: srv.URL, API: jaeger.APIv3})
	args, _ := json.Marshal(map[string]any{"start": "2025-11-30T09:00:00Z", "end": "2025-11-30T11:00:00Z"})
	res, err := c.Call(context.Background(), jaeger.ToolSearchErrors, args)
	require.NoError(t, err)
	assert.Equal(t, 2, res.Data.(map[string]any)["failing_traces"])
	assert.Equal(t, map[string]int{"web": 2}, res.Data.(map[string]any)["error_spans_by_service"])
}

// Jaeger that lists no service, or only its own: the search answers, but
// "0 failing traces" would be wrong to trust.
func TestNoApplicationServicesIsAWarning(t *testing.T) {
	for name, services := range map[string]string{"none": `[]`, "only jaeger's own": `["jaeger"]`} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/api/services" {
					_, _ = w.Write([]byte(`{"data":` + services + `}`))
					return
				}
				t.Errorf("unexpected %s", r.URL)
			}))
			t.Cleanup(srv.Close)
			c := jaeger.New(jaeger.Config{URL: srv.URL, API: jaeger.APIv1})
			res, err := c.Call(context.Background(), jaeger.ToolSearchErrors, json.RawMessage(`{"start":"2026-11-30T09:00:00Z","end":"2026-11-30T10:00:00Z"}`))
			require.NoError(t, err)
			assert.Contains(t, res.Warning, "Jaeger lists no service")
			res, err = c.Call(context.Background(), jaeger.ToolServices, nil)
			require.NoError(t, err)
			assert.Contains(t, res.Warning, "Jaeger lists no service")
		})
	}
}

// Traces too big for one answer at full depth are read fewer at a time
// (the newest), and the cut scan is said.
func TestScanOfBigTracesIsCut(t *testing.T) {
	end := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	h, err := jaegersim.New(manyTraces(150, end, true), jaegersim.Options{Now: end})
	require.NoError(t, err)
	var depths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/traces" {
			depths = append(depths, r.URL.Query().Get("limit"))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	c := jaeger.New(jaeger.Config{URL: srv.URL, API: jaeger.APIv1, MaxBody: 16 << 10})
	args, _ := json.Marshal(map[string]any{"start": end.Add(-time.Hour).Format(time.RFC3339), "end": end.Format(time.RFC3339), "limit": 5})
	res, err := c.Call(context.Background(), jaeger.ToolSearchErrors, args)
	require.NoError(t, err)
	assert.Equal(t, []string{"5", "100", "25"}, depths, "the error=true search, the full scan, the cut scan")
	assert.Contains(t, res.Summary, "0 failing traces")
	assert.Contains(t, res.Warning, "only the newest were scanned")
}
