// Package access holds the lists of Slack users and user groups that may
// do something (AUTOHEAL_APPROVERS: approve fixes; AUTOHEAL_ADMINS: change
// where the bot connects) and the membership check behind them.
package access

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// GroupResolver lists the members of a Slack user group (the bot
// implements it with usergroups.users.list, cached briefly).
type GroupResolver interface {
	GroupMembers(ctx context.Context, groupID string) ([]string, error)
}

// List is a set of Slack users and user groups.
type List struct {
	Users  []string // U… / W… ids
	Groups []string // S… (subteam) ids
}

// ErrBadEntry is returned for a list entry that is not a Slack user or
// user group id.
var ErrBadEntry = errors.New("invalid Slack user or user group")

var (
	userIDRE  = regexp.MustCompile(`^[UW][A-Z0-9]{2,30}$`)
	groupIDRE = regexp.MustCompile(`^S[A-Z0-9]{2,30}$`)
)

// Parse reads a list of Slack ids separated by commas, semicolons or
// spaces; name (the environment variable) prefixes errors. Each entry is a
// user id (U…, W…), a user group id (S…), or either in Slack's mention
// syntax (<@U123>, <@U123|alice>, <!subteam^S123>, <!subteam^S123|@oncall>,
// subteam^S123). Names such as @alice cannot be checked server-side and
// are refused.
func Parse(name, s string) (List, error) {
	var l List
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
			if !slices.Contains(l.Users, e) {
				l.Users = append(l.Users, e)
			}
		case groupIDRE.MatchString(e):
			if !slices.Contains(l.Groups, e) {
				l.Groups = append(l.Groups, e)
			}
		default:
			bad = append(bad, fmt.Sprintf("%q", clip(raw, 40)))
		}
	}
	if len(bad) > 0 {
		return List{}, fmt.Errorf("%s: %w: %s (use Slack user ids U…/W… or user group ids S…)", name, ErrBadEntry, strings.Join(bad, ", "))
	}
	return l, nil
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// Empty reports whether the list names nobody.
func (l List) Empty() bool { return len(l.Users) == 0 && len(l.Groups) == 0 }

// Mentions renders the list as Slack mentions.
func (l List) Mentions() string { return strings.Join(l.MentionList(), ", ") }

// MentionList is the list as Slack mentions, users first.
func (l List) MentionList() []string {
	var out []string
	for _, u := range l.Users {
		out = append(out, "<@"+u+">")
	}
	for _, g := range l.Groups {
		out = append(out, "<!subteam^"+g+">")
	}
	return out
}

// Allows reports whether user is listed directly or is a member of a
// listed user group. It fails closed: a group that cannot be resolved is
// an error unless another entry already grants.
func (l List) Allows(ctx context.Context, groups GroupResolver, user string) (bool, error) {
	user = strings.ToUpper(strings.TrimSpace(user))
	if !userIDRE.MatchString(user) {
		return false, nil
	}
	if slices.Contains(l.Users, user) {
		return true, nil
	}
	if len(l.Groups) == 0 {
		return false, nil
	}
	if groups == nil {
		return false, errors.New("access: the list has user groups but no group resolver is configured")
	}
	var errs []error
	for _, g := range l.Groups {
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
		return false, fmt.Errorf("access: check membership: %w", errors.Join(errs...))
	}
	return false, nil
}
