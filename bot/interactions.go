package bot

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/autoheal/autoheal/config"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/render"
	"github.com/autoheal/autoheal/sessions"
)

// Limits of interaction handling.
const (
	maxActionsPerClick = 5
	approveTimeout     = 3 * time.Minute
	// issueLockTTL bounds how long a "Create issue" click blocks others.
	issueLockTTL = 10 * time.Minute
	// maxApprovalAttempts bounds the carry-outs of one approval (the
	// click's and the resumptions after crashes): past it the result
	// shows the approval failed, with Retry.
	maxApprovalAttempts = 5
	// rejectBlockID is the block of render.RejectModal's reason input.
	rejectBlockID = "reject_reason"
)

// handleBlockActions dispatches button clicks on AutoHeal's messages.
func (b *Bot) handleBlockActions(ctx context.Context, cb slack.InteractionCallback) {
	user := cb.User.ID
	for i, a := range cb.ActionCallback.BlockActions {
		if i == maxActionsPerClick {
			break
		}
		if a == nil || !strings.HasPrefix(a.ActionID, "autoheal_") {
			continue
		}
		log := b.log.With("action", a.ActionID, "user", user)
		v, err := render.DecodeActionValue(a.Value)
		if err != nil {
			log.Warn("button with an invalid value ignored", "err", err)
			b.ephemeral(ctx, cb.Channel.ID, user, cb.Container.ThreadTs, text("This button is no longer valid."), "invalid button")
			continue
		}
		if cb.Channel.ID != "" && cb.Channel.ID != v.Channel {
			log.Warn("button value names another channel; ignored", "channel", cb.Channel.ID, "value_channel", v.Channel)
			continue
		}
		log = log.With("channel", v.Channel, "thread_ts", v.ThreadTS, "job_id", v.JobID)
		switch a.ActionID {
		case render.ActionConfigure:
			b.openThreadConfig(ctx, cb, v, log)
		case render.ActionReinvestigate:
			b.reinvestigate(ctx, cb, a, v, log)
		case render.ActionViewPatch:
			b.viewPatch(ctx, user, v, log)
		case render.ActionApprove:
			b.approve(ctx, cb, v, log)
		case render.ActionReject:
			b.openReject(ctx, cb, v, log)
		case render.ActionCreateIssue:
			b.createIssue(ctx, cb, v, log)
		default:
			b.ephemeral(ctx, v.Channel, user, v.ThreadTS, text("This action is not available."), "unknown action")
		}
	}
}

// openThreadConfig opens the settings modal scoped to the button's thread.
func (b *Bot) openThreadConfig(ctx context.Context, cb slack.InteractionCallback, v render.ActionValue, log *slog.Logger) {
	resolved, err := b.resolve(ctx, v.Channel, v.ThreadTS)
	if err != nil {
		log.Warn("settings unavailable", "err", err)
		b.ephemeral(ctx, v.Channel, cb.User.ID, v.ThreadTS, text(":warning: Settings are unavailable right now; try again in a moment."), "config error")
		return
	}
	modal, err := render.ConfigModal(renderSettings(resolved), render.Meta{Channel: v.Channel, ThreadTS: v.ThreadTS})
	if err == nil {
		err = b.openView(ctx, cb.TriggerID, modal)
	}
	if err != nil {
		log.Warn("config modal not opened", "err", err)
		b.ephemeral(ctx, v.Channel, cb.User.ID, v.ThreadTS, text("I could not open the settings form; add settings as `key: value` lines in a mention instead."), "config error")
	}
}

// reinvestigate starts a fresh investigation of the same issue in the thread.
func (b *Bot) reinvestigate(ctx context.Context, cb slack.InteractionCallback, a *slack.BlockAction, v render.ActionValue, log *slog.Logger) {
	first, err := b.o.Store.FirstSeen(ctx, "slack-action:"+v.Channel+":"+a.ActionTs+":"+cb.User.ID, b.o.DedupeTTL)
	if err != nil || !first {
		if err != nil {
			log.Error("re-investigate not handled: de-duplication unavailable", "err", err)
		}
		return
	}
	doc, err := b.loadDoc(ctx, v.JobID)
	if err != nil {
		log.Info("re-investigate: original result unavailable", "err", err)
		b.ephemeral(ctx, v.Channel, cb.User.ID, v.ThreadTS, text("The original investigation has expired; mention me with the issue to investigate again."), "reinvestigate expired")
		return
	}
	issue := doc.Job.Issue
	issue.Start, issue.End = time.Time{}, time.Time{} // a fresh window ending now
	b.startInvestigation(ctx, newJobID("r-"), v.Channel, v.ThreadTS, cb.User.ID, issue, log)
	if issue.Trigger == investigate.TriggerAlert && issue.Key != "" {
		// The alert's cooldown counts from this investigation.
		if _, err := b.o.Store.MarkInvestigated(ctx, issue.Key, time.Now()); err != nil && !errors.Is(err, sessions.ErrNotFound) {
			log.Warn("re-investigation not recorded on the incident", "err", err)
		}
	}
}

// viewPatch posts the whole proposed change in the thread.
func (b *Bot) viewPatch(ctx context.Context, user string, v render.ActionValue, log *slog.Logger) {
	doc, err := b.loadDoc(ctx, v.JobID)
	if err != nil {
		log.Info("view patch: result unavailable", "err", err)
		b.ephemeral(ctx, v.Channel, user, v.ThreadTS, text("This result has expired; re-investigate to get a fresh patch."), "patch expired")
		return
	}
	msgs := render.PatchMessages(withManifestDiff(doc.Result), true)
	if len(msgs) == 0 {
		b.ephemeral(ctx, v.Channel, user, v.ThreadTS, text("This result proposes no change to a repository."), "no patch")
		return
	}
	b.postAll(ctx, v.Channel, v.ThreadTS, msgs, "patch")
}

// withManifestDiff shows a manifest edit as a one-line diff so that View
// patch has something to show for infrastructure fixes.
func withManifestDiff(r *investigate.HealResult) *investigate.HealResult {
	m := r.Fix.ManifestEdit
	if r.Fix.Patch != nil || m == nil {
		return r
	}
	cp := *r
	key := m.Path
	if i := strings.LastIndex(key, "."); i >= 0 {
		key = key[i+1:]
	}
	diff := fmt.Sprintf("--- a/%s\n+++ b/%s\n@@ -%d +%d @@\n-  %s: %s\n+  %s: %s\n", m.File, m.File, m.Line, m.Line, key, m.OldValue, key, m.NewValue)
	cp.Fix.Patch = &investigate.Patch{File: m.File, Diff: diff, Explanation: m.Reason}
	return &cp
}

// authorize checks an approver and, when refused, tells the user and
// leaves an audit line in the thread.
func (b *Bot) authorize(ctx context.Context, user, verb string, v render.ActionValue, log *slog.Logger) bool {
	return b.authorizeClick(ctx, user, verb, verb+" fixes", capitalize(verb), v, log)
}

// authorizeClick is authorize for any button: what the user may not do
// ("create issues") and the button's label.
func (b *Bot) authorizeClick(ctx context.Context, user, verb, what, button string, v render.ActionValue, log *slog.Logger) bool {
	ok := false
	if b.o.Approvers != nil {
		var err error
		ok, err = b.o.Approvers.Authorize(ctx, user)
		if err != nil {
			log.Error("approver check failed", "err", err)
			b.ephemeral(ctx, v.Channel, user, v.ThreadTS, text(":warning: I could not check the approver list; try again in a moment."), "authz error")
			return false
		}
	}
	if ok {
		return true
	}
	log.Warn("unauthorized click refused", "verb", verb)
	b.ephemeral(ctx, v.Channel, user, v.ThreadTS,
		text(":no_entry: You cannot "+what+": only the approvers named in AUTOHEAL_APPROVERS can."), "authz refusal")
	audit := fmt.Sprintf(":shield: <@%s> clicked %s but is not an approver; nothing was done.", user, button)
	if _, err := b.post(ctx, v.Channel, v.ThreadTS, text(audit), "audit"); err != nil {
		log.Warn("audit line not posted", "err", err)
	}
	rec := sessions.AuditRecord{Action: sessions.AuditRefused, IssueKey: clickIssueKey(v), User: user, Proposal: v.JobID,
		Channel: v.Channel, ThreadTS: v.ThreadTS, Detail: verb}
	if err := b.o.Store.RecordAudit(ctx, rec); err != nil {
		log.Warn("audit not recorded", "err", err)
	}
	b.countDecision(sessions.AuditRefused)
	return false
}

// countDecision counts a decision the audit log recorded.
func (b *Bot) countDecision(action sessions.AuditAction) {
	if action != "" {
		b.o.Metrics.Approval(string(action))
	}
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// threadIssueKey is the issue key of a mention thread. A thread is one
// incident, as an alert's thread is its alert's: the thread's approvals,
// re-investigations, pull request and audit records share the key.
func threadIssueKey(channel, threadTS string) string { return "slack-" + channel + "-" + threadTS }

// clickIssueKey is the issue key of a button's result, from the button.
func clickIssueKey(v render.ActionValue) string {
	if v.IssueKey != "" {
		return v.IssueKey
	}
	return threadIssueKey(v.Channel, v.ThreadTS)
}

// resultMessage finds the message showing a job's result.
func (b *Bot) resultMessage(ctx context.Context, jobID, fallbackChannel, fallbackTS string) (string, string) {
	if rec, err := b.o.Store.GetResult(ctx, jobID); err == nil {
		return rec.Channel, rec.MessageTS
	}
	return fallbackChannel, fallbackTS
}

// saveDecision stores a result's new approval state and re-renders it.
func (b *Bot) saveDecision(ctx context.Context, jobID string, doc *resultDoc, channel, ts string, log *slog.Logger) {
	if enc, err := encodeResultDoc(*doc); err != nil {
		log.Error("approval state not encoded", "err", err)
	} else if err := b.o.Store.PutResultDoc(ctx, jobID, enc); err != nil {
		log.Error("approval state not kept", "err", err)
	}
	b.rememberDecision(ctx, jobID, doc, log)
	if ts == "" {
		return
	}
	msgs, err := b.renderResult(doc, jobID)
	if err != nil {
		log.Error("result not re-rendered", "err", err)
		return
	}
	if err := b.update(ctx, channel, ts, msgs.Main, "result"); err != nil {
		log.Warn("result message not updated", "err", err)
	}
}

// answerDecided answers a click on an approved or rejected proposal (true)
// and leaves the others to the caller (false).
func (b *Bot) answerDecided(ctx context.Context, doc *resultDoc, v render.ActionValue, user string, log *slog.Logger) bool {
	switch doc.Approval.State {
	case render.ApprovalApproved:
		b.ephemeral(ctx, v.Channel, user, v.ThreadTS, text("This fix is already approved."), "approve done")
		if doc.PR != nil {
			// A replica that died after the decision may not have linked it.
			b.postPRLink(ctx, v.Channel, v.ThreadTS, *doc.PR, log)
		}
		return true
	case render.ApprovalRejected:
		b.ephemeral(ctx, v.Channel, user, v.ThreadTS, text("This fix was rejected; re-investigate to get a new proposal."), "approve rejected")
		return true
	}
	return false
}

// approve opens the pull request of a result's fix.
func (b *Bot) approve(ctx context.Context, cb slack.InteractionCallback, v render.ActionValue, log *slog.Logger) {
	user := cb.User.ID
	if b.o.Remediator == nil {
		b.ephemeral(ctx, v.Channel, user, v.ThreadTS, text("Approval is not available: pull requests are not enabled on this AutoHeal (no remediator is configured). Apply the fix by hand."), "no remediator")
		return
	}
	if !b.authorize(ctx, user, "approve", v, log) {
		return
	}
	// A decided proposal says so even while the click that decided it
	// still holds the lock (re-rendering the result, linking the PR).
	if doc, err := b.loadDoc(ctx, v.JobID); err == nil && b.answerDecided(ctx, doc, v, user, log) {
		return
	}
	lock, err := b.o.Store.Lock(ctx, approveLockName(v.JobID), b.o.Store.ApprovalLease())
	if errors.Is(err, sessions.ErrLocked) {
		b.ephemeral(ctx, v.Channel, user, v.ThreadTS, text("An approval of this fix is already in progress."), "approve busy")
		return
	}
	if err != nil {
		log.Error("approval lock unavailable", "err", err)
		b.ephemeral(ctx, v.Channel, user, v.ThreadTS, text(":warning: I could not start the approval; try again in a moment."), "approve error")
		return
	}
	defer func() { _ = lock.Unlock(context.WithoutCancel(ctx)) }()
	b.carryOutApproval(ctx, lock, carryOut{v: v, user: user, messageTS: cb.Container.MessageTs}, log)
}

// approveLockName is the lock held by whoever carries out a result's
// approval: a click, or a sweeper resuming it.
func approveLockName(jobID string) string { return "approve:" + jobID }

// carryOut is one approval to carry out: a click's, or one whose replica
// died while carrying it out (resumed, by the sweeper).
type carryOut struct {
	v    render.ActionValue
	user string
	// messageTS is the result message when known (the click's message).
	messageTS string
	// resumed is the record of the interrupted approval; nil for a click.
	resumed *sessions.InFlight
}

// tell answers the clicker; a resumed approval has nobody waiting for an
// answer, so it is only logged.
func (b *Bot) tell(ctx context.Context, c carryOut, msg, what string, log *slog.Logger) {
	if c.resumed != nil {
		log.Info("resumed approval: "+what, "detail", msg)
		return
	}
	b.ephemeral(ctx, c.v.Channel, c.user, c.v.ThreadTS, text(msg), what)
}

// carryOutApproval opens (or finds, or resumes) the pull request of an
// approved fix, shows it on the result and links it once in the thread.
// The caller holds the approval's lock. From the moment the click is
// accepted until the link is posted, the approval is recorded in flight
// with a lease this replica keeps renewing: when the replica dies, the
// lease runs out and another replica's sweeper carries the approval out
// again from the top (remediate finds the branch and pull request this
// one left; the link reply is posted once per thread).
func (b *Bot) carryOutApproval(ctx context.Context, lock *sessions.Lock, c carryOut, log *slog.Logger) {
	v, user := c.v, c.user
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), approveTimeout)
	defer cancel()
	defer b.keepInFlight(actx, lock, v.JobID, log)()

	doc, err := b.loadDoc(actx, v.JobID)
	if err != nil {
		log.Info("approve: result unavailable", "err", err)
		b.tell(actx, c, "This result has expired; re-investigate before approving.", "approve expired", log)
		if c.resumed != nil && errors.Is(err, sessions.ErrNotFound) {
			b.clearInFlight(actx, v.JobID, log) // nothing left to show it on
		}
		return
	}
	if b.settled(actx, doc, c, log) {
		b.clearInFlight(actx, v.JobID, log)
		return
	}
	if doc.Approval.State == render.ApprovalOpening && c.resumed == nil {
		// Nobody holds the approval lock, so the click that started opening
		// the pull request died on the way: resume it (remediate finds what
		// it did and finishes).
		log.Info("approval left opening by an earlier click; resuming")
	}
	channel, ts := b.resultMessage(actx, v.JobID, v.Channel, c.messageTS)
	// What the button offered: a new pull request, or the update of one.
	offered := doc.Approval
	if offered.State == render.ApprovalOpening {
		offered = render.ApprovalView{Eligible: true, UpdatePR: offered.UpdatePR}
	}
	if view := approvalView(doc.Result, b.o.MinBand, true); !view.Eligible {
		b.tell(actx, c, render.Escape(view.Note), "approve ineligible", log)
		if c.resumed != nil {
			doc.Approval = view
			b.saveDecision(actx, v.JobID, doc, channel, ts, log)
			b.clearInFlight(actx, v.JobID, log)
		}
		return
	}
	key := b.remediationKey(actx, doc, v.JobID)
	entry, err := b.o.Store.MarkInFlight(actx, sessions.InFlight{JobID: v.JobID, IssueKey: key, User: user,
		Channel: v.Channel, ThreadTS: v.ThreadTS, MessageTS: ts})
	if err != nil {
		// Without the record a crash would lose the approval: refuse it.
		log.Error("approval not recorded in flight", "err", err)
		b.tell(actx, c, ":warning: I could not start the approval; try again in a moment.", "approve error", log)
		return
	}
	if entry.Attempts > maxApprovalAttempts {
		log.Warn("approval given up: interrupted too often", "attempts", entry.Attempts-1, "since", entry.Since)
		doc.Approval = render.ApprovalView{Eligible: true, State: render.ApprovalFailed, By: user, UpdatePR: offered.UpdatePR,
			Error: fmt.Sprintf("opening the pull request was interrupted %d times; click Retry to try again", entry.Attempts-1)}
		b.saveDecision(actx, v.JobID, doc, channel, ts, log)
		b.clearInFlight(actx, v.JobID, log)
		return
	}
	resolved, err := b.resolve(actx, v.Channel, v.ThreadTS)
	if err != nil {
		log.Error("approve: settings unavailable", "err", err)
		b.tell(actx, c, ":warning: Settings are unavailable right now; try again in a moment.", "approve error", log)
		if entry.Attempts == 1 {
			b.clearInFlight(actx, v.JobID, log) // the clicker was told to try again
		}
		// An interrupted approval stays in flight: the sweep after its
		// lease tries again, counting one more attempt.
		return
	}
	doc.Approval = render.ApprovalView{Eligible: true, State: render.ApprovalOpening, By: user, UpdatePR: offered.UpdatePR}
	b.saveDecision(actx, v.JobID, doc, channel, ts, log)

	d, err := b.o.Remediator.Approve(actx, ApprovalRequest{
		JobID: v.JobID, IssueKey: key, Channel: v.Channel, ThreadTS: v.ThreadTS, User: user,
		Result: doc.Result, Settings: resolved.Settings(), Guard: b.guard,
	})
	b.countDecision(d.Action)
	if err != nil {
		log.Error("pull request not opened", "err", b.o.Redactor.String(err.Error()))
		if d.State == "" {
			d.State, d.Error = render.ApprovalFailed, "the pull request could not be opened; click Retry to resume"
		}
	}
	switch d.State {
	case "":
		// Refused or nothing to do: show the result as it was.
		doc.Approval = offered
	case render.ApprovalFailed:
		doc.Approval = render.ApprovalView{Eligible: true, State: d.State, By: user, Error: truncateRunes(b.o.Redactor.String(d.Error), 300), UpdatePR: offered.UpdatePR}
	default:
		doc.Approval = render.ApprovalView{Eligible: true, State: d.State, By: user, PRURL: d.PRURL, UpdatePR: offered.UpdatePR, Updated: d.Updated}
		if d.State == render.ApprovalApproved && d.PRURL != "" {
			doc.PR = &render.PullRequestLink{URL: d.PRURL, Number: d.PRNumber, Title: d.PRTitle, SameFix: d.SameFix}
		}
		log.Info("approval recorded", "state", d.State, "pr", d.PRURL, "updated", d.Updated, "resumed", c.resumed != nil)
	}
	b.saveDecision(actx, v.JobID, doc, channel, ts, log)
	if doc.PR != nil && d.State == render.ApprovalApproved && !d.Updated {
		// An update's thread note says what changed on the pull request.
		b.postPRLink(actx, v.Channel, v.ThreadTS, *doc.PR, log)
	}
	b.notes(actx, v, user, d, log)
	if d.State == render.ApprovalOpening {
		// Another click or replica holds the key's approving lease: this
		// approval stays in flight, looked at again when that lease ends.
		b.postponeInFlight(actx, key, v.JobID, log)
		return
	}
	b.clearInFlight(actx, v.JobID, log)
}

// settled handles an approved or rejected proposal (true): a click is
// told so, and the pull request is linked in the thread when the replica
// that decided it died before linking it.
func (b *Bot) settled(ctx context.Context, doc *resultDoc, c carryOut, log *slog.Logger) bool {
	if c.resumed == nil {
		return b.answerDecided(ctx, doc, c.v, c.user, log)
	}
	switch doc.Approval.State {
	case render.ApprovalApproved:
		if doc.PR != nil {
			b.postPRLink(ctx, c.v.Channel, c.v.ThreadTS, *doc.PR, log)
		}
		return true
	case render.ApprovalRejected:
		return true
	}
	return false
}

// postPRLink posts the thread's one reply linking a pull request, once per
// thread and pull request whichever replica, click or retry gets here: a
// lock keeps replicas from posting at the same time, and a record made
// after the post keeps later clicks from posting again.
func (b *Bot) postPRLink(ctx context.Context, channel, threadTS string, l render.PullRequestLink, log *slog.Logger) {
	if strings.TrimSpace(l.URL) == "" {
		return
	}
	id := prLinkID(channel, threadTS, l.URL)
	lock, err := b.o.Store.Lock(ctx, id, time.Minute)
	if err != nil {
		if !errors.Is(err, sessions.ErrLocked) {
			log.Warn("pull request link not posted: lock unavailable", "err", err)
		}
		return // another replica is posting it
	}
	defer func() { _ = lock.Unlock(context.WithoutCancel(ctx)) }()
	if _, err := b.o.Store.ResultDoc(ctx, id); err == nil {
		return // posted already
	} else if !errors.Is(err, sessions.ErrNotFound) {
		log.Warn("pull request link not posted: state store unavailable", "err", err)
		return
	}
	l.Title = b.o.Redactor.String(l.Title)
	if _, err := b.post(ctx, channel, threadTS, render.PullRequestLinkReply(l), "pull request link"); err != nil {
		log.Warn("pull request link not posted", "err", err)
		return
	}
	if err := b.o.Store.PutResultDoc(context.WithoutCancel(ctx), id, []byte(l.URL)); err != nil {
		log.Warn("pull request link not recorded", "err", err)
	}
}

// prLinkID names the record of a thread's link to a pull request.
func prLinkID(channel, threadTS, url string) string {
	sum := sha256.Sum256([]byte(channel + "\x00" + threadTS + "\x00" + url))
	return "pr-link-" + hex.EncodeToString(sum[:12])
}

// createIssue opens a GitHub issue with a report result's report (bad
// data, flakes), once: a second click, here or on another replica, finds
// the same issue.
func (b *Bot) createIssue(ctx context.Context, cb slack.InteractionCallback, v render.ActionValue, log *slog.Logger) {
	user := cb.User.ID
	if b.o.Issues == nil {
		b.ephemeral(ctx, v.Channel, user, v.ThreadTS, text("Creating issues is not enabled on this AutoHeal."), "no issues")
		return
	}
	if !b.authorizeClick(ctx, user, "create issue", "create issues", "Create issue", v, log) {
		return
	}
	lock, err := b.o.Store.Lock(ctx, "issue:"+v.JobID, issueLockTTL)
	if errors.Is(err, sessions.ErrLocked) {
		b.ephemeral(ctx, v.Channel, user, v.ThreadTS, text("The issue is already being created."), "issue busy")
		return
	}
	if err != nil {
		log.Error("issue lock unavailable", "err", err)
		b.ephemeral(ctx, v.Channel, user, v.ThreadTS, text(":warning: I could not create the issue; try again in a moment."), "issue error")
		return
	}
	defer func() { _ = lock.Unlock(context.WithoutCancel(ctx)) }()

	doc, err := b.loadDoc(ctx, v.JobID)
	if err != nil {
		log.Info("create issue: result unavailable", "err", err)
		b.ephemeral(ctx, v.Channel, user, v.ThreadTS, text("This result has expired; re-investigate to report it."), "issue expired")
		return
	}
	if doc.IssueURL != "" {
		b.ephemeral(ctx, v.Channel, user, v.ThreadTS, text("An issue was already created: "+doc.IssueURL), "issue done")
		return
	}
	if !reportResult(doc.Result) {
		b.ephemeral(ctx, v.Channel, user, v.ThreadTS, text("This result proposes a fix, not a report: use Approve."), "issue ineligible")
		return
	}
	resolved, err := b.resolve(ctx, v.Channel, v.ThreadTS)
	if err != nil {
		log.Error("create issue: settings unavailable", "err", err)
		b.ephemeral(ctx, v.Channel, user, v.ThreadTS, text(":warning: Settings are unavailable right now; try again in a moment."), "issue error")
		return
	}
	ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), approveTimeout)
	defer cancel()
	_ = lock.Extend(ictx, issueLockTTL)
	d, err := b.o.Issues.CreateIssue(ictx, ApprovalRequest{
		JobID: v.JobID, IssueKey: b.remediationKey(ctx, doc, v.JobID), Channel: v.Channel, ThreadTS: v.ThreadTS, User: user,
		Result: doc.Result, Settings: resolved.Settings(), Guard: b.guard,
	})
	b.countDecision(d.Action)
	if err != nil {
		log.Error("issue not created", "err", b.o.Redactor.String(err.Error()))
		if d.Error == "" && d.URL == "" {
			d.Error = "the issue could not be created; try again"
		}
	}
	if d.URL != "" {
		doc.IssueURL = d.URL
		channel, ts := b.resultMessage(ictx, v.JobID, v.Channel, cb.Container.MessageTs)
		b.saveDecision(ictx, v.JobID, doc, channel, ts, log)
		line := fmt.Sprintf(":memo: <@%s> opened an issue with this report: %s", user, d.URL)
		if !d.Created {
			line = fmt.Sprintf(":memo: The issue with this report already exists: %s", d.URL)
		}
		if _, err := b.post(ictx, v.Channel, v.ThreadTS, text(b.o.Redactor.String(line)), "issue link"); err != nil {
			log.Warn("issue link not posted", "err", err)
		}
		log.Info("issue recorded", "issue", d.URL, "created", d.Created)
	}
	if d.Error != "" {
		b.ephemeral(ictx, v.Channel, user, v.ThreadTS, text(":x: "+render.Escape(truncateRunes(b.o.Redactor.String(d.Error), 300))), "issue failed")
	}
	b.notes(ictx, v, user, Decision{ThreadNote: d.ThreadNote, UserNote: d.UserNote}, log)
}

// notes shows a decision's texts: the thread note to all, the user note to
// the clicker.
func (b *Bot) notes(ctx context.Context, v render.ActionValue, user string, d Decision, log *slog.Logger) {
	if n := strings.TrimSpace(d.ThreadNote); n != "" {
		if _, err := b.post(ctx, v.Channel, v.ThreadTS, text(b.o.Redactor.String(n)), "decision note"); err != nil {
			log.Warn("decision note not posted", "err", err)
		}
	}
	if n := strings.TrimSpace(d.UserNote); n != "" {
		b.ephemeral(ctx, v.Channel, user, v.ThreadTS, text(b.o.Redactor.String(n)), "decision note")
	}
}

// remediationKey is the issue key a result's approval is kept under: the
// alert's key or the mention thread's. Mention results kept from before
// threads had keys use the record of their own job ("slack-<job id>")
// when one exists, so that an approval in flight resumes where it was.
func (b *Bot) remediationKey(ctx context.Context, doc *resultDoc, jobID string) string {
	if k := doc.Job.Issue.Key; k != "" {
		return k
	}
	if legacy := "slack-" + jobID; b.o.Store != nil {
		if _, err := b.o.Store.GetApproval(ctx, legacy); err == nil {
			return legacy
		}
	}
	return threadIssueKey(doc.Job.Channel, doc.Job.ThreadTS)
}

// openReject asks an approver why the fix is wrong.
func (b *Bot) openReject(ctx context.Context, cb slack.InteractionCallback, v render.ActionValue, log *slog.Logger) {
	if !b.authorize(ctx, cb.User.ID, "reject", v, log) {
		return
	}
	_, ts := b.resultMessage(ctx, v.JobID, v.Channel, cb.Container.MessageTs)
	meta := v.Meta()
	if slackTSRE.MatchString(ts) {
		meta.MessageTS = ts
	}
	modal, err := render.RejectModal(meta)
	if err == nil {
		err = b.openView(ctx, cb.TriggerID, modal)
	}
	if err != nil {
		log.Warn("reject modal not opened", "err", err)
		b.ephemeral(ctx, v.Channel, cb.User.ID, v.ThreadTS, text("I could not open the reject form; try again."), "reject error")
	}
}

// handleViewSubmission handles modal submissions; ack must be called once,
// with nil to close the modal or a response (validation errors).
func (b *Bot) handleViewSubmission(ctx context.Context, cb slack.InteractionCallback, ack func(any)) {
	switch cb.View.CallbackID {
	case render.CallbackConfig:
		b.submitConfig(ctx, cb, ack)
	case render.CallbackRejectReason:
		b.submitReject(ctx, cb, ack)
	default:
		ack(nil)
	}
}

// channelMeta is the private_metadata of the channel-wide settings modal
// (render.Meta always names a thread).
type channelMeta struct {
	Scope   string `json:"scope"`
	Channel string `json:"channel"`
}

const scopeChannel = "channel"

// channelConfigModal is render.ConfigModal scoped to a whole channel.
func channelConfigModal(current render.Settings, channel string) (slack.ModalViewRequest, error) {
	// The placeholder thread only satisfies Meta's validation; the
	// metadata is replaced below.
	v, err := render.ConfigModal(current, render.Meta{Channel: channel, ThreadTS: "0.0"})
	if err != nil {
		return v, err
	}
	pm, err := json.Marshal(channelMeta{Scope: scopeChannel, Channel: channel})
	if err != nil {
		return v, fmt.Errorf("channel config modal: %w", err)
	}
	v.PrivateMetadata = string(pm)
	if len(v.Blocks.BlockSet) > 0 {
		if _, ok := v.Blocks.BlockSet[0].(*slack.ContextBlock); ok {
			v.Blocks.BlockSet[0] = slack.NewContextBlock("", slack.NewTextBlockObject(slack.MarkdownType,
				"Settings apply to this channel (threads may override them). Leave a field empty to keep its current value. Secrets are stored encrypted and never shown.", false, false))
		}
	}
	return v, nil
}

// configScope reads where a config modal's settings go.
func configScope(privateMetadata string) (sessions.Scope, string, error) {
	if m, err := render.DecodeMeta(privateMetadata); err == nil {
		return sessions.ThreadScope(m.Channel, m.ThreadTS), "this thread", nil
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(truncateBytes(privateMetadata, render.MaxPrivateMetadata))))
	dec.DisallowUnknownFields()
	var cm channelMeta
	if err := dec.Decode(&cm); err != nil || cm.Scope != scopeChannel || !channelIDRE.MatchString(cm.Channel) {
		return sessions.Scope{}, "", fmt.Errorf("%w: config modal metadata", render.ErrInvalidValue)
	}
	return sessions.ChannelScope(cm.Channel), "this channel", nil
}

// submitConfig saves a settings modal to its thread or channel.
func (b *Bot) submitConfig(ctx context.Context, cb slack.InteractionCallback, ack func(any)) {
	user := cb.User.ID
	log := b.log.With("view", cb.View.ID, "user", user)
	scope, scopeName, err := configScope(cb.View.PrivateMetadata)
	if err != nil {
		log.Warn("config submission with invalid metadata ignored", "err", err)
		ack(nil)
		return
	}
	firstBlock := render.ConfigBlockID(config.Keys[0].Name)
	resolved, err := b.resolve(ctx, scope.Channel, scope.ThreadTS)
	if err != nil {
		log.Error("config submission: settings unavailable", "err", err)
		ack(slack.NewErrorsViewSubmissionResponse(map[string]string{firstBlock: "Settings are unavailable right now; try again in a moment."}))
		return
	}
	sub := render.ParseConfigSubmission(cb.View.State, renderSettings(resolved))
	if len(sub.Errors) > 0 {
		ack(slack.NewErrorsViewSubmissionResponse(sub.Errors))
		return
	}
	if len(sub.Values) == 0 {
		ack(nil)
		return
	}
	values, refused := b.vetSettings(ctx, scope, user, viaForm, sub.Values)
	if len(refused) > 0 {
		// The form stays open with each refused field saying why; nothing
		// is saved until the user changes or clears them.
		errs := map[string]string{}
		for _, r := range refused {
			errs[render.ConfigBlockID(r.Key)] = truncateRunes(r.Message, 150)
		}
		ack(slack.NewErrorsViewSubmissionResponse(errs))
		return
	}
	sub.Values = values
	for k, v := range sub.Values {
		if config.IsSecret(k) {
			b.o.Redactor.Register(v)
		}
	}
	if err := b.o.Store.Set(ctx, scope, sub.Values); err != nil {
		errs := map[string]string{}
		switch {
		case errors.Is(err, sessions.ErrNoEncryptionKey):
			for k := range sub.Values {
				if config.IsSecret(k) {
					errs[render.ConfigBlockID(k)] = "Not saved: this AutoHeal cannot store secrets (AUTOHEAL_ENCRYPTION_KEY is not set)."
				}
			}
		case errors.Is(err, sessions.ErrTooManyKeys):
			errs[firstBlock] = "Not saved: too many settings in this scope."
		}
		if len(errs) == 0 {
			log.Error("config submission not saved", "err", err)
			errs[render.ConfigBlockID(sortedKeys(sub.Values)[0])] = "Not saved: the session store is unavailable; try again."
		}
		ack(slack.NewErrorsViewSubmissionResponse(errs))
		return
	}
	ack(nil)
	b.auditSaved(ctx, scope, user, viaForm, sub.Values)
	keys := sortedKeys(sub.Values)
	log.Info("settings saved from the form", "scope", scope.String(), "keys", keys)
	out := saveOutcome{saved: sub.Values, resumed: b.resume(ctx, scope, keys)}
	b.ephemeral(ctx, scope.Channel, user, scope.ThreadTS, settingsReply(out, scopeName, false), "settings reply")
}

// submitReject records a rejection with its reason.
func (b *Bot) submitReject(ctx context.Context, cb slack.InteractionCallback, ack func(any)) {
	user := cb.User.ID
	meta, err := render.DecodeMeta(cb.View.PrivateMetadata)
	if err != nil || meta.JobID == "" {
		b.log.Warn("reject submission with invalid metadata ignored", "err", err)
		ack(nil)
		return
	}
	reason, err := render.ParseRejectReason(cb.View.State)
	if err != nil {
		ack(slack.NewErrorsViewSubmissionResponse(map[string]string{rejectBlockID: "Please say why the fix is wrong (at most 1000 characters)."}))
		return
	}
	ack(nil)
	v := render.ActionValue{Channel: meta.Channel, ThreadTS: meta.ThreadTS, JobID: meta.JobID, IssueKey: meta.IssueKey}
	log := b.log.With("user", user, "channel", v.Channel, "thread_ts", v.ThreadTS, "job_id", v.JobID)
	if !b.authorize(ctx, user, "reject", v, log) {
		return
	}
	doc, err := b.loadDoc(ctx, v.JobID)
	if err != nil {
		b.ephemeral(ctx, v.Channel, user, v.ThreadTS, text("This result has expired; nothing to reject."), "reject expired")
		return
	}
	reason = b.o.Redactor.String(reason)
	if b.o.Remediator == nil {
		b.ephemeral(ctx, v.Channel, user, v.ThreadTS, text("Approval is not available on this AutoHeal: nothing to reject."), "no remediator")
		return
	}
	resolved, err := b.resolve(ctx, v.Channel, v.ThreadTS)
	if err != nil {
		log.Error("reject: settings unavailable", "err", err)
	}
	d, err := b.o.Remediator.Reject(ctx, ApprovalRequest{
		JobID: v.JobID, IssueKey: b.remediationKey(ctx, doc, v.JobID), Channel: v.Channel, ThreadTS: v.ThreadTS, User: user,
		Result: doc.Result, Settings: resolved.Settings(), Guard: b.guard,
	}, reason)
	b.countDecision(d.Action)
	if err != nil {
		log.Error("rejection not recorded", "err", b.o.Redactor.String(err.Error()))
		if d.UserNote == "" {
			d.UserNote = "The rejection could not be recorded; try again."
		}
	}
	if d.State == render.ApprovalRejected {
		channel, ts := b.resultMessage(ctx, v.JobID, v.Channel, meta.MessageTS)
		doc.Approval = render.ApprovalView{Eligible: doc.Approval.Eligible, State: render.ApprovalRejected, By: user, RejectReason: reason, UpdatePR: doc.Approval.UpdatePR}
		b.saveDecision(ctx, v.JobID, doc, channel, ts, log)
	}
	b.notes(ctx, v, user, d, log)
	log.Info("fix rejected")
}
