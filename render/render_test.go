package render

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/config"
	"github.com/autoheal/autoheal/investigate"
)

// actionIDs lists the action_id of every button in m, in order.
func actionIDs(m Message) []string {
	var ids []string
	for _, b := range m.Blocks {
		if a, ok := b.(*slack.ActionBlock); ok && a.Elements != nil {
			for _, e := range a.Elements.ElementSet {
				if btn, ok := e.(*slack.ButtonBlockElement); ok {
					ids = append(ids, btn.ActionID)
				}
			}
		}
	}
	return ids
}

// allText is every string Slack would receive for v, as JSON.
func allText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// mrkdwnTexts concatenates only the mrkdwn texts of m (and its fallback),
// the parts Slack parses for links and mentions.
func mrkdwnTexts(t *testing.T, m Message) string {
	t.Helper()
	var sb strings.Builder
	sb.WriteString(m.Text + "\n")
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["type"] == "mrkdwn" {
				sb.WriteString(fmt.Sprint(v["text"]) + "\n")
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	var doc any
	require.NoError(t, json.Unmarshal([]byte(allText(t, m)), &doc))
	walk(doc)
	return sb.String()
}

// blockTexts concatenates the mrkdwn/plain text of a message's blocks.
func blockTexts(m Message) string {
	var sb strings.Builder
	var walk func(b slack.Block)
	walk = func(b slack.Block) {
		switch b := b.(type) {
		case *slack.SectionBlock:
			if b.Text != nil {
				sb.WriteString(b.Text.Text + "\n")
			}
			for _, f := range b.Fields {
				sb.WriteString(f.Text + "\n")
			}
		case *slack.HeaderBlock:
			sb.WriteString(b.Text.Text + "\n")
		case *slack.ContextBlock:
			for _, e := range b.ContextElements.Elements {
				if tx, ok := e.(*slack.TextBlockObject); ok {
					sb.WriteString(tx.Text + "\n")
				}
			}
		}
	}
	for _, b := range m.Blocks {
		walk(b)
	}
	for _, a := range m.Attachments {
		for _, b := range a.Blocks.BlockSet {
			walk(b)
		}
	}
	return sb.String()
}

func TestBadgePerBand(t *testing.T) {
	cases := []struct {
		band         investigate.Band
		emoji, word  string
		color        string
		notContained string
	}{
		{investigate.BandHigh, ":large_green_circle:", "*HIGH*", ColorHigh, "LOW"},
		{investigate.BandMedium, ":large_orange_circle:", "*MEDIUM*", ColorMedium, "HIGH"},
		{investigate.BandLow, ":white_circle:", "*LOW*", ColorLow, "HIGH"},
		{"", ":white_circle:", "*LOW*", ColorLow, "MEDIUM"},
		{"VERY HIGH", ":white_circle:", "*LOW*", ColorLow, "VERY"}, // unknown bands never look confident
	}
	for _, c := range cases {
		t.Run(string(c.band), func(t *testing.T) {
			b := Badge(c.band)
			assert.Contains(t, b, c.emoji)
			assert.Contains(t, b, c.word)
			assert.NotContains(t, b, c.notContained)
			assert.Equal(t, c.color, BandColor(c.band))

			r := codeBugResult()
			r.RootCause.Band = c.band
			r.RootCause.ClaimedBand = c.band
			res, err := Result(r, ResultOptions{Action: action, ColorBar: true})
			require.NoError(t, err)
			assert.Contains(t, blockTexts(res.Main), "*Confidence*\n"+c.emoji+" "+c.word)
			require.Len(t, res.Main.Attachments, 1)
			assert.Equal(t, c.color, res.Main.Attachments[0].Color)
		})
	}
}

func TestClampedBandShowsClaim(t *testing.T) {
	res, err := Result(oomResult(), ResultOptions{})
	require.NoError(t, err)
	assert.Contains(t, blockTexts(res.Main), ":large_orange_circle: *MEDIUM* _(claimed HIGH)_")

	res, err = Result(codeBugResult(), ResultOptions{})
	require.NoError(t, err)
	assert.NotContains(t, blockTexts(res.Main), "claimed")
}

// A result the evidence cannot settle carries the badge, the reason and
// the other explanations with their evidence.
func TestNeedsHumanShowsBadgeAndAlternatives(t *testing.T) {
	r := codeBugResult()
	r.RootCause.Band = investigate.BandMedium
	r.NeedsHuman, r.NeedsHumanReason = true, "timeout in cart scores almost as high (91%)"
	r.Alternatives = []investigate.Alternative{{RootCause: investigate.RootCause{Service: "cart", ErrorType: investigate.ErrTimeout,
		Bucket: investigate.BucketInfrastructure, File: "deploy/cart.yaml", Line: 12, Band: investigate.BandMedium, Description: "Timeout in cart."},
		Planner: investigate.ModeDeterministic, Note: "timeout in cart scores almost as high (91%)", Evidence: []investigate.Finding{{Quote: "context deadline exceeded"}}}}
	res, err := Result(r, ResultOptions{Action: action, RepoWebURL: webBase})
	require.NoError(t, err)
	text := blockTexts(res.Main)
	assert.Contains(t, text, NeedsHumanBadge+" — timeout in cart scores almost as high (91%). *Also possible*")
	assert.Contains(t, text, "Infrastructure: Timeout in cart (`deploy/cart.yaml:12`)")
	assert.Contains(t, text, "`context deadline exceeded`")
	assert.True(t, strings.HasPrefix(res.Main.Text, "Needs a human — "), res.Main.Text)
	mustValid(t, res)

	r.NeedsHuman = false
	res, err = Result(r, ResultOptions{Action: action})
	require.NoError(t, err)
	assert.NotContains(t, blockTexts(res.Main), NeedsHumanBadge)
}

func TestButtonsFollowApproval(t *testing.T) {
	thread := []string{ActionReinvestigate, ActionConfigure}
	cases := []struct {
		name      string
		approval  ApprovalView
		issue     bool
		wantIDs   []string
		wantText  []string
		forbidden []string
	}{
		{
			name:     "eligible pending",
			approval: ApprovalView{Eligible: true},
			wantIDs:  append([]string{ActionApprove, ActionReject, ActionViewPatch}, thread...),
			wantText: []string{"*Approve* to open a pull request"},
		},
		{
			name:      "ineligible shows the note and no approval buttons",
			approval:  ApprovalView{Note: "Patch does not apply cleanly: hunk 1 failed at line 134"},
			wantIDs:   thread,
			wantText:  []string{":no_entry_sign: Patch does not apply cleanly: hunk 1 failed at line 134"},
			forbidden: []string{"*Approve*"},
		},
		{
			name:     "flake offers an issue instead",
			approval: ApprovalView{Note: "Flakes get a report, not a PR"},
			issue:    true,
			wantIDs:  append([]string{ActionCreateIssue}, thread...),
			wantText: []string{"Flakes get a report, not a PR"},
		},
		{
			name:     "opening",
			approval: ApprovalView{Eligible: true, State: ApprovalOpening, By: "U0ONCALL"},
			wantIDs:  thread,
			wantText: []string{"Approved by <@U0ONCALL> — opening a pull request…"},
		},
		{
			name:      "approved shows who and the PR",
			approval:  ApprovalView{Eligible: true, State: ApprovalApproved, By: "U0ONCALL", PRURL: "https://github.com/acme/astronomy-shop/pull/42"},
			issue:     true,
			wantIDs:   thread,
			wantText:  []string{":white_check_mark: Approved by <@U0ONCALL>", "<https://github.com/acme/astronomy-shop/pull/42|acme/astronomy-shop#42>"},
			forbidden: []string{"Review the fix"},
		},
		{
			name:     "rejected shows who and why, escaped",
			approval: ApprovalView{Eligible: true, State: ApprovalRejected, By: "U0ONCALL", RejectReason: "wrong <file> & wrong line"},
			wantIDs:  thread,
			wantText: []string{":x: Rejected by <@U0ONCALL>: wrong &lt;file&gt; &amp; wrong line"},
		},
		{
			name:     "a different fix for an open pull request offers its update",
			approval: ApprovalView{Eligible: true, UpdatePR: 7},
			wantIDs:  append([]string{ActionApprove, ActionReject, ActionViewPatch}, thread...),
			wantText: []string{"This fix differs from the one in pull request #7", "*Update pull request #7* to add it there as one commit"},
		},
		{
			name:     "a regression after a merged pull request offers a new one",
			approval: ApprovalView{Eligible: true, Previous: 5, PreviousState: "merged"},
			wantIDs:  append([]string{ActionApprove, ActionReject, ActionViewPatch}, thread...),
			wantText: []string{"Pull request #5 was merged and the incident came back", "*Approve* to open a new pull request"},
		},
		{
			name:     "approved update",
			approval: ApprovalView{Eligible: true, State: ApprovalApproved, By: "U0ONCALL", UpdatePR: 42, Updated: true, PRURL: "https://github.com/acme/astronomy-shop/pull/42"},
			wantIDs:  thread,
			wantText: []string{":white_check_mark: Approved by <@U0ONCALL> — pull request updated: <https://github.com/acme/astronomy-shop/pull/42|acme/astronomy-shop#42>"},
		},
		{
			name:     "failed PR offers a retry",
			approval: ApprovalView{Eligible: true, State: ApprovalFailed, By: "jane", Error: "403 forbidden: token lacks pull_requests:write"},
			wantIDs:  append([]string{ActionApprove}, thread...),
			wantText: []string{"Approved by jane, but the pull request could not be opened: 403 forbidden"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Result(codeBugResult(), ResultOptions{Action: action, Approval: c.approval, CreateIssue: c.issue})
			require.NoError(t, err)
			assert.Equal(t, c.wantIDs, actionIDs(res.Main))
			text := blockTexts(res.Main)
			for _, w := range c.wantText {
				assert.Contains(t, text, w)
			}
			for _, f := range c.forbidden {
				assert.NotContains(t, text, f)
			}
			mustValid(t, res)
		})
	}
}

func TestButtonValuesRoundTrip(t *testing.T) {
	res, err := Result(codeBugResult(), ResultOptions{Action: action, Approval: ApprovalView{Eligible: true}})
	require.NoError(t, err)
	for _, b := range res.Main.Blocks {
		a, ok := b.(*slack.ActionBlock)
		if !ok {
			continue
		}
		for _, e := range a.Elements.ElementSet {
			got, err := DecodeActionValue(e.(*slack.ButtonBlockElement).Value)
			require.NoError(t, err)
			assert.Equal(t, action, got)
		}
	}
}

func TestViewPatchNeedsAChange(t *testing.T) {
	r := codeBugResult()
	r.Fix.Patch = nil
	res, err := Result(r, ResultOptions{Action: action, Approval: ApprovalView{Eligible: true}})
	require.NoError(t, err)
	assert.NotContains(t, actionIDs(res.Main), ActionViewPatch)
	assert.Contains(t, actionIDs(res.Main), ActionApprove)
}

func TestResultWithoutActionHasNoButtons(t *testing.T) {
	res, err := Result(codeBugResult(), ResultOptions{Approval: ApprovalView{Eligible: true}})
	require.NoError(t, err)
	assert.Empty(t, actionIDs(res.Main))

	_, err = Result(codeBugResult(), ResultOptions{Action: ActionValue{Channel: "not a channel", ThreadTS: "1.2"}})
	require.ErrorIs(t, err, ErrInvalidValue)

	_, err = Result(nil, ResultOptions{})
	require.NoError(t, err, "a nil result renders as inconclusive rather than panicking")
}

func TestSourceLinks(t *testing.T) {
	cases := []struct {
		name                  string
		base, repo, ref, file string
		line                  int
		want                  string
	}{
		{"github", "https://github.com", "acme/shop", "main", "src/ad/AdService.java", 137, "https://github.com/acme/shop/blob/main/src/ad/AdService.java#L137"},
		{"enterprise with slash and ref path", "https://ghe.acme.io/", "acme/shop", "release/2.1", "/deploy/cart.yaml", 42, "https://ghe.acme.io/acme/shop/blob/release/2.1/deploy/cart.yaml#L42"},
		{"default ref, no line", "https://github.com", "acme/shop", "", "README.md", 0, "https://github.com/acme/shop/blob/main/README.md"},
		{"escapes path characters", "https://github.com", "acme/shop", "main", "dir with space/a#b.go", 3, "https://github.com/acme/shop/blob/main/dir%20with%20space/a%23b.go#L3"},
		{"no base", "", "acme/shop", "main", "a.go", 1, ""},
		{"bad repo", "https://github.com", "acme/shop/extra", "main", "a.go", 1, ""},
		{"javascript base", "javascript:alert(1)", "acme/shop", "main", "a.go", 1, ""},
		{"path traversal", "https://github.com", "acme/shop", "main", "../../etc/passwd", 1, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, SourceURL(c.base, c.repo, c.ref, c.file, c.line))
		})
	}

	assert.Equal(t, "https://github.com", WebURLFromAPI(""))
	assert.Equal(t, "https://github.com", WebURLFromAPI("https://api.github.com/"))
	assert.Equal(t, "https://ghe.acme.io", WebURLFromAPI("https://ghe.acme.io/api/v3/"))
	assert.Equal(t, "", WebURLFromAPI("not a url"))

	// The result links file:line only when a web root is given.
	res, err := Result(codeBugResult(), ResultOptions{RepoWebURL: "https://ghe.acme.io", Ref: "v1.2.3"})
	require.NoError(t, err)
	assert.Contains(t, blockTexts(res.Main), "<https://ghe.acme.io/acme/astronomy-shop/blob/v1.2.3/"+adFile+"#L137|"+adFile+":137>")
	res, err = Result(codeBugResult(), ResultOptions{})
	require.NoError(t, err)
	assert.Contains(t, blockTexts(res.Main), "*Location*\n`"+adFile+":137`")
}

func TestUserTextIsEscaped(t *testing.T) {
	evil := "<!channel> boom & <https://evil.example|click> > here"
	r := codeBugResult()
	r.Summary = evil
	r.RootCause.Description = evil
	r.RootCause.Service = evil
	r.Evidence[0].Quote = evil
	r.Fix.Summary = evil
	r.Fix.Steps = []string{evil}
	r.ConfidenceNote = evil
	r.ToolsUnavailable[0].Reason = evil
	res, err := Result(r, ResultOptions{Action: action, Approval: ApprovalView{State: ApprovalRejected, RejectReason: evil, By: evil}})
	require.NoError(t, err)
	mustValid(t, res)
	for _, m := range append([]Message{res.Main}, res.FollowUps...) {
		all := mrkdwnTexts(t, m)
		assert.NotContains(t, all, "<!channel>")
		assert.NotContains(t, all, "<https://evil.example")
	}
	assert.Contains(t, blockTexts(res.Main), "&lt;!channel&gt; boom &amp; &lt;https://evil.example|click&gt; &gt; here")

	p, err := ProgressMessage(Progress{Title: evil, Hypothesis: evil, Steps: []Step{{Label: evil, Detail: evil, Status: StepFailed}}})
	require.NoError(t, err)
	mustValid(t, p)
	assert.NotContains(t, mrkdwnTexts(t, p), "<!channel>")

	a := AlertRoot(Alert{Name: evil, Severity: evil, Service: evil, Summary: evil, Description: evil, GeneratorURL: "https://x.example/?a=1&b=<2>"})
	mustValid(t, a)
	assert.NotContains(t, mrkdwnTexts(t, a), "<!channel>")
	assert.Contains(t, blockTexts(a), "<https://x.example/?a=1&amp;b=%3C2%3E|View source>")
}

func TestValidateReportsViolations(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	btn := func(mut func(*slack.ButtonBlockElement)) Message {
		b := slack.NewButtonBlockElement("a", "v", plainText("ok"))
		mut(b)
		return Message{Text: "t", Blocks: []slack.Block{slack.NewActionBlock("", b)}}
	}
	many := func(n int, mk func() slack.Block) []slack.Block {
		out := make([]slack.Block, n)
		for i := range out {
			out[i] = mk()
		}
		return out
	}
	fields := func(n, size int) Message {
		fs := make([]*slack.TextBlockObject, n)
		for i := range fs {
			fs[i] = mrkdwn(long(size))
		}
		return Message{Text: "t", Blocks: []slack.Block{slack.NewSectionBlock(nil, fs, nil)}}
	}
	ctx := make([]string, 11)
	for i := range ctx {
		ctx[i] = "x"
	}
	elems := make([]slack.MixedElement, 11)
	for i := range elems {
		elems[i] = mrkdwn("x")
	}
	buttons := make([]slack.BlockElement, 26)
	for i := range buttons {
		buttons[i] = slack.NewButtonBlockElement(fmt.Sprintf("a%d", i), "v", plainText("b"))
	}
	cases := []struct {
		name string
		msg  Message
		want string
	}{
		{"too many blocks", Message{Text: "t", Blocks: many(51, func() slack.Block { return slack.NewDividerBlock() })}, "blocks: 51 blocks, limit 50"},
		{"section text", Message{Text: "t", Blocks: []slack.Block{section(long(3001))}}, "block 0 (section) text: text is 3001 characters, limit 3000"},
		{"header", Message{Text: "t", Blocks: []slack.Block{slack.NewHeaderBlock(plainText(long(151)))}}, "block 0 (header) text: text is 151 characters, limit 150"},
		{"header must be plain", Message{Text: "t", Blocks: []slack.Block{slack.NewHeaderBlock(mrkdwn("x"))}}, "must be plain_text"},
		{"field count", fields(11, 1), "11 fields, limit 10"},
		{"field length", fields(2, 2001), "block 0 (section) field 1: text is 2001 characters, limit 2000"},
		{"context elements", Message{Text: "t", Blocks: []slack.Block{slack.NewContextBlock("", elems...)}}, "11 elements, limit 10"},
		{"actions elements", Message{Text: "t", Blocks: []slack.Block{slack.NewActionBlock("", buttons...)}}, "26 elements, limit 25"},
		{"button text", btn(func(b *slack.ButtonBlockElement) { b.Text.Text = long(76) }), "text is 76 characters, limit 75"},
		{"button value", btn(func(b *slack.ButtonBlockElement) { b.Value = long(2001) }), "value is 2001 characters, limit 2000"},
		{"button url", btn(func(b *slack.ButtonBlockElement) { b.URL = "https://x.io/" + long(3000) }), "url is 3013 characters, limit 3000"},
		{"action id", btn(func(b *slack.ButtonBlockElement) { b.ActionID = long(256) }), "action_id is 256 characters, limit 255"},
		{"block id", Message{Text: "t", Blocks: []slack.Block{slack.NewDividerBlock()}}, ""},
		{"block id too long", Message{Text: "t", Blocks: []slack.Block{slack.NewSectionBlock(mrkdwn("x"), nil, nil, slack.SectionBlockOptionBlockID(long(256)))}}, "block_id is 256 characters, limit 255"},
		{"empty fallback", Message{Blocks: []slack.Block{section("x")}}, "fallback text is empty"},
		{"fallback too long", Message{Text: long(40001)}, "fallback text is 40001 characters, limit 40000"},
		{"unescaped ampersand", Message{Text: "t", Blocks: []slack.Block{section("a & b")}}, "unescaped '&' at offset 2"},
		{"unescaped angle", Message{Text: "t", Blocks: []slack.Block{section("a < b")}}, "unescaped '<'"},
		{"not a link", Message{Text: "t", Blocks: []slack.Block{section("<script>")}}, "not a link or mention"},
		{"broadcast", Message{Text: "hey <!channel>"}, "broadcast mention <!channel>"},
		{"raw gt", Message{Text: "a > b"}, "unescaped '>'"},
		{"total text", Message{Text: "t", Blocks: many(5, func() slack.Block { return section(long(2500)) })}, "12500 characters of text in total, limit 10000"},
		{"input in a message", Message{Text: "t", Blocks: []slack.Block{slack.NewInputBlock("i", plainText("l"), nil, slack.NewPlainTextInputBlockElement(nil, "a"))}}, "input blocks belong in modals"},
		{"duplicate block ids", Message{Text: "t", Blocks: []slack.Block{
			slack.NewSectionBlock(mrkdwn("x"), nil, nil, slack.SectionBlockOptionBlockID("b")),
			slack.NewSectionBlock(mrkdwn("y"), nil, nil, slack.SectionBlockOptionBlockID("b")),
		}}, `block 1 (section "b"): duplicate block_id`},
		{"duplicate action ids", Message{Text: "t", Blocks: []slack.Block{slack.NewActionBlock("", slack.NewButtonBlockElement("a", "", plainText("x")), slack.NewButtonBlockElement("a", "", plainText("y")))}}, "duplicate action_id"},
		{"oversized upload", Message{Text: "t", Upload: &Upload{Filename: "a.diff", Content: long(MaxUploadBytes + 1)}}, "upload: content is"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Validate(c.msg)
			if c.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Contains(t, err.Error(), c.want)
		})
	}
	// Allowed control sequences pass.
	require.NoError(t, Validate(Message{Text: "ok", Blocks: []slack.Block{section("> quote\n<@U123> <#C123> <https://x.io|x> <!date^1^{time}|t> &amp; &lt; &gt;")}}))
}

func TestValidateModalReportsViolations(t *testing.T) {
	base := func() slack.ModalViewRequest {
		v, err := RejectModal(action.Meta())
		require.NoError(t, err)
		return v
	}
	cases := []struct {
		name string
		mut  func(*slack.ModalViewRequest)
		want string
	}{
		{"title", func(v *slack.ModalViewRequest) { v.Title = plainText(strings.Repeat("t", 25)) }, "title: text is 25 characters, limit 24"},
		{"submit", func(v *slack.ModalViewRequest) { v.Submit = plainText(strings.Repeat("s", 25)) }, "submit: text is 25 characters, limit 24"},
		{"no submit with input", func(v *slack.ModalViewRequest) { v.Submit = nil }, "needs a submit button"},
		{"metadata", func(v *slack.ModalViewRequest) { v.PrivateMetadata = strings.Repeat("m", 3001) }, "private_metadata is 3001 characters, limit 3000"},
		{"blocks", func(v *slack.ModalViewRequest) {
			for range 100 {
				v.Blocks.BlockSet = append(v.Blocks.BlockSet, slack.NewDividerBlock())
			}
		}, "101 blocks, limit 100 per modal"},
		{"placeholder", func(v *slack.ModalViewRequest) {
			v.Blocks.BlockSet[0].(*slack.InputBlock).Element.(*slack.PlainTextInputBlockElement).Placeholder = plainText(strings.Repeat("p", 151))
		}, "placeholder: text is 151 characters, limit 150"},
		{"label", func(v *slack.ModalViewRequest) {
			v.Blocks.BlockSet[0].(*slack.InputBlock).Label = plainText(strings.Repeat("l", 2001))
		}, "label: text is 2001 characters, limit 2000"},
	}
	require.NoError(t, ValidateModal(base()))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := base()
			c.mut(&v)
			err := ValidateModal(v)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

// TestBuildersStayWithinLimits feeds every builder pathological input and
// requires output that Slack accepts.
func TestBuildersStayWithinLimits(t *testing.T) {
	for _, diff := range []int{0, 20 << 10, 1 << 20, 6 << 20} {
		for _, bar := range []bool{false, true} {
			t.Run(fmt.Sprintf("result diff=%d colorbar=%v", diff, bar), func(t *testing.T) {
				r := hugeResult(diff)
				if diff == 0 {
					r.Fix.Patch = nil
				}
				for _, a := range []ApprovalView{
					{Eligible: true},
					{Note: strings.Repeat("<note> ", 5000)},
					{State: ApprovalRejected, By: strings.Repeat("b", 5000), RejectReason: strings.Repeat("<r>", 5000)},
					{State: ApprovalApproved, By: "U1", PRURL: "https://github.com/" + strings.Repeat("p", 5000)},
				} {
					res, err := Result(r, ResultOptions{
						RepoWebURL: webBase, Ref: strings.Repeat("r", 5000), Approval: a, Action: action, CreateIssue: true,
						ThreadLink: "https://acme.slack.com/" + strings.Repeat("l", 4000), ColorBar: bar,
					})
					require.NoError(t, err)
					mustValid(t, res)
					assert.LessOrEqual(t, len(res.FollowUps), MaxFollowUps)
					assert.NotContains(t, allText(t, res), "s3cr3t-token-value")
				}
			})
		}
	}

	t.Run("progress", func(t *testing.T) {
		steps := StepsFromReceipts(hugeResult(0).Timeline)
		require.Len(t, steps, 200)
		m, err := ProgressMessage(Progress{Title: strings.Repeat("<t>", 10000), Steps: steps, Hypothesis: strings.Repeat("h&", 10000), Elapsed: 1000 * time.Hour, Action: &action})
		require.NoError(t, err)
		mustValid(t, m)
		assert.Contains(t, blockTexts(m), "_… 189 steps earlier: ")
	})
	t.Run("alert", func(t *testing.T) {
		big := strings.Repeat("<a&b>", 5000)
		a := Alert{Name: big, Severity: big, Service: big, Namespace: big, Summary: big, Description: big, GeneratorURL: "https://x.io/" + big, StartsAt: t0, Resolved: true, EndsAt: t0.Add(time.Hour), FireCount: 1 << 30, LastFired: t0}
		mustValid(t, AlertRoot(a))
		mustValid(t, AlertResolvedReply(a))
	})
	t.Run("status and acks", func(t *testing.T) {
		settings := Settings{}
		for _, k := range config.Keys {
			settings[k.Name] = Setting{Value: strings.Repeat("v<", 3000), Source: Source(strings.Repeat("s", 500))}
		}
		for i := range 500 {
			settings[fmt.Sprintf("unknown_%d", i)] = Setting{Value: "x"}
		}
		var caps []CapabilityStatus
		var dls []DeadLetter
		for range 300 {
			caps = append(caps, CapabilityStatus{Family: "custom", Reason: strings.Repeat("r", 5000)})
			dls = append(dls, DeadLetter{JobID: strings.Repeat("j", 500), Issue: strings.Repeat("i", 5000), Reason: strings.Repeat("<r>", 5000), At: t0})
		}
		var hosts []string
		for i := range 300 {
			hosts = append(hosts, fmt.Sprintf("%d.%s.internal", i, strings.Repeat("h", 200)))
		}
		trust := &TrustView{Admins: slices.Repeat([]string{"<@U0ADMIN>"}, 2000), AllowedHosts: hosts, AllowedRepos: hosts}
		big := Status(StatusView{Settings: settings, Capabilities: caps, Planner: strings.Repeat("p", 5000), QueueDepth: 1 << 30, DeadLetters: dls, DeadLetterCount: 1 << 20, Trust: trust})
		mustValid(t, big)
		assert.Contains(t, blockTexts(big), "… and 1990 more", "long lists are cut with a count")
		assert.Contains(t, blockTexts(big), "… and 290 more")
		saved := map[string]string{}
		for i := range 500 {
			saved[fmt.Sprintf("key_%d", i)] = strings.Repeat("s", 100)
		}
		mustValid(t, ConfigSaved(SavedAck{Saved: saved, Scope: strings.Repeat("x", 1000), FromMessage: true}))
		mustValid(t, ConfigErrors([]string{strings.Repeat("<e>", 5000), "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"}))
		m, err := MissingCredential(strings.Repeat("k", 5000), nil)
		require.NoError(t, err)
		mustValid(t, m)
		mustValid(t, Help(HelpOptions{}))
	})
	t.Run("config modal", func(t *testing.T) {
		settings := Settings{}
		for _, k := range config.Keys {
			settings[k.Name] = Setting{Value: strings.Repeat("v", 5000), Source: SourceEnv}
		}
		m := action.Meta()
		m.IssueKey = strings.Repeat("k", maxIssueKey)
		v, err := ConfigModal(settings, m)
		require.NoError(t, err)
		mustValid(t, v)
	})
}

// TestEmptyInputs: zero values render valid messages rather than empty
// blocks Slack would reject.
func TestEmptyInputs(t *testing.T) {
	res, err := Result(&investigate.HealResult{}, ResultOptions{})
	require.NoError(t, err)
	mustValid(t, res)
	assert.Equal(t, "No root cause found yet", res.Main.Blocks[0].(*slack.HeaderBlock).Text.Text)
	p, err := ProgressMessage(Progress{})
	require.NoError(t, err)
	mustValid(t, p)
	for _, a := range []Alert{{}, {Resolved: true}} {
		mustValid(t, AlertRoot(a))
		mustValid(t, AlertResolvedReply(a))
	}
	mustValid(t, Status(StatusView{}))
	mustValid(t, ConfigSaved(SavedAck{}))
	mustValid(t, ConfigErrors(nil))
	m, err := MissingCredential("", nil)
	require.NoError(t, err)
	mustValid(t, m)
	assert.Nil(t, PatchMessages(&investigate.HealResult{}, true))
	assert.Nil(t, TimelineMessages(&investigate.HealResult{}))
}

func TestPatchFollowUps(t *testing.T) {
	t.Run("medium diff is split into code blocks that rebuild it", func(t *testing.T) {
		r := hugeResult(20 << 10)
		r.Fix.RegressionTest = ""
		msgs := PatchMessages(r, false)
		require.Greater(t, len(msgs), 1, "20 KB does not fit one message")
		fence := regexp.MustCompile("(?s)```\n(.*?)\n```")
		var chunks []string
		for _, m := range msgs {
			require.Nil(t, m.Upload)
			require.NoError(t, Validate(m))
			for _, b := range m.Blocks {
				if s, ok := b.(*slack.SectionBlock); ok {
					for _, g := range fence.FindAllStringSubmatch(s.Text.Text, -1) {
						chunks = append(chunks, g[1])
					}
				}
			}
		}
		want := codeBody(strings.TrimRight(r.Fix.Patch.Diff, "\n"))
		// Over-long lines were split into pieces on separate lines; compare without newlines.
		assert.Equal(t, strings.ReplaceAll(want, "\n", ""), strings.ReplaceAll(strings.Join(chunks, ""), "\n", ""))
		assert.Contains(t, msgs[0].Text, "Patch for")
		assert.Contains(t, msgs[len(msgs)-1].Text, fmt.Sprintf("(%d/%d)", len(msgs), len(msgs)))
	})
	t.Run("large diff becomes an upload", func(t *testing.T) {
		r := hugeResult(1 << 20)
		msgs := PatchMessages(r, false)
		require.NotEmpty(t, msgs)
		u := msgs[0].Upload
		require.NotNil(t, u)
		assert.Equal(t, r.Fix.Patch.Diff, u.Content, "raw diff, not mrkdwn-escaped")
		assert.False(t, u.Truncated)
		assert.Equal(t, "diff", u.SnippetType)
		assert.True(t, strings.HasSuffix(u.Filename, ".diff"))
		assert.Regexp(t, `^autoheal-[A-Za-z0-9._-]+\.diff$`, u.Filename)
		p := u.Params("C0INCIDENT", "1764497400.000900")
		assert.Equal(t, len(u.Content), p.FileSize)
		assert.Equal(t, "1764497400.000900", p.ThreadTimestamp)
	})
	t.Run("huge diff is truncated with a marker", func(t *testing.T) {
		r := hugeResult(6 << 20)
		u := PatchMessages(r, false)[0].Upload
		require.NotNil(t, u)
		assert.True(t, u.Truncated)
		assert.LessOrEqual(t, len(u.Content), MaxUploadBytes)
		assert.Contains(t, u.Content, "… truncated: the diff is")
	})
	t.Run("view patch shows the whole proposal", func(t *testing.T) {
		r := codeBugResult()
		assert.Nil(t, PatchMessages(r, false), "the diff and test are inline already")
		msgs := PatchMessages(r, true)
		require.Len(t, msgs, 2)
		assert.Contains(t, blockTexts(msgs[0]), "+        allAds = getRandomAds();")
		assert.Contains(t, blockTexts(msgs[1]), "void getAdsWithoutContextKeys()")
	})
	t.Run("small diff stays inline", func(t *testing.T) {
		res, err := Result(codeBugResult(), ResultOptions{OmitTimeline: true})
		require.NoError(t, err)
		assert.Contains(t, blockTexts(res.Main), "+      if (req == null || req.getContextKeysCount() == 0) {")
		for _, m := range res.FollowUps {
			assert.NotContains(t, m.Text, "Patch for", "inline patch must not be repeated")
		}
	})
}

func TestFollowUps(t *testing.T) {
	res, err := Result(hugeResult(0), ResultOptions{})
	require.NoError(t, err)
	var evidence, timeline int
	for _, m := range res.FollowUps {
		switch {
		case strings.HasPrefix(m.Text, "All evidence"):
			evidence++
		case strings.HasPrefix(m.Text, "Timeline"):
			timeline++
		}
	}
	assert.Equal(t, followUpEvidenceMsgs, evidence)
	assert.Equal(t, followUpTimelineMsgs, timeline)
	assert.Contains(t, blockTexts(res.Main), "*Evidence* (top 5 of 500 — all in the thread)")
	last := res.FollowUps[len(res.FollowUps)-1]
	assert.Contains(t, blockTexts(last), "not shown", "cut follow-ups say so")

	res, err = Result(codeBugResult(), ResultOptions{OmitTimeline: true})
	require.NoError(t, err)
	for _, m := range res.FollowUps {
		assert.False(t, strings.HasPrefix(m.Text, "Timeline"))
	}
	assert.Nil(t, EvidenceMessages(oomResult()), "three findings fit in the main message")
}

func TestStepsFromReceipts(t *testing.T) {
	rs := []investigate.Receipt{
		{Seq: 3, Family: investigate.FamilyLogs, Tool: "query_logs", OK: false, ErrorKind: investigate.ErrKindUnauthorized, Error: "401"},
		{Seq: 1, Family: investigate.FamilyTraces, Tool: "search_traces", OK: true, Summary: "12 error traces in ad", Duration: 1500 * time.Millisecond},
		{Seq: 2, Family: investigate.FamilyMetrics, Tool: "error_rate", OK: false, ErrorKind: investigate.ErrKindTimeout},
		{Seq: 4, Family: investigate.FamilyMCP, Tool: "pods_list", OK: false, ErrorKind: investigate.ErrKindToolError, Error: "namespace\n\"shop\" not found"},
	}
	got := StepsFromReceipts(rs)
	want := []Step{
		{Label: "Traces: 12 error traces in ad", Detail: "1.5s", Status: StepOK},
		{Label: "Metrics: error_rate", Detail: "timed out", Status: StepFailed},
		{Label: "Logs: query_logs", Detail: "401 unauthorized", Status: StepFailed},
		{Label: "MCP: pods_list", Detail: "failed: namespace \"shop\" not found", Status: StepFailed},
	}
	assert.Equal(t, want, got)
	assert.Equal(t, investigate.FamilyLogs, rs[0].Family, "input order is left alone")

	m, err := ProgressMessage(Progress{Title: "x", Steps: got})
	require.NoError(t, err)
	text := blockTexts(m)
	assert.Contains(t, text, "✓ Traces: 12 error traces in ad · 1.5s")
	assert.Contains(t, text, "✗ Logs: query_logs — 401 unauthorized")
	assert.Contains(t, m.Text, "(1 done, 3 failed, 0ms)")
}

func TestProgressConfigureButton(t *testing.T) {
	m, err := ProgressMessage(Progress{Title: "x"})
	require.NoError(t, err)
	assert.Empty(t, actionIDs(m))
	m, err = ProgressMessage(Progress{Title: "x", Action: &action})
	require.NoError(t, err)
	assert.Equal(t, []string{ActionConfigure}, actionIDs(m))
	_, err = ProgressMessage(Progress{Title: "x", Action: &ActionValue{Channel: "C1"}})
	require.ErrorIs(t, err, ErrInvalidValue)
}

func TestSecretsNeverRendered(t *testing.T) {
	const planted = "PLANTED-secret-9f8e7d6c5b4a"
	settings := Settings{}
	for _, k := range config.Keys {
		if k.Secret {
			settings[k.Name] = Setting{Value: planted + k.Name, Source: SourceThread}
		}
	}
	settings["jaeger_url"] = Setting{Value: "https://svc:" + planted + "@jaeger.acme.io/?api_key=" + planted, Source: SourceChannel}
	settings["future_secret_key"] = Setting{Value: planted, Source: SourceEnv}
	settings["repo"] = Setting{Value: "acme/shop", Source: SourceEnv}

	modal, err := ConfigModal(settings, action.Meta())
	require.NoError(t, err)
	mustValid(t, modal)
	status := Status(StatusView{Settings: settings})
	mustValid(t, status)
	saved := map[string]string{"github_token": planted + "x", "loki_token": planted + "y", "repo": "acme/shop", "future_secret_key": planted}
	ack := ConfigSaved(SavedAck{Saved: saved, FromMessage: true})
	mustValid(t, ack)

	for name, v := range map[string]any{"modal": modal, "status": status, "ack": ack} {
		out := allText(t, v)
		assert.NotContains(t, out, planted, name)
		assert.NotContains(t, out, "PLANTED", name)
	}
	assert.Contains(t, blockTexts(status), "`github_token` ••••en _(thread)_", "masked with config.Mask")
	assert.Contains(t, blockTexts(status), "`future_secret_key` ••••5b4a"[:len("`future_secret_key` ••••")], "unknown keys are masked")
	assert.Contains(t, blockTexts(status), "`https://••••@jaeger.acme.io/?api_key=••••`")
	assert.Contains(t, blockTexts(status), "`repo` `acme/shop` _(environment)_", "non-secret values are shown")
	assert.Contains(t, ack.Text, "Please delete your message: it contains a secret.")

	// A secret typed through the slash command is not visible: no warning.
	ack = ConfigSaved(SavedAck{Saved: map[string]string{"github_token": planted}, Scope: "this channel"})
	assert.Equal(t, "github_token saved ("+config.Mask(planted)+") for this channel.", ack.Text)
	ack = ConfigSaved(SavedAck{Saved: map[string]string{"repo": "a/b"}, FromMessage: true})
	assert.Equal(t, "Saved repo for this thread.", ack.Text)

	// Secret inputs are never pre-filled; the placeholder says whether one is set.
	for _, b := range modal.Blocks.BlockSet {
		in, ok := b.(*slack.InputBlock)
		if !ok {
			continue
		}
		el := in.Element.(*slack.PlainTextInputBlockElement)
		switch in.BlockID {
		case ConfigBlockID("github_token"):
			assert.Empty(t, el.InitialValue)
			assert.Equal(t, "set — leave empty to keep", el.Placeholder.Text)
		case ConfigBlockID("jaeger_url"):
			assert.Empty(t, el.InitialValue, "URLs with credentials are not echoed")
		case ConfigBlockID("repo"):
			assert.Equal(t, "acme/shop", el.InitialValue)
		case ConfigBlockID("prometheus_url"):
			assert.Equal(t, "not set", el.Placeholder.Text)
		}
	}
}

func TestConfigModalGroupsEveryKey(t *testing.T) {
	v, err := ConfigModal(nil, action.Meta())
	require.NoError(t, err)
	assert.Equal(t, CallbackConfig, v.CallbackID)
	meta, err := DecodeMeta(v.PrivateMetadata)
	require.NoError(t, err)
	assert.Equal(t, action.Meta(), meta)

	var headers []string
	inputs := map[string]bool{}
	for _, b := range v.Blocks.BlockSet {
		switch b := b.(type) {
		case *slack.HeaderBlock:
			headers = append(headers, b.Text.Text)
		case *slack.InputBlock:
			assert.True(t, b.Optional, b.BlockID)
			inputs[b.BlockID] = true
		}
	}
	assert.Equal(t, []string{"Repository", "Traces", "Logs", "Metrics", "GitHub", "Kubernetes"}, headers)
	for _, k := range config.Keys {
		assert.True(t, inputs[ConfigBlockID(k.Name)], k.Name)
	}
}

func TestParseConfigSubmission(t *testing.T) {
	state := &slack.ViewState{Values: map[string]map[string]slack.BlockAction{
		ConfigBlockID("repo"):         {"repo": {Value: " acme/shop "}},
		ConfigBlockID("ref"):          {"ref": {Value: "main"}}, // unchanged pre-filled value
		ConfigBlockID("loki_url"):     {"loki_url": {Value: "not-a-url-secretish"}},
		ConfigBlockID("github_token"): {"github_token": {Value: "ghp_newSecretValue"}},
		ConfigBlockID("loki_token"):   {"loki_token": {Value: "   "}},
		ConfigBlockID("jaeger_url"):   {"jaeger_url": {Value: strings.Repeat("x", MaxInputValue+1)}},
		"cfg_bogus":                   {"bogus": {Value: "x"}},
		"other_block":                 {"repo": {Value: "evil/repo"}},
	}}
	sub := ParseConfigSubmission(state, Settings{"ref": {Value: "main", Source: SourceChannel}})
	assert.Equal(t, map[string]string{"repo": "acme/shop", "github_token": "ghp_newSecretValue"}, sub.Values)
	require.Len(t, sub.Errors, 2)
	assert.Contains(t, sub.Errors[ConfigBlockID("loki_url")], "must be an http(s) URL")
	assert.NotContains(t, sub.Errors[ConfigBlockID("loki_url")], "secretish", "errors never echo values")
	assert.Contains(t, sub.Errors[ConfigBlockID("jaeger_url")], "too long")

	empty := ParseConfigSubmission(nil, nil)
	assert.Empty(t, empty.Values)
	assert.Empty(t, empty.Errors)
}

func TestRejectModal(t *testing.T) {
	m := action.Meta()
	m.MessageTS = "1764497999.000100"
	v, err := RejectModal(m)
	require.NoError(t, err)
	assert.Equal(t, CallbackRejectReason, v.CallbackID)
	got, err := DecodeMeta(v.PrivateMetadata)
	require.NoError(t, err)
	assert.Equal(t, m, got)

	_, err = RejectModal(Meta{Channel: "C1X"})
	require.ErrorIs(t, err, ErrInvalidValue)

	state := func(s string) *slack.ViewState {
		return &slack.ViewState{Values: map[string]map[string]slack.BlockAction{rejectBlockID: {rejectActionID: {Value: s}}}}
	}
	reason, err := ParseRejectReason(state("  wrong file\u202e  "))
	require.NoError(t, err)
	assert.Equal(t, "wrong file", reason, "trimmed and bidi controls removed")
	for name, st := range map[string]*slack.ViewState{
		"nil": nil, "missing": {}, "blank": state("   "), "too long": state(strings.Repeat("r", maxRejectReason+1)),
	} {
		_, err := ParseRejectReason(st)
		assert.ErrorIs(t, err, ErrInvalidValue, name)
	}
}

func TestActionValue(t *testing.T) {
	s, err := action.Encode()
	require.NoError(t, err)
	assert.LessOrEqual(t, len(s), MaxButtonValue)
	got, err := DecodeActionValue(s)
	require.NoError(t, err)
	assert.Equal(t, action, got)

	odd := ActionValue{IssueKey: "alertname=HighErrorRate&service=ad|ns/shop ✓", Channel: "G01AB", ThreadTS: "1.2"}
	s, err = odd.Encode()
	require.NoError(t, err)
	got, err = DecodeActionValue(s)
	require.NoError(t, err)
	assert.Equal(t, odd, got)

	for name, v := range map[string]ActionValue{
		"no channel":       {ThreadTS: "1.2"},
		"bad channel":      {Channel: "general", ThreadTS: "1.2"},
		"bad ts":           {Channel: "C123", ThreadTS: "yesterday"},
		"bad job":          {Channel: "C123", ThreadTS: "1.2", JobID: "a b"},
		"control in key":   {Channel: "C123", ThreadTS: "1.2", IssueKey: "a\nb"},
		"issue key length": {Channel: "C123", ThreadTS: "1.2", IssueKey: strings.Repeat("k", maxIssueKey+1)},
	} {
		_, err := v.Encode()
		assert.ErrorIs(t, err, ErrInvalidValue, name)
	}
	for name, s := range map[string]string{
		"empty":         "",
		"no version":    "c=C123&t=1.2",
		"v2":            "v2:c=C123&t=1.2",
		"unknown field": "v1:c=C123&t=1.2&x=1",
		"repeated":      "v1:c=C123&c=C456&t=1.2",
		"bad escape":    "v1:c=C123&t=1.2&k=%zz",
		"invalid":       "v1:c=general&t=1.2",
		"oversized":     "v1:c=C123&t=1.2&k=" + strings.Repeat("k", MaxButtonValue),
	} {
		_, err := DecodeActionValue(s)
		assert.ErrorIs(t, err, ErrInvalidValue, name)
	}
}

func TestMeta(t *testing.T) {
	m := Meta{Channel: "C0INCIDENT", ThreadTS: "1764497400.000900", MessageTS: "1764497401.000100", JobID: "j-1", IssueKey: "k"}
	s, err := EncodeMeta(m)
	require.NoError(t, err)
	assert.JSONEq(t, `{"channel":"C0INCIDENT","thread_ts":"1764497400.000900","message_ts":"1764497401.000100","job_id":"j-1","issue_key":"k"}`, s)
	got, err := DecodeMeta(s)
	require.NoError(t, err)
	assert.Equal(t, m, got)

	for name, s := range map[string]string{
		"empty":          "",
		"not json":       "channel=C1",
		"unknown field":  `{"channel":"C0INCIDENT","thread_ts":"1.2","admin":true}`,
		"trailing":       `{"channel":"C0INCIDENT","thread_ts":"1.2"}{}`,
		"bad channel":    `{"channel":"#general","thread_ts":"1.2"}`,
		"bad message ts": `{"channel":"C0INCIDENT","thread_ts":"1.2","message_ts":"now"}`,
		"oversized":      `{"channel":"C0INCIDENT","thread_ts":"1.2","issue_key":"` + strings.Repeat("k", MaxPrivateMetadata) + `"}`,
	} {
		_, err := DecodeMeta(s)
		assert.ErrorIs(t, err, ErrInvalidValue, name)
	}
}

// TestMsgOptions sends a result through the real slack-go client to an
// httptest server and checks what arrives.
func TestMsgOptions(t *testing.T) {
	res, err := Result(oomResult(), ResultOptions{Action: action, ColorBar: true})
	require.NoError(t, err)

	var got url.Values
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err == nil {
			got, err = url.ParseQuery(string(body))
		}
		if err != nil || r.URL.Path != "/api/chat.postMessage" {
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"ok":true,"channel":"C0INCIDENT","ts":"1764497500.000100"}`)
	}))
	defer srv.Close()

	client := slack.New("xoxb-test", slack.OptionAPIURL(srv.URL+"/api/"))
	opts := append(res.Main.MsgOptions(), slack.MsgOptionTS(action.ThreadTS))
	_, ts, err := client.PostMessage("C0INCIDENT", opts...)
	require.NoError(t, err)
	assert.Equal(t, "1764497500.000100", ts)

	assert.Equal(t, res.Main.Text, got.Get("text"), "text is sent as rendered, not escaped twice")
	assert.Equal(t, action.ThreadTS, got.Get("thread_ts"))
	var blocks []map[string]any
	require.NoError(t, json.Unmarshal([]byte(got.Get("blocks")), &blocks))
	require.Len(t, blocks, len(res.Main.Blocks))
	assert.Equal(t, "header", blocks[0]["type"])
	var atts []map[string]any
	require.NoError(t, json.Unmarshal([]byte(got.Get("attachments")), &atts))
	require.Len(t, atts, 1)
	assert.Equal(t, ColorMedium, atts[0]["color"])
}

func TestTextHelpers(t *testing.T) {
	t.Run("escRaw never splits an entity", func(t *testing.T) {
		for max := 1; max < 40; max++ {
			got := escRaw("a&b<c>d&&&<<<>>>e", max)
			assert.LessOrEqual(t, textLen(got), max)
			require.NoError(t, Validate(Message{Text: got}), "max=%d got=%q", max, got)
		}
	})
	t.Run("truncate counts UTF-16 units", func(t *testing.T) {
		s := strings.Repeat("😀", 100) // 2 units each
		assert.Equal(t, 200, textLen(s))
		got := truncate(s, 75)
		assert.Equal(t, strings.Repeat("😀", 37)+ellipsis, got, "37 emoji (74 units) and the marker")
	})
	t.Run("tailTrunc keeps the end", func(t *testing.T) {
		assert.Equal(t, "…o/AdService.java:137", tailTrunc("src/ad/src/main/java/oteldemo/AdService.java:137", 21))
		assert.Equal(t, "short.go:1", tailTrunc("short.go:1", 21))
	})
	t.Run("inline code cannot be closed early", func(t *testing.T) {
		assert.Equal(t, "`a ˋbˋ c`", inlineCode("a `b`\n c", 50))
	})
	t.Run("code blocks cannot be closed early", func(t *testing.T) {
		got := codeBlock("x ``` y", 100)
		assert.Equal(t, 2, strings.Count(got, "```"), got)
	})
	t.Run("clean drops controls and bidi overrides", func(t *testing.T) {
		assert.Equal(t, "ab\ncd\te", clean("a\x00b\r\nc\u202ed\te\x7f"))
	})
	t.Run("formatting", func(t *testing.T) {
		assert.Equal(t, "12,345,678", thousands(12345678))
		assert.Equal(t, "-1,000", thousands(-1000))
		for d, want := range map[time.Duration]string{
			850 * time.Millisecond: "850ms", 8200 * time.Millisecond: "8.2s", 185 * time.Second: "3m 05s",
			130 * time.Minute: "2h 10m", 50 * time.Hour: "2d 02h", -time.Second: "0s",
		} {
			assert.Equal(t, want, FormatDuration(d))
		}
		assert.Equal(t, "acme/shop#42", shortPR("https://github.com/acme/shop/pull/42"))
		assert.Equal(t, "$0.0042", formatCost(0.0042))
		assert.Equal(t, "$1.50", formatCost(1.5))
	})
}

// A result shows the conclusions it does not lead with, and names the
// runbooks that applied; an alternative as well supported as the root
// cause is said to be so.
func TestAlternativesAndRunbooksAreShown(t *testing.T) {
	r := codeBugResult()
	r.Alternatives = []investigate.Alternative{{Planner: investigate.ModeLLM, Note: "the model's answer, less supported by the evidence",
		RootCause: investigate.RootCause{Service: "checkout", ErrorType: investigate.ErrTimeout, Bucket: investigate.BucketInfrastructure, Band: investigate.BandLow}}}
	r.Runbooks = []string{"payments-timeouts.md"}
	msgs, err := Result(r, ResultOptions{})
	require.NoError(t, err)
	require.NoError(t, Validate(msgs.Main))
	text := blockTexts(msgs.Main)
	assert.Contains(t, text, "*Also possible*")
	assert.Contains(t, text, "Infrastructure: Timeout in checkout")
	assert.Contains(t, text, "(model)")
	assert.Contains(t, text, "the model's answer, less supported by the evidence")
	assert.NotContains(t, text, "as well supported")
	assert.Contains(t, text, "Runbook: `payments-timeouts.md`")

	// A call a runbook's tools: hint asked for says so in the timeline.
	r.Timeline = append(r.Timeline, investigate.Receipt{Seq: len(r.Timeline) + 1, Family: investigate.FamilyMetrics, Tool: "metrics_query_range", OK: true,
		Summary: "1 series; highest 4.2", Runbook: "payments-timeouts.md#p99-latency"})
	tl := TimelineMessages(r)
	require.NotEmpty(t, tl)
	for _, m := range tl {
		require.NoError(t, Validate(m))
	}
	assert.Contains(t, blockTexts(tl[len(tl)-1]), "`metrics_query_range` — 1 series; highest 4.2 · 0ms _(runbook payments-timeouts.md#p99-latency)_")

	r.Alternatives[0].RootCause.Band = r.RootCause.Band
	msgs, err = Result(r, ResultOptions{})
	require.NoError(t, err)
	assert.Contains(t, blockTexts(msgs.Main), "as well supported as the root cause above")
}

// The Approve button of a fix for an open pull request says what it does,
// and its confirmation dialog names the pull request.
func TestUpdateButtonAndConfirmation(t *testing.T) {
	button := func(a ApprovalView) *slack.ButtonBlockElement {
		t.Helper()
		res, err := Result(codeBugResult(), ResultOptions{Action: action, Approval: a})
		require.NoError(t, err)
		mustValid(t, res)
		for _, b := range res.Main.Blocks {
			if ab, ok := b.(*slack.ActionBlock); ok {
				for _, e := range ab.Elements.ElementSet {
					if btn, ok := e.(*slack.ButtonBlockElement); ok && btn.ActionID == ActionApprove {
						return btn
					}
				}
			}
		}
		t.Fatal("no Approve button")
		return nil
	}
	b := button(ApprovalView{Eligible: true})
	assert.Equal(t, "Approve", b.Text.Text)
	assert.Equal(t, "Open a pull request?", b.Confirm.Title.Text)
	assert.Equal(t, "Open PR", b.Confirm.Confirm.Text)

	b = button(ApprovalView{Eligible: true, UpdatePR: 12})
	assert.Equal(t, "Update pull request #12", b.Text.Text)
	assert.Equal(t, "Update pull request #12?", b.Confirm.Title.Text)
	assert.Contains(t, b.Confirm.Text.Text, "push one commit with this change to the branch of pull request #12")
	assert.Equal(t, "Update PR", b.Confirm.Confirm.Text)

	b = button(ApprovalView{Eligible: true, UpdatePR: 12, State: ApprovalFailed, By: "U0ONCALL", Error: "rate limited"})
	assert.Equal(t, "Retry update of #12", b.Text.Text)
	assert.Equal(t, "Update pull request #12?", b.Confirm.Title.Text)
}
