package sso

import (
	"context"
	"errors"
	"log/slog"
	"strings"
)

type UpdateSettings struct {
	IdPEntityID string `json:"idp_entity_id"`
	IdPSSOURL   string `json:"idp_sso_url"`
	IdPCert     string `json:"idp_x509cert"`
}

var ErrInvalidCert = errors.New("idp_x509cert must be a PEM certificate")

// Update stores a tenant admin's SSO settings. The certificate is stored as
// pasted; sso-service parses it on every login.
func (s *Service) Update(ctx context.Context, tenant, actor string, in UpdateSettings) error {
	cert := strings.TrimSpace(in.IdPCert)
	if cert != "" && !strings.Contains(cert, "BEGIN CERTIFICATE") && len(cert) < 200 {
		return ErrInvalidCert
	}
	changed, err := s.repo.Upsert(ctx, tenant, in.IdPEntityID, in.IdPSSOURL, cert)
	if err != nil {
		return err
	}
	slog.InfoContext(ctx, "tenant sso settings updated", "tenant", tenant, "actor", actor, "fields", changed, "cert_len", len(cert))
	return nil
}
