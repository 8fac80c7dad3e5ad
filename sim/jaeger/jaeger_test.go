package jaeger

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sim"
)

const examples = "../../testdata/examples"

func loadScenario(t *testing.T, name string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Load(filepath.Join(examples, name))
	require.NoError(t, err)
	require.NotNil(t, sc.Traces)
	return sc
}

// server starts the simulator for a scenario behind a real HTTP server.
func server(t *testing.T, sc *scenario.Scenario, tr *sim.Transcript) *httptest.Server {
	t.Helper()
	h, err := New(sc.Traces, Options{Now: sc.Now, Transcript: tr})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, base, path string, q url.Values) (int, http.Header, []byte) {
	t.Helper()
	u := base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	resp, err := http.Get(u)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, body
}

// v1Traces is the client-side view of a v1 search response.
type v1Traces struct {
	Data   []scenario.Trace `json:"data"`
	Total  int              `json:"total"`
	Limit  int              `json:"limit"`
	Offset int              `json:"offset"`
	Errors []struct {
		Code    int    `json:"code"`
		Msg     string `json:"msg"`
		TraceID string `json:"traceID"`
	} `json:"errors"`
}

func micros(t time.Time) string { return strconv.FormatInt(t.UnixMicro(), 10) }

func serviceOf(tr scenario.Trace, s scenario.Span) string {
	return tr.Processes[s.ProcessID].ServiceName
}

func TestV1ServicesAndOperations(t *testing.T) {
	sc := loadScenario(t, "ad-npe-missing-context")
	srv := server(t, sc, nil)

	code, hdr, body := get(t, srv.URL, "/api/services", nil)
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "application/json", hdr.Get("Content-Type"))
	var raw map[string]any
	require.NoError(t, json.Unmarshal(body, &raw))
	assert.Contains(t, raw, "errors")
	assert.Nil(t, raw["errors"], "Jaeger sends errors:null on success")
	var services struct {
		Data  []string `json:"data"`
		Total int      `json:"total"`
	}
	require.NoError(t, json.Unmarshal(body, &services))
	want := map[string]bool{}
	for _, tr := range sc.Traces.Data {
		for _, p := range tr.Processes {
			want[p.ServiceName] = true
		}
	}
	assert.Len(t, services.Data, len(want))
	assert.Equal(t, len(want), services.Total)
	assert.IsIncreasing(t, services.Data)
	assert.Contains(t, services.Data, "ad")

	code, _, body = get(t, srv.URL, "/api/services/ad/operations", nil)
	require.Equal(t, http.StatusOK, code)
	var legacy struct {
		Data []string `json:"data"`
	}
	require.NoError(t, json.Unmarshal(body, &legacy))
	assert.Equal(t, []string{"shop.AdService/GetAds"}, legacy.Data)

	code, _, body = get(t, srv.URL, "/api/operations", url.Values{"service": {"frontend"}, "spanKind": {"client"}})
	require.Equal(t, http.StatusOK, code)
	var ops struct {
		Data []struct {
			Name     string `json:"name"`
			SpanKind string `json:"spanKind"`
		} `json:"data"`
		Total int `json:"total"`
	}
	require.NoError(t, json.Unmarshal(body, &ops))
	require.NotEmpty(t, ops.Data)
	assert.Equal(t, len(ops.Data), ops.Total)
	for _, op := range ops.Data {
		assert.Equal(t, "client", op.SpanKind, op.Name)
	}
	names := []string{}
	for _, op := range ops.Data {
		names = append(names, op.Name)
	}
	assert.Contains(t, names, "grpc.shop.AdService/GetAds")

	code, hdr, body = get(t, srv.URL, "/api/operations", nil)
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Equal(t, "text/plain; charset=utf-8", hdr.Get("Content-Type"))
	assert.JSONEq(t, `{"data":null,"total":0,"limit":0,"offset":0,"errors":[{"code":400,"msg":"parameter 'service' is required"}]}`, string(body))
}

// failingTraces are the scenario's traces with a failing span, by the
// status the OTLP export carries (otel.status_code=ERROR or error=true).
func failingTraces(sc *scenario.Scenario, service string, from, to time.Time) map[string]bool {
	out := map[string]bool{}
	for _, tr := range sc.Traces.Data {
		var ofService, failing bool
		for _, s := range tr.Spans {
			start := time.UnixMicro(s.StartTime)
			if serviceOf(tr, s) == service && !start.Before(from) && !start.After(to) {
				ofService = true
			}
			for _, kv := range s.Tags {
				if (kv.Key == "otel.status_code" && kv.Value == "ERROR") || (kv.Key == "error" && kv.Value == true) {
					failing = true
				}
			}
		}
		if ofService && failing {
			out[tr.TraceID] = true
		}
	}
	return out
}

func TestV1SearchOfAd(t *testing.T) {
	sc := loadScenario(t, "ad-npe-missing-context")
	srv := server(t, sc, nil)
	deploy := time.Date(2026, 11, 30, 10, 4, 0, 0, time.UTC)

	search := func(q url.Values) v1Traces {
		t.Helper()
		code, _, body := get(t, srv.URL, "/api/traces", q)
		require.Equal(t, http.StatusOK, code, string(body))
		var res v1Traces
		require.NoError(t, json.Unmarshal(body, &res))
		return res
	}

	after := search(url.Values{"service": {"ad"}, "start": {micros(deploy)}, "end": {micros(sc.Now)}, "limit": {"100"}})
	require.NotEmpty(t, after.Data)
	failing := 0
	for _, tr := range after.Data {
		var ofAd bool
		for _, s := range tr.Spans {
			if serviceOf(tr, s) == "ad" && s.StartTime >= deploy.UnixMicro() {
				ofAd = true
			}
		}
		assert.True(t, ofAd, "trace %s has an ad span in the window", tr.TraceID)
		assert.NotEmpty(t, tr.Processes, "whole traces carry their processes")
		if failingTraces(sc, "ad", deploy, sc.Now)[tr.TraceID] {
			failing++
		}
	}
	assert.Equal(t, len(failingTraces(sc, "ad", deploy, sc.Now)), failing, "every failing trace is among them")
	assert.Greater(t, len(after.Data), failing, "and healthy ones too: nothing filtered by status")
	// Whole traces: the frontend spans of the same requests come along.
	assert.Greater(t, len(after.Data[0].Spans), 1)
	// Newest first.
	for i := 1; i < len(after.Data); i++ {
		assert.GreaterOrEqual(t, after.Data[i-1].Spans[0].StartTime, after.Data[i].Spans[0].StartTime)
	}

	// The status is not an attribute in OTLP storage: these filters match
	// nothing in a scenario whose spans are ERROR or unset, whichever way
	// they are written.
	for _, q := range []url.Values{
		{"tags": {`{"otel.status_code":"ERROR"}`}},
		{"tags": {`{"error":"true"}`}},
		{"tag": {"error:true"}},
		{"tags": {`{"error":"false"}`}},
	} {
		q.Set("service", "ad")
		q.Set("start", micros(deploy))
		q.Set("end", micros(sc.Now))
		res := search(q)
		assert.Empty(t, res.Data, "%v", q)
		require.NotNil(t, res.Data, "data is [] not null")
	}
	// Attributes that stay attributes do filter: the exception type is an
	// event attribute, the host a resource attribute.
	byException := search(url.Values{"service": {"ad"}, "tags": {`{"exception.type":"java.lang.NullPointerException"}`},
		"start": {micros(deploy)}, "end": {micros(sc.Now)}})
	assert.Len(t, byException.Data, len(failingTraces(sc, "ad", deploy, sc.Now)))

	before := search(url.Values{"service": {"ad"}, "tags": {`{"exception.type":"java.lang.NullPointerException"}`},
		"start": {micros(deploy.Add(-time.Hour))}, "end": {micros(deploy)}})
	assert.Empty(t, before.Data, "no ad exceptions before the deploy")

	limited := search(url.Values{"service": {"ad"}, "start": {micros(deploy)}, "end": {micros(sc.Now)}, "limit": {"2"}})
	require.Len(t, limited.Data, 2)
	assert.Equal(t, after.Data[0].TraceID, limited.Data[0].TraceID, "limit keeps the newest traces")

	// The limit is the store's search depth: 1..max_traces, else a 500.
	for _, limit := range []string{"0", "-1", "100001"} {
		code, _, body := get(t, srv.URL, "/api/traces", url.Values{"service": {"ad"}, "limit": {limit}})
		assert.Equal(t, http.StatusInternalServerError, code, limit)
		assert.JSONEq(t, `{"data":null,"total":0,"limit":0,"offset":0,"errors":[{"code":500,"msg":"search depth must be greater than 0 and less than max traces"}]}`, string(body))
	}
}

func TestV1SearchFilters(t *testing.T) {
	sc := loadScenario(t, "checkout-fails-payment-typeerror")
	srv := server(t, sc, nil)

	// Independent expectation: traces with a payment span of at least 2ms.
	minDur := 2 * time.Millisecond
	want := map[string]bool{}
	for _, tr := range sc.Traces.Data {
		for _, s := range tr.Spans {
			if serviceOf(tr, s) == "payment" && time.Duration(s.Duration)*time.Microsecond >= minDur {
				want[tr.TraceID] = true
			}
		}
	}
	code, _, body := get(t, srv.URL, "/api/traces", url.Values{"service": {"payment"}, "minDuration": {"2ms"}})
	require.Equal(t, http.StatusOK, code)
	var res v1Traces
	require.NoError(t, json.Unmarshal(body, &res))
	got := map[string]bool{}
	for _, tr := range res.Data {
		got[tr.TraceID] = true
	}
	assert.Equal(t, want, got)

	code, _, body = get(t, srv.URL, "/api/traces", url.Values{"service": {"payment"}, "operation": {"no-such-op"}})
	require.Equal(t, http.StatusOK, code)
	require.NoError(t, json.Unmarshal(body, &res))
	assert.Empty(t, res.Data)

	// Default window is now-48h..now: a clock 3 days later finds nothing.
	h, err := New(sc.Traces, Options{Now: sc.Now.Add(72 * time.Hour)})
	require.NoError(t, err)
	late := httptest.NewServer(h)
	defer late.Close()
	code, _, body = get(t, late.URL, "/api/traces", url.Values{"service": {"payment"}})
	require.Equal(t, http.StatusOK, code)
	require.NoError(t, json.Unmarshal(body, &res))
	assert.Empty(t, res.Data)
}

func TestV1SearchBadRequests(t *testing.T) {
	sc := loadScenario(t, "ad-npe-missing-context")
	srv := server(t, sc, nil)
	tests := []struct {
		name string
		q    url.Values
		msg  string
	}{
		{"missing service", url.Values{"limit": {"5"}}, "parameter 'service' is required"},
		{"json tags with a bool", url.Values{"service": {"ad"}, "tags": {`{"error":true}`}}, "malformed 'tags' parameter, cannot unmarshal JSON"},
		{"tag without colon", url.Values{"service": {"ad"}, "tag": {"error"}}, "malformed 'tag' parameter, expecting key:value, received: error"},
		{"start not micros", url.Values{"service": {"ad"}, "start": {"2026-11-30T10:00:00Z"}}, "unable to parse param 'start'"},
		{"bad duration", url.Values{"service": {"ad"}, "minDuration": {"12"}}, "unable to parse param 'minDuration'"},
		{"durations reversed", url.Values{"service": {"ad"}, "minDuration": {"2ms"}, "maxDuration": {"1ms"}}, "'maxDuration' should be greater than 'minDuration'"},
		{"bad limit", url.Values{"service": {"ad"}, "limit": {"ten"}}, `parsing "ten"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, body := get(t, srv.URL, "/api/traces", tc.q)
			require.Equal(t, http.StatusBadRequest, code)
			var res v1Traces
			require.NoError(t, json.Unmarshal(body, &res))
			assert.Nil(t, res.Data)
			require.Len(t, res.Errors, 1)
			assert.Equal(t, 400, res.Errors[0].Code)
			assert.Contains(t, res.Errors[0].Msg, tc.msg)
		})
	}
}

func TestV1TraceByID(t *testing.T) {
	sc := loadScenario(t, "ad-npe-missing-context")
	tr := sim.NewTranscript(nil)
	srv := server(t, sc, tr)
	id := sc.Traces.Data[3].TraceID

	code, _, body := get(t, srv.URL, "/api/traces/"+id, nil)
	require.Equal(t, http.StatusOK, code)
	var res v1Traces
	require.NoError(t, json.Unmarshal(body, &res))
	require.Len(t, res.Data, 1)
	assert.Equal(t, id, res.Data[0].TraceID)
	assert.Len(t, res.Data[0].Spans, len(sc.Traces.Data[3].Spans))

	code, _, body = get(t, srv.URL, "/api/traces/00000000000000000000000000abcdef", nil)
	require.Equal(t, http.StatusNotFound, code)
	assert.JSONEq(t, `{"data":null,"total":0,"limit":0,"offset":0,"errors":[{"code":404,"msg":"trace not found"}]}`, string(body))

	code, _, _ = get(t, srv.URL, "/api/traces/not-hex", nil)
	assert.Equal(t, http.StatusBadRequest, code)

	// Search by traceID returns found traces and an error entry for the rest.
	code, _, body = get(t, srv.URL, "/api/traces", url.Values{"traceID": {id, "abcdef"}})
	require.Equal(t, http.StatusOK, code)
	require.NoError(t, json.Unmarshal(body, &res))
	require.Len(t, res.Data, 1)
	require.Len(t, res.Errors, 1)
	assert.Equal(t, "trace not found", res.Errors[0].Msg)
	assert.Equal(t, "0000000000abcdef", res.Errors[0].TraceID)

	entries := tr.Filter(ServiceName)
	require.Len(t, entries, 4)
	assert.Equal(t, "GET /api/traces/"+id, entries[0].Method)
	resp := entries[0].Response.(map[string]any)
	assert.Equal(t, 200, resp["status"])
	assert.Equal(t, 1, resp["traces"])
	assert.Equal(t, 404, entries[1].Response.(map[string]any)["status"])
	assert.Equal(t, "GET /api/traces", entries[3].Method)
	assert.Equal(t, []string{id, "abcdef"}, entries[3].Params.(map[string]any)["traceID"])
}

func TestNewRejectsBrokenTraces(t *testing.T) {
	_, err := New(&scenario.Traces{Data: []scenario.Trace{{TraceID: "zz"}}}, Options{})
	assert.ErrorContains(t, err, "invalid traceID")
	_, err = New(&scenario.Traces{Data: []scenario.Trace{{
		TraceID: "ab", Spans: []scenario.Span{{SpanID: "01", ProcessID: "p9"}},
	}}}, Options{})
	assert.ErrorContains(t, err, `unknown processID "p9"`)

	h, err := New(nil, Options{})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()
	code, _, body := get(t, srv.URL, "/api/services", nil)
	require.Equal(t, http.StatusOK, code)
	assert.JSONEq(t, `{"data":[],"total":0,"limit":0,"offset":0,"errors":null}`, string(body))
}
