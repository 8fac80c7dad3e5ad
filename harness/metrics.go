package harness

import (
	"fmt"
	"net/http"

	"github.com/autoheal/autoheal/scenario"
	promsim "github.com/autoheal/autoheal/sim/prom"
)

// startMetrics serves metrics.json through the Prometheus simulator.
func startMetrics(b *Backends, s *scenario.Scenario, opts Options, serve func(string, http.Handler) error) error {
	if s.Metrics == nil {
		return nil
	}
	h, err := promsim.New(s.Metrics, promsim.Options{Now: s.Now, Transcript: opts.Transcript, Logger: opts.Logger})
	if err != nil {
		return fmt.Errorf("prometheus simulator: %w", err)
	}
	return serve("prometheus", h)
}
