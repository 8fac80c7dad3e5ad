package render

import (
	"fmt"
	"strings"

	"github.com/slack-go/slack"
)

// Consolidate packs follow-up messages into at most max messages: consecutive
// messages are merged (their blocks joined by a divider) while the result
// stays within Slack's limits, files stay messages of their own, and what
// still does not fit is left out with a note on the last message. Fewer
// messages mean fewer Web API calls: a result's follow-ups are part of an
// investigation's Slack call budget.
func Consolidate(msgs []Message, max int) []Message {
	if max <= 0 || len(msgs) == 0 {
		return nil
	}
	var out []Message
	for _, m := range msgs {
		if n := len(out); n > 0 && mergeable(out[n-1]) && mergeable(m) {
			if merged := merge(out[n-1], m); Validate(merged) == nil {
				out[n-1] = merged
				continue
			}
		}
		out = append(out, m)
	}
	if len(out) <= max {
		return out
	}
	left := len(out) - max
	out = out[:max]
	note := contextBlock(fmt.Sprintf("_%d more follow-up message(s) left out to keep within Slack's call budget; the timeline of tool calls is in the logs._", left))
	last := out[max-1]
	if mergeable(last) {
		withNote := last
		withNote.Blocks = append(append([]slack.Block(nil), last.Blocks...), note)
		if Validate(withNote) == nil {
			out[max-1] = withNote
		}
	}
	return out
}

// mergeable: a plain message of blocks (not a file, no attachments).
func mergeable(m Message) bool { return m.Upload == nil && len(m.Attachments) == 0 }

func merge(a, b Message) Message {
	blocks := make([]slack.Block, 0, len(a.Blocks)+len(b.Blocks)+1)
	blocks = append(blocks, a.Blocks...)
	blocks = append(blocks, slack.NewDividerBlock())
	blocks = append(blocks, b.Blocks...)
	text := strings.TrimSpace(a.Text + "\n" + b.Text)
	if len(text) > MaxMessageText {
		text = a.Text
	}
	return Message{Text: text, Blocks: blocks}
}
