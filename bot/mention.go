package bot

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/slack-go/slack/slackevents"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/render"
	"github.com/autoheal/autoheal/sessions"
)

// handleMention answers one app_mention: settings go to the thread's
// session, issue text starts an investigation. Replicas that receive the
// same event (Slack retries on another connection) answer it once.
func (b *Bot) handleMention(ctx context.Context, eventID string, ev *slackevents.AppMentionEvent) {
	if ev == nil || ev.BotID != "" || ev.User == "" || ev.User == b.BotUserID() {
		return
	}
	log := b.log.With("event_id", eventID, "channel", ev.Channel, "user", ev.User)
	if !channelIDRE.MatchString(ev.Channel) || !slackTSRE.MatchString(ev.TimeStamp) {
		log.Warn("mention without a usable channel or ts ignored")
		return
	}
	if eventID == "" {
		eventID = ev.Channel + ":" + ev.TimeStamp
	}
	first, err := b.o.Store.FirstSeen(ctx, "slack-event:"+eventID, b.o.DedupeTTL)
	if err != nil {
		// Without the shared record another replica may answer too; not
		// answering is the lesser evil (the user can mention again).
		log.Error("mention not answered: event de-duplication unavailable", "err", err)
		return
	}
	if !first {
		log.Debug("duplicate delivery of a mention ignored")
		return
	}

	thread := ev.ThreadTimeStamp
	if thread == "" || !slackTSRE.MatchString(thread) {
		thread = ev.TimeStamp
	}
	parsed := ParseMention(ev.Text, b.BotUserID())
	if len(parsed.Settings)+len(parsed.Problems) > 0 {
		out := b.saveSettings(ctx, sessions.ThreadScope(ev.Channel, thread), ev.User, viaMention, parsed.Settings, parsed.Problems)
		b.ephemeral(ctx, ev.Channel, ev.User, thread, settingsReply(out, "this thread", true), "settings reply")
	}
	if parsed.Text == "" {
		if len(parsed.Settings)+len(parsed.Problems) == 0 {
			b.ephemeral(ctx, ev.Channel, ev.User, thread, text("Tell me what you see, e.g. `@autoheal checkout is failing since 10:05`. Add settings one per line (`repo: acme/shop`), or see `/autoheal help`."), "mention hint")
		}
		return
	}
	b.startInvestigation(ctx, MentionJobID(eventID), ev.Channel, thread, ev.User, investigate.Issue{
		Text:    b.o.Redactor.String(parsed.Text),
		Trigger: investigate.TriggerMention,
	}, log)
}

// startInvestigation posts the "Investigating…" reply and enqueues the job.
func (b *Bot) startInvestigation(ctx context.Context, jobID, channel, thread, user string, issue investigate.Issue, log *slog.Logger) {
	action := &render.ActionValue{Channel: channel, ThreadTS: thread, JobID: jobID, IssueKey: issue.Key}
	if err := action.Validate(); err != nil {
		log.Error("investigation not started: bad thread reference", "err", err)
		return
	}
	msg, err := newProgress(issue.Text, issue.Trigger, action, nil).message()
	if err != nil {
		log.Error("investigation not started: progress message", "err", err)
		return
	}
	ts, err := b.post(ctx, channel, thread, msg, "progress")
	if err != nil {
		log.Error("investigation not started: reply not posted", "err", err)
		return
	}
	job, err := NewInvestigationJob(jobID, InvestigationJob{
		Issue: issue, Channel: channel, ThreadTS: thread, MessageTS: ts, PostedAt: time.Now().UTC(), User: user,
	})
	if err == nil {
		_, err = b.o.Queue.Enqueue(ctx, job)
	}
	if err != nil {
		log.Error("investigation not queued", "job_id", jobID, "err", err)
		why := ":warning: I could not queue this investigation; please mention me again in a moment."
		if errors.Is(err, sessions.ErrQueueFull) {
			why = ":hourglass: AutoHeal is busy: too many investigations are waiting. Please mention me again in a few minutes."
		}
		if uerr := b.update(ctx, channel, ts, text(why), "queue error"); uerr != nil {
			log.Error("queue error not shown", "err", uerr)
		}
		return
	}
	log.Info("investigation queued", "job_id", jobID, "thread_ts", thread)
}
