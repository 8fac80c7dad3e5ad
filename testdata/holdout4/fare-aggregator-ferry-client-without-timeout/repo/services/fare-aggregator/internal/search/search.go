package search

import (
	"context"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/wayfarer/trips/services/fare-aggregator/internal/providers"
)

type Searcher struct {
	providers []providers.Provider
	log       *slog.Logger
}

func New(log *slog.Logger, ps ...providers.Provider) *Searcher {
	return &Searcher{providers: ps, log: log}
}

// Search asks every provider that serves the route and merges the fares.
// Providers enforce their own time budget (see providers.DefaultClient).
func (s *Searcher) Search(ctx context.Context, q providers.Query) []providers.Fare {
	var (
		mu    sync.Mutex
		wg    sync.WaitGroup
		fares []providers.Fare
	)
	for _, p := range s.providers {
		if !p.Serves(q) {
			continue
		}
		wg.Add(1)
		go func(p providers.Provider) {
			defer wg.Done()
			start := time.Now()
			fs, err := p.Search(ctx, q)
			if err != nil {
				s.log.WarnContext(ctx, "provider failed", "provider", p.Name(), "err", err, "elapsed_ms", time.Since(start).Milliseconds())
				return
			}
			mu.Lock()
			fares = append(fares, fs...)
			mu.Unlock()
		}(p)
	}
	wg.Wait()
	sort.Slice(fares, func(i, j int) bool { return fares[i].PriceCents < fares[j].PriceCents })
	return fares
}
