package quotes

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/parcelyard/shipping/internal/carriers"
	"github.com/parcelyard/shipping/internal/carriers/parcelnet"
)

const quoteBudget = 1800 * time.Millisecond

type Aggregator struct {
	carriers map[string]carriers.Carrier
	log      *slog.Logger
}

// Quote asks every carrier in parallel and returns all offers. A carrier that is rate limited is skipped;
// any other carrier error fails the request so checkout never shows an incomplete price list.
func (a *Aggregator) Quote(ctx context.Context, req carriers.QuoteRequest) ([]carriers.Quote, error) {
	ctx, cancel := context.WithTimeout(ctx, quoteBudget)
	defer cancel()
	type result struct {
		name string
		q    *carriers.Quote
		err  error
	}
	ch := make(chan result, len(a.carriers))
	for name, c := range a.carriers {
		go func(name string, c carriers.Carrier) {
			q, err := c.Quote(ctx, req)
			ch <- result{name, q, err}
		}(name, c)
	}
	var out []carriers.Quote
	for range a.carriers {
		r := <-ch
		var rl *parcelnet.RateLimitedError
		switch {
		case errors.As(r.err, &rl):
			a.log.Warn("carrier rate limited, skipping", "carrier", r.name, "retry_after", rl.RetryAfter)
		case r.err != nil:
			a.log.Error("carrier quote failed", "carrier", r.name, "err", r.err)
			return nil, r.err
		default:
			out = append(out, *r.q)
		}
	}
	return out, nil
}
