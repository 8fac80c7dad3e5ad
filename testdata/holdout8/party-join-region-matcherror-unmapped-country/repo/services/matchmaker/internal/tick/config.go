package tick

import "time"

// Matchmaking runs in ticks: every tick each region's queue is scanned and
// full lobbies are formed. Shorter ticks lower queue times at night when
// populations are thin, at the cost of slightly worse skill spread.
const (
	DefaultInterval = 1500 * time.Millisecond
	NightInterval   = 750 * time.Millisecond
	MaxSkillSpread  = 350
)
