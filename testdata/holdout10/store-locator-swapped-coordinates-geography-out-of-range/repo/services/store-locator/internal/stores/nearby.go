package stores

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

type Store struct {
	ID        int64
	Name      string
	DistanceM float64
}

const nearbySQL = `
SELECT s.id, s.name,
       ST_Distance(ST_SetSRID(ST_MakePoint(s.longitude, s.latitude), 4326)::geography,
                   ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography) AS distance_m
FROM stores s
WHERE s.country = $3 AND s.status = 'open'
ORDER BY distance_m
LIMIT 20`

func Nearby(ctx context.Context, db *pgxpool.Pool, lon, lat float64, country string) ([]Store, error) {
	rows, err := db.Query(ctx, nearbySQL, lon, lat, country)
	if err != nil {
		return nil, fmt.Errorf("nearby query: %w", err)
	}
	defer rows.Close()
	var out []Store
	for rows.Next() {
		var st Store
		if err := rows.Scan(&st.ID, &st.Name, &st.DistanceM); err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, rows.Err()
}
