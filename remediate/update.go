package remediate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/sessions"
)

// An issue key has at most one open pull request. When its incident comes
// back with a different fix, nothing is pushed until an approver clicks:
// Standing (before the result is shown) and Refire (on a re-fire) only read
// GitHub and say whether the open pull request already carries the new
// fix, whether the new fix applies to it, or whether the key's pull request
// was merged or closed. The approved update (updatePR) is one commit on the
// pull request's branch, made by applying the change to the files as they
// are at its head, and a new title and description for the new root cause.
// A regression after a merged or closed pull request opens a new one on a
// new branch (currentPR) that links the old one.

// maxPRChain bounds how many merged or closed pull requests of one key
// currentPR follows to the current branch.
const maxPRChain = 20

// regressionBranch is the branch of the pull request that follows number,
// merged or closed, for key: deterministic, so that a retry finds it.
func (s *Service) regressionBranch(key string, number int) string {
	return fmt.Sprintf("%s-after-%d", s.Branch(key), number)
}

// prRef describes a pull request for messages and bodies.
func prRef(pr *github.PullRequest) *PRRef {
	st := pr.GetState()
	if st == "closed" && (pr.GetMerged() || pr.MergedAt != nil) {
		st = "merged"
	}
	return &PRRef{Number: pr.GetNumber(), URL: pr.GetHTMLURL(), State: st}
}

// PRState reads what became of pull request number of repo (owner/name):
// "open", "merged" or "closed" (closed without merging). It only reads.
func (s *Service) PRState(ctx context.Context, repo string, number int, creds *Credentials) (string, error) {
	if number <= 0 {
		return "", fmt.Errorf("remediate: no pull request number %d", number)
	}
	rc, err := s.repo(repo, creds)
	if err != nil {
		return "", err
	}
	pr, err := rc.getPR(ctx, number)
	if err != nil {
		return "", err
	}
	return prRef(pr).State, nil
}

// currentPR finds where key's pull request stands, starting at branch: the
// open pull request of the branch (open), or, when the branch's latest
// pull request was merged or closed, the branch that follows it, and so on
// (prev is the last merged or closed one). With neither, branch is where
// a new pull request goes. It only reads.
func (s *Service) currentPR(ctx context.Context, rc *repoClient, key, branch string) (open *github.PullRequest, prev *PRRef, next string, err error) {
	for range maxPRChain {
		if open, err = rc.findOpenPR(ctx, branch); err != nil || open != nil {
			return open, prev, branch, err
		}
		last, err := rc.latestPR(ctx, branch)
		if err != nil || last == nil {
			return nil, prev, branch, err
		}
		prev = prRef(last)
		branch = s.regressionBranch(key, last.GetNumber())
	}
	return nil, prev, branch, &flowError{msg: fmt.Sprintf("Issue %s has had more than %d pull requests; open the next one by hand.", s.red.String(key), maxPRChain)}
}

// changeOnPR computes the proposal's change on top of the open pull
// request: each file as it is at head (the pull request's branch) with the
// change applied to it. Files that already carry the change are left out,
// so no files means the pull request already has it. When the change does
// not apply to head (it rewrites lines AutoHeal changed before) and every
// commit on the branch is AutoHeal's, it is applied to the file at the
// merge base instead, which replaces AutoHeal's earlier change and nothing
// else; commits by others are never overwritten.
func (s *Service) changeOnPR(ctx context.Context, rc *repoClient, key string, pr *github.PullRequest, head string, prop *Proposal) ([]FileChange, map[string][]byte, error) {
	var (
		out  []FileChange
		orig = map[string][]byte{}
		base string // merge base, read when first needed
	)
	for _, f := range prop.Files {
		cur, sha, found, err := rc.readFile(ctx, head, f.Path)
		if err != nil {
			return nil, nil, err
		}
		if !found {
			if f.BaseSHA != blobSHA(nil) {
				return nil, nil, &flowError{msg: fmt.Sprintf("%s does not exist on the branch of pull request #%d; the change cannot be applied there.", f.Path, pr.GetNumber())}
			}
			out = append(out, FileChange{Path: f.Path, BaseSHA: blobSHA(nil), Content: f.Content})
			continue
		}
		if sha == blobSHA(f.Content) {
			continue
		}
		orig[f.Path] = cur
		next, err := f.Content, error(nil)
		if sha != f.BaseSHA {
			next, err = prop.reapply(f.Path, cur)
		}
		if errors.Is(err, ErrAlreadyApplied) || (err == nil && bytes.Equal(next, cur)) {
			continue
		}
		if applyErr := err; applyErr != nil {
			if base == "" {
				if base, err = s.replaceableBase(ctx, rc, key, pr, head); err != nil {
					return nil, nil, err
				}
			}
			if base == "-" {
				return nil, nil, &flowError{msg: fmt.Sprintf("The new change to %s does not apply to the branch of pull request #%d (%s), and the branch has commits AutoHeal did not make, so they are not overwritten. Apply the change by hand, or close the pull request and approve the new fix again.", f.Path, pr.GetNumber(), trimErr(applyErr))}
			}
			if next, err = s.applyAt(ctx, rc, base, f, prop); err != nil {
				return nil, nil, &flowError{msg: fmt.Sprintf("The new change to %s applies neither to the branch of pull request #%d nor to its base: %s.", f.Path, pr.GetNumber(), trimErr(err))}
			}
			if bytes.Equal(next, cur) {
				continue
			}
		}
		out = append(out, FileChange{Path: f.Path, BaseSHA: sha, Content: next})
	}
	return out, orig, nil
}

// replaceableBase returns the merge base of the pull request when every
// commit on its branch is AutoHeal's for key, else "-".
func (s *Service) replaceableBase(ctx context.Context, rc *repoClient, key string, pr *github.PullRequest, head string) (string, error) {
	msgs, err := rc.prCommitMessages(ctx, pr.GetNumber())
	if err != nil {
		return "", err
	}
	trailer := trailerIssueKey + oneLine(s.red.String(key))
	for _, m := range msgs {
		if !strings.Contains(m, trailer) {
			return "-", nil
		}
	}
	return rc.mergeBase(ctx, pr.GetBase().GetRef(), head)
}

// applyAt applies the proposal's change to a file at ref.
func (s *Service) applyAt(ctx context.Context, rc *repoClient, ref string, f FileChange, prop *Proposal) ([]byte, error) {
	cur, sha, found, err := rc.readFile(ctx, ref, f.Path)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("%s does not exist there", f.Path)
	}
	if sha == f.BaseSHA {
		return f.Content, nil
	}
	return prop.reapply(f.Path, cur)
}

// pushOnPR pushes the proposal's change as one commit on the pull
// request's branch (a fast-forward; nothing when head has it already). A
// branch that moves meanwhile (a reviewer's push, another replica) is read
// again and the change re-applied.
func (s *Service) pushOnPR(ctx context.Context, rc *repoClient, key string, pr *github.PullRequest, prop *Proposal, msg string) (string, bool, error) {
	return s.commitOnBranch(ctx, rc, pr.GetHead().GetRef(), pr.GetHead().GetSHA(), msg, "click again", func(head string) ([]FileChange, error) {
		files, orig, err := s.changeOnPR(ctx, rc, key, pr, head, prop)
		if err != nil || len(files) == 0 {
			return nil, err
		}
		if err := s.scanFiles(files, orig); err != nil {
			return nil, err
		}
		return files, nil
	})
}

// updatePR brings the key's open pull request to the approved proposal:
// one commit with the change on its branch, and a title and description
// for the new root cause. A pull request that already carries this
// proposal (a retry after a crash) is left as it is.
func (s *Service) updatePR(ctx context.Context, rc *repoClient, pr *github.PullRequest, prop *Proposal, req ApproveRequest, step func(sessions.Step, sessions.StepUpdate) error) (Outcome, error) {
	key, branch, n := req.IssueKey, pr.GetHead().GetRef(), pr.GetNumber()
	out := Outcome{Status: StatusExisting, Branch: branch, PRNumber: n, PRURL: pr.GetHTMLURL(), Converged: ConvergedNone}
	pc := prContext{ThreadURL: req.ThreadURL, ApprovedBy: req.User, FireCount: req.FireCount, IssueKey: key, Proposal: req.ProposalID, Updated: true}
	title := s.red.String(prop.Title)
	if strings.TrimSpace(title) == "" {
		title = "AutoHeal fix"
	}
	body := prBody(req.Result, prop, pc, s.red)
	msg := commitMessage("autoheal: update fix: "+title, firstNonEmpty(req.Result.RootCause.Description, req.Result.Summary), pc, s.red)
	for _, t := range []struct{ field, text string }{{"pull request title", title}, {"pull request body", body}, {"commit message", msg}} {
		if err := s.scanText(t.field, t.text); err != nil {
			return out, err
		}
	}
	sha, committed, err := s.pushOnPR(ctx, rc, key, pr, prop, msg)
	if err != nil {
		return out, err
	}
	out.CommitSHA = sha
	if err := step(sessions.StepCommit, sessions.StepUpdate{Branch: branch}); err != nil {
		return out, err
	}
	if !committed && (req.ProposalID == "" || markedProposal(pr.GetBody()) == req.ProposalID) {
		// This proposal's own pull request (a retry after a crash).
		if err := step(sessions.StepPR, sessions.StepUpdate{Branch: branch, PRNumber: n, PRURL: pr.GetHTMLURL()}); err != nil {
			return out, err
		}
		out.PRTitle = s.red.String(pr.GetTitle())
		out.Message = fmt.Sprintf("Pull request #%d is open: %s", n, pr.GetHTMLURL())
		return out, nil
	}
	if pr.GetTitle() != title || pr.GetBody() != body {
		if _, err := rc.editPR(ctx, n, title, body); err != nil {
			return out, err
		}
	}
	if err := step(sessions.StepPR, sessions.StepUpdate{Branch: branch, PRNumber: n, PRURL: pr.GetHTMLURL()}); err != nil {
		return out, err
	}
	out.Status, out.PRTitle = StatusUpdated, title
	if committed {
		out.Converged = ConvergedCommitted
		out.Message = fmt.Sprintf("<@%s> approved the update: one commit (%s) was pushed to pull request #%d %s, and its title and description now describe the new root cause.", req.User, shortSHA(sha), n, pr.GetHTMLURL())
	} else {
		out.Message = fmt.Sprintf("<@%s> approved the update: pull request #%d %s already had this change; its title and description now describe the new root cause.", req.User, n, pr.GetHTMLURL())
	}
	s.log.Info("pull request updated", "issue_key", s.red.String(key), "pr", n, "committed", committed)
	return out, nil
}

// Standing is where an issue key's pull request stands relative to a new
// result. Computing it only reads GitHub.
type Standing struct {
	// PR is the key's pull request: the open one, else the latest merged
	// or closed one; nil when the key has none.
	PR *PRRef
	// Same: the open pull request already carries the result's change.
	Same bool
	// Update: the result's change differs from the open pull request's
	// and applies to it; approving it updates the pull request.
	Update bool
	// Reason says why the change cannot go onto the open pull request
	// (it does not apply, or the result proposes no change).
	Reason string
}

// Standing says where key's pull request stands relative to res: the bot
// shows "Update pull request #N" instead of Approve when Update is set,
// and no button when Same is. A key whose approval record names no pull
// request costs no GitHub call (the click still looks).
func (s *Service) Standing(ctx context.Context, key string, res *investigate.HealResult, creds *Credentials) (Standing, error) {
	if s.store != nil {
		a, err := s.store.GetApproval(ctx, key)
		if errors.Is(err, sessions.ErrNotFound) || (err == nil && a.PRNumber == 0 && a.Branch == "") {
			return Standing{}, nil
		}
		if err != nil {
			return Standing{}, err
		}
	}
	st, _, _, err := s.standing(ctx, key, res, creds)
	return st, err
}

// standing is Standing with the open pull request and the repository.
func (s *Service) standing(ctx context.Context, key string, res *investigate.HealResult, creds *Credentials) (Standing, *github.PullRequest, *repoClient, error) {
	var st Standing
	repoName := firstNonEmpty(res.Repo, s.opts.Repo)
	if strings.TrimSpace(key) == "" || repoName == "" {
		return st, nil, nil, nil
	}
	rc, err := s.repo(repoName, creds)
	if err != nil {
		return st, nil, nil, nil //nolint:nilerr // no usable repository: no pull request
	}
	branch := s.Branch(key)
	if s.store != nil {
		if a, err := s.store.GetApproval(ctx, key); err == nil && strings.HasPrefix(a.Branch, s.opts.BranchPrefix) {
			branch = a.Branch
		}
	}
	pr, prev, _, err := s.currentPR(ctx, rc, key, branch)
	if err != nil || pr == nil {
		st.PR = prev
		return st, nil, rc, err
	}
	st.PR = prRef(pr)
	r := *res
	r.Repo = repoName
	prop, err := s.ProposeWith(ctx, &r, creds)
	if err != nil {
		return st, pr, rc, err
	}
	if !prop.Eligible() {
		st.Reason = prop.Ineligible
		return st, pr, rc, nil
	}
	files, _, err := s.changeOnPR(ctx, rc, key, pr, pr.GetHead().GetSHA(), prop)
	var fe *flowError
	switch {
	case errors.As(err, &fe):
		st.Reason = fe.Message()
	case err != nil:
		return st, pr, rc, err
	case len(files) == 0:
		st.Same = true
	default:
		st.Update = true
	}
	return st, pr, rc, nil
}

// RefireRequest is a re-fire of an incident whose fix may have a PR.
type RefireRequest struct {
	IssueKey string
	// Result is the new investigation's result when Reinvestigated, else
	// the latest earlier one (kept for the record, never presented as new).
	Result *investigate.HealResult
	// Reinvestigated is true when an investigation ran for this fire.
	// When false (e.g. the fire came within the cooldown), the PR is only
	// told that the incident fired again with no new evidence.
	Reinvestigated bool
	ThreadURL      string
	FireCount      int
	At             time.Time // when it fired (default now)
	Credentials    *Credentials
}

// Refire tells an issue key's open pull request that its incident fired
// again, and never changes its code: a commit needs an approver's click.
// Without a new investigation it comments that nothing new was
// investigated; with one, it comments when the new result proposes the
// change the pull request already carries (or no change), and otherwise
// comments nothing and says in the thread that the new fix waits for
// approval (StatusUpdateOffered). When the key's pull request was merged
// or closed it writes nothing (StatusPRClosed): approving the new result
// opens a new one. Without a pull request it does nothing.
func (s *Service) Refire(ctx context.Context, req RefireRequest) (Outcome, error) {
	key := strings.TrimSpace(req.IssueKey)
	if key == "" || req.Result == nil {
		return Outcome{Status: StatusFailed, Message: "This re-fire is incomplete and cannot be processed."}, errors.New("remediate: refire needs an issue key and a result")
	}
	log := s.log.With("issue_key", s.red.String(key))
	out := Outcome{Status: StatusNoPR, Converged: ConvergedNone}
	fail := func(err error) (Outcome, error) {
		retry, at := retryInfo(err)
		out.Status, out.Message, out.Retryable, out.RetryAt = StatusFailed, "Could not check the pull request for this re-fire: "+messageFor(err), retry, at
		log.Warn("refire failed", "err", s.errText(err))
		return s.finish(out), err
	}
	var (
		st  Standing
		pr  *github.PullRequest
		rc  *repoClient
		err error
	)
	if req.Reinvestigated {
		st, pr, rc, err = s.standing(ctx, key, req.Result, req.Credentials)
	} else {
		// Nothing new to compare: only where the pull request stands.
		st, pr, rc, err = s.standing(ctx, key, &investigate.HealResult{Repo: req.Result.Repo}, req.Credentials)
	}
	if err != nil {
		return fail(err)
	}
	if pr == nil {
		if p := st.PR; p != nil {
			out.Status, out.PRNumber, out.PRURL, out.Previous = StatusPRClosed, p.Number, p.URL, p
			what := "was merged"
			if p.State != "merged" {
				what = "was closed without merging"
			}
			out.Message = fmt.Sprintf("Fired again after pull request #%d %s (%s). Nothing was written to it; approving a new result opens a new pull request that links it.", p.Number, what, p.URL)
		}
		return s.finish(out), nil
	}
	out.PRNumber, out.PRURL, out.Branch = pr.GetNumber(), pr.GetHTMLURL(), pr.GetHead().GetRef()
	at := req.At
	if at.IsZero() {
		at = s.now()
	}
	pc := prContext{ThreadURL: req.ThreadURL, FireCount: req.FireCount, IssueKey: key}
	comment := func(same bool, note, thread string) (Outcome, error) {
		body := refireComment(pc, at, req.Reinvestigated, same, note, s.red)
		if err := s.scanText("comment", body); err != nil {
			return fail(err)
		}
		if _, err := rc.comment(ctx, pr.GetNumber(), body); err != nil {
			return fail(err)
		}
		out.Status, out.Converged, out.Message = StatusConverged, ConvergedCommented, thread
		return s.finish(out), nil
	}
	n, u := pr.GetNumber(), pr.GetHTMLURL()
	switch {
	case !req.Reinvestigated:
		return comment(false, "", fmt.Sprintf("Fired again; no new investigation ran for this fire, so there is no new evidence and pull request #%d is unchanged: %s", n, u))
	case st.Same:
		return comment(true, "", fmt.Sprintf("Fired again; pull request #%d still applies (commented, no new commit): %s", n, u))
	case st.Update:
		out.Status = StatusUpdateOffered
		out.Message = fmt.Sprintf("Fired again, and the new investigation proposes a different fix from pull request #%d (%s). Nothing was pushed: review the new result and click *Update pull request #%d* to add it to the pull request as one commit.", n, u, n)
		log.Info("refire: a different fix waits for approval", "pr", n)
		return s.finish(out), nil
	default:
		return comment(false, "The new investigation proposes no change that can go onto this pull request: "+st.Reason,
			fmt.Sprintf("Fired again; pull request #%d is still open. The new investigation proposes no change for it (%s).", n, st.Reason))
	}
}
