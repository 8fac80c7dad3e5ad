package zones

import (
	"context"
	"log/slog"
)

// UpdateArea stores a polygon drawn in the ops map editor. The editor sends GeoJSON.
func (s *Store) UpdateArea(ctx context.Context, id int64, geojson string, user string) error {
	_, err := s.db.Exec(ctx, `UPDATE delivery_zones SET area = ST_SetSRID(ST_GeomFromGeoJSON($2), 4326), updated_by = $3, updated_at = now() WHERE id = $1`, id, geojson, user)
	if err == nil {
		slog.InfoContext(ctx, "zone area updated", "zone_id", id, "user", user, "vertices", countVertices(geojson))
	}
	return err
}
