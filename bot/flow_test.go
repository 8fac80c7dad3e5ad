package bot

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/render"
	slacksim "github.com/autoheal/autoheal/sim/slack"
)

// Every shared example, mentioned in a channel configured for it, ends as
// one result and one evidence chart in the thread within the Slack call
// budget, with progress edits at least 3 s apart.
func TestExampleScenariosEndToEnd(t *testing.T) {
	entries, err := os.ReadDir(examplesDir)
	require.NoError(t, err)
	require.NotEmpty(t, entries)
	for _, ent := range entries {
		if !ent.IsDir() {
			continue
		}
		name := ent.Name()
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{})
			s, _ := e.scenarioEnv(t, name)
			e.startBot(t, func(o *Options) {
				o.Now = func() time.Time { return s.Now }
				o.UpdateInterval = DefaultUpdateInterval
			})
			from := len(e.sim.Calls())
			m, err := e.sim.MentionEvent(slacksim.MentionOptions{Channel: incidentChannel, User: oncall, Text: mentionText(t, s)})
			require.NoError(t, err)
			rec := e.waitResult(t, MentionJobID(m.EventID))

			calls := e.webCalls(from)
			assert.LessOrEqual(t, len(calls), SlackCallBudget, "Slack Web API calls for one investigation: %v", methods(calls))
			for _, c := range calls {
				assert.True(t, c.OK(), "%s failed: %s", c.Method, c.Error)
			}

			replies := e.botMessages(incidentChannel, m.ThreadTS)
			require.NotEmpty(t, replies)
			assert.Equal(t, rec.MessageTS, replies[0].TS, "the Investigating reply became the result")
			assert.True(t, strings.HasPrefix(replies[0].Text, "Root cause"), "result text: %q", replies[0].Text)
			assert.Contains(t, replies[0].Text, s.Truth.Service)
			investigating := 0
			for _, c := range e.sim.Calls("chat.postMessage") {
				if strings.HasPrefix(c.Param("text"), "Investigating") {
					investigating++
				}
			}
			assert.Equal(t, 1, investigating, "one Investigating reply")
			if ups := e.sim.Updates(incidentChannel, rec.MessageTS); len(ups) > 1 {
				assert.GreaterOrEqual(t, e.sim.MinUpdateInterval(incidentChannel, rec.MessageTS), DefaultUpdateInterval)
			}
			charts := e.chartFiles(m.ThreadTS, MentionJobID(m.EventID))
			require.Len(t, charts, 1, "one evidence chart in the thread")
			assert.Equal(t, m.ThreadTS, charts[0].ThreadTS)
			assert.Contains(t, charts[0].Title, s.Truth.Service+":")
			thread := e.sim.RenderThread(incidentChannel, m.ThreadTS)
			assert.Contains(t, thread, "Re-investigate")
			if s.Truth.File != "" {
				assert.Contains(t, thread, s.Truth.File[strings.LastIndex(s.Truth.File, "/")+1:])
			}
			if testing.Verbose() {
				t.Logf("%d calls: %v\n%s", len(calls), methods(calls), thread)
			}
		})
	}
}

func methods(calls []slacksim.Call) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.Method
	}
	return out
}

// The result shows whether a pull request may be proposed.
func TestResultWithoutRemediatorSaysWhy(t *testing.T) {
	e := newEnv(t, envOptions{})
	s, _ := e.scenarioEnv(t, "ad-npe-missing-context")
	e.startBot(t, func(o *Options) { o.Now = func() time.Time { return s.Now } })
	m, err := e.sim.MentionEvent(slacksim.MentionOptions{Channel: incidentChannel, User: oncall, Text: mentionText(t, s)})
	require.NoError(t, err)
	rec := e.waitResult(t, MentionJobID(m.EventID))
	msg, ok := e.sim.Message(incidentChannel, rec.MessageTS)
	require.True(t, ok)
	assert.Contains(t, string(msg.Blocks), "pull requests are not enabled")
	assert.NotContains(t, string(msg.Blocks), render.ActionApprove, "no Approve button without a remediator")
	assert.Contains(t, string(msg.Blocks), render.ActionConfigure)
	_ = context.Background()
}

// An investigation slow enough for several progress edits keeps to the
// Slack call budget; every edit of the result, a click's included, is at
// least the update interval after the previous one.
func TestSlowInvestigationKeepsToTheSlackCallBudget(t *testing.T) {
	e := newEnv(t, envOptions{})
	s, _ := e.scenarioEnvWith(t, "checkout-fails-payment-typeerror", harness.Options{Latency: 2 * time.Second})
	rem := &fakeRemediator{}
	e.startBot(t, func(o *Options) {
		o.Now = func() time.Time { return s.Now }
		o.UpdateInterval = DefaultUpdateInterval
		o.EngineDeadline = 2 * time.Minute
		o.Remediator = rem
		o.Approvers = onlyUser(approver)
	})
	from := len(e.sim.Calls())
	m, err := e.sim.MentionEvent(slacksim.MentionOptions{Channel: incidentChannel, User: oncall, Text: mentionText(t, s)})
	require.NoError(t, err)
	rec := e.waitResult(t, MentionJobID(m.EventID))

	calls := e.webCalls(from)
	assert.LessOrEqual(t, len(calls), SlackCallBudget, "Slack Web API calls for one investigation: %v", methods(calls))
	ups := e.sim.Updates(incidentChannel, rec.MessageTS)
	require.GreaterOrEqual(t, len(ups), 3, "the investigation lasted long enough for live progress edits before the result")
	assert.GreaterOrEqual(t, e.sim.MinUpdateInterval(incidentChannel, rec.MessageTS), DefaultUpdateInterval)

	// Approve right after the result: its edits of the result wait their turn.
	_, err = e.sim.BlockAction(slacksim.BlockActionOptions{Channel: incidentChannel, MessageTS: rec.MessageTS, User: approver, ActionID: render.ActionApprove})
	require.NoError(t, err)
	eventually(t, "the approved result", func() bool {
		msg, _ := e.sim.Message(incidentChannel, rec.MessageTS)
		return strings.Contains(string(msg.Blocks), "pull/42")
	})
	assert.Greater(t, len(e.sim.Updates(incidentChannel, rec.MessageTS)), len(ups))
	assert.GreaterOrEqual(t, e.sim.MinUpdateInterval(incidentChannel, rec.MessageTS), DefaultUpdateInterval,
		"the decision's edits are spaced from the result's and from each other")
}
