package events

import "time"

// Authorization is published to card.authorizations.v1 for every decision.
// The contract is additive: consumers must ignore fields they do not know.
type Authorization struct {
	AuthID       string    `json:"auth_id"`
	CardID       string    `json:"card_id"`
	AccountID    string    `json:"account_id"`
	Amount       string    `json:"amount"` // decimal string, never float
	Currency     string    `json:"currency"`
	MerchantName string    `json:"merchant_name"`
	MCC          string    `json:"mcc"`
	EntryMode    string    `json:"entry_mode"`
	Status       string    `json:"status"`
	AuthorizedAt time.Time `json:"authorized_at"`
	ExpiresAt    time.Time `json:"expires_at"`
	Wallet       string    `json:"wallet,omitempty"` // apple_pay, google_pay
	// NetworkTokenRef identifies the network token (DPAN) used by a wallet
	// payment, so disputes can be matched to the token lifecycle.
	NetworkTokenRef string `json:"network_token_ref,omitempty"`
}
