package ledger

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
)

type Client struct {
	baseURL string
	http    *http.Client
}

func New(baseURL string, tlsCfg *tls.Config) *Client {
	tr := &http.Transport{TLSClientConfig: tlsCfg, IdleConnTimeout: 90 * time.Second, MaxIdleConnsPerHost: 16}
	return &Client{baseURL: baseURL, http: &http.Client{Timeout: 5 * time.Second, Transport: otelhttp.NewTransport(tr)}}
}

func (c *Client) Transfer(ctx context.Context, t Transfer) (*Receipt, error) {
	body, _ := json.Marshal(t)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.baseURL+"/v1/transfers", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", t.PayoutID)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		return nil, fmt.Errorf("ledger: status %d", resp.StatusCode)
	}
	var r Receipt
	return &r, json.NewDecoder(resp.Body).Decode(&r)
}
