package remediate

import (
	"context"

	"github.com/autoheal/autoheal/access"
)

// ApproversEnv is the environment variable listing who may approve fixes.
const ApproversEnv = "AUTOHEAL_APPROVERS"

// GroupResolver lists the members of a Slack user group (the bot implements
// it with usergroups.users.list, cached briefly).
type GroupResolver = access.GroupResolver

// Approvers are the Slack users and user groups allowed to approve fixes.
type Approvers = access.List

// ErrBadApprovers is returned for an AUTOHEAL_APPROVERS entry that is not a
// Slack user or user group id.
var ErrBadApprovers = access.ErrBadEntry

// ParseApprovers parses AUTOHEAL_APPROVERS (see access.Parse).
func ParseApprovers(s string) (Approvers, error) { return access.Parse(ApproversEnv, s) }

// authorize decides whether user may approve (see access.List.Allows).
func authorize(ctx context.Context, a Approvers, groups GroupResolver, user string) (bool, error) {
	return a.Allows(ctx, groups, user)
}
