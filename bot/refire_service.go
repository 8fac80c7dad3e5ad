package bot

import (
	"context"

	"github.com/autoheal/autoheal/remediate"
)

// RefirerFromService adapts remediate's re-fire convergence to the bot:
// the outcome's message becomes a thread note when a pull request exists.
func RefirerFromService(s *remediate.Service) Refirer { return serviceRefirer{s: s} }

type serviceRefirer struct{ s *remediate.Service }

func (r serviceRefirer) Refire(ctx context.Context, req RefireRequest) (string, error) {
	out, err := r.s.Refire(ctx, remediate.RefireRequest{
		IssueKey: req.IssueKey, Result: req.Result, Reinvestigated: req.Reinvestigated,
		FireCount: req.FireCount, At: req.At, Credentials: credentials(req.Settings, req.Guard),
	})
	if out.Status == remediate.StatusNoPR {
		return "", err
	}
	return out.Message, err
}
