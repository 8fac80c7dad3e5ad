package bot

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/access"
	"github.com/autoheal/autoheal/config"
	"github.com/autoheal/autoheal/render"
	"github.com/autoheal/autoheal/sessions"
	slacksim "github.com/autoheal/autoheal/sim/slack"
)

const plantedToken = "ghp_PLANTEDsecretVALUE0123456789abcdefXYZ"

// waitEphemeral waits for an ephemeral message to user containing substr.
func (e *testEnv) waitEphemeral(t testing.TB, user, substr string) slacksim.Ephemeral {
	t.Helper()
	var got slacksim.Ephemeral
	eventually(t, "an ephemeral message containing "+substr, func() bool {
		for _, m := range e.sim.Ephemerals(incidentChannel, user) {
			if strings.Contains(m.Text, substr) || strings.Contains(string(m.Blocks), substr) {
				got = m
				return true
			}
		}
		return false
	})
	return got
}

// Settings typed in a mention go to the thread's session; the secret is
// acknowledged masked, encrypted at rest, and never sent back to Slack.
func TestConfigViaMentionEncryptsSecrets(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.startBot(t, func(o *Options) { o.AllowedHosts = []string{"loki.example.com"} })
	ctx := testCtx(t)

	m, err := e.sim.MentionEvent(slacksim.MentionOptions{Channel: incidentChannel, User: oncall,
		Text: "repo: acme/shop\ngithub_token: " + plantedToken + "\nloki_url: <http://loki.example.com:3100>\nbogus_key: 1"})
	require.NoError(t, err)

	ack := e.waitEphemeral(t, oncall, "Saved")
	assert.Equal(t, m.ThreadTS, ack.ThreadTS, "acknowledged in the thread")
	assert.Contains(t, ack.Text, "loki_url, repo for this thread")
	assert.Contains(t, ack.Text, "github_token saved ("+config.Mask(plantedToken)+")")
	assert.Contains(t, ack.Text, "Please delete your message")
	assert.Contains(t, ack.Text, `unknown config key "bogus_key"`)
	assert.Contains(t, ack.Text, "known: github_api_url")

	got, err := e.store.Get(ctx, sessions.ThreadScope(incidentChannel, m.ThreadTS))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"repo": "acme/shop", "github_token": plantedToken, "loki_url": "http://loki.example.com:3100"}, got)
	chGot, err := e.store.Get(ctx, sessions.ChannelScope(incidentChannel))
	require.NoError(t, err)
	assert.Empty(t, chGot, "thread settings stay in the thread")

	raw := e.allRedisValues(t)
	assert.Contains(t, raw, "acme/shop", "the dump does read the session")
	assert.NotContains(t, raw, plantedToken, "the secret is encrypted at rest")
	assert.NotContains(t, raw, plantedToken[4:20])

	for _, c := range e.sim.Calls() {
		b, _ := json.Marshal(c.Params)
		assert.NotContains(t, string(b), plantedToken, "%s sent the secret to Slack", c.Method)
	}
	assert.Empty(t, e.botMessages(incidentChannel, m.ThreadTS), "settings alone start no investigation")
}

// Without an encryption key, secrets are refused with the reason while the
// other settings are saved.
func TestSecretsRefusedWithoutEncryptionKey(t *testing.T) {
	e := newEnv(t, envOptions{noKey: true})
	e.startBot(t, nil)
	m, err := e.sim.MentionEvent(slacksim.MentionOptions{Channel: incidentChannel, User: oncall,
		Text: "repo: acme/shop\ngithub_token: " + plantedToken})
	require.NoError(t, err)
	ack := e.waitEphemeral(t, oncall, "AUTOHEAL_ENCRYPTION_KEY")
	assert.Contains(t, ack.Text, "Saved repo for this thread")
	assert.NotContains(t, ack.Text, plantedToken)
	got, err := e.store.Get(testCtx(t), sessions.ThreadScope(incidentChannel, m.ThreadTS))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"repo": "acme/shop"}, got)
	assert.NotContains(t, e.allRedisValues(t), plantedToken)
}

// /autoheal config key=value sets the channel; thread settings win over
// the channel's, which win over the environment's; /autoheal status shows
// each with its source, secrets masked.
func TestConfigViaSlashCommandAndPrecedence(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.startBot(t, func(o *Options) {
		o.Env = map[string]string{"service_name": "env-svc", "loki_url": "http://loki.env:3100", "prometheus_token": "env-prom-token-0123456789"}
		o.Admins = access.List{Users: []string{oncall}} // channel URLs and credentials need an admin
		o.AllowedHosts = []string{"jaeger.channel"}
	})
	ctx := testCtx(t)

	_, err := e.sim.SlashCommand(slacksim.SlashCommandOptions{Channel: incidentChannel, User: oncall,
		Text: `config service_name=channel-svc jaeger_url=http://jaeger.channel:16686 github_token="` + plantedToken + `"`})
	require.NoError(t, err)
	ack := e.waitEphemeral(t, oncall, "for this channel")
	assert.Contains(t, ack.Text, "Saved jaeger_url, service_name for this channel")
	assert.Contains(t, ack.Text, config.Mask(plantedToken))
	assert.NotContains(t, ack.Text, "delete your message", "a slash command is not visible to others")

	m, err := e.sim.MentionEvent(slacksim.MentionOptions{Channel: incidentChannel, User: oncall, Text: "service_name: thread-svc"})
	require.NoError(t, err)
	e.waitEphemeral(t, oncall, "for this thread")

	res, err := e.store.Resolve(ctx, incidentChannel, m.ThreadTS, map[string]string{"service_name": "env-svc", "loki_url": "http://loki.env:3100"})
	require.NoError(t, err)
	assert.Equal(t, sessions.Setting{Value: "thread-svc", Source: sessions.SourceThread}, res["service_name"])
	assert.Equal(t, sessions.Setting{Value: "http://jaeger.channel:16686", Source: sessions.SourceChannel}, res["jaeger_url"])
	assert.Equal(t, sessions.Setting{Value: "http://loki.env:3100", Source: sessions.SourceEnv}, res["loki_url"])

	_, err = e.sim.SlashCommand(slacksim.SlashCommandOptions{Channel: incidentChannel, User: oncall, Text: "status"})
	require.NoError(t, err)
	status := e.waitEphemeral(t, oncall, "AutoHeal status")
	blocks := string(status.Blocks)
	assert.Contains(t, blocks, "channel-svc")
	assert.Contains(t, blocks, "(channel)")
	assert.Contains(t, blocks, "http://loki.env:3100")
	assert.Contains(t, blocks, "(environment)")
	assert.Contains(t, blocks, config.Mask(plantedToken))
	assert.NotContains(t, blocks, plantedToken)
	assert.NotContains(t, blocks, "env-prom-token-0123456789")
	assert.Contains(t, blocks, "✓ Traces")
	assert.Contains(t, blocks, "✗ Kubernetes")
	assert.Contains(t, blocks, "*Queue* 0 jobs waiting")
	assert.Contains(t, blocks, "Who may change where the bot connects", "a refused user can see the boundary")
	assert.Contains(t, blocks, "credentials: \\u003c@"+oncall, "the admins")
	assert.Contains(t, blocks, "`jaeger.channel`", "the allowed hosts")

	_, err = e.sim.SlashCommand(slacksim.SlashCommandOptions{Channel: incidentChannel, User: oncall, Text: "config ghp_oops nope=1"})
	require.NoError(t, err)
	bad := e.waitEphemeral(t, oncall, "Not saved")
	assert.NotContains(t, bad.Text, "ghp_oops", "stray words are never echoed")
	assert.Contains(t, bad.Text, "unknown config key")

	_, err = e.sim.SlashCommand(slacksim.SlashCommandOptions{Channel: incidentChannel, User: oncall, Text: "help"})
	require.NoError(t, err)
	e.waitEphemeral(t, oncall, "AutoHeal help")
}

// Sessions expire after their TTL.
func TestSessionTTLExpiry(t *testing.T) {
	e := newEnv(t, envOptions{store: sessions.Options{TTL: 400 * time.Millisecond}})
	e.startBot(t, nil)
	ctx := testCtx(t)
	m, err := e.sim.MentionEvent(slacksim.MentionOptions{Channel: incidentChannel, User: oncall, Text: "repo: acme/shop"})
	require.NoError(t, err)
	e.waitEphemeral(t, oncall, "Saved repo")
	scope := sessions.ThreadScope(incidentChannel, m.ThreadTS)
	got, err := e.store.Get(ctx, scope)
	require.NoError(t, err)
	require.Equal(t, "acme/shop", got["repo"], "saved first")
	eventually(t, "the session to expire", func() bool {
		got, err := e.store.Get(ctx, scope)
		return err == nil && len(got) == 0
	})
}

// /autoheal config without arguments opens the channel's settings form;
// its submission saves to the channel, and invalid values come back as
// form errors.
func TestChannelConfigModal(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.startBot(t, func(o *Options) {
		o.Admins = access.List{Users: []string{oncall}}
		o.AllowedHosts = []string{"loki.channel"}
	})
	ctx := testCtx(t)
	in, err := e.sim.SlashCommand(slacksim.SlashCommandOptions{Channel: incidentChannel, User: oncall, Text: "config"})
	require.NoError(t, err)
	eventually(t, "the settings form", func() bool { return len(e.sim.Views()) == 1 })
	v := e.sim.Views()[0]
	assert.Equal(t, in.TriggerID, v.TriggerID)
	assert.Equal(t, render.CallbackConfig, v.CallbackID)
	assert.Contains(t, string(v.Blocks), "apply to this channel")

	sub, err := e.sim.ViewSubmission(slacksim.ViewSubmissionOptions{ViewID: v.ID, User: oncall,
		Values: map[string]string{render.ConfigBlockID("loki_url"): "ftp://nope"}})
	require.NoError(t, err)
	ack, err := e.sim.WaitAck(ctx, sub.EnvelopeID)
	require.NoError(t, err)
	assert.Contains(t, string(ack.Payload), `"response_action":"errors"`)
	assert.Contains(t, string(ack.Payload), render.ConfigBlockID("loki_url"))

	sub, err = e.sim.ViewSubmission(slacksim.ViewSubmissionOptions{ViewID: v.ID, User: oncall,
		Values: map[string]string{render.ConfigBlockID("loki_url"): "http://loki.channel:3100"}})
	require.NoError(t, err)
	ack, err = e.sim.WaitAck(ctx, sub.EnvelopeID)
	require.NoError(t, err)
	assert.NotContains(t, string(ack.Payload), "errors")
	got, err := e.store.Get(ctx, sessions.ChannelScope(incidentChannel))
	require.NoError(t, err)
	assert.Equal(t, "http://loki.channel:3100", got["loki_url"])
	e.waitEphemeral(t, oncall, "for this channel")
}
