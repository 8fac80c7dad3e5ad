package scim

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/jackc/pgx/v5"
	"go.uber.org/zap"
)

type Group struct {
	Schemas     []string `json:"schemas"`
	ID          string   `json:"id,omitempty"`
	ExternalID  string   `json:"externalId"`
	DisplayName string   `json:"displayName"`
	Members     []Member `json:"members"`
}

// CreateGroup handles POST /scim/v2/Groups from the tenant's IdP (Okta, Entra ID).
func (h *Handler) CreateGroup(w http.ResponseWriter, r *http.Request) {
	tenant := TenantFrom(r.Context())
	var g Group
	if err := json.NewDecoder(r.Body).Decode(&g); err != nil {
		h.scimError(w, http.StatusBadRequest, "invalidSyntax", err.Error())
		return
	}
	if g.DisplayName == "" {
		h.scimError(w, http.StatusBadRequest, "invalidValue", "displayName is required")
		return
	}
	id, err := h.store.WithTx(r.Context(), func(ctx context.Context, tx pgx.Tx) (string, error) {
		id, err := insertGroup(ctx, tx, tenant.ID, g)
		if err != nil {
			return "", fmt.Errorf("insert group: %w", err)
		}
		if err := h.roles.ApplyMapping(ctx, tx, tenant.ID, id, g.DisplayName); err != nil {
			return "", fmt.Errorf("role mapping: %w", err)
		}
		for _, m := range g.Members {
			if err := addMember(ctx, tx, id, m.Value); err != nil {
				return "", fmt.Errorf("add member %s: %w", m.Value, err)
			}
		}
		return id, nil
	})
	if err != nil {
		h.log.Error("create group failed", zap.String("tenant", tenant.Slug),
			zap.String("externalId", g.ExternalID), zap.Int("display_name_len", len(g.DisplayName)),
			zap.Int("members", len(g.Members)), zap.Error(err))
		h.scimError(w, http.StatusInternalServerError, "", "internal error")
		return
	}
	g.ID = id
	writeJSON(w, http.StatusCreated, g)
}

func insertGroup(ctx context.Context, tx pgx.Tx, tenantID int64, g Group) (string, error) {
	var id string
	err := tx.QueryRow(ctx,
		`INSERT INTO scim_groups (tenant_id, external_id, display_name) VALUES ($1, $2, $3) RETURNING id`,
		tenantID, g.ExternalID, g.DisplayName).Scan(&id)
	return id, err
}
