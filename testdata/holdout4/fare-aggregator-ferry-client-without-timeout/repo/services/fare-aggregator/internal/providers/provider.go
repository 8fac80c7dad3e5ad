package providers

import (
	"context"
	"net"
	"net/http"
	"time"
)

// Query is one fare search as the gateway sends it.
type Query struct {
	From       string
	To         string
	Date       time.Time
	Passengers int
}

// Fare is one bookable offer.
type Fare struct {
	Provider   string
	Mode       string
	Departure  time.Time
	Arrival    time.Time
	PriceCents int64
	Currency   string
}

// Provider searches one inventory source.
type Provider interface {
	Name() string
	Serves(q Query) bool
	Search(ctx context.Context, q Query) ([]Fare, error)
}

// DefaultClient is shared by all provider clients: a slow provider must never
// hold a search longer than its budget (the gateway gives up after 10 s).
var DefaultClient = &http.Client{
	Timeout: 4 * time.Second,
	Transport: &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 2 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 32,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 2 * time.Second,
	},
}
