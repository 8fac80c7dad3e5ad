package jaeger

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/scenario"
)

// OTLP JSON as a client decodes it, with the wire types kept (int64 as
// strings, enums as numbers).
type otlpResult struct {
	Result struct {
		ResourceSpans []struct {
			Resource struct {
				Attributes []otlpAttr `json:"attributes"`
			} `json:"resource"`
			ScopeSpans []struct {
				Scope struct {
					Name string `json:"name"`
				} `json:"scope"`
				Spans []struct {
					TraceID           string     `json:"traceId"`
					SpanID            string     `json:"spanId"`
					ParentSpanID      string     `json:"parentSpanId"`
					Name              string     `json:"name"`
					Kind              int        `json:"kind"`
					StartTimeUnixNano string     `json:"startTimeUnixNano"`
					EndTimeUnixNano   string     `json:"endTimeUnixNano"`
					Attributes        []otlpAttr `json:"attributes"`
					Events            []struct {
						TimeUnixNano string     `json:"timeUnixNano"`
						Name         string     `json:"name"`
						Attributes   []otlpAttr `json:"attributes"`
					} `json:"events"`
					Status struct {
						Code    int    `json:"code"`
						Message string `json:"message"`
					} `json:"status"`
				} `json:"spans"`
			} `json:"scopeSpans"`
		} `json:"resourceSpans"`
	} `json:"result"`
}

type otlpAttr struct {
	Key   string         `json:"key"`
	Value map[string]any `json:"value"`
}

func attr(attrs []otlpAttr, key string) (map[string]any, bool) {
	for _, a := range attrs {
		if a.Key == key {
			return a.Value, true
		}
	}
	return nil, false
}

func rfc(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func TestV3ServicesAndOperations(t *testing.T) {
	sc := loadScenario(t, "ad-npe-missing-context")
	srv := server(t, sc, nil)

	code, _, body := get(t, srv.URL, "/api/v3/services", nil)
	require.Equal(t, http.StatusOK, code)
	var services struct {
		Services []string `json:"services"`
	}
	require.NoError(t, json.Unmarshal(body, &services))
	assert.Contains(t, services.Services, "ad")

	code, _, body = get(t, srv.URL, "/api/v3/operations", url.Values{"service": {"ad"}, "span_kind": {"server"}})
	require.Equal(t, http.StatusOK, code)
	assert.JSONEq(t, `{"operations":[{"name":"shop.AdService/GetAds","spanKind":"server"}]}`, string(body))

	code, _, body = get(t, srv.URL, "/api/v3/operations", url.Values{"service": {"nope"}})
	require.Equal(t, http.StatusOK, code)
	assert.JSONEq(t, `{}`, string(body), "proto3 JSON omits empty lists")
}

func TestV3SearchConvertsToOTLP(t *testing.T) {
	sc := loadScenario(t, "ad-npe-missing-context")
	srv := server(t, sc, nil)
	deploy := time.Date(2026, 11, 30, 10, 4, 0, 0, time.UTC)

	code, hdr, body := get(t, srv.URL, "/api/v3/traces", url.Values{
		"query.service_name":   {"ad"},
		"query.start_time_min": {rfc(deploy)},
		"query.start_time_max": {rfc(sc.Now)},
		"query.num_traces":     {"3"},
	})
	require.Equal(t, http.StatusOK, code, string(body))
	assert.Equal(t, "application/json", hdr.Get("Content-Type"))
	var res otlpResult
	require.NoError(t, json.Unmarshal(body, &res))

	traceIDs := map[string]bool{}
	var adServer int
	for _, rs := range res.Result.ResourceSpans {
		svc, ok := attr(rs.Resource.Attributes, "service.name")
		require.True(t, ok, "every resource names its service")
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				traceIDs[s.TraceID] = true
				assert.Len(t, s.TraceID, 32)
				assert.Len(t, s.SpanID, 16)
				start, err := strconv.ParseInt(s.StartTimeUnixNano, 10, 64)
				require.NoError(t, err)
				end, err := strconv.ParseInt(s.EndTimeUnixNano, 10, 64)
				require.NoError(t, err)
				assert.Greater(t, end, start)
				for _, mapped := range []string{"span.kind", "otel.status_code", "otel.status_description", "otel.scope.name"} {
					_, present := attr(s.Attributes, mapped)
					assert.False(t, present, "%s maps to a span field", mapped)
				}
				if svc["stringValue"] != "ad" || s.Kind != kindServer || len(s.Events) == 0 {
					continue
				}
				adServer++
				assert.Equal(t, "io.opentelemetry.grpc-1.6", ss.Scope.Name)
				assert.Equal(t, statusError, s.Status.Code)
				assert.NotEmpty(t, s.ParentSpanID)
				port, ok := attr(s.Attributes, "server.port")
				require.True(t, ok)
				assert.Equal(t, "9555", port["intValue"], "int64 attributes are strings in OTLP JSON")
				require.NotEmpty(t, s.Events)
				ev := s.Events[0]
				assert.Equal(t, "exception", ev.Name)
				typ, ok := attr(ev.Attributes, "exception.type")
				require.True(t, ok)
				assert.Equal(t, "java.lang.NullPointerException", typ["stringValue"])
				_, hasEvent := attr(ev.Attributes, "event")
				assert.False(t, hasEvent, "the event field becomes the event name")
			}
		}
	}
	assert.Len(t, traceIDs, 3, "search depth limits traces")
	assert.Positive(t, adServer, "the newest ad traces include a failing call")
}

func TestV3TraceByIDMatchesV1(t *testing.T) {
	sc := loadScenario(t, "ad-npe-missing-context")
	srv := server(t, sc, nil)
	const id = "8227eeacd6b1fa5bb0f02ff55b39b046"
	var src scenario.Trace
	for _, tr := range sc.Traces.Data {
		if tr.TraceID == id {
			src = tr
		}
	}
	require.NotEmpty(t, src.Spans)

	code, _, body := get(t, srv.URL, "/api/v3/traces/"+id, nil)
	require.Equal(t, http.StatusOK, code, string(body))
	var res otlpResult
	require.NoError(t, json.Unmarshal(body, &res))

	type got struct {
		service, parent, name string
		kind, code            int
		message               string
		start                 string
	}
	spans := map[string]got{}
	for _, rs := range res.Result.ResourceSpans {
		svc, _ := attr(rs.Resource.Attributes, "service.name")
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				spans[s.SpanID] = got{svc["stringValue"].(string), s.ParentSpanID, s.Name, s.Kind, s.Status.Code, s.Status.Message, s.StartTimeUnixNano}
			}
		}
	}
	require.Len(t, spans, len(src.Spans))
	for _, s := range src.Spans {
		g, ok := spans[s.SpanID]
		require.True(t, ok, s.SpanID)
		assert.Equal(t, serviceOf(src, s), g.service)
		assert.Equal(t, s.OperationName, g.name)
		assert.Equal(t, strconv.FormatInt(s.StartTime*1000, 10), g.start)
		if len(s.References) > 0 {
			assert.Equal(t, s.References[0].SpanID, g.parent)
		} else {
			assert.Empty(t, g.parent)
		}
	}
	// The gRPC client span: error with the status description as message.
	client := spans["ffc3017dc6f4ef9a"]
	assert.Equal(t, kindClient, client.kind)
	assert.Equal(t, statusError, client.code)
	assert.Equal(t, "Application error processing RPC", client.message)
	// The proxy span has error as a *string* tag: otel.status_code decides.
	assert.Equal(t, statusError, spans["2b662922c109136b"].code)

	code, _, body = get(t, srv.URL, "/api/v3/traces/0123456789abcdef", nil)
	require.Equal(t, http.StatusNotFound, code)
	assert.JSONEq(t, `{"error":{"httpCode":404,"message":"No traces found"}}`, string(body))

	code, _, body = get(t, srv.URL, "/api/v3/traces/xyz", nil)
	require.Equal(t, http.StatusBadRequest, code)
	assert.Contains(t, string(body), "malformed parameter trace_id")
}

func TestV3SearchParameters(t *testing.T) {
	sc := loadScenario(t, "checkout-fails-payment-typeerror")
	srv := server(t, sc, nil)
	from, to := rfc(sc.Now.Add(-time.Hour)), rfc(sc.Now)
	payment := func(extra url.Values) url.Values {
		q := url.Values{"query.service_name": {"payment"}, "query.start_time_min": {from}, "query.start_time_max": {to}}
		for k, v := range extra {
			q[k] = v
		}
		return q
	}
	depthErr := `{"error":{"httpCode":500,"message":"search depth must be greater than 0 and less than max traces"}}`

	tests := []struct {
		name string
		q    url.Values
		code int
		body string
	}{
		{"num_traces", payment(url.Values{"query.num_traces": {"5"}}), 200, ""},
		{"no depth: the store refuses depth 0", payment(nil), 500, depthErr},
		{"search_depth is not read", payment(url.Values{"query.search_depth": {"5"}}), 500, depthErr},
		{"depth above max_traces", payment(url.Values{"query.num_traces": {"100001"}}), 500, depthErr},
		{"depth not a number", payment(url.Values{"query.num_traces": {"x"}}), 400, ""},
		{"camelCase names are not read", url.Values{"query.serviceName": {"payment"}, "query.startTimeMin": {from}, "query.startTimeMax": {to}, "query.num_traces": {"5"}}, 400,
			`{"error":{"httpCode":400,"message":"query.start_time_min and query.start_time_max are required"}}`},
		{"times not RFC 3339", payment(url.Values{"query.start_time_min": {"1796140000"}, "query.num_traces": {"5"}}), 400, ""},
		{"times reversed: nothing matches", payment(url.Values{"query.start_time_min": {to}, "query.start_time_max": {from}, "query.num_traces": {"5"}}), 404,
			`{"error":{"httpCode":404,"message":"No traces found"}}`},
		{"attributes are ignored, even malformed", payment(url.Values{"query.attributes": {"error=true"}, "query.num_traces": {"5"}}), 200, ""},
		{"no match", payment(url.Values{"query.operation_name": {"nope"}, "query.num_traces": {"5"}}), 404,
			`{"error":{"httpCode":404,"message":"No traces found"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, hdr, body := get(t, srv.URL, "/api/v3/traces", tc.q)
			require.Equal(t, tc.code, code, string(body))
			if code != 200 {
				assert.Equal(t, "text/plain; charset=utf-8", hdr.Get("Content-Type"))
			}
			if tc.body != "" {
				assert.JSONEq(t, tc.body, string(body))
			}
		})
	}

	// query.attributes is ignored: asking for failing traces returns healthy ones too.
	count := func(q url.Values) int {
		code, _, body := get(t, srv.URL, "/api/v3/traces", q)
		require.Equal(t, http.StatusOK, code, string(body))
		var res otlpResult
		require.NoError(t, json.Unmarshal(body, &res))
		ids := map[string]bool{}
		for _, rs := range res.Result.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					ids[s.TraceID] = true
				}
			}
		}
		return len(ids)
	}
	all := count(payment(url.Values{"query.num_traces": {"100"}}))
	assert.Equal(t, all, count(payment(url.Values{"query.num_traces": {"100"}, "query.attributes": {`{"error":"true"}`}})))
	assert.Greater(t, all, len(failingTraces(sc, "payment", sc.Now.Add(-time.Hour), sc.Now)))
}
