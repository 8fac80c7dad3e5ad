package render

import (
	"fmt"

	"github.com/slack-go/slack"
)

// PullRequestLink is the pull request an approval opened or linked.
type PullRequestLink struct {
	URL    string
	Number int
	Title  string
	// SameFix is true when the pull request was opened for another
	// incident with the same change, and is linked instead of a duplicate.
	SameFix bool
}

// PullRequestLinkReply is the thread reply linking the pull request of an
// approved fix: "Pull request opened: <url|#N title>".
func PullRequestLinkReply(l PullRequestLink) Message {
	label := "pull request"
	if l.Number > 0 {
		label = fmt.Sprintf("#%d", l.Number)
	}
	if t := oneLine(bound(l.Title, 200)); t != "" {
		label += " " + t
	}
	lead, plainLead := "Pull request opened: ", "Pull request opened"
	if l.SameFix {
		lead, plainLead = "Pull request already open for the same change (opened for another incident): ", "Pull request already open for the same change"
	}
	s := lead + link(l.URL, label, 250)
	fallback := plainLead + ": " + escLine(label, 250)
	return Message{Text: fallback, Blocks: []slack.Block{section(s)}}
}
