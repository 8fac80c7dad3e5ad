package gds

import "time"

// Session pool towards the GDS ticketing endpoint.
var PoolConfig = Config{
	MaxSessions:    20, // summer peak: queueing for sessions at 10:00-14:00
	IdleTimeout:    5 * time.Minute,
	RequestTimeout: 20 * time.Second,
}
