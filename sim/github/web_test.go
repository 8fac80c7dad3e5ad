package github

import (
	"io"
	"net/http"
	"strings"
	"testing"

	gh "github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// get fetches a URL without credentials, the way a browser follows a link.
func get(t *testing.T, u string) (int, string, string) {
	t.Helper()
	resp, err := http.Get(u)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

// html_url values name the simulator's own address, and the simulator
// serves a page there: links in a demo thread open the pull request, the
// issue and the source line they point at.
func TestHTMLURLsResolveOnTheSimulator(t *testing.T) {
	e := newEnv(t, Options{Repos: []RepoSeed{smallRepo()}})
	c := ctx(t)
	base, _, err := e.client.Git.GetRef(c, "acme", "shop", "heads/main")
	require.NoError(t, err)
	fix := commitFile(t, c, e.client, "acme", "shop", base.GetObject().GetSHA(), "src/cart/cart.go",
		"package cart\n\n// Total sums the items.\nfunc Total(items []int) int { return 0 }\n", "cart: simplify")
	_, _, err = e.client.Git.CreateRef(c, "acme", "shop", &gh.Reference{Ref: gh.String("refs/heads/fix"), Object: &gh.GitObject{SHA: fix.SHA}})
	require.NoError(t, err)
	pr, _, err := e.client.PullRequests.Create(c, "acme", "shop", &gh.NewPullRequest{
		Title: gh.String("cart: <simplify> Total"), Head: gh.String("fix"), Base: gh.String("main"), Body: gh.String("Root cause: totals."),
	})
	require.NoError(t, err)
	_, _, err = e.client.Issues.CreateComment(c, "acme", "shop", pr.GetNumber(), &gh.IssueComment{Body: gh.String("fired again")})
	require.NoError(t, err)
	issue, _, err := e.client.Issues.Create(c, "acme", "shop", &gh.IssueRequest{Title: gh.String("flaky test report"), Body: gh.String("fails at 02:00")})
	require.NoError(t, err)

	assert.Equal(t, e.http.URL+"/acme/shop/pull/1", pr.GetHTMLURL())
	assert.Equal(t, e.http.URL+"/acme/shop/issues/2", issue.GetHTMLURL())
	assert.NotContains(t, pr.GetHead().GetRepo().GetHTMLURL(), "github.com")

	status, ctype, page := get(t, pr.GetHTMLURL())
	require.Equal(t, http.StatusOK, status, page)
	assert.Equal(t, "text/html; charset=utf-8", ctype)
	assert.Contains(t, page, "cart: &lt;simplify&gt; Total #1", "the title, escaped")
	assert.Contains(t, page, "wants to merge fix into main")
	assert.Contains(t, page, "Root cause: totals.")
	assert.Contains(t, page, "src/cart/cart.go")
	assert.Contains(t, page, `<span class="add">&#43;// Total sums the items.</span>`)
	assert.Contains(t, page, "fired again")

	status, _, page = get(t, issue.GetHTMLURL())
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, page, "flaky test report #2")
	assert.Contains(t, page, "fails at 02:00")

	// A source link as AutoHeal renders it (render.SourceURL): blob/ref/path#Ln.
	status, _, page = get(t, e.http.URL+"/acme/shop/blob/main/src/cart/cart.go#L3")
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, page, `<tr id="L3"><td class="n">3</td>`)
	assert.Contains(t, page, "func Total(items []int) int {")
	status, _, page = get(t, e.http.URL+"/acme/shop/blob/fix/src/cart/cart.go")
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, page, "// Total sums the items.", "the file at the branch")

	status, _, page = get(t, e.http.URL+"/acme/shop")
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, page, `href="`+e.http.URL+`/acme/shop/pull/1"`)
	assert.Contains(t, page, `href="`+e.http.URL+`/acme/shop/issues/2"`)

	for _, p := range []string{"/acme/shop/pull/2", "/acme/shop/pull/9", "/acme/nope/pull/1", "/acme/shop/blob/main/missing.go"} {
		status, _, _ := get(t, e.http.URL+p)
		assert.Equal(t, http.StatusNotFound, status, p)
	}
	// The API is not shadowed by the pages.
	status, ctype, _ = get(t, e.http.URL+"/repos/acme/shop")
	assert.Equal(t, http.StatusUnauthorized, status, "the API still needs the token")
	assert.Contains(t, ctype, "application/json")
}

// Through the GitHub Enterprise layout the web base has no /api/v3, and an
// explicit WebURL wins over the server's address.
func TestHTMLURLBases(t *testing.T) {
	e := newEnv(t, Options{Repos: []RepoSeed{smallRepo()}})
	repo, _, err := e.enterprise.Repositories.Get(ctx(t), "acme", "shop")
	require.NoError(t, err)
	assert.Equal(t, e.http.URL+"/acme/shop", repo.GetHTMLURL())
	assert.True(t, strings.HasSuffix(repo.GetURL(), "/api/v3/repos/acme/shop"), repo.GetURL())

	w := newEnv(t, Options{Repos: []RepoSeed{smallRepo()}, WebURL: "https://ghe.example.com/"})
	repo, _, err = w.client.Repositories.Get(ctx(t), "acme", "shop")
	require.NoError(t, err)
	assert.Equal(t, "https://ghe.example.com/acme/shop", repo.GetHTMLURL())
}
