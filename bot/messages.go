package bot

import (
	"context"
	"fmt"

	"github.com/slack-go/slack"

	"github.com/autoheal/autoheal/render"
)

// post sends m to channel (in threadTS's thread when set) and returns its ts.
func (b *Bot) post(ctx context.Context, channel, threadTS string, m render.Message, what string) (string, error) {
	m, verr := safeMessage(m, what)
	if verr != nil {
		b.log.Error("message rejected by validation; sending a stand-in", "what", what, "err", verr)
	}
	opts := m.MsgOptions()
	if threadTS != "" {
		opts = append(opts, slack.MsgOptionTS(threadTS))
	}
	var ts string
	err := withRetry(ctx, retryPolicy{}, func(ctx context.Context) error {
		_, t, err := b.api.PostMessageContext(ctx, channel, opts...)
		ts = t
		return err
	})
	if err != nil {
		return "", fmt.Errorf("post %s in %s: %w", what, channel, err)
	}
	return ts, nil
}

// update replaces the content of message ts with m (for one-off edits;
// progress goes through an Updater).
func (b *Bot) update(ctx context.Context, channel, ts string, m render.Message, what string) error {
	m, verr := safeMessage(m, what)
	if verr != nil {
		b.log.Error("message rejected by validation; sending a stand-in", "what", what, "err", verr)
	}
	err := withRetry(ctx, retryPolicy{}, func(ctx context.Context) error {
		_, _, _, err := b.api.UpdateMessageContext(ctx, channel, ts, m.MsgOptions()...)
		return err
	})
	if err != nil {
		return fmt.Errorf("update %s %s/%s: %w", what, channel, ts, err)
	}
	return nil
}

// ephemeral shows m to user only, in the thread when threadTS is set.
func (b *Bot) ephemeral(ctx context.Context, channel, user, threadTS string, m render.Message, what string) {
	if user == "" || channel == "" {
		return
	}
	m, verr := safeMessage(m, what)
	if verr != nil {
		b.log.Error("message rejected by validation; sending a stand-in", "what", what, "err", verr)
	}
	opts := m.MsgOptions()
	if threadTS != "" {
		opts = append(opts, slack.MsgOptionTS(threadTS))
	}
	err := withRetry(ctx, retryPolicy{Attempts: 3}, func(ctx context.Context) error {
		_, err := b.api.PostEphemeralContext(ctx, channel, user, opts...)
		return err
	})
	if err != nil {
		b.log.Warn("ephemeral message not delivered", "what", what, "channel", channel, "user", user, "err", err)
	}
}

// respond answers a slash command through its response URL (ephemeral).
func (b *Bot) respond(ctx context.Context, responseURL string, m render.Message, what string) {
	m, verr := safeMessage(m, what)
	if verr != nil {
		b.log.Error("message rejected by validation; sending a stand-in", "what", what, "err", verr)
	}
	msg := &slack.WebhookMessage{Text: m.Text, ResponseType: slack.ResponseTypeEphemeral}
	if len(m.Blocks) > 0 {
		msg.Blocks = &slack.Blocks{BlockSet: m.Blocks}
	}
	err := withRetry(ctx, retryPolicy{Attempts: 3}, func(ctx context.Context) error {
		return slack.PostWebhookCustomHTTPContext(ctx, responseURL, b.o.HTTPClient, msg)
	})
	if err != nil {
		// The URL is a capability; keep it out of the log.
		b.log.Warn("slash command response not delivered", "what", what, "err", b.o.Redactor.String(err.Error()))
	}
}

// text is a one-section message of already escaped mrkdwn.
func text(s string) render.Message {
	return render.Message{Text: s, Blocks: []slack.Block{
		slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, s, false, false), nil, nil),
	}}
}

// upload sends a file message (a long diff) into the thread.
func (b *Bot) upload(ctx context.Context, channel, threadTS string, m render.Message) error {
	params := m.Upload.Params(channel, threadTS)
	params.InitialComment = m.Text
	return withRetry(ctx, retryPolicy{Attempts: 3}, func(ctx context.Context) error {
		_, err := b.api.UploadFileContext(ctx, params)
		return err
	})
}

// postAll posts messages in order in the thread (uploads as files) and
// returns how many landed.
func (b *Bot) postAll(ctx context.Context, channel, threadTS string, msgs []render.Message, what string) int {
	n := 0
	for _, m := range msgs {
		var err error
		if m.Upload != nil {
			err = b.upload(ctx, channel, threadTS, m)
		} else {
			_, err = b.post(ctx, channel, threadTS, m, what)
		}
		if err != nil {
			b.log.Warn("follow-up not posted", "what", what, "channel", channel, "thread_ts", threadTS, "err", err)
			continue
		}
		n++
	}
	return n
}
