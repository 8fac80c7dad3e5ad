package slacksim

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mentionEvent(t testing.TB, evt socketmode.Event) (slackevents.EventsAPIEvent, *slackevents.AppMentionEvent) {
	t.Helper()
	outer, ok := evt.Data.(slackevents.EventsAPIEvent)
	require.True(t, ok, "data is %T", evt.Data)
	inner, ok := outer.InnerEvent.Data.(*slackevents.AppMentionEvent)
	require.True(t, ok, "inner event is %T", outer.InnerEvent.Data)
	return outer, inner
}

func TestMentionIsDeliveredAndAckRecorded(t *testing.T) {
	srv := newServer(t, Options{Users: []User{{ID: "U0ALICE", Name: "alice", RealName: "Alice Example"}}})
	bot := startBot(t, srv, botOptions{})
	hello := bot.next(t, socketmode.EventTypeHello)
	assert.Equal(t, 1, hello.Request.NumConnections)
	assert.Equal(t, DefaultAppID, hello.Request.ConnectionInfo.AppID)

	eventID, envelopeID := srv.Mention("C0INCIDENT", "U0ALICE", "ad service is throwing errors since 10am", "")
	evt := bot.next(t, socketmode.EventTypeEventsAPI)
	require.Equal(t, envelopeID, evt.Request.EnvelopeID)
	assert.Equal(t, 0, evt.Request.RetryAttempt)

	outer, mention := mentionEvent(t, evt)
	cb, ok := outer.Data.(*slackevents.EventsAPICallbackEvent)
	require.True(t, ok)
	assert.Equal(t, eventID, cb.EventID)
	assert.Equal(t, DefaultTeamID, outer.TeamID)
	assert.Equal(t, DefaultAppID, outer.APIAppID)
	assert.Equal(t, "C0INCIDENT", mention.Channel)
	assert.Equal(t, "U0ALICE", mention.User)
	assert.Equal(t, "<@"+DefaultBotUserID+"> ad service is throwing errors since 10am", mention.Text)
	assert.Empty(t, mention.ThreadTimeStamp)
	assert.Equal(t, mention.TimeStamp, mention.EventTimeStamp)

	ack, err := srv.WaitAck(testCtx(t), envelopeID)
	require.NoError(t, err)
	assert.True(t, ack.Known)
	assert.False(t, ack.Duplicate)
	assert.False(t, ack.Dropped)
	assert.Equal(t, eventID, ack.EventID)
	assert.Equal(t, EnvelopeEventsAPI, ack.Type)
	assert.Equal(t, bot.connID(), ack.ConnID)
	assert.False(t, ack.SentAt.IsZero())
	assert.Equal(t, ack.ReceivedAt.Sub(ack.SentAt), ack.Latency)
	assert.Less(t, ack.Size, 200, "an empty ack is a few bytes")

	// The mention is the root of the thread the bot answers in.
	thread := srv.Thread("C0INCIDENT", mention.TimeStamp)
	require.Len(t, thread, 1)
	assert.Equal(t, "U0ALICE", thread[0].User)
	assert.Equal(t, mention.Text, thread[0].Text)

	deliveries := srv.Deliveries()
	require.Len(t, deliveries, 1)
	assert.True(t, deliveries[0].Acked)
	assert.Equal(t, bot.connID(), deliveries[0].ConnID)
}

func TestMentionInThreadCarriesThreadTS(t *testing.T) {
	srv := newServer(t, Options{})
	bot := startBot(t, srv, botOptions{})
	root := srv.PostUserMessage("C0INCIDENT", "U0BOB", "checkout is down", "")
	srv.Mention("C0INCIDENT", "U0BOB", "<@"+DefaultBotUserID+"> look at this", root)
	_, mention := mentionEvent(t, bot.next(t, socketmode.EventTypeEventsAPI))
	assert.Equal(t, root, mention.ThreadTimeStamp)
	assert.Equal(t, "<@"+DefaultBotUserID+"> look at this", mention.Text, "an existing mention is not doubled")
	assert.Len(t, srv.Thread("C0INCIDENT", root), 2)
}

func TestEnvelopesWaitForAConnection(t *testing.T) {
	srv := newServer(t, Options{})
	eventID, _ := srv.Mention("C0INCIDENT", "U0ALICE", "hello", "")
	require.Equal(t, "", srv.Deliveries()[0].ConnID, "queued while no client is connected")

	bot := startBot(t, srv, botOptions{})
	outer, _ := mentionEvent(t, bot.next(t, socketmode.EventTypeEventsAPI))
	assert.Equal(t, eventID, outer.Data.(*slackevents.EventsAPICallbackEvent).EventID)
}

func TestRedeliverySendsTheSameEventAgainOnAnotherConnection(t *testing.T) {
	srv := newServer(t, Options{})
	bots := []*testBot{startBot(t, srv, botOptions{noAck: true}), startBot(t, srv, botOptions{noAck: true})}
	require.NoError(t, srv.WaitConnections(testCtx(t), 2))
	for _, b := range bots {
		b.next(t, socketmode.EventTypeHello)
	}
	byConn := map[string]*testBot{bots[0].connID(): bots[0], bots[1].connID(): bots[1]}
	require.Len(t, byConn, 2)

	eventID, firstEnvelope := srv.Mention("C0INCIDENT", "U0ALICE", "errors since 10am", "")
	first := srv.Deliveries()[0]
	firstBot := byConn[first.ConnID]
	require.NotNil(t, firstBot)
	got := firstBot.next(t, socketmode.EventTypeEventsAPI)
	require.Equal(t, firstEnvelope, got.Request.EnvelopeID)

	var other string
	for id := range byConn {
		if id != first.ConnID {
			other = id
		}
	}
	re, err := srv.RedeliverTo(other, eventID, 0, "")
	require.NoError(t, err)
	again := byConn[other].next(t, socketmode.EventTypeEventsAPI)

	assert.NotEqual(t, firstEnvelope, again.Request.EnvelopeID)
	assert.Equal(t, re.EnvelopeID, again.Request.EnvelopeID)
	assert.Equal(t, 1, again.Request.RetryAttempt)
	assert.Equal(t, "timeout", again.Request.RetryReason)
	outer, _ := mentionEvent(t, again)
	assert.Equal(t, eventID, outer.Data.(*slackevents.EventsAPICallbackEvent).EventID, "same event_id")

	// Round-robin redelivery by envelope id, with an explicit attempt.
	third, err := srv.Redeliver(re.EnvelopeID, 0, "")
	require.NoError(t, err)
	assert.Equal(t, 2, third.RetryAttempt)
	got3 := byConn[third.ConnID].next(t, socketmode.EventTypeEventsAPI)
	assert.Equal(t, 2, got3.Request.RetryAttempt)

	_, err = srv.Redeliver("Ev-unknown", 0, "")
	assert.ErrorIs(t, err, ErrUnknownID)
}

func TestRoundRobinSpreadsEnvelopesAndEveryAckIsRecorded(t *testing.T) {
	srv := newServer(t, Options{})
	const replicas, mentions = 3, 30
	for range replicas {
		startBot(t, srv, botOptions{})
	}
	require.NoError(t, srv.WaitConnections(testCtx(t), replicas))
	var envs []string
	for i := range mentions {
		_, env := srv.Mention("C0INCIDENT", "U0ALICE", fmt.Sprintf("mention %d", i), "")
		envs = append(envs, env)
	}
	for _, env := range envs {
		_, err := srv.WaitAck(testCtx(t), env)
		require.NoError(t, err)
	}
	conns := srv.Connections()
	require.Len(t, conns, replicas)
	for _, c := range conns {
		assert.Equal(t, mentions/replicas, c.Sent, "connection %s", c.ID)
		assert.Equal(t, mentions/replicas, c.Acked, "connection %s", c.ID)
	}
	assert.Len(t, srv.Acks(), mentions)
	assert.Greater(t, srv.AckLatencyPercentile(99), time.Duration(0))
}

func TestDisconnectMakesTheClientReconnect(t *testing.T) {
	srv := newServer(t, Options{})
	bot := startBot(t, srv, botOptions{})
	bot.next(t, socketmode.EventTypeHello)
	old := bot.connID()

	require.NoError(t, srv.Disconnect(old, "refresh_requested"))
	bot.next(t, socketmode.EventTypeHello)
	require.NotEqual(t, old, bot.connID())
	require.NoError(t, srv.Wait(testCtx(t), func() bool {
		cs := srv.Connections()
		return len(cs) == 1 && cs[0].ID == bot.connID()
	}), "the client closes the refreshed connection itself")

	_, env := srv.Mention("C0INCIDENT", "U0ALICE", "still there?", "")
	evt := bot.next(t, socketmode.EventTypeEventsAPI)
	assert.Equal(t, env, evt.Request.EnvelopeID)
	assert.Len(t, srv.Calls("apps.connections.open"), 2)
	assert.ErrorIs(t, srv.Disconnect("conn-404", ""), ErrNoConnection)
}

func TestDroppedConnectionIsReopened(t *testing.T) {
	srv := newServer(t, Options{})
	bot := startBot(t, srv, botOptions{})
	bot.next(t, socketmode.EventTypeHello)
	old := bot.connID()

	require.NoError(t, srv.DropConnection(old))
	bot.next(t, socketmode.EventTypeHello)
	assert.NotEqual(t, old, bot.connID())

	_, env := srv.Mention("C0INCIDENT", "U0ALICE", "after the drop", "")
	assert.Equal(t, env, bot.next(t, socketmode.EventTypeEventsAPI).Request.EnvelopeID)
}

func TestInvalidAppTokenStopsTheClient(t *testing.T) {
	srv := newServer(t, Options{})
	bot := startBot(t, srv, botOptions{appToken: "xapp-1-not-a-real-token"})
	err := bot.wait(t)
	require.Error(t, err)
	var slackErr slack.SlackErrorResponse
	require.ErrorAs(t, err, &slackErr)
	assert.Equal(t, "invalid_auth", slackErr.Err)
	calls := srv.Calls("apps.connections.open")
	require.Len(t, calls, 1)
	assert.Equal(t, "invalid_auth", calls[0].Error)
}

func TestRevokedAppTokenStopsTheClientOnReconnect(t *testing.T) {
	srv := newServer(t, Options{})
	bot := startBot(t, srv, botOptions{})
	bot.next(t, socketmode.EventTypeHello)
	srv.RejectToken(srv.AppToken())
	require.NoError(t, srv.Disconnect(bot.connID(), ""))
	err := bot.wait(t)
	require.Error(t, err)
	assert.Equal(t, "invalid_auth", err.Error())
}

func TestBotTokenCannotOpenSocketMode(t *testing.T) {
	srv := newServer(t, Options{})
	api := newAPI(srv)
	_, _, err := slack.New(srv.BotToken(), slack.OptionAPIURL(srv.APIURL()), slack.OptionAppLevelToken(srv.BotToken())).StartSocketModeContext(testCtx(t))
	require.Error(t, err)
	assert.Equal(t, "not_allowed_token_type", err.Error())
	_, url, err := api.StartSocketModeContext(testCtx(t))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(url, "ws://"), url)
}

func TestSlowConnectionsOpenStillConnects(t *testing.T) {
	srv := newServer(t, Options{})
	srv.InjectFault("apps.connections.open", 1, Fault{Delay: 300 * time.Millisecond, Error: "internal_error"})
	srv.DelayMethod("apps.connections.open", 1, 100*time.Millisecond)
	bot := startBot(t, srv, botOptions{})
	bot.next(t, socketmode.EventTypeHello)
	calls := srv.Calls("apps.connections.open")
	require.Len(t, calls, 2, "the first attempt fails after the delay, the client retries")
	assert.Equal(t, "internal_error", calls[0].Error)
	assert.True(t, calls[1].OK())
}

func TestViewSubmissionAckPayloadIsRecorded(t *testing.T) {
	srv := newServer(t, Options{})
	respond := map[string]any{"response_action": "errors", "errors": map[string]string{"repo": "must be owner/name"}}
	bot := startBot(t, srv, botOptions{ackPayload: func(evt socketmode.Event) any {
		if cb, ok := evt.Data.(slack.InteractionCallback); ok && cb.Type == slack.InteractionTypeViewSubmission {
			return respond
		}
		return nil
	}})
	api := newAPI(srv)

	in, err := srv.SlashCommand(SlashCommandOptions{Channel: "C0INCIDENT", User: "U0ALICE", Text: "config"})
	require.NoError(t, err)
	evt := bot.next(t, socketmode.EventTypeSlashCommand)
	cmd, ok := evt.Data.(slack.SlashCommand)
	require.True(t, ok)
	assert.Equal(t, "/autoheal", cmd.Command)
	assert.Equal(t, "config", cmd.Text)
	assert.Equal(t, in.TriggerID, cmd.TriggerID)
	assert.Equal(t, in.ResponseURL, cmd.ResponseURL)
	assert.True(t, evt.Request.AcceptsResponsePayload)

	modal := slack.ModalViewRequest{
		Type:            slack.VTModal,
		Title:           slack.NewTextBlockObject(slack.PlainTextType, "AutoHeal config", false, false),
		Submit:          slack.NewTextBlockObject(slack.PlainTextType, "Save", false, false),
		CallbackID:      "config",
		PrivateMetadata: `{"channel":"C0INCIDENT"}`,
		Blocks: slack.Blocks{BlockSet: []slack.Block{
			slack.NewInputBlock("repo", slack.NewTextBlockObject(slack.PlainTextType, "Repository", false, false), nil,
				slack.NewPlainTextInputBlockElement(nil, "repo_input")),
			slack.NewInputBlock("band", slack.NewTextBlockObject(slack.PlainTextType, "Approve at", false, false), nil,
				slack.NewOptionsSelectBlockElement(slack.OptTypeStatic, nil, "band_select",
					slack.NewOptionBlockObject("HIGH", slack.NewTextBlockObject(slack.PlainTextType, "High", false, false), nil),
					slack.NewOptionBlockObject("MEDIUM", slack.NewTextBlockObject(slack.PlainTextType, "Medium", false, false), nil))),
		}},
	}
	resp, err := api.OpenViewContext(testCtx(t), cmd.TriggerID, modal)
	require.NoError(t, err)
	views := srv.Views()
	require.Len(t, views, 1)
	assert.Equal(t, resp.View.ID, views[0].ID)
	assert.Equal(t, "config", views[0].CallbackID)
	assert.Equal(t, `{"channel":"C0INCIDENT"}`, views[0].PrivateMetadata)
	assert.Equal(t, "U0ALICE", views[0].User)

	_, err = api.OpenViewContext(testCtx(t), cmd.TriggerID, modal)
	assert.EqualError(t, err, "trigger_exchanged", "a trigger opens one view")

	sub, err := srv.ViewSubmission(ViewSubmissionOptions{ViewID: resp.View.ID, Values: map[string]string{"repo": "acme shop", "band": "MEDIUM"}})
	require.NoError(t, err)
	evt = bot.next(t, socketmode.EventTypeInteractive)
	cb := evt.Data.(slack.InteractionCallback)
	assert.Equal(t, slack.InteractionTypeViewSubmission, cb.Type)
	assert.Equal(t, "config", cb.View.CallbackID)
	assert.Equal(t, `{"channel":"C0INCIDENT"}`, cb.View.PrivateMetadata)
	assert.Equal(t, "acme shop", cb.View.State.Values["repo"]["repo_input"].Value)
	assert.Equal(t, "MEDIUM", cb.View.State.Values["band"]["band_select"].SelectedOption.Value)
	assert.Equal(t, "U0ALICE", cb.User.ID)

	ack, err := srv.WaitAck(testCtx(t), sub.EnvelopeID)
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(ack.Payload, &got))
	assert.Equal(t, "errors", got["response_action"])

	_, err = srv.ViewSubmission(ViewSubmissionOptions{ViewID: resp.View.ID, Values: map[string]string{"band": "LOWEST"}})
	assert.ErrorContains(t, err, `no option "LOWEST"`)
	_, err = srv.ViewSubmission(ViewSubmissionOptions{ViewID: resp.View.ID, Values: map[string]string{"nope": "x"}})
	assert.ErrorContains(t, err, `no input block "nope"`)
}

func TestBlockActionOnAMessageAndResponseURL(t *testing.T) {
	srv := newServer(t, Options{})
	bot := startBot(t, srv, botOptions{})
	api := newAPI(srv)
	root := srv.PostUserMessage("C0INCIDENT", "U0ALICE", "help", "")
	blocks := []slack.Block{
		slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, "*Fix ready*", false, false), nil, nil),
		slack.NewActionBlock("decide",
			slack.NewButtonBlockElement("approve", "inc-42", slack.NewTextBlockObject(slack.PlainTextType, "Approve", false, false)).WithStyle(slack.StylePrimary),
			slack.NewButtonBlockElement("reject", "inc-42", slack.NewTextBlockObject(slack.PlainTextType, "Reject", false, false))),
	}
	_, ts, err := api.PostMessageContext(testCtx(t), "C0INCIDENT", slack.MsgOptionTS(root), slack.MsgOptionText("Fix ready", false), slack.MsgOptionBlocks(blocks...))
	require.NoError(t, err)

	in, err := srv.BlockAction(BlockActionOptions{Channel: "C0INCIDENT", MessageTS: ts, User: "U0ALICE", ActionID: "approve"})
	require.NoError(t, err)
	cb := bot.next(t, socketmode.EventTypeInteractive).Data.(slack.InteractionCallback)
	assert.Equal(t, slack.InteractionTypeBlockActions, cb.Type)
	require.Len(t, cb.ActionCallback.BlockActions, 1)
	act := cb.ActionCallback.BlockActions[0]
	assert.Equal(t, "approve", act.ActionID)
	assert.Equal(t, "decide", act.BlockID)
	assert.Equal(t, "inc-42", act.Value)
	assert.Equal(t, "C0INCIDENT", cb.Container.ChannelID)
	assert.Equal(t, ts, cb.Container.MessageTs)
	assert.Equal(t, root, cb.Container.ThreadTs)
	assert.Equal(t, ts, cb.Message.Timestamp)
	assert.Equal(t, in.TriggerID, cb.TriggerID)
	assert.Equal(t, "C0INCIDENT", cb.Channel.ID)

	// The bot answers through response_url, replacing the original message.
	_, _, err = api.PostMessageContext(testCtx(t), "", slack.MsgOptionReplaceOriginal(cb.ResponseURL), slack.MsgOptionText("Approved by alice", false))
	require.NoError(t, err)
	m, ok := srv.Message("C0INCIDENT", ts)
	require.True(t, ok)
	assert.Equal(t, "Approved by alice", m.Text)
	assert.Nil(t, m.Blocks)
	assert.Len(t, srv.Updates("C0INCIDENT", ts), 1)

	_, err = srv.BlockAction(BlockActionOptions{Channel: "C0INCIDENT", MessageTS: ts, User: "U0ALICE", ActionID: "missing"})
	assert.Error(t, err)
}

func TestRawWebSocketProtocol(t *testing.T) {
	srv := newServer(t, Options{PingInterval: 20 * time.Millisecond, Limits: Limits{MaxConnections: 1}})
	api := newAPI(srv)
	_, wsURL, err := api.StartSocketModeContext(testCtx(t))
	require.NoError(t, err)

	conn, _, err := websocket.DefaultDialer.DialContext(testCtx(t), wsURL, nil)
	require.NoError(t, err)
	defer conn.Close()
	pings := make(chan struct{}, 1)
	conn.SetPingHandler(func(string) error {
		select {
		case pings <- struct{}{}:
		default:
		}
		return nil
	})

	// Frames are read in the background so that pings are answered.
	frames := make(chan []byte, 16)
	go func() {
		defer close(frames)
		for {
			_, data, err := conn.ReadMessage()
			if err != nil {
				return
			}
			frames <- data
		}
	}()
	readJSON := func(v any) {
		t.Helper()
		select {
		case data, ok := <-frames:
			require.True(t, ok, "connection closed")
			require.NoError(t, json.Unmarshal(data, v))
		case <-time.After(testTimeout):
			t.Fatal("no frame")
		}
	}

	var hello map[string]any
	readJSON(&hello)
	assert.Equal(t, "hello", hello["type"])
	assert.EqualValues(t, 1, hello["num_connections"])

	// A ticket is single-use, and the connection limit holds.
	_, resp, err := websocket.DefaultDialer.DialContext(testCtx(t), wsURL, nil)
	require.Error(t, err)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	_, second, err := api.StartSocketModeContext(testCtx(t))
	require.NoError(t, err)
	_, resp, err = websocket.DefaultDialer.DialContext(testCtx(t), second, nil)
	require.Error(t, err)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)

	_, env := srv.Mention("C0INCIDENT", "U0ALICE", "raw", "")
	var got Envelope
	readJSON(&got)
	assert.Equal(t, env, got.EnvelopeID)
	assert.Equal(t, EnvelopeEventsAPI, got.Type)
	select {
	case <-pings:
	case <-time.After(testTimeout):
		t.Fatal("no WebSocket ping from the simulator")
	}

	// An oversized ack is ignored as Slack ignores it; a stray one is marked.
	big := `{"envelope_id":"` + env + `","payload":{"text":"` + strings.Repeat("x", 21*1024) + `"}}`
	require.NoError(t, conn.WriteMessage(websocket.TextMessage, []byte(big)))
	require.NoError(t, conn.WriteJSON(map[string]any{"envelope_id": "not-sent-by-slack"}))
	require.NoError(t, srv.Wait(testCtx(t), func() bool { return len(srv.Acks()) == 2 }))
	acks := srv.Acks()
	assert.True(t, acks[0].Dropped)
	assert.True(t, acks[0].Known)
	assert.False(t, acks[1].Known)
	assert.False(t, srv.Deliveries()[0].Acked, "a dropped ack does not acknowledge")

	require.NoError(t, conn.WriteJSON(map[string]any{"envelope_id": env}))
	ack, err := srv.WaitAck(testCtx(t), env)
	require.NoError(t, err)
	assert.False(t, ack.Dropped)
}

func TestPushValidatesAndTargetsConnections(t *testing.T) {
	srv := newServer(t, Options{})
	_, err := srv.Push(Envelope{})
	assert.Error(t, err)
	_, err = srv.PushTo("conn-9", Envelope{Type: EnvelopeInteractive, Payload: json.RawMessage(`{}`)})
	assert.True(t, errors.Is(err, ErrNoConnection), "%v", err)

	bot := startBot(t, srv, botOptions{})
	bot.next(t, socketmode.EventTypeHello)
	env, m := srv.MentionEnvelope(MentionOptions{Channel: "C0INCIDENT", User: "U0ALICE", Text: "targeted"})
	d, err := srv.PushTo(bot.connID(), env)
	require.NoError(t, err)
	assert.Equal(t, bot.connID(), d.ConnID)
	assert.Equal(t, m.EventID, d.EventID)
	assert.Equal(t, env.EnvelopeID, bot.next(t, socketmode.EventTypeEventsAPI).Request.EnvelopeID)

	m2, err := srv.MentionEvent(MentionOptions{Channel: "C0INCIDENT", User: "U0ALICE", Text: "in the thread", ThreadTS: m.TS, ConnID: bot.connID()})
	require.NoError(t, err)
	assert.Equal(t, m.TS, m2.ThreadTS, "answer in the first mention's thread")
	assert.Equal(t, m.TS, m.ThreadTS, "a top-level mention starts its own thread")
	_, mention := mentionEvent(t, bot.next(t, socketmode.EventTypeEventsAPI))
	assert.Equal(t, m2.TS, mention.TimeStamp)
	_, err = srv.MentionEvent(MentionOptions{Channel: "C0INCIDENT", User: "U0ALICE", Text: "x", ConnID: "conn-404"})
	assert.ErrorIs(t, err, ErrNoConnection)
}

func TestBlockActionOnAnEphemeralAndInAModal(t *testing.T) {
	srv := newServer(t, Options{Channels: []Channel{{ID: "C0INCIDENT", Name: "incidents"}}})
	bot := startBot(t, srv, botOptions{})
	api := newAPI(srv)
	ctx := testCtx(t)
	choose := slack.NewOptionsSelectBlockElement(slack.OptTypeStatic, nil, "band",
		slack.NewOptionBlockObject("HIGH", slack.NewTextBlockObject(slack.PlainTextType, "High", false, false), nil),
		slack.NewOptionBlockObject("LOW", slack.NewTextBlockObject(slack.PlainTextType, "Low", false, false), nil))
	ts, err := api.PostEphemeralContext(ctx, "#incidents", "U0ALICE", slack.MsgOptionText("pick", false),
		slack.MsgOptionBlocks(slack.NewActionBlock("pick", choose)))
	require.NoError(t, err, "a channel name is accepted like an id")

	_, err = srv.BlockAction(BlockActionOptions{Channel: "C0INCIDENT", MessageTS: ts, User: "U0ALICE", ActionID: "band", Value: "LOW"})
	require.NoError(t, err)
	cb := bot.next(t, socketmode.EventTypeInteractive).Data.(slack.InteractionCallback)
	assert.True(t, cb.Container.IsEphemeral)
	require.Len(t, cb.ActionCallback.BlockActions, 1)
	assert.Equal(t, "LOW", cb.ActionCallback.BlockActions[0].SelectedOption.Value)
	_, _, err = api.PostMessageContext(ctx, "", slack.MsgOptionReplaceOriginal(cb.ResponseURL), slack.MsgOptionText("Saved: LOW", false))
	require.NoError(t, err)
	eph := srv.Ephemerals("C0INCIDENT", "U0ALICE")
	require.Len(t, eph, 1, "the ephemeral is replaced in place")
	assert.Equal(t, "Saved: LOW", eph[0].Text)

	_, err = srv.BlockAction(BlockActionOptions{Channel: "C0INCIDENT", MessageTS: ts, User: "U0BOB", ActionID: "band", Value: "LOW"})
	assert.Error(t, err, "another user does not see the ephemeral")

	view, err := api.OpenViewContext(ctx, srv.NewTrigger("U0ALICE"), slack.ModalViewRequest{
		Type: slack.VTModal, Title: slack.NewTextBlockObject(slack.PlainTextType, "Config", false, false),
		Blocks: slack.Blocks{BlockSet: []slack.Block{slack.NewActionBlock("modal-actions",
			slack.NewButtonBlockElement("test", "t", slack.NewTextBlockObject(slack.PlainTextType, "Test connection", false, false)))}},
	})
	require.NoError(t, err)
	_, err = srv.BlockAction(BlockActionOptions{ViewID: view.View.ID, User: "U0ALICE", ActionID: "test"})
	require.NoError(t, err)
	cb = bot.next(t, socketmode.EventTypeInteractive).Data.(slack.InteractionCallback)
	assert.Equal(t, "view", cb.Container.Type)
	assert.Equal(t, view.View.ID, cb.View.ID)
	assert.Equal(t, "test", cb.ActionCallback.BlockActions[0].ActionID)
}
