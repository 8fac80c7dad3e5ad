package drain

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTokenizeMasksValuesAndKeepsWords(t *testing.T) {
	cases := map[string]string{
		"lease renewal failed for scheduler-7d9c5f6b8-x2x4k after 300ms":    "lease renewal failed for <*> after <*>",
		"GET /api/orders/12345 returned 503 in 1.5s":                        "GET <*> returned <*> in <*>",
		"user_id=42 order=9f2c1a7b3e status=ok":                             "user_id=<*> order=<*> status=ok",
		"dial tcp 10.0.3.7:5432: connect: connection refused":               "dial tcp <*>: connect: connection refused",
		"request 4bf92f35-77b3-4da6-a3ce-929d0e0e4736 took (120ms)":         "request <*> took (<*>)",
		"x509: certificate has expired; ERR_HTTP2_PROTOCOL_ERROR on s3 sdk": "x509: certificate has expired; ERR_HTTP2_PROTOCOL_ERROR on s3 sdk",
		"[2026-09-21T06:01:53.128610 #1] ERROR -- : queue full":             "[<*> <*>] ERROR -- : queue full",
		"pool at 45% capacity, 12KB buffered":                               "pool at <*> capacity, <*> buffered",
	}
	for in, want := range cases {
		assert.Equal(t, want, Mask(in), in)
	}
}

func TestMinerGroupsOneMessageWithDifferentValues(t *testing.T) {
	m := New(Config{})
	for i := range 50 {
		m.Add(fmt.Sprintf("lease renewal failed for scheduler-%d holder %s", i, []string{"alpha", "beta", "gamma"}[i%3]))
		m.Add(fmt.Sprintf("processed batch %d of %d", i, 50))
	}
	cs := m.Clusters()
	require.Len(t, cs, 2)
	templates := []string{cs[0].Template(), cs[1].Template()}
	assert.Contains(t, templates, "lease renewal failed for <*> holder <*>")
	assert.Contains(t, templates, "processed batch <*> of <*>")
	for _, c := range cs {
		assert.Equal(t, 50, c.Size)
	}
}

func TestMinerKeepsDifferentMessagesApart(t *testing.T) {
	m := New(Config{})
	a := m.Add("connection refused by payments upstream")
	c := m.Add("connection accepted from payments client")
	assert.NotEqual(t, a.ID, c.ID, "different second tokens route to different leaves at depth 4")

	m = New(Config{Depth: 3}) // routed by the first token only
	a = m.Add("payments refused call by upstream")
	b := m.Add("payments closed call by client")
	assert.Equal(t, a.ID, b.ID, "3 of 5 tokens equal is above the 0.4 threshold")
	assert.Equal(t, "payments <*> call by <*>", a.Template())
	d := m.Add("payments reset during TLS handshake")
	assert.NotEqual(t, a.ID, d.ID, "1 of 5 equal tokens is below the threshold")
}

func TestMinerLengthSeparates(t *testing.T) {
	m := New(Config{})
	a := m.Add("timeout calling inventory")
	b := m.Add("timeout calling inventory after retries")
	assert.NotEqual(t, a.ID, b.ID)
}

func TestMatchDoesNotTrain(t *testing.T) {
	m := New(Config{})
	m.Add("order 1 failed: card declined")
	m.Add("order 2 failed: card declined")
	c := m.Match("order 77 failed: card declined")
	require.NotNil(t, c)
	assert.Equal(t, "order <*> failed: card declined", c.Template())
	assert.Nil(t, m.Match("order 77 shipped: card declined"))
	assert.Nil(t, m.Match("completely unrelated line"))
	assert.Len(t, m.Clusters(), 1)
	assert.Equal(t, 2, m.Clusters()[0].Size)
}

func TestMaxChildrenRoutesThroughWildcard(t *testing.T) {
	m := New(Config{MaxChildren: 3})
	for _, w := range []string{"alpha", "beta", "gamma", "delta", "epsilon"} {
		m.Add(w + " started worker")
	}
	// The first tokens beyond the cap share the wildcard child, and merge
	// there (2 of 3 tokens equal): alpha, beta, gamma and one for both.
	require.Len(t, m.Clusters(), 4)
	assert.Equal(t, "<*> started worker", m.Clusters()[3].Template())
}

func TestMaxClustersOverflow(t *testing.T) {
	m := New(Config{MaxClusters: 2})
	m.Add("alpha one")
	m.Add("beta two words")
	o := m.Add("gamma three more words")
	assert.Equal(t, -1, o.ID)
	assert.Len(t, m.Clusters(), 3)
}

func TestFits(t *testing.T) {
	assert.True(t, Fits([]string{"a", Wildcard, "c"}, []string{"a", "b", "c"}))
	assert.False(t, Fits([]string{"a", Wildcard, "c"}, []string{"a", "b", "d"}))
	assert.False(t, Fits([]string{"a"}, []string{"a", "b"}))
}

func TestTrimHeader(t *testing.T) {
	assert.Equal(t, "[main] com.acme.Ad - ad service started", Mask(joinTokens(TrimHeader(Tokenize("2026-11-30 10:04:01.123 - INFO - [main] com.acme.Ad - ad service started")))))
	assert.Equal(t, "queue full", joinTokens(TrimHeader(Tokenize("[2026-09-21T06:01:53.128610 #1] ERROR -- : queue full"))))
	assert.Equal(t, []string{"<*>", "<*>"}, TrimHeader(Tokenize("12 13")), "two tokens always stay")
}

func joinTokens(ts []string) string { return strings.Join(ts, " ") }
