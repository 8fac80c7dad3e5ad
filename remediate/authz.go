package remediate

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// ApproversEnv is the environment variable listing who may approve fixes.
const ApproversEnv = "AUTOHEAL_APPROVERS"

// GroupResolver lists the members of a Slack user group (the bot implements
// it with usergroups.users.list, cached briefly).
type GroupResolver interface {
	GroupMembers(ctx context.Context, groupID string) ([]string, error)
}

// Approvers are the Slack users and user groups allowed to approve fixes.
type Approvers struct {
	Users  []string // U… / W… ids
	Groups []string // S… (subteam) ids
}

// ErrBadApprovers is returned for an AUTOHEAL_APPROVERS entry that is not a
// Slack user or user group id.
var ErrBadApprovers = errors.New("invalid approver")

var (
	userIDRE  = regexp.MustCompile(`^[UW][A-Z0-9]{2,30}$`)
	groupIDRE = regexp.MustCompile(`^S[A-Z0-9]{2,30}$`)
)

// ParseApprovers parses a list of Slack ids separated by commas, semicolons
// or spaces. Each entry is a user id (U…, W…), a user group id (S…), or
// either in Slack's mention syntax (<@U123>, <@U123|alice>,
// <!subteam^S123>, <!subteam^S123|@oncall>, subteam^S123). Names such as
// @alice cannot be checked server-side and are refused.
func ParseApprovers(s string) (Approvers, error) {
	var a Approvers
	var bad []string
	for _, raw := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' || r == ' ' || r == '\t' || r == '\n' }) {
		e := strings.TrimSpace(raw)
		if e == "" {
			continue
		}
		e = strings.TrimPrefix(strings.TrimSuffix(e, ">"), "<")
		if i := strings.IndexByte(e, '|'); i >= 0 {
			e = e[:i]
		}
		e = strings.TrimPrefix(e, "@")
		e = strings.TrimPrefix(e, "!")
		e = strings.TrimPrefix(e, "subteam^")
		e = strings.ToUpper(e)
		switch {
		case userIDRE.MatchString(e):
			if !slices.Contains(a.Users, e) {
				a.Users = append(a.Users, e)
			}
		case groupIDRE.MatchString(e):
			if !slices.Contains(a.Groups, e) {
				a.Groups = append(a.Groups, e)
			}
		default:
			bad = append(bad, fmt.Sprintf("%q", clip(raw, 40)))
		}
	}
	if len(bad) > 0 {
		return Approvers{}, fmt.Errorf("%s: %w: %s (use Slack user ids U…/W… or user group ids S…)", ApproversEnv, ErrBadApprovers, strings.Join(bad, ", "))
	}
	return a, nil
}

// Empty reports whether nobody may approve.
func (a Approvers) Empty() bool { return len(a.Users) == 0 && len(a.Groups) == 0 }

// Mentions renders the approvers as Slack mentions.
func (a Approvers) Mentions() string {
	var out []string
	for _, u := range a.Users {
		out = append(out, "<@"+u+">")
	}
	for _, g := range a.Groups {
		out = append(out, "<!subteam^"+g+">")
	}
	return strings.Join(out, ", ")
}

// authorize decides whether user may approve: listed directly, or a member
// of a listed user group. It fails closed: a group that cannot be resolved
// is an error unless another entry already grants.
func authorize(ctx context.Context, a Approvers, groups GroupResolver, user string) (bool, error) {
	user = strings.ToUpper(strings.TrimSpace(user))
	if !userIDRE.MatchString(user) {
		return false, nil
	}
	if slices.Contains(a.Users, user) {
		return true, nil
	}
	if len(a.Groups) == 0 {
		return false, nil
	}
	if groups == nil {
		return false, fmt.Errorf("remediate: %s lists user groups but no group resolver is configured", ApproversEnv)
	}
	var errs []error
	for _, g := range a.Groups {
		members, err := groups.GroupMembers(ctx, g)
		if err != nil {
			errs = append(errs, fmt.Errorf("user group %s: %w", g, err))
			continue
		}
		for _, m := range members {
			if strings.EqualFold(m, user) {
				return true, nil
			}
		}
	}
	if len(errs) > 0 {
		return false, fmt.Errorf("remediate: check approvers: %w", errors.Join(errs...))
	}
	return false, nil
}
