package slacksim

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func TestRenderThread(t *testing.T) {
	srv := newServer(t, Options{
		Users:    []User{{ID: "U0ALICE", Name: "alice", RealName: "Alice Example"}},
		Channels: []Channel{{ID: "C0INCIDENT", Name: "incidents"}},
	})
	api := newAPI(srv)
	ctx := testCtx(t)
	text := func(typ, s string) *slack.TextBlockObject { return slack.NewTextBlockObject(typ, s, false, false) }

	_, _ = srv.Mention("C0INCIDENT", "U0ALICE", "ad service is throwing errors since 10am", "")
	root := srv.Messages("C0INCIDENT")[0].TS
	require.NoError(t, api.AddReactionContext(ctx, "eyes", slack.ItemRef{Channel: "C0INCIDENT", Timestamp: root}))

	_, progress, err := api.PostMessageContext(ctx, "C0INCIDENT", slack.MsgOptionTS(root), slack.MsgOptionText("Investigating", false),
		slack.MsgOptionBlocks(slack.NewContextBlock("", text(slack.MarkdownType, ":hourglass_flowing_sand: Reading traces…"))))
	require.NoError(t, err)
	result := []slack.Block{
		slack.NewHeaderBlock(text(slack.PlainTextType, ":white_check_mark: Root cause found")),
		slack.NewSectionBlock(text(slack.MarkdownType,
			"*NullPointerException* in <https://github.com/acme/shop/blob/main/AdService.java#L155|AdService.java:155>\nasked by <@U0ALICE> in <#C0INCIDENT> &lt;ad&gt; &amp; co"), nil, nil),
		slack.NewSectionBlock(nil, []*slack.TextBlockObject{
			text(slack.MarkdownType, "*Service*\nad"), text(slack.MarkdownType, "*Confidence*\n:large_green_circle: HIGH"),
			text(slack.MarkdownType, "*Bucket*\ncode_bug"),
		}, nil),
		slack.NewDividerBlock(),
		slack.NewContextBlock("", text(slack.MarkdownType, "4 tools"), text(slack.PlainTextType, "12.3 s")),
		slack.NewActionBlock("decide",
			slack.NewButtonBlockElement("approve", "inc-1", text(slack.PlainTextType, "Approve")).WithStyle(slack.StylePrimary),
			slack.NewButtonBlockElement("reject", "inc-1", text(slack.PlainTextType, "Reject")),
			slack.NewOverflowBlockElement("more", slack.NewOptionBlockObject("mute", text(slack.PlainTextType, "Mute"), nil))),
	}
	_, _, _, err = api.UpdateMessageContext(ctx, "C0INCIDENT", progress, slack.MsgOptionText("Root cause found", false), slack.MsgOptionBlocks(result...))
	require.NoError(t, err)

	_, _, err = api.PostMessageContext(ctx, "C0INCIDENT", slack.MsgOptionTS(root), slack.MsgOptionText("", false),
		slack.MsgOptionAttachments(slack.Attachment{Color: "#d00000", Title: "Evidence", Text: "3 error spans", Fields: []slack.AttachmentField{{Title: "Trace", Value: "`4bf92f35`"}}}))
	require.NoError(t, err)
	content := "java.lang.NullPointerException\n\tat oteldemo.AdService.getAds(AdService.java:155)\n"
	_, err = api.UploadFileContext(ctx, slack.UploadFileParameters{Filename: "stack.txt", Content: content, FileSize: len(content), Channel: "C0INCIDENT", ThreadTimestamp: root})
	require.NoError(t, err)
	_, err = api.PostEphemeralContext(ctx, "C0INCIDENT", "U0ALICE", slack.MsgOptionTS(root), slack.MsgOptionText("Only approvers may merge", false))
	require.NoError(t, err)

	got := srv.RenderThread("C0INCIDENT", root)

	for _, want := range []string{
		"#incidents · thread",
		"alice (Alice Example)\n  @autoheal ad service is throwing errors since 10am\n  👀 1\n",
		"autoheal  APP  (edited)\n  ✅ Root cause found\n  ════",
		"*NullPointerException* in AdService.java:155 (https://github.com/acme/shop/blob/main/AdService.java#L155)",
		"asked by @alice in #incidents <ad> & co",
		"*Service*                         *Confidence*",
		"ad                                🟢 HIGH",
		"*Bucket*\n",
		"› 4 tools · 12.3 s",
		"[ Approve ]  [ Reject ]  [ ⋯ ]",
		"┃ Evidence\n  ┃ 3 error spans\n  ┃ Trace: `4bf92f35`",
		"📎 stack.txt (" + strconv.Itoa(len(content)) + " bytes)\n  │ java.lang.NullPointerException",
		"autoheal  APP  · only visible to alice\n  Only approvers may merge",
	} {
		assert.Contains(t, got, want)
	}
	assert.NotContains(t, got, "Reading traces", "an updated message shows its current content")
	assert.Less(t, strings.Index(got, "Root cause found"), strings.Index(got, "Evidence"), "messages in ts order")

	golden := filepath.Join("testdata", "render_thread.golden")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run go test ./sim/slack -run TestRenderThread -update to create it")
	assert.Equal(t, string(want), got)
}

func TestRenderEmptyAndTextOnlyThreads(t *testing.T) {
	srv := newServer(t, Options{})
	assert.Contains(t, srv.RenderThread("C0NONE", "1.000001"), "(no messages)")

	root := srv.PostUserMessage("C0INCIDENT", "U0BOB", "plain <!here> see <https://status.example.com> :unknown_emoji:", "")
	out := srv.RenderThread("C0INCIDENT", root)
	assert.Contains(t, out, "U0BOB\n  plain @here see https://status.example.com :unknown_emoji:\n")
}

func TestMrkdwnConversion(t *testing.T) {
	r := &renderer{
		users:    map[string]User{"U1": {ID: "U1", Name: "alice"}},
		channels: map[string]string{"C1": "incidents"},
	}
	tests := []struct{ in, want string }{
		{"<@U1>", "@alice"},
		{"<@U2|bob>", "@bob"},
		{"<@U9>", "@U9"},
		{"<#C1>", "#incidents"},
		{"<#C2|ops>", "#ops"},
		{"<!subteam^S1|@oncall>", "@oncall"},
		{"<!channel>", "@channel"},
		{"<!date^1392734382^{date}|Feb 18, 2014>", "Feb 18, 2014"},
		{"<https://x.io|docs>", "docs (https://x.io)"},
		{"<https://x.io>", "https://x.io"},
		{"a &lt;b&gt; &amp; c", "a <b> & c"},
		{":warning: :x: :nope:", "⚠️ ❌ :nope:"},
		{"time 10:20:30", "time 10:20:30"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, r.mrkdwn(tc.in), tc.in)
	}
}

func TestRenderRichTextAndInputs(t *testing.T) {
	r := &renderer{users: map[string]User{"U1": {ID: "U1", Name: "alice"}}, channels: map[string]string{"C1": "incidents"}}
	blocks := `[
	 {"type":"rich_text","elements":[
	  {"type":"rich_text_section","elements":[{"type":"user","user_id":"U1"},{"type":"text","text":" see "},{"type":"channel","channel_id":"C1"},{"type":"text","text":" "},{"type":"link","url":"https://x.io","text":"docs"},{"type":"emoji","name":"fire"}]},
	  {"type":"rich_text_preformatted","elements":[{"type":"text","text":"panic: nil map\ngoroutine 1"}]},
	  {"type":"rich_text_quote","elements":[{"type":"text","text":"quoted"}]},
	  {"type":"rich_text_list","style":"ordered","elements":[{"type":"rich_text_section","elements":[{"type":"text","text":"first"}]},{"type":"rich_text_section","elements":[{"type":"text","text":"second"}]}]}]},
	 {"type":"input","label":{"type":"plain_text","text":"Repository"},"element":{"type":"plain_text_input","action_id":"repo","placeholder":{"type":"plain_text","text":"owner/name"}}},
	 {"type":"input","label":{"type":"plain_text","text":"Band"},"element":{"type":"static_select","action_id":"band","initial_option":{"text":{"type":"plain_text","text":"High"},"value":"HIGH"},"options":[{"text":{"type":"plain_text","text":"High"},"value":"HIGH"}]}},
	 {"type":"section","text":{"type":"mrkdwn","text":"When"},"accessory":{"type":"datepicker","action_id":"d","initial_date":"2026-11-30"}},
	 {"type":"image","image_url":"https://x.io/a.png","alt_text":"error rate"},
	 {"type":"video"}
	]`
	got := strings.Join(r.blocks([]byte(blocks)), "\n")
	assert.Equal(t, strings.Join([]string{
		"@alice see #incidents docs (https://x.io)🔥",
		"│ panic: nil map",
		"│ goroutine 1",
		"> quoted",
		"1. first",
		"2. second",
		"Repository: [ owner/name ]",
		"Band: [ High ▾ ]",
		"When",
		"[ 2026-11-30 ]",
		"[image: error rate]",
		"[video block]",
	}, "\n"), got)
}
