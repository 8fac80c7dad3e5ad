package render

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slack-go/slack"
)

func TestConsolidate(t *testing.T) {
	small := func(i int) Message { return text1(fmt.Sprintf("evidence %d", i)) }
	big := func(i int) Message { return text1(fmt.Sprintf("timeline %d ", i) + strings.Repeat("x", 2800)) }
	file := Message{Text: "patch", Upload: &Upload{Filename: "fix.diff", Title: "fix", Content: "+a"}}

	t.Run("small messages merge into one", func(t *testing.T) {
		out := Consolidate([]Message{small(1), small(2), small(3)}, 2)
		require.Len(t, out, 1)
		assert.Contains(t, out[0].Text, "evidence 1")
		assert.Contains(t, out[0].Text, "evidence 3")
		assert.NoError(t, Validate(out[0]))
	})
	t.Run("a file stays its own message, in order", func(t *testing.T) {
		out := Consolidate([]Message{file, small(1), small(2)}, 2)
		require.Len(t, out, 2)
		assert.NotNil(t, out[0].Upload)
		assert.Contains(t, out[1].Text, "evidence 2")
	})
	t.Run("what cannot fit is left out with a note", func(t *testing.T) {
		var in []Message
		for i := range 12 {
			in = append(in, big(i))
		}
		out := Consolidate(in, 2)
		require.Len(t, out, 2)
		for _, m := range out {
			assert.NoError(t, Validate(m))
		}
		blob := string(mustJSON(t, out[1].Blocks))
		assert.Contains(t, blob, "left out to keep within Slack")
	})
	assert.Nil(t, Consolidate([]Message{small(1)}, 0))
}

func text1(s string) Message {
	return Message{Text: s, Blocks: []slack.Block{section(Escape(s))}}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
