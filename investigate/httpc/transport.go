package httpc

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/autoheal/autoheal/investigate/tap"
)

// TransportOptions configure a RoundTripper for clients that build their own
// requests (go-github): a response-size cap and retries of idempotent
// requests on 5xx and connection errors.
type TransportOptions struct {
	Base    http.RoundTripper
	MaxBody int64         // default 8 MiB
	Retries int           // default 2; NoRetries disables
	Backoff time.Duration // default 200 ms
}

// NewTransport returns a bounded, retrying RoundTripper.
func NewTransport(o TransportOptions) http.RoundTripper {
	if o.Base == nil {
		o.Base = defaultTransport
	}
	if o.MaxBody <= 0 {
		o.MaxBody = 8 << 20
	}
	if o.Retries == 0 {
		o.Retries = 2
	} else if o.Retries < 0 {
		o.Retries = 0
	}
	if o.Backoff <= 0 {
		o.Backoff = 200 * time.Millisecond
	}
	return &transport{o: o}
}

type transport struct{ o TransportOptions }

// ErrBodyTooLarge is returned while reading a capped body.
type ErrBodyTooLarge struct{ Limit int64 }

func (e *ErrBodyTooLarge) Error() string {
	return fmt.Sprintf("response larger than %d bytes", e.Limit)
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	idempotent := req.Method == http.MethodGet || req.Method == http.MethodHead
	attempts := 1
	if idempotent {
		attempts += t.o.Retries
	}
	delay := t.o.Backoff
	var resp *http.Response
	var err error
	for i := 0; i < attempts; i++ {
		if i > 0 {
			select {
			case <-req.Context().Done():
				return nil, req.Context().Err()
			case <-time.After(delay):
			}
			delay = min(delay*2, 2*time.Second)
		}
		resp, err = t.o.Base.RoundTrip(req)
		retry := idempotent && i < attempts-1 && req.Context().Err() == nil &&
			(err != nil || resp.StatusCode >= 500)
		if !retry {
			break
		}
		if resp != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
	}
	if err != nil {
		return nil, err
	}
	resp.Body = &cappedBody{rc: resp.Body, left: t.o.MaxBody, limit: t.o.MaxBody}
	if rec := tap.From(req.Context()); rec != nil {
		// Read the (capped) body once for the recorder; the client reads
		// the same bytes, and the same error if the cap was hit.
		b, rerr := io.ReadAll(resp.Body)
		resp.Body.Close()
		if rerr == nil {
			rec.HTTP(tap.HTTP{Method: req.Method, URL: req.URL, Status: resp.StatusCode, Body: b})
		}
		resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(b), errReader{rerr}))
	}
	return resp, nil
}

// errReader ends a replayed body with the error reading it ended with.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) {
	if e.err == nil {
		return 0, io.EOF
	}
	return 0, e.err
}

type cappedBody struct {
	rc    io.ReadCloser
	limit int64
	left  int64
}

func (c *cappedBody) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// One more byte means the body is over the cap.
		var one [1]byte
		n, _ := c.rc.Read(one[:])
		if n > 0 {
			return 0, &ErrBodyTooLarge{Limit: c.limit}
		}
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.rc.Read(p)
	c.left -= int64(n)
	return n, err
}

func (c *cappedBody) Close() error { return c.rc.Close() }
