package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/autoheal/autoheal/alerts"
	"github.com/autoheal/autoheal/config"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/capset"
	"github.com/autoheal/autoheal/render"
	"github.com/autoheal/autoheal/sessions"
)

// errResultBusy is returned when another replica holds the right to post a
// job's result: the queue retries later and finds it posted.
var errResultBusy = errors.New("bot: another replica is posting this result")

// HandleJob runs one queued job; it is the sessions.Handler of the worker.
// It returns nil (acknowledge) only once the result is in the thread, or
// the job is parked or cannot succeed.
func (b *Bot) HandleJob(ctx context.Context, job sessions.Job) error {
	switch job.Kind {
	case JobKindInvestigate:
		return b.runInvestigation(ctx, job)
	case alerts.JobKind:
		return b.runAlert(ctx, job)
	default:
		return sessions.Permanent(fmt.Errorf("unknown job kind %q", truncateRunes(job.Kind, 40)))
	}
}

func (b *Bot) runInvestigation(ctx context.Context, job sessions.Job) error {
	var p InvestigationJob
	if err := json.Unmarshal(job.Payload, &p); err != nil {
		return sessions.Permanent(fmt.Errorf("job %s: payload: %w", job.ID, err))
	}
	if err := p.Validate(); err != nil {
		return sessions.Permanent(fmt.Errorf("job %s: %w", job.ID, err))
	}
	if !jobIDRE.MatchString(job.ID) {
		return sessions.Permanent(fmt.Errorf("job id %q is not usable in buttons", truncateRunes(job.ID, 40)))
	}
	log := b.log.With("job_id", job.ID, "channel", p.Channel, "thread_ts", p.ThreadTS, "attempt", job.Attempt)

	if rec, err := b.o.Store.GetResult(ctx, job.ID); err == nil {
		log.Info("result already posted; nothing to do")
		if doc, err := b.loadDoc(ctx, job.ID); err == nil {
			// A run that died after posting may not have settled the root.
			b.settleAlertRoot(ctx, p.Channel, p.ThreadTS, job.ID, rec.PostedAt, render.OutcomeOf(doc.Result), log)
		}
		return nil
	} else if !errors.Is(err, sessions.ErrNotFound) {
		return fmt.Errorf("job %s: %w", job.ID, err)
	}

	resolved, err := b.resolve(ctx, p.Channel, p.ThreadTS)
	if err != nil {
		return fmt.Errorf("job %s: settings: %w", job.ID, err)
	}
	cfg := resolved.Settings()
	issue := b.completeIssue(p.Issue, cfg)
	if issue.Key == "" {
		issue.Key = threadIssueKey(p.Channel, p.ThreadTS)
	}
	action := &render.ActionValue{Channel: p.Channel, ThreadTS: p.ThreadTS, JobID: job.ID, IssueKey: truncateBytes(issue.Key, 500)}
	if action.Validate() != nil {
		action.IssueKey = ""
	}

	msgTS, postedAt, err := b.progressMessage(ctx, job, p, issue, action, log)
	if err != nil {
		return fmt.Errorf("job %s: %w", job.ID, err)
	}

	// A previous attempt may have investigated already (and crashed before
	// posting): its result is reused, not recomputed.
	doc, err := b.loadDoc(ctx, job.ID)
	if err != nil && !errors.Is(err, sessions.ErrNotFound) {
		return fmt.Errorf("job %s: %w", job.ID, err)
	}
	retried := doc != nil || job.Attempt > 1

	upd := NewUpdater(UpdaterOptions{
		API: b.api, Channel: p.Channel, TS: msgTS, Interval: b.o.UpdateInterval,
		LastWrite: postedAt, MaxEdits: progressEdits, Clock: b.o.Clock, Logger: log,
	})
	upd.Start(ctx)
	defer upd.Stop()

	if doc == nil {
		if !hasEvidenceBackend(cfg) {
			b.o.Metrics.InvestigationDone("parked", "", "", 0)
			return b.park(ctx, job, p, msgTS, action, log)
		}
		started := time.Now()
		res, err := b.investigate(ctx, issue, cfg, action, upd, log)
		if err != nil {
			b.o.Metrics.InvestigationDone("failed", "", "", time.Since(started))
			return b.failed(ctx, job, p, msgTS, upd, err, log)
		}
		b.o.Metrics.InvestigationDone("ok", string(res.RootCause.Band), string(res.Mode), time.Since(started))
		doc = &resultDoc{Job: p, Result: res, GitHubAPI: cfg.Get("github_api_url")}
		doc.Job.Issue = issue
		b.applyMemory(ctx, job.ID, doc, cfg, log) // may lower the band: before the approval is decided
		doc.Approval = approvalView(res, b.o.MinBand, b.o.Remediator != nil)
		doc.Approval = b.withStanding(ctx, doc.Approval, job.ID, doc, cfg, log)
		enc, err := encodeResultDoc(*doc)
		if err == nil {
			err = b.o.Store.PutResultDoc(ctx, job.ID, enc)
		}
		if err != nil {
			// The result still goes to the thread; buttons that need it
			// will say it is unavailable.
			log.Error("result not kept for later clicks", "err", err)
		}
	}
	return b.postResult(ctx, job.ID, p, msgTS, doc, retried, upd, log)
}

// completeIssue fills what the trigger did not say from the session.
func (b *Bot) completeIssue(issue investigate.Issue, cfg config.Settings) investigate.Issue {
	issue = issue.WithSettings(cfg.Get)
	if issue.End.IsZero() {
		issue.End = b.o.Now()
	}
	if issue.Trigger == "" {
		issue.Trigger = investigate.TriggerMention
	}
	return issue
}

// progressMessage returns the message the job reports in: the one the
// mention handler posted, or one posted now (once per job: a re-run finds
// the first run's message, in the store or, when the first run died
// between Slack's answer and the record, in the thread by its post key).
func (b *Bot) progressMessage(ctx context.Context, job sessions.Job, p InvestigationJob, issue investigate.Issue, action *render.ActionValue, log *slog.Logger) (string, time.Time, error) {
	if p.MessageTS != "" {
		return p.MessageTS, p.PostedAt, nil
	}
	if _, ts, err := b.o.Store.JobMessage(ctx, job.ID); err == nil {
		return ts, time.Time{}, nil
	} else if !errors.Is(err, sessions.ErrNotFound) {
		return "", time.Time{}, err
	}
	key := progressPostKey(job.ID)
	if job.Attempt > 1 && p.ThreadTS != "" {
		ts, found, err := b.findPosted(ctx, p.Channel, p.ThreadTS, key, time.Time{})
		switch {
		case err != nil:
			// A second progress message is better than no investigation.
			log.Warn("thread not searched for an earlier run's progress message", "err", err)
		case found:
			return b.claimProgress(ctx, job.ID, p.Channel, ts, time.Time{})
		}
	}
	msg, err := newProgress(issue.Text, issue.Trigger, action, nil).message()
	if err != nil {
		return "", time.Time{}, err
	}
	ts, err := b.postKeyed(ctx, p.Channel, p.ThreadTS, msg, "progress", key)
	if err != nil {
		return "", time.Time{}, err
	}
	return b.claimProgress(ctx, job.ID, p.Channel, ts, b.o.Clock.Now())
}

// claimProgress records ts as the job's progress message unless another
// run recorded one first; the loser's message is removed.
func (b *Bot) claimProgress(ctx context.Context, jobID, channel, ts string, posted time.Time) (string, time.Time, error) {
	_, won, err := b.o.Store.ClaimJobMessage(ctx, jobID, channel, ts)
	if err != nil {
		return "", time.Time{}, err
	}
	if won != ts {
		// Another run of this job posted first: use its message.
		if _, _, err := b.api.DeleteMessageContext(ctx, channel, ts); err != nil {
			b.log.Warn("duplicate progress message not removed", "ts", ts, "err", err)
		}
		return won, time.Time{}, nil
	}
	return ts, posted, nil
}

// progressPostKey is the post key of a job's progress message: the same
// for every run of the job, so a re-run can find what an earlier one posted.
func progressPostKey(jobID string) string { return "progress:" + jobID }

// CapabilityWrapper is an Investigator that needs the capabilities wrapped
// before the engine gets them (the LLM planner: tool data for the model
// and a call cache for its reference run).
type CapabilityWrapper interface {
	WrapCapabilities([]investigate.Capability) []investigate.Capability
}

// investigate builds the capabilities from the session and runs the
// investigation with the progress observer.
func (b *Bot) investigate(ctx context.Context, issue investigate.Issue, cfg config.Settings, action *render.ActionValue, upd *Updater, log *slog.Logger) (*investigate.HealResult, error) {
	var extra []investigate.Capability
	if b.o.Extra != nil {
		caps, closeFn, err := b.o.Extra(ctx, cfg)
		if err != nil {
			log.Warn("extra capabilities unavailable", "err", b.o.Redactor.String(err.Error()))
		} else {
			extra = caps
			if closeFn != nil {
				defer closeFn()
			}
		}
	}
	prog := newProgress(issue.Text, issue.Trigger, action, nil)
	observer := func(ev investigate.ProgressEvent) {
		prog.observe(ev)
		m, err := prog.message()
		if err != nil {
			log.Warn("progress not rendered", "err", err)
			return
		}
		if err := render.Validate(m); err != nil {
			log.Warn("progress payload rejected by validation; skipped", "err", err)
			return
		}
		upd.Set(m)
	}
	caps, err := capset.Build(ctx, cfg, b.capsetOptions(extra))
	if err != nil {
		log.Warn("mcp servers unavailable", "err", b.o.Redactor.String(err.Error()))
	}
	defer func() { _ = capset.Close(caps) }()
	if w, ok := b.o.Investigator.(CapabilityWrapper); ok {
		caps = w.WrapCapabilities(caps) // the LLM planner sees what `bot investigate` and `bot eval` show it
	}
	e := investigate.New(investigate.Options{
		Capabilities: caps,
		Deadline:     b.o.EngineDeadline,
		ToolTimeout:  b.o.ToolTimeout,
		Observer:     observer,
		Logger:       log,
		Redactor:     b.o.Redactor,
		Runbooks:     b.o.Runbooks,
	})
	started := time.Now()
	res, err := b.o.Investigator.Investigate(ctx, e, issue)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, errors.New("the investigator returned no result")
	}
	log.Info("investigation done", "took", time.Since(started), "tool_calls", res.ToolCalls(), "band", res.RootCause.Band, "bucket", res.RootCause.Bucket)
	return res, nil
}

// park keeps the job until an evidence backend is configured.
func (b *Bot) park(ctx context.Context, job sessions.Job, p InvestigationJob, msgTS string, action *render.ActionValue, log *slog.Logger) error {
	scope := sessions.ThreadScope(p.Channel, p.ThreadTS)
	pj := job
	pj.Attempt, pj.EntryID = 0, ""
	err := b.o.Store.Park(ctx, scope, pj, evidenceKeys)
	if errors.Is(err, sessions.ErrParkFull) {
		log.Warn("investigation not parked: too many waiting in the channel")
		msg := text(":key: No traces, logs, metrics or Kubernetes backend is configured, and too many investigations already wait for one in this channel. Set `loki_url`, `jaeger_url`, `prometheus_url` or `k8s_mcp_url` with `/autoheal config`, then mention me again.")
		return b.update(ctx, p.Channel, msgTS, msg, "park full")
	}
	if err != nil {
		return fmt.Errorf("job %s: park: %w", job.ID, err)
	}
	msg, err := missingBackendMessage(action)
	if err != nil {
		return sessions.Permanent(err)
	}
	if err := b.update(ctx, p.Channel, msgTS, msg, "missing backend"); err != nil {
		log.Warn("missing-backend notice not shown", "err", err)
	}
	log.Info("investigation parked until an evidence backend is configured")
	// A setting given while this job was being parked would have found
	// nothing to resume: look again.
	if again, err := b.resolve(ctx, p.Channel, p.ThreadTS); err == nil && hasEvidenceBackend(again.Settings()) {
		b.resume(ctx, scope, evidenceKeys)
	}
	return nil
}

// failed reports an investigation error: retried while attempts remain,
// shown in the thread on the last one.
func (b *Bot) failed(ctx context.Context, job sessions.Job, p InvestigationJob, msgTS string, upd *Updater, err error, log *slog.Logger) error {
	safe := b.o.Redactor.String(err.Error())
	if ctx.Err() != nil || job.Attempt < b.o.Queue.Options().MaxAttempts {
		log.Warn("investigation failed; it will be retried", "err", safe)
		return fmt.Errorf("investigation: %s", safe)
	}
	log.Error("investigation failed for good", "err", safe)
	msg := text(":x: The investigation failed: " + render.Escape(truncateRunes(safe, 300)) + ". Use `/autoheal status` to check the settings, then mention me again.")
	if ferr := upd.Finish(ctx, msg); ferr != nil {
		log.Warn("failure not shown", "err", ferr)
	}
	b.settleAlertRoot(ctx, p.Channel, p.ThreadTS, job.ID, time.Now(), render.FailedOutcome(truncateRunes(safe, 200)), log)
	return sessions.Permanent(fmt.Errorf("investigation: %s", safe))
}

// postResult turns the progress message into the result and posts the
// follow-ups, exactly once per job across replicas and re-runs.
//
// retried says an earlier attempt of the job may have posted part of it
// (the chart is then looked for before it is uploaded).
func (b *Bot) postResult(ctx context.Context, jobID string, p InvestigationJob, msgTS string, doc *resultDoc, retried bool, upd *Updater, log *slog.Logger) error {
	ok, err := b.o.Store.ClaimResultPost(ctx, jobID)
	if err != nil {
		return fmt.Errorf("job %s: %w", jobID, err)
	}
	if !ok {
		if _, gerr := b.o.Store.GetResult(ctx, jobID); gerr == nil {
			return nil // posted meanwhile
		}
		return errResultBusy
	}
	msgs, err := b.renderResult(doc, jobID)
	if err != nil {
		_ = b.o.Store.ReleaseResultPost(context.WithoutCancel(ctx), jobID)
		return sessions.Permanent(err)
	}
	main, verr := safeMessage(msgs.Main, "result")
	if verr != nil {
		log.Error("result rejected by validation; posting a stand-in", "err", verr)
	}
	resultTS := msgTS
	err = upd.Finish(ctx, main)
	if err == nil {
		b.edits.mark(p.Channel, msgTS, b.o.Clock.Now()) // a click's edit of the result waits its turn
	} else {
		switch slackCode(err) {
		case errMessageNotFound, errCantUpdate:
			// The progress message is gone: post the result as a new reply.
			resultTS, err = b.post(ctx, p.Channel, p.ThreadTS, main, "result")
		}
		if err != nil {
			_ = b.o.Store.ReleaseResultPost(context.WithoutCancel(ctx), jobID)
			return fmt.Errorf("job %s: result not posted: %w", jobID, err)
		}
	}
	b.postChart(ctx, jobID, p.Channel, p.ThreadTS, doc.Result, retried, log)
	b.postAll(ctx, p.Channel, p.ThreadTS, followUpsWithinBudget(msgs.FollowUps), "result follow-up")
	// The alert root shows the outcome before the result counts as posted:
	// whoever waits for the result sees the whole thread settled.
	b.settleAlertRoot(ctx, p.Channel, p.ThreadTS, jobID, time.Now(), render.OutcomeOf(doc.Result), log)
	if err := b.o.Store.MarkResultPosted(context.WithoutCancel(ctx), jobID, p.Channel, resultTS); err != nil {
		// The claim expires; a retry would update the same message again.
		return fmt.Errorf("job %s: result posted but not recorded: %w", jobID, err)
	}
	b.remember(ctx, jobID, doc, resultTS, log)
	log.Info("result posted", "ts", resultTS, "follow_ups", len(msgs.FollowUps))
	return nil
}

// renderResult renders a kept result with its approval state.
func (b *Bot) renderResult(doc *resultDoc, jobID string) (render.ResultMessages, error) {
	action := render.ActionValue{Channel: doc.Job.Channel, ThreadTS: doc.Job.ThreadTS, JobID: jobID, IssueKey: doc.Job.Issue.Key}
	if action.Validate() != nil {
		action.IssueKey = ""
	}
	approval := doc.Approval
	if doc.IssueURL != "" {
		approval.Note = strings.TrimSpace(approval.Note + " Issue: " + doc.IssueURL)
	}
	return render.Result(doc.Result, render.ResultOptions{
		RepoWebURL:  render.WebURLFromAPI(doc.GitHubAPI),
		Approval:    approval,
		Action:      action,
		SeenBefore:  doc.SeenBefore,
		Now:         b.o.Now(),
		CreateIssue: b.o.Issues != nil && reportResult(doc.Result) && doc.IssueURL == "",
	})
}

// loadDoc returns a job's kept result (ErrNotFound when none).
func (b *Bot) loadDoc(ctx context.Context, jobID string) (*resultDoc, error) {
	return loadResultDoc(ctx, b.o.Store, jobID)
}

// loadResultDoc reads a job's kept result document.
func loadResultDoc(ctx context.Context, store *sessions.Store, jobID string) (*resultDoc, error) {
	raw, err := store.ResultDoc(ctx, jobID)
	if err != nil {
		return nil, err
	}
	var d resultDoc
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("result of job %s: %w", jobID, err)
	}
	if d.Result == nil {
		return nil, fmt.Errorf("result of job %s: %w", jobID, sessions.ErrNotFound)
	}
	return &d, nil
}
