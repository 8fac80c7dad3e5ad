package bot

import (
	"context"
	"fmt"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/sessions"
)

// LoadResult returns a kept investigation (a Slack job's, or one run for
// another client such as the MCP server): what was asked and what was
// found. sessions.ErrNotFound when there is none.
func LoadResult(ctx context.Context, store *sessions.Store, jobID string) (investigate.Issue, *investigate.HealResult, error) {
	d, err := loadResultDoc(ctx, store, jobID)
	if err != nil {
		return investigate.Issue{}, nil, err
	}
	return d.Job.Issue, d.Result, nil
}

// SaveResult keeps an investigation run outside Slack under jobID, in the
// form LoadResult reads.
func SaveResult(ctx context.Context, store *sessions.Store, jobID string, issue investigate.Issue, res *investigate.HealResult) error {
	enc, err := encodeResultDoc(resultDoc{Job: InvestigationJob{Issue: issue}, Result: res})
	if err != nil {
		return err
	}
	if err := store.PutResultDoc(ctx, jobID, enc); err != nil {
		return fmt.Errorf("keep result %s: %w", jobID, err)
	}
	return nil
}
