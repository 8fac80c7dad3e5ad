package github

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	gh "github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/sim"
)

func TestAuthentication(t *testing.T) {
	e := newEnv(t, Options{Repos: []RepoSeed{smallRepo()}})
	c := ctx(t)
	tests := []struct {
		name    string
		token   string
		status  int
		message string
	}{
		{"valid token", testToken, http.StatusOK, ""},
		{"wrong token", "ghp_wrong", http.StatusUnauthorized, "Bad credentials"},
		{"no token", "", http.StatusUnauthorized, "Requires authentication"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, resp, err := e.clientWith(t, tc.token).Repositories.Get(c, "acme", "shop")
			require.NotNil(t, resp)
			assert.Equal(t, tc.status, resp.StatusCode)
			if tc.message == "" {
				require.NoError(t, err)
				return
			}
			var er *gh.ErrorResponse
			require.ErrorAs(t, err, &er)
			assert.Equal(t, tc.message, er.Message)
			if tc.token != "" {
				assert.NotContains(t, err.Error(), tc.token, "errors never echo the credential")
			}
		})
	}

	// "Authorization: token X" is accepted as well as "Bearer X".
	req, err := http.NewRequest(http.MethodGet, e.http.URL+"/repos/acme/shop", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "token "+testToken)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	// Tokens added later are accepted.
	require.NoError(t, e.srv.AddToken("ghp_late"))
	_, _, err = e.clientWith(t, "ghp_late").Repositories.Get(c, "acme", "shop")
	require.NoError(t, err)
	require.Error(t, e.srv.AddToken("has space"))
}

func TestNoTokensMeansOpenAccess(t *testing.T) {
	srv, err := New(Options{Repos: []RepoSeed{smallRepo()}})
	require.NoError(t, err)
	e := startEnv(t, srv, nil)
	_, _, err = e.clientWith(t, "").Repositories.Get(ctx(t), "acme", "shop")
	require.NoError(t, err)
}

func TestEnterprisePrefix(t *testing.T) {
	e := newEnv(t, Options{Repos: []RepoSeed{smallRepo()}})
	c := ctx(t)
	r, _, err := e.enterprise.Repositories.Get(c, "acme", "shop")
	require.NoError(t, err)
	assert.Equal(t, "main", r.GetDefaultBranch())
	assert.Equal(t, e.http.URL+"/api/v3/repos/acme/shop", r.GetURL(), "URLs keep the GHE layout")

	fc, _, _, err := e.enterprise.Repositories.GetContents(c, "acme", "shop", "README.md", nil)
	require.NoError(t, err)
	content, err := fc.GetContent()
	require.NoError(t, err)
	assert.Equal(t, "# shop\n", content)

	entries := e.transcript.Filter("github")
	require.NotEmpty(t, entries)
	assert.Equal(t, "GET /repos/acme/shop/contents/README.md", entries[len(entries)-1].Method, "transcript methods drop the prefix")
}

func TestRateLimitHeaders(t *testing.T) {
	e := newEnv(t, Options{Repos: []RepoSeed{smallRepo()}, RateLimit: 3})
	c := ctx(t)
	for i := 1; i <= 3; i++ {
		_, resp, err := e.client.Repositories.Get(c, "acme", "shop")
		require.NoError(t, err)
		assert.Equal(t, 3, resp.Rate.Limit)
		assert.Equal(t, 3-i, resp.Rate.Remaining)
		assert.False(t, resp.Rate.Reset.IsZero())
	}
	// The budget is spent: GitHub's primary rate limit answer.
	_, _, err := e.clientWith(t, testToken).Repositories.Get(c, "acme", "shop")
	var rl *gh.RateLimitError
	require.ErrorAs(t, err, &rl)
	assert.Equal(t, 0, rl.Rate.Remaining)
}

func TestFaults(t *testing.T) {
	e := newEnv(t, Options{Repos: []RepoSeed{smallRepo()}})
	c := ctx(t)

	t.Run("primary rate limit", func(t *testing.T) {
		id, err := e.srv.Inject(Fault{Method: "GET", Path: "/repos/*/*", Kind: FaultRateLimit, Times: 1})
		require.NoError(t, err)
		defer e.srv.RemoveFault(id)
		client := e.clientWith(t, testToken) // fresh client: go-github remembers rate limits
		_, resp, err := client.Repositories.Get(c, "acme", "shop")
		var rl *gh.RateLimitError
		require.ErrorAs(t, err, &rl)
		assert.Equal(t, http.StatusForbidden, resp.StatusCode)
		assert.Equal(t, "0", resp.Header.Get("X-RateLimit-Remaining"))
		assert.True(t, rl.Rate.Reset.After(time.Now()))
		assert.Equal(t, 1, e.srv.FaultHits(id))
	})

	t.Run("secondary rate limit", func(t *testing.T) {
		id, err := e.srv.Inject(Fault{Path: "/repos/acme/shop/pulls", Kind: FaultSecondaryRateLimit, RetryAfter: 30 * time.Second, Times: 1})
		require.NoError(t, err)
		defer e.srv.RemoveFault(id)
		client := e.clientWith(t, testToken)
		_, resp, err := client.PullRequests.List(c, "acme", "shop", nil)
		var abuse *gh.AbuseRateLimitError
		require.ErrorAs(t, err, &abuse)
		assert.Equal(t, http.StatusForbidden, resp.StatusCode)
		require.NotNil(t, abuse.RetryAfter)
		assert.Equal(t, 30*time.Second, *abuse.RetryAfter)
		assert.Contains(t, abuse.Message, "secondary rate limit")
	})

	t.Run("429 rate limit carries the headers", func(t *testing.T) {
		id, err := e.srv.Inject(Fault{Path: "/repos/acme/shop", Kind: FaultRateLimit, Status: 429, Times: 1})
		require.NoError(t, err)
		defer e.srv.RemoveFault(id)
		_, resp, err := e.clientWith(t, testToken).Repositories.Get(c, "acme", "shop")
		require.Error(t, err)
		assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
		assert.Equal(t, "0", resp.Header.Get("X-RateLimit-Remaining"))
		assert.NotEmpty(t, resp.Header.Get("X-RateLimit-Reset"))
	})

	t.Run("plain forbidden is not a rate limit", func(t *testing.T) {
		id, err := e.srv.Inject(Fault{Method: "POST", Path: "/repos/acme/shop/git/refs", Kind: FaultForbidden})
		require.NoError(t, err)
		defer e.srv.RemoveFault(id)
		_, resp, err := e.client.Git.CreateRef(c, "acme", "shop", &gh.Reference{Ref: gh.String("refs/heads/x"), Object: &gh.GitObject{SHA: gh.String(strings.Repeat("a", 40))}})
		var er *gh.ErrorResponse
		require.ErrorAs(t, err, &er)
		var rl *gh.RateLimitError
		assert.False(t, errors.As(err, &rl))
		assert.Equal(t, http.StatusForbidden, resp.StatusCode)
		assert.Equal(t, "Resource not accessible by integration", er.Message)
	})

	t.Run("server error N times then recovery", func(t *testing.T) {
		id, err := e.srv.Inject(Fault{Method: "GET", Path: "/repos/acme/shop/git/ref/**", Kind: FaultServerError, Status: 502, Times: 2})
		require.NoError(t, err)
		defer e.srv.RemoveFault(id)
		for range 2 {
			_, resp, err := e.client.Git.GetRef(c, "acme", "shop", "heads/main")
			require.Error(t, err)
			assert.Equal(t, http.StatusBadGateway, resp.StatusCode)
		}
		_, _, err = e.client.Git.GetRef(c, "acme", "shop", "heads/main")
		require.NoError(t, err)
		assert.Equal(t, 2, e.srv.FaultHits(id))
	})

	t.Run("not found and validation", func(t *testing.T) {
		id, err := e.srv.Inject(Fault{Path: "/repos/acme/shop/contents/**", Kind: FaultNotFound, Times: 1})
		require.NoError(t, err)
		defer e.srv.RemoveFault(id)
		_, _, resp, err := e.client.Repositories.GetContents(c, "acme", "shop", "README.md", nil)
		require.Error(t, err)
		assert.Equal(t, http.StatusNotFound, resp.StatusCode)

		id2, err := e.srv.Inject(Fault{Method: "POST", Path: "/repos/acme/shop/issues", Kind: FaultValidation, Message: "labels are invalid"})
		require.NoError(t, err)
		defer e.srv.RemoveFault(id2)
		_, _, err = e.client.Issues.Create(c, "acme", "shop", &gh.IssueRequest{Title: gh.String("x")})
		var er *gh.ErrorResponse
		require.ErrorAs(t, err, &er)
		assert.Equal(t, "Validation Failed", er.Message)
		require.Len(t, er.Errors, 1)
		assert.Equal(t, "labels are invalid", er.Errors[0].Message)
	})

	t.Run("latency honours the client's deadline", func(t *testing.T) {
		id, err := e.srv.Inject(Fault{Path: "/repos/acme/shop", Kind: FaultLatency, Delay: time.Minute})
		require.NoError(t, err)
		defer e.srv.RemoveFault(id)
		short, cancel := context.WithTimeout(c, 50*time.Millisecond)
		defer cancel()
		_, _, err = e.client.Repositories.Get(short, "acme", "shop")
		require.ErrorIs(t, err, context.DeadlineExceeded)
	})

	t.Run("cleared faults stop", func(t *testing.T) {
		_, err := e.srv.Inject(Fault{Path: "**", Kind: FaultServerError})
		require.NoError(t, err)
		_, _, err = e.client.Repositories.Get(c, "acme", "shop")
		require.Error(t, err)
		e.srv.ClearFaults()
		_, _, err = e.client.Repositories.Get(c, "acme", "shop")
		require.NoError(t, err)
	})

	t.Run("invalid faults are rejected", func(t *testing.T) {
		for _, f := range []Fault{
			{Path: "/x", Kind: 0},
			{Path: "/x", Kind: FaultServerError, Status: 404},
			{Path: "/x", Kind: FaultRateLimit, Status: 500},
			{Path: "relative", Kind: FaultNotFound},
			{Path: "/x", Kind: FaultNotFound, Times: -1},
		} {
			_, err := e.srv.Inject(f)
			assert.Error(t, err, "%+v", f)
		}
	})
}

func TestFaultsConcurrentInjection(t *testing.T) {
	e := newEnv(t, Options{Repos: []RepoSeed{smallRepo()}})
	c := ctx(t)
	id, err := e.srv.Inject(Fault{Path: "/repos/acme/shop", Kind: FaultServerError, Times: 5})
	require.NoError(t, err)
	var wg sync.WaitGroup
	var mu sync.Mutex
	failures := 0
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := e.client.Repositories.Get(c, "acme", "shop")
			if err != nil {
				mu.Lock()
				failures++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, 5, failures, "a fault answers exactly Times requests")
	assert.Equal(t, 5, e.srv.FaultHits(id))
}

func TestGitHubAppTokenFlow(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	now := time.Now()
	var clockMu sync.Mutex
	clock := func() time.Time { clockMu.Lock(); defer clockMu.Unlock(); return now }
	advance := func(d time.Duration) { clockMu.Lock(); now = now.Add(d); clockMu.Unlock() }

	tr := sim.NewTranscript(nil)
	srv, err := New(Options{
		Repos: []RepoSeed{smallRepo()}, AppID: 4242, AppPublicKey: &key.PublicKey, AppInstallationID: 77,
		Transcript: tr, Now: clock,
	})
	require.NoError(t, err)
	e := startEnv(t, srv, tr)
	c := ctx(t)

	claims := func(iss any, iat, exp time.Time) map[string]any {
		return map[string]any{"iss": iss, "iat": iat.Unix(), "exp": exp.Unix()}
	}
	good := signJWT(t, key, claims(4242, now.Add(-time.Minute), now.Add(9*time.Minute)))

	tests := []struct {
		name    string
		jwt     string
		install int64
		status  int
	}{
		{"wrong key", signJWT(t, other, claims(4242, now.Add(-time.Minute), now.Add(5*time.Minute))), 77, http.StatusUnauthorized},
		{"wrong issuer", signJWT(t, key, claims(1, now.Add(-time.Minute), now.Add(5*time.Minute))), 77, http.StatusUnauthorized},
		{"expired", signJWT(t, key, claims(4242, now.Add(-20*time.Minute), now.Add(-10*time.Minute))), 77, http.StatusUnauthorized},
		{"exp too far", signJWT(t, key, claims(4242, now, now.Add(time.Hour))), 77, http.StatusUnauthorized},
		{"issued in the future", signJWT(t, key, claims(4242, now.Add(10*time.Minute), now.Add(9*time.Minute))), 77, http.StatusUnauthorized},
		{"not a jwt", "ghp_plain", 77, http.StatusUnauthorized},
		{"unknown installation", good, 78, http.StatusNotFound},
		{"string issuer", signJWT(t, key, claims("4242", now.Add(-time.Minute), now.Add(5*time.Minute))), 77, http.StatusCreated},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, resp, err := e.clientWith(t, tc.jwt).Apps.CreateInstallationToken(c, tc.install, nil)
			require.NotNil(t, resp)
			assert.Equal(t, tc.status, resp.StatusCode)
			if tc.status == http.StatusCreated {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
			}
		})
	}

	inst, _, err := e.clientWith(t, good).Apps.FindRepositoryInstallation(c, "acme", "shop")
	require.NoError(t, err)
	assert.Equal(t, int64(77), inst.GetID())

	tok, _, err := e.clientWith(t, good).Apps.CreateInstallationToken(c, inst.GetID(), &gh.InstallationTokenOptions{Repositories: []string{"shop"}})
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(tok.GetToken(), "ghs_"))
	assert.True(t, tok.GetExpiresAt().After(now))

	app := e.clientWith(t, tok.GetToken())
	_, _, err = app.Repositories.Get(c, "acme", "shop")
	require.NoError(t, err)
	iss, _, err := app.Issues.Create(c, "acme", "shop", &gh.IssueRequest{Title: gh.String("from the app")})
	require.NoError(t, err)
	assert.Equal(t, "autoheal[bot]", iss.GetUser().GetLogin())
	assert.Equal(t, "Bot", iss.GetUser().GetType())

	// The JWT itself does not open repository endpoints.
	_, resp, err := e.clientWith(t, good).Repositories.Get(c, "acme", "shop")
	require.Error(t, err)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	// Installation tokens expire.
	advance(2 * time.Hour)
	_, resp, err = e.clientWith(t, tok.GetToken()).Repositories.Get(c, "acme", "shop")
	require.Error(t, err)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	// Neither the JWT nor the installation token reaches the transcript.
	raw, err := json.Marshal(tr.Entries())
	require.NoError(t, err)
	assert.NotContains(t, string(raw), tok.GetToken())
	assert.NotContains(t, string(raw), good)
	assert.Contains(t, string(raw), "POST /app/installations/77/access_tokens")
}

func TestNewRejectsBadOptions(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	tests := []struct {
		name string
		opts Options
	}{
		{"app id without key", Options{AppID: 1}},
		{"key without app id", Options{AppPublicKey: &key.PublicKey}},
		{"bad owner", Options{Repos: []RepoSeed{{Owner: "a/b", Name: "x"}}}},
		{"bad branch", Options{Repos: []RepoSeed{{Owner: "a", Name: "x", DefaultBranch: "bad..name"}}}},
		{"escaping path", Options{Repos: []RepoSeed{{Owner: "a", Name: "x", Files: map[string][]byte{"../etc/passwd": nil}}}}},
		{"duplicate repo", Options{Repos: []RepoSeed{{Owner: "a", Name: "x"}, {Owner: "A", Name: "X"}}}},
		{"empty token", Options{Tokens: []string{""}}},
		{"negative latency", Options{Latency: -time.Second}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.opts)
			assert.Error(t, err)
		})
	}
}

func TestTranscript(t *testing.T) {
	e := newEnv(t, Options{Repos: []RepoSeed{smallRepo()}})
	c := ctx(t)
	_, _, err := e.client.Repositories.ListCommits(c, "acme", "shop", &gh.CommitsListOptions{Path: "README.md"})
	require.NoError(t, err)
	blob, _, err := e.client.Git.CreateBlob(c, "acme", "shop", &gh.Blob{Content: gh.String(strings.Repeat("z", 5000)), Encoding: gh.String("utf-8")})
	require.NoError(t, err)
	_, _, err = e.clientWith(t, "ghp_wrong_secret").Repositories.Get(c, "acme", "shop")
	require.Error(t, err)

	entries := e.transcript.Filter("github")
	require.Len(t, entries, 3)
	assert.Equal(t, "GET /repos/acme/shop/commits", entries[0].Method)
	assert.Equal(t, map[string]string{"path": "README.md"}, entries[0].Params)
	assert.Equal(t, 200, entries[0].Response.(map[string]any)["status"])

	assert.Equal(t, "POST /repos/acme/shop/git/blobs", entries[1].Method)
	resp := entries[1].Response.(map[string]any)
	assert.Equal(t, 201, resp["status"])
	assert.Equal(t, blob.GetSHA(), resp["sha"])
	params := entries[1].Params.(map[string]any)
	assert.Less(t, len(params["content"].(string)), 2200, "long bodies are cut")

	assert.Equal(t, 401, entries[2].Response.(map[string]any)["status"])
	raw, err := json.Marshal(entries)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), testToken)
	assert.NotContains(t, string(raw), "ghp_wrong_secret")
}
