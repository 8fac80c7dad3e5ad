package github

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	gh "github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sim"
)

const (
	testToken = "ghp_testtoken0123456789abcdefghijklmnopq"
	examples  = "../../testdata/examples"
)

// env is a running simulator with go-github clients pointed at it.
type env struct {
	srv        *Server
	http       *httptest.Server
	client     *gh.Client // api.github.com layout
	enterprise *gh.Client // GHE layout (/api/v3/)
	transcript *sim.Transcript
}

func newEnv(t testing.TB, opts Options) *env {
	t.Helper()
	if opts.Transcript == nil {
		opts.Transcript = sim.NewTranscript(nil)
	}
	if opts.Tokens == nil && opts.AppID == 0 {
		opts.Tokens = []string{testToken}
	}
	srv, err := New(opts)
	require.NoError(t, err)
	return startEnv(t, srv, opts.Transcript)
}

func startEnv(t testing.TB, srv *Server, tr *sim.Transcript) *env {
	t.Helper()
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	e := &env{srv: srv, http: hs, transcript: tr}
	e.client = e.clientWith(t, testToken)
	ent, err := gh.NewClient(nil).WithAuthToken(testToken).WithEnterpriseURLs(hs.URL, hs.URL)
	require.NoError(t, err)
	e.enterprise = ent
	return e
}

// clientWith returns an api.github.com style client using token.
func (e *env) clientWith(t testing.TB, token string) *gh.Client {
	t.Helper()
	c := gh.NewClient(nil)
	if token != "" {
		c = c.WithAuthToken(token)
	}
	base, err := c.BaseURL.Parse(e.http.URL + "/")
	require.NoError(t, err)
	c.BaseURL = base
	return c
}

func loadScenario(t testing.TB, name string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Load(filepath.Join(examples, name))
	require.NoError(t, err)
	return sc
}

func scenarioEnv(t testing.TB, name string, opts Options) (*env, *scenario.Scenario) {
	t.Helper()
	sc := loadScenario(t, name)
	if opts.Transcript == nil {
		opts.Transcript = sim.NewTranscript(nil)
	}
	if opts.Tokens == nil && opts.AppID == 0 {
		opts.Tokens = []string{testToken}
	}
	srv, err := NewFromScenario(sc, opts)
	require.NoError(t, err)
	return startEnv(t, srv, opts.Transcript), sc
}

func ctx(t testing.TB) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// signJWT builds an RS256 JWT the way GitHub App clients do.
func signJWT(t testing.TB, key *rsa.PrivateKey, claims map[string]any) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	signing := enc(map[string]string{"alg": "RS256", "typ": "JWT"}) + "." + enc(claims)
	digest := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, digest[:])
	require.NoError(t, err)
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// smallRepo is a seed with a couple of files and no history.
func smallRepo() RepoSeed {
	return RepoSeed{
		Owner: "acme", Name: "shop",
		Files: map[string][]byte{
			"README.md":             []byte("# shop\n"),
			"src/cart/cart.go":      []byte("package cart\n\nfunc Total(items []int) int {\n\tt := 0\n\tfor _, i := range items {\n\t\tt += i\n\t}\n\treturn t\n}\n"),
			"src/cart/cart_test.go": []byte("package cart\n"),
			"deploy/values.yaml":    []byte("cart:\n  memory: 128Mi\n"),
		},
	}
}
