package faults

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sim"
	"github.com/autoheal/autoheal/sim/jaeger"
)

// backend answers a small JSON document and counts its calls.
type backend struct{ calls atomic.Int64 }

const backendBody = `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"job":"api"},"value":[1764497400,"1"]}]}}`

func (b *backend) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	b.calls.Add(1)
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, backendBody)
}

func setup(t *testing.T, opts Options) (*Injector, *backend, *httptest.Server) {
	t.Helper()
	b := &backend{}
	inj := New(b, opts)
	srv := httptest.NewServer(inj)
	t.Cleanup(func() {
		inj.ReleaseHangs()
		srv.Close()
	})
	return inj, b, srv
}

func call(t *testing.T, ctx context.Context, url string) (*http.Response, []byte, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, body, err
}

func TestStatusFaults(t *testing.T) {
	tests := []struct {
		name       string
		fault      Fault
		retryAfter string
		body       string
	}{
		{"unauthorized", Fault{Kind: Status, Status: 401}, "", "Unauthorized\n"},
		{"forbidden", Fault{Kind: Status, Status: 403}, "", "Forbidden\n"},
		{"not found", Fault{Kind: Status, Status: 404}, "", "Not Found\n"},
		{"rate limited", Fault{Kind: Status, Status: 429, RetryAfter: 2 * time.Second}, "2", "Too Many Requests\n"},
		{"internal", Fault{Kind: Status, Status: 500, Body: `{"error":"boom"}`, ContentType: "application/json"}, "", `{"error":"boom"}`},
		{"unavailable rounds retry-after up", Fault{Kind: Status, Status: 503, RetryAfter: 1500 * time.Millisecond}, "2", "Service Unavailable\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := sim.NewTranscript(nil)
			inj, b, srv := setup(t, Options{Service: "prometheus", Transcript: tr})
			require.NoError(t, inj.Set("/api/v1/", tc.fault))

			resp, body, err := call(t, context.Background(), srv.URL+"/api/v1/query?query=up")
			require.NoError(t, err)
			assert.Equal(t, tc.fault.Status, resp.StatusCode)
			assert.Equal(t, tc.retryAfter, resp.Header.Get("Retry-After"))
			assert.Equal(t, tc.body, string(body))
			assert.Zero(t, b.calls.Load(), "the simulator is not reached")

			entries := tr.Entries()
			require.Len(t, entries, 1)
			assert.Equal(t, "prometheus", entries[0].Service)
			assert.Equal(t, "GET /api/v1/query", entries[0].Method)
			assert.Equal(t, map[string]any{"query": "up"}, entries[0].Params)
			assert.Equal(t, map[string]any{"fault": "status", "status": tc.fault.Status}, entries[0].Response)
		})
	}
}

func TestMalformedBody(t *testing.T) {
	inj, _, srv := setup(t, Options{})
	require.NoError(t, inj.Set("", Fault{Kind: Malformed}))
	resp, body, err := call(t, context.Background(), srv.URL+"/loki/api/v1/query_range")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	var v any
	var syntax *json.SyntaxError
	assert.ErrorAs(t, json.Unmarshal(body, &v), &syntax)
}

func TestTruncatedBody(t *testing.T) {
	inj, b, srv := setup(t, Options{})

	require.NoError(t, inj.Set("/cut", Fault{Kind: Truncated}))
	_, _, err := call(t, context.Background(), srv.URL+"/cut")
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "the connection drops mid-body")

	require.NoError(t, inj.Set("/clean", Fault{Kind: Truncated, CleanEOF: true}))
	resp, body, err := call(t, context.Background(), srv.URL+"/clean")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, backendBody[:len(backendBody)/2], string(body), "a valid prefix of the real body")
	var v any
	assert.Error(t, json.Unmarshal(body, &v))
	assert.EqualValues(t, 2, b.calls.Load(), "truncation runs the simulator")
}

func TestTruncatedJaegerResponse(t *testing.T) {
	sc, err := scenario.Load(filepath.Join("../../testdata/examples", "ad-npe-missing-context"))
	require.NoError(t, err)
	tr := sim.NewTranscript(nil)
	h, err := jaeger.New(sc.Traces, jaeger.Options{Now: sc.Now, Transcript: tr})
	require.NoError(t, err)
	inj := New(h, Options{Service: jaeger.ServiceName, Transcript: tr})
	srv := httptest.NewServer(inj)
	defer srv.Close()
	require.NoError(t, inj.Set("/api/traces", Fault{Kind: Truncated, CleanEOF: true}))

	resp, body, err := call(t, context.Background(), srv.URL+"/api/traces?service=ad&limit=5")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	var res struct {
		Data []scenario.Trace `json:"data"`
	}
	assert.Error(t, json.Unmarshal(body, &res))

	entries := tr.Filter(jaeger.ServiceName)
	require.Len(t, entries, 2, "the simulator's own entry and the injection")
	assert.Equal(t, "truncated", entries[1].Response.(map[string]any)["fault"])
}

func TestHugeBodyIsValidJSONOfTheRequestedSize(t *testing.T) {
	inj, _, srv := setup(t, Options{})
	require.NoError(t, inj.Set("/big", Fault{Kind: Huge}))
	require.NoError(t, inj.Set("/odd", Fault{Kind: Huge, HugeBytes: 100_003}))

	for path, size := range map[string]int64{"/big": DefaultHugeBytes, "/odd": 100_003} {
		resp, err := http.Get(srv.URL + path)
		require.NoError(t, err)
		assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
		counter := &countingReader{r: resp.Body}
		dec := json.NewDecoder(counter)
		// Stream the tokens: valid JSON all the way, never held in memory.
		var strings int
		for {
			tok, err := dec.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err)
			if _, ok := tok.(string); ok {
				strings++
			}
		}
		resp.Body.Close()
		assert.Equal(t, size, counter.n, path)
		assert.Greater(t, strings, 1)
	}
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func TestHangUntilReleased(t *testing.T) {
	tr := sim.NewTranscript(nil)
	inj, b, srv := setup(t, Options{Service: "loki", Transcript: tr})
	release := make(chan struct{})
	require.NoError(t, inj.Set("/loki", Fault{Kind: Hang, Release: release}))

	done := make(chan int, 1)
	go func() {
		resp, _, err := call(t, context.Background(), srv.URL+"/loki/api/v1/labels")
		if err != nil {
			done <- -1
			return
		}
		done <- resp.StatusCode
	}()
	require.Eventually(t, func() bool { return len(tr.Entries()) == 1 }, 5*time.Second, 5*time.Millisecond)
	select {
	case <-done:
		t.Fatal("a hanging call returned before its release")
	default:
	}
	assert.Zero(t, b.calls.Load())
	close(release)
	assert.Equal(t, http.StatusOK, <-done)
	assert.EqualValues(t, 1, b.calls.Load(), "a released call goes through")
}

func TestHangEndsWhenClientGoesAway(t *testing.T) {
	inj, b, srv := setup(t, Options{})
	require.NoError(t, inj.Set("", Fault{Kind: Hang}))
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, _, err := call(t, ctx, srv.URL+"/x")
		errc <- err
	}()
	require.Eventually(t, func() bool { return inj.Injected() == 1 }, 5*time.Second, 5*time.Millisecond)
	cancel()
	assert.ErrorIs(t, <-errc, context.Canceled)
	assert.Zero(t, b.calls.Load())

	// ReleaseHangs frees every hang, current and future.
	inj.ReleaseHangs()
	resp, _, err := call(t, context.Background(), srv.URL+"/x")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

func TestLatencyThenPassThrough(t *testing.T) {
	tr := sim.NewTranscript(nil)
	inj, b, srv := setup(t, Options{Service: "jaeger", Transcript: tr})
	require.NoError(t, inj.Set("", Fault{Latency: 20 * time.Millisecond}))
	resp, body, err := call(t, context.Background(), srv.URL+"/api/services")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, backendBody, string(body))
	assert.EqualValues(t, 1, b.calls.Load())
	assert.Equal(t, map[string]any{"fault": "latency", "latency_ms": int64(20)}, tr.Entries()[0].Response)

	// A client that gives up during the delay never reaches the simulator.
	require.NoError(t, inj.Set("", Fault{Latency: time.Hour}))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, _, err = call(t, ctx, srv.URL+"/api/services")
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.EqualValues(t, 1, b.calls.Load())
}

func TestTimesThenBehave(t *testing.T) {
	inj, b, srv := setup(t, Options{})
	require.NoError(t, inj.Set("/api", Fault{Kind: Status, Status: 503, Times: 2}))
	var codes []int
	for range 4 {
		resp, _, err := call(t, context.Background(), srv.URL+"/api/traces")
		require.NoError(t, err)
		codes = append(codes, resp.StatusCode)
	}
	assert.Equal(t, []int{503, 503, 200, 200}, codes)
	assert.EqualValues(t, 2, b.calls.Load())
	assert.EqualValues(t, 2, inj.Injected())
}

func TestPrefixSelection(t *testing.T) {
	inj, _, srv := setup(t, Options{})
	require.NoError(t, inj.Set("/", Fault{Kind: Status, Status: 500}))
	require.NoError(t, inj.Set("/api/v1/query", Fault{Kind: Status, Status: 429}))
	status := func(path string) int {
		resp, _, err := call(t, context.Background(), srv.URL+path)
		require.NoError(t, err)
		return resp.StatusCode
	}
	assert.Equal(t, 429, status("/api/v1/query_range"), "the longest prefix wins")
	assert.Equal(t, 500, status("/api/v1/labels"))
	inj.Clear("/api/v1/query")
	assert.Equal(t, 500, status("/api/v1/query"))
	require.NoError(t, inj.Set("/", Fault{Kind: Status, Status: 401}))
	assert.Equal(t, 401, status("/x"), "setting a prefix again replaces its fault")
	inj.Reset()
	assert.Equal(t, 200, status("/api/v1/query"))
}

// A fault naming a method leaves the path's other methods alone, and
// counts its Times on its own method's calls only.
func TestMethodSelection(t *testing.T) {
	inj, b, srv := setup(t, Options{})
	require.NoError(t, inj.Set("/repos/o/r/pulls", Fault{Kind: Status, Status: 502, Method: http.MethodPost, Times: 1}))
	require.NoError(t, inj.Set("/repos/o/r/pulls", Fault{Kind: Status, Status: 500, Method: http.MethodDelete}))
	do := func(method string) int {
		req, err := http.NewRequest(method, srv.URL+"/repos/o/r/pulls", nil)
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, 200, do(http.MethodGet), "a GET of the same path goes through")
	assert.Equal(t, 502, do(http.MethodPost))
	assert.Equal(t, 200, do(http.MethodGet))
	assert.Equal(t, 200, do(http.MethodPost), "its one time is used")
	assert.Equal(t, 500, do(http.MethodDelete), "the other method's rule was kept")
	assert.EqualValues(t, 3, b.calls.Load())
	inj.Clear("/repos/o/r/pulls")
	assert.Equal(t, 200, do(http.MethodDelete), "clear removes every method's rule")
	assert.Error(t, inj.Set("/", Fault{Kind: Hang, Method: "post"}), "methods are upper case")
}

func TestSetValidates(t *testing.T) {
	inj := New(http.NotFoundHandler(), Options{})
	for _, f := range []Fault{
		{Kind: Status},
		{Kind: Status, Status: 700},
		{Kind: "explode"},
		{},
		{Latency: -time.Second},
		{Kind: Huge, HugeBytes: -1},
		{Kind: Malformed, Times: -1},
	} {
		assert.Error(t, inj.Set("/", f), "%+v", f)
	}
}

func TestConcurrentReconfiguration(t *testing.T) {
	inj, _, srv := setup(t, Options{Transcript: sim.NewTranscript(nil)})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if i%2 == 0 {
				_ = inj.Set("/api", Fault{Kind: Status, Status: 503, Times: 1})
			} else {
				inj.Clear("/api")
			}
		}
	}()
	var clients sync.WaitGroup
	for range 8 {
		clients.Add(1)
		go func() {
			defer clients.Done()
			for range 20 {
				resp, _, err := call(t, context.Background(), srv.URL+"/api/x")
				if assert.NoError(t, err) {
					assert.Contains(t, []int{200, 503}, resp.StatusCode)
				}
			}
		}()
	}
	clients.Wait()
	close(stop)
	wg.Wait()
}

// Calls through a fixed latency overlap: N parallel calls take about one
// latency, N sequential calls N latencies. `go test -bench Latency` shows it.
func benchmarkLatency(b *testing.B, parallel bool) {
	inj := New(&backend{}, Options{})
	if err := inj.Set("", Fault{Latency: 20 * time.Millisecond}); err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(inj)
	defer srv.Close()
	const calls = 8
	get := func() {
		resp, err := http.Get(srv.URL + "/api/traces")
		if err != nil {
			b.Error(err)
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	b.ResetTimer()
	for range b.N {
		if !parallel {
			for range calls {
				get()
			}
			continue
		}
		var wg sync.WaitGroup
		for range calls {
			wg.Add(1)
			go func() { defer wg.Done(); get() }()
		}
		wg.Wait()
	}
}

func BenchmarkLatencySequential(b *testing.B) { benchmarkLatency(b, false) }
func BenchmarkLatencyParallel(b *testing.B)   { benchmarkLatency(b, true) }
