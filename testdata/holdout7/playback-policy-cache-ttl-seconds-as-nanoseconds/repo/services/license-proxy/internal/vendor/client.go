package vendor

import (
	"net/http"
	"time"
)

// NewClient returns the HTTP client used for Vaultline's key API.
func NewClient() *http.Client {
	return &http.Client{
		// p99 of the key API is 380ms; 5s kept players spinning when Vaultline hiccups.
		Timeout: 2 * time.Second,
		Transport: &http.Transport{
			MaxIdleConnsPerHost: 128,
			IdleConnTimeout:     90 * time.Second,
		},
	}
}
