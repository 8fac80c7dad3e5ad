package github

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"
)

// storeFailure maps a store error onto a response.
func storeFailure(err error) *reply {
	if errors.Is(err, errObjectLimit) {
		return unprocessable("Repository object limit of the simulator reached")
	}
	return fail(http.StatusInternalServerError, "Server Error")
}

// POST /repos/{owner}/{repo}/git/blobs
func (s *Server) createBlob(rc *reqCtx, r *repository) *reply {
	var req struct {
		Content  *string `json:"content"`
		Encoding string  `json:"encoding"`
	}
	if out := rc.decode(&req); out != nil {
		return out
	}
	if req.Content == nil {
		return unprocessable("Invalid request.\n\n\"content\" wasn't supplied.")
	}
	var content []byte
	switch req.Encoding {
	case "", "utf-8":
		content = []byte(*req.Content)
	case "base64":
		b, err := base64.StdEncoding.DecodeString(*req.Content)
		if err != nil {
			return unprocessable("Invalid request.\n\nContent is not valid Base64.")
		}
		content = b
	default:
		return unprocessable("Invalid request.\n\nencoding must be one of utf-8, base64.")
	}
	sha, err := r.store.putBlob(content)
	if err != nil {
		return storeFailure(err)
	}
	out := ok(http.StatusCreated, map[string]any{"sha": sha, "url": rc.repoAPI(r) + "/git/blobs/" + sha})
	out.header.Set("Location", rc.repoAPI(r)+"/git/blobs/"+sha)
	return out
}

// validTreePath rejects empty, absolute and dot segments.
func validTreePath(p string) bool {
	if p == "" || len(p) > 4096 {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if part == "" || part == "." || part == ".." || part == ".git" || strings.ContainsRune(part, 0) {
			return false
		}
	}
	return true
}

// removePath deletes a file or a whole directory from a flat tree.
func removePath(files map[string]leaf, p string) {
	delete(files, p)
	for k := range files {
		if strings.HasPrefix(k, p+"/") {
			delete(files, k)
		}
	}
}

// clearParents removes files standing where p needs directories.
func clearParents(files map[string]leaf, p string) {
	for i := strings.IndexByte(p, '/'); i >= 0; {
		delete(files, p[:i])
		next := strings.IndexByte(p[i+1:], '/')
		if next < 0 {
			break
		}
		i += next + 1
	}
}

// POST /repos/{owner}/{repo}/git/trees
func (s *Server) createTree(rc *reqCtx, r *repository) *reply {
	var req struct {
		BaseTree string                       `json:"base_tree"`
		Tree     []map[string]json.RawMessage `json:"tree"`
	}
	if out := rc.decode(&req); out != nil {
		return out
	}
	if req.Tree == nil {
		return unprocessable("Invalid request.\n\n\"tree\" wasn't supplied.")
	}
	files := map[string]leaf{}
	if req.BaseTree != "" {
		base, found := r.store.get(req.BaseTree, "")
		if !found {
			return unprocessable("base_tree " + req.BaseTree + " is not a valid tree")
		}
		treeSHA := req.BaseTree
		if base.Type == typeCommit {
			treeSHA = base.Commit.Tree
		} else if base.Type != typeTree {
			return unprocessable("base_tree " + req.BaseTree + " is not a valid tree")
		}
		if err := r.store.flatten(treeSHA, "", files); err != nil {
			return fail(http.StatusInternalServerError, "Server Error")
		}
	}
	for i, raw := range req.Tree {
		if out := s.applyTreeEntry(r, files, i, raw); out != nil {
			return out
		}
	}
	sha, err := r.store.buildTree(files)
	if err != nil {
		return storeFailure(err)
	}
	entries, _ := rc.treeEntries(r, sha, "", false, 0)
	out := ok(http.StatusCreated, map[string]any{
		"sha": sha, "url": rc.repoAPI(r) + "/git/trees/" + sha, "tree": entries, "truncated": false,
	})
	out.header.Set("Location", rc.repoAPI(r)+"/git/trees/"+sha)
	return out
}

// applyTreeEntry applies one entry of a create-tree request to a flat tree.
// The raw map distinguishes an explicit "sha": null (delete) from an absent sha.
func (s *Server) applyTreeEntry(r *repository, files map[string]leaf, i int, raw map[string]json.RawMessage) *reply {
	str := func(k string) (string, bool, *reply) {
		v, present := raw[k]
		if !present || string(v) == "null" {
			return "", false, nil
		}
		var out string
		if err := json.Unmarshal(v, &out); err != nil {
			return "", false, unprocessable("Invalid request.\n\nFor 'items', " + string(v) + " is not a string.")
		}
		return out, true, nil
	}
	p, hasPath, bad := str("path")
	if bad != nil {
		return bad
	}
	if !hasPath || !validTreePath(p) {
		return unprocessable("tree.path contains a malformed path component")
	}
	mode, hasMode, bad := str("mode")
	if bad != nil {
		return bad
	}
	typ, hasType, bad := str("type")
	if bad != nil {
		return bad
	}
	sha, hasSHA, bad := str("sha")
	if bad != nil {
		return bad
	}
	content, hasContent, bad := str("content")
	if bad != nil {
		return bad
	}
	_, shaPresent := raw["sha"]
	if !hasMode {
		mode = modeFile
		if typ == typeTree {
			mode = modeDir
		}
	}
	wantType := map[string]string{modeFile: typeBlob, modeExec: typeBlob, modeSymlink: typeBlob, modeDir: typeTree, modeModule: typeCommit}[mode]
	if wantType == "" {
		return unprocessable("tree.mode must be one of 100644, 100755, 040000, 160000, 120000")
	}
	if !hasType {
		typ = wantType
	}
	if typ != wantType {
		return unprocessable("tree.type " + typ + " does not match tree.mode " + mode)
	}
	switch {
	case hasSHA && hasContent:
		return unprocessable("Must supply either tree.sha or tree.content, not both")
	case shaPresent && !hasSHA && !hasContent:
		// "sha": null deletes the path (a file or a directory).
		removePath(files, p)
		return nil
	case !hasSHA && !hasContent:
		return unprocessable("Must supply either tree.sha or tree.content")
	}
	if hasContent {
		if typ != typeBlob {
			return unprocessable("tree.content is only valid for blobs")
		}
		blob, err := r.store.putBlob([]byte(content))
		if err != nil {
			return storeFailure(err)
		}
		sha = blob
	}
	switch typ {
	case typeBlob:
		if _, found := r.store.get(sha, typeBlob); !found {
			return unprocessable("tree.sha " + sha + " is not a valid blob")
		}
	case typeTree:
		if _, found := r.store.get(sha, typeTree); !found {
			return unprocessable("tree.sha " + sha + " is not a valid tree")
		}
	case typeCommit:
		if !shaRE.MatchString(sha) {
			return unprocessable("tree.sha " + sha + " is not a valid object id")
		}
	}
	removePath(files, p)
	clearParents(files, p)
	if typ == typeTree {
		sub := map[string]leaf{}
		if err := r.store.flatten(sha, p, sub); err != nil {
			return fail(http.StatusInternalServerError, "Server Error")
		}
		for k, v := range sub {
			files[k] = v
		}
		return nil
	}
	files[p] = leaf{Mode: mode, Type: typ, SHA: sha}
	return nil
}

type signatureRequest struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Date  string `json:"date"`
}

func (s *Server) signature(rc *reqCtx, req *signatureRequest, field string) (signature, *reply) {
	sig := signature{Name: rc.cred.login, Email: rc.cred.login + "@users.noreply.github.com", Date: s.now().UTC().Truncate(time.Second)}
	if req == nil {
		return sig, nil
	}
	if req.Name != "" {
		sig.Name = req.Name
	}
	if req.Email != "" {
		sig.Email = req.Email
	}
	if strings.ContainsAny(sig.Name+sig.Email, "<>\n\x00") {
		return sig, unprocessable("Invalid request.\n\n" + field + " name and email must not contain <, > or newlines.")
	}
	if req.Date != "" {
		t, err := time.Parse(time.RFC3339, req.Date)
		if err != nil {
			return sig, unprocessable("Invalid request.\n\n" + field + ".date " + req.Date + " is not an ISO 8601 timestamp.")
		}
		sig.Date = t
	}
	return sig, nil
}

// POST /repos/{owner}/{repo}/git/commits
func (s *Server) createCommit(rc *reqCtx, r *repository) *reply {
	var req struct {
		Message   *string           `json:"message"`
		Tree      string            `json:"tree"`
		Parents   []string          `json:"parents"`
		Author    *signatureRequest `json:"author"`
		Committer *signatureRequest `json:"committer"`
	}
	if out := rc.decode(&req); out != nil {
		return out
	}
	if req.Message == nil {
		return unprocessable("Invalid request.\n\n\"message\" wasn't supplied.")
	}
	if req.Tree == "" {
		return unprocessable("Invalid request.\n\n\"tree\" wasn't supplied.")
	}
	if _, found := r.store.get(req.Tree, typeTree); !found {
		return unprocessable("Tree SHA does not exist")
	}
	for _, p := range req.Parents {
		if _, found := r.store.commit(p); !found {
			return unprocessable("Parent SHA does not exist or is not a commit object")
		}
	}
	author, bad := s.signature(rc, req.Author, "author")
	if bad != nil {
		return bad
	}
	committer := author
	if req.Committer != nil {
		if committer, bad = s.signature(rc, req.Committer, "committer"); bad != nil {
			return bad
		}
	}
	c := &gitCommit{Tree: req.Tree, Parents: req.Parents, Author: author, Committer: committer, Message: *req.Message}
	sha, err := r.store.putCommit(c)
	if err != nil {
		return storeFailure(err)
	}
	stored, _ := r.store.commit(sha)
	out := ok(http.StatusCreated, rc.gitCommitJSON(r, sha, stored))
	out.header.Set("Location", rc.repoAPI(r)+"/git/commits/"+sha)
	return out
}

// validFullRef checks "refs/<kind>/<name>" names.
func validFullRef(name string) bool {
	rest, isRef := strings.CutPrefix(name, "refs/")
	if !isRef || !strings.Contains(rest, "/") {
		return false
	}
	return validRefName(rest)
}

// POST /repos/{owner}/{repo}/git/refs
func (s *Server) createRef(rc *reqCtx, r *repository) *reply {
	var req struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	}
	if out := rc.decode(&req); out != nil {
		return out
	}
	if req.Ref == "" || req.SHA == "" {
		return unprocessable("Invalid request.\n\n\"ref\" and \"sha\" must be supplied.")
	}
	if !validFullRef(req.Ref) {
		return unprocessable("Reference name is not valid: refs must look like refs/heads/<branch>")
	}
	if _, exists := r.refs[req.Ref]; exists {
		return unprocessable("Reference already exists")
	}
	if _, found := r.store.commit(req.SHA); !found {
		return unprocessable("Object does not exist")
	}
	if len(r.refs) >= maxRefs {
		return unprocessable("Reference limit of the simulator reached")
	}
	r.refs[req.Ref] = req.SHA
	out := ok(http.StatusCreated, rc.refJSON(r, req.Ref, req.SHA))
	out.header.Set("Location", rc.repoAPI(r)+"/git/"+escapePath(req.Ref))
	return out
}

// PATCH /repos/{owner}/{repo}/git/refs/{ref}
func (s *Server) updateRef(rc *reqCtx, r *repository) *reply {
	name := "refs/" + strings.TrimPrefix(rc.r.PathValue("ref"), "refs/")
	var req struct {
		SHA   string `json:"sha"`
		Force bool   `json:"force"`
	}
	if out := rc.decode(&req); out != nil {
		return out
	}
	if req.SHA == "" {
		return unprocessable("Invalid request.\n\n\"sha\" wasn't supplied.")
	}
	old, exists := r.refs[name]
	if !exists {
		return unprocessable("Reference does not exist")
	}
	if _, found := r.store.commit(req.SHA); !found {
		return unprocessable("Object does not exist")
	}
	if !req.Force && !r.store.ancestors(req.SHA)[old] {
		return unprocessable("Update is not a fast forward")
	}
	r.refs[name] = req.SHA
	return ok(http.StatusOK, rc.refJSON(r, name, req.SHA))
}

// DELETE /repos/{owner}/{repo}/git/refs/{ref}
func (s *Server) deleteRef(rc *reqCtx, r *repository) *reply {
	name := "refs/" + strings.TrimPrefix(rc.r.PathValue("ref"), "refs/")
	if _, exists := r.refs[name]; !exists {
		return unprocessable("Reference does not exist")
	}
	branch, isBranch := strings.CutPrefix(name, "refs/heads/")
	if isBranch && branch == r.defaultBranch {
		return unprocessable("Cannot delete the default branch")
	}
	if isBranch {
		// GitHub closes open pull requests whose head or base branch goes away.
		now := s.now().UTC()
		for _, iss := range r.issues {
			if iss.pr == nil || iss.state != "open" || (iss.pr.head != branch && iss.pr.base != branch) {
				continue
			}
			r.pullHeadSHA(iss.pr)
			iss.state, iss.closedAt, iss.updatedAt = "closed", now, now
		}
	}
	delete(r.refs, name)
	return ok(http.StatusNoContent, nil)
}
