package capture

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/loki"
	"github.com/autoheal/autoheal/investigate/prom"
	"github.com/autoheal/autoheal/investigate/tap"
	"github.com/autoheal/autoheal/redact"
	"github.com/autoheal/autoheal/scenario"
	jaegersim "github.com/autoheal/autoheal/sim/jaeger"
	lokisim "github.com/autoheal/autoheal/sim/loki"
	promsim "github.com/autoheal/autoheal/sim/prom"
)

var now = time.Date(2026, 11, 30, 10, 30, 0, 0, time.UTC)

// querier calls a capability's tools, as the engine does for bot capture.
func querier(c investigate.Capability) Querier {
	return func(ctx context.Context, tool string, args map[string]any) error {
		b, err := json.Marshal(args)
		if err != nil {
			return err
		}
		_, err = c.Call(ctx, tool, b)
		return err
	}
}

// A log query that hit its limit saw a sample: the capture pages in the
// rest of its range, so that the replay counts the lines there were.
func TestCollectCompletesLogQueriesThatHitTheirLimit(t *testing.T) {
	logs := &scenario.Logs{}
	st := scenario.LogStream{Stream: map[string]string{"service_name": "ad", "level": "info"}}
	start := now.Add(-time.Hour)
	const lines = 12000
	for i := 0; i < lines; i++ {
		at := start.Add(time.Duration(i) * 250 * time.Millisecond)
		st.Values = append(st.Values, []string{strconv.FormatInt(at.UnixNano(), 10), fmt.Sprintf("served request %d", i)})
	}
	logs.Streams = append(logs.Streams, st)
	h, err := lokisim.New(logs, lokisim.Options{Now: now})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()
	c := loki.New(loki.Config{URL: srv.URL})

	// A fresh recording of one query that hit its limit (500 lines).
	record := func() (*Recorder, context.Context) {
		rec := NewRecorder(nil)
		ctx := tap.With(context.Background(), rec)
		_, err := c.Call(ctx, "logs_query", json.RawMessage(fmt.Sprintf(`{"query": "{service_name=\"ad\"}", "start": %q, "end": %q, "limit": 500}`,
			start.Format(time.RFC3339), now.Format(time.RFC3339))))
		require.NoError(t, err)
		return rec, ctx
	}
	rec, ctx := record()
	d, err := Collect(ctx, Options{Recorder: rec, Query: querier(c), End: now})
	require.NoError(t, err)
	assert.Equal(t, lines, len(d.Logs), "every line of the query's range")
	assert.Empty(t, d.Notes[LogsFile])

	// Without a querier, or past the size limit, what was read is kept and
	// the README is told.
	rec, ctx = record()
	d, err = Collect(ctx, Options{Recorder: rec, End: now})
	require.NoError(t, err)
	assert.Equal(t, 500, len(d.Logs))
	assert.Contains(t, strings.Join(d.Notes[LogsFile], " "), "hit their limit")
	rec, ctx = record()
	d, err = Collect(ctx, Options{Recorder: rec, Query: querier(c), End: now, Limits: Limits{File: 100 << 10, Total: 1 << 20, SourceFile: 1 << 20}})
	require.NoError(t, err)
	assert.Less(t, len(d.Logs), lines)
	assert.Contains(t, strings.Join(d.Notes[LogsFile], " "), "stopped at the size limit")
}

// A computed PromQL expression is answered from raw samples its answer
// does not hold: the capture reads them, so that the replay computes the
// same answer; a bare selector's answer is kept as it is.
func TestCollectReadsTheRawSamplesBehindComputedMetrics(t *testing.T) {
	series := scenario.Series{Metric: map[string]string{"__name__": "http_requests_total", "service": "cart"}}
	v := 0.0
	for at := now.Add(-2 * time.Hour); !at.After(now); at = at.Add(15 * time.Second) {
		v += 3 + float64(at.Minute()%7)
		series.Values = append(series.Values, [2]any{float64(at.Unix()), strconv.FormatFloat(v, 'f', -1, 64)})
	}
	gauge := scenario.Series{Metric: map[string]string{"__name__": "up", "service": "cart"}}
	for at := now.Add(-2 * time.Hour); !at.After(now); at = at.Add(15 * time.Second) {
		gauge.Values = append(gauge.Values, [2]any{float64(at.Unix()), "1"})
	}
	orig := &scenario.Metrics{Series: []scenario.Series{series, gauge}}
	serve := func(m *scenario.Metrics) *prom.Capability {
		h, err := promsim.New(m, promsim.Options{Now: now})
		require.NoError(t, err)
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return prom.New(prom.Config{URL: srv.URL})
	}
	query := func(c *prom.Capability, ctx context.Context, q string) string {
		res, err := c.Call(ctx, "metrics_query_range", json.RawMessage(fmt.Sprintf(`{"query": %q, "start": %q, "end": %q, "step": "60s"}`,
			q, now.Add(-time.Hour).Format(time.RFC3339), now.Format(time.RFC3339))))
		require.NoError(t, err)
		b, err := json.Marshal(res.Data)
		require.NoError(t, err)
		return string(b)
	}
	live := serve(orig)
	rec := NewRecorder(nil)
	ctx := tap.With(context.Background(), rec)
	rate := `sum(rate(http_requests_total{service="cart"}[5m]))`
	want := query(live, ctx, rate)
	wantUp := query(live, ctx, `up{service="cart"}`)

	d, err := Collect(ctx, Options{Recorder: rec, Query: querier(live), End: now})
	require.NoError(t, err)
	require.Len(t, d.Metrics, 2)
	replay := serve(&scenario.Metrics{Series: d.Metrics})
	assert.Equal(t, want, query(replay, context.Background(), rate), "the rate replays from the raw samples read")
	assert.Equal(t, wantUp, query(replay, context.Background(), `up{service="cart"}`), "the bare selector replays from its stepped answer")
}

// Traces read through Jaeger's api_v3 (OTLP) are kept in the v1 form with
// what the engine reads: status, kind, events as logs, the parent.
func TestTracesFromOTLP(t *testing.T) {
	s, err := scenario.Load("../testdata/examples/checkout-fails-payment-typeerror")
	require.NoError(t, err)
	orig := s.Traces.Data[0]
	body, err := jaegersim.TraceToOTLP(orig)
	require.NoError(t, err)
	wrapped := []byte(`{"result":` + string(body) + `}`)
	u, _ := parseURL("http://jaeger/api/v3/traces/" + orig.TraceID)
	got, notes := traces([]tap.HTTP{{Method: "GET", URL: u, Status: 200, Body: wrapped}})
	require.Empty(t, notes)
	require.Len(t, got, 1)
	assert.Len(t, got[0].Spans, len(orig.Spans))
	assert.Equal(t, traceFailed(orig), traceFailed(got[0]))
	byID := map[string]scenario.Span{}
	for _, sp := range got[0].Spans {
		byID[sp.SpanID] = sp
	}
	for _, o := range orig.Spans {
		g, ok := byID[o.SpanID]
		require.True(t, ok, o.SpanID)
		assert.Equal(t, o.OperationName, g.OperationName)
		assert.Equal(t, o.StartTime, g.StartTime)
		assert.Equal(t, o.Duration, g.Duration)
		assert.Equal(t, orig.Processes[o.ProcessID].ServiceName, got[0].Processes[g.ProcessID].ServiceName)
		assert.Len(t, g.Logs, len(o.Logs))
		if len(o.References) > 0 {
			require.NotEmpty(t, g.References)
			assert.Equal(t, o.References[0].SpanID, g.References[0].SpanID)
		}
	}
}

func TestK8sObjectsKeepNoSecretValue(t *testing.T) {
	list := `# The following resources (YAML format) were found:
- apiVersion: v1
  kind: Secret
  metadata:
    name: db
    namespace: shop
    annotations:
      kubectl.kubernetes.io/last-applied-configuration: '{"data":{"password":"aHVudGVyMg=="}}'
  type: Opaque
  data:
    password: aHVudGVyMg==
- apiVersion: v1
  kind: Pod
  metadata:
    name: cart-1
    namespace: shop
    creationTimestamp: 2026-11-30T10:00:00Z
`
	events := "# The following events (YAML format) were found:\n- InvolvedObject:\n    Kind: Pod\n    Name: cart-1\n  Message: Back-off restarting failed container\n  Namespace: shop\n  Reason: BackOff\n  Timestamp: 2026-11-30 10:05:00 +0000 UTC\n  Type: Warning\n"
	objs, _, notes := k8sObjects([]tap.Tool{
		{Server: "kubernetes", Tool: "resources_list", Args: json.RawMessage(`{"apiVersion":"v1","kind":"Secret"}`), Text: list},
		{Server: "kubernetes", Tool: "events_list", Args: json.RawMessage(`{}`), Text: events},
		{Server: "kubernetes", Tool: "pods_list", Args: json.RawMessage(`{}`), Text: "NAMESPACE   NAME   READY\nshop        cart-1 1/1\n"},
	})
	require.Len(t, objs, 3)
	b, err := json.Marshal(objs)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "aHVudGVyMg==")
	assert.Contains(t, string(b), `"data":{"password":""}`, "key names stay")
	assert.Equal(t, "2026-11-30T10:00:00Z", str(objs[1], "metadata", "creationTimestamp"))
	assert.Equal(t, "BackOff", objs[2]["reason"])
	assert.Equal(t, "Pod", str(objs[2], "involvedObject", "kind"))
	assert.Contains(t, strings.Join(notes, " "), "tables")
}

// Masking keeps every line where it was: a private key in a source file
// or a patch becomes masked lines, not one.
func TestMaskLinesKeepsLineNumbers(t *testing.T) {
	src := "package main\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0\n-----END RSA PRIVATE KEY-----\nfunc main() {}\n"
	got := maskLines(redact.New(redact.Options{}), src)
	assert.Equal(t, strings.Count(src, "\n"), strings.Count(got, "\n"))
	assert.NotContains(t, got, "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0")
	assert.True(t, strings.HasSuffix(got, "func main() {}\n"))

	kv := maskKV(redact.New(redact.Options{}), scenario.KeyValue{Key: "http.request.header.authorization", Type: "string", Value: "Basic dXNlcjpwYXNz"})
	assert.Equal(t, redact.Mask, kv.Value)
}

func TestShareIsFair(t *testing.T) {
	assert.Equal(t, []int64{10, 45, 45}, share([]int64{10, 100, 200}, 100))
	assert.Equal(t, []int64{10, 20, 30}, share([]int64{10, 20, 30}, 100), "all fit")
	assert.Equal(t, []int64{0, 0}, share([]int64{5, 5}, -3))
}

func TestFitKeepsTheLargestPrefix(t *testing.T) {
	items := []string{"aaaa", "bbbb", "cccc", "dddd"}
	render := func(k int) ([]byte, error) { return jsonLines("[", items[:k], "]") }
	all, _ := render(4)
	k, b, err := fit(4, int64(len(all)), render)
	require.NoError(t, err)
	assert.Equal(t, 4, k)
	k, b, err = fit(4, int64(len(all))-1, render)
	require.NoError(t, err)
	assert.Equal(t, 3, k)
	var back []string
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, items[:3], back)
}

// A terminal gets a bar redrawn in place; anything else one plain line
// per stage.
func TestProgress(t *testing.T) {
	var tty bytes.Buffer
	p := NewProgress(&tty, true)
	p.Stage("completing log queries", 4)
	p.Step(2, "300 lines")
	p.Done()
	assert.Contains(t, tty.String(), "\r\033[K[")
	assert.Contains(t, tty.String(), "] 4/4 completing log queries")
	assert.True(t, strings.HasSuffix(tty.String(), "\n"))

	var plain bytes.Buffer
	p = NewProgress(&plain, false)
	p.Stage("recording the investigation", 0)
	p.Step(7, "7 answers, 1.0 KiB")
	p.Stage("writing the scenario", 3)
	p.Done()
	assert.Equal(t, "capture: recording the investigation…\ncapture: recording the investigation: 7 answers, 1.0 KiB\ncapture: writing the scenario…\n", plain.String())
}

// What Write produces is a scenario scenario.Load accepts, with a truth
// marked todo and a README.
func TestWriteLoads(t *testing.T) {
	d := &Data{Answered: map[Backend]bool{Loki: true, GitHub: true}, Notes: map[string][]string{},
		Logs:  []logEntry{{labels: map[string]string{"service_name": "ad"}, key: "k", ts: now.Add(-time.Minute).UnixNano(), line: "boom"}},
		Files: []repoFile{{Path: "src/a.go", Content: []byte("package a\n")}, {Path: "../escape", Content: []byte("x")}}}
	dir := filepath.Join(t.TempDir(), "c")
	meta := Meta{Name: "c", Now: now, Mention: "ad is failing", Config: map[string]string{"repo": "acme/shop"},
		Truth: scenario.Truth{Todo: "check", Bucket: "code_bug", Service: "ad"}, TruthNote: "left to a human", Header: "captured"}
	files, err := Write(dir, d, WriteOptions{Scenario: meta})
	require.NoError(t, err)
	require.NoError(t, WriteReadme(dir, Report{Name: "c", Files: files, Limits: DefaultLimits, Missing: []string{"traces (jaeger): not configured"}}))
	s, err := scenario.Load(dir)
	require.NoError(t, err)
	assert.Equal(t, "check", s.Truth.Todo)
	assert.Len(t, s.Logs.Streams, 1)
	assert.Nil(t, s.Traces, "a backend that never answered is not written")
	assert.Equal(t, []string{"src/a.go"}, s.Repo.Paths())
	assert.Equal(t, []scenario.Commit{}, s.Changes)
	y, err := os.ReadFile(filepath.Join(dir, "scenario.yaml"))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(y), "# captured\n"))
	assert.Contains(t, string(y), "# left to a human\ntruth:\n  todo: check\n")

	_, err = Write(dir, d, WriteOptions{Scenario: meta})
	require.ErrorIs(t, err, ErrNotEmpty)
	_, err = Write(dir, d, WriteOptions{Scenario: meta, Force: true})
	require.NoError(t, err)
}

func parseURL(s string) (*url.URL, error) { return url.Parse(s) }
