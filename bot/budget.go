package bot

import "github.com/autoheal/autoheal/render"

// SlackCallBudget is the most Slack Web API calls one investigation makes
// in the normal course (retries after failures aside): the progress
// message, its live edits, the result, the evidence chart, the result's
// follow-ups and, in an alert thread, the root message's outcome. The
// shares below are derived from it, so that one number bounds them all.
const SlackCallBudget = 14

const (
	// followUpCalls is the result's follow-ups: at most two messages, or a
	// file (two calls: files.getUploadURLExternal and
	// files.completeUploadExternal) and a message.
	followUpCalls = 3
	// progressEdits is what is left for live progress: the budget less the
	// progress message, the final result edit, the chart, the follow-ups
	// and the alert root's outcome.
	progressEdits = SlackCallBudget - 1 - 1 - chartCalls - followUpCalls - 1
)

// callsOf is the Web API calls posting msgs takes.
func callsOf(msgs []render.Message) int {
	n := 0
	for _, m := range msgs {
		if m.Upload != nil {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// followUpsWithinBudget consolidates a result's follow-ups into at most two
// messages and keeps them within followUpCalls.
func followUpsWithinBudget(msgs []render.Message) []render.Message {
	out := render.Consolidate(msgs, 2)
	for len(out) > 0 && callsOf(out) > followUpCalls {
		out = out[:len(out)-1]
	}
	return out
}
