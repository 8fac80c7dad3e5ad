package bot

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	slacksim "github.com/autoheal/autoheal/sim/slack"
)

// chat.postMessage is not idempotent: a post whose answer was lost is found
// in the thread (by the key in its metadata) instead of being posted twice;
// a post that surely failed is simply retried; a rate limit needs no search.
func TestPostIsIdempotent(t *testing.T) {
	e := newEnv(t, envOptions{})
	rb := e.startBot(t, func(o *Options) { o.NoWorker = true })
	ctx := testCtx(t)
	root, err := rb.post(ctx, incidentChannel, "", text("incident thread"), "root")
	require.NoError(t, err)

	count := func(body string) int {
		n := 0
		for _, m := range e.botMessages(incidentChannel, root) {
			if m.Text == body {
				n++
			}
		}
		return n
	}
	searches := func() int {
		return len(e.sim.Calls("conversations.replies")) + len(e.sim.Calls("conversations.history"))
	}

	t.Run("answer lost after posting", func(t *testing.T) {
		e.sim.InjectFault("chat.postMessage", 1, slacksim.Fault{Status: http.StatusInternalServerError, AfterEffect: true})
		before := searches()
		ts, err := rb.post(ctx, incidentChannel, root, text("lost answer"), "reply")
		require.NoError(t, err)
		assert.Equal(t, 1, count("lost answer"), "posted once")
		assert.Equal(t, before+1, searches(), "the retry looked for the post first")
		m, ok := e.sim.Message(incidentChannel, ts)
		require.True(t, ok, "the ts returned is the message that landed")
		assert.Equal(t, "lost answer", m.Text)
	})
	t.Run("failed before posting", func(t *testing.T) {
		e.sim.InjectFault("chat.postMessage", 1, slacksim.Fault{Status: http.StatusServiceUnavailable})
		_, err := rb.post(ctx, incidentChannel, root, text("retried"), "reply")
		require.NoError(t, err)
		assert.Equal(t, 1, count("retried"))
	})
	t.Run("rate limited", func(t *testing.T) {
		before := searches()
		e.sim.RateLimit("chat.postMessage", 1, time.Second)
		_, err := rb.post(ctx, incidentChannel, root, text("after the limit"), "reply")
		require.NoError(t, err)
		assert.Equal(t, 1, count("after the limit"))
		assert.Equal(t, before, searches(), "a 429 says nothing was posted: no search")
	})
	t.Run("a root message in the channel", func(t *testing.T) {
		e.sim.InjectFault("chat.postMessage", 1, slacksim.Fault{Status: http.StatusBadGateway, AfterEffect: true})
		ts, err := rb.post(ctx, incidentChannel, "", text("new alert root"), "root")
		require.NoError(t, err)
		n := 0
		for _, m := range e.sim.Messages(incidentChannel) {
			if m.Text == "new alert root" {
				n++
				assert.Equal(t, ts, m.TS)
			}
		}
		assert.Equal(t, 1, n)
	})
	t.Run("search impossible: no second post", func(t *testing.T) {
		e.sim.InjectFault("chat.postMessage", 1, slacksim.Fault{Status: http.StatusInternalServerError, AfterEffect: true})
		e.sim.FailMethod("conversations.replies", 1, "missing_scope")
		_, err := rb.post(ctx, incidentChannel, root, text("unsure"), "reply")
		require.Error(t, err)
		assert.Contains(t, err.Error(), "not posting again")
		assert.Equal(t, 1, count("unsure"))
	})
}
