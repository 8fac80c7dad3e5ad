package github

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	gh "github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/scenario"
)

var exampleNames = []string{"ad-npe-missing-context", "cart-oomkilled-low-limit", "checkout-fails-payment-typeerror"}

func repoOf(t *testing.T, sc *scenario.Scenario) (string, string) {
	t.Helper()
	owner, name, found := strings.Cut(sc.Config["repo"], "/")
	require.True(t, found)
	return owner, name
}

func TestContentsServeScenarioFiles(t *testing.T) {
	for _, name := range exampleNames {
		t.Run(name, func(t *testing.T) {
			e, sc := scenarioEnv(t, name, Options{})
			owner, repo := repoOf(t, sc)
			require.NotNil(t, sc.Repo)
			require.NotEmpty(t, sc.Repo.Files)

			r, _, err := e.client.Repositories.Get(ctx(t), owner, repo)
			require.NoError(t, err)
			wantBranch := sc.Config["ref"]
			if wantBranch == "" {
				wantBranch = "main"
			}
			assert.Equal(t, wantBranch, r.GetDefaultBranch())
			assert.Equal(t, owner+"/"+repo, r.GetFullName())

			for _, p := range sc.Repo.Paths() {
				fc, dir, _, err := e.client.Repositories.GetContents(ctx(t), owner, repo, p, &gh.RepositoryContentGetOptions{Ref: wantBranch})
				require.NoError(t, err, p)
				require.Nil(t, dir)
				assert.Equal(t, "file", fc.GetType())
				assert.Equal(t, p, fc.GetPath())
				assert.Equal(t, len(sc.Repo.Files[p]), fc.GetSize())
				assert.Equal(t, hashObject(typeBlob, sc.Repo.Files[p]), fc.GetSHA(), "sha is the git blob id")
				content, err := fc.GetContent()
				require.NoError(t, err)
				assert.Equal(t, string(sc.Repo.Files[p]), content, p)
			}
		})
	}
}

func TestContentsWireFormat(t *testing.T) {
	long := strings.Repeat("0123456789", 30) // 300 bytes: several base64 lines
	seed := smallRepo()
	seed.Files["long.txt"] = []byte(long)
	e := newEnv(t, Options{Repos: []RepoSeed{seed}})

	req, err := http.NewRequest(http.MethodGet, e.http.URL+"/repos/acme/shop/contents/long.txt", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "token "+testToken)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "application/json; charset=utf-8", resp.Header.Get("Content-Type"))
	assert.Equal(t, "core", resp.Header.Get("X-RateLimit-Resource"))
	var doc map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&doc))
	assert.Equal(t, "base64", doc["encoding"])
	content := doc["content"].(string)
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	require.Greater(t, len(lines), 1)
	for _, l := range lines[:len(lines)-1] {
		assert.Len(t, l, 60, "GitHub wraps base64 content at 60 characters")
	}
	assert.Equal(t, e.http.URL+"/acme/shop/blob/main/long.txt", doc["html_url"], "html_url is built from the simulator's own URL")

	// The raw media type returns the bytes.
	req.Header.Set("Accept", "application/vnd.github.raw+json")
	raw, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer raw.Body.Close()
	b, err := io.ReadAll(raw.Body)
	require.NoError(t, err)
	assert.Equal(t, long, string(b))
}

func TestContentsDirectoriesAndErrors(t *testing.T) {
	e := newEnv(t, Options{Repos: []RepoSeed{smallRepo()}})
	c := ctx(t)
	_, dir, _, err := e.client.Repositories.GetContents(c, "acme", "shop", "src/cart", nil)
	require.NoError(t, err)
	var names []string
	for _, d := range dir {
		names = append(names, d.GetName())
		assert.Equal(t, "file", d.GetType())
		assert.Equal(t, "src/cart/"+d.GetName(), d.GetPath())
	}
	assert.Equal(t, []string{"cart.go", "cart_test.go"}, names)

	_, root, _, err := e.client.Repositories.GetContents(c, "acme", "shop", "", nil)
	require.NoError(t, err)
	types := map[string]string{}
	for _, d := range root {
		types[d.GetName()] = d.GetType()
	}
	assert.Equal(t, map[string]string{"README.md": "file", "deploy": "dir", "src": "dir"}, types)

	_, _, resp, err := e.client.Repositories.GetContents(c, "acme", "shop", "src/missing.go", nil)
	var er *gh.ErrorResponse
	require.ErrorAs(t, err, &er)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Equal(t, "Not Found", er.Message)

	_, _, resp, err = e.client.Repositories.GetContents(c, "acme", "shop", "README.md", &gh.RepositoryContentGetOptions{Ref: "no-such-branch"})
	require.Error(t, err)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)

	_, _, err = e.client.Repositories.Get(c, "acme", "nope")
	require.ErrorAs(t, err, &er)
	assert.Equal(t, http.StatusNotFound, er.Response.StatusCode)

	// DownloadContents follows download_url to the raw endpoint.
	rc, _, err := e.client.Repositories.DownloadContents(c, "acme", "shop", "deploy/values.yaml", nil)
	require.NoError(t, err)
	defer rc.Close()
	b, err := io.ReadAll(rc)
	require.NoError(t, err)
	assert.Equal(t, "cart:\n  memory: 128Mi\n", string(b))
}

func TestTreesRecursive(t *testing.T) {
	seed := smallRepo()
	e := newEnv(t, Options{Repos: []RepoSeed{seed}})
	tree, _, err := e.client.Git.GetTree(ctx(t), "acme", "shop", "main", true)
	require.NoError(t, err)
	assert.False(t, tree.GetTruncated())
	blobs := map[string]string{}
	dirs := map[string]bool{}
	for _, en := range tree.Entries {
		switch en.GetType() {
		case "blob":
			blobs[en.GetPath()] = en.GetSHA()
			assert.Equal(t, "100644", en.GetMode())
		case "tree":
			dirs[en.GetPath()] = true
			assert.Equal(t, "040000", en.GetMode())
		}
	}
	require.Len(t, blobs, len(seed.Files))
	for p, content := range seed.Files {
		assert.Equal(t, hashObject(typeBlob, content), blobs[p], p)
	}
	assert.Equal(t, map[string]bool{"src": true, "src/cart": true, "deploy": true}, dirs)

	top, _, err := e.client.Git.GetTree(ctx(t), "acme", "shop", tree.GetSHA(), false)
	require.NoError(t, err)
	assert.Len(t, top.Entries, 3, "README.md, deploy, src")
}

// changesTouching is the expectation for path-filtered listings, computed
// from the scenario data.
func changesTouching(sc *scenario.Scenario, path string) []string {
	var out []string
	for _, c := range sc.Changes {
		for _, f := range c.Files {
			if f.Filename == path || strings.HasPrefix(f.Filename, path+"/") {
				out = append(out, c.SHA)
				break
			}
		}
	}
	return out
}

func TestCommitsServeScenarioChanges(t *testing.T) {
	for _, name := range exampleNames {
		t.Run(name, func(t *testing.T) {
			e, sc := scenarioEnv(t, name, Options{})
			owner, repo := repoOf(t, sc)
			require.NotEmpty(t, sc.Changes)
			c := ctx(t)

			list, _, err := e.client.Repositories.ListCommits(c, owner, repo, &gh.CommitsListOptions{ListOptions: gh.ListOptions{PerPage: 100}})
			require.NoError(t, err)
			var got []string
			for _, rc := range list {
				got = append(got, rc.GetSHA())
				assert.Nil(t, rc.Files, "the list endpoint carries no files, as on GitHub")
			}
			var want []string
			for _, ch := range sc.Changes {
				want = append(want, ch.SHA)
			}
			assert.Equal(t, want, got, "listing shows the scenario's changes, newest first")

			for _, ch := range sc.Changes {
				rc, _, err := e.client.Repositories.GetCommit(c, owner, repo, ch.SHA, nil)
				require.NoError(t, err)
				assert.Equal(t, ch.SHA, rc.GetSHA())
				assert.Equal(t, ch.Commit.Message, rc.GetCommit().GetMessage())
				require.Len(t, rc.Files, len(ch.Files))
				for i, f := range ch.Files {
					assert.Equal(t, f.Filename, rc.Files[i].GetFilename())
					assert.Equal(t, f.Patch, rc.Files[i].GetPatch())
				}
				// Abbreviated ids resolve too.
				short, _, err := e.client.Repositories.GetCommit(c, owner, repo, ch.SHA[:10], nil)
				require.NoError(t, err)
				assert.Equal(t, ch.SHA, short.GetSHA())
			}

			// Path filter: every file a change touched selects exactly the
			// changes that touched it.
			for _, ch := range sc.Changes {
				for _, f := range ch.Files {
					list, _, err := e.client.Repositories.ListCommits(c, owner, repo, &gh.CommitsListOptions{Path: f.Filename})
					require.NoError(t, err)
					var got []string
					for _, rc := range list {
						got = append(got, rc.GetSHA())
					}
					assert.Equal(t, changesTouching(sc, f.Filename), got, f.Filename)
				}
			}
			list, _, err = e.client.Repositories.ListCommits(c, owner, repo, &gh.CommitsListOptions{Path: "no/such/file.go"})
			require.NoError(t, err)
			assert.Empty(t, list)
		})
	}
}

func TestCommitsSinceUntil(t *testing.T) {
	e, sc := scenarioEnv(t, "ad-npe-missing-context", Options{})
	owner, repo := repoOf(t, sc)
	require.GreaterOrEqual(t, len(sc.Changes), 2)
	// Split the history at the second newest change's author date.
	pivot, err := time.Parse(time.RFC3339, sc.Changes[1].Commit.Author.Date)
	require.NoError(t, err)

	dateOf := func(ch scenario.Commit) time.Time {
		var d struct {
			Commit struct {
				Committer struct{ Date time.Time } `json:"committer"`
			} `json:"commit"`
		}
		require.NoError(t, json.Unmarshal(ch.Raw, &d))
		return d.Commit.Committer.Date
	}
	var wantSince, wantUntil []string
	for _, ch := range sc.Changes {
		if !dateOf(ch).Before(pivot) {
			wantSince = append(wantSince, ch.SHA)
		}
		if !dateOf(ch).After(pivot) {
			wantUntil = append(wantUntil, ch.SHA)
		}
	}
	shas := func(list []*gh.RepositoryCommit) []string {
		var out []string
		for _, c := range list {
			out = append(out, c.GetSHA())
		}
		return out
	}
	list, _, err := e.client.Repositories.ListCommits(ctx(t), owner, repo, &gh.CommitsListOptions{Since: pivot, ListOptions: gh.ListOptions{PerPage: 100}})
	require.NoError(t, err)
	assert.Equal(t, wantSince, shas(list))
	list, _, err = e.client.Repositories.ListCommits(ctx(t), owner, repo, &gh.CommitsListOptions{Until: pivot, ListOptions: gh.ListOptions{PerPage: 100}})
	require.NoError(t, err)
	assert.Equal(t, wantUntil, shas(list))
}

func TestCommitsPagination(t *testing.T) {
	e, sc := scenarioEnv(t, "cart-oomkilled-low-limit", Options{})
	owner, repo := repoOf(t, sc)
	require.GreaterOrEqual(t, len(sc.Changes), 3)

	var got []string
	opts := &gh.CommitsListOptions{ListOptions: gh.ListOptions{PerPage: 2}}
	pages := 0
	for {
		list, resp, err := e.client.Repositories.ListCommits(ctx(t), owner, repo, opts)
		require.NoError(t, err)
		pages++
		for _, c := range list {
			got = append(got, c.GetSHA())
		}
		if pages == 1 {
			assert.Equal(t, (len(sc.Changes)+1)/2, resp.LastPage)
			assert.Zero(t, resp.PrevPage)
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	var want []string
	for _, ch := range sc.Changes {
		want = append(want, ch.SHA)
	}
	assert.Equal(t, want, got)
	assert.Equal(t, (len(sc.Changes)+1)/2, pages)

	// The enterprise layout's Link headers keep the /api/v3 prefix.
	_, resp, err := e.enterprise.Repositories.ListCommits(ctx(t), owner, repo, &gh.CommitsListOptions{ListOptions: gh.ListOptions{PerPage: 1}})
	require.NoError(t, err)
	assert.Contains(t, resp.Header.Get("Link"), "/api/v3/repos/"+owner+"/"+repo+"/commits?")
	assert.Equal(t, 2, resp.NextPage)
}

func TestBranchesAndRefs(t *testing.T) {
	e := newEnv(t, Options{Repos: []RepoSeed{smallRepo()}})
	c := ctx(t)
	b, _, err := e.client.Repositories.GetBranch(c, "acme", "shop", "main", 0)
	require.NoError(t, err)
	ref, _, err := e.client.Git.GetRef(c, "acme", "shop", "heads/main")
	require.NoError(t, err)
	assert.Equal(t, "refs/heads/main", ref.GetRef())
	assert.Equal(t, b.GetCommit().GetSHA(), ref.GetObject().GetSHA())
	assert.Equal(t, "commit", ref.GetObject().GetType())

	gc, _, err := e.client.Git.GetCommit(c, "acme", "shop", ref.GetObject().GetSHA())
	require.NoError(t, err)
	tree, _, err := e.client.Git.GetTree(c, "acme", "shop", "main", false)
	require.NoError(t, err)
	assert.Equal(t, tree.GetSHA(), gc.GetTree().GetSHA(), "branch head's tree holds the repo files")

	refs, _, err := e.client.Git.ListMatchingRefs(c, "acme", "shop", &gh.ReferenceListOptions{Ref: "heads/"})
	require.NoError(t, err)
	require.Len(t, refs, 1)
	assert.Equal(t, "refs/heads/main", refs[0].GetRef())

	_, resp, err := e.client.Git.GetRef(c, "acme", "shop", "heads/nope")
	require.Error(t, err)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	_, resp, err = e.client.Repositories.GetBranch(c, "acme", "shop", "nope", 0)
	require.Error(t, err)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

func TestScenarioHistoryEdges(t *testing.T) {
	e, sc := scenarioEnv(t, "checkout-fails-payment-typeerror", Options{})
	owner, repo := repoOf(t, sc)
	c := ctx(t)
	require.GreaterOrEqual(t, len(sc.Changes), 2)
	p := sc.Repo.Paths()[0]

	// The newest change names the deployed revision, so files read at it.
	fc, _, _, err := e.client.Repositories.GetContents(c, owner, repo, p, &gh.RepositoryContentGetOptions{Ref: sc.Changes[0].SHA})
	require.NoError(t, err)
	content, err := fc.GetContent()
	require.NoError(t, err)
	assert.Equal(t, string(sc.Repo.Files[p]), content)

	// Older changes have no trees in the simulator.
	_, _, resp, err := e.client.Repositories.GetContents(c, owner, repo, p, &gh.RepositoryContentGetOptions{Ref: sc.Changes[1].SHA})
	require.Error(t, err)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)

	// Listing from an older change starts there.
	list, _, err := e.client.Repositories.ListCommits(c, owner, repo, &gh.CommitsListOptions{SHA: sc.Changes[1].SHA, ListOptions: gh.ListOptions{PerPage: 100}})
	require.NoError(t, err)
	var want []string
	for _, ch := range sc.Changes[1:] {
		want = append(want, ch.SHA)
	}
	assert.Equal(t, want, shaList(list))

	// Unknown commits: GitHub's 422 on the single-commit endpoint.
	_, resp, err = e.client.Repositories.GetCommit(c, owner, repo, strings.Repeat("f", 40), nil)
	require.Error(t, err)
	assert.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
}

func TestNewFromScenarioWithoutRepo(t *testing.T) {
	sc := loadScenario(t, "ad-npe-missing-context")
	delete(sc.Config, "repo")
	_, err := NewFromScenario(sc, Options{})
	require.ErrorIs(t, err, ErrNoRepository)
	sc.Config["repo"] = "no-slash"
	_, err = NewFromScenario(sc, Options{})
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrNoRepository)
}

func TestLegacyRefsEndpoint(t *testing.T) {
	e := newEnv(t, Options{Repos: []RepoSeed{smallRepo()}})
	c := ctx(t)
	refs, _, err := e.client.Git.ListMatchingRefs(c, "acme", "shop", nil)
	require.NoError(t, err)
	require.Len(t, refs, 1)

	req, err := http.NewRequest(http.MethodGet, e.http.URL+"/repos/acme/shop/git/refs/heads", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var list []map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&list))
	require.Len(t, list, 1)
	assert.Equal(t, "refs/heads/main", list[0]["ref"])
}
