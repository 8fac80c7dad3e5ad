package bot

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"
)

// viewAckDeadline bounds the work done before acknowledging a modal
// submission, whose answer (validation errors) travels in the ack.
const viewAckDeadline = 2500 * time.Millisecond

// runSocketMode keeps a Socket Mode connection open until ctx ends. slack-go
// reconnects on its own after disconnects; when RunContext returns anyway
// (a failed reconnect), it is run again after a capped exponential backoff
// with jitter. Only an authentication failure stops it.
func (b *Bot) runSocketMode(ctx context.Context) error {
	smc := socketmode.New(b.o.Slack, socketmode.OptionLog(slog.NewLogLogger(b.log.Handler(), slog.LevelDebug)))
	readCtx, stopReading := context.WithCancel(ctx)
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		b.readEvents(readCtx, smc)
	}()
	defer func() {
		stopReading()
		<-readerDone
		b.connected.Store(false)
	}()

	backoff := b.o.ReconnectMin
	for {
		started := time.Now()
		err := smc.RunContext(ctx)
		b.connected.Store(false)
		if ctx.Err() != nil {
			return nil
		}
		if IsAuthError(err) {
			b.log.Error("Slack rejected the tokens; stopping", "err", b.o.Redactor.String(errString(err)))
			return fmt.Errorf("%w: socket mode: %s", ErrSlackAuth, b.o.Redactor.String(errString(err)))
		}
		if time.Since(started) > b.o.ReconnectMax {
			backoff = b.o.ReconnectMin // it ran fine for a while: start over
		}
		wait := jitter(backoff)
		backoff = min(2*backoff, b.o.ReconnectMax)
		b.log.Warn("socket mode stopped; reconnecting", "err", b.o.Redactor.String(errString(err)), "in", wait)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// readEvents reads the Socket Mode events: each request is acknowledged at
// once and its work handed to the pool.
func (b *Bot) readEvents(ctx context.Context, smc *socketmode.Client) {
	for {
		select {
		case <-ctx.Done():
			return
		case evt, ok := <-smc.Events:
			if !ok {
				return
			}
			b.dispatch(ctx, smc, evt)
		}
	}
}

func (b *Bot) ack(ctx context.Context, smc *socketmode.Client, req *socketmode.Request, payload any) {
	if req == nil || req.EnvelopeID == "" {
		return
	}
	if err := smc.AckCtx(ctx, req.EnvelopeID, payload); err != nil {
		b.log.Warn("ack failed", "envelope_id", req.EnvelopeID, "err", err)
	}
}

func (b *Bot) dispatch(ctx context.Context, smc *socketmode.Client, evt socketmode.Event) {
	switch evt.Type {
	case socketmode.EventTypeConnecting:
		b.log.Debug("socket mode connecting")
	case socketmode.EventTypeConnected:
		b.connected.Store(true)
		b.log.Info("socket mode connected")
	case socketmode.EventTypeHello:
		b.connected.Store(true)
	case socketmode.EventTypeDisconnect:
		b.connected.Store(false)
		b.log.Info("socket mode disconnect requested; reconnecting")
	case socketmode.EventTypeConnectionError:
		b.connected.Store(false)
		if ce, ok := evt.Data.(*slack.ConnectionErrorEvent); ok {
			b.log.Warn("socket mode connection error", "attempt", ce.Attempt, "backoff", ce.Backoff, "err", b.o.Redactor.String(errString(ce.ErrorObj)))
		}
	case socketmode.EventTypeInvalidAuth:
		b.log.Error("socket mode: invalid auth")
	case socketmode.EventTypeIncomingError, socketmode.EventTypeErrorWriteFailed, socketmode.EventTypeErrorBadMessage:
		b.log.Warn("socket mode error", "type", evt.Type)
		// A request that failed to parse still deserves an ack, or Slack retries it.
		b.ack(ctx, smc, evt.Request, nil)

	case socketmode.EventTypeEventsAPI:
		b.ack(ctx, smc, evt.Request, nil)
		ev, ok := evt.Data.(slackevents.EventsAPIEvent)
		if !ok || ev.Type != slackevents.CallbackEvent {
			return
		}
		cb, _ := ev.Data.(*slackevents.EventsAPICallbackEvent)
		mention, ok := ev.InnerEvent.Data.(*slackevents.AppMentionEvent)
		if !ok || cb == nil {
			return
		}
		eventID := cb.EventID
		b.submit(b.events, "app_mention", func(ctx context.Context) { b.handleMention(ctx, eventID, mention) })

	case socketmode.EventTypeSlashCommand:
		b.ack(ctx, smc, evt.Request, nil)
		cmd, ok := evt.Data.(slack.SlashCommand)
		if !ok {
			return
		}
		b.submit(b.interactive, "slash_command", func(ctx context.Context) { b.handleCommand(ctx, cmd) })

	case socketmode.EventTypeInteractive:
		cb, ok := evt.Data.(slack.InteractionCallback)
		if !ok {
			b.ack(ctx, smc, evt.Request, nil)
			return
		}
		if cb.Type == slack.InteractionTypeViewSubmission {
			// The answer (close, or show validation errors) travels in the
			// ack, so it is sent once the submission is checked and saved.
			req := evt.Request
			acked := make(chan struct{})
			var once sync.Once
			ackOnce := func(payload any) {
				once.Do(func() {
					close(acked)
					b.ack(ctx, smc, req, payload)
				})
			}
			go func() {
				t := time.NewTimer(viewAckDeadline)
				defer t.Stop()
				select {
				case <-acked:
				case <-t.C:
					b.log.Warn("modal submission not handled within the ack deadline; closing it")
					ackOnce(nil)
				case <-ctx.Done():
				}
			}()
			if !b.submit(b.interactive, "view_submission", func(ctx context.Context) { b.handleViewSubmission(ctx, cb, ackOnce) }) {
				ackOnce(nil)
			}
			return
		}
		b.ack(ctx, smc, evt.Request, nil)
		if cb.Type == slack.InteractionTypeBlockActions {
			b.submit(b.interactive, "block_actions", func(ctx context.Context) { b.handleBlockActions(ctx, cb) })
		}
	default:
		b.log.Debug("socket mode event ignored", "type", evt.Type)
		b.ack(ctx, smc, evt.Request, nil)
	}
}

// Lanes of event handlers (the lane label of autoheal_slack_events_shed_total).
const (
	laneEvents      = "events"
	laneInteractive = "interactive"
)

// submit hands an acknowledged event to its lane without waiting; a full
// lane sheds it with a log line and a metric, so that acks never wait for
// handlers.
func (b *Bot) submit(lane *pool, kind string, task func(context.Context)) bool {
	switch lane.submit(task) {
	case submitted:
		return true
	case shedFull:
		b.log.Warn("event shed: its lane is full", "lane", lane.name, "event", kind)
		b.o.Metrics.SlackEventShed(lane.name)
	default:
		b.log.Warn("event dropped: shutting down", "lane", lane.name, "event", kind)
	}
	return false
}
