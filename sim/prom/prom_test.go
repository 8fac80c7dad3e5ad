package prom

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
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
		lbls := Labels{}
		for k, v := range m["metric"].(map[string]any) {
			lbls[k] = v.(string)
		}
		f, err := strconv.ParseFloat(m["value"].([]any)[1].(string), 64)
		require.NoError(t, err)
		out[lbls.key()] = f
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

func TestRateIncreaseDeltaSemantics(t *testing.T) {
	srv := serve(t, synthetic(
		// A counter scraped every 60s that resets between 120s and 180s.
		scenario.Series{Metric: map[string]string{"__name__": "requests_total", "job": "api"}, Values: samples(0, 0, 60, 60, 120, 120, 180, 30, 240, 90)},
		// A gauge starting 30s into the window.
		scenario.Series{Metric: map[string]string{"__name__": "queue_depth", "job": "api"}, Values: samples(30, 10, 90, 20, 150, 30)},
	), Options{})

	// Hand computation: window (-60s, 240s] holds all five samples; raw
	// difference 90 plus the 120 lost at the reset = 210; the series starts
	// at zero so there is nothing to extrapolate before it, and the last
	// sample sits on the window's end: increase 210, rate 210/300.
	_, body := instant(t, srv, `increase(requests_total[5m])`, 240)
	assert.InDelta(t, 210, values(t, body)[`{job="api"}`], 1e-9)
	_, body = instant(t, srv, `rate(requests_total[5m])`, 240)
	assert.InDelta(t, 0.7, values(t, body)[`{job="api"}`], 1e-9)
	_, body = instant(t, srv, `resets(requests_total[5m])`, 240)
	assert.Equal(t, 1.0, values(t, body)[`{job="api"}`])
	_, body = instant(t, srv, `changes(requests_total[5m])`, 240)
	assert.Equal(t, 4.0, values(t, body)[`{job="api"}`])
	// irate over the last two samples (30 -> 90 in 60s).
	_, body = instant(t, srv, `irate(requests_total[5m])`, 240)
	assert.InDelta(t, 1.0, values(t, body)[`{job="api"}`], 1e-9)
	// irate across the reset takes the post-reset value.
	_, body = instant(t, srv, `irate(requests_total[5m])`, 180)
	assert.InDelta(t, 0.5, values(t, body)[`{job="api"}`], 1e-9)

	// delta over (0s, 180s]: 20 between the first and last sample, 30s of
	// gap at each edge (under 110% of the 60s spacing) so it extrapolates to
	// the full 180s: 20 * 180/120 = 30.
	_, body = instant(t, srv, `delta(queue_depth[3m])`, 180)
	assert.InDelta(t, 30, values(t, body)[`{job="api"}`], 1e-9)
	// deriv of a straight line is its slope; predict_linear extends it.
	_, body = instant(t, srv, `deriv(queue_depth[3m])`, 180)
	assert.InDelta(t, 10.0/60, values(t, body)[`{job="api"}`], 1e-9)
	_, body = instant(t, srv, `predict_linear(queue_depth[3m], 60)`, 150)
	assert.InDelta(t, 40, values(t, body)[`{job="api"}`], 1e-9)

	// A single sample in the window gives no rate at all.
	_, body = instant(t, srv, `rate(requests_total[1m])`, 240)
	assert.Empty(t, values(t, body))
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
	assert.Contains(t, values(t, body), `{__name__="up",job="api"}`)
}

func TestOperatorsAndAggregations(t *testing.T) {
	srv := serve(t, synthetic(
		scenario.Series{Metric: map[string]string{"__name__": "errors", "svc": "a", "pod": "a1"}, Values: samples(100, 1)},
		scenario.Series{Metric: map[string]string{"__name__": "errors", "svc": "a", "pod": "a2"}, Values: samples(100, 3)},
		scenario.Series{Metric: map[string]string{"__name__": "errors", "svc": "b", "pod": "b1"}, Values: samples(100, 10)},
		scenario.Series{Metric: map[string]string{"__name__": "calls", "svc": "a", "pod": "a1"}, Values: samples(100, 10)},
		scenario.Series{Metric: map[string]string{"__name__": "calls", "svc": "a", "pod": "a2"}, Values: samples(100, 30)},
		scenario.Series{Metric: map[string]string{"__name__": "calls", "svc": "b", "pod": "b1"}, Values: samples(100, 20)},
		scenario.Series{Metric: map[string]string{"__name__": "owner", "svc": "a", "team": "cart"}, Values: samples(100, 1)},
		scenario.Series{Metric: map[string]string{"__name__": "owner", "svc": "b", "team": "pay"}, Values: samples(100, 1)},
	), Options{})
	tests := []struct {
		q    string
		want map[string]float64
	}{
		{`sum by (svc) (errors)`, map[string]float64{`{svc="a"}`: 4, `{svc="b"}`: 10}},
		{`sum(errors) by (svc)`, map[string]float64{`{svc="a"}`: 4, `{svc="b"}`: 10}},
		{`sum without (pod) (errors)`, map[string]float64{`{svc="a"}`: 4, `{svc="b"}`: 10}},
		{`avg(errors)`, map[string]float64{`{}`: 14.0 / 3}},
		{`count by (svc) (errors)`, map[string]float64{`{svc="a"}`: 2, `{svc="b"}`: 1}},
		{`max by (svc) (errors)`, map[string]float64{`{svc="a"}`: 3, `{svc="b"}`: 10}},
		{`topk(1, errors)`, map[string]float64{`{__name__="errors",pod="b1",svc="b"}`: 10}},
		{`bottomk by (svc) (1, errors)`, map[string]float64{`{__name__="errors",pod="a1",svc="a"}`: 1, `{__name__="errors",pod="b1",svc="b"}`: 10}},
		{`quantile(0.5, errors)`, map[string]float64{`{}`: 3}},
		{`errors / calls`, map[string]float64{`{pod="a1",svc="a"}`: 0.1, `{pod="a2",svc="a"}`: 0.1, `{pod="b1",svc="b"}`: 0.5}},
		{`sum by (svc) (errors) / on (svc) sum by (svc) (calls) > 0.2`, map[string]float64{`{svc="b"}`: 0.5}},
		{`errors > bool 2`, map[string]float64{`{pod="a1",svc="a"}`: 0, `{pod="a2",svc="a"}`: 1, `{pod="b1",svc="b"}`: 1}},
		{`errors > 2`, map[string]float64{`{__name__="errors",pod="a2",svc="a"}`: 3, `{__name__="errors",pod="b1",svc="b"}`: 10}},
		{`5 < errors`, map[string]float64{`{__name__="errors",pod="b1",svc="b"}`: 10}},
		{`errors * on (svc) group_left (team) owner`, map[string]float64{`{pod="a1",svc="a",team="cart"}`: 1, `{pod="a2",svc="a",team="cart"}`: 3, `{pod="b1",svc="b",team="pay"}`: 10}},
		{`owner * on (svc) group_right errors`, map[string]float64{`{pod="a1",svc="a"}`: 1, `{pod="a2",svc="a"}`: 3, `{pod="b1",svc="b"}`: 10}},
		{`errors and on (svc) owner{team="pay"}`, map[string]float64{`{__name__="errors",pod="b1",svc="b"}`: 10}},
		{`errors unless on (svc) owner{team="pay"}`, map[string]float64{`{__name__="errors",pod="a1",svc="a"}`: 1, `{__name__="errors",pod="a2",svc="a"}`: 3}},
		{`errors{svc="b"} or calls`, map[string]float64{`{__name__="errors",pod="b1",svc="b"}`: 10, `{__name__="calls",pod="a1",svc="a"}`: 10, `{__name__="calls",pod="a2",svc="a"}`: 30}},
		{`abs(-errors{pod="a1"})`, map[string]float64{`{pod="a1",svc="a"}`: 1}},
		{`clamp_min(errors, 5)`, map[string]float64{`{pod="a1",svc="a"}`: 5, `{pod="a2",svc="a"}`: 5, `{pod="b1",svc="b"}`: 10}},
		{`clamp_max(errors, 2) * 2`, map[string]float64{`{pod="a1",svc="a"}`: 2, `{pod="a2",svc="a"}`: 4, `{pod="b1",svc="b"}`: 4}},
		{`label_replace(owner, "squad", "$1-squad", "team", "(.*)")`, map[string]float64{`{__name__="owner",squad="cart-squad",svc="a",team="cart"}`: 1, `{__name__="owner",squad="pay-squad",svc="b",team="pay"}`: 1}},
		{`vector(2) + 1`, map[string]float64{`{}`: 3}},
		{`sum(errors) - scalar(sum(calls))`, map[string]float64{`{}`: -46}},
	}
	for _, tc := range tests {
		t.Run(tc.q, func(t *testing.T) {
			code, body := instant(t, srv, tc.q, 130)
			require.Equal(t, http.StatusOK, code, body)
			got := values(t, body)
			require.Len(t, got, len(tc.want))
			for k, v := range tc.want {
				assert.InDelta(t, v, got[k], 1e-9, k)
			}
		})
	}

	for q, want := range map[string]float64{`1 + 2 * 3 ^ 2`: 19, `2 ^ 3 ^ 2`: 512, `-2 ^ 2`: -4, `(1 + 2) * 3`: 9, `10 % 4 - 1`: 1, `3 > bool 2`: 1, `time()`: 130} {
		code, body := instant(t, srv, q, 130)
		require.Equal(t, http.StatusOK, code, q)
		assert.InDelta(t, want, scalarValue(t, body), 1e-9, q)
	}

	// sort_desc keeps its order in the response.
	_, body := instant(t, srv, `sort_desc(calls)`, 130)
	var order []float64
	for _, r := range body["data"].(map[string]any)["result"].([]any) {
		f, _ := strconv.ParseFloat(r.(map[string]any)["value"].([]any)[1].(string), 64)
		order = append(order, f)
	}
	assert.Equal(t, []float64{30, 20, 10}, order)

	// Execution errors are 422 "execution".
	for q, msg := range map[string]string{
		`errors * on (svc) owner`:              "multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)",
		`errors + on (svc) calls`:              `found duplicate series for the match group {svc="a"} on the right hand-side of the operation`,
		`rate({__name__=~"errors|calls"}[5m])`: "",
		`abs({__name__=~"errors|calls"})`:      "vector cannot contain metrics with the same labelset",
	} {
		code, body := instant(t, srv, q, 130)
		if msg == "" { // single-sample windows give no rate, hence no clash
			assert.Equal(t, http.StatusOK, code, q)
			continue
		}
		assert.Equal(t, http.StatusUnprocessableEntity, code, q)
		assert.Equal(t, "execution", body["errorType"], q)
		assert.Contains(t, body["error"], msg, q)
	}
}

func TestHistogramQuantile(t *testing.T) {
	bucket := func(le string, counts ...float64) scenario.Series {
		var pairs []float64
		for i, c := range counts {
			pairs = append(pairs, float64(60*i), c)
		}
		return scenario.Series{Metric: map[string]string{"__name__": "latency_seconds_bucket", "svc": "api", "le": le}, Values: samples(pairs...)}
	}
	srv := serve(t, synthetic(
		bucket("0.1", 0, 50),
		bucket("0.5", 0, 90),
		bucket("1", 0, 100),
		bucket("+Inf", 0, 100),
	), Options{})
	// 100 observations in the last minute: the median ranks 50th, at the top
	// of the first bucket; the 90th percentile at the top of the second; the
	// 95th halfway through (0.5, 1].
	for q, want := range map[string]float64{"0.5": 0.1, "0.9": 0.5, "0.95": 0.75, "0.25": 0.05} {
		code, body := instant(t, srv, `histogram_quantile(`+q+`, sum by (le) (rate(latency_seconds_bucket[2m])))`, 60)
		require.Equal(t, http.StatusOK, code, body)
		got := values(t, body)
		assert.InDelta(t, want, got[`{}`], 1e-9, q)
	}
	_, body := instant(t, srv, `histogram_quantile(0.5, latency_seconds_bucket{le!="+Inf"})`, 60)
	assert.True(t, math.IsNaN(values(t, body)[`{svc="api"}`]), "no +Inf bucket gives NaN")
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
	assert.JSONEq(t, `{"status":"error","errorType":"bad_data","error":"invalid expression type \"range vector\" for range query, must be Scalar or instant Vector"}`, string(b))

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
		{"/api/v1/query", url.Values{"query": {"sum(up"}}, `invalid parameter "query": 1:7: parse error: unexpected end of input`},
		{"/api/v1/query", url.Values{"query": {""}}, "no expression found in input"},
		{"/api/v1/query", url.Values{"query": {"up{job=~\"(\"}"}}, "invalid regular expression in label matcher"},
		{"/api/v1/query", url.Values{"query": {`{job=~".*"}`}}, "vector selector must contain at least one non-empty matcher"},
		{"/api/v1/query", url.Values{"query": {"rate(up)"}}, `expected type range vector in call to function "rate", got instant vector`},
		{"/api/v1/query", url.Values{"query": {"sum(up[5m])"}}, "expected type instant vector in aggregation expression, got range vector"},
		{"/api/v1/query", url.Values{"query": {"nosuchfn(up)"}}, `unknown function with name "nosuchfn"`},
		{"/api/v1/query", url.Values{"query": {"holt_winters(up[5m], 0.5, 0.5)"}}, `function "holt_winters" is not supported by this simulator`},
		{"/api/v1/query", url.Values{"query": {"count_values(\"v\", up)"}}, `aggregation "count_values" is not supported by this simulator`},
		{"/api/v1/query", url.Values{"query": {"1 > 2"}}, "comparisons between scalars must use BOOL modifier"},
		{"/api/v1/query", url.Values{"query": {"up and 1"}}, `set operator "and" not allowed in binary scalar expression`},
		{"/api/v1/query", url.Values{"query": {"up $ 1"}}, `1:4: parse error: unexpected character: '$'`},
		{"/api/v1/query", url.Values{"query": {"up[5x]"}}, "bad number or duration syntax"},
		{"/api/v1/query", url.Values{"query": {"up"}, "time": {"yesterday"}}, `invalid parameter "time": cannot parse "yesterday" to a valid timestamp`},
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

func TestParserPrecedenceAndForms(t *testing.T) {
	for q, check := range map[string]func(Node) bool{
		`a + b * c`:          func(n Node) bool { return n.(*BinaryExpr).Op == "+" },
		`a * b + c`:          func(n Node) bool { return n.(*BinaryExpr).Op == "+" },
		`a or b and c`:       func(n Node) bool { return n.(*BinaryExpr).Op == "or" },
		`a - b - c`:          func(n Node) bool { return n.(*BinaryExpr).LHS.(*BinaryExpr).Op == "-" },
		`a == bool b > 1`:    func(n Node) bool { return n.(*BinaryExpr).Op == ">" },
		`SUM BY (x) (a)`:     func(n Node) bool { return n.(*AggregateExpr).Op == "sum" },
		`a{"b"="c", d!~'e'}`: func(n Node) bool { return len(n.(*VectorSelector).Matchers) == 3 },
		`{"my.metric"}`:      func(n Node) bool { return n.(*VectorSelector).Name == "my.metric" },
		`a:b:c[1h30m] offset -5m`: func(n Node) bool {
			ms := n.(*MatrixSelector)
			return ms.Range == 90*time.Minute && ms.VS.Offset == -5*time.Minute && ms.VS.Name == "a:b:c"
		},
		`rate(a[5m:30s] @ 100)`: func(n Node) bool {
			sq := n.(*Call).Args[0].(*SubqueryExpr)
			return sq.Step == 30*time.Second && sq.At.ts == 100_000
		},
		"0x1F + Inf - nan # comment": func(n Node) bool { return n.Type() == TypeScalar },
	} {
		n, err := ParseExpr(q)
		require.NoError(t, err, q)
		assert.True(t, check(n), q)
	}
	_, err := ParseExpr(`sum(` + string(make([]byte, 0)) + `)`)
	var pe *ParseError
	assert.True(t, errors.As(err, &pe))
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
