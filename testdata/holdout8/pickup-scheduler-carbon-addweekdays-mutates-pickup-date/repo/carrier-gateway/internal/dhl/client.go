package dhl

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"

	"go.uber.org/zap"
)

// Client books pickups with DHL Freight (pickup-request API v2).
type Client struct {
	base   string
	apiKey string
	http   *http.Client
	log    *zap.Logger
}

func (c *Client) BookPickup(ctx context.Context, b Booking) (*Confirmation, error) {
	body, _ := json.Marshal(toDHL(b))
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/freight/pickup-requests/v2", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("DHL-API-Key", c.apiKey)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		c.log.Error("carrier booking failed", zap.String("carrier", "dhl-freight"), zap.Int("status", resp.StatusCode),
			zap.String("reference", b.Reference), zap.ByteString("body", raw))
		return nil, &CarrierError{Status: resp.StatusCode, Body: string(raw)}
	}
	var conf Confirmation
	return &conf, json.Unmarshal(raw, &conf)
}
