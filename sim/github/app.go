package github

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// GitHub accepts app JWTs that live at most ten minutes; it tolerates a
// minute of clock drift and recommends backdating iat by 60 seconds.
const (
	maxJWTLifetime = 10 * time.Minute
	clockDrift     = time.Minute
	maxJWTBytes    = 8 << 10
)

// jwtError is a rejected app JWT; the message is GitHub's wording and never
// contains the token.
type jwtError struct{ msg string }

func (e *jwtError) Error() string { return e.msg }

var errJWTDecode = &jwtError{"A JSON web token could not be decoded"}

// numericClaim accepts a JSON number or a numeric string.
func numericClaim(raw json.RawMessage) (int64, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		if i, err := n.Int64(); err == nil {
			return i, true
		}
		if f, err := n.Float64(); err == nil {
			return int64(f), true
		}
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i, true
		}
	}
	return 0, false
}

// verifyAppJWT checks an app JWT: RS256 signed by key, iss the app id, iat
// not in the future, exp in the future and at most ten minutes after now.
func verifyAppJWT(token string, key *rsa.PublicKey, appID int64, now time.Time) error {
	if len(token) > maxJWTBytes {
		return errJWTDecode
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return errJWTDecode
	}
	hb, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return errJWTDecode
	}
	var header struct {
		Alg string `json:"alg"`
	}
	if json.Unmarshal(hb, &header) != nil {
		return errJWTDecode
	}
	if header.Alg != "RS256" {
		return &jwtError{fmt.Sprintf("'alg' %q is not supported, use RS256", header.Alg)}
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return errJWTDecode
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(key, crypto.SHA256, digest[:], sig) != nil {
		return errJWTDecode
	}
	cb, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return errJWTDecode
	}
	var claims struct {
		Iss json.RawMessage `json:"iss"`
		Iat json.RawMessage `json:"iat"`
		Exp json.RawMessage `json:"exp"`
	}
	if json.Unmarshal(cb, &claims) != nil {
		return errJWTDecode
	}
	iss, okIss := numericClaim(claims.Iss)
	if !okIss {
		return &jwtError{"'Issuer' claim ('iss') must be an Integer"}
	}
	if iss != appID {
		return &jwtError{"Integration not found"}
	}
	iat, okIat := numericClaim(claims.Iat)
	if !okIat || time.Unix(iat, 0).After(now.Add(clockDrift)) {
		return &jwtError{"'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued"}
	}
	exp, okExp := numericClaim(claims.Exp)
	if !okExp || !time.Unix(exp, 0).After(now) {
		return &jwtError{"'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires"}
	}
	if time.Unix(exp, 0).After(now.Add(maxJWTLifetime + clockDrift)) {
		return &jwtError{"'Expiration time' claim ('exp') is too far in the future"}
	}
	return nil
}

// newInstallationToken returns a random token in GitHub's ghs_ format.
func newInstallationToken() (string, error) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 36)
	for i := range b {
		n, err := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		if err != nil {
			return "", fmt.Errorf("generate installation token: %w", err)
		}
		b[i] = alphabet[n.Int64()]
	}
	return "ghs_" + string(b), nil
}

// appAuth authenticates a GitHub App JWT request.
func (s *Server) appAuth(rc *reqCtx) *reply {
	if s.opts.AppID == 0 {
		return notFound()
	}
	tok, ok := bearer(rc.r)
	if !ok {
		return fail(http.StatusUnauthorized, "A JSON web token could not be decoded")
	}
	if err := verifyAppJWT(tok, s.opts.AppPublicKey, s.opts.AppID, s.now()); err != nil {
		var je *jwtError
		if errors.As(err, &je) {
			return fail(http.StatusUnauthorized, je.msg)
		}
		return fail(http.StatusUnauthorized, "A JSON web token could not be decoded")
	}
	return nil
}

func (s *Server) installationJSON(rc *reqCtx) map[string]any {
	return map[string]any{
		"id":                   s.opts.AppInstallationID,
		"app_id":               s.opts.AppID,
		"app_slug":             s.opts.AppSlug,
		"target_type":          "Organization",
		"access_tokens_url":    fmt.Sprintf("%s/app/installations/%d/access_tokens", rc.api, s.opts.AppInstallationID),
		"repositories_url":     rc.api + "/installation/repositories",
		"html_url":             fmt.Sprintf("%s/settings/installations/%d", rc.web, s.opts.AppInstallationID),
		"permissions":          installationPermissions(),
		"repository_selection": "all",
	}
}

func installationPermissions() map[string]string {
	return map[string]string{"contents": "write", "pull_requests": "write", "issues": "write", "metadata": "read"}
}

// GET /app
func (s *Server) getApp(rc *reqCtx) *reply {
	if out := s.appAuth(rc); out != nil {
		return out
	}
	return ok(http.StatusOK, map[string]any{
		"id": s.opts.AppID, "slug": s.opts.AppSlug, "name": s.opts.AppSlug,
		"owner":       map[string]any{"login": "acme", "type": "Organization"},
		"html_url":    rc.web + "/apps/" + s.opts.AppSlug,
		"permissions": installationPermissions(),
	})
}

// GET /app/installations/{id}
func (s *Server) getInstallation(rc *reqCtx) *reply {
	if out := s.appAuth(rc); out != nil {
		return out
	}
	if id, err := strconv.ParseInt(rc.r.PathValue("id"), 10, 64); err != nil || id != s.opts.AppInstallationID {
		return notFound()
	}
	return ok(http.StatusOK, s.installationJSON(rc))
}

// POST /app/installations/{id}/access_tokens
func (s *Server) createInstallationToken(rc *reqCtx) *reply {
	if out := s.appAuth(rc); out != nil {
		return out
	}
	if id, err := strconv.ParseInt(rc.r.PathValue("id"), 10, 64); err != nil || id != s.opts.AppInstallationID {
		return notFound()
	}
	if len(rc.body) > 0 {
		var req struct {
			Repositories []string          `json:"repositories"`
			Permissions  map[string]string `json:"permissions"`
		}
		if out := rc.decode(&req); out != nil {
			return out
		}
	}
	tok, err := newInstallationToken()
	if err != nil {
		s.log.Error("installation token", "err", err)
		return fail(http.StatusInternalServerError, "Server Error")
	}
	expires := s.now().Add(s.opts.TokenTTL).UTC().Truncate(time.Second)
	s.mu.Lock()
	s.pruneTokensLocked()
	s.tokens[tok] = credential{login: s.opts.AppSlug + "[bot]", bot: true, expires: expires}
	s.mu.Unlock()
	return ok(http.StatusCreated, map[string]any{
		"token":                tok,
		"expires_at":           isoTime(expires),
		"permissions":          installationPermissions(),
		"repository_selection": "all",
	})
}

// pruneTokensLocked drops expired installation tokens and, past the cap,
// the ones expiring soonest.
func (s *Server) pruneTokensLocked() {
	now := s.now()
	for t, c := range s.tokens {
		if !c.expires.IsZero() && !now.Before(c.expires) {
			delete(s.tokens, t)
		}
	}
	for len(s.tokens) >= maxTokens {
		var victim string
		var soonest time.Time
		for t, c := range s.tokens {
			if c.expires.IsZero() {
				continue
			}
			if victim == "" || c.expires.Before(soonest) {
				victim, soonest = t, c.expires
			}
		}
		if victim == "" {
			return
		}
		delete(s.tokens, victim)
	}
}

// GET /repos/{owner}/{repo}/installation (JWT authenticated on GitHub).
func (s *Server) getRepoInstallation(rc *reqCtx) *reply {
	if out := s.appAuth(rc); out != nil {
		return out
	}
	s.mu.Lock()
	_, found := s.repos[repoKey(rc.r.PathValue("owner"), rc.r.PathValue("repo"))]
	s.mu.Unlock()
	if !found {
		return notFound()
	}
	return ok(http.StatusOK, s.installationJSON(rc))
}
