package bot

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// /readyz is gated by what a replica needs (Redis) and only reports the
// rest (Slack): a Slack outage leaves the replica in service, visible in the
// health line and in the reported outcomes (a metric).
func TestReadyzGatesOnReadyChecksOnly(t *testing.T) {
	var mu sync.Mutex
	reported := map[string]bool{}
	redisErr := error(nil)
	s := NewServer(ServerOptions{
		Ready:  map[string]Check{"redis": func(context.Context) error { return redisErr }},
		Health: map[string]Check{"slack": func(context.Context) error { return errors.New("slack auth.test: dial tcp: connection refused") }},
		Report: func(name string, err error) { mu.Lock(); reported[name] = err == nil; mu.Unlock() },
	})
	get := func() (int, map[string]any) {
		rec := httptest.NewRecorder()
		s.Mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		var body map[string]any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
		return rec.Code, body
	}

	code, body := get()
	assert.Equal(t, http.StatusOK, code, "Slack down, Redis up: still ready")
	assert.Equal(t, "ready", body["status"])
	assert.Equal(t, map[string]any{"redis": "ok"}, body["checks"])
	assert.Equal(t, map[string]any{"slack": "slack auth.test: dial tcp: connection refused"}, body["health"])
	assert.Equal(t, map[string]bool{"redis": true, "slack": false}, reported)

	redisErr = errors.New("redis: connection refused")
	code, body = get()
	assert.Equal(t, http.StatusServiceUnavailable, code, "without Redis a replica can do nothing")
	assert.Equal(t, "not ready", body["status"])
	assert.False(t, reported["redis"])
}
