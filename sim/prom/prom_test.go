package prom

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
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
	require.NotNil(t, sc.Metrics)
	return sc
}

func serve(t *testing.T, m *scenario.Metrics, opts Options) *httptest.Server {
	t.Helper()
	h, err := New(m, opts)
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func client(t *testing.T, srv *httptest.Server) v1.API {
	t.Helper()
	c, err := api.NewClient(api.Config{Address: srv.URL})
	require.NoError(t, err)
	return v1.NewAPI(c)
}

func TestClientGolangAgainstScenario(t *testing.T) {
	sc := loadScenario(t, "checkout-fails-payment-typeerror")
	tr := sim.NewTranscript(nil)
	srv := serve(t, sc.Metrics, Options{Now: sc.Now, Transcript: tr})
	promAPI := client(t, srv)
	ctx := context.Background()
	const q = `rate(traces_span_metrics_calls_total{status_code="STATUS_CODE_ERROR"}[5m])`
	incident := time.Date(2026, 12, 1, 16, 12, 0, 0, time.UTC)

	// Before the payment rollout every error rate is zero...
	v, warnings, _, err := promAPI.Query(ctx, q, incident.Add(-10*time.Minute))
	require.NoError(t, err)
	assert.Empty(t, warnings)
	before := v.(model.Vector)
	require.NotEmpty(t, before)
	for _, s := range before {
		assert.Zero(t, float64(s.Value), s.Metric.String())
		assert.NotContains(t, s.Metric, model.LabelName("__name__"), "rate drops the metric name")
	}
	// ...and after it payment's is positive.
	v, _, _, err = promAPI.Query(ctx, q+` and on(service_name) traces_span_metrics_calls_total{service_name="payment"}`, incident.Add(8*time.Minute))
	require.NoError(t, err)
	after := v.(model.Vector)
	require.Len(t, after, 1)
	assert.Equal(t, model.LabelValue("payment"), after[0].Metric["service_name"])
	assert.Greater(t, float64(after[0].Value), 0.0)
	assert.Equal(t, model.TimeFromUnix(incident.Add(8*time.Minute).Unix()), after[0].Timestamp)

	// The same over a range: zero before, positive after, on the step grid.
	start, end := incident.Add(-30*time.Minute), incident.Add(10*time.Minute)
	mv, _, _, err := promAPI.QueryRange(ctx, `sum by (service_name) (`+q+`)`, v1.Range{Start: start, End: end, Step: time.Minute})
	require.NoError(t, err)
	matrix := mv.(model.Matrix)
	var payment *model.SampleStream
	for _, s := range matrix {
		if s.Metric["service_name"] == "payment" {
			payment = s
		}
	}
	require.NotNil(t, payment)
	assert.Len(t, payment.Values, 41, "one point per step, both ends included")
	for _, p := range payment.Values {
		ts := p.Timestamp.Time()
		switch {
		case !ts.After(incident.Add(time.Minute)):
			assert.Zero(t, float64(p.Value), ts)
		case ts.After(incident.Add(3 * time.Minute)):
			assert.Greater(t, float64(p.Value), 0.0, ts)
		}
	}

	series, _, _, err := promAPI.Series(ctx, []string{`{__name__=~"traces_span_metrics_calls_total|app_payment_transactions_total", service_name="payment"}`}, start, end)
	require.NoError(t, err)
	assert.Len(t, series, 3)

	names, _, _, err := promAPI.LabelNames(ctx, nil, time.Time{}, time.Time{})
	require.NoError(t, err)
	assert.Contains(t, names, model.LabelName("__name__"))
	assert.Contains(t, names, model.LabelName("status_code"))
	assert.IsIncreasing(t, names)

	values, _, _, err := promAPI.LabelValues(ctx, "__name__", nil, time.Time{}, time.Time{})
	require.NoError(t, err)
	assert.Equal(t, model.LabelValues{"app_payment_transactions_total", "traces_span_metrics_calls_total"}, values)

	values, _, _, err = promAPI.LabelValues(ctx, "service_name", []string{`{status_code="STATUS_CODE_ERROR"}`}, time.Time{}, time.Time{})
	require.NoError(t, err)
	assert.Equal(t, model.LabelValues{"checkout", "frontend", "payment"}, values)

	meta, err := promAPI.Metadata(ctx, "", "")
	require.NoError(t, err)
	assert.Empty(t, meta)

	info, err := promAPI.Buildinfo(ctx)
	require.NoError(t, err)
	assert.NotEmpty(t, info.Version)

	// Errors come back typed through the client.
	_, _, _, err = promAPI.Query(ctx, `rate(traces_span_metrics_calls_total[5m]`, end)
	var apiErr *v1.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, v1.ErrBadData, apiErr.Type)
	assert.Contains(t, apiErr.Msg, "parse error")

	entries := tr.Filter(ServiceName)
	require.NotEmpty(t, entries)
	assert.Equal(t, "POST /api/v1/query", entries[0].Method, "client_golang POSTs queries")
	assert.Equal(t, q, entries[0].Params.(map[string]any)["query"])
	assert.Equal(t, "vector", entries[0].Response.(map[string]any)["resultType"])
	last := entries[len(entries)-1].Response.(map[string]any)
	assert.Equal(t, http.StatusBadRequest, last["status"])
	assert.Equal(t, "bad_data", last["errorType"])
}

func TestOOMKilledSeriesByMatcher(t *testing.T) {
	sc := loadScenario(t, "cart-oomkilled-low-limit")
	srv := serve(t, sc.Metrics, Options{Now: sc.Now})
	promAPI := client(t, srv)
	ctx := context.Background()

	v, _, _, err := promAPI.Query(ctx, `kube_pod_container_status_last_terminated_reason{reason="OOMKilled", container="cart"}`, sc.Now)
	require.NoError(t, err)
	vec := v.(model.Vector)
	want := map[model.LabelValue]bool{}
	for _, s := range sc.Metrics.Series {
		if s.Metric["__name__"] == "kube_pod_container_status_last_terminated_reason" && s.Metric["reason"] == "OOMKilled" {
			want[model.LabelValue(s.Metric["pod"])] = true
		}
	}
	require.Len(t, vec, len(want))
	for _, s := range vec {
		assert.True(t, want[s.Metric["pod"]])
		assert.Equal(t, model.LabelValue("kube_pod_container_status_last_terminated_reason"), s.Metric["__name__"], "a selector keeps the name")
	}

	// The alert's own expression: restarts in the last 10m with an OOM reason.
	v, _, _, err = promAPI.Query(ctx, `(kube_pod_container_status_restarts_total - kube_pod_container_status_restarts_total offset 10m >= 1) and ignoring (reason) min_over_time(kube_pod_container_status_last_terminated_reason{reason="OOMKilled"}[10m]) == 1`, sc.Now)
	require.NoError(t, err)
	for _, s := range v.(model.Vector) {
		assert.Equal(t, model.LabelValue("cart"), s.Metric["container"])
		assert.NotContains(t, s.Metric, model.LabelName("__name__"))
	}

	// Memory working set against the limit, per pod, with group_left.
	v, _, _, err = promAPI.Query(ctx, `max by (pod) (container_memory_working_set_bytes{container="cart"}) / on (pod) group_left max by (pod) (kube_pod_container_resource_limits{resource="memory", container="cart"})`, sc.Now.Add(-5*time.Minute))
	require.NoError(t, err)
	ratios := v.(model.Vector)
	require.NotEmpty(t, ratios)
	for _, s := range ratios {
		assert.Len(t, s.Metric, 1)
		assert.Greater(t, float64(s.Value), 0.0)
		assert.LessOrEqual(t, float64(s.Value), 1.0)
	}

	// Names by regexp on __name__.
	v, _, _, err = promAPI.Query(ctx, `count by (__name__) ({__name__=~"kube_pod_container_status_.+_reason", container="cart"})`, sc.Now)
	require.NoError(t, err)
	got := map[model.LabelValue]bool{}
	for _, s := range v.(model.Vector) {
		got[s.Metric["__name__"]] = true
	}
	assert.True(t, got["kube_pod_container_status_last_terminated_reason"])
	assert.True(t, got["kube_pod_container_status_waiting_reason"])
}

// synthetic builds metrics from (labels, [t, v]...) with t in seconds.
func synthetic(series ...scenario.Series) *scenario.Metrics {
	return &scenario.Metrics{Series: series}
}

func samples(pairs ...float64) [][2]any {
	out := make([][2]any, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, [2]any{pairs[i], strconv.FormatFloat(pairs[i+1], 'f', -1, 64)})
	}
	return out
}

func instant(t *testing.T, srv *httptest.Server, q string, at float64) (int, map[string]any) {
	t.Helper()
	resp, err := http.PostForm(srv.URL+"/api/v1/query", url.Values{"query": {q}, "time": {strconv.FormatFloat(at, 'f', -1, 64)}})
	require.NoError(t, err)
	defer resp.Body.Close()
	var body map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	return resp.StatusCode, body
}

// values returns the vector result as labels-key -> value.
func values(t *testing.T, body map[string]any) map[string]float64 {
	t.Helper()
	data := body["data"].(map[string]any)
	require.Equal(t, "vector", data["resultType"])
	out := map[string]float64{}
	for _, r := range data["result"].([]any) {
		m := r.(map[string]any)
		b := labels.NewBuilder(labels.EmptyLabels())
		for k, v := range m["metric"].(map[string]any) {
			b.Set(k, v.(string))
		}
		f, err := strconv.ParseFloat(m["value"].([]any)[1].(string), 64)
		require.NoError(t, err)
		out[b.Labels().String()] = f
	}
	return out
}

func scalarValue(t *testing.T, body map[string]any) float64 {
	t.Helper()
	data := body["data"].(map[string]any)
	require.Equal(t, "scalar", data["resultType"])
	f, err := strconv.ParseFloat(data["result"].([]any)[1].(string), 64)
	require.NoError(t, err)
	return f
}

func TestStalenessAndModifiers(t *testing.T) {
	srv := serve(t, synthetic(
		scenario.Series{Metric: map[string]string{"__name__": "up", "job": "api"}, Values: samples(1000, 1, 1060, 0)},
	), Options{})
	tests := []struct {
		q    string
		at   float64
		want []float64
	}{
		{`up`, 1060, []float64{0}},
		{`up`, 1059, []float64{1}},
		{`up`, 1060 + 299, []float64{0}},
		{`up`, 1060 + 300, nil}, // (t-5m, t] is left-open
		{`up`, 999, nil},
		{`up offset 1m`, 1119, []float64{1}},
		{`up @ 1000`, 5000, []float64{1}},
		{`up @ end() offset 60s`, 1060, []float64{1}},
		{`max_over_time(up[2m])`, 1060, []float64{1}},
		{`min_over_time(up[2m])`, 1060, []float64{0}},
		{`count_over_time(up[2m] @ 1060)`, 9999, []float64{2}},
		{`last_over_time(up[10m])`, 1500, []float64{0}},
		{`absent(up{job="nope"})`, 1060, []float64{1}},
		{`absent(up)`, 1060, nil},
		{`absent_over_time(up{job="api"}[1m])`, 2000, []float64{1}},
		{`timestamp(up)`, 1100, []float64{1060}},
	}
	for _, tc := range tests {
		t.Run(tc.q+"@"+strconv.FormatFloat(tc.at, 'f', -1, 64), func(t *testing.T) {
			code, body := instant(t, srv, tc.q, tc.at)
			require.Equal(t, http.StatusOK, code, body)
			var got []float64
			for _, v := range values(t, body) {
				got = append(got, v)
			}
			assert.Equal(t, tc.want, got)
		})
	}
	// absent() labels come from the selector's equality matchers.
	_, body := instant(t, srv, `absent(up{job="nope", instance=~"x.*"})`, 1060)
	assert.Contains(t, values(t, body), `{job="nope"}`)
	// last_over_time keeps the name, max_over_time does not.
	_, body = instant(t, srv, `last_over_time(up[10m])`, 1500)
	assert.Contains(t, values(t, body), `{__name__="up", job="api"}`)
}

func TestQueryRangeAndSubqueries(t *testing.T) {
	var pairs []float64
	for i := 0; i <= 60; i++ {
		pairs = append(pairs, float64(i*60), float64(i*i))
	}
	srv := serve(t, synthetic(scenario.Series{Metric: map[string]string{"__name__": "sq", "job": "x"}, Values: samples(pairs...)}), Options{})
	promAPI := client(t, srv)
	ctx := context.Background()
	v, _, _, err := promAPI.QueryRange(ctx, `sq`, v1.Range{Start: time.Unix(600, 0), End: time.Unix(1200, 0), Step: 150 * time.Second})
	require.NoError(t, err)
	m := v.(model.Matrix)
	require.Len(t, m, 1)
	require.Len(t, m[0].Values, 5)
	for _, p := range m[0].Values {
		minute := p.Timestamp.Unix() / 60
		assert.Equal(t, float64(minute*minute), float64(p.Value), "newest sample at or before each step")
	}

	// A subquery: the max of a 1m-step series over 10m is the newest value.
	_, body := instant(t, srv, `max_over_time(sq[10m:1m])`, 1800)
	assert.InDelta(t, 900, values(t, body)[`{job="x"}`], 1e-9)
	_, body = instant(t, srv, `count_over_time(sq[10m:2m])`, 1800)
	assert.Equal(t, 5.0, values(t, body)[`{job="x"}`], "(1200, 1800] at 2m steps: 1320 ... 1800")

	// A range vector cannot be the result of a range query.
	resp, err := http.Get(srv.URL + "/api/v1/query_range?" + url.Values{"query": {"sq[5m]"}, "start": {"0"}, "end": {"600"}, "step": {"60"}}.Encode())
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.JSONEq(t, `{"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": invalid expression type \"range vector\" for range query, must be Scalar or instant Vector"}`, string(b))

	// An instant query of a range vector returns a matrix.
	_, body = instant(t, srv, `sq[3m]`, 600)
	data := body["data"].(map[string]any)
	assert.Equal(t, "matrix", data["resultType"])
	assert.Len(t, data["result"].([]any)[0].(map[string]any)["values"], 3)
}

func TestBadRequests(t *testing.T) {
	srv := serve(t, synthetic(scenario.Series{Metric: map[string]string{"__name__": "up"}, Values: samples(0, 1)}), Options{Now: time.Unix(100, 0)})
	tests := []struct {
		path string
		q    url.Values
		msg  string
	}{
		{"/api/v1/query", url.Values{"query": {"sum(up"}}, `invalid parameter "query": 1:7: parse error: unclosed left parenthesis`},
		{"/api/v1/query", url.Values{"query": {""}}, "no expression found in input"},
		{"/api/v1/query", url.Values{"query": {"up{job=~\"(\"}"}}, "parse error: error parsing regexp: missing closing ): `(`"},
		{"/api/v1/query", url.Values{"query": {`{job=~".*"}`}}, "vector selector must contain at least one non-empty matcher"},
		{"/api/v1/query", url.Values{"query": {"rate(up)"}}, `expected type range vector in call to function "rate", got instant vector`},
		{"/api/v1/query", url.Values{"query": {"sum(up[5m])"}}, "expected type instant vector in aggregation expression, got range vector"},
		{"/api/v1/query", url.Values{"query": {"nosuchfn(up)"}}, `unknown function with name "nosuchfn"`},
		{"/api/v1/query", url.Values{"query": {"holt_winters(up[5m], 0.5, 0.5)"}}, `unknown function with name "holt_winters"`},
		{"/api/v1/query", url.Values{"query": {"double_exponential_smoothing(up[5m], 0.5, 0.5)"}}, `function "double_exponential_smoothing" is not enabled`},
		{"/api/v1/query", url.Values{"query": {"1 > 2"}}, "comparisons between scalars must use BOOL modifier"},
		{"/api/v1/query", url.Values{"query": {"up and 1"}}, `set operator "and" not allowed in binary scalar expression`},
		{"/api/v1/query", url.Values{"query": {"up $ 1"}}, `1:4: parse error: unexpected character: '$'`},
		{"/api/v1/query", url.Values{"query": {"up[5x]"}}, "bad number or duration syntax"},
		{"/api/v1/query", url.Values{"query": {"up"}, "time": {"yesterday"}}, `invalid parameter "time": invalid time value for 'time': cannot parse "yesterday" to a valid timestamp`},
		{"/api/v1/query_range", url.Values{"query": {"up"}, "end": {"10"}, "step": {"1"}}, `invalid parameter "start": cannot parse "" to a valid timestamp`},
		{"/api/v1/query_range", url.Values{"query": {"up"}, "start": {"10"}, "end": {"5"}, "step": {"1"}}, "end timestamp must not be before start time"},
		{"/api/v1/query_range", url.Values{"query": {"up"}, "start": {"0"}, "end": {"5"}, "step": {"0"}}, "zero or negative query resolution step widths are not accepted"},
		{"/api/v1/query_range", url.Values{"query": {"up"}, "start": {"0"}, "end": {"5"}, "step": {"soon"}}, `invalid parameter "step": cannot parse "soon" to a valid duration`},
		{"/api/v1/query_range", url.Values{"query": {"up"}, "start": {"0"}, "end": {"86400"}, "step": {"1"}}, "exceeded maximum resolution of 11,000 points per timeseries"},
		{"/api/v1/series", url.Values{}, "no match[] parameter provided"},
		{"/api/v1/series", url.Values{"match[]": {"rate(up[5m])"}}, `invalid parameter "match[]"`},
	}
	for _, tc := range tests {
		t.Run(tc.path+"?"+tc.q.Encode(), func(t *testing.T) {
			resp, err := http.Get(srv.URL + tc.path + "?" + tc.q.Encode())
			require.NoError(t, err)
			defer resp.Body.Close()
			assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
			assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			var body struct {
				Status, ErrorType, Error string
			}
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
			assert.Equal(t, "error", body.Status)
			assert.Equal(t, "bad_data", body.ErrorType)
			assert.Contains(t, body.Error, tc.msg)
		})
	}
}

func TestNewValidatesSamples(t *testing.T) {
	_, err := New(synthetic(scenario.Series{Metric: map[string]string{"__name__": "x"}, Values: [][2]any{{"soon", "1"}}}), Options{})
	assert.ErrorContains(t, err, "not unix seconds")
	_, err = New(synthetic(scenario.Series{Metric: map[string]string{"__name__": "x"}, Values: [][2]any{{1.0, "one"}}}), Options{})
	assert.ErrorContains(t, err, "not a float")
	_, err = New(synthetic(scenario.Series{Values: [][2]any{{1.0, "1"}}}), Options{})
	assert.ErrorContains(t, err, "no labels")
}

// BenchmarkQueryRangeScenario measures a dashboard-style error-ratio query
// over an hour of the checkout scenario at 15s steps.
func BenchmarkQueryRangeScenario(b *testing.B) {
	sc, err := scenario.Load(filepath.Join(examples, "checkout-fails-payment-typeerror"))
	if err != nil {
		b.Fatal(err)
	}
	h, err := New(sc.Metrics, Options{Now: sc.Now})
	if err != nil {
		b.Fatal(err)
	}
	q := url.Values{
		"query": {`sum by (service_name) (rate(traces_span_metrics_calls_total{status_code="STATUS_CODE_ERROR"}[5m])) / sum by (service_name) (rate(traces_span_metrics_calls_total[5m]))`},
		"start": {strconv.FormatInt(sc.Now.Add(-time.Hour).Unix(), 10)},
		"end":   {strconv.FormatInt(sc.Now.Unix(), 10)},
		"step":  {"15"},
	}
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, "/api/v1/query_range?"+q.Encode(), nil)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Body.String())
		}
	}
}

// get returns the status and body of a GET.
func get(t *testing.T, srv *httptest.Server, path string, q url.Values) (int, string) {
	t.Helper()
	resp, err := http.Get(srv.URL + path + "?" + q.Encode())
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// TestResponsesAreWebAPIBytes pins the encoding web/api/v1 uses: label
// strings unescaped (jsoniter's stream), error strings HTML-escaped (struct
// encoding), timestamps with a three-digit fraction, floats in exponent form
// outside [1e-6, 1e21).
func TestResponsesAreWebAPIBytes(t *testing.T) {
	srv := serve(t, synthetic(
		scenario.Series{Metric: map[string]string{"__name__": "up", "job": "api", "note": "<a&b>"}, Values: samples(1000, 1, 1060, 0)},
		scenario.Series{Metric: map[string]string{"__name__": "tiny", "job": "api"}, Values: samples(1000, 1e-7, 1060, 2.5e21)},
	), Options{})
	for _, tc := range []struct {
		path string
		q    url.Values
		code int
		want string
	}{
		{"/api/v1/query", url.Values{"query": {"up"}, "time": {"1060.5"}}, 200,
			`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"up","job":"api","note":"<a&b>"},"value":[1060.500,"0"]}]}}`},
		{"/api/v1/query_range", url.Values{"query": {"tiny"}, "start": {"1000"}, "end": {"1060"}, "step": {"60"}}, 200,
			`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"tiny","job":"api"},"values":[[1000,"1e-07"],[1060,"2.5e+21"]]}]}}`},
		{"/api/v1/query", url.Values{"query": {"2 * 3"}, "time": {"1000.25"}}, 200,
			`{"status":"success","data":{"resultType":"scalar","result":[1000.25,"6"]}}`},
		{"/api/v1/query", url.Values{"query": {`"x"`}, "time": {"1000"}}, 200,
			`{"status":"success","data":{"resultType":"string","result":[1000,"x"]}}`},
		// The engine's annotations reach the client: rate over a gauge's name.
		{"/api/v1/query", url.Values{"query": {"rate(up[5m])"}, "time": {"1060"}}, 200,
			`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"job":"api","note":"<a&b>"},"value":[1060,"0"]}]},"infos":["PromQL info: metric might not be a counter, name does not end in _total/_sum/_count/_bucket: \"up\" (1:6)"]}`},
		{"/api/v1/query", url.Values{"query": {"up"}, "time": {"1060"}, "limit": {"0"}}, 200,
			`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"up","job":"api","note":"<a&b>"},"value":[1060,"0"]}]}}`},
		{"/api/v1/query", url.Values{"query": {`{job="api"}`}, "time": {"1060"}, "limit": {"1"}}, 200,
			`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"tiny","job":"api"},"value":[1060,"2.5e+21"]}]},"warnings":["results truncated due to limit"]}`},
		{"/api/v1/query", url.Values{"query": {"sum(up"}}, 400,
			`{"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": 1:7: parse error: unclosed left parenthesis"}`},
		{"/api/v1/query", url.Values{"query": {`up + on(job) {__name__=~"up|tiny"}`}, "time": {"1060"}}, 422,
			`{"status":"error","errorType":"execution","error":"found duplicate series for the match group {job=\"api\"} on the right hand-side of the operation: [{__name__=\"tiny\", job=\"api\"}, {__name__=\"up\", job=\"api\", note=\"\u003ca\u0026b\u003e\"}];many-to-many matching not allowed: matching labels must be unique on one side"}`},
		{"/api/v1/series", url.Values{"match[]": {"up", `{job="api"}`}}, 200,
			`{"status":"success","data":[{"__name__":"tiny","job":"api"},{"__name__":"up","job":"api","note":"<a&b>"}]}`},
		{"/api/v1/series", url.Values{"match[]": {`{job=~".*"}`}}, 400,
			`{"status":"error","errorType":"bad_data","error":"invalid parameter \"match[]\": match[] must contain at least one non-empty matcher"}`},
		{"/api/v1/labels", url.Values{"match[]": {"up"}}, 200, `{"status":"success","data":["__name__","job","note"]}`},
		{"/api/v1/labels", url.Values{"start": {"1100"}}, 200, `{"status":"success","data":[]}`},
		{"/api/v1/label/job/values", url.Values{"limit": {"5"}}, 200, `{"status":"success","data":["api"]}`},
		{"/api/v1/label/__name__/values", url.Values{"limit": {"1"}}, 200, `{"status":"success","data":["tiny"],"warnings":["results truncated due to limit"]}`},
	} {
		t.Run(tc.path+"?"+tc.q.Encode(), func(t *testing.T) {
			code, body := get(t, srv, tc.path, tc.q)
			assert.Equal(t, tc.code, code)
			assert.Equal(t, tc.want, body)
		})
	}
}

// TestSamplesSpanChunks reads back a series long enough for several chunks.
func TestSamplesSpanChunks(t *testing.T) {
	var pairs []float64
	for i := range 3*samplesPerChunk + 7 {
		pairs = append(pairs, float64(15*i), float64(i)*1.5)
	}
	srv := serve(t, synthetic(scenario.Series{Metric: map[string]string{"__name__": "g"}, Values: samples(pairs...)}), Options{})
	promAPI := client(t, srv)
	end := time.Unix(int64(15*(3*samplesPerChunk+6)), 0)
	v, _, _, err := promAPI.QueryRange(context.Background(), `g`, v1.Range{Start: time.Unix(0, 0), End: end, Step: 15 * time.Second})
	require.NoError(t, err)
	m := v.(model.Matrix)
	require.Len(t, m, 1)
	require.Len(t, m[0].Values, 3*samplesPerChunk+7)
	for i, p := range m[0].Values {
		assert.Equal(t, float64(i)*1.5, float64(p.Value))
	}
	// A window inside the second chunk sees only its samples.
	_, body := instant(t, srv, `count_over_time(g[10m])`, float64(15*(samplesPerChunk+60)))
	assert.Equal(t, 40.0, values(t, body)[`{}`])
}

func TestStaleMarkersEndSeriesAsScrapingDoes(t *testing.T) {
	m := synthetic(scenario.Series{Metric: map[string]string{"__name__": "up", "job": "api"}, Values: samples(1000, 1, 1060, 1, 1120, 1, 1500, 0)})
	plain := serve(t, m, Options{})
	scraped := serve(t, m, Options{StaleMarkers: true})
	for _, tc := range []struct {
		at           float64
		plain, stale []float64
	}{
		{1120, []float64{1}, []float64{1}},
		{1179, []float64{1}, []float64{1}},
		{1180, []float64{1}, nil}, // one interval after the last sample of a run
		{1419, []float64{1}, nil}, // the lookback delta alone would keep it
		{1500, []float64{0}, []float64{0}},
		{1559, []float64{0}, []float64{0}},
		{1560, []float64{0}, nil},
	} {
		for _, srv := range []struct {
			srv  *httptest.Server
			want []float64
		}{{plain, tc.plain}, {scraped, tc.stale}} {
			_, body := instant(t, srv.srv, `up`, tc.at)
			var got []float64
			for _, v := range values(t, body) {
				got = append(got, v)
			}
			assert.Equal(t, srv.want, got, "at %v", tc.at)
		}
	}
	// Range functions skip the markers: four samples in (900, 1500], not five.
	_, body := instant(t, scraped, `count_over_time(up[10m])`, 1500)
	assert.Equal(t, 4.0, values(t, body)[`{job="api"}`])
}
