package bot

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/autoheal/autoheal/render"
	"github.com/autoheal/autoheal/sessions"
)

// maxSweepBatch bounds the stuck approvals one sweep resumes.
const maxSweepBatch = 20

// DefaultSweepInterval is how often a worker looks for approvals whose
// replica died while carrying them out, for an approval lease: a quarter
// of the lease, between 1 s and 30 s.
func DefaultSweepInterval(lease time.Duration) time.Duration {
	return min(30*time.Second, max(lease/4, time.Second))
}

// runSweeper resumes stuck approvals every SweepInterval until ctx ends.
func (b *Bot) runSweeper(ctx context.Context) {
	t := time.NewTicker(b.o.SweepInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		b.sweepApprovals(ctx)
	}
}

// sweepApprovals resumes the approvals in flight whose lease ran out (the
// replica carrying them out died) and returns how many it resumed.
func (b *Bot) sweepApprovals(ctx context.Context) int {
	stuck, err := b.o.Store.StuckApprovals(ctx, time.Now(), maxSweepBatch)
	if err != nil {
		if ctx.Err() == nil {
			b.log.Warn("stuck approvals not read", "err", err)
		}
		return 0
	}
	n := 0
	for _, e := range stuck {
		if ctx.Err() != nil {
			break
		}
		if b.resumeApproval(ctx, e) {
			n++
		}
	}
	return n
}

// resumeApproval carries out a stuck approval under its lock, unless its
// carrier turns out to be alive (it holds the lock or renewed the lease)
// or remediate's own lease on the pull-request steps still runs.
func (b *Bot) resumeApproval(ctx context.Context, e sessions.InFlight) bool {
	log := b.log.With("job_id", e.JobID, "issue_key", b.o.Redactor.String(e.IssueKey), "channel", e.Channel,
		"thread_ts", e.ThreadTS, "user", e.User)
	lock, err := b.o.Store.Lock(ctx, approveLockName(e.JobID), b.o.Store.ApprovalLease())
	if errors.Is(err, sessions.ErrLocked) {
		return false // a click or another sweeper carries it out
	}
	if err != nil {
		log.Warn("stuck approval not resumed: lock unavailable", "err", err)
		return false
	}
	defer func() { _ = lock.Unlock(context.WithoutCancel(ctx)) }()
	cur, err := b.o.Store.InFlightApproval(ctx, e.JobID)
	now := time.Now()
	if err != nil || cur.LeaseUntil.After(now) {
		return false // finished, or renewed, since the sweep read it
	}
	if a, err := b.o.Store.GetApproval(ctx, cur.IssueKey); err == nil && a.State == sessions.ApprovalApproving && a.LeaseUntil.After(now) {
		// The pull-request steps' own lease still runs: resuming now would
		// only be told "in progress". Look again when it ends.
		if err := b.o.Store.ExtendInFlight(ctx, e.JobID, a.LeaseUntil); err != nil {
			log.Warn("stuck approval not postponed", "err", err)
		}
		return false
	}
	log.Warn("resuming an approval whose replica stopped while carrying it out",
		"attempt", cur.Attempts+1, "since", cur.Since, "stuck_for", now.Sub(cur.LeaseUntil).Round(time.Millisecond))
	b.o.Metrics.ApprovalResumed()
	v := render.ActionValue{Channel: cur.Channel, ThreadTS: cur.ThreadTS, JobID: cur.JobID, IssueKey: cur.IssueKey}
	b.carryOutApproval(ctx, lock, carryOut{v: v, user: cur.User, messageTS: cur.MessageTS, resumed: &cur}, log)
	return true
}

// keepInFlight renews, until the returned stop is called, the approval's
// lock and its in-flight lease, so that no sweeper takes over an approval
// this replica is still carrying out.
func (b *Bot) keepInFlight(ctx context.Context, lock *sessions.Lock, jobID string, log *slog.Logger) (stop func()) {
	lease := b.o.Store.ApprovalLease()
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(max(lease/3, 10*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if err := lock.Extend(ctx, lease); err != nil && ctx.Err() == nil {
				log.Warn("approval lock not renewed", "err", err)
			}
			err := b.o.Store.ExtendInFlight(ctx, jobID, time.Now().Add(lease))
			if err != nil && !errors.Is(err, sessions.ErrNotFound) && ctx.Err() == nil {
				log.Warn("approval in flight not renewed", "err", err)
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// clearInFlight records that an approval needs no resumption any more.
func (b *Bot) clearInFlight(ctx context.Context, jobID string, log *slog.Logger) {
	if err := b.o.Store.ClearInFlight(context.WithoutCancel(ctx), jobID); err != nil {
		// A sweeper will carry it out again and find it settled.
		log.Warn("approval in flight not cleared", "err", err)
	}
}

// postponeInFlight keeps an approval in flight until the key's approving
// lease (another click's or replica's) runs out, or for a sweep interval.
func (b *Bot) postponeInFlight(ctx context.Context, key, jobID string, log *slog.Logger) {
	until := time.Now().Add(b.o.SweepInterval)
	if a, err := b.o.Store.GetApproval(ctx, key); err == nil && a.LeaseUntil.After(until) {
		until = a.LeaseUntil
	}
	if err := b.o.Store.ExtendInFlight(context.WithoutCancel(ctx), jobID, until); err != nil {
		log.Warn("approval in flight not postponed", "err", err)
	}
}
