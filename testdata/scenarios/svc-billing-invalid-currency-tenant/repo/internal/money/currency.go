package money

import (
	"fmt"
	"strings"

	"golang.org/x/text/currency"
)

// ParseCurrency validates an ISO 4217 code from tenant settings.
func ParseCurrency(code string) (currency.Unit, error) {
	u, err := currency.ParseISO(strings.TrimSpace(code))
	if err != nil {
		return currency.Unit{}, fmt.Errorf("currency: unknown ISO 4217 code %q", code)
	}
	return u, nil
}
