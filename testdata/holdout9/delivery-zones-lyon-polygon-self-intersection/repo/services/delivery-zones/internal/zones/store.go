package zones

import (
	"context"
	"fmt"
)

// Lookup returns the delivery zone containing the point, or ErrNoZone.
const lookupSQL = `
SELECT id, city, name, courier_pool
FROM delivery_zones
WHERE active
  AND ST_Covers(area, ST_SetSRID(ST_MakePoint($1, $2), 4326))
ORDER BY priority DESC
LIMIT 1`

func (s *Store) Lookup(ctx context.Context, lon, lat float64) (*Zone, error) {
	var z Zone
	err := s.db.QueryRow(ctx, lookupSQL, lon, lat).Scan(&z.ID, &z.City, &z.Name, &z.CourierPool)
	if err != nil {
		return nil, fmt.Errorf("zone lookup (%.5f,%.5f): %w", lon, lat, err)
	}
	return &z, nil
}
