package github

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	gh "github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// commitFile adds one commit on top of parent changing path to content,
// through blobs, a tree with base_tree and a commit, the way the
// remediation flow does.
func commitFile(t testing.TB, c context.Context, client *gh.Client, owner, repo, parent, path, content, msg string) *gh.Commit {
	t.Helper()
	blob, _, err := client.Git.CreateBlob(c, owner, repo, &gh.Blob{Content: gh.String(content), Encoding: gh.String("utf-8")})
	require.NoError(t, err)
	assert.Equal(t, hashObject(typeBlob, []byte(content)), blob.GetSHA())
	pc, _, err := client.Git.GetCommit(c, owner, repo, parent)
	require.NoError(t, err)
	tree, _, err := client.Git.CreateTree(c, owner, repo, pc.GetTree().GetSHA(), []*gh.TreeEntry{
		{Path: gh.String(path), Mode: gh.String("100644"), Type: gh.String("blob"), SHA: blob.SHA},
	})
	require.NoError(t, err)
	commit, _, err := client.Git.CreateCommit(c, owner, repo, &gh.Commit{
		Message: gh.String(msg), Tree: &gh.Tree{SHA: tree.SHA}, Parents: []*gh.Commit{{SHA: gh.String(parent)}},
		Author: &gh.CommitAuthor{Name: gh.String("AutoHeal"), Email: gh.String("autoheal@example.com")},
	}, nil)
	require.NoError(t, err)
	return commit
}

func TestPullRequestFlow(t *testing.T) {
	e, sc := scenarioEnv(t, "ad-npe-missing-context", Options{})
	owner, repo := repoOf(t, sc)
	c := ctx(t)
	const branch = "autoheal/ad-npe-missing-context"
	target := sc.Truth.File
	require.NotEmpty(t, target)
	original := string(sc.Repo.Files[target])
	fixed := strings.Replace(original, "\n", "\n// guarded against missing context keys\n", 1)

	base, _, err := e.client.Git.GetRef(c, owner, repo, "heads/main")
	require.NoError(t, err)
	baseSHA := base.GetObject().GetSHA()

	first := commitFile(t, c, e.client, owner, repo, baseSHA, target, fixed, "ad: guard missing context keys")
	ref, _, err := e.client.Git.CreateRef(c, owner, repo, &gh.Reference{
		Ref: gh.String("refs/heads/" + branch), Object: &gh.GitObject{SHA: first.SHA},
	})
	require.NoError(t, err)
	assert.Equal(t, first.GetSHA(), ref.GetObject().GetSHA())

	// Creating it again is GitHub's 422 "Reference already exists".
	_, resp, err := e.client.Git.CreateRef(c, owner, repo, &gh.Reference{
		Ref: gh.String("refs/heads/" + branch), Object: &gh.GitObject{SHA: first.SHA},
	})
	var er *gh.ErrorResponse
	require.ErrorAs(t, err, &er)
	assert.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
	assert.Equal(t, "Reference already exists", er.Message)

	pr, _, err := e.client.PullRequests.Create(c, owner, repo, &gh.NewPullRequest{
		Title: gh.String("ad: guard missing context keys"), Head: gh.String(branch), Base: gh.String("main"),
		Body: gh.String("Root cause: NullPointerException in AdService."),
	})
	require.NoError(t, err)
	assert.Equal(t, 1, pr.GetNumber())
	assert.Equal(t, "open", pr.GetState())
	assert.Equal(t, branch, pr.GetHead().GetRef())
	assert.Equal(t, first.GetSHA(), pr.GetHead().GetSHA())
	assert.Equal(t, owner+":"+branch, pr.GetHead().GetLabel())
	assert.Equal(t, 1, pr.GetCommits())

	// A second PR for the same head is refused the way GitHub refuses it.
	_, resp, err = e.client.PullRequests.Create(c, owner, repo, &gh.NewPullRequest{
		Title: gh.String("again"), Head: gh.String(owner + ":" + branch), Base: gh.String("main"),
	})
	require.ErrorAs(t, err, &er)
	assert.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
	assert.Equal(t, "Validation Failed", er.Message)
	require.Len(t, er.Errors, 1)
	assert.Equal(t, fmt.Sprintf("A pull request already exists for %s:%s.", owner, branch), er.Errors[0].Message)

	// Convergence lookup: list by head finds exactly this PR.
	open, _, err := e.client.PullRequests.List(c, owner, repo, &gh.PullRequestListOptions{Head: owner + ":" + branch, State: "open"})
	require.NoError(t, err)
	require.Len(t, open, 1)
	assert.Equal(t, pr.GetNumber(), open[0].GetNumber())
	none, _, err := e.client.PullRequests.List(c, owner, repo, &gh.PullRequestListOptions{Head: owner + ":other", State: "all"})
	require.NoError(t, err)
	assert.Empty(t, none)

	cm, _, err := e.client.Issues.CreateComment(c, owner, repo, pr.GetNumber(), &gh.IssueComment{Body: gh.String("Alert fired again at 10:40.")})
	require.NoError(t, err)
	assert.Equal(t, "Alert fired again at 10:40.", cm.GetBody())

	// One incremental commit on the branch, fast-forwarding the ref.
	final := fixed + "// regression test added\n"
	second := commitFile(t, c, e.client, owner, repo, first.GetSHA(), target, final, "ad: add regression test")
	updated, _, err := e.client.Git.UpdateRef(c, owner, repo, &gh.Reference{
		Ref: gh.String("refs/heads/" + branch), Object: &gh.GitObject{SHA: second.SHA},
	}, false)
	require.NoError(t, err)
	assert.Equal(t, second.GetSHA(), updated.GetObject().GetSHA())

	// State as a test of the remediation flow would assert it.
	prs, err := e.srv.PullRequests(owner, repo)
	require.NoError(t, err)
	require.Len(t, prs, 1)
	assert.Equal(t, branch, prs[0].Head)
	assert.Equal(t, "main", prs[0].Base)
	assert.Equal(t, second.GetSHA(), prs[0].HeadSHA)
	assert.Equal(t, []string{first.GetSHA(), second.GetSHA()}, prs[0].Commits)
	require.Len(t, prs[0].Comments, 1)
	assert.Equal(t, "Alert fired again at 10:40.", prs[0].Comments[0].Body)
	got, err := e.srv.FileAt(owner, repo, branch, target)
	require.NoError(t, err)
	assert.Equal(t, final, string(got))
	onMain, err := e.srv.FileAt(owner, repo, "main", target)
	require.NoError(t, err)
	assert.Equal(t, original, string(onMain), "main is untouched")

	// The PR serves the applied diff.
	files, _, err := e.client.PullRequests.ListFiles(c, owner, repo, pr.GetNumber(), nil)
	require.NoError(t, err)
	require.Len(t, files, 1)
	assert.Equal(t, target, files[0].GetFilename())
	assert.Equal(t, "modified", files[0].GetStatus())
	assert.Equal(t, 2, files[0].GetAdditions())
	assert.Contains(t, files[0].GetPatch(), "+// guarded against missing context keys")
	commits, _, err := e.client.PullRequests.ListCommits(c, owner, repo, pr.GetNumber(), nil)
	require.NoError(t, err)
	require.Len(t, commits, 2)
	assert.Equal(t, "ad: add regression test", commits[1].GetCommit().GetMessage())

	cmp, _, err := e.client.Repositories.CompareCommits(c, owner, repo, "main", branch, nil)
	require.NoError(t, err)
	assert.Equal(t, "ahead", cmp.GetStatus())
	assert.Equal(t, 2, cmp.GetAheadBy())
	assert.Equal(t, baseSHA, cmp.GetMergeBaseCommit().GetSHA())

	// The head commit's files come from the object graph.
	rc, _, err := e.client.Repositories.GetCommit(c, owner, repo, second.GetSHA(), nil)
	require.NoError(t, err)
	require.Len(t, rc.Files, 1)
	assert.Equal(t, 1, rc.Files[0].GetAdditions())

	// Commit listings of the branch show the new commits above the history.
	list, _, err := e.client.Repositories.ListCommits(c, owner, repo, &gh.CommitsListOptions{SHA: branch, Path: target})
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(list), 2)
	assert.Equal(t, second.GetSHA(), list[0].GetSHA())
	assert.Equal(t, first.GetSHA(), list[1].GetSHA())
	assert.Equal(t, append([]string{second.GetSHA(), first.GetSHA()}, changesTouching(sc, target)...), shaList(list))
}

func shaList(list []*gh.RepositoryCommit) []string {
	var out []string
	for _, c := range list {
		out = append(out, c.GetSHA())
	}
	return out
}

func TestPullRequestValidation(t *testing.T) {
	e := newEnv(t, Options{Repos: []RepoSeed{smallRepo()}})
	c := ctx(t)
	head, _, err := e.client.Git.GetRef(c, "acme", "shop", "heads/main")
	require.NoError(t, err)
	_, _, err = e.client.Git.CreateRef(c, "acme", "shop", &gh.Reference{Ref: gh.String("refs/heads/empty"), Object: head.Object})
	require.NoError(t, err)

	tests := []struct {
		name    string
		pr      gh.NewPullRequest
		message string
		field   string
	}{
		{"head equals base", gh.NewPullRequest{Title: gh.String("t"), Head: gh.String("main"), Base: gh.String("main")}, "No commits between main and main", ""},
		{"no commits", gh.NewPullRequest{Title: gh.String("t"), Head: gh.String("empty"), Base: gh.String("main")}, "No commits between main and empty", ""},
		{"missing head branch", gh.NewPullRequest{Title: gh.String("t"), Head: gh.String("ghost"), Base: gh.String("main")}, "", "head"},
		{"missing base branch", gh.NewPullRequest{Title: gh.String("t"), Head: gh.String("empty"), Base: gh.String("ghost")}, "", "base"},
		{"missing title", gh.NewPullRequest{Head: gh.String("empty"), Base: gh.String("main")}, "", "title"},
		{"body too long", gh.NewPullRequest{Title: gh.String("t"), Head: gh.String("empty"), Base: gh.String("main"), Body: gh.String(strings.Repeat("x", maxBodyLen+1))}, "body is too long (maximum is 65536 characters)", "body"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, resp, err := e.client.PullRequests.Create(c, "acme", "shop", &tc.pr)
			var er *gh.ErrorResponse
			require.ErrorAs(t, err, &er)
			assert.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
			require.NotEmpty(t, er.Errors)
			assert.Equal(t, tc.message, er.Errors[0].Message)
			assert.Equal(t, tc.field, er.Errors[0].Field)
		})
	}
	prs, err := e.srv.PullRequests("acme", "shop")
	require.NoError(t, err)
	assert.Empty(t, prs)
}

func TestListPullsIgnoresHeadWithoutOwner(t *testing.T) {
	e := newEnv(t, Options{Repos: []RepoSeed{smallRepo()}})
	c := ctx(t)
	head, _, err := e.client.Git.GetRef(c, "acme", "shop", "heads/main")
	require.NoError(t, err)
	for _, b := range []string{"fix-a", "fix-b"} {
		commit := commitFile(t, c, e.client, "acme", "shop", head.GetObject().GetSHA(), "README.md", "# "+b+"\n", b)
		_, _, err := e.client.Git.CreateRef(c, "acme", "shop", &gh.Reference{Ref: gh.String("refs/heads/" + b), Object: &gh.GitObject{SHA: commit.SHA}})
		require.NoError(t, err)
		_, _, err = e.client.PullRequests.Create(c, "acme", "shop", &gh.NewPullRequest{Title: gh.String(b), Head: gh.String(b), Base: gh.String("main")})
		require.NoError(t, err)
	}
	// GitHub silently ignores a head filter without "owner:".
	all, _, err := e.client.PullRequests.List(c, "acme", "shop", &gh.PullRequestListOptions{Head: "fix-a"})
	require.NoError(t, err)
	assert.Len(t, all, 2)
	one, _, err := e.client.PullRequests.List(c, "acme", "shop", &gh.PullRequestListOptions{Head: "acme:fix-a"})
	require.NoError(t, err)
	require.Len(t, one, 1)
	assert.Equal(t, "fix-a", one[0].GetHead().GetRef())
}

func TestRefUpdatesAndDeletion(t *testing.T) {
	e := newEnv(t, Options{Repos: []RepoSeed{smallRepo()}})
	c := ctx(t)
	head, _, err := e.client.Git.GetRef(c, "acme", "shop", "heads/main")
	require.NoError(t, err)
	base := head.GetObject().GetSHA()
	a := commitFile(t, c, e.client, "acme", "shop", base, "README.md", "# a\n", "a")
	b := commitFile(t, c, e.client, "acme", "shop", base, "README.md", "# b\n", "b")
	_, _, err = e.client.Git.CreateRef(c, "acme", "shop", &gh.Reference{Ref: gh.String("refs/heads/fix"), Object: &gh.GitObject{SHA: a.SHA}})
	require.NoError(t, err)

	_, resp, err := e.client.Git.UpdateRef(c, "acme", "shop", &gh.Reference{Ref: gh.String("refs/heads/fix"), Object: &gh.GitObject{SHA: b.SHA}}, false)
	var er *gh.ErrorResponse
	require.ErrorAs(t, err, &er)
	assert.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
	assert.Equal(t, "Update is not a fast forward", er.Message)

	_, _, err = e.client.Git.UpdateRef(c, "acme", "shop", &gh.Reference{Ref: gh.String("refs/heads/fix"), Object: &gh.GitObject{SHA: b.SHA}}, true)
	require.NoError(t, err)
	got, err := e.srv.FileAt("acme", "shop", "fix", "README.md")
	require.NoError(t, err)
	assert.Equal(t, "# b\n", string(got))

	_, _, err = e.client.Git.UpdateRef(c, "acme", "shop", &gh.Reference{Ref: gh.String("refs/heads/ghost"), Object: &gh.GitObject{SHA: b.SHA}}, true)
	require.ErrorAs(t, err, &er)
	assert.Equal(t, "Reference does not exist", er.Message)

	pr, _, err := e.client.PullRequests.Create(c, "acme", "shop", &gh.NewPullRequest{Title: gh.String("fix"), Head: gh.String("fix"), Base: gh.String("main")})
	require.NoError(t, err)
	_, err = e.client.Git.DeleteRef(c, "acme", "shop", "heads/fix")
	require.NoError(t, err)
	refs, err := e.srv.Refs("acme", "shop")
	require.NoError(t, err)
	assert.Equal(t, []Ref{{Name: "refs/heads/main", SHA: base}}, refs)
	closed, err := e.srv.PullRequest("acme", "shop", pr.GetNumber())
	require.NoError(t, err)
	assert.Equal(t, "closed", closed.State, "deleting the head branch closes the PR")
	assert.Equal(t, b.GetSHA(), closed.HeadSHA)

	_, err = e.client.Git.DeleteRef(c, "acme", "shop", "heads/main")
	require.ErrorAs(t, err, &er)
	assert.Equal(t, http.StatusUnprocessableEntity, er.Response.StatusCode)
}

func TestTreeEditsAndDeletion(t *testing.T) {
	e := newEnv(t, Options{Repos: []RepoSeed{smallRepo()}})
	c := ctx(t)
	head, _, err := e.client.Git.GetRef(c, "acme", "shop", "heads/main")
	require.NoError(t, err)
	hc, _, err := e.client.Git.GetCommit(c, "acme", "shop", head.GetObject().GetSHA())
	require.NoError(t, err)

	tree, _, err := e.client.Git.CreateTree(c, "acme", "shop", hc.GetTree().GetSHA(), []*gh.TreeEntry{
		{Path: gh.String("src/cart/cart_test.go"), Mode: gh.String("100644"), Type: gh.String("blob")}, // SHA nil: delete
		{Path: gh.String("src/cart/limits.go"), Mode: gh.String("100644"), Type: gh.String("blob"), Content: gh.String("package cart\n")},
		{Path: gh.String("deploy"), Mode: gh.String("040000"), Type: gh.String("tree")}, // delete a directory
	})
	require.NoError(t, err)
	commit, _, err := e.client.Git.CreateCommit(c, "acme", "shop", &gh.Commit{
		Message: gh.String("edit"), Tree: &gh.Tree{SHA: tree.SHA}, Parents: []*gh.Commit{{SHA: head.Object.SHA}},
	}, nil)
	require.NoError(t, err)
	files, err := e.srv.Files("acme", "shop", commit.GetSHA())
	require.NoError(t, err)
	assert.Equal(t, []string{"README.md", "src/cart/cart.go", "src/cart/limits.go"}, files)

	rc, _, err := e.client.Repositories.GetCommit(c, "acme", "shop", commit.GetSHA(), nil)
	require.NoError(t, err)
	status := map[string]string{}
	for _, f := range rc.Files {
		status[f.GetFilename()] = f.GetStatus()
	}
	assert.Equal(t, map[string]string{
		"src/cart/cart_test.go": "removed", "src/cart/limits.go": "added", "deploy/values.yaml": "removed",
	}, status)

	// Bad inputs get GitHub's 422s.
	var er *gh.ErrorResponse
	_, _, err = e.client.Git.CreateTree(c, "acme", "shop", "", []*gh.TreeEntry{
		{Path: gh.String("x"), Mode: gh.String("100644"), Type: gh.String("blob"), SHA: gh.String(strings.Repeat("a", 40))},
	})
	require.ErrorAs(t, err, &er)
	assert.Equal(t, http.StatusUnprocessableEntity, er.Response.StatusCode)
	_, _, err = e.client.Git.CreateTree(c, "acme", "shop", "", []*gh.TreeEntry{
		{Path: gh.String("../escape"), Mode: gh.String("100644"), Type: gh.String("blob"), Content: gh.String("x")},
	})
	require.ErrorAs(t, err, &er)
	_, _, err = e.client.Git.CreateCommit(c, "acme", "shop", &gh.Commit{
		Message: gh.String("m"), Tree: &gh.Tree{SHA: tree.SHA}, Parents: []*gh.Commit{{SHA: gh.String(strings.Repeat("b", 40))}},
	}, nil)
	require.ErrorAs(t, err, &er)
	assert.Equal(t, "Parent SHA does not exist or is not a commit object", er.Message)
	_, _, err = e.client.Git.CreateCommit(c, "acme", "shop", &gh.Commit{Message: gh.String("m"), Tree: &gh.Tree{SHA: gh.String(strings.Repeat("c", 40))}}, nil)
	require.ErrorAs(t, err, &er)
	assert.Equal(t, "Tree SHA does not exist", er.Message)

	blob, _, err := e.client.Git.CreateBlob(c, "acme", "shop", &gh.Blob{Content: gh.String("aGVsbG8K"), Encoding: gh.String("base64")})
	require.NoError(t, err)
	assert.Equal(t, "ce013625030ba8dba906f756967f9e9ca394464a", blob.GetSHA(), "base64 blobs decode before hashing")
	got, _, err := e.client.Git.GetBlob(c, "acme", "shop", blob.GetSHA())
	require.NoError(t, err)
	assert.Equal(t, "base64", got.GetEncoding())
	assert.Equal(t, 6, got.GetSize())
}

func TestIssuesAndComments(t *testing.T) {
	e := newEnv(t, Options{Repos: []RepoSeed{smallRepo()}})
	c := ctx(t)
	iss, _, err := e.client.Issues.Create(c, "acme", "shop", &gh.IssueRequest{
		Title: gh.String("cart OOMKilled"), Body: gh.String("autoheal-key: cart-oom"), Labels: &[]string{"autoheal", "incident"},
	})
	require.NoError(t, err)
	assert.Equal(t, "open", iss.GetState())

	for i := range 3 {
		_, _, err := e.client.Issues.CreateComment(c, "acme", "shop", iss.GetNumber(), &gh.IssueComment{Body: gh.String(fmt.Sprintf("fired %d", i))})
		require.NoError(t, err)
	}
	page, resp, err := e.client.Issues.ListComments(c, "acme", "shop", iss.GetNumber(), &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 2}})
	require.NoError(t, err)
	assert.Len(t, page, 2)
	assert.Equal(t, 2, resp.NextPage)

	byLabel, _, err := e.client.Issues.ListByRepo(c, "acme", "shop", &gh.IssueListByRepoOptions{Labels: []string{"autoheal"}})
	require.NoError(t, err)
	require.Len(t, byLabel, 1)
	assert.Equal(t, 3, byLabel[0].GetComments())

	_, _, err = e.client.Issues.Edit(c, "acme", "shop", iss.GetNumber(), &gh.IssueRequest{State: gh.String("closed")})
	require.NoError(t, err)
	open, _, err := e.client.Issues.ListByRepo(c, "acme", "shop", nil)
	require.NoError(t, err)
	assert.Empty(t, open)

	var er *gh.ErrorResponse
	_, _, err = e.client.Issues.CreateComment(c, "acme", "shop", 99, &gh.IssueComment{Body: gh.String("x")})
	require.ErrorAs(t, err, &er)
	assert.Equal(t, http.StatusNotFound, er.Response.StatusCode)
	_, _, err = e.client.Issues.CreateComment(c, "acme", "shop", iss.GetNumber(), &gh.IssueComment{Body: gh.String("")})
	require.ErrorAs(t, err, &er)
	assert.Equal(t, http.StatusUnprocessableEntity, er.Response.StatusCode)

	issues, err := e.srv.Issues("acme", "shop")
	require.NoError(t, err)
	require.Len(t, issues, 1)
	assert.Equal(t, []string{"autoheal", "incident"}, issues[0].Labels)
	assert.Len(t, issues[0].Comments, 3)
}

// TestConcurrentWriters runs several clients at once (go test -race): each
// creates its own branch and PR and comments on it.
func TestConcurrentWriters(t *testing.T) {
	e := newEnv(t, Options{Repos: []RepoSeed{smallRepo()}})
	c := ctx(t)
	head, _, err := e.client.Git.GetRef(c, "acme", "shop", "heads/main")
	require.NoError(t, err)
	const n = 8
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			branch := fmt.Sprintf("fix-%d", i)
			blob, _, err := e.client.Git.CreateBlob(c, "acme", "shop", &gh.Blob{Content: gh.String(branch), Encoding: gh.String("utf-8")})
			if err != nil {
				errs <- err
				return
			}
			tree, _, err := e.client.Git.CreateTree(c, "acme", "shop", head.GetObject().GetSHA(), []*gh.TreeEntry{
				{Path: gh.String(branch + ".txt"), Mode: gh.String("100644"), Type: gh.String("blob"), SHA: blob.SHA},
			})
			if err != nil {
				errs <- err
				return
			}
			commit, _, err := e.client.Git.CreateCommit(c, "acme", "shop", &gh.Commit{Message: gh.String(branch), Tree: &gh.Tree{SHA: tree.SHA}, Parents: []*gh.Commit{{SHA: head.Object.SHA}}}, nil)
			if err != nil {
				errs <- err
				return
			}
			if _, _, err := e.client.Git.CreateRef(c, "acme", "shop", &gh.Reference{Ref: gh.String("refs/heads/" + branch), Object: &gh.GitObject{SHA: commit.SHA}}); err != nil {
				errs <- err
				return
			}
			pr, _, err := e.client.PullRequests.Create(c, "acme", "shop", &gh.NewPullRequest{Title: gh.String(branch), Head: gh.String(branch), Base: gh.String("main")})
			if err != nil {
				errs <- err
				return
			}
			_, _, err = e.client.Issues.CreateComment(c, "acme", "shop", pr.GetNumber(), &gh.IssueComment{Body: gh.String("hello " + branch)})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	prs, err := e.srv.PullRequests("acme", "shop")
	require.NoError(t, err)
	require.Len(t, prs, n)
	numbers := map[int]bool{}
	for _, pr := range prs {
		numbers[pr.Number] = true
		require.Len(t, pr.Comments, 1)
		assert.Equal(t, "hello "+pr.Head, pr.Comments[0].Body)
		got, err := e.srv.FileAt("acme", "shop", pr.Head, pr.Head+".txt")
		require.NoError(t, err)
		assert.Equal(t, pr.Head, string(got))
	}
	assert.Len(t, numbers, n, "numbers are unique")
}

func TestPullRequestCloseAndReopen(t *testing.T) {
	e := newEnv(t, Options{Repos: []RepoSeed{smallRepo()}})
	c := ctx(t)
	head, _, err := e.client.Git.GetRef(c, "acme", "shop", "heads/main")
	require.NoError(t, err)
	commit := commitFile(t, c, e.client, "acme", "shop", head.GetObject().GetSHA(), "README.md", "# fixed\n", "fix")
	_, _, err = e.client.Git.CreateRef(c, "acme", "shop", &gh.Reference{Ref: gh.String("refs/heads/fix"), Object: &gh.GitObject{SHA: commit.SHA}})
	require.NoError(t, err)
	first, _, err := e.client.PullRequests.Create(c, "acme", "shop", &gh.NewPullRequest{Title: gh.String("fix"), Head: gh.String("fix"), Base: gh.String("main")})
	require.NoError(t, err)

	closed, _, err := e.client.PullRequests.Edit(c, "acme", "shop", first.GetNumber(), &gh.PullRequest{State: gh.String("closed"), Body: gh.String("superseded")})
	require.NoError(t, err)
	assert.Equal(t, "closed", closed.GetState())
	assert.False(t, closed.GetClosedAt().IsZero())

	// With the first PR closed, a new one for the same head is allowed ...
	second, _, err := e.client.PullRequests.Create(c, "acme", "shop", &gh.NewPullRequest{Title: gh.String("fix again"), Head: gh.String("fix"), Base: gh.String("main")})
	require.NoError(t, err)
	assert.Equal(t, first.GetNumber()+1, second.GetNumber())

	// ... and reopening the first would duplicate it.
	_, _, err = e.client.PullRequests.Edit(c, "acme", "shop", first.GetNumber(), &gh.PullRequest{State: gh.String("open")})
	var er *gh.ErrorResponse
	require.ErrorAs(t, err, &er)
	assert.Equal(t, http.StatusUnprocessableEntity, er.Response.StatusCode)

	all, _, err := e.client.PullRequests.List(c, "acme", "shop", &gh.PullRequestListOptions{State: "all", Head: "acme:fix"})
	require.NoError(t, err)
	require.Len(t, all, 2)
	assert.Equal(t, second.GetNumber(), all[0].GetNumber(), "newest first")
	closedOnly, _, err := e.client.PullRequests.List(c, "acme", "shop", &gh.PullRequestListOptions{State: "closed"})
	require.NoError(t, err)
	require.Len(t, closedOnly, 1)
	assert.Equal(t, "superseded", closedOnly[0].GetBody())
}

func TestContentsAPIWrites(t *testing.T) {
	e := newEnv(t, Options{Repos: []RepoSeed{smallRepo()}})
	c := ctx(t)
	fc, _, _, err := e.client.Repositories.GetContents(c, "acme", "shop", "deploy/values.yaml", nil)
	require.NoError(t, err)

	_, _, err = e.client.Git.CreateRef(c, "acme", "shop", &gh.Reference{Ref: gh.String("refs/heads/raise-limit"), Object: &gh.GitObject{SHA: gh.String(mustHead(t, e, "main"))}})
	require.NoError(t, err)
	res, resp, err := e.client.Repositories.UpdateFile(c, "acme", "shop", "deploy/values.yaml", &gh.RepositoryContentFileOptions{
		Message: gh.String("cart: raise memory limit"), Content: []byte("cart:\n  memory: 512Mi\n"),
		SHA: fc.SHA, Branch: gh.String("raise-limit"),
	})
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, mustHead(t, e, "raise-limit"), res.Commit.GetSHA())
	got, err := e.srv.FileAt("acme", "shop", "raise-limit", "deploy/values.yaml")
	require.NoError(t, err)
	assert.Equal(t, "cart:\n  memory: 512Mi\n", string(got))

	// A stale blob sha is GitHub's 409.
	_, resp, err = e.client.Repositories.UpdateFile(c, "acme", "shop", "deploy/values.yaml", &gh.RepositoryContentFileOptions{
		Message: gh.String("again"), Content: []byte("x"), SHA: fc.SHA, Branch: gh.String("raise-limit"),
	})
	require.Error(t, err)
	assert.Equal(t, http.StatusConflict, resp.StatusCode)

	_, resp, err = e.client.Repositories.CreateFile(c, "acme", "shop", "docs/runbook.md", &gh.RepositoryContentFileOptions{
		Message: gh.String("docs"), Content: []byte("# runbook\n"), Branch: gh.String("raise-limit"),
	})
	require.NoError(t, err)
	assert.Equal(t, http.StatusCreated, resp.StatusCode)

	readme, _, _, err := e.client.Repositories.GetContents(c, "acme", "shop", "README.md", &gh.RepositoryContentGetOptions{Ref: "raise-limit"})
	require.NoError(t, err)
	_, _, err = e.client.Repositories.DeleteFile(c, "acme", "shop", "README.md", &gh.RepositoryContentFileOptions{
		Message: gh.String("drop readme"), SHA: readme.SHA, Branch: gh.String("raise-limit"),
	})
	require.NoError(t, err)
	files, err := e.srv.Files("acme", "shop", "raise-limit")
	require.NoError(t, err)
	assert.Equal(t, []string{"deploy/values.yaml", "docs/runbook.md", "src/cart/cart.go", "src/cart/cart_test.go"}, files)
	mainFiles, err := e.srv.Files("acme", "shop", "main")
	require.NoError(t, err)
	assert.Contains(t, mainFiles, "README.md")
}

func mustHead(t *testing.T, e *env, branch string) string {
	t.Helper()
	sha, err := e.srv.HeadCommit("acme", "shop", branch)
	require.NoError(t, err)
	return sha
}

func TestMergePullRequests(t *testing.T) {
	e := newEnv(t, Options{Repos: []RepoSeed{smallRepo()}})
	c := ctx(t)
	base := mustHead(t, e, "main")
	open := func(branch, path, content string) *gh.PullRequest {
		commit := commitFile(t, c, e.client, "acme", "shop", base, path, content, branch)
		_, _, err := e.client.Git.CreateRef(c, "acme", "shop", &gh.Reference{Ref: gh.String("refs/heads/" + branch), Object: &gh.GitObject{SHA: commit.SHA}})
		require.NoError(t, err)
		pr, _, err := e.client.PullRequests.Create(c, "acme", "shop", &gh.NewPullRequest{Title: gh.String(branch), Head: gh.String(branch), Base: gh.String("main")})
		require.NoError(t, err)
		return pr
	}
	a := open("edit-readme", "README.md", "# A\n")
	b := open("edit-values", "deploy/values.yaml", "cart:\n  memory: 1Gi\n")
	conflict := open("edit-readme-too", "README.md", "# B\n")

	res, _, err := e.client.PullRequests.Merge(c, "acme", "shop", a.GetNumber(), "", nil)
	require.NoError(t, err)
	assert.True(t, res.GetMerged())
	assert.Equal(t, res.GetSHA(), mustHead(t, e, "main"))

	// A disjoint change still merges (file-level three-way merge) ...
	sha, err := e.srv.MergePullRequest("acme", "shop", b.GetNumber())
	require.NoError(t, err)
	assert.Equal(t, sha, mustHead(t, e, "main"))
	for path, want := range map[string]string{"README.md": "# A\n", "deploy/values.yaml": "cart:\n  memory: 1Gi\n"} {
		got, err := e.srv.FileAt("acme", "shop", "main", path)
		require.NoError(t, err)
		assert.Equal(t, want, string(got))
	}
	// ... a competing edit of the same file does not.
	_, resp, err := e.client.PullRequests.Merge(c, "acme", "shop", conflict.GetNumber(), "", nil)
	require.Error(t, err)
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)

	merged, _, err := e.client.PullRequests.Get(c, "acme", "shop", a.GetNumber())
	require.NoError(t, err)
	assert.True(t, merged.GetMerged())
	assert.Equal(t, "closed", merged.GetState())
	assert.Equal(t, 1, merged.GetCommits(), "a merged PR keeps its commits")
	snap, err := e.srv.PullRequest("acme", "shop", a.GetNumber())
	require.NoError(t, err)
	assert.True(t, snap.Merged)
	require.Len(t, snap.Commits, 1)

	_, resp, err = e.client.PullRequests.Merge(c, "acme", "shop", a.GetNumber(), "", nil)
	require.Error(t, err)
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode, "merging twice is refused")
}

func TestUnknownRoutesAnswerJSON404(t *testing.T) {
	e := newEnv(t, Options{Repos: []RepoSeed{smallRepo()}})
	for _, tc := range []struct{ method, path string }{
		{http.MethodGet, "/repos/acme/shop/hooks"},
		{http.MethodPost, "/repos/acme/shop/contents/README.md"},
		{http.MethodGet, "/nothing"},
	} {
		req, err := http.NewRequest(tc.method, e.http.URL+tc.path, nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		var body map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
		resp.Body.Close()
		assert.Equal(t, http.StatusNotFound, resp.StatusCode, tc.path)
		assert.Equal(t, "Not Found", body["message"])
		assert.NotEmpty(t, body["documentation_url"])
	}
}
