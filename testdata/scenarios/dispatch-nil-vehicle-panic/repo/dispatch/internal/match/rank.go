package match

import (
	"math"
	"sort"

	"github.com/hopper-mobility/marketplace/dispatch/internal/geo"
)

// Candidate is a driver near the pickup point.
type Candidate struct {
	DriverID  string
	Location  geo.Point
	Heading   float64
	Rating    float64
	Vehicle   *Vehicle // nil for drivers on the legacy driver app
	IdleSince int64
}

type Vehicle struct {
	Class string
	EV    bool
	Seats int
}

const evBonus = 0.15

// score ranks a candidate for a pickup: closer, better rated and longer
// idle drivers first; riders who asked for an EV prefer EVs.
func score(c Candidate, pickup geo.Point, preferEV bool, now int64) float64 {
	dist := geo.HaversineKM(c.Location, pickup)
	s := 1/(1+dist) + 0.2*(c.Rating/5) + 0.1*math.Min(float64(now-c.IdleSince)/600, 1)
	if preferEV && c.Vehicle.EV {
		s += evBonus
	}
	return s
}

// Rank orders candidates best first.
func Rank(cands []Candidate, pickup geo.Point, preferEV bool, now int64) []Candidate {
	sort.SliceStable(cands, func(i, j int) bool {
		return score(cands[i], pickup, preferEV, now) > score(cands[j], pickup, preferEV, now)
	})
	return cands
}
