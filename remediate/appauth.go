package remediate

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/google/go-github/v62/github"
)

// GitHub App JWT timing: iat backdated by a minute for clock drift, exp nine
// minutes ahead (GitHub allows ten).
const (
	jwtBackdate = 60 * time.Second
	jwtLifetime = 9 * time.Minute
	// tokenRefreshMargin: a cached installation token is replaced this long
	// before it expires.
	tokenRefreshMargin = 5 * time.Minute
)

// AppCredentials authenticate as a GitHub App installation.
type AppCredentials struct {
	AppID          int64
	InstallationID int64
	// PrivateKeyPEM is the app's private key (PKCS#1 "RSA PRIVATE KEY" or
	// PKCS#8 "PRIVATE KEY"), as downloaded from the app settings.
	PrivateKeyPEM []byte
}

// ErrBadAppKey is returned for a GitHub App private key that cannot be used.
var ErrBadAppKey = errors.New("github app private key is not a PEM-encoded RSA private key")

func parseAppKey(pemBytes []byte) (*rsa.PrivateKey, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil {
		return nil, ErrBadAppKey
	}
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, ErrBadAppKey
	}
	rk, ok := k.(*rsa.PrivateKey)
	if !ok {
		return nil, ErrBadAppKey
	}
	return rk, nil
}

// appJWT signs the RS256 JWT a GitHub App presents to exchange for an
// installation token.
func appJWT(key *rsa.PrivateKey, appID int64, now time.Time) (string, error) {
	enc := func(v any) (string, error) {
		b, err := json.Marshal(v)
		if err != nil {
			return "", err
		}
		return base64.RawURLEncoding.EncodeToString(b), nil
	}
	h, err := enc(map[string]string{"alg": "RS256", "typ": "JWT"})
	if err != nil {
		return "", err
	}
	c, err := enc(map[string]int64{
		"iat": now.Add(-jwtBackdate).Unix(),
		"exp": now.Add(jwtLifetime).Unix(),
		"iss": appID,
	})
	if err != nil {
		return "", err
	}
	signing := h + "." + c
	digest := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, digest[:])
	if err != nil {
		return "", fmt.Errorf("sign github app jwt: %w", err)
	}
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// appTokenSource exchanges app JWTs for installation tokens and caches
// the token until shortly before it expires. Safe for concurrent use.
type appTokenSource struct {
	appID, installationID int64
	key                   *rsa.PrivateKey
	baseURL               *url.URL
	hc                    *http.Client
	now                   func() time.Time

	mu      sync.Mutex
	token   string
	expires time.Time
}

// Token returns a valid installation token, exchanging a new one when the
// cached one is missing or about to expire.
func (a *appTokenSource) Token(ctx context.Context) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	if a.token != "" && now.Add(tokenRefreshMargin).Before(a.expires) {
		return a.token, nil
	}
	jwt, err := appJWT(a.key, a.appID, now)
	if err != nil {
		return "", err
	}
	c := github.NewClient(a.hc).WithAuthToken(jwt)
	c.BaseURL = a.baseURL
	tok, _, err := c.Apps.CreateInstallationToken(ctx, a.installationID, nil)
	if err != nil {
		return "", classify(opInstallationToken, err)
	}
	if tok.GetToken() == "" {
		return "", &GitHubError{Op: opInstallationToken, Kind: ErrorBadResponse, Detail: "no token in the answer"}
	}
	a.token = tok.GetToken()
	a.expires = tok.GetExpiresAt().Time
	if a.expires.IsZero() {
		a.expires = now.Add(time.Hour) // GitHub's installation token lifetime
	}
	return a.token, nil
}

// invalidate drops a token GitHub rejected so the next call exchanges anew.
func (a *appTokenSource) invalidate(token string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.token == token {
		a.token, a.expires = "", time.Time{}
	}
}

// appTransport authenticates every request with the installation token.
type appTransport struct {
	base http.RoundTripper
	src  *appTokenSource
}

func (t *appTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, err := t.src.Token(req.Context())
	if err != nil {
		return nil, err
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "token "+tok)
	resp, err := t.base.RoundTrip(r)
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		t.src.invalidate(tok)
	}
	return resp, err
}
