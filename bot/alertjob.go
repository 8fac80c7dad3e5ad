package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/prometheus/common/model"
	"github.com/slack-go/slack"

	"github.com/autoheal/autoheal/alerts"
	"github.com/autoheal/autoheal/config"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/httpc"
	"github.com/autoheal/autoheal/render"
	"github.com/autoheal/autoheal/sessions"
)

// Alert jobs (kind alerts.JobKind) are queued by the Alertmanager webhook,
// one per incident (issue key) of a notification, and handled here by any
// replica:
//
//  1. The fire is recorded once per queue entry: sessions.OpenOrFire counts
//     it on the incident and decides, atomically across replicas, who posts
//     the thread's root message and whether the cooldown allows a new
//     investigation. The decision is kept under the entry's id, so a job
//     re-run after a crash repeats neither the count nor the decision.
//  2. The creator posts the root message in the route's channel (or finds
//     the one a previous run posted) and records it (SetRootTS); the other
//     fires wait for it.
//  3. The root message is brought up to date ("fired again (n times)",
//     resolved) under a per-incident lock, skipping states already shown;
//     a re-fire also gets one thread reply per cooldown.
//  4. A granted investigation runs in the thread exactly as a mention's
//     does (runInvestigation with a job id derived from the incident and
//     the grant time, so a re-run reuses the progress message and posts
//     one result). A re-fire's investigation converges an open pull
//     request (Refirer).
//
// The job is acknowledged only when all of that is done.
//
// Two windows are left where a crash cannot be made exact without a
// transaction spanning systems: dying between OpenOrFire and keeping its
// decision makes the re-run count that fire twice (it is never lost), and
// dying between posting the root message and SetRootTS leaves that message
// orphaned while the re-run posts the one the thread continues in.

// Refirer converges an open pull request when its incident fires again
// (remediate.Service.Refire through RefirerFromService).
type Refirer interface {
	Refire(ctx context.Context, req RefireRequest) (note string, err error)
}

// RefireRequest is one re-fire of an incident with a result to compare.
type RefireRequest struct {
	IssueKey string
	// Result is this fire's investigation when Reinvestigated, else the
	// latest earlier one: the pull request must then be told that nothing
	// new was investigated.
	Result         *investigate.HealResult
	Reinvestigated bool
	FireCount      int
	At             time.Time
	// Settings is the thread's resolved session (repo, github_token…),
	// its endpoint groups bound.
	Settings config.Settings
	// Guard checks the connections to a github_api_url a user set.
	Guard *httpc.Guard
}

// Metrics receives the worker's counters (*metrics.Registry).
type Metrics interface {
	InvestigationDone(outcome, band, mode string, took time.Duration)
	IncidentEvent(event string)
	// SlackEventShed counts an acknowledged Slack event dropped because its
	// lane's queue was full.
	SlackEventShed(lane string)
	// SettingRefused counts a refused setting change by key and reason.
	SettingRefused(key, reason string)
	// Approval counts a decision on a fix (a sessions.AuditAction).
	Approval(action string)
	// ApprovalResumed counts an approval resumed after the replica
	// carrying it out died.
	ApprovalResumed()
}

type noMetrics struct{}

func (noMetrics) InvestigationDone(string, string, string, time.Duration) {}
func (noMetrics) IncidentEvent(string)                                    {}
func (noMetrics) SlackEventShed(string)                                   {}
func (noMetrics) SettingRefused(string, string)                           {}
func (noMetrics) Approval(string)                                         {}
func (noMetrics) ApprovalResumed()                                        {}

const (
	rootLockTTL   = 20 * time.Second
	rootLockWait  = 30 * time.Second
	investigating = "AutoHeal is investigating in the thread"
)

// fireRecord is the outcome of one fire (a queue entry), kept so that a
// re-run of the job acts on the same decision.
type fireRecord struct {
	Created            bool      `json:"created"`
	Investigate        bool      `json:"investigate"`
	FireCount          int       `json:"fire_count"`
	LastInvestigatedAt time.Time `json:"last_investigated_at"`
}

// AlertInvestigationJobID is the id of the investigation an incident's
// fire at grant time at starts (stable across re-runs and replicas).
func AlertInvestigationJobID(key string, at time.Time) string {
	k := sanitizeID(key)
	if len(k) > 90 {
		k = k[:90]
	}
	return "ai-" + k + "-" + strconv.FormatInt(at.UnixMilli(), 10)
}

func fireRecordID(job sessions.Job) string {
	id := job.EntryID
	if id == "" {
		id = job.ID
	}
	return "alert-fire-" + sanitizeID(id)
}

func (b *Bot) runAlert(ctx context.Context, job sessions.Job) error {
	j, err := alerts.DecodeJob(job.Payload)
	if err != nil {
		return sessions.Permanent(fmt.Errorf("job %s: %w", job.ID, err))
	}
	log := b.log.With("job_id", job.ID, "issue_key", j.Key, "status", j.Status, "route", j.Route, "attempt", job.Attempt)
	if j.Status == alerts.StatusResolved {
		return b.alertResolved(ctx, job, j, log)
	}
	return b.alertFiring(ctx, job, j, log)
}

func (b *Bot) alertFiring(ctx context.Context, job sessions.Job, j alerts.Job, log *slog.Logger) error {
	rec, err := b.recordFire(ctx, job, j, log)
	if err != nil {
		return fmt.Errorf("job %s: %w", job.ID, err)
	}
	log = log.With("fire_count", rec.FireCount, "created", rec.Created, "investigate", rec.Investigate && j.Investigate)

	inc, err := b.alertRoot(ctx, j, rec, log)
	if err != nil {
		return fmt.Errorf("job %s: %w", job.ID, err)
	}
	if err := b.refreshAlertRoot(ctx, j, inc.Channel, inc.RootTS); err != nil {
		log.Warn("alert root not brought up to date", "err", err)
		if !rec.Created {
			return fmt.Errorf("job %s: %w", job.ID, err)
		}
	}
	// A follow-up that failed does not hold the investigation up; the job
	// returns its error at the end, and its next attempt does only what
	// is missing.
	var followUps error
	if !rec.Created {
		followUps = b.refireReply(ctx, j, inc, rec, log)
	}
	if !rec.Investigate || !j.Investigate {
		log.Info("alert fire recorded; no investigation (cooldown or route policy)")
		return followUpsFailed(job, followUps)
	}
	issue := j.Issue
	issue.Key, issue.Trigger = j.Key, investigate.TriggerAlert
	invID := AlertInvestigationJobID(j.Key, rec.LastInvestigatedAt)
	inv, err := NewInvestigationJob(invID, InvestigationJob{Issue: issue, Channel: inc.Channel, ThreadTS: inc.RootTS})
	if err != nil {
		return sessions.Permanent(fmt.Errorf("job %s: %w", job.ID, err))
	}
	inv.Attempt, inv.EntryID = job.Attempt, job.EntryID
	if rec.FireCount <= 1 || rec.Created {
		b.o.Metrics.IncidentEvent("investigated")
	} else {
		b.o.Metrics.IncidentEvent("reinvestigated")
	}
	if err := b.runInvestigation(ctx, inv); err != nil {
		return err
	}
	if !rec.Created {
		followUps = errors.Join(followUps, b.refirePR(ctx, invID, true, j, inc, rec, log))
	}
	return followUpsFailed(job, followUps)
}

func followUpsFailed(job sessions.Job, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("job %s: re-fire follow-ups not done: %w", job.ID, err)
}

// recordFire counts this fire on the incident once per queue entry.
func (b *Bot) recordFire(ctx context.Context, job sessions.Job, j alerts.Job, log *slog.Logger) (fireRecord, error) {
	id := fireRecordID(job)
	if raw, err := b.o.Store.ResultDoc(ctx, id); err == nil {
		var rec fireRecord
		if err := json.Unmarshal(raw, &rec); err == nil {
			log.Info("fire already recorded by an earlier run of this job")
			return rec, nil
		}
	} else if !errors.Is(err, sessions.ErrNotFound) {
		return fireRecord{}, err
	}
	inc, created, inv, err := b.o.Store.OpenOrFire(ctx, j.Key, j.ReceivedAt, j.Cooldown)
	if err != nil {
		return fireRecord{}, err
	}
	// created is also true for a later fire when the creator never
	// recorded a root in time (it died): this fire then opens the thread.
	rec := fireRecord{Created: created, Investigate: inv, FireCount: inc.FireCount, LastInvestigatedAt: inc.LastInvestigatedAt}
	raw, _ := json.Marshal(rec)
	if err := b.o.Store.PutResultDoc(context.WithoutCancel(ctx), id, raw); err != nil {
		// A re-run would count the fire again; the thread is still right.
		log.Error("fire decision not kept", "err", err)
	}
	if inc.FireCount <= 1 {
		b.o.Metrics.IncidentEvent("opened")
	} else {
		b.o.Metrics.IncidentEvent("refired")
	}
	return rec, nil
}

// alertRoot returns the incident with its root message: posted now by the
// creator (once: a re-run finds it recorded), or waited for.
func (b *Bot) alertRoot(ctx context.Context, j alerts.Job, rec fireRecord, log *slog.Logger) (sessions.Incident, error) {
	inc, err := b.o.Store.GetIncident(ctx, j.Key)
	if err != nil {
		return sessions.Incident{}, err
	}
	if inc.RootTS != "" {
		return inc, nil
	}
	if !rec.Created {
		wctx, cancel := context.WithTimeout(ctx, b.o.AlertRootWait)
		defer cancel()
		inc, err := b.o.Store.WaitRootTS(wctx, j.Key, 100*time.Millisecond)
		if err != nil {
			return sessions.Incident{}, fmt.Errorf("the thread of incident %s is not open yet: %w", j.Key, err)
		}
		return inc, nil
	}
	a := j.Alert
	a.FireCount, a.LastFired = inc.FireCount, inc.LastFiredAt
	ts, err := b.post(ctx, j.Channel, "", b.alertRootMessage(a, j.Investigate), "alert root")
	if err != nil {
		return sessions.Incident{}, err
	}
	got, err := b.o.Store.SetRootTS(context.WithoutCancel(ctx), j.Key, j.Channel, ts)
	if errors.Is(err, sessions.ErrRootTaken) {
		if _, _, derr := b.api.DeleteMessageContext(ctx, j.Channel, ts); derr != nil {
			log.Warn("duplicate alert root not removed", "ts", ts, "err", derr)
		}
		return got, nil
	}
	if err != nil {
		return sessions.Incident{}, err
	}
	if err := b.o.Store.PutResultDoc(ctx, rootStateID(j.Key), []byte(rootState(got.RootTS, inc, nil))); err != nil {
		log.Warn("alert root state not recorded", "err", err)
	}
	if err := b.putRootView(ctx, j.Key, rootView{Alert: j.Alert, Investigate: j.Investigate}); err != nil {
		log.Warn("alert root view not recorded", "err", err)
	}
	if len(j.Session) > 0 {
		if err := b.o.Store.Set(ctx, sessions.ThreadScope(got.Channel, got.RootTS), j.Session); err != nil {
			log.Warn("route settings not given to the thread", "err", err)
		}
	}
	log.Info("alert thread opened", "channel", got.Channel, "root_ts", got.RootTS)
	return got, nil
}

// alertRootMessage renders the root; a route that does not investigate
// says how to ask for one instead of promising it.
func (b *Bot) alertRootMessage(a render.Alert, investigates bool) render.Message {
	m := render.AlertRoot(a)
	if investigates || a.Resolved || a.Outcome != nil {
		return m
	}
	for _, blk := range m.Blocks {
		cb, ok := blk.(*slack.ContextBlock)
		if !ok {
			continue
		}
		for _, el := range cb.ContextElements.Elements {
			if t, ok := el.(*slack.TextBlockObject); ok && t.Text == investigating {
				t.Text = "Mention @autoheal in the thread to investigate"
			}
		}
	}
	return m
}

// lockIncident takes the incident's root lock, waiting for other replicas.
func (b *Bot) lockIncident(ctx context.Context, key string) (*sessions.Lock, error) {
	deadline := time.Now().Add(rootLockWait)
	for {
		l, err := b.o.Store.Lock(ctx, "alert-root:"+key, rootLockTTL)
		if err == nil {
			return l, nil
		}
		if !errors.Is(err, sessions.ErrLocked) || time.Now().After(deadline) {
			return nil, fmt.Errorf("incident %s: %w", key, err)
		}
		t := time.NewTimer(25 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// rootStateID names the record of what an incident's root message shows.
func rootStateID(key string) string { return "alert-root-" + sanitizeID(key) }

// rootState is what the root message of inc shows, with the outcome of
// the latest investigation in its thread (nil: none finished yet).
func rootState(rootTS string, inc sessions.Incident, out *rootOutcome) string {
	st := fmt.Sprintf("%s|%s|%d|%d", rootTS, inc.Status, inc.FireCount, inc.ResolvedAt.UnixMilli())
	if out != nil {
		st += "|" + out.JobID + "|" + strconv.FormatBool(out.Outcome.Failed)
	}
	return st
}

// refreshAlertRoot brings the root message up to date with the incident
// (fire count, resolution) and the outcome of its latest investigation.
// Replicas take turns under a lock, and a state already shown is not sent
// again, so a burst of fires costs few updates and the last one always
// shows the latest state.
func (b *Bot) refreshAlertRoot(ctx context.Context, j alerts.Job, channel, rootTS string) error {
	return b.refreshRoot(ctx, j.Key, channel, rootTS, &rootView{Alert: j.Alert, Investigate: j.Investigate}, nil)
}

// refreshRoot re-renders an incident's root message from view (nil: the
// one recorded by the latest fire) and the latest outcome, recording out
// first unless a later one is recorded already.
func (b *Bot) refreshRoot(ctx context.Context, key, channel, rootTS string, view *rootView, out *rootOutcome) error {
	lock, err := b.lockIncident(ctx, key)
	if err != nil {
		return err
	}
	defer func() { _ = lock.Unlock(context.WithoutCancel(ctx)) }()
	inc, err := b.o.Store.GetIncident(ctx, key)
	if err != nil {
		return err
	}
	if view != nil {
		if err := b.putRootView(ctx, key, *view); err != nil {
			return err
		}
	} else if view, err = b.rootView(ctx, key); err != nil {
		return err
	}
	latest, err := b.rootOutcome(ctx, key)
	if err != nil {
		return err
	}
	if out != nil && (latest == nil || !out.At.Before(latest.At)) {
		if err := b.putRootOutcome(ctx, key, *out); err != nil {
			return err
		}
		latest = out
	}
	state := rootState(rootTS, inc, latest)
	if raw, err := b.o.Store.ResultDoc(ctx, rootStateID(key)); err == nil && string(raw) == state {
		return nil
	}
	a := view.Alert
	a.FireCount, a.LastFired = inc.FireCount, inc.LastFiredAt
	a.Resolved = inc.Status == sessions.IncidentResolved
	if a.Resolved && a.EndsAt.IsZero() {
		a.EndsAt = inc.ResolvedAt
	}
	a.Outcome = nil
	if latest != nil {
		o := latest.Outcome
		a.Outcome = &o
	}
	if err := b.update(ctx, channel, rootTS, b.alertRootMessage(a, view.Investigate), "alert root"); err != nil {
		return err
	}
	return b.o.Store.PutResultDoc(context.WithoutCancel(ctx), rootStateID(key), []byte(state))
}

// refireReply posts one "fired again" reply per cooldown, and converges an
// open pull request with the latest result when there is one. A follow-up
// that failed is returned, so that the job runs again and does it then.
func (b *Bot) refireReply(ctx context.Context, j alerts.Job, inc sessions.Incident, rec fireRecord, log *slog.Logger) error {
	s := fmt.Sprintf(":repeat: *%s* fired again (%d times).", render.Escape(j.Alert.Name), rec.FireCount)
	if rec.Investigate && j.Investigate {
		s += " The cooldown has passed: investigating again."
	} else if j.Investigate {
		s += " No new investigation within the cooldown (" + model.Duration(j.Cooldown).String() + "); use Re-investigate to run one now."
	}
	err := b.followUp(ctx, "alert-refire-reply:"+j.Key, max(j.Cooldown, time.Minute), func() error {
		_, err := b.post(ctx, inc.Channel, inc.RootTS, text(s), "alert re-fire")
		return err
	})
	if err != nil {
		log.Warn("re-fire reply not posted; the job's next attempt posts it", "err", err)
	}
	if !(rec.Investigate && j.Investigate) && !inc.LastInvestigatedAt.IsZero() {
		// No new investigation: the latest one's result is what the PR is compared with.
		err = errors.Join(err, b.refirePR(ctx, AlertInvestigationJobID(j.Key, inc.LastInvestigatedAt), false, j, inc, rec, log))
	}
	return err
}

// refirePR converges the incident's open pull request (if any) with the
// result of investigation invID, once per investigation and fire;
// reinvestigated says whether invID ran for this fire (else it is an
// earlier one, and nothing new may be claimed). It is recorded as done
// only once the pull request was converged and its note posted.
func (b *Bot) refirePR(ctx context.Context, invID string, reinvestigated bool, j alerts.Job, inc sessions.Incident, rec fireRecord, log *slog.Logger) error {
	if b.o.Refirer == nil {
		return nil
	}
	doc, err := b.loadDoc(ctx, invID)
	if err != nil {
		return nil // no result to compare with
	}
	err = b.followUp(ctx, "alert-refire-pr:"+invID+":"+strconv.Itoa(rec.FireCount), 24*time.Hour, func() error {
		resolved, err := b.resolve(ctx, inc.Channel, inc.RootTS)
		if err != nil {
			return fmt.Errorf("settings unavailable: %w", err)
		}
		note, err := b.o.Refirer.Refire(ctx, RefireRequest{IssueKey: j.Key, Result: doc.Result, Reinvestigated: reinvestigated,
			FireCount: rec.FireCount, At: j.ReceivedAt, Settings: resolved.Settings(), Guard: b.guard})
		if err != nil {
			return err
		}
		if note != "" {
			_, err = b.post(ctx, inc.Channel, inc.RootTS, text(note), "re-fire pull request")
		}
		return err
	})
	if err != nil {
		log.Warn("re-fire: pull request not converged; the job's next attempt tries again", "err", b.o.Redactor.String(err.Error()))
	}
	return err
}

// followUpLockTTL bounds how long one replica holds a follow-up; a replica
// that dies holding it delays the next attempt by at most this much.
const followUpLockTTL = 2 * time.Minute

// followUp does the side effect named key at most once within ttl, and
// records it only after it succeeded: a lock keeps replicas from doing it
// at the same time, and a failure or a crash leaves it to the job's next
// attempt (posts find the message they already posted, so a retry after
// a lost answer does not post twice).
func (b *Bot) followUp(ctx context.Context, key string, ttl time.Duration, do func() error) error {
	if done, err := b.o.Store.Done(ctx, key); err != nil || done {
		return err
	}
	lock, err := b.o.Store.Lock(ctx, "follow-up:"+key, followUpLockTTL)
	if errors.Is(err, sessions.ErrLocked) {
		return nil // another replica is doing it, and retries it if it fails
	}
	if err != nil {
		return err
	}
	defer func() { _ = lock.Unlock(context.WithoutCancel(ctx)) }()
	if done, err := b.o.Store.Done(ctx, key); err != nil || done {
		return err
	}
	if err := do(); err != nil {
		return err
	}
	return b.o.Store.MarkDone(context.WithoutCancel(ctx), key, ttl)
}

// alertResolved marks the incident resolved and says so on the root and in
// the thread, with how long the alert lasted.
func (b *Bot) alertResolved(ctx context.Context, job sessions.Job, j alerts.Job, log *slog.Logger) error {
	inc, err := b.o.Store.GetIncident(ctx, j.Key)
	if errors.Is(err, sessions.ErrNotFound) {
		if job.Attempt < b.o.Queue.Options().MaxAttempts {
			// Its firing notification may still be queued.
			return fmt.Errorf("job %s: resolved before its incident was opened; retrying", job.ID)
		}
		log.Info("resolved alert for an unknown incident ignored")
		return nil
	}
	if err != nil {
		return fmt.Errorf("job %s: %w", job.ID, err)
	}
	if inc.LastFiredAt.After(j.ReceivedAt) && inc.Status == sessions.IncidentFiring {
		log.Info("resolution superseded by a later fire; ignored")
		return nil
	}
	if inc.RootTS == "" {
		wctx, cancel := context.WithTimeout(ctx, b.o.AlertRootWait)
		inc, err = b.o.Store.WaitRootTS(wctx, j.Key, 100*time.Millisecond)
		cancel()
		if err != nil {
			return fmt.Errorf("job %s: %w", job.ID, err)
		}
	}
	at := j.Alert.EndsAt
	if at.IsZero() || at.After(j.ReceivedAt) {
		at = j.ReceivedAt
	}
	if inc.Status != sessions.IncidentResolved {
		if inc, err = b.o.Store.ResolveIncident(ctx, j.Key, at); err != nil {
			return fmt.Errorf("job %s: %w", job.ID, err)
		}
		b.o.Metrics.IncidentEvent("resolved")
	}
	if err := b.refreshAlertRoot(ctx, j, inc.Channel, inc.RootTS); err != nil {
		return fmt.Errorf("job %s: %w", job.ID, err)
	}
	// The thread reply, once per resolution (recorded after it is posted).
	replyID := "alert-resolved-" + sanitizeID(j.Key) + "-" + strconv.FormatInt(inc.ResolvedAt.UnixMilli(), 10)
	lock, err := b.lockIncident(ctx, j.Key)
	if err != nil {
		return fmt.Errorf("job %s: %w", job.ID, err)
	}
	defer func() { _ = lock.Unlock(context.WithoutCancel(ctx)) }()
	if _, err := b.o.Store.ResultDoc(ctx, replyID); err == nil {
		return nil
	}
	a := j.Alert
	a.FireCount, a.Resolved = inc.FireCount, true
	if a.EndsAt.IsZero() {
		a.EndsAt = inc.ResolvedAt
	}
	if _, err := b.post(ctx, inc.Channel, inc.RootTS, render.AlertResolvedReply(a), "alert resolved"); err != nil {
		return fmt.Errorf("job %s: %w", job.ID, err)
	}
	if err := b.o.Store.PutResultDoc(context.WithoutCancel(ctx), replyID, []byte("posted")); err != nil {
		log.Warn("resolved reply not recorded", "err", err)
	}
	log.Info("alert resolved", "channel", inc.Channel, "root_ts", inc.RootTS)
	return nil
}
