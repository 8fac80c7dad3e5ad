package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// tokenSource caches the OAuth2 client-credentials token of the customs hub.
// Tokens live one hour (expires_in=3600).
type tokenSource struct {
	mu        sync.Mutex
	http      *http.Client
	tokenURL  string
	clientID  string
	secret    string
	scope     string
	token     string
	fetchedAt time.Time
	expiresAt time.Time
}

type tokenResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int    `json:"expires_in"`
}

// Token returns the cached token while it is valid, otherwise fetches a new one.
func (s *tokenSource) Token(ctx context.Context) (string, time.Duration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.token == "" || !time.Now().Before(s.expiresAt) {
		tr, err := s.fetch(ctx)
		if err != nil {
			return "", 0, err
		}
		s.token = tr.AccessToken
		s.fetchedAt = time.Now()
		s.expiresAt = s.fetchedAt.Add(time.Duration(tr.ExpiresIn) * time.Second)
	}
	return s.token, time.Since(s.fetchedAt), nil
}

func (s *tokenSource) fetch(ctx context.Context) (*tokenResponse, error) {
	form := url.Values{"grant_type": {"client_credentials"}, "scope": {s.scope}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.tokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.SetBasicAuth(s.clientID, s.secret)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := s.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("token endpoint: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("token endpoint: HTTP %d", resp.StatusCode)
	}
	var tr tokenResponse
	if err := json.NewDecoder(resp.Body).Decode(&tr); err != nil {
		return nil, fmt.Errorf("token endpoint: %w", err)
	}
	return &tr, nil
}
