package ledger

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/kestrel-bank/core-ledger/payments-orchestrator/internal/retry"
)

// Client posts movements to ledger-writer.
type Client struct {
	base string
	hc   *http.Client
	rb   retry.Budget
}

func New(base string, rb retry.Budget) *Client {
	return &Client{base: base, hc: &http.Client{Timeout: 5 * time.Second}, rb: rb}
}

// Post records one movement; 5xx are retried within the retry budget.
func (c *Client) Post(ctx context.Context, accountID string, p Posting) (*Result, error) {
	body, _ := json.Marshal(p)
	var res Result
	err := c.rb.Do(ctx, func(ctx context.Context) (bool, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost,
			fmt.Sprintf("%s/v1/accounts/%s/postings", c.base, accountID), bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", p.IdempotencyKey)
		resp, err := c.hc.Do(req)
		if err != nil {
			return true, err
		}
		defer resp.Body.Close()
		if resp.StatusCode >= 500 {
			return true, fmt.Errorf("ledger-writer: %s", resp.Status)
		}
		if resp.StatusCode >= 400 {
			return false, decodeProblem(resp)
		}
		return false, json.NewDecoder(resp.Body).Decode(&res)
	})
	return &res, err
}
