package documents

import (
	"context"
	"database/sql"
	"errors"

	"github.com/paperlane/docs/internal/dbx"
)

var ErrNotFound = errors.New("document not found")

type Store struct {
	db *dbx.Cluster // Primary() for writes, Replica() for reads
}

func (s *Store) Create(ctx context.Context, d *Document) error {
	return s.db.Primary().QueryRowContext(ctx,
		`INSERT INTO documents (workspace_id, owner_id, title, body) VALUES ($1, $2, $3, $4) RETURNING id, created_at`,
		d.WorkspaceID, d.OwnerID, d.Title, d.Body).Scan(&d.ID, &d.CreatedAt)
}

func (s *Store) Get(ctx context.Context, id string) (*Document, error) {
	var d Document
	err := s.db.Replica().QueryRowContext(ctx,
		`SELECT id, workspace_id, owner_id, title, body, created_at, updated_at FROM documents WHERE id = $1 AND deleted_at IS NULL`,
		id).Scan(&d.ID, &d.WorkspaceID, &d.OwnerID, &d.Title, &d.Body, &d.CreatedAt, &d.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return &d, err
}

func (s *Store) ListByWorkspace(ctx context.Context, ws string, limit int) ([]Document, error) {
	return s.list(ctx, s.db.Replica(), ws, limit)
}
