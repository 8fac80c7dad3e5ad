package reconcile

import "time"

// EscalateAfter is how long a settled-at-bank payout may stay unreconciled
// before payouts-api pages the on-call and marks it "needs review".
// Intraday statements arrive hourly now (camt.052), so 2h is plenty.
const EscalateAfter = 2 * time.Hour
