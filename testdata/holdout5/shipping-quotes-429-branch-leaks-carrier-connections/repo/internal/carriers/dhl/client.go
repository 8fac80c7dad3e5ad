package dhl

import (
	"context"
	"net/http"
	"time"

	"github.com/parcelyard/shipping/internal/carriers"
)

type Client struct {
	baseURL string
	http    *http.Client
	slow    time.Duration
}

func New(baseURL string) *Client {
	return &Client{baseURL: baseURL, http: &http.Client{Timeout: 1500 * time.Millisecond}, slow: 800 * time.Millisecond}
}

func (c *Client) Quote(ctx context.Context, req carriers.QuoteRequest) (*carriers.Quote, error) {
	return c.rates(ctx, req)
}
