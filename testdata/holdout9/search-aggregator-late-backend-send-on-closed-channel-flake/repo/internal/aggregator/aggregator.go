package aggregator

import (
	"context"
	"log/slog"
	"sort"
	"time"
)

type Backend interface {
	Name() string
	Search(ctx context.Context, q Query) ([]Result, error)
}

type partial struct {
	backend string
	results []Result
	err     error
}

type Aggregator struct {
	backends []Backend
	budget   time.Duration // total time we wait for backends before answering with what we have
}

func New(budget time.Duration, backends ...Backend) *Aggregator {
	return &Aggregator{backends: backends, budget: budget}
}

// Search fans the query out to every backend and merges what arrives within the budget.
func (a *Aggregator) Search(ctx context.Context, q Query) ([]Result, error) {
	ctx, cancel := context.WithTimeout(ctx, a.budget)
	defer cancel()

	results := make(chan partial)
	defer close(results)
	for _, b := range a.backends {
		go func(b Backend) {
			res, err := b.Search(ctx, q)
			results <- partial{backend: b.Name(), results: res, err: err}
		}(b)
	}

	var out []Result
	for range a.backends {
		select {
		case p := <-results:
			if p.err != nil {
				slog.WarnContext(ctx, "backend failed", "backend", p.backend, "err", p.err)
				continue
			}
			out = append(out, p.results...)
		case <-ctx.Done():
			slog.WarnContext(ctx, "search budget exhausted, returning partial results", "budget", a.budget, "have", len(out))
			return rank(out), nil
		}
	}
	return rank(out), nil
}

func rank(rs []Result) []Result {
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].Score > rs[j].Score })
	return rs
}
