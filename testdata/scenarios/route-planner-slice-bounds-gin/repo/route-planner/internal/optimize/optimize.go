package optimize

import (
	"errors"

	"github.com/haulwise/fleet/route-planner/internal/model"
)

var ErrNoStops = errors.New("route has no stops")

// Optimize orders the intermediate stops of a route; the first and last
// points are the depot and stay fixed.
func Optimize(r model.Route, m model.DistanceMatrix) (model.Route, error) {
	stops := dedupe(r.Stops)
	inner := stops[1 : len(stops)-1]
	if len(inner) == 0 {
		return r, nil
	}
	order := twoOpt(nearestNeighbour(inner, m), m)
	out := make([]model.Stop, 0, len(stops))
	out = append(out, stops[0])
	out = append(out, order...)
	out = append(out, stops[len(stops)-1])
	r.Stops = out
	return r, nil
}

// dedupe drops consecutive stops at the same address (repeat drops).
func dedupe(s []model.Stop) []model.Stop {
	out := s[:0:0]
	for i, st := range s {
		if i > 0 && st.AddressID == s[i-1].AddressID {
			continue
		}
		out = append(out, st)
	}
	return out
}
