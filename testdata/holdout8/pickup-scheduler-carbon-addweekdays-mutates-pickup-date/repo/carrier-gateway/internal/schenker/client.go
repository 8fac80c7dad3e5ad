package schenker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"go.uber.org/zap"
)

// Client books pickups through DB Schenker's eSchenker booking API.
type Client struct {
	base   string
	http   *http.Client
	log    *zap.Logger
	tokens TokenSource
}

var errRetryable = errors.New("schenker: retryable")

// BookPickup sends one booking. Schenker's gateway answers 503 during its
// nightly maintenance and sometimes at peak; those are retried up to three
// times with a short backoff, everything else is returned to the caller.
func (c *Client) BookPickup(ctx context.Context, b Booking) (*Confirmation, error) {
	var lastErr error
	for attempt := 1; attempt <= 3; attempt++ {
		conf, err := c.book(ctx, b)
		if err == nil {
			return conf, nil
		}
		lastErr = err
		if !errors.Is(err, errRetryable) {
			break
		}
		c.log.Warn("schenker booking retry", zap.Int("attempt", attempt), zap.Error(err))
		time.Sleep(time.Duration(attempt) * 400 * time.Millisecond)
	}
	return nil, lastErr
}

func (c *Client) book(ctx context.Context, b Booking) (*Confirmation, error) {
	body, _ := json.Marshal(b)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/booking/v1/pickups", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	tok, err := c.tokens.Token(ctx)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errRetryable, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	switch {
	case resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusBadGateway:
		return nil, fmt.Errorf("%w: status %d", errRetryable, resp.StatusCode)
	case resp.StatusCode >= 300:
		return nil, &CarrierError{Status: resp.StatusCode, Body: string(raw)}
	}
	var conf Confirmation
	if err := json.Unmarshal(raw, &conf); err != nil {
		return nil, err
	}
	return &conf, nil
}
