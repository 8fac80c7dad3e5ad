package bot

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// The Slack app manifest asks for exactly what the bot uses.
func TestSlackManifest(t *testing.T) {
	raw, err := os.ReadFile("../deploy/slack/manifest.yaml")
	require.NoError(t, err)
	var m struct {
		Features struct {
			SlashCommands []struct {
				Command string `yaml:"command"`
			} `yaml:"slash_commands"`
		} `yaml:"features"`
		OAuth struct {
			Scopes struct {
				Bot []string `yaml:"bot"`
			} `yaml:"scopes"`
		} `yaml:"oauth_config"`
		Settings struct {
			Events struct {
				BotEvents []string `yaml:"bot_events"`
			} `yaml:"event_subscriptions"`
			Interactivity struct {
				Enabled bool `yaml:"is_enabled"`
			} `yaml:"interactivity"`
			SocketMode bool `yaml:"socket_mode_enabled"`
		} `yaml:"settings"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &m))
	assert.ElementsMatch(t, []string{"app_mentions:read", "chat:write", "commands", "files:write", "usergroups:read", "channels:history", "groups:history"}, m.OAuth.Scopes.Bot,
		"history scopes: a post whose answer was lost is looked up before it is sent again")
	assert.Equal(t, []string{"app_mention"}, m.Settings.Events.BotEvents)
	require.Len(t, m.Features.SlashCommands, 1)
	assert.Equal(t, "/autoheal", m.Features.SlashCommands[0].Command)
	assert.True(t, m.Settings.Interactivity.Enabled)
	assert.True(t, m.Settings.SocketMode)
}
