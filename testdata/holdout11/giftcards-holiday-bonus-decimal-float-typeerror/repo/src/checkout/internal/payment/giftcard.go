package payment

import (
	"context"
	"fmt"
	"net/http"

	"github.com/larkspur/commerce/src/checkout/internal/money"
)

// RedeemGiftCard takes up to `total` off the gift card and returns what is left
// to charge to the card on file.
func (c *Client) RedeemGiftCard(ctx context.Context, orderID, code string, total money.Amount) (money.Amount, error) {
	var out redeemResponse
	status, err := c.postJSON(ctx, c.giftcardsURL+"/v1/cards/"+code+"/redeem",
		redeemRequest{OrderID: orderID, Amount: total.String(), Currency: total.Currency}, &out)
	if err != nil {
		return money.Amount{}, fmt.Errorf("giftcards: redeem: %w", err)
	}
	switch status {
	case http.StatusOK:
		return total.Sub(out.Charged), nil
	case http.StatusPaymentRequired, http.StatusConflict:
		return total, ErrGiftCardUnusable
	default:
		return money.Amount{}, fmt.Errorf("giftcards: redeem failed: status %d", status)
	}
}
