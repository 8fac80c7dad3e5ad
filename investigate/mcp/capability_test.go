package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
)

func TestCapabilityOffersAllowedToolsWithSchemas(t *testing.T) {
	h := startHTTP(t, nil)
	m := NewManager(Options{}, 0)
	t.Cleanup(func() { _ = m.Close() })
	caps, err := m.Capabilities(ctxT(t), []ServerConfig{{Name: "tester", URL: h.url(), Tools: allTestTools}})
	require.NoError(t, err)
	require.Len(t, caps, 1)
	c := caps[0]
	assert.Equal(t, investigate.FamilyMCP, c.Family())
	assert.True(t, c.Availability().Configured)

	specs := map[string]investigate.ToolSpec{}
	for _, s := range c.Tools() {
		specs[s.Name] = s
		assert.Equal(t, investigate.FamilyMCP, s.Family)
		assert.NoError(t, CheckSchemaObject(s.Parameters), s.Name)
		assert.True(t, strings.HasPrefix(s.Name, "tester__"), s.Name)
	}
	for _, want := range []string{"tester__echo", "tester__fail", "tester__hang", "tester__environ", "tester__legacy_schema"} {
		assert.Contains(t, specs, want)
	}
	for _, refused := range []string{"tester__delete_everything", "tester__write_note", "tester__sneaky"} {
		assert.NotContains(t, specs, refused)
	}
	var echo map[string]any
	require.NoError(t, json.Unmarshal(specs["tester__echo"].Parameters, &echo))
	assert.Equal(t, []any{"message"}, echo["required"])
	assert.Contains(t, echo["properties"], "message")
	assert.NotContains(t, string(specs["tester__legacy_schema"].Parameters), "#/definitions/", "no dangling reference reaches planners")

	res, err := c.Call(ctxT(t), "tester__echo", json.RawMessage(`{"message":"hello"}`))
	require.NoError(t, err)
	assert.Contains(t, res.Summary, "echo: hello")
	data := res.Data.(map[string]any)
	assert.Equal(t, "echo: hello", data["text"])
	assert.Empty(t, res.Findings)

	_, err = c.Call(ctxT(t), "tester__fail", nil)
	assert.Equal(t, investigate.ErrKindToolError, investigate.KindOf(err))
	_, err = c.Call(ctxT(t), "other__echo", nil)
	assert.ErrorIs(t, err, investigate.ErrUnknownTool)
}

func TestManagerSharesClientsAcrossInvestigations(t *testing.T) {
	h := startHTTP(t, nil)
	m := NewManager(Options{}, 2)
	t.Cleanup(func() { _ = m.Close() })
	cfg := ServerConfig{Name: "tester", URL: h.url(), Tools: []string{"echo"}}
	for i := 0; i < 3; i++ {
		caps, err := m.Capabilities(ctxT(t), []ServerConfig{cfg})
		require.NoError(t, err)
		_, err = caps[0].Call(ctxT(t), "tester__echo", json.RawMessage(`{"message":"x"}`))
		require.NoError(t, err)
	}
	a, err := m.Client(cfg)
	require.NoError(t, err)
	assert.Equal(t, int64(1), a.Connects(), "one connection for every investigation")
	assert.Equal(t, 1, h.rec.listCount())

	changed := cfg
	changed.Tools = []string{"echo", "fail"}
	b, err := m.Client(changed)
	require.NoError(t, err)
	assert.NotSame(t, a, b, "a changed configuration gets its own client")

	_, err = m.Capabilities(ctxT(t), []ServerConfig{{Name: "bad name", URL: h.url()}})
	assert.ErrorIs(t, err, ErrInvalidName)
}

func TestCapabilityUnavailableWhenServerDown(t *testing.T) {
	h := startHTTP(t, nil)
	url := h.url()
	h.stop()
	m := NewManager(Options{}, 0)
	t.Cleanup(func() { _ = m.Close() })
	caps, err := m.Capabilities(ctxT(t), []ServerConfig{{Name: "gone", URL: url, Tools: []string{"echo"}}, {Name: "kubernetes", URL: url}}, "kubernetes")
	require.NoError(t, err)
	require.Len(t, caps, 1, "skipped servers are left out")
	av := caps[0].Availability()
	assert.False(t, av.Configured)
	assert.Equal(t, investigate.ErrKindUnreachable, av.Kind)
	assert.Contains(t, av.Reason, "gone")
	assert.Empty(t, caps[0].Tools())
}
