package traffic

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

type Client struct {
	base string
	hc   *http.Client
}

func New(base string) *Client {
	return &Client{base: base, hc: &http.Client{Timeout: 2 * time.Second}}
}

func (c *Client) Speed(ctx context.Context, segment string) (float64, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/v1/segments/%s/speed", c.base, segment), nil)
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, fmt.Errorf("traffic-model: %w", err)
	}
	defer resp.Body.Close()
	var out struct{ KPH float64 }
	return out.KPH, json.NewDecoder(resp.Body).Decode(&out)
}
