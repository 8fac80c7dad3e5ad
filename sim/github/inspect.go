package github

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// ErrNotFound is returned by the inspection helpers for an unknown
// repository, pull request, issue, ref or path.
var ErrNotFound = errors.New("not found")

// PullRequest is a snapshot of a simulated pull request.
type PullRequest struct {
	Number    int
	Title     string
	Body      string
	State     string // open | closed
	Draft     bool
	Merged    bool
	User      string
	Head      string // branch name
	Base      string
	HeadSHA   string
	Commits   []string // ids between base and head, oldest first
	Labels    []string
	Comments  []Comment
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Issue is a snapshot of a simulated issue (pull requests are issues too).
type Issue struct {
	Number        int
	Title         string
	Body          string
	State         string
	Labels        []string
	User          string
	IsPullRequest bool
	Comments      []Comment
	CreatedAt     time.Time
}

// Comment is a snapshot of an issue or pull request comment.
type Comment struct {
	ID        int64
	Body      string
	User      string
	CreatedAt time.Time
}

// Ref is a git reference and the commit it points at.
type Ref struct {
	Name string // refs/heads/main
	SHA  string
}

func (s *Server) repoLocked(owner, name string) (*repository, error) {
	r, found := s.repos[repoKey(owner, name)]
	if !found {
		return nil, fmt.Errorf("repository %s/%s: %w", owner, name, ErrNotFound)
	}
	return r, nil
}

func snapshotComments(cs []*comment) []Comment {
	out := make([]Comment, 0, len(cs))
	for _, c := range cs {
		out = append(out, Comment{ID: c.id, Body: c.body, User: c.user, CreatedAt: c.createdAt})
	}
	return out
}

func (r *repository) snapshotPull(iss *issue) PullRequest {
	return PullRequest{
		Number: iss.number, Title: iss.title, Body: iss.body, State: iss.state, Draft: iss.pr.draft, Merged: iss.pr.merged,
		User: iss.user, Head: iss.pr.head, Base: iss.pr.base, HeadSHA: r.pullHeadSHA(iss.pr),
		Commits: pullCommitsOf(r, iss), Labels: append([]string(nil), iss.labels...),
		Comments: snapshotComments(iss.comments), CreatedAt: iss.createdAt, UpdatedAt: iss.updatedAt,
	}
}

// PullRequests returns every pull request of a repository, by number.
func (s *Server) PullRequests(owner, repo string) ([]PullRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.repoLocked(owner, repo)
	if err != nil {
		return nil, err
	}
	var out []PullRequest
	for _, iss := range r.issues {
		if iss.pr != nil {
			out = append(out, r.snapshotPull(iss))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number < out[j].Number })
	return out, nil
}

// PullRequest returns one pull request.
func (s *Server) PullRequest(owner, repo string, number int) (PullRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.repoLocked(owner, repo)
	if err != nil {
		return PullRequest{}, err
	}
	iss, found := r.issues[number]
	if !found || iss.pr == nil {
		return PullRequest{}, fmt.Errorf("pull request %s#%d: %w", r.fullName(), number, ErrNotFound)
	}
	return r.snapshotPull(iss), nil
}

// Issues returns every issue of a repository (pull requests included), by number.
func (s *Server) Issues(owner, repo string) ([]Issue, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.repoLocked(owner, repo)
	if err != nil {
		return nil, err
	}
	out := make([]Issue, 0, len(r.issues))
	for _, iss := range r.issues {
		out = append(out, Issue{
			Number: iss.number, Title: iss.title, Body: iss.body, State: iss.state,
			Labels: append([]string(nil), iss.labels...), User: iss.user, IsPullRequest: iss.pr != nil,
			Comments: snapshotComments(iss.comments), CreatedAt: iss.createdAt,
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number < out[j].Number })
	return out, nil
}

// Comments returns the comments of an issue or pull request.
func (s *Server) Comments(owner, repo string, number int) ([]Comment, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.repoLocked(owner, repo)
	if err != nil {
		return nil, err
	}
	iss, found := r.issues[number]
	if !found {
		return nil, fmt.Errorf("issue %s#%d: %w", r.fullName(), number, ErrNotFound)
	}
	return snapshotComments(iss.comments), nil
}

// Refs returns every ref of a repository, sorted by name.
func (s *Server) Refs(owner, repo string) ([]Ref, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.repoLocked(owner, repo)
	if err != nil {
		return nil, err
	}
	out := make([]Ref, 0, len(r.refs))
	for name, sha := range r.refs {
		out = append(out, Ref{Name: name, SHA: sha})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Branches returns the branch names of a repository, sorted.
func (s *Server) Branches(owner, repo string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.repoLocked(owner, repo)
	if err != nil {
		return nil, err
	}
	return r.branchNames(), nil
}

// FileAt returns a file's content at a ref (branch, ref name or commit id).
func (s *Server) FileAt(owner, repo, ref, path string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.repoLocked(owner, repo)
	if err != nil {
		return nil, err
	}
	b, found := r.fileAt(ref, path)
	if !found {
		return nil, fmt.Errorf("%s at %s in %s: %w", path, ref, r.fullName(), ErrNotFound)
	}
	return append([]byte(nil), b...), nil
}

// Files lists the file paths at a ref, sorted.
func (s *Server) Files(owner, repo, ref string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.repoLocked(owner, repo)
	if err != nil {
		return nil, err
	}
	tree, found := r.resolveTree(ref)
	if !found {
		return nil, fmt.Errorf("ref %s in %s: %w", ref, r.fullName(), ErrNotFound)
	}
	files := map[string]leaf{}
	if err := r.store.flatten(tree, "", files); err != nil {
		return nil, fmt.Errorf("list files of %s at %s: %w", r.fullName(), ref, err)
	}
	out := make([]string, 0, len(files))
	for p := range files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}

// HeadCommit returns the commit a branch or ref points at.
func (s *Server) HeadCommit(owner, repo, ref string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.repoLocked(owner, repo)
	if err != nil {
		return "", err
	}
	sha, found := r.resolveCommit(ref)
	if !found {
		return "", fmt.Errorf("ref %s in %s: %w", ref, r.fullName(), ErrNotFound)
	}
	return sha, nil
}

// CommitMessage returns the message of a commit of the object graph.
func (s *Server) CommitMessage(owner, repo, sha string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.repoLocked(owner, repo)
	if err != nil {
		return "", err
	}
	c, found := r.store.commit(strings.ToLower(sha))
	if !found {
		return "", fmt.Errorf("commit %s in %s: %w", sha, r.fullName(), ErrNotFound)
	}
	return c.Message, nil
}
