package shipping

import "github.com/larkspur/commerce/src/checkout/internal/money"

// RoundQuote rounds carrier quotes up to the next 5 cents, as the storefront shows them.
func RoundQuote(a money.Amount) money.Amount {
	cents := a.Cents()
	if r := cents % 5; r != 0 {
		cents += 5 - r
	}
	return money.FromCents(cents, a.Currency)
}
