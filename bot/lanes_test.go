package bot

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	slacksim "github.com/autoheal/autoheal/sim/slack"
)

// The Socket Mode reader only acknowledges and enqueues: with mention
// handlers stuck on a slow Slack and their lane full, further mentions are
// still acknowledged (and shed, counted), and a slash command runs at once
// on its own lane, opening its modal while the mentions still wait.
func TestSlowMentionsNeitherHoldAcksNorClicks(t *testing.T) {
	e := newEnv(t, envOptions{})
	shed := &shedCounter{}
	e.startBot(t, func(o *Options) {
		o.NoWorker = true
		o.Metrics = shed
		o.EventWorkers, o.EventQueue = 1, 1
	})
	ctx := testCtx(t)
	e.sim.DelayMethod("chat.postMessage", 0, 5*time.Second) // every reply to a mention hangs

	const mentions = 6
	for i := range mentions {
		m, err := e.sim.MentionEvent(slacksim.MentionOptions{Channel: incidentChannel, User: oncall, Text: fmt.Sprintf("checkout fails %d", i)})
		require.NoError(t, err)
		_, err = e.sim.WaitAck(ctx, m.EnvelopeID)
		require.NoError(t, err, "mention %d acknowledged although its lane is full", i)
	}
	eventually(t, "the mentions past the lane's capacity to be shed", func() bool { return shed.events.Load() >= mentions-2 })

	cmd, err := e.sim.SlashCommand(slacksim.SlashCommandOptions{Channel: incidentChannel, User: oncall, Text: "config"})
	require.NoError(t, err)
	_, err = e.sim.WaitAck(ctx, cmd.EnvelopeID)
	require.NoError(t, err)
	eventually(t, "the command's modal to open", func() bool {
		for _, c := range e.sim.Calls("views.open") {
			if c.Param("trigger_id") == cmd.TriggerID && c.Error == "" {
				return true
			}
		}
		return false
	})
	assert.Empty(t, e.sim.Calls("chat.postMessage"), "the modal opened while every mention reply was still waiting on Slack")
	assert.Zero(t, shed.interactive.Load())
	e.sim.ClearFaults("chat.postMessage")
}
