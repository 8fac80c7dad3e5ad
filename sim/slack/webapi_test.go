package slacksim

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/sim"
)

// rawCall posts a form to a Web API method and decodes the JSON answer.
func rawCall(t *testing.T, srv *Server, method string, form url.Values, bearer string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(testCtx(t), http.MethodPost, srv.APIURL()+method, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var body map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, body
}

func TestAuthAndUnknownMethods(t *testing.T) {
	srv := newServer(t, Options{BotTokens: []string{"xoxb-one", "xoxb-two"}, AppTokens: []string{"xapp-one"}})
	srv.RejectToken("xoxb-two")
	tests := []struct {
		name, method, bearer, formToken, wantErr string
	}{
		{name: "bearer bot token", method: "auth.test", bearer: "xoxb-one"},
		{name: "form bot token", method: "auth.test", formToken: "xoxb-one"},
		{name: "no token", method: "auth.test", wantErr: "not_authed"},
		{name: "unknown token", method: "auth.test", bearer: "xoxb-nope", wantErr: "invalid_auth"},
		{name: "rejected token", method: "auth.test", bearer: "xoxb-two", wantErr: "invalid_auth"},
		{name: "app token on a bot method", method: "chat.postMessage", bearer: "xapp-one", wantErr: "not_allowed_token_type"},
		{name: "bot token on connections.open", method: "apps.connections.open", bearer: "xoxb-one", wantErr: "not_allowed_token_type"},
		{name: "unknown method", method: "chat.teleport", bearer: "xoxb-one", wantErr: "unknown_method"},
		{name: "unknown method without token", method: "nope.nope", wantErr: "unknown_method"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			form := url.Values{}
			if tc.formToken != "" {
				form.Set("token", tc.formToken)
			}
			status, body := rawCall(t, srv, tc.method, form, tc.bearer)
			assert.Equal(t, http.StatusOK, status)
			if tc.wantErr == "" {
				assert.Equal(t, true, body["ok"])
				assert.Equal(t, DefaultBotUserID, body["user_id"])
				return
			}
			assert.Equal(t, false, body["ok"])
			assert.Equal(t, tc.wantErr, body["error"])
		})
	}
	calls := srv.Calls("chat.teleport")
	require.Len(t, calls, 1, "unknown methods are recorded")
	assert.Equal(t, "unknown_method", calls[0].Error)
	for _, c := range srv.Calls() {
		assert.NotContains(t, c.Params, "token", "tokens are never recorded")
	}
}

func TestPostAndUpdateLandInTheThread(t *testing.T) {
	var transcript bytes.Buffer
	srv := newServer(t, Options{Transcript: sim.NewTranscript(&transcript)})
	api := newAPI(srv)
	ctx := testCtx(t)
	root := srv.PostUserMessage("C0INCIDENT", "U0ALICE", "ad service errors", "")

	ch, ts1, err := api.PostMessageContext(ctx, "C0INCIDENT", slack.MsgOptionTS(root),
		slack.MsgOptionText("Investigating…", false),
		slack.MsgOptionBlocks(slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, ":mag: Investigating", false, false), nil, nil)))
	require.NoError(t, err)
	assert.Equal(t, "C0INCIDENT", ch)
	_, ts2, err := api.PostMessageContext(ctx, "C0INCIDENT", slack.MsgOptionTS(ts1), slack.MsgOptionText("second", false))
	require.NoError(t, err)
	assert.Equal(t, -1, compareTS(root, ts1))
	assert.Equal(t, -1, compareTS(ts1, ts2), "timestamps are unique and increasing")

	_, _, _, err = api.UpdateMessageContext(ctx, "C0INCIDENT", ts1, slack.MsgOptionText("Root cause found", false),
		slack.MsgOptionBlocks(slack.NewHeaderBlock(slack.NewTextBlockObject(slack.PlainTextType, "Root cause found", false, false))))
	require.NoError(t, err)
	_, _, _, err = api.UpdateMessageContext(ctx, "C0INCIDENT", ts1, slack.MsgOptionText("Root cause found (final)", false))
	require.NoError(t, err)

	thread := srv.Thread("C0INCIDENT", root)
	require.Len(t, thread, 3)
	assert.Equal(t, []string{root, ts1, ts2}, []string{thread[0].TS, thread[1].TS, thread[2].TS})
	assert.Equal(t, root, thread[2].ThreadTS, "a reply to a reply joins the root's thread")
	got := thread[1]
	assert.Equal(t, "Root cause found (final)", got.Text)
	assert.JSONEq(t, `[{"type":"header","text":{"type":"plain_text","text":"Root cause found","emoji":false}}]`, string(got.Blocks),
		"blocks not sent with an update are kept")
	assert.Equal(t, 2, got.Edits)
	assert.Equal(t, DefaultBotID, got.BotID)

	ups := srv.Updates("C0INCIDENT", ts1)
	require.Len(t, ups, 2)
	assert.Equal(t, "Root cause found", ups[0].Text)
	assert.False(t, ups[1].Time.Before(ups[0].Time))
	assert.Equal(t, ups[1].Time.Sub(ups[0].Time), srv.MinUpdateInterval("C0INCIDENT", ts1))

	updates := srv.Calls("chat.update")
	require.Len(t, updates, 2)
	assert.Equal(t, ts1, updates[0].Param("ts"))
	assert.Equal(t, "Root cause found", updates[0].Param("text"))
	assert.JSONEq(t, `[{"type":"header","text":{"type":"plain_text","text":"Root cause found","emoji":false}}]`, updates[0].Param("blocks"))
	assert.True(t, updates[0].OK())

	entries := srv.opts.Transcript.Filter("slack")
	require.NotEmpty(t, entries)
	assert.Equal(t, "chat.postMessage", entries[0].Method)
	assert.NotContains(t, transcript.String(), srv.BotToken(), "the transcript never holds a token")
	assert.Contains(t, transcript.String(), `"method":"chat.update"`)
}

func TestChatValidation(t *testing.T) {
	srv := newServer(t, Options{Channels: []Channel{{ID: "C0INCIDENT", Name: "incidents"}}, StrictChannels: true})
	api := newAPI(srv)
	ctx := testCtx(t)
	_, ts, err := api.PostMessageContext(ctx, "C0INCIDENT", slack.MsgOptionText("hi", false))
	require.NoError(t, err)
	user := srv.PostUserMessage("C0INCIDENT", "U0ALICE", "mine", "")

	tests := []struct {
		name    string
		call    func() error
		wantErr string
	}{
		{"missing channel", func() error {
			_, _, err := api.PostMessageContext(ctx, "", slack.MsgOptionText("x", false))
			return err
		}, "channel_not_found"},
		{"unknown channel when strict", func() error {
			_, _, err := api.PostMessageContext(ctx, "C0OTHER", slack.MsgOptionText("x", false))
			return err
		}, "channel_not_found"},
		{"no text nor blocks", func() error { _, _, err := api.PostMessageContext(ctx, "C0INCIDENT"); return err }, "no_text"},
		{"text too long", func() error {
			_, _, err := api.PostMessageContext(ctx, "C0INCIDENT", slack.MsgOptionText(strings.Repeat("x", 40_001), false))
			return err
		}, "msg_too_long"},
		{"section text over 3000", func() error {
			_, _, err := api.PostMessageContext(ctx, "C0INCIDENT", slack.MsgOptionBlocks(
				slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, strings.Repeat("x", 3001), false, false), nil, nil)))
			return err
		}, "invalid_blocks"},
		{"update unknown ts", func() error {
			_, _, _, err := api.UpdateMessageContext(ctx, "C0INCIDENT", "1.000001", slack.MsgOptionText("x", false))
			return err
		}, "message_not_found"},
		{"update a user's message", func() error {
			_, _, _, err := api.UpdateMessageContext(ctx, "C0INCIDENT", user, slack.MsgOptionText("x", false))
			return err
		}, "cant_update_message"},
		{"update without content", func() error {
			_, _, _, err := api.UpdateMessageContext(ctx, "C0INCIDENT", ts)
			return err
		}, "no_text"},
		{"invalid thread_ts", func() error {
			_, _, err := api.PostMessageContext(ctx, "C0INCIDENT", slack.MsgOptionText("x", false), slack.MsgOptionTS("yesterday"))
			return err
		}, "invalid_thread_ts"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			var se slack.SlackErrorResponse
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tc.wantErr, se.Err)
		})
	}

	// Invalid JSON in blocks, sent the way slack-go sends blocks (a form field).
	status, body := rawCall(t, srv, "chat.postMessage", url.Values{"channel": {"C0INCIDENT"}, "blocks": {`[{"type":`}}, srv.BotToken())
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "invalid_blocks", body["error"])
	status, body = rawCall(t, srv, "chat.postMessage", url.Values{"channel": {"C0INCIDENT"}, "blocks": {`[{"type":"header","text":{"type":"mrkdwn","text":"x"}}]`}}, srv.BotToken())
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "invalid_blocks", body["error"])
	assert.Contains(t, body["errors"], "must be plain_text [json-pointer:/blocks/0/text/type]")
}

func TestJSONBodiesAreAccepted(t *testing.T) {
	srv := newServer(t, Options{})
	payload := `{"channel":"C0INCIDENT","text":"from json","blocks":[{"type":"divider"}],"reply_broadcast":true,"thread_ts":"1700000000.000100"}`
	req, err := http.NewRequestWithContext(testCtx(t), http.MethodPost, srv.APIURL()+"chat.postMessage", strings.NewReader(payload))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("Authorization", "Bearer "+srv.BotToken())
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var body struct {
		OK      bool          `json:"ok"`
		TS      string        `json:"ts"`
		Message slack.Message `json:"message"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	require.True(t, body.OK)
	assert.Equal(t, "from json", body.Message.Text)
	assert.Equal(t, "1700000000.000100", body.Message.ThreadTimestamp)
	m, ok := srv.Message("C0INCIDENT", body.TS)
	require.True(t, ok)
	assert.True(t, m.ReplyBroadcast)
	assert.JSONEq(t, `[{"type":"divider"}]`, string(m.Blocks))
	assert.Equal(t, "true", srv.Calls("chat.postMessage")[0].Param("reply_broadcast"))
}

func TestRateLimitInjection(t *testing.T) {
	srv := newServer(t, Options{})
	api := newAPI(srv)
	ctx := testCtx(t)
	srv.RateLimit("chat.update", 1, 2*time.Second)
	srv.FailMethod("chat.postMessage", 1, "ratelimited")

	_, _, err := api.PostMessageContext(ctx, "C0INCIDENT", slack.MsgOptionText("x", false))
	var se slack.SlackErrorResponse
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "ratelimited", se.Err)
	_, ts, err := api.PostMessageContext(ctx, "C0INCIDENT", slack.MsgOptionText("x", false))
	require.NoError(t, err, "the fault applied once")

	_, _, _, err = api.UpdateMessageContext(ctx, "C0INCIDENT", ts, slack.MsgOptionText("y", false))
	var rl *slack.RateLimitedError
	require.True(t, errors.As(err, &rl), "%T %v", err, err)
	assert.Equal(t, 2*time.Second, rl.RetryAfter)
	_, _, _, err = api.UpdateMessageContext(ctx, "C0INCIDENT", ts, slack.MsgOptionText("y", false))
	require.NoError(t, err)

	calls := srv.Calls("chat.update")
	require.Len(t, calls, 2)
	assert.Equal(t, http.StatusTooManyRequests, calls[0].Status)
	assert.Equal(t, "ratelimited", calls[0].Error)
	assert.Len(t, srv.Updates("C0INCIDENT", ts), 1, "only the accepted update is stored")

	srv.FailMethod("auth.test", 0, "internal_error")
	for range 3 {
		_, err = api.AuthTestContext(ctx)
		assert.EqualError(t, err, "internal_error", "until cleared")
	}
	srv.ClearFaults("auth.test")
	_, err = api.AuthTestContext(ctx)
	assert.NoError(t, err)
}

func TestEphemeralDeletePermalinkReactions(t *testing.T) {
	srv := newServer(t, Options{TeamDomain: "acme"})
	api := newAPI(srv)
	ctx := testCtx(t)
	root := srv.PostUserMessage("C0INCIDENT", "U0ALICE", "help", "")

	_, err := api.PostEphemeralContext(ctx, "C0INCIDENT", "U0ALICE", slack.MsgOptionText("only for you", false), slack.MsgOptionTS(root))
	require.NoError(t, err)
	eph := srv.Ephemerals("C0INCIDENT", "U0ALICE")
	require.Len(t, eph, 1)
	assert.Equal(t, "only for you", eph[0].Text)
	assert.Equal(t, root, eph[0].ThreadTS)
	assert.Empty(t, srv.Ephemerals("C0INCIDENT", "U0BOB"))
	assert.Len(t, srv.Thread("C0INCIDENT", root), 1, "ephemerals are not thread messages")

	_, ts, err := api.PostMessageContext(ctx, "C0INCIDENT", slack.MsgOptionTS(root), slack.MsgOptionText("reply", false))
	require.NoError(t, err)
	link, err := api.GetPermalinkContext(ctx, &slack.PermalinkParameters{Channel: "C0INCIDENT", Ts: ts})
	require.NoError(t, err)
	assert.Equal(t, "https://acme.slack.com/archives/C0INCIDENT/p"+strings.ReplaceAll(ts, ".", "")+"?thread_ts="+root+"&cid=C0INCIDENT", link)

	require.NoError(t, api.AddReactionContext(ctx, "eyes", slack.ItemRef{Channel: "C0INCIDENT", Timestamp: root}))
	assert.EqualError(t, api.AddReactionContext(ctx, "eyes", slack.ItemRef{Channel: "C0INCIDENT", Timestamp: root}), "already_reacted")
	m, _ := srv.Message("C0INCIDENT", root)
	assert.Equal(t, []Reaction{{Name: "eyes", Users: []string{DefaultBotUserID}}}, m.Reactions)

	_, _, err = api.DeleteMessageContext(ctx, "C0INCIDENT", ts)
	require.NoError(t, err)
	assert.Len(t, srv.Thread("C0INCIDENT", root), 1)
	_, _, err = api.DeleteMessageContext(ctx, "C0INCIDENT", ts)
	assert.EqualError(t, err, "message_not_found")
}

func TestRepliesUsersGroupsAndConversationInfo(t *testing.T) {
	srv := newServer(t, Options{
		Users:      []User{{ID: "U0ALICE", Name: "alice", RealName: "Alice Example", Email: "alice@example.com"}},
		UserGroups: map[string][]string{"S0ONCALL": {"U0ALICE", "U0BOB"}},
		Channels:   []Channel{{ID: "C0INCIDENT", Name: "incidents"}},
	})
	api := newAPI(srv)
	ctx := testCtx(t)
	root := srv.PostUserMessage("C0INCIDENT", "U0ALICE", "root", "")
	for _, text := range []string{"one", "two", "three"} {
		_, _, err := api.PostMessageContext(ctx, "C0INCIDENT", slack.MsgOptionTS(root), slack.MsgOptionText(text, false))
		require.NoError(t, err)
	}

	var texts []string
	params := &slack.GetConversationRepliesParameters{ChannelID: "C0INCIDENT", Timestamp: root, Limit: 3}
	msgs, more, cursor, err := api.GetConversationRepliesContext(ctx, params)
	require.NoError(t, err)
	assert.True(t, more)
	for _, m := range msgs {
		texts = append(texts, m.Text)
	}
	params.Cursor = cursor
	msgs, more, _, err = api.GetConversationRepliesContext(ctx, params)
	require.NoError(t, err)
	assert.False(t, more)
	for _, m := range msgs {
		texts = append(texts, m.Text)
	}
	assert.Equal(t, []string{"root", "one", "two", "three"}, texts)
	_, _, _, err = api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{ChannelID: "C0INCIDENT", Timestamp: "1.000002"})
	assert.EqualError(t, err, "thread_not_found")

	u, err := api.GetUserInfoContext(ctx, "U0ALICE")
	require.NoError(t, err)
	assert.Equal(t, "alice", u.Name)
	assert.Equal(t, "Alice Example", u.RealName)
	assert.Equal(t, "alice@example.com", u.Profile.Email)
	_, err = api.GetUserInfoContext(ctx, "U0NOBODY")
	assert.EqualError(t, err, "user_not_found")

	members, err := api.GetUserGroupMembersContext(ctx, "S0ONCALL")
	require.NoError(t, err)
	assert.Equal(t, []string{"U0ALICE", "U0BOB"}, members)
	_, err = api.GetUserGroupMembersContext(ctx, "S0NOPE")
	assert.EqualError(t, err, "no_such_subteam")

	info, err := api.GetConversationInfoContext(ctx, &slack.GetConversationInfoInput{ChannelID: "C0INCIDENT"})
	require.NoError(t, err)
	assert.Equal(t, "incidents", info.Name)
	_, err = api.GetConversationInfoContext(ctx, &slack.GetConversationInfoInput{ChannelID: "not-a-channel"})
	assert.EqualError(t, err, "channel_not_found")
}

func TestFileUploadInAThread(t *testing.T) {
	srv := newServer(t, Options{})
	api := newAPI(srv)
	ctx := testCtx(t)
	root := srv.PostUserMessage("C0INCIDENT", "U0ALICE", "logs?", "")
	content := "line 1\nline 2\n"
	sum, err := api.UploadFileContext(ctx, slack.UploadFileParameters{
		Filename: "evidence.txt", Title: "Evidence", Content: content, FileSize: len(content),
		Channel: "C0INCIDENT", ThreadTimestamp: root, InitialComment: "Full evidence attached",
	})
	require.NoError(t, err)
	files := srv.Files()
	require.Len(t, files, 1)
	assert.Equal(t, sum.ID, files[0].ID)
	assert.Equal(t, content, string(files[0].Content))
	assert.Equal(t, "Evidence", files[0].Title)
	assert.True(t, files[0].Completed)

	thread := srv.Thread("C0INCIDENT", root)
	require.Len(t, thread, 2)
	assert.Equal(t, "Full evidence attached", thread[1].Text)
	require.Len(t, thread[1].Files, 1)
	assert.Equal(t, "evidence.txt", thread[1].Files[0].Name)
	replies, _, _, err := api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{ChannelID: "C0INCIDENT", Timestamp: root})
	require.NoError(t, err)
	require.Len(t, replies, 2)
	require.Len(t, replies[1].Files, 1)
	assert.Equal(t, sum.ID, replies[1].Files[0].ID)
	assert.Equal(t, "Evidence", replies[1].Files[0].Title)

	_, err = api.GetUploadURLExternalContext(ctx, slack.GetUploadURLExternalParameters{FileName: "huge.bin", FileSize: 64 << 20})
	assert.EqualError(t, err, "file_too_large")
	_, err = api.GetUploadURLExternalContext(ctx, slack.GetUploadURLExternalParameters{FileName: "chart.png", FileSize: 10, AltTxt: strings.Repeat("é", 1001)})
	assert.EqualError(t, err, "alt_txt_too_large", "Slack's own error for alt text past 1000 characters")
	_, err = api.GetUploadURLExternalContext(ctx, slack.GetUploadURLExternalParameters{FileName: "chart.png", FileSize: 10, AltTxt: strings.Repeat("é", 1000)})
	assert.NoError(t, err, "1000 characters of alt text are accepted")
	_, err = api.CompleteUploadExternalContext(ctx, slack.CompleteUploadExternalParameters{Files: []slack.FileSummary{{ID: sum.ID}}, Channel: "C0INCIDENT"})
	assert.EqualError(t, err, "file_not_found", "a file is shared once")
}

func TestSlashCommandResponseURL(t *testing.T) {
	srv := newServer(t, Options{})
	api := newAPI(srv)
	in, err := srv.SlashCommand(SlashCommandOptions{Channel: "C0INCIDENT", User: "U0ALICE", Text: "status"})
	require.NoError(t, err)

	_, _, err = api.PostMessageContext(testCtx(t), "", slack.MsgOptionResponseURL(in.ResponseURL, slack.ResponseTypeEphemeral), slack.MsgOptionText("2 investigations running", false))
	require.NoError(t, err)
	eph := srv.Ephemerals("C0INCIDENT", "U0ALICE")
	require.Len(t, eph, 1)
	assert.Equal(t, "2 investigations running", eph[0].Text)
	assert.Equal(t, "response_url", eph[0].Source)

	_, _, err = api.PostMessageContext(testCtx(t), "", slack.MsgOptionResponseURL(in.ResponseURL, slack.ResponseTypeInChannel), slack.MsgOptionText("for everyone", false))
	require.NoError(t, err)
	msgs := srv.Messages("C0INCIDENT")
	require.Len(t, msgs, 1)
	assert.Equal(t, "for everyone", msgs[0].Text)

	for range 3 {
		_, _, err = api.PostMessageContext(testCtx(t), "", slack.MsgOptionResponseURL(in.ResponseURL, slack.ResponseTypeEphemeral), slack.MsgOptionText("again", false))
		require.NoError(t, err)
	}
	_, _, err = api.PostMessageContext(testCtx(t), "", slack.MsgOptionResponseURL(in.ResponseURL, slack.ResponseTypeEphemeral), slack.MsgOptionText("sixth", false))
	assert.Error(t, err, "a response URL serves five responses")
	calls := srv.Calls("response_url")
	require.Len(t, calls, 6)
	assert.Equal(t, "used_url", calls[5].Error)
}

func TestViewsValidationAndUpdate(t *testing.T) {
	srv := newServer(t, Options{})
	api := newAPI(srv)
	ctx := testCtx(t)
	title := func(s string) *slack.TextBlockObject {
		return slack.NewTextBlockObject(slack.PlainTextType, s, false, false)
	}
	modal := slack.ModalViewRequest{Type: slack.VTModal, Title: title("Config"), CallbackID: "config",
		Blocks: slack.Blocks{BlockSet: []slack.Block{slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, "hi", false, false), nil, nil)}}}

	_, err := api.OpenViewContext(ctx, "123.456.abc", modal)
	assert.EqualError(t, err, "invalid_trigger_id")

	long := modal
	long.Title = title(strings.Repeat("t", 25))
	_, err = api.OpenViewContext(ctx, srv.NewTrigger("U0ALICE"), long)
	var se slack.SlackErrorResponse
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "invalid_arguments", se.Err)
	assert.Contains(t, se.ResponseMetadata.Messages, "[ERROR] must be less than 25 characters [json-pointer:/view/title/text]")

	resp, err := api.OpenViewContext(ctx, srv.NewTrigger("U0ALICE"), modal)
	require.NoError(t, err)
	updated := modal
	updated.PrivateMetadata = "v2"
	_, err = api.UpdateViewContext(ctx, updated, "", "stale-hash", resp.View.ID)
	assert.EqualError(t, err, "hash_conflict")
	_, err = api.UpdateViewContext(ctx, updated, "", resp.View.Hash, resp.View.ID)
	require.NoError(t, err)
	views := srv.Views()
	require.Len(t, views, 1)
	assert.Equal(t, "v2", views[0].PrivateMetadata)
	assert.Equal(t, "views.update", views[0].Method)
	assert.Equal(t, 1, views[0].Updates)

	pushed, err := api.PushViewContext(ctx, srv.NewTrigger("U0ALICE"), modal)
	require.NoError(t, err)
	assert.Equal(t, resp.View.ID, pushed.View.RootViewID)
	assert.Equal(t, resp.View.ID, pushed.View.PreviousViewID)
}

func TestTriggersExpire(t *testing.T) {
	srv := newServer(t, Options{TriggerTTL: time.Millisecond})
	api := newAPI(srv)
	trig := srv.NewTrigger("U0ALICE")
	time.Sleep(5 * time.Millisecond) // outlive the 1 ms trigger
	_, err := api.OpenViewContext(testCtx(t), trig, slack.ModalViewRequest{Type: slack.VTModal,
		Title:  slack.NewTextBlockObject(slack.PlainTextType, "x", false, false),
		Blocks: slack.Blocks{BlockSet: []slack.Block{slack.NewDividerBlock()}}})
	assert.EqualError(t, err, "expired_trigger_id")
}

func TestValidateBlocks(t *testing.T) {
	tests := []struct {
		name, blocks, want string
	}{
		{"ok", `[{"type":"header","text":{"type":"plain_text","text":"Hi"}},{"type":"divider"}]`, ""},
		{"not an array", `{"type":"divider"}`, "must be an array of objects"},
		{"missing type", `[{}]`, "missing required field: type [json-pointer:/blocks/0/type]"},
		{"unknown type", `[{"type":"carousel_of_doom"}]`, "unsupported type: carousel_of_doom"},
		{"header too long", `[{"type":"header","text":{"type":"plain_text","text":"` + strings.Repeat("h", 151) + `"}}]`, "must be less than 151 characters [json-pointer:/blocks/0/text/text]"},
		{"empty section", `[{"type":"section"}]`, "must provide either text or fields"},
		{"too many fields", `[{"type":"section","fields":[` + strings.TrimSuffix(strings.Repeat(`{"type":"mrkdwn","text":"f"},`, 11), ",") + `]}]`, "no more than 10 items allowed [json-pointer:/blocks/0/fields]"},
		{"duplicate block_id", `[{"type":"divider","block_id":"a"},{"type":"divider","block_id":"a"}]`, `block_id "a" is not unique`},
		{"button text too long", `[{"type":"actions","elements":[{"type":"button","action_id":"a","text":{"type":"plain_text","text":"` + strings.Repeat("b", 76) + `"}}]}]`, "must be less than 76 characters [json-pointer:/blocks/0/elements/0/text/text]"},
		{"bad style", `[{"type":"actions","elements":[{"type":"button","action_id":"a","style":"loud","text":{"type":"plain_text","text":"b"}}]}]`, "must be one of primary, danger"},
		{"duplicate action_id in a block", `[{"type":"actions","elements":[{"type":"button","action_id":"a","text":{"type":"plain_text","text":"b"}},{"type":"button","action_id":"a","text":{"type":"plain_text","text":"c"}}]}]`, `action_id "a" is not unique`},
		{"empty context", `[{"type":"context","elements":[]}]`, "must have between 1 and 10 items"},
		{"image without alt", `[{"type":"image","image_url":"https://x/y.png"}]`, "alt_text"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			problems := validateBlocks(json.RawMessage(tc.blocks), maxMsgBlocks, "/blocks")
			if tc.want == "" {
				assert.Empty(t, problems)
				return
			}
			require.NotEmpty(t, problems)
			assert.Contains(t, strings.Join(problems, "\n"), tc.want)
		})
	}
	var many []string
	for range maxMsgBlocks + 1 {
		many = append(many, `{"type":"divider"}`)
	}
	assert.Contains(t, validateBlocks(json.RawMessage("["+strings.Join(many, ",")+"]"), maxMsgBlocks, "/blocks"), "no more than 50 items allowed [json-pointer:/blocks]")
}

func TestLimitsAndRegistration(t *testing.T) {
	srv := newServer(t, Options{StrictChannels: true, Limits: Limits{MaxMessages: 2, MaxRecords: 8}})
	api := newAPI(srv)
	ctx := testCtx(t)
	srv.AddChannel(Channel{ID: "C0OPS", Name: "ops"})
	srv.AddChannel(Channel{}) // ignored
	srv.AddUser(User{ID: "U0CAROL", Name: "carol"})
	u, err := api.GetUserInfoContext(ctx, "U0CAROL")
	require.NoError(t, err)
	assert.Equal(t, "carol", u.Name)

	for range 2 {
		_, _, err := api.PostMessageContext(ctx, "C0OPS", slack.MsgOptionText("x", false))
		require.NoError(t, err)
	}
	_, _, err = api.PostMessageContext(ctx, "C0OPS", slack.MsgOptionText("x", false))
	assert.EqualError(t, err, "sim_store_full", "the message store is bounded")

	calls, err := srv.WaitCalls(ctx, "chat.postMessage", 3)
	require.NoError(t, err)
	assert.Len(t, calls, 3)
	for range 10 {
		_, err := api.AuthTestContext(ctx)
		require.NoError(t, err)
	}
	assert.LessOrEqual(t, len(srv.Calls()), 8, "recorded calls are bounded")
	assert.Equal(t, "auth.test", srv.Calls()[len(srv.Calls())-1].Method, "the newest are kept")

	// Deliveries are bounded too, without losing a newer redelivery.
	eventID, _ := srv.Mention("C0OPS", "U0CAROL", "one", "")
	for range 8 {
		_, err := srv.Redeliver(eventID, 0, "")
		require.NoError(t, err)
	}
	ds := srv.Deliveries()
	assert.LessOrEqual(t, len(ds), 8)
	last, err := srv.Redeliver(eventID, 0, "")
	require.NoError(t, err)
	assert.Equal(t, ds[len(ds)-1].RetryAttempt+1, last.RetryAttempt)
}

// conversations.history lists the channel's top-level messages newest
// first, within oldest/latest; metadata comes back only when asked for, in
// history and in replies alike.
func TestHistoryAndMetadata(t *testing.T) {
	srv := newServer(t, Options{})
	api := newAPI(srv)
	ctx := testCtx(t)
	md := slack.MsgOptionMetadata(slack.SlackMetadata{EventType: "autoheal_post", EventPayload: map[string]any{"key": "k1"}})
	_, first, err := api.PostMessageContext(ctx, "C0INCIDENT", slack.MsgOptionText("first", false))
	require.NoError(t, err)
	_, second, err := api.PostMessageContext(ctx, "C0INCIDENT", slack.MsgOptionText("second", false), md)
	require.NoError(t, err)
	_, reply, err := api.PostMessageContext(ctx, "C0INCIDENT", slack.MsgOptionTS(second), slack.MsgOptionText("a reply", false), md)
	require.NoError(t, err)

	h, err := api.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{ChannelID: "C0INCIDENT"})
	require.NoError(t, err)
	require.Len(t, h.Messages, 2, "replies are not in the channel's history")
	assert.Equal(t, []string{second, first}, []string{h.Messages[0].Timestamp, h.Messages[1].Timestamp}, "newest first")
	assert.Empty(t, h.Messages[0].Metadata.EventType, "no metadata unless asked")

	h, err = api.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{ChannelID: "C0INCIDENT", Oldest: first, IncludeAllMetadata: true})
	require.NoError(t, err)
	require.Len(t, h.Messages, 1, "oldest is exclusive")
	assert.Equal(t, "autoheal_post", h.Messages[0].Metadata.EventType)
	assert.Equal(t, "k1", h.Messages[0].Metadata.EventPayload["key"])

	msgs, _, _, err := api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{ChannelID: "C0INCIDENT", Timestamp: second, IncludeAllMetadata: true})
	require.NoError(t, err)
	require.Len(t, msgs, 2)
	assert.Equal(t, reply, msgs[1].Timestamp)
	assert.Equal(t, "k1", msgs[1].Metadata.EventPayload["key"])

	_, err = api.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{ChannelID: "C0INCIDENT", Oldest: "yesterday"})
	assert.ErrorContains(t, err, "invalid_ts_oldest")
}
