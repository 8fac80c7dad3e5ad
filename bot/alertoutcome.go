package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/autoheal/autoheal/render"
	"github.com/autoheal/autoheal/sessions"
)

// An alert's root message says "AutoHeal is investigating in the thread"
// until an investigation in that thread finishes; then it shows the outcome
// in one line (the result's headline and badge, or the failure). Whatever
// starts the investigation (the fire, Re-investigate, a mention in the
// thread) and whichever replica finishes it, the root is re-rendered from
// what Redis keeps: the alert as the latest fire described it (rootView)
// and the latest outcome (rootOutcome), so later fires and the resolution
// keep showing it.

// rootView is what an incident's root message is rendered from.
type rootView struct {
	Alert       render.Alert `json:"alert"`
	Investigate bool         `json:"investigate"`
}

// rootOutcome is how the latest investigation in an incident's thread
// ended; At orders outcomes so that a late re-run of an older job does not
// replace a newer one.
type rootOutcome struct {
	JobID   string              `json:"job_id"`
	At      time.Time           `json:"at"`
	Outcome render.AlertOutcome `json:"outcome"`
}

func rootViewID(key string) string    { return "alert-root-view-" + sanitizeID(key) }
func rootOutcomeID(key string) string { return "alert-outcome-" + sanitizeID(key) }

func (b *Bot) putRootView(ctx context.Context, key string, v rootView) error {
	v.Alert.Outcome = nil
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("alert root view: %w", err)
	}
	return b.o.Store.PutResultDoc(context.WithoutCancel(ctx), rootViewID(key), raw)
}

func (b *Bot) rootView(ctx context.Context, key string) (*rootView, error) {
	raw, err := b.o.Store.ResultDoc(ctx, rootViewID(key))
	if err != nil {
		return nil, err
	}
	var v rootView
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("alert root view of %s: %w", key, err)
	}
	return &v, nil
}

func (b *Bot) putRootOutcome(ctx context.Context, key string, o rootOutcome) error {
	raw, err := json.Marshal(o)
	if err != nil {
		return fmt.Errorf("alert outcome: %w", err)
	}
	return b.o.Store.PutResultDoc(context.WithoutCancel(ctx), rootOutcomeID(key), raw)
}

// rootOutcome returns the latest outcome, nil when none is recorded.
func (b *Bot) rootOutcome(ctx context.Context, key string) (*rootOutcome, error) {
	raw, err := b.o.Store.ResultDoc(ctx, rootOutcomeID(key))
	if errors.Is(err, sessions.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var o rootOutcome
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, nil //nolint:nilerr // an unreadable record is replaced by the next outcome
	}
	return &o, nil
}

// settleAlertRoot shows how the investigation jobID in (channel, threadTS)
// ended on the root message, when that thread is an alert's. It is best
// effort: the result is in the thread either way.
func (b *Bot) settleAlertRoot(ctx context.Context, channel, threadTS, jobID string, at time.Time, out render.AlertOutcome, log *slog.Logger) {
	key, err := b.o.Store.IncidentForThread(ctx, channel, threadTS)
	if errors.Is(err, sessions.ErrNotFound) {
		return // not an alert's thread
	}
	if err != nil {
		log.Warn("alert root not settled: incident unavailable", "err", err)
		return
	}
	inc, err := b.o.Store.GetIncident(ctx, key)
	if err != nil || inc.RootTS != threadTS || inc.Channel != channel {
		if err != nil {
			log.Warn("alert root not settled: incident unavailable", "err", err)
		}
		return
	}
	rec := rootOutcome{JobID: jobID, At: at.UTC(), Outcome: out}
	if err := b.refreshRoot(context.WithoutCancel(ctx), key, inc.Channel, inc.RootTS, nil, &rec); err != nil {
		if errors.Is(err, sessions.ErrNotFound) {
			log.Info("alert root not settled: no record of what it shows", "issue_key", key)
			return
		}
		log.Warn("alert root not settled", "issue_key", key, "err", err)
	}
}
