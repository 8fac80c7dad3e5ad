package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrResponseTooLarge is returned when a response body exceeds Limits.MaxResponseBytes.
var ErrResponseTooLarge = errors.New("llm: response body too large")

// maxRequestBytes bounds a request body the transport buffers for retries.
const maxRequestBytes = 16 << 20

// retryable statuses: timeouts, rate limits, overload and gateway errors.
var retryable = map[int]bool{408: true, 429: true, 500: true, 502: true, 503: true, 504: true, 520: true, 522: true, 524: true, 529: true}

// attempts accumulates what happened to one logical request across retries.
type attempts struct {
	mu         sync.Mutex
	count      int
	retries    int
	lastReason string // "429", "503", "timeout", "network"
	waits      []time.Duration
}

func (a *attempts) snapshot() (count, retries int, reason string, waits []time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.count, a.retries, a.lastReason, append([]time.Duration(nil), a.waits...)
}

type attemptsKey struct{}

func withAttempts(ctx context.Context) (context.Context, *attempts) {
	a := &attempts{}
	return context.WithValue(ctx, attemptsKey{}, a), a
}

func attemptsFrom(ctx context.Context) *attempts {
	if a, ok := ctx.Value(attemptsKey{}).(*attempts); ok {
		return a
	}
	return &attempts{}
}

// transport is the HTTP client under go-openai (which has no retries): it
// retries 429/5xx/timeouts with exponential backoff that honours
// Retry-After and rate-limit reset headers, bounds every attempt and every
// response body, and optionally records each exchange.
type transport struct {
	base    Doer
	limits  Limits
	sleep   func(context.Context, time.Duration) error
	now     func() time.Time
	rec     *recorder
	metrics Metrics
	model   string
}

func (t *transport) Do(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	st := attemptsFrom(ctx)
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(io.LimitReader(req.Body, maxRequestBytes+1))
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("llm: reading request body: %w", err)
		}
		if len(b) > maxRequestBytes {
			return nil, fmt.Errorf("llm: request body exceeds %d bytes", maxRequestBytes)
		}
		body = b
	}
	for attempt := 0; ; attempt++ {
		st.mu.Lock()
		st.count++
		st.mu.Unlock()
		resp, respBody, err := t.once(ctx, req, body)
		t.rec.record(req, body, resp, respBody, err)
		reason := ""
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, ctx.Err() // the investigation's deadline or cancellation: never retried
		case errors.Is(err, ErrResponseTooLarge):
			return nil, err
		case err != nil:
			reason = "network"
			var ne net.Error
			if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
				reason = "timeout"
			}
		case retryable[resp.StatusCode]:
			reason = strconv.Itoa(resp.StatusCode)
		default:
			return resp, nil
		}
		st.mu.Lock()
		st.lastReason = reason
		st.mu.Unlock()
		if attempt >= t.limits.MaxRetries {
			return resp, err
		}
		wait, told := retryAfter(resp, t.now())
		if !told {
			wait = backoff(attempt)
		}
		if told && wait > t.limits.MaxRetryWait {
			return resp, err // retrying before the server allows it would only fail again
		}
		wait = min(wait, t.limits.MaxRetryWait)
		if dl, ok := ctx.Deadline(); ok && t.now().Add(wait).After(dl) {
			return resp, err // no time left to wait for
		}
		st.mu.Lock()
		st.retries++
		st.waits = append(st.waits, wait)
		st.mu.Unlock()
		t.metrics.Add(MetricRetries, 1, "model", t.model, "reason", reason)
		if err := t.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// once sends one attempt bounded by the request timeout and reads the body
// (bounded) so that the attempt's context can end before go-openai decodes it.
func (t *transport) once(ctx context.Context, req *http.Request, body []byte) (*http.Response, []byte, error) {
	actx, cancel := context.WithTimeout(ctx, t.limits.RequestTimeout)
	defer cancel()
	r := req.Clone(actx)
	if body != nil {
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	resp, err := t.base.Do(r)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, t.limits.MaxResponseBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("llm: reading response: %w", err)
	}
	if int64(len(b)) > t.limits.MaxResponseBytes {
		return nil, nil, fmt.Errorf("%w (over %d bytes)", ErrResponseTooLarge, t.limits.MaxResponseBytes)
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	resp.ContentLength = int64(len(b))
	return resp, b, nil
}

// retryAfter reads the wait a server asks for: retry-after-ms, Retry-After
// (seconds or an HTTP date), then OpenAI's x-ratelimit-reset-* durations.
func retryAfter(resp *http.Response, now time.Time) (time.Duration, bool) {
	if resp == nil {
		return 0, false
	}
	h := resp.Header
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
			return time.Duration(s * float64(time.Second)), true
		}
		if at, err := http.ParseTime(v); err == nil {
			return max(at.Sub(now), 0), true
		}
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		var wait time.Duration
		found := false
		for _, k := range []string{"X-Ratelimit-Reset-Requests", "X-Ratelimit-Reset-Tokens"} {
			if d, err := time.ParseDuration(strings.TrimSpace(h.Get(k))); err == nil && d >= 0 {
				wait, found = max(wait, d), true
			}
		}
		if found {
			return wait, true
		}
	}
	return 0, false
}

// backoff is exponential with jitter: 0.5 s, 1 s, 2 s ... plus up to 25 %.
func backoff(attempt int) time.Duration {
	d := 500 * time.Millisecond << min(attempt, 8)
	return d + time.Duration(rand.Int64N(int64(d/4)+1))
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

// Exchange is one recorded request/response pair: the JSON-lines format of
// `bot investigate --record FILE`, replayed by the OpenAI simulator. Bodies
// pass through the redactor; credentials are never recorded.
type Exchange struct {
	Seq      int               `json:"seq"`
	Time     time.Time         `json:"time"`
	Method   string            `json:"method"`
	Path     string            `json:"path"`
	Status   int               `json:"status,omitempty"`
	Header   map[string]string `json:"header,omitempty"`
	Request  json.RawMessage   `json:"request,omitempty"`
	Response json.RawMessage   `json:"response,omitempty"`
	Error    string            `json:"error,omitempty"`
}

// recordedHeaders are the response headers replay needs.
var recordedHeaders = []string{"Content-Type", "Retry-After", "Retry-After-Ms", "X-Ratelimit-Reset-Requests", "X-Ratelimit-Reset-Tokens"}

type recorder struct {
	mu    sync.Mutex
	enc   *json.Encoder
	seq   int
	clean *cleaner
	now   func() time.Time
	err   error
}

func newRecorder(w io.Writer, c *cleaner, now func() time.Time) *recorder {
	if w == nil {
		return nil
	}
	return &recorder{enc: json.NewEncoder(w), clean: c, now: now}
}

func (r *recorder) record(req *http.Request, body []byte, resp *http.Response, respBody []byte, err error) {
	if r == nil {
		return
	}
	x := Exchange{Time: r.now().UTC(), Method: req.Method, Path: req.URL.Path, Request: r.clean.rawJSON(body)}
	if err != nil {
		x.Error = r.clean.text(err.Error())
	}
	if resp != nil {
		x.Status = resp.StatusCode
		for _, k := range recordedHeaders {
			if v := resp.Header.Get(k); v != "" {
				if x.Header == nil {
					x.Header = map[string]string{}
				}
				x.Header[k] = v
			}
		}
		x.Response = r.clean.rawJSON(respBody)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	x.Seq = r.seq
	if r.err == nil {
		r.err = r.enc.Encode(x) // a broken sink stops recording, never the investigation
	}
}
