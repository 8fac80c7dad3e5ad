package coachline

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/wayfarer/trips/services/fare-aggregator/internal/providers"
)

const baseURL = "https://api.coachline.example/v1"

type Client struct{ apiKey string }

func New(apiKey string) *Client { return &Client{apiKey: apiKey} }

func (c *Client) Name() string { return "coachline" }

func (c *Client) Serves(q providers.Query) bool { return !providers.IsIslandRoute(q) }

func (c *Client) Search(ctx context.Context, q providers.Query) ([]providers.Fare, error) {
	u := fmt.Sprintf("%s/journeys?origin=%s&destination=%s&date=%s&adults=%d", baseURL, q.From, q.To, q.Date.Format("2006-01-02"), q.Passengers)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.apiKey)
	resp, err := providers.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("coachline: status %d", resp.StatusCode)
	}
	var body journeysResponse
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, fmt.Errorf("coachline: decode: %w", err)
	}
	return body.fares(), nil
}
