package remediate

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"
)

// Internal outcomes of idempotent steps.
var (
	errRefExists      = errors.New("reference already exists")
	errNotFastForward = errors.New("update is not a fast forward")
	errPRExists       = errors.New("a pull request already exists for the branch")
	errNoCommits      = errors.New("no commits between base and head")
)

// maxTreeDepth bounds the directory walk that finds a file's mode.
const maxTreeDepth = 32

// repoClient performs the GitHub calls of the flow on one repository. Every
// error it returns is a *GitHubError or one of the errors above.
type repoClient struct {
	c           *github.Client
	owner, name string
	timeout     time.Duration
}

func (r *repoClient) full() string { return r.owner + "/" + r.name }

func (r *repoClient) call(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, r.timeout)
}

func (r *repoClient) defaultBranch(ctx context.Context) (string, error) {
	cctx, cancel := r.call(ctx)
	defer cancel()
	repo, _, err := r.c.Repositories.Get(cctx, r.owner, r.name)
	if err != nil {
		return "", classify(opGetRepo, err)
	}
	if repo.GetDefaultBranch() == "" {
		return "", &GitHubError{Op: opGetRepo, Kind: ErrorBadResponse, Detail: "the repository has no default branch"}
	}
	return repo.GetDefaultBranch(), nil
}

// branchSHA returns the commit a branch points at; found is false for a
// missing branch.
func (r *repoClient) branchSHA(ctx context.Context, o op, branch string) (string, bool, error) {
	cctx, cancel := r.call(ctx)
	defer cancel()
	ref, _, err := r.c.Git.GetRef(cctx, r.owner, r.name, "heads/"+branch)
	if err != nil {
		cerr := classify(o, err)
		if isStatus(cerr, 404) {
			return "", false, nil
		}
		return "", false, cerr
	}
	if ref.GetObject().GetSHA() == "" {
		return "", false, &GitHubError{Op: o, Kind: ErrorBadResponse, Detail: "the ref has no object"}
	}
	return ref.GetObject().GetSHA(), true, nil
}

// readFile returns a file's content and blob id at a ref; found is false
// when the path does not exist there (or is not a file).
func (r *repoClient) readFile(ctx context.Context, ref, p string) ([]byte, string, bool, error) {
	cctx, cancel := r.call(ctx)
	defer cancel()
	fc, _, _, err := r.c.Repositories.GetContents(cctx, r.owner, r.name, p, &github.RepositoryContentGetOptions{Ref: ref})
	if err != nil {
		cerr := classify(opReadFile, err)
		if isStatus(cerr, 404) {
			return nil, "", false, nil
		}
		return nil, "", false, cerr
	}
	if fc == nil || fc.GetType() != "file" {
		return nil, "", false, nil
	}
	if fc.GetEncoding() == "none" || (fc.Content == nil && fc.GetSize() > 0) {
		// Files over 1 MB come without content: read the blob.
		b, _, err := r.c.Git.GetBlobRaw(cctx, r.owner, r.name, fc.GetSHA())
		if err != nil {
			return nil, "", false, classify(opReadFile, err)
		}
		return b, fc.GetSHA(), true, nil
	}
	s, err := fc.GetContent()
	if err != nil {
		return nil, "", false, &GitHubError{Op: opReadFile, Kind: ErrorBadResponse, Detail: "undecodable content", Err: err}
	}
	return []byte(s), fc.GetSHA(), true, nil
}

// blobAt returns the blob id of a file at a ref ("" when absent).
func (r *repoClient) blobAt(ctx context.Context, ref, p string) (string, error) {
	cctx, cancel := r.call(ctx)
	defer cancel()
	fc, _, _, err := r.c.Repositories.GetContents(cctx, r.owner, r.name, p, &github.RepositoryContentGetOptions{Ref: ref})
	if err != nil {
		cerr := classify(opReadBranch, err)
		if isStatus(cerr, 404) {
			return "", nil
		}
		return "", cerr
	}
	if fc == nil || fc.GetType() != "file" {
		return "", nil
	}
	return fc.GetSHA(), nil
}

// hasFiles reports whether every file has exactly the proposal's content at ref.
func (r *repoClient) hasFiles(ctx context.Context, ref string, files []FileChange) (bool, error) {
	for _, f := range files {
		sha, err := r.blobAt(ctx, ref, f.Path)
		if err != nil {
			return false, err
		}
		if sha != blobSHA(f.Content) {
			return false, nil
		}
	}
	return true, nil
}

// commitTree returns the tree of a commit.
func (r *repoClient) commitTree(ctx context.Context, o op, sha string) (string, error) {
	cctx, cancel := r.call(ctx)
	defer cancel()
	c, _, err := r.c.Git.GetCommit(cctx, r.owner, r.name, sha)
	if err != nil {
		return "", classify(o, err)
	}
	if c.GetTree().GetSHA() == "" {
		return "", &GitHubError{Op: o, Kind: ErrorBadResponse, Detail: "the commit has no tree"}
	}
	return c.GetTree().GetSHA(), nil
}

// fileMode finds the mode of an existing file (100644 when it is new), so
// an edit keeps executable bits.
func (r *repoClient) fileMode(ctx context.Context, tree, p string) (string, error) {
	parts := strings.Split(p, "/")
	if len(parts) > maxTreeDepth {
		return "", &GitHubError{Op: opReadTree, Kind: ErrorBadResponse, Detail: "path too deep"}
	}
	for i, part := range parts {
		cctx, cancel := r.call(ctx)
		t, _, err := r.c.Git.GetTree(cctx, r.owner, r.name, tree, false)
		cancel()
		if err != nil {
			return "", classify(opReadTree, err)
		}
		next := ""
		for _, e := range t.Entries {
			if e.GetPath() != part {
				continue
			}
			if i == len(parts)-1 {
				if e.GetType() == "blob" && e.GetMode() != "" {
					return e.GetMode(), nil
				}
				return "100644", nil
			}
			if e.GetType() == "tree" {
				next = e.GetSHA()
			}
		}
		if next == "" {
			return "100644", nil
		}
		tree = next
	}
	return "100644", nil
}

// createCommit writes the files as one commit on top of parent (blobs, a
// tree based on the parent's tree, the commit) and returns its id. Nothing
// points at the commit yet.
func (r *repoClient) createCommit(ctx context.Context, parent string, files []FileChange, message string, author *CommitAuthor) (string, error) {
	baseTree, err := r.commitTree(ctx, opCreateCommit, parent)
	if err != nil {
		return "", err
	}
	entries := make([]*github.TreeEntry, 0, len(files))
	for _, f := range files {
		mode, err := r.fileMode(ctx, baseTree, f.Path)
		if err != nil {
			return "", err
		}
		cctx, cancel := r.call(ctx)
		blob, _, err := r.c.Git.CreateBlob(cctx, r.owner, r.name, &github.Blob{
			Content:  github.String(base64.StdEncoding.EncodeToString(f.Content)),
			Encoding: github.String("base64"),
		})
		cancel()
		if err != nil {
			return "", classify(opCreateCommit, err)
		}
		if want := blobSHA(f.Content); blob.GetSHA() != want {
			return "", &GitHubError{Op: opCreateCommit, Kind: ErrorBadResponse, Detail: fmt.Sprintf("blob of %s stored as %s, expected %s", f.Path, blob.GetSHA(), want)}
		}
		entries = append(entries, &github.TreeEntry{Path: github.String(f.Path), Mode: github.String(mode), Type: github.String("blob"), SHA: blob.SHA})
	}
	cctx, cancel := r.call(ctx)
	tree, _, err := r.c.Git.CreateTree(cctx, r.owner, r.name, baseTree, entries)
	cancel()
	if err != nil {
		return "", classify(opCreateCommit, err)
	}
	c := &github.Commit{Message: github.String(message), Tree: &github.Tree{SHA: tree.SHA}, Parents: []*github.Commit{{SHA: github.String(parent)}}}
	if author != nil && author.Name != "" && author.Email != "" {
		c.Author = &github.CommitAuthor{Name: github.String(author.Name), Email: github.String(author.Email)}
	}
	cctx, cancel = r.call(ctx)
	defer cancel()
	commit, _, err := r.c.Git.CreateCommit(cctx, r.owner, r.name, c, nil)
	if err != nil {
		return "", classify(opCreateCommit, err)
	}
	return commit.GetSHA(), nil
}

// createBranch points a new branch at sha; errRefExists when it exists.
func (r *repoClient) createBranch(ctx context.Context, branch, sha string) error {
	cctx, cancel := r.call(ctx)
	defer cancel()
	_, _, err := r.c.Git.CreateRef(cctx, r.owner, r.name, &github.Reference{Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: github.String(sha)}})
	if err != nil {
		cerr := classify(opCreateBranch, err)
		if isStatus(cerr, 422) && detailContains(cerr, "already exists") {
			return errRefExists
		}
		return cerr
	}
	return nil
}

// fastForward moves a branch to sha without force; errNotFastForward when
// the branch moved meanwhile.
func (r *repoClient) fastForward(ctx context.Context, branch, sha string) error {
	cctx, cancel := r.call(ctx)
	defer cancel()
	_, _, err := r.c.Git.UpdateRef(cctx, r.owner, r.name, &github.Reference{Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: github.String(sha)}}, false)
	if err != nil {
		cerr := classify(opUpdateBranch, err)
		if isStatus(cerr, 422) && detailContains(cerr, "fast forward") {
			return errNotFastForward
		}
		return cerr
	}
	return nil
}

// findOpenPR returns the open pull request whose head is the branch, or nil.
func (r *repoClient) findOpenPR(ctx context.Context, branch string) (*github.PullRequest, error) {
	cctx, cancel := r.call(ctx)
	defer cancel()
	prs, _, err := r.c.PullRequests.List(cctx, r.owner, r.name, &github.PullRequestListOptions{
		State: "open", Head: r.owner + ":" + branch, ListOptions: github.ListOptions{PerPage: 10},
	})
	if err != nil {
		return nil, classify(opFindPR, err)
	}
	for _, pr := range prs {
		if pr.GetHead().GetRef() == branch && pr.GetState() == "open" {
			return pr, nil
		}
	}
	return nil, nil
}

func (r *repoClient) createPR(ctx context.Context, pr *github.NewPullRequest) (*github.PullRequest, error) {
	cctx, cancel := r.call(ctx)
	defer cancel()
	out, _, err := r.c.PullRequests.Create(cctx, r.owner, r.name, pr)
	if err != nil {
		cerr := classify(opCreatePR, err)
		switch {
		case isStatus(cerr, 422) && detailContains(cerr, "already exists"):
			return nil, errPRExists
		case isStatus(cerr, 422) && detailContains(cerr, "no commits between"):
			return nil, errNoCommits
		}
		return nil, cerr
	}
	return out, nil
}

// getPR reads one pull request.
func (r *repoClient) getPR(ctx context.Context, number int) (*github.PullRequest, error) {
	cctx, cancel := r.call(ctx)
	defer cancel()
	pr, _, err := r.c.PullRequests.Get(cctx, r.owner, r.name, number)
	if err != nil {
		return nil, classify(opFindPR, err)
	}
	return pr, nil
}

// latestPR returns the most recent pull request, in any state, whose head
// is the branch, or nil.
func (r *repoClient) latestPR(ctx context.Context, branch string) (*github.PullRequest, error) {
	cctx, cancel := r.call(ctx)
	defer cancel()
	prs, _, err := r.c.PullRequests.List(cctx, r.owner, r.name, &github.PullRequestListOptions{
		State: "all", Head: r.owner + ":" + branch, Sort: "created", Direction: "desc", ListOptions: github.ListOptions{PerPage: 10},
	})
	if err != nil {
		return nil, classify(opFindPR, err)
	}
	var latest *github.PullRequest
	for _, pr := range prs {
		if pr.GetHead().GetRef() == branch && (latest == nil || pr.GetNumber() > latest.GetNumber()) {
			latest = pr
		}
	}
	return latest, nil
}

// editPR sets a pull request's title and body.
func (r *repoClient) editPR(ctx context.Context, number int, title, body string) (*github.PullRequest, error) {
	cctx, cancel := r.call(ctx)
	defer cancel()
	pr, _, err := r.c.PullRequests.Edit(cctx, r.owner, r.name, number, &github.PullRequest{Title: github.String(title), Body: github.String(body)})
	if err != nil {
		return nil, classify(opUpdatePR, err)
	}
	return pr, nil
}

// prCommitMessages returns the messages of a pull request's commits (at
// most 250, GitHub's limit for this endpoint).
func (r *repoClient) prCommitMessages(ctx context.Context, number int) ([]string, error) {
	var out []string
	opts := &github.ListOptions{PerPage: 100}
	for page := 0; page < 3; page++ {
		cctx, cancel := r.call(ctx)
		cs, resp, err := r.c.PullRequests.ListCommits(cctx, r.owner, r.name, number, opts)
		cancel()
		if err != nil {
			return nil, classify(opListPRCommits, err)
		}
		for _, c := range cs {
			out = append(out, c.GetCommit().GetMessage())
		}
		if resp == nil || resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	return out, nil
}

// mergeBase returns the commit a branch head and its base branch share.
func (r *repoClient) mergeBase(ctx context.Context, base, head string) (string, error) {
	cctx, cancel := r.call(ctx)
	defer cancel()
	cmp, _, err := r.c.Repositories.CompareCommits(cctx, r.owner, r.name, base, head, &github.ListOptions{PerPage: 1})
	if err != nil {
		return "", classify(opCompare, err)
	}
	if cmp.GetMergeBaseCommit().GetSHA() == "" {
		return "", &GitHubError{Op: opCompare, Kind: ErrorBadResponse, Detail: "no merge base"}
	}
	return cmp.GetMergeBaseCommit().GetSHA(), nil
}

func (r *repoClient) comment(ctx context.Context, number int, body string) (*github.IssueComment, error) {
	cctx, cancel := r.call(ctx)
	defer cancel()
	c, _, err := r.c.Issues.CreateComment(cctx, r.owner, r.name, number, &github.IssueComment{Body: github.String(body)})
	if err != nil {
		return nil, classify(opComment, err)
	}
	return c, nil
}

// githubReader reads files through the Contents API for Propose.
type githubReader struct {
	s     *Service
	creds *Credentials
}

// ReadFile implements RepoReader.
func (g githubReader) ReadFile(ctx context.Context, repo, ref, p string) ([]byte, error) {
	rc, err := g.s.repo(repo, g.creds)
	if err != nil {
		return nil, err
	}
	if ref == "" {
		if ref, err = rc.defaultBranch(ctx); err != nil {
			return nil, err
		}
	}
	b, _, found, err := rc.readFile(ctx, ref, path.Clean(p))
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("%s at %s in %s: %w", p, ref, rc.full(), ErrFileNotFound)
	}
	return b, nil
}
