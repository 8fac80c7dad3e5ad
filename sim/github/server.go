// Package github simulates the parts of GitHub's REST API that AutoHeal
// uses, for tests, the demo and the evaluation. The real go-github client
// talks to it unchanged: same paths (also under the GitHub Enterprise prefix
// /api/v3/), JSON fields, status codes, error bodies, rate-limit headers and
// Link pagination.
//
// Each repository is a small git object store: blobs, trees and commits
// carry real git object ids, so objects, refs and pull requests created by a
// client stay consistent with what the read endpoints serve. A repository is
// seeded with the files of the deployed revision, committed as one "seed"
// commit at the head of the default branch.
//
// A scenario's recent commits (changes.json) are served verbatim by the
// commits API (GET /repos/{o}/{r}/commits and /commits/{sha}) but are not git
// objects: their trees and parents are not in the store. The seed commit's
// parent is the newest of them, and commit listings show those commits in
// place of the seed commit, so a client sees the history the scenario
// describes. Commits created through the API are listed above them. Files
// can be read at the newest change's id (it names the deployed revision),
// not at older ones.
//
// Served (under / and /api/v3/):
//
//	GET    /repos/{o}/{r}                          /rate_limit  /user
//	GET    /repos/{o}/{r}/contents/{path}?ref=      (raw media type too)
//	PUT    /repos/{o}/{r}/contents/{path}           DELETE likewise
//	GET    /repos/{o}/{r}/commits?sha&path&since&until  /commits/{ref}
//	GET    /repos/{o}/{r}/branches[/{branch}]       /compare/{base}...{head}
//	GET    /repos/{o}/{r}/git/ref/{ref}  /git/matching-refs/{ref}  /git/refs[/{ref}]
//	POST   /repos/{o}/{r}/git/refs   PATCH, DELETE /git/refs/{ref}
//	POST   /repos/{o}/{r}/git/blobs|trees|commits   GET /git/blobs|trees|commits/{sha}
//	POST   /repos/{o}/{r}/pulls   GET /pulls, /pulls/{n}, /pulls/{n}/files|commits
//	PATCH  /repos/{o}/{r}/pulls/{n}   PUT /pulls/{n}/merge
//	POST   /repos/{o}/{r}/issues   GET /issues, /issues/{n}   PATCH /issues/{n}
//	POST   /repos/{o}/{r}/issues/{n}/comments   GET likewise
//	GET    /app  /app/installations/{id}  /repos/{o}/{r}/installation (app JWT)
//	POST   /app/installations/{id}/access_tokens                   (app JWT)
//	GET    /raw/{o}/{r}/{ref}/{path}                (download_url of contents)
//
// The simulator is a test fixture; production code paths never use it.
package github

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sim"
)

// Defaults for Options fields left zero.
const (
	DefaultLogin          = "autoheal-bot"
	DefaultAppSlug        = "autoheal"
	DefaultRateLimit      = 5000
	DefaultMaxBodyBytes   = 10 << 20
	DefaultMaxObjects     = 200_000
	DefaultInstallationID = 1
	DefaultTokenTTL       = time.Hour

	enterprisePrefix = "/api/v3"
	serviceName      = "github"
)

// Limits GitHub enforces on user content, and bounds on simulator state.
const (
	maxTitleLen       = 256
	maxBodyLen        = 65536
	maxIssues         = 10_000
	maxCommentsPerIss = 2500
	maxRefs           = 10_000
	maxTokens         = 1000
	maxFaults         = 1000
)

// Options configures a Server.
type Options struct {
	// Repos are the repositories served.
	Repos []RepoSeed
	// Tokens are accepted as "Authorization: token X" or "Bearer X". When
	// Tokens is empty and no GitHub App is configured, requests need no
	// credentials.
	Tokens []string
	// Login is the user that token requests act as (default DefaultLogin).
	Login string

	// AppID, AppPublicKey and AppInstallationID configure a GitHub App:
	// POST /app/installations/{id}/access_tokens accepts an RS256 JWT
	// signed by the matching private key and returns an installation token
	// that the other endpoints accept until it expires.
	AppID             int64
	AppPublicKey      *rsa.PublicKey
	AppInstallationID int64         // default DefaultInstallationID
	AppSlug           string        // bot login is "<slug>[bot]"; default DefaultAppSlug
	TokenTTL          time.Duration // installation token lifetime; default DefaultTokenTTL

	// Transcript records every request (nil records nothing).
	Transcript *sim.Transcript
	// Logger receives one debug line per request (default: discard).
	Logger *slog.Logger

	// Latency delays every response (change it later with SetLatency).
	Latency time.Duration
	// RateLimit is the hourly primary rate limit (default DefaultRateLimit).
	RateLimit int
	// WebURL is the base of html_url fields. Empty (the default) means
	// the server's own address as each request reached it (an httptest
	// server's URL), where the simulator serves the pages those links
	// name: a pull request, an issue, a file (see web.go).
	WebURL string
	// MaxBodyBytes bounds request bodies (default DefaultMaxBodyBytes).
	MaxBodyBytes int64
	// MaxObjects bounds each repository's object store (default DefaultMaxObjects).
	MaxObjects int
	// Now is the clock for tokens, rate limits and timestamps (default time.Now).
	Now func() time.Time
}

// credential is an accepted token and who it acts as.
type credential struct {
	login   string
	bot     bool
	expires time.Time // zero: never
}

// Server is the simulated GitHub API. It is safe for concurrent use.
type Server struct {
	opts Options
	log  *slog.Logger
	now  func() time.Time
	mux  *http.ServeMux
	web  *http.ServeMux // HTML pages at html_url paths
	// lastWeb is the web base of the latest request (for Merge).
	lastWeb atomic.Pointer[string]

	mu        sync.Mutex // guards everything below
	repos     map[string]*repository
	tokens    map[string]credential
	authOn    bool
	nextID    int64
	rateUsed  int
	rateReset time.Time
	latency   time.Duration

	faults faultSet
}

// New builds a server from opts.
func New(opts Options) (*Server, error) {
	if opts.Login == "" {
		opts.Login = DefaultLogin
	}
	if opts.AppSlug == "" {
		opts.AppSlug = DefaultAppSlug
	}
	if opts.AppInstallationID == 0 {
		opts.AppInstallationID = DefaultInstallationID
	}
	if opts.TokenTTL <= 0 {
		opts.TokenTTL = DefaultTokenTTL
	}
	if opts.RateLimit <= 0 {
		opts.RateLimit = DefaultRateLimit
	}
	opts.WebURL = strings.TrimSuffix(opts.WebURL, "/")
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.MaxObjects <= 0 {
		opts.MaxObjects = DefaultMaxObjects
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Latency < 0 {
		return nil, fmt.Errorf("github sim: negative latency %v", opts.Latency)
	}
	if (opts.AppID != 0) != (opts.AppPublicKey != nil) {
		return nil, errors.New("github sim: AppID and AppPublicKey must be set together")
	}
	s := &Server{
		opts:     opts,
		log:      opts.Logger.With("service", serviceName),
		now:      opts.Now,
		repos:    map[string]*repository{},
		tokens:   map[string]credential{},
		authOn:   len(opts.Tokens) > 0 || opts.AppID != 0,
		nextID:   1_000_000,
		latency:  opts.Latency,
		rateUsed: 0,
	}
	for _, t := range opts.Tokens {
		if err := s.AddToken(t); err != nil {
			return nil, err
		}
	}
	for _, seed := range opts.Repos {
		r, err := newRepository(seed, opts.MaxObjects)
		if err != nil {
			return nil, fmt.Errorf("github sim: %w", err)
		}
		key := repoKey(r.owner, r.name)
		if _, dup := s.repos[key]; dup {
			return nil, fmt.Errorf("github sim: repository %s seeded twice", r.fullName())
		}
		s.repos[key] = r
	}
	s.mux = s.routes()
	s.web = s.webRoutes()
	return s, nil
}

// ErrNoRepository is returned for a scenario whose config names no
// repository: the GitHub backend is then simply not configured.
var ErrNoRepository = errors.New("scenario config has no repo")

// SeedFromScenario turns a scenario's repository (config repo and ref, repo/
// files and changes.json) into a RepoSeed.
func SeedFromScenario(sc *scenario.Scenario) (RepoSeed, error) {
	if sc == nil {
		return RepoSeed{}, errors.New("github sim: nil scenario")
	}
	full := strings.TrimSpace(sc.Config["repo"])
	if full == "" {
		return RepoSeed{}, fmt.Errorf("github sim: scenario %q: %w", sc.Name, ErrNoRepository)
	}
	owner, name, ok := strings.Cut(full, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return RepoSeed{}, fmt.Errorf("github sim: scenario %q: config repo %q is not owner/name", sc.Name, full)
	}
	seed := RepoSeed{Owner: owner, Name: name, DefaultBranch: sc.Config["ref"], Changes: sc.Changes}
	if sc.Repo != nil {
		seed.Files = sc.Repo.Files
	}
	if len(sc.Changes) == 0 && !sc.Now.IsZero() {
		seed.Date = sc.Now.Add(-24 * time.Hour)
	}
	return seed, nil
}

// NewFromScenario serves the scenario's repository in addition to opts.Repos.
func NewFromScenario(sc *scenario.Scenario, opts Options) (*Server, error) {
	seed, err := SeedFromScenario(sc)
	if err != nil {
		return nil, err
	}
	opts.Repos = append(append([]RepoSeed(nil), opts.Repos...), seed)
	return New(opts)
}

// Handler returns the HTTP handler serving the API at / and /api/v3/.
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serveHTTP) }

// AddToken accepts another token from now on; a server that needed no
// credentials needs them from then on.
func (s *Server) AddToken(token string) error {
	if strings.TrimSpace(token) == "" || strings.ContainsAny(token, " \t\r\n") {
		return errors.New("github sim: token must be non-empty without whitespace")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens[token] = credential{login: s.opts.Login}
	s.authOn = true
	return nil
}

// SetLatency changes the delay added to every response.
func (s *Server) SetLatency(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latency = max(d, 0)
}

func repoKey(owner, name string) string { return strings.ToLower(owner + "/" + name) }

func (s *Server) newID() int64 {
	s.nextID++
	return s.nextID
}

// reqCtx carries one request through the pipeline.
type reqCtx struct {
	w        http.ResponseWriter
	r        *http.Request
	body     []byte
	origPath string // as requested, with any /api/v3 prefix
	api      string // API base URL of this request, without trailing slash
	web      string
	cred     credential
	out      *reply
}

type ctxKey struct{}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if s.webPage(w, r) {
		return
	}
	rc := &reqCtx{w: w, origPath: r.URL.Path, web: s.webBase(r)}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	rc.api = scheme + "://" + r.Host

	// Serve the GitHub Enterprise layout as well as the api.github.com one.
	if p := r.URL.Path; p == enterprisePrefix || strings.HasPrefix(p, enterprisePrefix+"/") {
		r2 := new(http.Request)
		*r2 = *r
		u := *r.URL
		u.Path = strings.TrimPrefix(p, enterprisePrefix)
		u.RawPath = strings.TrimPrefix(r.URL.RawPath, enterprisePrefix)
		if u.Path == "" {
			u.Path = "/"
		}
		r2.URL = &u
		r = r2
		rc.api += enterprisePrefix
	}
	method := r.Method + " " + r.URL.Path

	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
	rc.r, rc.body = r, body
	params := recordParams(r, body)
	var out *reply
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		out = fail(http.StatusRequestEntityTooLarge, fmt.Sprintf("Request body exceeds %d bytes", s.opts.MaxBodyBytes))
	case err != nil:
		out = fail(http.StatusBadRequest, "Problems reading the request body")
	default:
		out = s.dispatch(r.Context(), rc)
	}
	status := s.write(rc, out)
	s.opts.Transcript.Record(serviceName, method, params, out.summary(status))
	s.log.Debug("request", "method", r.Method, "path", r.URL.Path, "status", status)
}

// dispatch applies latency and faults, authenticates, charges the rate limit
// and routes.
func (s *Server) dispatch(ctx context.Context, rc *reqCtx) *reply {
	s.mu.Lock()
	delay := s.latency
	s.mu.Unlock()
	f := s.faults.match(rc.r.Method, rc.r.URL.Path)
	if f != nil {
		delay += f.Delay
	}
	if delay > 0 {
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return fail(499, "Client closed request")
		case <-t.C:
		}
	}
	if f != nil && f.Kind != FaultLatency {
		return s.faultReply(f)
	}

	if isAppPath(rc.r.URL.Path) {
		// GitHub App endpoints authenticate with the app's JWT only.
		rc.r = rc.r.WithContext(context.WithValue(ctx, ctxKey{}, rc))
		s.mux.ServeHTTP(rc.w, rc.r)
		return rc.result()
	}
	if out := s.authenticate(rc); out != nil {
		return out
	}
	if out := s.chargeRate(); out != nil {
		return out
	}
	rc.r = rc.r.WithContext(context.WithValue(ctx, ctxKey{}, rc))
	s.mux.ServeHTTP(rc.w, rc.r)
	return rc.result()
}

// isAppPath reports whether a path authenticates with the GitHub App JWT.
func isAppPath(p string) bool {
	if p == "/app" || strings.HasPrefix(p, "/app/") {
		return true
	}
	parts := strings.Split(strings.Trim(p, "/"), "/")
	return len(parts) == 4 && parts[0] == "repos" && parts[3] == "installation"
}

func (rc *reqCtx) result() *reply {
	if rc.out == nil {
		return fail(http.StatusNotFound, "Not Found")
	}
	return rc.out
}

func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	for _, scheme := range []string{"token ", "bearer "} {
		if len(h) > len(scheme) && strings.EqualFold(h[:len(scheme)], scheme) {
			return strings.TrimSpace(h[len(scheme):]), true
		}
	}
	return "", false
}

func (s *Server) authenticate(rc *reqCtx) *reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.authOn {
		rc.cred = credential{login: s.opts.Login}
		return nil
	}
	tok, ok := bearer(rc.r)
	if !ok {
		return fail(http.StatusUnauthorized, "Requires authentication")
	}
	cred, ok := s.tokens[tok]
	if !ok || (!cred.expires.IsZero() && !s.now().Before(cred.expires)) {
		return fail(http.StatusUnauthorized, "Bad credentials")
	}
	rc.cred = cred
	return nil
}

// chargeRate counts the request against the hourly primary rate limit.
func (s *Server) chargeRate() *reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if s.rateReset.IsZero() || !now.Before(s.rateReset) {
		s.rateUsed = 0
		s.rateReset = now.Add(time.Hour).Truncate(time.Second)
	}
	if s.rateUsed >= s.opts.RateLimit {
		return primaryRateLimit(http.StatusForbidden, s.opts.RateLimit, s.rateReset, "")
	}
	s.rateUsed++
	return nil
}

func (s *Server) rateHeaders(h http.Header) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rateReset.IsZero() {
		s.rateReset = s.now().Add(time.Hour).Truncate(time.Second)
	}
	setRateHeaders(h, s.opts.RateLimit, s.opts.RateLimit-s.rateUsed, s.rateReset)
}

func setRateHeaders(h http.Header, limit, remaining int, reset time.Time) {
	h.Set("X-RateLimit-Limit", fmt.Sprint(limit))
	h.Set("X-RateLimit-Remaining", fmt.Sprint(max(remaining, 0)))
	h.Set("X-RateLimit-Used", fmt.Sprint(limit-max(remaining, 0)))
	h.Set("X-RateLimit-Reset", fmt.Sprint(reset.Unix()))
	h.Set("X-RateLimit-Resource", "core")
}

// write sends the reply and returns the status written.
func (s *Server) write(rc *reqCtx, out *reply) int {
	h := rc.w.Header()
	if h.Get("X-RateLimit-Limit") == "" && out.header.Get("X-RateLimit-Limit") == "" && out.status != http.StatusUnauthorized {
		s.rateHeaders(h)
	}
	for k, vs := range out.header {
		h[k] = vs
	}
	h.Set("X-GitHub-Request-Id", requestID())
	h.Set("X-GitHub-Media-Type", "github.v3; format=json")
	if out.raw != nil {
		if h.Get("Content-Type") == "" {
			h.Set("Content-Type", "application/octet-stream")
		}
		rc.w.WriteHeader(out.status)
		_, _ = rc.w.Write(out.raw)
		return out.status
	}
	if out.status == http.StatusNoContent {
		rc.w.WriteHeader(out.status)
		return out.status
	}
	b, err := json.Marshal(out.body)
	if err != nil {
		s.log.Error("encode response", "err", err)
		*out = *fail(http.StatusInternalServerError, "Server Error") // the transcript sees what was sent
		b, _ = json.Marshal(out.body)
	}
	h.Set("Content-Type", "application/json; charset=utf-8")
	rc.w.WriteHeader(out.status)
	_, _ = rc.w.Write(b)
	return out.status
}

func requestID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return strings.ToUpper(hex.EncodeToString(b[:4]) + ":" + hex.EncodeToString(b[4:]))
}

// recordParams is what the transcript keeps of a request: the JSON body, or
// the query parameters. Headers (and so credentials) are never recorded.
func recordParams(r *http.Request, body []byte) any {
	if len(body) > 0 {
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			return map[string]any{"body_bytes": len(body)}
		}
		return compact(v, 0)
	}
	q := r.URL.Query()
	if len(q) == 0 {
		return nil
	}
	out := map[string]string{}
	for k := range q {
		v := q.Get(k)
		if isSecretKey(k) {
			v = "[REDACTED]"
		}
		out[k] = v
	}
	return out
}

func isSecretKey(k string) bool {
	k = strings.ToLower(k)
	for _, s := range []string{"token", "secret", "password", "authorization", "key", "jwt"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// compact bounds what the transcript stores of a request body: long strings
// (blob contents) are cut and secret-looking keys redacted.
func compact(v any, depth int) any {
	const maxStr = 2048
	switch t := v.(type) {
	case string:
		if len(t) > maxStr {
			return fmt.Sprintf("%s…(%d bytes)", t[:maxStr], len(t))
		}
		return t
	case map[string]any:
		if depth > 8 {
			return "…"
		}
		out := make(map[string]any, len(t))
		for k, e := range t {
			if isSecretKey(k) {
				out[k] = "[REDACTED]"
				continue
			}
			out[k] = compact(e, depth+1)
		}
		return out
	case []any:
		if depth > 8 {
			return "…"
		}
		n := min(len(t), 100)
		out := make([]any, 0, n)
		for _, e := range t[:n] {
			out = append(out, compact(e, depth+1))
		}
		return out
	default:
		return v
	}
}

// linkURL rebuilds the request URL with another page, for Link headers.
func (rc *reqCtx) linkURL(page int) string {
	q := rc.r.URL.Query()
	q.Set("page", fmt.Sprint(page))
	u := url.URL{Path: rc.origPath, RawQuery: q.Encode()}
	base := rc.api
	if strings.HasSuffix(base, enterprisePrefix) {
		base = strings.TrimSuffix(base, enterprisePrefix)
	}
	return base + u.String()
}
