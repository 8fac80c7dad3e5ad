package promo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// Validate asks promotions-service whether the code applies to the cart.
func (c *Client) Validate(ctx context.Context, code string, cartTotal string) (*Result, error) {
	body, _ := json.Marshal(map[string]string{"code": code, "cartTotal": cartTotal})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.baseURL+"/v1/promotions/validate", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("promotions-service: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("promotions-service returned %d", resp.StatusCode)
	}
	var r Result
	return &r, json.NewDecoder(resp.Body).Decode(&r)
}
