package remediate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/sessions"
)

// issueRecordPrefix keeps "Create issue" records apart from the pull
// request approval of the same issue key.
const issueRecordPrefix = "issue:"

// IssueRequest is a "Create issue" click for a result that gets a report
// instead of a pull request (bad data, flakes).
type IssueRequest struct {
	IssueKey string
	User     string
	// ProposalID, Channel and ThreadTS identify the result and where it
	// was clicked, for the audit log.
	ProposalID        string
	Channel, ThreadTS string
	Result            *investigate.HealResult
	ThreadURL         string
	Credentials       *Credentials
}

// CreateIssue opens (once per issue key) a GitHub issue with the result's
// report. Like Approve it needs an approver, survives double clicks and
// replicas, and finds an issue a crashed attempt already created by its
// hidden marker.
func (s *Service) CreateIssue(ctx context.Context, req IssueRequest) (Outcome, error) {
	if err := s.checkRequest(req.IssueKey, req.User); err != nil {
		return Outcome{Status: StatusFailed, Message: "This request is incomplete and cannot be processed."}, err
	}
	key := req.IssueKey
	by := sessions.Actor{User: req.User, Proposal: req.ProposalID, Channel: req.Channel, ThreadTS: req.ThreadTS}
	ok, err := s.Authorize(ctx, req.User)
	if err != nil {
		return s.finish(Outcome{Status: StatusFailed, Retryable: true, Message: "Could not check whether you may create issues (Slack user groups unavailable); try again."}), err
	}
	if !ok {
		return s.finish(s.refuse(ctx, key, by, "create an issue for")), nil
	}
	if req.Result == nil {
		return Outcome{Status: StatusFailed, Message: "The investigation result is no longer available; re-run the investigation."}, errors.New("remediate: create issue without a result")
	}
	repoName := firstNonEmpty(req.Result.Repo, s.opts.Repo)
	if repoName == "" {
		return s.finish(Outcome{Status: StatusIneligible, Message: ReasonNoRepo}), nil
	}
	rc, err := s.repo(repoName, req.Credentials)
	if err != nil {
		return s.finish(Outcome{Status: StatusIneligible, Message: fmt.Sprintf("The repository %q is not owner/name.", repoName)}), nil //nolint:nilerr // shown as a reason
	}
	title, body := s.IssueReport(req.Result)
	if req.ThreadURL != "" {
		body = strings.Replace(body, "---\n_Reported by AutoHeal._", "Slack thread: "+s.red.String(req.ThreadURL)+"\n\n---\n_Reported by AutoHeal._", 1)
	}
	if !strings.Contains(body, Marker(s.red.String(key))) {
		body += Marker(s.red.String(key)) + "\n"
	}
	for _, t := range []struct{ field, text string }{{"issue title", title}, {"issue body", body}} {
		if err := s.scanText(t.field, t.text); err != nil {
			return s.finish(Outcome{Status: StatusFailed, Message: messageFor(err)}), err
		}
	}
	rkey := issueRecordPrefix + key
	// One issue per key: the record's decision is final (no proposal).
	by.Proposal = ""
	a, started, err := s.store.BeginApproval(ctx, rkey, by)
	if err != nil {
		return s.finish(Outcome{Status: StatusFailed, Retryable: true, Message: "Could not record the request (state store unavailable); try again."}), fmt.Errorf("remediate: begin issue %q: %w", key, err)
	}
	if !started {
		if a.State == sessions.ApprovalApproved {
			return s.finish(Outcome{Status: StatusExisting, IssueURL: a.PRURL, Message: "An issue was already created: " + a.PRURL}), nil
		}
		return s.finish(Outcome{Status: StatusInProgress, Ephemeral: fmt.Sprintf("<@%s> is already creating the issue.", a.By)}), nil
	}
	iss, created, err := s.ensureIssue(ctx, rc, key, title, body)
	bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err != nil {
		msg := messageFor(err)
		retry, at := retryInfo(err)
		if _, ferr := s.store.FailApproval(bctx, rkey, a.Lease, s.red.String(msg)); ferr != nil {
			s.log.Warn("record issue failure", "issue_key", s.red.String(key), "err", s.errText(ferr))
		}
		return s.finish(Outcome{Status: StatusFailed, Message: msg, Retryable: retry, RetryAt: at, Audit: sessions.AuditFailed}), err
	}
	if _, err := s.store.CompleteApproval(bctx, rkey, a.Lease, sessions.Completion{PRNumber: iss.GetNumber(), PRURL: iss.GetHTMLURL(), Action: sessions.AuditIssueCreated}); err != nil {
		s.log.Warn("complete issue record", "issue_key", s.red.String(key), "err", s.errText(err))
	}
	st, verb := StatusExisting, "exists"
	if created {
		st, verb = StatusCreated, "created"
	}
	return s.finish(Outcome{Status: st, IssueURL: iss.GetHTMLURL(), Created: created, Audit: sessions.AuditIssueCreated,
		Message: fmt.Sprintf("Issue #%d %s: %s", iss.GetNumber(), verb, iss.GetHTMLURL())}), nil
}

// ensureIssue finds the open issue carrying the key's marker or creates it.
func (s *Service) ensureIssue(ctx context.Context, rc *repoClient, key, title, body string) (*github.Issue, bool, error) {
	marker := Marker(s.red.String(key))
	opts := &github.IssueListByRepoOptions{State: "open", Labels: s.opts.IssueLabels, ListOptions: github.ListOptions{PerPage: 100}}
	for page := 0; page < 5; page++ {
		cctx, cancel := rc.call(ctx)
		list, resp, err := rc.c.Issues.ListByRepo(cctx, rc.owner, rc.name, opts)
		cancel()
		if err != nil {
			return nil, false, classify(opFindIssue, err)
		}
		for _, iss := range list {
			if !iss.IsPullRequest() && strings.Contains(iss.GetBody(), marker) {
				return iss, false, nil
			}
		}
		if resp == nil || resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	cctx, cancel := rc.call(ctx)
	defer cancel()
	req := &github.IssueRequest{Title: github.String(title), Body: github.String(body)}
	if len(s.opts.IssueLabels) > 0 {
		labels := append([]string(nil), s.opts.IssueLabels...)
		req.Labels = &labels
	}
	iss, _, err := rc.c.Issues.Create(cctx, rc.owner, rc.name, req)
	if err != nil {
		return nil, false, classify(opCreateIssue, err)
	}
	return iss, true, nil
}
