package invoice

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/orbitdesk/billing/internal/money"
	"github.com/orbitdesk/billing/internal/tenants"
)

type Runner struct {
	Tenants tenants.Store
	Subs    SubscriptionStore
	Out     Issuer
	Log     *slog.Logger
}

// RunTenant issues the period's invoices for one tenant.
func (r *Runner) RunTenant(ctx context.Context, tenantID int64, period Period) error {
	settings, err := r.Tenants.Settings(ctx, tenantID)
	if err != nil {
		return fmt.Errorf("tenant %d settings: %w", tenantID, err)
	}
	cur, err := money.ParseCurrency(settings.Currency)
	if err != nil {
		return fmt.Errorf("tenant %d: %w", tenantID, err)
	}
	subs, err := r.Subs.Active(ctx, tenantID, period)
	if err != nil {
		return err
	}
	for _, s := range subs {
		if err := r.Out.Issue(ctx, s, cur, period); err != nil {
			return fmt.Errorf("subscription %s: %w", s.ID, err)
		}
	}
	r.Log.Info("tenant invoiced", "tenant_id", tenantID, "subscriptions", len(subs), "currency", cur.String())
	return nil
}
