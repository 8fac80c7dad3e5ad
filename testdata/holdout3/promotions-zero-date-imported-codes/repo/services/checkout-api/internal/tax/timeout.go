package tax

import "time"

// The tax service p99 is ~600 ms in the morning; give it room before falling back to the cached rate.
const requestTimeout = 900 * time.Millisecond
