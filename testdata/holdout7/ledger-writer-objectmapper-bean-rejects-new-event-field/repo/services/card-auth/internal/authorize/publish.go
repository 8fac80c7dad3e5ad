package authorize

import (
	"context"

	"github.com/kestrel-pay/card-platform/services/card-auth/internal/events"
)

func toEvent(d Decision, req Request) events.Authorization {
	return events.Authorization{
		AuthID:       d.AuthID,
		CardID:       req.CardID,
		AccountID:    d.AccountID,
		Amount:       req.Amount.String(),
		Currency:     req.Currency,
		MerchantName: req.Merchant.Name,
		MCC:          req.Merchant.MCC,
		EntryMode:    req.EntryMode,
		Status:       d.Status,
		AuthorizedAt: d.At,
		ExpiresAt:    d.At.Add(holdTTL(req.Merchant.MCC)),
		Wallet:       req.Token.Wallet,

		NetworkTokenRef: req.Token.Ref,
	}
}

func (h *Handler) publish(ctx context.Context, d Decision, req Request) error {
	return h.producer.Publish(ctx, "card.authorizations.v1", d.AccountID, toEvent(d, req))
}
