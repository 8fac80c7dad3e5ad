package github

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
)

// commitOnBranch commits files (a flat tree) on top of a branch and moves
// the branch, as GitHub does for Contents API writes and merges.
func (s *Server) commitOnBranch(r *repository, branch string, parents []string, files map[string]leaf,
	msg string, author, committer signature) (string, *reply) {
	tree, err := r.store.buildTree(files)
	if err != nil {
		return "", storeFailure(err)
	}
	sha, err := r.store.putCommit(&gitCommit{Tree: tree, Parents: parents, Author: author, Committer: committer, Message: msg})
	if err != nil {
		return "", storeFailure(err)
	}
	r.refs["refs/heads/"+branch] = sha
	return sha, nil
}

type contentsWrite struct {
	Message   *string           `json:"message"`
	Content   *string           `json:"content"`
	SHA       string            `json:"sha"`
	Branch    string            `json:"branch"`
	Author    *signatureRequest `json:"author"`
	Committer *signatureRequest `json:"committer"`
}

// contentsTarget validates a Contents API write and loads the branch tree.
func (s *Server) contentsTarget(rc *reqCtx, r *repository, req *contentsWrite) (p, branch, head string, files map[string]leaf, out *reply) {
	p = strings.Trim(rc.r.PathValue("path"), "/")
	if !validTreePath(p) {
		return "", "", "", nil, unprocessable("path contains a malformed path component")
	}
	if req.Message == nil {
		return "", "", "", nil, unprocessable("Invalid request.\n\n\"message\" wasn't supplied.")
	}
	branch = req.Branch
	if branch == "" {
		branch = r.defaultBranch
	}
	head, found := r.branchHead(branch)
	if !found {
		return "", "", "", nil, fail(http.StatusNotFound, "Branch "+branch+" not found")
	}
	c, _ := r.store.commit(head)
	files = map[string]leaf{}
	if err := r.store.flatten(c.Tree, "", files); err != nil {
		return "", "", "", nil, fail(http.StatusInternalServerError, "Server Error")
	}
	if cur, exists := files[p]; exists && req.SHA != cur.SHA {
		if req.SHA == "" {
			return "", "", "", nil, unprocessable("Invalid request.\n\n\"sha\" wasn't supplied.")
		}
		return "", "", "", nil, fail(http.StatusConflict, fmt.Sprintf("%s does not match %s", p, req.SHA))
	}
	return p, branch, head, files, nil
}

func (s *Server) contentsSignatures(rc *reqCtx, req *contentsWrite) (signature, signature, *reply) {
	committer, bad := s.signature(rc, req.Committer, "committer")
	if bad != nil {
		return signature{}, signature{}, bad
	}
	author := committer
	if req.Author != nil {
		if author, bad = s.signature(rc, req.Author, "author"); bad != nil {
			return signature{}, signature{}, bad
		}
	}
	return author, committer, nil
}

// PUT /repos/{owner}/{repo}/contents/{path}: create or update one file.
func (s *Server) putContents(rc *reqCtx, r *repository) *reply {
	var req contentsWrite
	if out := rc.decode(&req); out != nil {
		return out
	}
	if req.Content == nil {
		return unprocessable("Invalid request.\n\n\"content\" wasn't supplied.")
	}
	content, err := base64.StdEncoding.DecodeString(*req.Content)
	if err != nil {
		return unprocessable("content is not valid Base64")
	}
	p, branch, head, files, out := s.contentsTarget(rc, r, &req)
	if out != nil {
		return out
	}
	author, committer, bad := s.contentsSignatures(rc, &req)
	if bad != nil {
		return bad
	}
	blob, err := r.store.putBlob(content)
	if err != nil {
		return storeFailure(err)
	}
	_, existed := files[p]
	removePath(files, p)
	clearParents(files, p)
	files[p] = leaf{Mode: modeFile, Type: typeBlob, SHA: blob}
	sha, out := s.commitOnBranch(r, branch, []string{head}, files, *req.Message, author, committer)
	if out != nil {
		return out
	}
	c, _ := r.store.commit(sha)
	status := http.StatusCreated
	if existed {
		status = http.StatusOK
	}
	entry := rc.contentEntry(r, sha, branch, p, treeEntry{Name: p, Mode: modeFile, Type: typeBlob, SHA: blob})
	return ok(status, map[string]any{"content": entry, "commit": rc.gitCommitJSON(r, sha, c)})
}

// DELETE /repos/{owner}/{repo}/contents/{path}
func (s *Server) deleteContents(rc *reqCtx, r *repository) *reply {
	var req contentsWrite
	if out := rc.decode(&req); out != nil {
		return out
	}
	p, branch, head, files, out := s.contentsTarget(rc, r, &req)
	if out != nil {
		return out
	}
	if _, exists := files[p]; !exists {
		return notFound()
	}
	author, committer, bad := s.contentsSignatures(rc, &req)
	if bad != nil {
		return bad
	}
	delete(files, p)
	sha, out := s.commitOnBranch(r, branch, []string{head}, files, *req.Message, author, committer)
	if out != nil {
		return out
	}
	c, _ := r.store.commit(sha)
	return ok(http.StatusOK, map[string]any{"content": nil, "commit": rc.gitCommitJSON(r, sha, c)})
}

// mergeTrees is a file-level three-way merge; a file changed differently
// on both sides is a conflict.
func (r *repository) mergeTrees(baseTree, oursTree, theirsTree string) (map[string]leaf, bool, error) {
	load := func(tree string) (map[string]leaf, error) {
		m := map[string]leaf{}
		return m, r.store.flatten(tree, "", m)
	}
	mb, err := load(baseTree)
	if err != nil {
		return nil, false, err
	}
	ours, err := load(oursTree)
	if err != nil {
		return nil, false, err
	}
	theirs, err := load(theirsTree)
	if err != nil {
		return nil, false, err
	}
	out := map[string]leaf{}
	paths := map[string]bool{}
	for _, m := range []map[string]leaf{mb, ours, theirs} {
		for p := range m {
			paths[p] = true
		}
	}
	for p := range paths {
		b, inB := mb[p]
		o, inO := ours[p]
		t, inT := theirs[p]
		switch {
		case inO == inT && o == t:
			if inO {
				out[p] = o
			}
		case inO == inB && o == b:
			if inT {
				out[p] = t
			}
		case inT == inB && t == b:
			if inO {
				out[p] = o
			}
		default:
			return nil, false, nil
		}
	}
	return out, true, nil
}

// PUT /repos/{owner}/{repo}/pulls/{number}/merge
func (s *Server) mergePull(rc *reqCtx, r *repository) *reply {
	iss, out := pullByNumber(rc, r)
	if out != nil {
		return out
	}
	var req struct {
		CommitTitle   string `json:"commit_title"`
		CommitMessage string `json:"commit_message"`
		SHA           string `json:"sha"`
		MergeMethod   string `json:"merge_method"`
	}
	if len(rc.body) > 0 {
		if out := rc.decode(&req); out != nil {
			return out
		}
	}
	if iss.state != "open" || iss.pr.merged {
		return fail(http.StatusMethodNotAllowed, "Pull Request is not mergeable")
	}
	head := r.pullHeadSHA(iss.pr)
	if req.SHA != "" && req.SHA != head {
		return fail(http.StatusConflict, "Head branch was modified. Review and try the merge again.")
	}
	base, found := r.branchHead(iss.pr.base)
	if !found {
		return fail(http.StatusMethodNotAllowed, "Pull Request is not mergeable")
	}
	mb := r.store.mergeBase(base, head)
	if mb == "" {
		return fail(http.StatusMethodNotAllowed, "Pull Request is not mergeable")
	}
	trees := [3]string{}
	for i, sha := range []string{mb, base, head} {
		c, _ := r.store.commit(sha)
		trees[i] = c.Tree
	}
	files, clean, err := r.mergeTrees(trees[0], trees[1], trees[2])
	if err != nil {
		return fail(http.StatusInternalServerError, "Server Error")
	}
	if !clean {
		return fail(http.StatusMethodNotAllowed, "Pull Request is not mergeable")
	}
	title := req.CommitTitle
	var parents []string
	switch req.MergeMethod {
	case "", "merge":
		if title == "" {
			title = fmt.Sprintf("Merge pull request #%d from %s/%s", iss.number, r.owner, iss.pr.head)
		}
		parents = []string{base, head}
	case "squash":
		if title == "" {
			title = fmt.Sprintf("%s (#%d)", iss.title, iss.number)
		}
		parents = []string{base}
	default:
		return invalid(fieldError{Resource: "PullRequest", Field: "merge_method", Code: "invalid",
			Message: "merge_method must be merge or squash in the simulator"})
	}
	msg := title
	if req.CommitMessage != "" {
		msg += "\n\n" + req.CommitMessage
	}
	sig, _ := s.signature(rc, nil, "committer")
	sha, out := s.commitOnBranch(r, iss.pr.base, parents, files, msg, sig, sig)
	if out != nil {
		return out
	}
	now := s.now().UTC()
	iss.pr.merged, iss.pr.mergedAt, iss.pr.mergeCommit, iss.pr.baseAtMerge = true, now, sha, base
	iss.state, iss.closedAt, iss.updatedAt = "closed", now, now
	return ok(http.StatusOK, map[string]any{"sha": sha, "merged": true, "message": "Pull Request successfully merged"})
}

// MergePullRequest merges a pull request as a reviewer clicking "Merge"
// would (merge commit on the base branch), for tests of what happens after.
func (s *Server) MergePullRequest(owner, repo string, number int) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.repoLocked(owner, repo)
	if err != nil {
		return "", err
	}
	iss, found := r.issues[number]
	if !found || iss.pr == nil {
		return "", fmt.Errorf("pull request %s#%d: %w", r.fullName(), number, ErrNotFound)
	}
	req, err := http.NewRequest(http.MethodPut, "/", nil)
	if err != nil {
		return "", fmt.Errorf("merge %s#%d: %w", r.fullName(), number, err)
	}
	req.SetPathValue("number", fmt.Sprint(number))
	rc := &reqCtx{r: req, api: "http://localhost", web: s.webBaseNoRequest(), cred: credential{login: s.opts.Login}}
	out := s.mergePull(rc, r)
	if out.status != http.StatusOK {
		if eb, isErr := out.body.(errorBody); isErr {
			return "", fmt.Errorf("merge %s#%d: %s (status %d)", r.fullName(), number, eb.Message, out.status)
		}
		return "", fmt.Errorf("merge %s#%d: status %d", r.fullName(), number, out.status)
	}
	return iss.pr.mergeCommit, nil
}
