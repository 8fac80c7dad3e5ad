package httpc

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate/tap"
)

type tapRecorder struct {
	mu   sync.Mutex
	http []tap.HTTP
}

func (r *tapRecorder) HTTP(h tap.HTTP) { r.mu.Lock(); r.http = append(r.http, h); r.mu.Unlock() }
func (r *tapRecorder) Tool(tap.Tool)   {}

// A tapRecorder in the context sees every answer, with its URL and status;
// the caller still gets the same body.
func TestRecorderSeesAnswers(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		_, _ = io.WriteString(w, `{"data":["ad","cart"]}`)
	}))
	defer srv.Close()
	c, err := New(Options{BaseURL: srv.URL, Retries: NoRetries})
	require.NoError(t, err)
	rec := &tapRecorder{}
	ctx := tap.With(context.Background(), rec)
	var out struct{ Data []string }
	require.NoError(t, c.GetJSON(ctx, "/api/services", url.Values{"limit": {"3"}}, &out))
	assert.Equal(t, []string{"ad", "cart"}, out.Data)
	_, err = c.Do(ctx, http.MethodGet, "/missing", nil, nil)
	require.Error(t, err)
	require.NoError(t, c.GetJSON(context.Background(), "/api/services", nil, &out), "no tapRecorder: nothing kept")

	require.Len(t, rec.http, 2)
	assert.Equal(t, "/api/services", rec.http[0].URL.Path)
	assert.Equal(t, "3", rec.http[0].URL.Query().Get("limit"))
	assert.Equal(t, 200, rec.http[0].Status)
	assert.JSONEq(t, `{"data":["ad","cart"]}`, string(rec.http[0].Body))
	assert.Equal(t, 404, rec.http[1].Status)
}

// The go-github transport records bodies too, and a body over the cap is
// still refused to the client (and not recorded).
func TestTransportRecorderKeepsTheCap(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.URL.Query().Get("body"))
	}))
	defer srv.Close()
	hc := &http.Client{Transport: NewTransport(TransportOptions{MaxBody: 8, Retries: NoRetries})}
	rec := &tapRecorder{}
	get := func(body string) (string, error) {
		req, err := http.NewRequestWithContext(tap.With(context.Background(), rec), http.MethodGet, srv.URL+"/x?body="+body, nil)
		require.NoError(t, err)
		resp, err := hc.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	got, err := get("short")
	require.NoError(t, err)
	assert.Equal(t, "short", got)
	_, err = get("much-too-long")
	var tl *ErrBodyTooLarge
	require.ErrorAs(t, err, &tl)
	require.Len(t, rec.http, 1)
	assert.Equal(t, "short", string(rec.http[0].Body))
}
