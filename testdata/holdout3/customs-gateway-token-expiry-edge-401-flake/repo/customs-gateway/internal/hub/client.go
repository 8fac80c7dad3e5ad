package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// Client submits declarations to the customs hub.
type Client struct {
	http   *http.Client
	base   string
	tokens *tokenSource
}

// Submit sends one declaration. A non-2xx answer is returned as *HubError;
// the orchestrator re-queues failed submissions with backoff.
func (c *Client) Submit(ctx context.Context, d *Declaration) (*Receipt, error) {
	if err := d.ValidateEORI(); err != nil {
		return nil, err
	}
	tok, age, err := c.tokens.Token(ctx)
	if err != nil {
		return nil, fmt.Errorf("customs hub token: %w", err)
	}
	trace.SpanFromContext(ctx).SetAttributes(attribute.Float64("app.oauth.token_age_s", age.Seconds()))

	body, _ := json.Marshal(d)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/v2/declarations", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("customs hub: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, &HubError{Status: resp.StatusCode, Body: string(msg)}
	}
	var r Receipt
	return &r, json.NewDecoder(resp.Body).Decode(&r)
}
