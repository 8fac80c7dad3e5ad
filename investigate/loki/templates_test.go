package loki_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/loki"
	"github.com/autoheal/autoheal/scenario"
	lokisim "github.com/autoheal/autoheal/sim/loki"
)

// An hour in which a loud service logs 4,000 info lines and a quiet one
// starts warning at 14:02: both are read (the loud one sampled in slices
// and scaled back), and the quiet warning's template shows when it began.
func TestTemplatesReadEveryServiceAtEveryLevel(t *testing.T) {
	now := time.Date(2026, 5, 4, 14, 30, 0, 0, time.UTC)
	start := now.Add(-time.Hour)
	ns := func(t time.Time) string { return strconv.FormatInt(t.UnixNano(), 10) }
	var loud, quiet [][]string
	for i := range 4000 {
		at := start.Add(time.Duration(i) * 900 * time.Millisecond)
		loud = append(loud, []string{ns(at), fmt.Sprintf("served product %d in %dms", i%97, i%40)})
	}
	for i := range 28 {
		at := time.Date(2026, 5, 4, 14, 2, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)
		quiet = append(quiet, []string{ns(at), fmt.Sprintf(`{"level":"warn","msg":"lease renewal failed for scheduler-%d, holder lost"}`, i%3)})
	}
	h, err := lokisim.New(&scenario.Logs{Streams: []scenario.LogStream{
		{Stream: map[string]string{"service_name": "catalog", "level": "info"}, Values: loud},
		{Stream: map[string]string{"service_name": "scheduler"}, Values: quiet},
	}}, lokisim.Options{Now: now})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c := loki.New(loki.Config{URL: srv.URL})
	args, _ := json.Marshal(map[string]any{"start": start.Format(time.RFC3339), "end": now.Format(time.RFC3339)})
	res, err := c.Call(context.Background(), loki.ToolTemplates, args)
	require.NoError(t, err)

	by := map[string]investigate.Finding{}
	for _, f := range res.Findings {
		assert.Equal(t, investigate.KindLogTemplate, f.Kind)
		by[f.Service] = f
	}
	require.Contains(t, by, "catalog", res.Summary)
	require.Contains(t, by, "scheduler", res.Summary)
	assert.Equal(t, "served product <*> in <*>", by["catalog"].Attrs["template"])
	assert.InDelta(t, 4000, by["catalog"].Count, 40, "sampled slices stand for all their lines")
	s := by["scheduler"]
	assert.Equal(t, "lease renewal failed for <*>, holder lost", s.Attrs["template"])
	assert.Equal(t, "warn", s.Attrs["level"])
	assert.Equal(t, 28, s.Count)
	b, err := investigate.DecodeBuckets(s.Attrs["buckets"])
	require.NoError(t, err)
	before, _ := b.Between(start, time.Date(2026, 5, 4, 14, 2, 0, 0, time.UTC))
	after, _ := b.Between(time.Date(2026, 5, 4, 14, 2, 0, 0, time.UTC), now)
	assert.Equal(t, 0.0, before)
	assert.Equal(t, 28.0, after)

	_, err = c.Call(context.Background(), loki.ToolTemplates, json.RawMessage(`{"start":"2026-05-04T13:30:00Z","end":"2026-05-04T14:30:00Z","query":"{a=\"b\"}"}`))
	assert.Equal(t, investigate.ErrKindInvalidArgs, investigate.KindOf(err))
}
