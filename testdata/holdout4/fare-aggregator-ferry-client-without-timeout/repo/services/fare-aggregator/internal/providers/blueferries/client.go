package blueferries

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/wayfarer/trips/services/fare-aggregator/internal/providers"
)

const baseURL = "https://api.blueferries.example/v2"

// Client searches Blue Ferries sailings (Balearics and mainland ports).
type Client struct {
	http   *http.Client
	apiKey string
}

func New(apiKey string) *Client {
	return &Client{http: &http.Client{}, apiKey: apiKey}
}

func (c *Client) Name() string { return "blueferries" }

// Serves reports whether both ends of the query have a ferry port.
func (c *Client) Serves(q providers.Query) bool { return providers.IsIslandRoute(q) }

func (c *Client) Search(ctx context.Context, q providers.Query) ([]providers.Fare, error) {
	u := fmt.Sprintf("%s/sailings?from=%s&to=%s&date=%s&pax=%d", baseURL, portFor(q.From), portFor(q.To), q.Date.Format("2006-01-02"), q.Passengers)
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("X-Api-Key", c.apiKey)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("blueferries: status %d", resp.StatusCode)
	}
	var body sailingsResponse
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, fmt.Errorf("blueferries: decode: %w", err)
	}
	return body.fares(), nil
}
