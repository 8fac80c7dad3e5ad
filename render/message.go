package render

import (
	"github.com/slack-go/slack"
)

// Message is one Slack message as chat.postMessage / chat.update /
// chat.postEphemeral receive it. Text is the notification and accessibility
// fallback (mrkdwn, already escaped); Blocks carry the layout.
type Message struct {
	Text        string             `json:"text"`
	Blocks      []slack.Block      `json:"blocks,omitempty"`
	Attachments []slack.Attachment `json:"attachments,omitempty"`
	// Upload, when set, is content to send as a file (files.uploadV2) in the
	// same thread; Text and Blocks then introduce it.
	Upload *Upload `json:"upload,omitempty"`
}

// Upload is file content too large for a message, such as a long diff.
type Upload struct {
	Filename string `json:"filename"`
	Title    string `json:"title"`
	// SnippetType is Slack's snippet syntax ("diff", "text").
	SnippetType string `json:"snippet_type,omitempty"`
	// Content is raw text (not mrkdwn-escaped), at most MaxUploadBytes.
	Content   string `json:"-"`
	Size      int    `json:"size"`
	Truncated bool   `json:"truncated,omitempty"`
}

// Params returns upload parameters for slack.Client.UploadFile into a thread.
func (u *Upload) Params(channel, threadTS string) slack.UploadFileParameters {
	return slack.UploadFileParameters{
		Content:         u.Content,
		FileSize:        len(u.Content),
		Filename:        u.Filename,
		Title:           u.Title,
		SnippetType:     u.SnippetType,
		Channel:         channel,
		ThreadTimestamp: threadTS,
	}
}

// MsgOptions returns the options that send m with slack-go: text (already
// escaped, so not escaped again), blocks and attachments. Callers add the
// target (MsgOptionTS, MsgOptionUpdate, MsgOptionPostEphemeral...).
func (m Message) MsgOptions() []slack.MsgOption {
	opts := []slack.MsgOption{slack.MsgOptionText(m.Text, false)}
	if len(m.Blocks) > 0 {
		opts = append(opts, slack.MsgOptionBlocks(m.Blocks...))
	}
	if len(m.Attachments) > 0 {
		opts = append(opts, slack.MsgOptionAttachments(m.Attachments...))
	}
	return opts
}

// Small constructors keep the builders readable.

func mrkdwn(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.MarkdownType, s, false, false)
}

func plainText(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.PlainTextType, s, true, false)
}

func section(s string) *slack.SectionBlock {
	return slack.NewSectionBlock(mrkdwn(s), nil, nil)
}

func header(s string) *slack.HeaderBlock {
	return slack.NewHeaderBlock(plainText(plain(s, MaxHeaderText)))
}

func contextBlock(parts ...string) *slack.ContextBlock {
	elems := make([]slack.MixedElement, 0, len(parts))
	for _, p := range parts {
		if p != "" {
			elems = append(elems, mrkdwn(p))
		}
		if len(elems) == MaxContextElements {
			break
		}
	}
	return slack.NewContextBlock("", elems...)
}

func button(actionID, label, value string) *slack.ButtonBlockElement {
	return slack.NewButtonBlockElement(actionID, value, plainText(plain(label, MaxButtonText)))
}
