package validate

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/aerolumen/telemetry/ingest/internal/model"
)

// MaxSkew bounds how far a reading's device timestamp may be from the
// ingest clock. Devices buffer up to 12h offline, so 24h leaves margin.
const MaxSkew = 24 * time.Hour

var (
	ErrTimestampRange = errors.New("timestamp out of range")
	ErrValueRange     = errors.New("value out of range")
)

// Reading checks one sensor reading. The device sends ts as unix seconds
// (firmware protocol v3, docs/protocol.md).
func Reading(r model.Reading, now time.Time) error {
	ts := time.Unix(r.TS, 0)
	if d := ts.Sub(now); d > MaxSkew || d < -MaxSkew {
		return fmt.Errorf("%w: %d (%s)", ErrTimestampRange, r.TS, ts.UTC().Format(time.RFC3339))
	}
	for k, v := range r.Values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: %s=%v", ErrValueRange, k, v)
		}
	}
	return nil
}
