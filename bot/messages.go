package bot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"

	"github.com/slack-go/slack"

	"github.com/autoheal/autoheal/render"
)

// post sends m to channel (in threadTS's thread when set) and returns its ts.
// Posting is idempotent: see postKeyed.
func (b *Bot) post(ctx context.Context, channel, threadTS string, m render.Message, what string) (string, error) {
	return b.postKeyed(ctx, channel, threadTS, m, what, newPostKey())
}

// postMetadataType marks the messages the bot posts with their post key
// (Slack message metadata), so that a retry can find what it posted.
const postMetadataType = "autoheal_post"

// postKeyed posts m once under key. chat.postMessage is not idempotent: a
// post whose answer was lost (a reset, a 5xx) may have landed, so before
// posting again the thread (or channel) is searched for a message carrying
// the key; when that search fails, the post is not repeated.
func (b *Bot) postKeyed(ctx context.Context, channel, threadTS string, m render.Message, what, key string) (string, error) {
	m, verr := safeMessage(m, what)
	if verr != nil {
		b.log.Error("message rejected by validation; sending a stand-in", "what", what, "err", verr)
	}
	opts := append(m.MsgOptions(), slack.MsgOptionMetadata(slack.SlackMetadata{
		EventType: postMetadataType, EventPayload: map[string]any{"key": key}}))
	if threadTS != "" {
		opts = append(opts, slack.MsgOptionTS(threadTS))
	}
	since := time.Now()
	var ts string
	uncertain := false
	err := withRetry(ctx, retryPolicy{}, func(ctx context.Context) error {
		if uncertain {
			found, ok, err := b.findPosted(ctx, channel, threadTS, key, since)
			if err != nil {
				return finalError{fmt.Errorf("an earlier attempt may have posted, and looking for it failed (%v); not posting again", err)}
			}
			if ok {
				ts = found
				return nil
			}
		}
		_, t, err := b.api.PostMessageContext(ctx, channel, opts...)
		ts = t
		uncertain = uncertain || mayHaveTakenEffect(err)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("post %s in %s: %w", what, channel, err)
	}
	return ts, nil
}

// findPosted looks for the message posted under key since the first
// attempt (any time when since is zero): in the thread, or among the
// channel's recent messages.
func (b *Bot) findPosted(ctx context.Context, channel, threadTS, key string, since time.Time) (string, bool, error) {
	oldest := ""
	if !since.IsZero() {
		oldest = strconv.FormatInt(since.Add(-time.Minute).Unix(), 10) + ".000000"
	}
	var msgs []slack.Message
	if threadTS != "" {
		ms, _, _, err := b.api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{
			ChannelID: channel, Timestamp: threadTS, Oldest: oldest, Limit: 200, IncludeAllMetadata: true})
		if err != nil {
			return "", false, err
		}
		msgs = ms
	} else {
		resp, err := b.api.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{
			ChannelID: channel, Oldest: oldest, Limit: 200, IncludeAllMetadata: true})
		if err != nil {
			return "", false, err
		}
		msgs = resp.Messages
	}
	for _, msg := range msgs {
		if msg.Metadata.EventType == postMetadataType && msg.Metadata.EventPayload["key"] == key {
			return msg.Timestamp, true, nil
		}
	}
	return "", false, nil
}

// newPostKey is a fresh post key.
func newPostKey() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// update replaces the content of message ts with m (for one-off edits;
// progress goes through an Updater), at least the update interval after
// the message's previous edit.
func (b *Bot) update(ctx context.Context, channel, ts string, m render.Message, what string) error {
	m, verr := safeMessage(m, what)
	if verr != nil {
		b.log.Error("message rejected by validation; sending a stand-in", "what", what, "err", verr)
	}
	err := withRetry(ctx, retryPolicy{}, func(ctx context.Context) error {
		if err := b.edits.wait(ctx, channel, ts); err != nil {
			return err
		}
		_, _, _, err := b.api.UpdateMessageContext(ctx, channel, ts, m.MsgOptions()...)
		// The next edit counts from the answer, as Slack sees them arrive.
		b.edits.mark(channel, ts, b.o.Clock.Now())
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
