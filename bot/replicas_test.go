package bot

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/render"
	"github.com/autoheal/autoheal/sessions"
	slacksim "github.com/autoheal/autoheal/sim/slack"
)

// Two bot processes get the same mention (Slack redelivers it on the other
// connection): exactly one Investigating reply and one result.
func TestTwoReplicasAnswerAMentionOnce(t *testing.T) {
	e := newEnv(t, envOptions{})
	s, _ := e.scenarioEnv(t, "ad-npe-missing-context")
	now := func() time.Time { return s.Now }
	e.startBot(t, func(o *Options) { o.Now = now })
	e.startBot(t, func(o *Options) { o.Now = now })
	conns := e.sim.Connections()
	require.Len(t, conns, 2)
	ctx := testCtx(t)

	env, m := e.sim.MentionEnvelope(slacksim.MentionOptions{Channel: incidentChannel, User: oncall, Text: s.Trigger.Mention})
	first, err := e.sim.PushTo(conns[0].ID, env)
	require.NoError(t, err)
	second, err := e.sim.RedeliverTo(conns[1].ID, m.EventID, 1, "timeout")
	require.NoError(t, err)
	for _, id := range []string{first.EnvelopeID, second.EnvelopeID} {
		ack, err := e.sim.WaitAck(ctx, id)
		require.NoError(t, err)
		assert.Less(t, ack.Size, 1024, "acks carry no payload")
	}
	assert.NotEqual(t, first.ConnID, second.ConnID, "both replicas got the event")

	rec := e.waitResult(t, MentionJobID(m.EventID))
	investigating, results := 0, 0
	for _, c := range e.sim.Calls("chat.postMessage") {
		if strings.HasPrefix(c.Param("text"), "Investigating") {
			investigating++
		}
	}
	for _, msg := range e.botMessages(incidentChannel, m.ThreadTS) {
		if strings.HasPrefix(msg.Text, "Root cause") || strings.HasPrefix(msg.Text, "Investigating") {
			results++
			assert.Equal(t, rec.MessageTS, msg.TS)
		}
	}
	assert.Equal(t, 1, investigating, "one Investigating reply")
	assert.Equal(t, 1, results, "one result")
	eventually(t, "the job to be acknowledged", func() bool {
		n, err := e.store.Client().XLen(ctx, e.prefix+":jobs").Result()
		return err == nil && n == 0
	})
}

// A job re-run after its result was posted (a replica died before
// acknowledging it) posts nothing again.
func TestRerunJobPostsResultOnce(t *testing.T) {
	e := newEnv(t, envOptions{})
	s, _ := e.scenarioEnv(t, "checkout-fails-payment-typeerror")
	rb := e.startBot(t, func(o *Options) { o.Now = func() time.Time { return s.Now } })
	m, err := e.sim.MentionEvent(slacksim.MentionOptions{Channel: incidentChannel, User: oncall, Text: mentionText(t, s)})
	require.NoError(t, err)
	rec := e.waitResult(t, MentionJobID(m.EventID))
	before := len(e.webCalls(0))

	// The same job delivered again, as after a crash between post and ack.
	p := InvestigationJob{Channel: incidentChannel, ThreadTS: m.ThreadTS, MessageTS: rec.MessageTS}
	job, err := NewInvestigationJob(MentionJobID(m.EventID), p)
	require.NoError(t, err)
	require.NoError(t, rb.HandleJob(testCtx(t), job))
	assert.Len(t, e.webCalls(0), before, "nothing is posted again")

	// A job whose result document survived but whose post did not: the
	// result is posted without investigating again.
	doc, err := e.store.ResultDoc(testCtx(t), MentionJobID(m.EventID))
	require.NoError(t, err)
	require.NoError(t, e.store.PutResultDoc(testCtx(t), "m-rerun", doc))
	ts, err := rb.post(testCtx(t), incidentChannel, m.ThreadTS, text("Investigating: (re-run)"), "progress")
	require.NoError(t, err)
	job, err = NewInvestigationJob("m-rerun", InvestigationJob{Channel: incidentChannel, ThreadTS: m.ThreadTS, MessageTS: ts})
	require.NoError(t, err)
	require.NoError(t, rb.HandleJob(testCtx(t), job))
	got, ok := e.sim.Message(incidentChannel, ts)
	require.True(t, ok)
	assert.True(t, strings.HasPrefix(got.Text, "Root cause"), "the kept result was posted: %q", got.Text)
}

// An investigation with no evidence backend waits for one; giving it in the
// thread resumes the same investigation in the same message.
func TestParkedInvestigationResumesWhenConfigured(t *testing.T) {
	e := newEnv(t, envOptions{})
	s, err := loadScenario("ad-npe-missing-context")
	require.NoError(t, err)
	e.startBot(t, func(o *Options) { o.Now = func() time.Time { return s.Now } })
	ctx := testCtx(t)

	m, err := e.sim.MentionEvent(slacksim.MentionOptions{Channel: incidentChannel, User: oncall, Text: s.Trigger.Mention})
	require.NoError(t, err)
	var progressTS string
	eventually(t, "the missing-backend notice", func() bool {
		for _, msg := range e.botMessages(incidentChannel, m.ThreadTS) {
			if strings.Contains(msg.Text, "Missing credential") {
				progressTS = msg.TS
				return true
			}
		}
		return false
	})
	msg, _ := e.sim.Message(incidentChannel, progressTS)
	assert.Contains(t, string(msg.Blocks), "jaeger_url")
	assert.Contains(t, string(msg.Blocks), render.ActionConfigure, "the notice offers the Configure button")
	parked, err := e.store.ParkedJobs(ctx, incidentChannel)
	require.NoError(t, err)
	require.Len(t, parked, 1)
	assert.Equal(t, MentionJobID(m.EventID), parked[0].Job.ID)

	b := startBackends(t, s)
	cfg := b.Config()
	_, err = e.sim.MentionEvent(slacksim.MentionOptions{Channel: incidentChannel, User: oncall, ThreadTS: m.ThreadTS,
		Text: "jaeger_url: " + cfg["jaeger_url"] + "\nloki_url: " + cfg["loki_url"] + "\nprometheus_url: " + cfg["prometheus_url"] +
			"\ngithub_api_url: " + cfg["github_api_url"] + "\nrepo: " + cfg["repo"]})
	require.NoError(t, err)
	e.waitEphemeral(t, oncall, "Resuming 1 investigation")

	rec := e.waitResult(t, MentionJobID(m.EventID))
	assert.Equal(t, progressTS, rec.MessageTS, "it picks up where it stopped: the same message")
	final, _ := e.sim.Message(incidentChannel, rec.MessageTS)
	assert.True(t, strings.HasPrefix(final.Text, "Root cause"), final.Text)
	parked, err = e.store.ParkedJobs(ctx, incidentChannel)
	require.NoError(t, err)
	assert.Empty(t, parked)
}

// The Configure button opens a modal scoped to its thread; the submission
// saves to that thread only and resumes the thread's parked investigation.
func TestConfigureButtonSavesToThread(t *testing.T) {
	e := newEnv(t, envOptions{})
	s, err := loadScenario("checkout-fails-payment-typeerror")
	require.NoError(t, err)
	e.startBot(t, func(o *Options) { o.Now = func() time.Time { return s.Now } })
	ctx := testCtx(t)

	m, err := e.sim.MentionEvent(slacksim.MentionOptions{Channel: incidentChannel, User: oncall, Text: mentionText(t, s)})
	require.NoError(t, err)
	var progressTS string
	eventually(t, "the missing-backend notice", func() bool {
		for _, msg := range e.botMessages(incidentChannel, m.ThreadTS) {
			if strings.Contains(msg.Text, "Missing credential") {
				progressTS = msg.TS
				return true
			}
		}
		return false
	})
	_, err = e.sim.BlockAction(slacksim.BlockActionOptions{Channel: incidentChannel, MessageTS: progressTS, User: oncall, ActionID: render.ActionConfigure})
	require.NoError(t, err)
	eventually(t, "the settings form", func() bool { return len(e.sim.Views()) == 1 })
	v := e.sim.Views()[0]
	meta, err := render.DecodeMeta(v.PrivateMetadata)
	require.NoError(t, err)
	assert.Equal(t, render.Meta{Channel: incidentChannel, ThreadTS: m.ThreadTS}, meta, "scoped to the thread")

	cfg := startBackends(t, s).Config()
	values := map[string]string{}
	for _, k := range []string{"jaeger_url", "loki_url", "prometheus_url", "github_api_url", "repo"} {
		values[render.ConfigBlockID(k)] = cfg[k]
	}
	values[render.ConfigBlockID("github_token")] = plantedToken
	sub, err := e.sim.ViewSubmission(slacksim.ViewSubmissionOptions{ViewID: v.ID, User: oncall, Values: values})
	require.NoError(t, err)
	ack, err := e.sim.WaitAck(ctx, sub.EnvelopeID)
	require.NoError(t, err)
	assert.NotContains(t, string(ack.Payload), "errors")

	thread, err := e.store.Get(ctx, sessions.ThreadScope(incidentChannel, m.ThreadTS))
	require.NoError(t, err)
	assert.Equal(t, cfg["loki_url"], thread["loki_url"])
	assert.Equal(t, plantedToken, thread["github_token"])
	channel, err := e.store.Get(ctx, sessions.ChannelScope(incidentChannel))
	require.NoError(t, err)
	assert.Empty(t, channel, "nothing saved for the channel")
	assert.NotContains(t, e.allRedisValues(t), plantedToken)

	rec := e.waitResult(t, MentionJobID(m.EventID))
	assert.Equal(t, progressTS, rec.MessageTS)
	saved := e.waitEphemeral(t, oncall, "for this thread")
	assert.NotContains(t, saved.Text, plantedToken)
}

// Slack asking to reconnect, or the connection dropping, does not stop
// the bot; revoked tokens do.
func TestSocketModeSurvivesDisconnectsAndStopsOnAuthErrors(t *testing.T) {
	e := newEnv(t, envOptions{})
	rb := e.startBot(t, nil)
	ctx := testCtx(t)

	mentionAnswered := func() {
		t.Helper()
		m, err := e.sim.MentionEvent(slacksim.MentionOptions{Channel: incidentChannel, User: oncall, Text: "repo: acme/shop"})
		require.NoError(t, err)
		_, err = e.sim.WaitAck(ctx, m.EnvelopeID)
		require.NoError(t, err)
		eventually(t, "the settings to be saved", func() bool {
			got, err := e.store.Get(ctx, sessions.ThreadScope(incidentChannel, m.ThreadTS))
			return err == nil && got["repo"] == "acme/shop"
		})
	}
	mentionAnswered()

	require.NoError(t, e.sim.Disconnect(e.sim.Connections()[0].ID, "refresh_requested"))
	require.NoError(t, e.sim.WaitConnections(ctx, 1))
	mentionAnswered()

	require.NoError(t, e.sim.DropConnection(e.sim.Connections()[0].ID))
	eventually(t, "a new connection", func() bool {
		cs := e.sim.Connections()
		return len(cs) == 1 && rb.Connected()
	})
	mentionAnswered()

	e.sim.RejectToken(e.sim.AppToken())
	require.NoError(t, e.sim.DropConnection(e.sim.Connections()[0].ID))
	select {
	case err := <-rb.done:
		require.Error(t, err)
		assert.True(t, errors.Is(err, ErrSlackAuth), "stopped because of the tokens: %v", err)
		assert.NotContains(t, err.Error(), e.sim.AppToken())
		rb.done <- err // for the cleanup
	case <-time.After(waitTimeout):
		t.Fatal("the bot kept running with a revoked token")
	}
}
