package bot

import (
	"context"

	"github.com/autoheal/autoheal/config"
	"github.com/autoheal/autoheal/investigate/httpc"
	"github.com/autoheal/autoheal/remediate"
	"github.com/autoheal/autoheal/render"
)

// RemediatorFromService adapts the pull-request flow of remediate to the
// bot: outcomes become approval states and notes.
func RemediatorFromService(s *remediate.Service) Remediator { return serviceRemediator{s: s} }

type serviceRemediator struct{ s *remediate.Service }

// credentials are the GitHub credentials of a request: nil when the
// github_api_url group is the operator's (the service's own token or
// GitHub App), else exactly the bound user-scope pair, so the service's
// credentials never go to a URL a user set.
func credentials(settings config.Settings, guard *httpc.Guard) *remediate.Credentials {
	ep := settings.Endpoint("github_api_url")
	if ep.Operator() {
		return nil
	}
	c := &remediate.Credentials{APIURL: ep.URL, Token: ep.Bound["github_token"]}
	if ep.UserURL {
		if guard == nil {
			guard = httpc.NewGuard(httpc.GuardOptions{})
		}
		c.Transport = httpc.NewTransport(httpc.TransportOptions{Base: guard.Transport()})
	}
	return c
}

func (r serviceRemediator) Approve(ctx context.Context, req ApprovalRequest) (Decision, error) {
	out, err := r.s.Approve(ctx, remediate.ApproveRequest{
		IssueKey: req.IssueKey, User: req.User, ProposalID: req.JobID, Channel: req.Channel, ThreadTS: req.ThreadTS,
		Result: req.Result, Credentials: credentials(req.Settings, req.Guard),
	})
	d := Decision{PRURL: out.PRURL, PRNumber: out.PRNumber, PRTitle: out.PRTitle, SameFix: out.SameFix, UserNote: out.Ephemeral, Action: out.Audit}
	switch out.Status {
	case remediate.StatusCreated:
		d.State = render.ApprovalApproved
		if out.Previous != nil {
			d.ThreadNote = out.Message
		}
	case remediate.StatusExisting:
		d.State = render.ApprovalApproved
		if d.UserNote == "" {
			d.UserNote = out.Message
		}
	case remediate.StatusUpdated:
		d.State, d.Updated, d.ThreadNote = render.ApprovalApproved, true, out.Message
	case remediate.StatusInProgress:
		d.State = render.ApprovalOpening
		if d.UserNote == "" {
			d.UserNote = out.Message
		}
	case remediate.StatusFailed:
		d.State, d.Error = render.ApprovalFailed, out.Message
	case remediate.StatusUnauthorized:
		d.ThreadNote = out.Message
	default: // rejected earlier, ineligible, nothing to do
		if d.UserNote == "" {
			d.UserNote = out.Message
		}
	}
	return d, err
}

func (r serviceRemediator) Reject(ctx context.Context, req ApprovalRequest, reason string) (Decision, error) {
	out, err := r.s.Reject(ctx, remediate.RejectRequest{IssueKey: req.IssueKey, User: req.User, Reason: reason,
		ProposalID: req.JobID, Channel: req.Channel, ThreadTS: req.ThreadTS})
	d := Decision{UserNote: out.Ephemeral, Action: out.Audit}
	switch out.Status {
	case remediate.StatusRejected:
		d.State = render.ApprovalRejected
	case remediate.StatusUnauthorized:
		d.ThreadNote = out.Message
	default:
		if d.UserNote == "" {
			d.UserNote = out.Message
		}
	}
	return d, err
}

func (r serviceRemediator) Standing(ctx context.Context, req ApprovalRequest) (PRStanding, error) {
	st, err := r.s.Standing(ctx, req.IssueKey, req.Result, credentials(req.Settings, req.Guard))
	out := PRStanding{Same: st.Same, Update: st.Update, Reason: st.Reason}
	if st.PR != nil {
		out.PRNumber, out.PRURL, out.State = st.PR.Number, st.PR.URL, st.PR.State
	}
	return out, err
}

// IssuesFromService adapts remediate's "Create issue" flow to the bot.
func IssuesFromService(s *remediate.Service) IssueCreator { return serviceIssues{s: s} }

type serviceIssues struct{ s *remediate.Service }

func (r serviceIssues) CreateIssue(ctx context.Context, req ApprovalRequest) (IssueDecision, error) {
	out, err := r.s.CreateIssue(ctx, remediate.IssueRequest{
		IssueKey: req.IssueKey, User: req.User, ProposalID: req.JobID, Channel: req.Channel, ThreadTS: req.ThreadTS,
		Result: req.Result, Credentials: credentials(req.Settings, req.Guard),
	})
	d := IssueDecision{URL: out.IssueURL, Created: out.Created, UserNote: out.Ephemeral, Action: out.Audit}
	switch out.Status {
	case remediate.StatusCreated, remediate.StatusExisting:
	case remediate.StatusFailed:
		d.Error = out.Message
	case remediate.StatusUnauthorized:
		d.ThreadNote = out.Message
	default: // in progress, ineligible (no repository)
		if d.UserNote == "" {
			d.UserNote = out.Message
		}
	}
	return d, err
}
