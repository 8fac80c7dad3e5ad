package bot

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/slack-go/slack"

	"github.com/autoheal/autoheal/config"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/httpc"
	"github.com/autoheal/autoheal/render"
	"github.com/autoheal/autoheal/sessions"
)

// Remediator opens the pull request of an approved fix and records
// rejections. A nil Remediator means approvals are not available: results
// say so instead of showing Approve. RemediatorFromService adapts
// *remediate.Service.
type Remediator interface {
	// Approve opens (or finds, or resumes) the pull request for req's fix,
	// or adds it to the incident's open pull request.
	Approve(ctx context.Context, req ApprovalRequest) (Decision, error)
	// Reject records that req.User rejected the fix, and why.
	Reject(ctx context.Context, req ApprovalRequest, reason string) (Decision, error)
	// Standing says, reading only, where the incident's pull request
	// stands relative to req.Result, before the result is shown.
	Standing(ctx context.Context, req ApprovalRequest) (PRStanding, error)
}

// PRStanding is where an incident's pull request stands relative to a new
// result.
type PRStanding struct {
	// PRNumber and PRURL name the incident's pull request (0: none);
	// State is "open", "merged" or "closed".
	PRNumber int
	PRURL    string
	State    string
	// Same: the open pull request already carries the result's fix.
	// Update: the fix differs and applies to it (Approve updates it).
	Same, Update bool
	// Reason says why the fix cannot go onto the open pull request.
	Reason string
}

// ApprovalRequest is one decision on a proposed fix.
type ApprovalRequest struct {
	// JobID is the investigation whose result proposes the fix: the
	// proposal decided.
	JobID string
	// IssueKey names the incident (the alert's key, or the thread's for
	// mentions, see threadIssueKey); it names the branch and the approval
	// record, and de-duplicates PRs.
	IssueKey string
	Channel  string
	ThreadTS string
	User     string // Slack user id of the clicker
	Result   *investigate.HealResult
	// Settings is the thread's resolved session (repo, ref, github_api_url,
	// github_token…), its endpoint groups bound; its secrets are
	// registered with redact.
	Settings config.Settings
	// Guard checks the connections to a github_api_url a user set.
	Guard *httpc.Guard
}

// Decision is what a click did. Texts are already redacted and safe to show.
type Decision struct {
	// State is the approval state the result shows from now on; "" leaves
	// it unchanged (refused, busy, nothing to do).
	State render.ApprovalState
	PRURL string
	// PRNumber and PRTitle describe the pull request when known; SameFix
	// is true when it was opened for another incident with the same change
	// and is linked instead of a duplicate.
	PRNumber int
	PRTitle  string
	SameFix  bool
	// Error says why opening the pull request failed (State failed).
	Error string
	// Updated: the fix went onto the incident's open pull request.
	Updated bool
	// Action is what the audit log recorded ("" nothing), for metrics.
	Action sessions.AuditAction
	// ThreadNote is a line for the thread (audit, convergence); UserNote
	// is shown to the clicker only.
	ThreadNote string
	UserNote   string
}

// IssueCreator opens a GitHub issue with a result's report: the "Create
// issue" button of results that get a report instead of a pull request
// (bad data, flakes). IssuesFromService adapts *remediate.Service.
type IssueCreator interface {
	CreateIssue(ctx context.Context, req ApprovalRequest) (IssueDecision, error)
}

// IssueDecision is what a "Create issue" click did. Texts are already
// redacted and safe to show.
type IssueDecision struct {
	// URL is the issue, created now (Created) or found from an earlier
	// click; empty when there is none.
	URL     string
	Created bool
	// Error says why creating the issue failed; ThreadNote (audit) and
	// UserNote (busy, ineligible) are shown as for approvals.
	Error      string
	ThreadNote string
	UserNote   string
	// Action is what the audit log recorded ("" nothing), for metrics.
	Action sessions.AuditAction
}

// reportResult reports whether a result gets a report rather than a pull
// request, and so may offer "Create issue".
func reportResult(r *investigate.HealResult) bool {
	if r == nil {
		return false
	}
	switch r.RootCause.Bucket {
	case investigate.BucketBadData, investigate.BucketFlake:
		return true
	}
	return false
}

// Authorizer decides who may approve or reject fixes; *remediate.Service
// implements it from AUTOHEAL_APPROVERS.
type Authorizer interface {
	Authorize(ctx context.Context, userID string) (bool, error)
}

// GroupMembers lists a user group's members (usergroups.users.list).
type GroupMembers interface {
	GetUserGroupMembersContext(ctx context.Context, userGroup string, options ...slack.GetUserGroupMembersOption) ([]string, error)
}

// User group cache limits.
const (
	groupCacheTTL  = 5 * time.Minute
	maxGroupsCache = 256
)

// UserGroups resolves Slack user groups to their members
// (usergroups.users.list), cached for five minutes; it is the group
// resolver of remediate's approver check.
type UserGroups struct {
	api GroupMembers

	mu    sync.Mutex
	cache map[string]groupMembers
	now   func() time.Time
}

type groupMembers struct {
	members []string
	at      time.Time
}

// NewUserGroups returns a resolver over api.
func NewUserGroups(api GroupMembers) *UserGroups {
	return &UserGroups{api: api, cache: map[string]groupMembers{}, now: time.Now}
}

var groupIDRE = regexp.MustCompile(`^S[A-Z0-9]{2,30}$`)

// GroupMembers returns the user ids of a group.
func (g *UserGroups) GroupMembers(ctx context.Context, groupID string) ([]string, error) {
	if !groupIDRE.MatchString(groupID) {
		return nil, fmt.Errorf("user group %q: not a Slack user group id", truncateRunes(groupID, 40))
	}
	g.mu.Lock()
	c, ok := g.cache[groupID]
	g.mu.Unlock()
	if ok && g.now().Sub(c.at) < groupCacheTTL {
		return c.members, nil
	}
	ids, err := g.api.GetUserGroupMembersContext(ctx, groupID)
	if err != nil {
		return nil, fmt.Errorf("members of user group %s: %w", groupID, err)
	}
	g.mu.Lock()
	if len(g.cache) >= maxGroupsCache {
		clear(g.cache)
	}
	g.cache[groupID] = groupMembers{members: ids, at: g.now()}
	g.mu.Unlock()
	return ids, nil
}

// hasRepoChange reports whether the fix is a change to a repository that a
// pull request can carry: a code patch for a code bug, a manifest edit for
// infrastructure.
func hasRepoChange(r *investigate.HealResult) bool {
	switch r.RootCause.Bucket {
	case investigate.BucketCodeBug:
		return r.Fix.Patch != nil && strings.TrimSpace(r.Fix.Patch.Diff) != ""
	case investigate.BucketInfrastructure:
		return r.Fix.ManifestEdit != nil
	}
	return false
}

// approvalView decides whether a result may offer Approve, and otherwise
// says why not in one line.
func approvalView(r *investigate.HealResult, minBand investigate.Band, remediation bool) render.ApprovalView {
	if !hasRepoChange(r) {
		var note string
		switch r.RootCause.Bucket {
		case investigate.BucketCodeBug:
			note = "No PR: no code change could be proposed from the evidence."
		case investigate.BucketInfrastructure:
			note = "No PR: the fix is an operator action, not a repository change."
		case investigate.BucketBadData:
			note = "No PR: bad data is fixed with a remediation, not a code change."
		case investigate.BucketFlake:
			note = "No PR: a flake gets a report, not a patch."
		default:
			note = "No PR: there is no root cause to fix yet."
		}
		return render.ApprovalView{Note: note}
	}
	if r.Contested() {
		return render.ApprovalView{Note: "No PR: another explanation is as well supported by the evidence (see Also possible); confirm which before a fix is proposed."}
	}
	if band := r.RootCause.Band; !band.AtLeast(minBand) {
		return render.ApprovalView{Note: fmt.Sprintf("No PR: confidence %s is below %s, the minimum for proposing a pull request.", bandName(band), minBand)}
	}
	if !remediation {
		return render.ApprovalView{Note: "No PR: pull requests are not enabled on this AutoHeal (no remediator is configured); apply the fix by hand."}
	}
	return render.ApprovalView{Eligible: true}
}

// withStanding completes an eligible approval view with where the
// incident's pull request stands: "Update pull request #N" when the fix
// differs from the open one's, no button when the open one carries it or
// it cannot go there, and a word about the merged or closed one a new pull
// request would follow. When that cannot be read, the view is left as it
// is: the click decides from GitHub's state anyway.
func (b *Bot) withStanding(ctx context.Context, view render.ApprovalView, jobID string, doc *resultDoc, cfg config.Settings, log *slog.Logger) render.ApprovalView {
	if !view.Eligible || b.o.Remediator == nil || doc.Job.Issue.Key == "" {
		return view
	}
	st, err := b.o.Remediator.Standing(ctx, ApprovalRequest{JobID: jobID, IssueKey: doc.Job.Issue.Key, Channel: doc.Job.Channel,
		ThreadTS: doc.Job.ThreadTS, Result: doc.Result, Settings: cfg, Guard: b.guard})
	if err != nil {
		log.Warn("pull request of the incident not checked", "err", b.o.Redactor.String(err.Error()))
		return view
	}
	switch {
	case st.State == "open" && st.Same:
		return render.ApprovalView{Note: fmt.Sprintf("No PR change needed: pull request #%d already carries this fix.", st.PRNumber)}
	case st.State == "open" && st.Update:
		view.UpdatePR = st.PRNumber
	case st.State == "open":
		return render.ApprovalView{Note: fmt.Sprintf("No update of pull request #%d: %s", st.PRNumber, st.Reason)}
	case st.State == "merged" || st.State == "closed":
		view.Previous, view.PreviousState = st.PRNumber, st.State
	}
	return view
}

func bandName(b investigate.Band) string {
	if b == "" {
		return string(investigate.BandLow)
	}
	return string(b)
}
