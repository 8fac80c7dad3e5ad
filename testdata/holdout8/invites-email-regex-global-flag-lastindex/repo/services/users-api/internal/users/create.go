package users

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"github.com/jackc/pgx/v5"
)

// EnsurePending returns the user with this address, creating a pending one
// (no password, no profile) when none exists yet. Invites call this before
// they create the invitation row.
func (s *Store) EnsurePending(ctx context.Context, orgID, email string) (*User, error) {
	// Addresses are compared case-insensitively; store them lower-cased so
	// that the unique index on users(email) catches Jane@ vs jane@ (#2219).
	email = strings.ToLower(strings.TrimSpace(email))

	u, err := s.byEmail(ctx, email)
	if err == nil {
		return u, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return nil, err
	}

	row := s.db.QueryRow(ctx,
		`INSERT INTO users (email, status, created_via)
		 VALUES ($1, 'pending', 'invite')
		 ON CONFLICT (email) DO UPDATE SET email = EXCLUDED.email
		 RETURNING id, email, status`, email)
	u = &User{}
	if err := row.Scan(&u.ID, &u.Email, &u.Status); err != nil {
		return nil, err
	}
	slog.InfoContext(ctx, "pending user created", "user_id", u.ID, "org_id", orgID)
	return u, nil
}
