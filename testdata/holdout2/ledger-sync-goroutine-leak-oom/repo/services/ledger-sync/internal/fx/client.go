// Package fx converts posting amounts into the ledger's book currency using
// rates from fx-gateway (which fronts the market-data provider).
package fx

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/shopspring/decimal"
)

var errFXTimeout = errors.New("fx lookup timed out")

// ErrTimeout reports whether err is a lookup that exceeded the client timeout.
func ErrTimeout(err error) bool { return errors.Is(err, errFXTimeout) }

type Client struct {
	base    string
	http    *http.Client
	timeout time.Duration
}

func NewClient(base string, timeout time.Duration) *Client {
	return &Client{
		base:    base,
		http:    &http.Client{Transport: http.DefaultTransport},
		timeout: timeout,
	}
}

type fxResult struct {
	rate decimal.Decimal
	err  error
}

// Rate returns the mid rate from -> to. A lookup slower than the client
// timeout fails with errFXTimeout so a slow provider cannot stall the outbox;
// the caller defers the entry and retries it on the next sweep.
func (c *Client) Rate(from, to string) (decimal.Decimal, error) {
	if from == to {
		return decimal.NewFromInt(1), nil
	}
	resc := make(chan fxResult)
	go func() {
		r, err := c.fetch(from, to)
		resc <- fxResult{r, err}
	}()
	select {
	case r := <-resc:
		return r.rate, r.err
	case <-time.After(c.timeout):
		return decimal.Zero, fmt.Errorf("fx rate %s/%s: %w", from, to, errFXTimeout)
	}
}

func (c *Client) fetch(from, to string) (decimal.Decimal, error) {
	q := url.Values{"base": {from}, "quote": {to}}
	resp, err := c.http.Get(c.base + "/v1/rates/mid?" + q.Encode())
	if err != nil {
		return decimal.Zero, fmt.Errorf("fx rate %s/%s: %w", from, to, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return decimal.Zero, fmt.Errorf("fx rate %s/%s: fx-gateway answered %s", from, to, resp.Status)
	}
	var body struct {
		Rate decimal.Decimal `json:"rate"`
		AsOf time.Time       `json:"as_of"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return decimal.Zero, fmt.Errorf("fx rate %s/%s: decode: %w", from, to, err)
	}
	return body.Rate, nil
}
