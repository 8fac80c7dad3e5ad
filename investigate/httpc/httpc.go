// Package httpc is the HTTP client every read-only capability uses: a
// per-call timeout, a response-size cap, retries with backoff only for
// idempotent requests and only on errors worth retrying, and failures
// classified into investigate.ToolError kinds (timeout, 401, unreachable...).
// Errors never carry credentials: URLs lose their userinfo and headers are
// never printed.
package httpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/tap"
	"github.com/autoheal/autoheal/redact"
)

// Options configure a Client.
type Options struct {
	BaseURL string
	// Header is added to every request (Authorization, X-Scope-OrgID...).
	Header http.Header
	// Timeout bounds one attempt (default 10 s).
	Timeout time.Duration
	// MaxBody caps a response body (default 8 MiB); larger bodies fail with too_large.
	MaxBody int64
	// Retries is the number of extra attempts for idempotent requests (default 2).
	Retries int
	// Backoff is the first retry delay, doubled each time (default 200 ms, max 2 s).
	Backoff time.Duration
	// HTTP is the underlying client (default: a dedicated client with sane
	// transport limits that follows redirects only within the base URL's
	// host, so headers never reach another host).
	HTTP *http.Client
	// Guard, for a user-supplied BaseURL, refuses connections to
	// non-public addresses of hosts that are not allowlisted (ignored when
	// HTTP is set).
	Guard *Guard
}

// Client performs bounded requests against one backend.
type Client struct {
	base *url.URL
	opts Options
}

var defaultTransport = &http.Transport{
	Proxy:                 http.ProxyFromEnvironment,
	DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
	MaxIdleConns:          100,
	MaxIdleConnsPerHost:   16,
	IdleConnTimeout:       90 * time.Second,
	TLSHandshakeTimeout:   5 * time.Second,
	ResponseHeaderTimeout: 30 * time.Second,
}

// New validates the base URL and applies defaults.
func New(opts Options) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(opts.BaseURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("base URL %q must be an absolute http(s) URL", SafeURL(opts.BaseURL))
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = 8 << 20
	}
	if opts.Retries < 0 {
		opts.Retries = 0
	} else if opts.Retries == 0 {
		opts.Retries = 2
	}
	if opts.Backoff <= 0 {
		opts.Backoff = 200 * time.Millisecond
	}
	if opts.HTTP == nil {
		opts.HTTP = &http.Client{Transport: defaultTransport, CheckRedirect: SameHostRedirects}
		if opts.Guard != nil {
			opts.HTTP = opts.Guard.Client()
		}
	}
	u.Path = strings.TrimRight(u.Path, "/")
	return &Client{base: u, opts: opts}, nil
}

// NoRetries disables retries (Options.Retries = 0 means "default").
const NoRetries = -1

// URL joins the base URL with path and query.
func (c *Client) URL(path string, q url.Values) string {
	u := *c.base
	u.Path = c.base.Path + "/" + strings.TrimLeft(path, "/")
	u.RawQuery = q.Encode()
	return u.String()
}

// GetJSON performs a GET and decodes a JSON body into out. GET is
// idempotent, so transient failures are retried.
func (c *Client) GetJSON(ctx context.Context, path string, q url.Values, out any) error {
	body, err := c.Do(ctx, http.MethodGet, path, q, nil)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, out); err != nil {
		return investigate.NewToolError(investigate.ErrKindBadResponse,
			fmt.Sprintf("GET %s: response is not the expected JSON (%d bytes)", path, len(body)), err)
	}
	return nil
}

// Do performs a request and returns the body of a 2xx response.
func (c *Client) Do(ctx context.Context, method, path string, q url.Values, body []byte) ([]byte, error) {
	idempotent := method == http.MethodGet || method == http.MethodHead
	attempts := 1
	if idempotent && c.opts.Retries > 0 {
		attempts += c.opts.Retries
	}
	delay := c.opts.Backoff
	var lastErr error
	for i := 0; i < attempts; i++ {
		if i > 0 {
			wait := delay
			var te *retryAfterError
			if errors.As(lastErr, &te) && te.after > 0 {
				wait = te.after
			}
			if wait > 5*time.Second {
				return nil, lastErr // the backend asked us to back off longer than an investigation can wait
			}
			select {
			case <-ctx.Done():
				return nil, classifyCtx(ctx, method, path, lastErr)
			case <-time.After(wait):
			}
			delay = min(delay*2, 2*time.Second)
		}
		b, err := c.once(ctx, method, path, q, body)
		if err == nil {
			return b, nil
		}
		lastErr = err
		if !retryable(err) || ctx.Err() != nil {
			break
		}
	}
	var te *retryAfterError
	if errors.As(lastErr, &te) {
		return nil, te.ToolError
	}
	return nil, lastErr
}

// retryAfterError carries a server's Retry-After for the retry loop.
type retryAfterError struct {
	*investigate.ToolError
	after time.Duration
}

func (e *retryAfterError) Unwrap() error { return e.ToolError }

func (c *Client) once(ctx context.Context, method, path string, q url.Values, body []byte) ([]byte, error) {
	actx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(actx, method, c.URL(path, q), rd)
	if err != nil {
		return nil, investigate.NewToolError(investigate.ErrKindInvalidArgs, "building request", err)
	}
	for k, vs := range c.opts.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if body != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.opts.HTTP.Do(req)
	if err != nil {
		return nil, classifyTransport(ctx, actx, method, path, c.base.Host, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, c.opts.MaxBody+1))
	if err != nil {
		if actx.Err() != nil {
			return nil, classifyTransport(ctx, actx, method, path, c.base.Host, err)
		}
		return nil, investigate.NewToolError(investigate.ErrKindBadResponse,
			fmt.Sprintf("%s %s: reading response", method, path), err)
	}
	if int64(len(b)) > c.opts.MaxBody {
		return nil, investigate.NewToolError(investigate.ErrKindTooLarge,
			fmt.Sprintf("%s %s: response larger than %d bytes", method, path, c.opts.MaxBody), nil)
	}
	if rec := tap.From(ctx); rec != nil {
		rec.HTTP(tap.HTTP{Method: method, URL: req.URL, Status: resp.StatusCode, Body: b})
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return b, nil
	}
	return nil, statusError(method, path, resp, b)
}

// statusError classifies a non-2xx answer. The message says the request,
// the status and (through the kind) what it means, never the body: a body
// is the backend's text, which may echo secrets or carry instructions, and
// must not reach a thread, a receipt or a model. Operators see a redacted,
// cut excerpt in debug logs.
func statusError(method, path string, resp *http.Response, body []byte) error {
	msg := fmt.Sprintf("%s %s: HTTP %d", method, path, resp.StatusCode)
	if len(body) > 0 && slog.Default().Enabled(context.Background(), slog.LevelDebug) {
		excerpt := redact.String(string(body))
		if len(excerpt) > 300 {
			excerpt = strings.ToValidUTF8(excerpt[:300], "") + "…"
		}
		slog.Debug("backend error response", "request", method+" "+path, "status", resp.StatusCode, "body", excerpt)
	}
	var kind investigate.ErrorKind
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		kind = investigate.ErrKindUnauthorized
	case resp.StatusCode == http.StatusForbidden:
		kind = investigate.ErrKindForbidden
	case resp.StatusCode == http.StatusNotFound:
		kind = investigate.ErrKindNotFound
	case resp.StatusCode == http.StatusTooManyRequests:
		kind = investigate.ErrKindRateLimited
	case resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusUnprocessableEntity:
		kind = investigate.ErrKindInvalidArgs
	case resp.StatusCode >= 500:
		kind = investigate.ErrKindServer
	default:
		kind = investigate.ErrKindBadResponse
	}
	te := investigate.NewToolError(kind, msg, nil)
	if kind == investigate.ErrKindRateLimited || resp.StatusCode == http.StatusServiceUnavailable {
		return &retryAfterError{ToolError: te, after: parseRetryAfter(resp.Header.Get("Retry-After"))}
	}
	return te
}

func parseRetryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return time.Until(t)
	}
	return 0
}

func retryable(err error) bool {
	switch investigate.KindOf(err) {
	case investigate.ErrKindServer, investigate.ErrKindRateLimited, investigate.ErrKindUnreachable:
		return true
	case investigate.ErrKindTimeout:
		return false // one attempt already used the whole per-call timeout
	}
	return false
}

func classifyCtx(ctx context.Context, method, path string, last error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return investigate.NewToolError(investigate.ErrKindTimeout, fmt.Sprintf("%s %s: investigation deadline reached", method, path), last)
	}
	return investigate.NewToolError(investigate.ErrKindTimeout, fmt.Sprintf("%s %s: cancelled", method, path), ctx.Err())
}

func classifyTransport(parent, attempt context.Context, method, path, host string, err error) error {
	if parent.Err() != nil {
		return classifyCtx(parent, method, path, nil)
	}
	if attempt.Err() != nil || isTimeout(err) {
		return investigate.NewToolError(investigate.ErrKindTimeout, fmt.Sprintf("%s %s: no answer in time", method, path), nil)
	}
	var dnsErr *net.DNSError
	var opErr *net.OpError
	var addrErr *AddressError
	switch {
	case errors.As(err, &addrErr):
		return investigate.NewToolError(investigate.ErrKindUnreachable, "connection refused: "+addrErr.Host+" is not an allowed host", addrErr)
	case errors.Is(err, ErrCrossHostRedirect):
		return investigate.NewToolError(investigate.ErrKindBadResponse, fmt.Sprintf("%s %s: %v", method, path, ErrCrossHostRedirect), nil)
	case errors.As(err, &dnsErr):
		return investigate.NewToolError(investigate.ErrKindUnreachable, fmt.Sprintf("%s: cannot resolve host", host), nil)
	case errors.As(err, &opErr):
		return investigate.NewToolError(investigate.ErrKindUnreachable, fmt.Sprintf("%s: %s", host, opErr.Err), nil)
	}
	// url.Error embeds the full URL; keep only our own message.
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	return investigate.NewToolError(investigate.ErrKindUnreachable, fmt.Sprintf("%s %s: %v", method, path, err), nil)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// SafeURL drops userinfo from a URL for messages.
func SafeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable URL)"
	}
	u.User = nil
	return u.String()
}

// Bearer returns an Authorization header for a bearer token (nil when empty).
func Bearer(token string) http.Header {
	if token == "" {
		return nil
	}
	return http.Header{"Authorization": []string{"Bearer " + token}}
}
