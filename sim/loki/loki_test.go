package loki

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
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
	require.NotNil(t, sc.Logs)
	return sc
}

func start(t *testing.T, logs *scenario.Logs, opts Options) *httptest.Server {
	t.Helper()
	h, err := New(logs, opts)
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

type streamsResponse struct {
	Status string `json:"status"`
	Data   struct {
		ResultType string `json:"resultType"`
		Result     []struct {
			Stream map[string]string `json:"stream"`
			Values [][2]string       `json:"values"`
		} `json:"result"`
		Stats struct {
			Summary map[string]any `json:"summary"`
		} `json:"stats"`
	} `json:"data"`
}

type metricResponse struct {
	Status string `json:"status"`
	Data   struct {
		ResultType string `json:"resultType"`
		Result     []struct {
			Metric map[string]string `json:"metric"`
			Values [][2]any          `json:"values"`
			Value  [2]any            `json:"value"`
		} `json:"result"`
	} `json:"data"`
}

func do(t *testing.T, base, path string, q url.Values) (int, string) {
	t.Helper()
	resp, err := http.Get(base + path + "?" + q.Encode())
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// queryRange decodes into a fresh value: decoding into a used one would
// merge maps.
func queryRange[T any](t *testing.T, base string, q url.Values) T {
	t.Helper()
	code, body := do(t, base, "/loki/api/v1/query_range", q)
	require.Equal(t, http.StatusOK, code, body)
	var out T
	require.NoError(t, json.Unmarshal([]byte(body), &out))
	return out
}

func ns(t time.Time) string { return strconv.FormatInt(t.UnixNano(), 10) }

// entriesOf returns the scenario entries of streams whose labels include
// sel, within [from, to), independently of the simulator.
func entriesOf(sc *scenario.Scenario, sel map[string]string, from, to time.Time, keep func(string) bool) []int64 {
	var out []int64
	for _, s := range sc.Logs.Streams {
		match := true
		for k, v := range sel {
			if s.Stream[k] != v {
				match = false
			}
		}
		if !match {
			continue
		}
		for _, v := range s.Values {
			ts, _ := strconv.ParseInt(v[0], 10, 64)
			if ts >= from.UnixNano() && ts < to.UnixNano() && keep(v[1]) {
				out = append(out, ts)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] > out[j] })
	return out
}

func TestLineFilterReturnsOnlyMatchingLines(t *testing.T) {
	sc := loadScenario(t, "ad-npe-missing-context")
	tr := sim.NewTranscript(nil)
	srv := start(t, sc.Logs, Options{Now: sc.Now, Transcript: tr})
	from := sc.Now.Add(-2 * time.Hour)

	res := queryRange[streamsResponse](t, srv.URL, url.Values{
		"query": {`{service_name="ad"} |= "NullPointerException"`},
		"start": {ns(from)}, "end": {ns(sc.Now)}, "limit": {"1000"},
	})
	assert.Equal(t, "success", res.Status)
	assert.Equal(t, "streams", res.Data.ResultType)
	want := entriesOf(sc, map[string]string{"service_name": "ad"}, from, sc.Now, func(l string) bool {
		return strings.Contains(l, "NullPointerException")
	})
	require.NotEmpty(t, want)
	var got []int64
	for _, s := range res.Data.Result {
		assert.Equal(t, "ad", s.Stream["service_name"])
		for _, v := range s.Values {
			assert.Contains(t, v[1], "NullPointerException")
			ts, err := strconv.ParseInt(v[0], 10, 64)
			require.NoError(t, err)
			got = append(got, ts)
		}
	}
	sort.Slice(got, func(i, j int) bool { return got[i] > got[j] })
	assert.Equal(t, want, got)
	assert.EqualValues(t, len(want), res.Data.Stats.Summary["totalEntriesReturned"])

	// Case-insensitive regexp and a negative filter.
	res = queryRange[streamsResponse](t, srv.URL, url.Values{
		"query": {`{service_name="ad"} |~ "(?i)nullpointer" != "SerializingExecutor"`},
		"start": {ns(from)}, "end": {ns(sc.Now)},
	})
	re := regexp.MustCompile(`(?i)nullpointer`)
	want = entriesOf(sc, map[string]string{"service_name": "ad"}, from, sc.Now, func(l string) bool {
		return re.MatchString(l) && !strings.Contains(l, "SerializingExecutor")
	})
	n := 0
	for _, s := range res.Data.Result {
		for _, v := range s.Values {
			n++
			assert.Regexp(t, re, v[1])
			assert.NotContains(t, v[1], "SerializingExecutor")
		}
	}
	assert.Equal(t, len(want), n)

	entries := tr.Filter(ServiceName)
	require.Len(t, entries, 2)
	assert.Equal(t, "GET /loki/api/v1/query_range", entries[0].Method)
	assert.Equal(t, `{service_name="ad"} |= "NullPointerException"`, entries[0].Params.(map[string]any)["query"])
	assert.Equal(t, len(want), entries[1].Response.(map[string]any)["entries"])
}

func TestLimitAndDirection(t *testing.T) {
	sc := loadScenario(t, "checkout-fails-payment-typeerror")
	srv := start(t, sc.Logs, Options{Now: sc.Now})
	from := sc.Now.Add(-time.Hour)
	all := entriesOf(sc, map[string]string{"service_name": "frontend-proxy"}, from, sc.Now, func(string) bool { return true })
	require.Greater(t, len(all), 10)

	collect := func(res streamsResponse) []int64 {
		var out []int64
		for _, s := range res.Data.Result {
			for _, v := range s.Values {
				ts, err := strconv.ParseInt(v[0], 10, 64)
				require.NoError(t, err)
				out = append(out, ts)
			}
		}
		return out
	}
	back := queryRange[streamsResponse](t, srv.URL, url.Values{"query": {`{service_name="frontend-proxy"}`}, "start": {ns(from)}, "end": {ns(sc.Now)}, "limit": {"5"}})
	got := collect(back)
	sort.Slice(got, func(i, j int) bool { return got[i] > got[j] })
	assert.Equal(t, all[:5], got, "backward keeps the newest entries")
	for _, s := range back.Data.Result {
		for i := 1; i < len(s.Values); i++ {
			assert.Greater(t, s.Values[i-1][0], s.Values[i][0], "backward streams list newest first")
		}
	}

	fwd := queryRange[streamsResponse](t, srv.URL, url.Values{"query": {`{service_name="frontend-proxy"}`}, "start": {ns(from)}, "end": {ns(sc.Now)}, "limit": {"5"}, "direction": {"FORWARD"}})
	got = collect(fwd)
	sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
	oldest := append([]int64(nil), all[len(all)-5:]...)
	sort.Slice(oldest, func(i, j int) bool { return oldest[i] < oldest[j] })
	assert.Equal(t, oldest, got, "forward keeps the oldest entries")

	// Default limit is 100.
	def := queryRange[streamsResponse](t, srv.URL, url.Values{"query": {`{namespace="astronomy-shop"}`}, "start": {ns(sc.Now.Add(-3 * time.Hour))}, "end": {ns(sc.Now)}})
	assert.Len(t, collect(def), 100)

	// end is exclusive.
	newest := time.Unix(0, all[0])
	excl := queryRange[streamsResponse](t, srv.URL, url.Values{"query": {`{service_name="frontend-proxy"}`}, "start": {ns(newest)}, "end": {ns(newest)}, "limit": {"5"}})
	assert.Empty(t, collect(excl))
	excl = queryRange[streamsResponse](t, srv.URL, url.Values{"query": {`{service_name="frontend-proxy"}`}, "start": {ns(newest)}, "end": {ns(newest.Add(1))}})
	assert.Equal(t, []int64{all[0]}, collect(excl))
}

func TestJSONParserAndLabelFilters(t *testing.T) {
	sc := loadScenario(t, "checkout-fails-payment-typeerror")
	srv := start(t, sc.Logs, Options{Now: sc.Now})
	from := sc.Now.Add(-time.Hour)

	res := queryRange[streamsResponse](t, srv.URL, url.Values{
		"query": {`{service_name="payment"} | json | err_type="TypeError" | line_format "{{.err_message}} @ {{.hostname}}"`},
		"start": {ns(from)}, "end": {ns(sc.Now)}, "limit": {"1000"},
	})
	want := entriesOf(sc, map[string]string{"service_name": "payment"}, from, sc.Now, func(l string) bool {
		return strings.Contains(l, `"type":"TypeError"`)
	})
	require.NotEmpty(t, want)
	n := 0
	for _, s := range res.Data.Result {
		assert.Equal(t, "TypeError", s.Stream["err_type"], "extracted labels join the stream labels")
		assert.Equal(t, "warn", s.Stream["level"], "the stream label keeps its name")
		assert.Equal(t, "40", s.Stream["level_extracted"], "a clashing field gets _extracted")
		assert.NotEmpty(t, s.Stream["hostname"])
		for _, v := range s.Values {
			n++
			assert.Equal(t, "Cannot read properties of undefined (reading 'units') @ "+s.Stream["hostname"], v[1])
		}
	}
	assert.Equal(t, len(want), n)

	// Numeric filter on an extracted field, and JSON errors on plain lines.
	res = queryRange[streamsResponse](t, srv.URL, url.Values{
		"query": {`{namespace="astronomy-shop"} | json | level_extracted >= 50`},
		"start": {ns(from)}, "end": {ns(sc.Now)}, "limit": {"1000"},
	})
	require.NotEmpty(t, res.Data.Result)
	var errored, fine int
	for _, s := range res.Data.Result {
		if s.Stream["__error__"] != "" {
			// Plain-text lines fail the json stage; string levels ("INFO")
			// fail the numeric filter. Both pass with their error, as in Loki.
			errored++
			assert.Contains(t, []string{"JSONParserErr", "LabelFilterErr"}, s.Stream["__error__"])
			continue
		}
		fine++
		lvl, err := strconv.Atoi(s.Stream["level_extracted"])
		require.NoError(t, err)
		assert.GreaterOrEqual(t, lvl, 50)
	}
	assert.Positive(t, fine)
	assert.Positive(t, errored)

	res = queryRange[streamsResponse](t, srv.URL, url.Values{
		"query": {`{namespace="astronomy-shop"} | json | __error__="" | level_extracted >= 50 | __error__=""`},
		"start": {ns(from)}, "end": {ns(sc.Now)}, "limit": {"1000"},
	})
	clean := 0
	for _, s := range res.Data.Result {
		assert.NotContains(t, s.Stream, "__error__")
		lvl, err := strconv.Atoi(s.Stream["level_extracted"])
		require.NoError(t, err)
		assert.GreaterOrEqual(t, lvl, 50)
		clean += len(s.Values)
	}
	assert.Equal(t, fine, len(res.Data.Result), "the same error-free streams")
	assert.Positive(t, clean)
}

func TestLogfmtAndRegexpStages(t *testing.T) {
	base := time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)
	logs := &scenario.Logs{Streams: []scenario.LogStream{{
		Stream: map[string]string{"app": "api"},
		Values: [][]string{
			{ns(base), `level=info msg="GET /health" status=200 duration=3ms`},
			{ns(base.Add(time.Second)), `level=error msg="POST /orders" status=503 duration=2.5s`},
			{ns(base.Add(2 * time.Second)), `level=warn msg="GET /cart" status=429 duration=40ms`},
		},
	}}}
	srv := start(t, logs, Options{Now: base.Add(time.Minute)})
	res := queryRange[streamsResponse](t, srv.URL, url.Values{"query": {`{app="api"} | logfmt | status >= 400 and duration > 100ms`}})
	require.Len(t, res.Data.Result, 1)
	assert.Equal(t, "503", res.Data.Result[0].Stream["status"])
	assert.Equal(t, "POST /orders", res.Data.Result[0].Stream["msg"])
	require.Len(t, res.Data.Result[0].Values, 1)

	res = queryRange[streamsResponse](t, srv.URL, url.Values{"query": {`{app="api"} | regexp "msg=\"(?P<method>[A-Z]+) (?P<path>\\S+)\"" | method="GET" | keep path`}})
	require.Len(t, res.Data.Result, 2)
	for _, s := range res.Data.Result {
		assert.Len(t, s.Stream, 1, "keep drops every other label")
		assert.Contains(t, []string{"/health", "/cart"}, s.Stream["path"])
	}
}

func TestMetricQueries(t *testing.T) {
	sc := loadScenario(t, "ad-npe-missing-context")
	tr := sim.NewTranscript(nil)
	srv := start(t, sc.Logs, Options{Now: sc.Now, Transcript: tr})
	from, to := sc.Now.Add(-time.Hour), sc.Now
	step := 5 * time.Minute

	res := queryRange[metricResponse](t, srv.URL, url.Values{
		"query": {`sum by (level) (count_over_time({service_name="ad"} [5m]))`},
		"start": {strconv.FormatInt(from.Unix(), 10)}, "end": {to.Format(time.RFC3339)}, "step": {"5m"},
	})
	assert.Equal(t, "matrix", res.Data.ResultType)
	require.NotEmpty(t, res.Data.Result)
	levels := map[string]bool{}
	for _, s := range res.Data.Result {
		require.Len(t, s.Metric, 1)
		level := s.Metric["level"]
		levels[level] = true
		for _, p := range s.Values {
			ts := time.Unix(int64(p[0].(float64)), 0)
			assert.Zero(t, ts.Sub(from)%step, "points sit on the step grid")
			// Independent count over (ts-5m, ts].
			want := 0
			for _, st := range sc.Logs.Streams {
				if st.Stream["service_name"] != "ad" || st.Stream["level"] != level {
					continue
				}
				for _, v := range st.Values {
					n, _ := strconv.ParseInt(v[0], 10, 64)
					if n > ts.Add(-5*time.Minute).UnixNano() && n <= ts.UnixNano() {
						want++
					}
				}
			}
			assert.Equal(t, strconv.Itoa(want), p[1], "level %s at %s", level, ts)
			assert.NotEqual(t, "0", p[1], "empty windows are omitted")
		}
	}
	assert.True(t, levels["error"])

	// rate is the count per second of the range; instant queries give vectors.
	code, body := do(t, srv.URL, "/loki/api/v1/query", url.Values{
		"query": {`sum(rate({service_name="ad", level="error"}[10m]))`}, "time": {ns(sc.Now)},
	})
	require.Equal(t, http.StatusOK, code, body)
	res = metricResponse{}
	require.NoError(t, json.Unmarshal([]byte(body), &res))
	assert.Equal(t, "vector", res.Data.ResultType)
	require.Len(t, res.Data.Result, 1)
	count := len(entriesOf(sc, map[string]string{"service_name": "ad", "level": "error"}, sc.Now.Add(-10*time.Minute), sc.Now.Add(time.Nanosecond), func(string) bool { return true }))
	got, err := strconv.ParseFloat(res.Data.Result[0].Value[1].(string), 64)
	require.NoError(t, err)
	assert.InDelta(t, float64(count)/600, got, 1e-9)
	assert.EqualValues(t, sc.Now.Unix(), res.Data.Result[0].Value[0])

	// A ratio with a comparison keeps only series above the threshold.
	code, body = do(t, srv.URL, "/loki/api/v1/query", url.Values{
		"query": {`sum by (service_name) (count_over_time({namespace="astronomy-shop", level="error"}[30m])) / sum by (service_name) (count_over_time({namespace="astronomy-shop"}[30m])) > 0.1`},
		"time":  {ns(sc.Now)},
	})
	require.Equal(t, http.StatusOK, code, body)
	res = metricResponse{}
	require.NoError(t, json.Unmarshal([]byte(body), &res))
	require.NotEmpty(t, res.Data.Result)
	for _, s := range res.Data.Result {
		v, _ := strconv.ParseFloat(s.Value[1].(string), 64)
		assert.Greater(t, v, 0.1)
		assert.LessOrEqual(t, v, 1.0)
	}

	code, body = do(t, srv.URL, "/loki/api/v1/query", url.Values{"query": {`{service_name="ad"}`}})
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Equal(t, "log queries are not supported as an instant query type, please change your query to a range query type\n", body)

	last := tr.Entries()[len(tr.Entries())-1]
	assert.Equal(t, 400, last.Response.(map[string]any)["status"])
}

func TestRequestErrors(t *testing.T) {
	sc := loadScenario(t, "ad-npe-missing-context")
	srv := start(t, sc.Logs, Options{Now: sc.Now})
	tests := []struct {
		name string
		q    url.Values
		want string
	}{
		{"parse error", url.Values{"query": {`{service_name="ad"`}}, "parse error at line 1, col 19: syntax error: unexpected $end, expecting , or }"},
		{"empty matcher", url.Values{"query": {`{service_name=~".*"}`}}, "parse error : queries require at least one regexp or equality matcher"},
		{"limit over max", url.Values{"query": {`{service_name="ad"}`}, "limit": {"6000"}}, "max entries limit per query exceeded, limit > max_entries_limit (6000 > 5000)"},
		{"zero limit", url.Values{"query": {`{service_name="ad"}`}, "limit": {"0"}}, "limit must be a positive value"},
		{"bad direction", url.Values{"query": {`{service_name="ad"}`}, "direction": {"sideways"}}, "invalid direction"},
		{"bad start", url.Values{"query": {`{service_name="ad"}`}, "start": {"yesterday"}}, `invalid parameter "start"`},
		{"reversed", url.Values{"query": {`{service_name="ad"}`}, "start": {ns(sc.Now)}, "end": {ns(sc.Now.Add(-time.Hour))}}, "end timestamp must not be before or equal to start time"},
		{"too many points", url.Values{"query": {`count_over_time({service_name="ad"}[1m])`}, "start": {ns(sc.Now.Add(-24 * time.Hour))}, "end": {ns(sc.Now)}, "step": {"1s"}}, "exceeded maximum resolution of 11,000 points"},
		{"negative step", url.Values{"query": {`count_over_time({service_name="ad"}[1m])`}, "step": {"-5"}}, "zero or negative query resolution step"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.Get(srv.URL + "/loki/api/v1/query_range?" + tc.q.Encode())
			require.NoError(t, err)
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
			assert.Equal(t, "text/plain; charset=utf-8", resp.Header.Get("Content-Type"))
			assert.Contains(t, string(b), tc.want)
		})
	}
}

func TestPostFormAndTimeFormats(t *testing.T) {
	sc := loadScenario(t, "ad-npe-missing-context")
	srv := start(t, sc.Logs, Options{Now: sc.Now})
	form := url.Values{
		"query": {`{service_name="ad", level="error"}`},
		"start": {sc.Now.Add(-time.Hour).Format(time.RFC3339Nano)},
		"end":   {strconv.FormatFloat(float64(sc.Now.UnixMilli())/1000, 'f', 3, 64)},
	}
	resp, err := http.PostForm(srv.URL+"/loki/api/v1/query_range", form)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var res streamsResponse
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&res))
	want := entriesOf(sc, map[string]string{"service_name": "ad", "level": "error"}, sc.Now.Add(-time.Hour), sc.Now, func(string) bool { return true })
	n := 0
	for _, s := range res.Data.Result {
		n += len(s.Values)
	}
	assert.Equal(t, len(want), n)

	for in, want := range map[string]time.Time{
		"1796034600":           time.Unix(1796034600, 0),
		"1796034600000000000":  time.Unix(1796034600, 0),
		"1796034600.25":        time.Unix(1796034600, 250_000_000),
		"2026-11-30T10:30:00Z": time.Date(2026, 11, 30, 10, 30, 0, 0, time.UTC),
	} {
		got, err := parseTime(in, time.Time{})
		require.NoError(t, err, in)
		assert.True(t, want.Equal(got), "%s: %v", in, got)
	}
}

func TestLabelsValuesAndSeries(t *testing.T) {
	sc := loadScenario(t, "cart-oomkilled-low-limit")
	srv := start(t, sc.Logs, Options{Now: sc.Now})

	code, body := do(t, srv.URL, "/loki/api/v1/labels", url.Values{})
	require.Equal(t, http.StatusOK, code)
	var names struct {
		Status string   `json:"status"`
		Data   []string `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &names))
	assert.Equal(t, []string{"container", "level", "namespace", "pod", "service_name"}, names.Data)

	code, body = do(t, srv.URL, "/loki/api/v1/label/service_name/values", url.Values{})
	require.Equal(t, http.StatusOK, code)
	require.NoError(t, json.Unmarshal([]byte(body), &names))
	wantSvc := map[string]bool{}
	for _, s := range sc.Logs.Streams {
		wantSvc[s.Stream["service_name"]] = true
	}
	assert.Len(t, names.Data, len(wantSvc))
	assert.IsIncreasing(t, names.Data)

	code, body = do(t, srv.URL, "/loki/api/v1/label/pod/values", url.Values{"query": {`{service_name="cart"}`}})
	require.Equal(t, http.StatusOK, code)
	require.NoError(t, json.Unmarshal([]byte(body), &names))
	require.NotEmpty(t, names.Data)
	for _, p := range names.Data {
		assert.True(t, strings.HasPrefix(p, "cart-"), p)
	}

	code, body = do(t, srv.URL, "/loki/api/v1/series", url.Values{"match[]": {`{service_name="cart"}`, `{level="error"}`}})
	require.Equal(t, http.StatusOK, code)
	var series struct {
		Data []map[string]string `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &series))
	want := 0
	for _, s := range sc.Logs.Streams {
		if s.Stream["service_name"] == "cart" || s.Stream["level"] == "error" {
			want++
		}
	}
	assert.Len(t, series.Data, want)

	// A window with no data has no labels.
	code, body = do(t, srv.URL, "/loki/api/v1/labels", url.Values{"start": {ns(sc.Now.Add(-30 * 24 * time.Hour))}, "end": {ns(sc.Now.Add(-29 * 24 * time.Hour))}})
	require.Equal(t, http.StatusOK, code)
	require.NoError(t, json.Unmarshal([]byte(body), &names))
	assert.Empty(t, names.Data)

	code, _ = do(t, srv.URL, "/loki/api/v1/series", url.Values{"match[]": {`{service_name="cart"} |= "x"`}})
	assert.Equal(t, http.StatusBadRequest, code)
}

func TestNewValidatesStreams(t *testing.T) {
	_, err := New(&scenario.Logs{Streams: []scenario.LogStream{{Stream: map[string]string{"a": "b"}, Values: [][]string{{"yesterday", "x"}}}}}, Options{})
	assert.ErrorContains(t, err, "is not nanoseconds")
	_, err = New(&scenario.Logs{Streams: []scenario.LogStream{{Values: [][]string{{"1", "x"}}}}}, Options{})
	assert.ErrorContains(t, err, "no labels")
	_, err = New(nil, Options{})
	assert.NoError(t, err)
}

// BenchmarkLogQueryScenario measures a json-parsing log query and a metric
// query over the checkout scenario's logs.
func BenchmarkLogQueryScenario(b *testing.B) {
	sc, err := scenario.Load(filepath.Join(examples, "checkout-fails-payment-typeerror"))
	if err != nil {
		b.Fatal(err)
	}
	h, err := New(sc.Logs, Options{Now: sc.Now})
	if err != nil {
		b.Fatal(err)
	}
	for name, q := range map[string]string{
		"log":    `{namespace="astronomy-shop"} |= "error" | json | __error__="" | level_extracted >= 40`,
		"metric": `sum by (service_name) (count_over_time({namespace="astronomy-shop"} |~ "(?i)error" [5m]))`,
	} {
		b.Run(name, func(b *testing.B) {
			v := url.Values{"query": {q}, "start": {ns(sc.Now.Add(-time.Hour))}, "end": {ns(sc.Now)}, "step": {"60s"}, "limit": {"1000"}}
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodGet, "/loki/api/v1/query_range?"+v.Encode(), nil)
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatal(rec.Body.String())
				}
			}
		})
	}
}

func TestScalarArithmeticPrecedence(t *testing.T) {
	srv := start(t, nil, Options{Now: time.Unix(1000, 0)})
	for q, want := range map[string]string{
		`1 + 2 * 3`:       "7",
		`2 ^ 3 ^ 2`:       "512",
		`(1 + 2) * 3`:     "9",
		`-2 ^ 2`:          "4", // LogQL lexes -2 as one literal, unlike PromQL
		`10 - 4 - 3`:      "3",
		`3 > bool 2`:      "1",
		`7 % 4 == bool 3`: "1",
	} {
		code, body := do(t, srv.URL, "/loki/api/v1/query", url.Values{"query": {q}})
		require.Equal(t, http.StatusOK, code, q+": "+body)
		var res struct {
			Data struct {
				ResultType string `json:"resultType"`
				Result     [2]any `json:"result"`
			} `json:"data"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &res))
		assert.Equal(t, "scalar", res.Data.ResultType, q)
		assert.Equal(t, want, res.Data.Result[1], q)
	}
}
