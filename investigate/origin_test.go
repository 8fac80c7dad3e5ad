package investigate

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Callers' requests to a callee fail; the callee's last change (a new
// rejection) ran for two days, the caller changed how it builds those
// requests an hour before: the caller is the origin, at the changed line
// (here a construct wrong wherever written). When the callee changed just
// before too, nothing is decided.
func TestCallerOriginChange(t *testing.T) {
	onset := nt0.Add(3 * time.Hour)
	calleeChange := change("b18acbd", "services/inventory-api/internal/reservations/handler.go", onset.Add(-42*time.Hour),
		"inventory-api: reject quantities below 1", "31:			writeErr(w, 422, \"quantity must be >= 1\")", "")
	callerChange := change("effb079", "services/order-intake/src/routes/quickOrder.ts", onset.Add(-99*time.Minute),
		"order-intake: quick order takes a quantity column",
		"22:  const skus = body.skus.split(\",\");\n23:  const quantities = body.quantities.split(\",\").map(parseInt);", "")
	c := &candidate{Service: "inventory-api", ErrorType: ErrRuntime, traceCallee: 20, First: onset,
		Support: []Finding{{Kind: KindErrorSpan, Service: "inventory-api", Peer: "order-intake", Count: 20, Quote: "POST failed",
			Attrs: map[string]string{"blame": "callee"}}}}
	ev := &evidence{onset: onset, impact: onset, findings: []Finding{calleeChange, callerChange}}
	l, caller, heur, ok := ev.callerOriginChange(c)
	require.True(t, ok)
	assert.Equal(t, "order-intake", caller)
	assert.Equal(t, 23, l.line)
	assert.False(t, heur, "the hazard places the line")

	// The callee changed just before as well: no telling which side.
	recent := calleeChange
	recent.Time = onset.Add(-30 * time.Minute)
	ev.findings = []Finding{recent, callerChange}
	_, _, _, ok = ev.callerOriginChange(c)
	assert.False(t, ok)

	// Failures originating in the callee itself are its own.
	own := *c
	own.traceOrigins = 5
	ev.findings = []Finding{calleeChange, callerChange}
	_, _, _, ok = ev.callerOriginChange(&own)
	assert.False(t, ok)

	// The caller's change was long before: no origin there.
	old := callerChange
	old.Time = onset.Add(-20 * time.Hour)
	ev.findings = []Finding{calleeChange, old}
	_, _, _, ok = ev.callerOriginChange(c)
	assert.False(t, ok)
}
