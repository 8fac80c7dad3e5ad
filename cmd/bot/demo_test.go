package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// `bot demo` runs the whole flow with no Slack and no Redis, prints the
// thread and writes the transcript of every simulator call.
func TestDemoPrintsThreadAndTranscript(t *testing.T) {
	t.Setenv("REDIS_URL", "") // the embedded Redis
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("AUTOHEAL_ENCRYPTION_KEY", "")
	tr := filepath.Join(t.TempDir(), "transcript.jsonl")
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := runDemo(ctx, []string{"--scenario", "../../../shared/scenarios/examples/ad-npe-missing-context", "--transcript", tr}, &stdout, &stderr)
	require.NoError(t, err, stderr.String())

	out := stdout.String()
	assert.Contains(t, out, "#incidents · thread")
	assert.Contains(t, out, "@autoheal ads stopped showing")
	assert.Contains(t, out, "Root cause")
	assert.Contains(t, out, "AdService.java")
	assert.Contains(t, out, "[ Approve ]")

	f, err := os.Open(tr)
	require.NoError(t, err)
	defer f.Close()
	services := map[string]int{}
	methods := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e struct {
			Time     time.Time       `json:"time"`
			Service  string          `json:"service"`
			Method   string          `json:"method"`
			Params   json.RawMessage `json:"params"`
			Response json.RawMessage `json:"response"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e))
		assert.False(t, e.Time.IsZero())
		assert.NotEmpty(t, e.Method)
		assert.NotContains(t, string(e.Params), "xoxb-", "tokens never reach the transcript")
		services[e.Service]++
		methods[e.Service+" "+e.Method]++
	}
	require.NoError(t, sc.Err())
	for _, s := range []string{"slack", "github", "jaeger", "loki", "prometheus"} {
		assert.Positive(t, services[s], "calls to %s", s)
	}
	assert.Equal(t, 1, methods["slack socket_mode.send"], "one mention delivered")
	assert.Positive(t, methods["slack chat.update"])
}

func TestDemoNeedsAScenario(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := runDemo(context.Background(), nil, &stdout, &stderr)
	assert.ErrorIs(t, err, errUsage)
}
