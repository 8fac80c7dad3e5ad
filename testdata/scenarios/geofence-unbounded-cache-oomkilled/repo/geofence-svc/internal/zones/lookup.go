package zones

import (
	"fmt"
	"sync"

	"github.com/hopper-mobility/geo/geofence-svc/internal/polygon"
)

// Index answers "which service zones contain this point".
type Index struct {
	tree *polygon.RTree
}

var (
	memoMu sync.RWMutex
	memo   = map[string][]ZoneID{}
)

func key(lat, lng float64) string {
	return fmt.Sprintf("%.6f,%.6f", lat, lng)
}

// Lookup returns the zones containing (lat, lng), memoised because the
// point-in-polygon test dominates CPU at peak.
func (ix *Index) Lookup(lat, lng float64) []ZoneID {
	k := key(lat, lng)
	memoMu.RLock()
	z, ok := memo[k]
	memoMu.RUnlock()
	if ok {
		return z
	}
	z = ix.tree.Containing(polygon.Point{Lat: lat, Lng: lng})
	memoMu.Lock()
	memo[k] = z
	memoMu.Unlock()
	return z
}
