package bot

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/slack-go/slack"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/render"
)

// Remediator opens the pull request of an approved fix and records
// rejections. A nil Remediator means approvals are not available: results
// say so instead of showing Approve.
type Remediator interface {
	// Approve opens (or converges onto) the pull request for req's fix.
	Approve(ctx context.Context, req ApprovalRequest) (ApprovalOutcome, error)
	// Reject records that req.User rejected the fix, and why.
	Reject(ctx context.Context, req ApprovalRequest, reason string) error
}

// ApprovalRequest is one decision on a proposed fix.
type ApprovalRequest struct {
	JobID    string
	IssueKey string
	Channel  string
	ThreadTS string
	User     string // Slack user id of the approver
	Result   *investigate.HealResult
	// Settings is the thread's resolved session (repo, ref, github_api_url,
	// github_token…). Secrets in it are registered with redact.
	Settings map[string]string
}

// ApprovalOutcome is what an approval produced.
type ApprovalOutcome struct {
	PRURL string
}

// Authorizer decides who may approve or reject fixes.
type Authorizer interface {
	Authorize(ctx context.Context, userID string) (bool, error)
}

// GroupMembers lists a user group's members (usergroups.users.list).
type GroupMembers interface {
	GetUserGroupMembersContext(ctx context.Context, userGroup string, options ...slack.GetUserGroupMembersOption) ([]string, error)
}

// Approver list limits.
const (
	maxApproverEntries = 200
	groupCacheTTL      = 5 * time.Minute
)

var (
	approverUserRE  = regexp.MustCompile(`^[UW][A-Z0-9]{2,24}$`)
	approverGroupRE = regexp.MustCompile(`^S[A-Z0-9]{2,24}$`)
	subteamRE       = regexp.MustCompile(`^<!subteam\^(S[A-Z0-9]{2,24})(?:\|[^>]*)?>$`)
)

// ApproverList authorizes the users and user-group members named in
// AUTOHEAL_APPROVERS. An empty list authorizes nobody: pull requests need
// named approvers.
type ApproverList struct {
	users  map[string]bool
	groups []string
	api    GroupMembers

	mu    sync.Mutex
	cache map[string]groupMembers
	now   func() time.Time
}

type groupMembers struct {
	members map[string]bool
	at      time.Time
}

// ParseApprovers reads a comma- or space-separated list of Slack user ids
// (U…, W…) and user group ids (S…, or <!subteam^S…> as Slack writes them).
// Group members are looked up with api, cached for five minutes.
func ParseApprovers(s string, api GroupMembers) (*ApproverList, error) {
	a := &ApproverList{users: map[string]bool{}, api: api, cache: map[string]groupMembers{}, now: time.Now}
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' || r == ';' })
	if len(fields) > maxApproverEntries {
		return nil, fmt.Errorf("AUTOHEAL_APPROVERS: %d entries, at most %d", len(fields), maxApproverEntries)
	}
	var bad []string
	for _, f := range fields {
		if m := subteamRE.FindStringSubmatch(f); m != nil {
			f = m[1]
		}
		switch {
		case approverUserRE.MatchString(f):
			a.users[f] = true
		case approverGroupRE.MatchString(f):
			a.groups = append(a.groups, f)
		default:
			bad = append(bad, fmt.Sprintf("%q", truncateRunes(f, 30)))
		}
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("AUTOHEAL_APPROVERS: not a Slack user (U…/W…) or user group (S…) id: %s", strings.Join(bad, ", "))
	}
	if len(a.groups) > 0 && api == nil {
		return nil, errors.New("AUTOHEAL_APPROVERS names user groups but no Slack client is given to list their members")
	}
	return a, nil
}

// Empty reports whether the list names nobody.
func (a *ApproverList) Empty() bool { return a == nil || len(a.users) == 0 && len(a.groups) == 0 }

// Authorize reports whether userID is a named approver or a member of a
// named group.
func (a *ApproverList) Authorize(ctx context.Context, userID string) (bool, error) {
	if a == nil {
		return false, nil
	}
	if a.users[userID] {
		return true, nil
	}
	var errs []error
	for _, g := range a.groups {
		members, err := a.members(ctx, g)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if members[userID] {
			return true, nil
		}
	}
	if len(errs) > 0 {
		return false, errors.Join(errs...)
	}
	return false, nil
}

func (a *ApproverList) members(ctx context.Context, group string) (map[string]bool, error) {
	a.mu.Lock()
	c, ok := a.cache[group]
	a.mu.Unlock()
	if ok && a.now().Sub(c.at) < groupCacheTTL {
		return c.members, nil
	}
	ids, err := a.api.GetUserGroupMembersContext(ctx, group)
	if err != nil {
		return nil, fmt.Errorf("members of user group %s: %w", group, err)
	}
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	a.mu.Lock()
	a.cache[group] = groupMembers{members: m, at: a.now()}
	a.mu.Unlock()
	return m, nil
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
	if band := r.RootCause.Band; !band.AtLeast(minBand) {
		return render.ApprovalView{Note: fmt.Sprintf("No PR: confidence %s is below %s, the minimum for proposing a pull request.", bandName(band), minBand)}
	}
	if !remediation {
		return render.ApprovalView{Note: "No PR: pull requests are not enabled on this AutoHeal (no remediator is configured); apply the fix by hand."}
	}
	return render.ApprovalView{Eligible: true}
}

func bandName(b investigate.Band) string {
	if b == "" {
		return string(investigate.BandLow)
	}
	return string(b)
}
