package bot

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/render"
	slacksim "github.com/autoheal/autoheal/sim/slack"
)

// /autoheal help says which confidence bands offer Approve as this AutoHeal
// is configured (AUTOHEAL_MIN_BAND, pull requests on or off).
func TestHelpFollowsTheMinimumBand(t *testing.T) {
	text := func(m render.Message) string {
		require.NoError(t, render.Validate(m))
		b, err := json.Marshal(m.Blocks)
		require.NoError(t, err)
		return string(b)
	}
	low := text(helpMessage(investigate.BandLow, true))
	assert.Contains(t, low, "Every band offers *Approve*")
	assert.NotContains(t, low, "no pull request")

	medium := text(helpMessage(investigate.BandMedium, true))
	assert.Contains(t, medium, "*HIGH* and *MEDIUM* offer *Approve* (a pull request) when the fix is a change to a repository; *LOW* gets a report, no pull request.")

	high := text(helpMessage(investigate.BandHigh, true))
	assert.Contains(t, high, "*HIGH* offers *Approve* (a pull request) when the fix is a change to a repository; *MEDIUM* and *LOW* get a report, no pull request.")

	off := text(helpMessage(investigate.BandLow, false))
	assert.Contains(t, off, "Pull requests are not enabled on this AutoHeal")
	assert.NotContains(t, off, "offers *Approve*")

	for _, s := range []string{low, medium, high, off} {
		assert.Contains(t, s, "*Confidence* is earned from evidence")
		assert.Contains(t, s, "/autoheal status", "the rest of the help is render.Help's")
	}
}

// The slash command answers with it.
func TestHelpCommandShowsTheConfiguredBand(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.startBot(t, func(o *Options) { o.MinBand = investigate.BandLow })
	_, err := e.sim.SlashCommand(slacksim.SlashCommandOptions{Channel: incidentChannel, User: oncall, Text: "help"})
	require.NoError(t, err)
	m := e.waitEphemeral(t, oncall, "AutoHeal help")
	assert.Contains(t, string(m.Blocks), "Pull requests are not enabled on this AutoHeal", "no remediator in this bot")
	assert.NotContains(t, string(m.Blocks), "LOW* anything less: a report, no pull request")
}
