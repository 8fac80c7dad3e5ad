package parcelnet

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/parcelyard/shipping/internal/carriers"
)

type Client struct {
	baseURL string
	apiKey  string
	http    *http.Client
}

type RateLimitedError struct{ RetryAfter time.Duration }

func (e *RateLimitedError) Error() string { return "parcelnet: rate limited (HTTP 429)" }

func New(baseURL, apiKey string) *Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxConnsPerHost = 32
	tr.MaxIdleConnsPerHost = 32
	return &Client{baseURL: baseURL, apiKey: apiKey, http: &http.Client{Transport: tr}}
}

func (c *Client) Quote(ctx context.Context, req carriers.QuoteRequest) (*carriers.Quote, error) {
	body, err := json.Marshal(toRateRequest(req))
	if err != nil {
		return nil, err
	}
	httpReq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.baseURL+"/v2/rates", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	httpReq.Header.Set("Content-Type", "application/json")
	httpReq.Header.Set("X-Api-Key", c.apiKey)
	resp, err := c.http.Do(httpReq)
	if err != nil {
		return nil, fmt.Errorf("parcelnet: %w", err)
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		return nil, &RateLimitedError{RetryAfter: time.Duration(secs) * time.Second}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("parcelnet: unexpected status %d", resp.StatusCode)
	}
	var out rateResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("parcelnet: decode: %w", err)
	}
	return out.toQuote(req), nil
}
