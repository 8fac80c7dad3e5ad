package github

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"sort"
	"strings"
	"time"
)

const (
	// maxInlineContent is the largest file the Contents API returns inline;
	// GitHub sends encoding "none" and no content above 1 MB.
	maxInlineContent = 1 << 20
	// maxTreeEntries mirrors GitHub's recursive tree limit.
	maxTreeEntries = 100_000
)

// GET /repos/{owner}/{repo}
func (s *Server) getRepo(rc *reqCtx, r *repository) *reply {
	return ok(http.StatusOK, rc.repoJSON(r))
}

func wantsRaw(req *http.Request) bool {
	a := req.Header.Get("Accept")
	return strings.Contains(a, "application/vnd.github.raw") || strings.Contains(a, "application/vnd.github.v3.raw")
}

func contentType(e treeEntry) string {
	switch e.Mode {
	case modeDir:
		return "dir"
	case modeSymlink:
		return "symlink"
	case modeModule:
		return "submodule"
	default:
		return "file"
	}
}

func (rc *reqCtx) contentEntry(r *repository, commit, ref, p string, e treeEntry) map[string]any {
	q := ""
	if rc.r.URL.Query().Get("ref") != "" {
		q = "?ref=" + ref
	}
	typ := contentType(e)
	self := rc.repoAPI(r) + "/contents/" + escapePath(p) + q
	gitURL := rc.repoAPI(r) + "/git/blobs/" + e.SHA
	htmlURL := rc.repoWeb(r) + "/blob/" + ref + "/" + escapePath(p)
	var download any
	size := 0
	if typ == "dir" {
		gitURL = rc.repoAPI(r) + "/git/trees/" + e.SHA
		htmlURL = rc.repoWeb(r) + "/tree/" + ref + "/" + escapePath(p)
	} else if o, found := r.store.get(e.SHA, typeBlob); found {
		size = len(o.Blob)
		download = strings.TrimSuffix(rc.api, enterprisePrefix) + "/raw/" + r.owner + "/" + r.name + "/" + commit + "/" + escapePath(p)
	}
	return map[string]any{
		"type": typ, "size": size, "name": path.Base(p), "path": p, "sha": e.SHA,
		"url": self, "git_url": gitURL, "html_url": htmlURL, "download_url": download,
		"_links": map[string]string{"self": self, "git": gitURL, "html": htmlURL},
	}
}

// GET /repos/{owner}/{repo}/contents/{path}?ref=
func (s *Server) getContents(rc *reqCtx, r *repository) *reply {
	p := strings.Trim(rc.r.PathValue("path"), "/")
	ref := rc.r.URL.Query().Get("ref")
	if ref == "" {
		ref = r.defaultBranch
	}
	commit, found := r.resolveRevision(ref)
	if !found {
		return fail(http.StatusNotFound, "No commit found for the ref "+ref)
	}
	c, _ := r.store.commit(commit)
	e, found := r.store.lookup(c.Tree, p)
	if !found {
		return notFound()
	}
	if e.Type == typeTree {
		t, _ := r.store.get(e.SHA, typeTree)
		entries := make([]map[string]any, 0, len(t.Tree))
		for _, child := range t.Tree {
			cp := child.Name
			if p != "" {
				cp = p + "/" + child.Name
			}
			entries = append(entries, rc.contentEntry(r, commit, ref, cp, child))
		}
		return ok(http.StatusOK, entries)
	}
	if e.Type != typeBlob {
		return ok(http.StatusOK, rc.contentEntry(r, commit, ref, p, e))
	}
	blob := r.store.objects[e.SHA].Blob
	if wantsRaw(rc.r) {
		out := ok(http.StatusOK, nil)
		out.raw = blob
		out.header.Set("Content-Type", "application/vnd.github.raw")
		return out
	}
	doc := rc.contentEntry(r, commit, ref, p, e)
	if len(blob) > maxInlineContent {
		doc["encoding"], doc["content"] = "none", ""
	} else {
		doc["encoding"], doc["content"] = "base64", encodeContent(blob)
	}
	return ok(http.StatusOK, doc)
}

// GET /raw/{owner}/{repo}/{ref}/{path}: the download_url of a file.
func (s *Server) getRaw(rc *reqCtx, r *repository) *reply {
	b, found := r.fileAt(rc.r.PathValue("ref"), rc.r.PathValue("path"))
	if !found {
		return notFound()
	}
	out := ok(http.StatusOK, nil)
	out.raw = b
	out.header.Set("Content-Type", "text/plain; charset=utf-8")
	return out
}

// GET /repos/{owner}/{repo}/git/trees/{sha-or-ref}?recursive=1
func (s *Server) getTree(rc *reqCtx, r *repository) *reply {
	ref := rc.r.PathValue("ref")
	sha, found := r.resolveTree(ref)
	if !found {
		return notFound()
	}
	recursive := rc.r.URL.Query().Get("recursive") != ""
	entries, truncated := rc.treeEntries(r, sha, "", recursive, 0)
	return ok(http.StatusOK, map[string]any{
		"sha": sha, "url": rc.repoAPI(r) + "/git/trees/" + sha, "tree": entries, "truncated": truncated,
	})
}

func (rc *reqCtx) treeEntries(r *repository, sha, prefix string, recursive bool, have int) ([]map[string]any, bool) {
	t, found := r.store.get(sha, typeTree)
	if !found {
		return nil, false
	}
	out := []map[string]any{}
	for _, e := range t.Tree {
		if have+len(out) >= maxTreeEntries {
			return out, true
		}
		p := e.Name
		if prefix != "" {
			p = prefix + "/" + e.Name
		}
		entry := map[string]any{"path": p, "mode": e.Mode, "type": e.Type, "sha": e.SHA}
		switch e.Type {
		case typeBlob:
			entry["size"] = len(r.store.objects[e.SHA].Blob)
			entry["url"] = rc.repoAPI(r) + "/git/blobs/" + e.SHA
		case typeTree:
			entry["url"] = rc.repoAPI(r) + "/git/trees/" + e.SHA
		}
		out = append(out, entry)
		if recursive && e.Type == typeTree {
			sub, truncated := rc.treeEntries(r, e.SHA, p, true, have+len(out))
			out = append(out, sub...)
			if truncated {
				return out, true
			}
		}
	}
	return out, false
}

// GET /repos/{owner}/{repo}/git/blobs/{sha}
func (s *Server) getBlob(rc *reqCtx, r *repository) *reply {
	sha := rc.r.PathValue("sha")
	o, found := r.store.get(sha, typeBlob)
	if !found {
		return notFound()
	}
	if wantsRaw(rc.r) {
		out := ok(http.StatusOK, nil)
		out.raw = o.Blob
		return out
	}
	return ok(http.StatusOK, map[string]any{
		"sha": sha, "node_id": "B_" + sha[:20], "size": len(o.Blob),
		"url": rc.repoAPI(r) + "/git/blobs/" + sha, "content": encodeContent(o.Blob), "encoding": "base64",
	})
}

// GET /repos/{owner}/{repo}/git/commits/{sha}
func (s *Server) getGitCommit(rc *reqCtx, r *repository) *reply {
	sha := rc.r.PathValue("sha")
	c, found := r.store.commit(sha)
	if !found {
		return notFound()
	}
	return ok(http.StatusOK, rc.gitCommitJSON(r, sha, c))
}

func parseTimeParam(rc *reqCtx, name string) (time.Time, *reply) {
	v := rc.r.URL.Query().Get(name)
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, invalid(fieldError{Field: name, Code: "invalid", Message: fmt.Sprintf("%s %q is not an ISO 8601 timestamp", name, v)})
	}
	return t, nil
}

// listedCommit is one entry of a commit listing: a graph commit or a
// seeded change.
type listedCommit struct {
	sha    string
	commit *gitCommit
	change *change
}

// GET /repos/{owner}/{repo}/commits?sha=&path=&since=&until=&per_page=&page=
func (s *Server) listCommits(rc *reqCtx, r *repository) *reply {
	q := rc.r.URL.Query()
	since, bad := parseTimeParam(rc, "since")
	if bad != nil {
		return bad
	}
	until, bad := parseTimeParam(rc, "until")
	if bad != nil {
		return bad
	}
	p := strings.Trim(q.Get("path"), "/")
	inWindow := func(t time.Time) bool {
		return (since.IsZero() || !t.Before(since)) && (until.IsZero() || !t.After(until))
	}
	var items []listedCommit
	addChanges := func(from int) {
		for _, ch := range r.changes[from:] {
			if inWindow(ch.date) && (p == "" || ch.touches(p)) {
				items = append(items, listedCommit{sha: ch.sha, change: ch})
			}
		}
	}
	ref := q.Get("sha")
	if start, found := r.resolveCommit(ref); found {
		r.store.walk(start, func(sha string, c *gitCommit) bool {
			if sha == r.seedSHA && len(r.changes) > 0 {
				// The seed commit stands for the newest seeded change.
				addChanges(0)
				return true
			}
			if inWindow(c.Committer.Date) && (p == "" || r.touches(sha, p)) {
				items = append(items, listedCommit{sha: sha, commit: c})
			}
			return true
		})
	} else if i, found := r.resolveChange(ref); found {
		addChanges(i)
	} else {
		return fail(http.StatusNotFound, "No commit found for SHA: "+ref)
	}

	out := ok(http.StatusOK, nil)
	lo, hi, bad := rc.paginate(len(items), out)
	if bad != nil {
		return bad
	}
	page := make([]json.RawMessage, 0, hi-lo)
	for _, it := range items[lo:hi] {
		if it.change != nil {
			page = append(page, it.change.listing)
			continue
		}
		b, err := json.Marshal(rc.repoCommitJSON(r, it.sha, it.commit, nil))
		if err != nil {
			return fail(http.StatusInternalServerError, "Server Error")
		}
		page = append(page, b)
	}
	out.body = page
	return out
}

// GET /repos/{owner}/{repo}/commits/{ref}
func (s *Server) getCommit(rc *reqCtx, r *repository) *reply {
	ref := rc.r.PathValue("ref")
	if sha, found := r.resolveCommit(ref); found {
		c, _ := r.store.commit(sha)
		files, err := r.commitDiff(sha)
		if err != nil {
			return fail(http.StatusInternalServerError, "Server Error")
		}
		if files == nil {
			files = []fileChange{}
		}
		return ok(http.StatusOK, rc.repoCommitJSON(r, sha, c, files))
	}
	if i, found := r.resolveChange(ref); found {
		return ok(http.StatusOK, r.changes[i].full)
	}
	return fail(http.StatusUnprocessableEntity, "No commit found for SHA: "+ref)
}

// GET /repos/{owner}/{repo}/branches
func (s *Server) listBranches(rc *reqCtx, r *repository) *reply {
	names := r.branchNames()
	items := make([]map[string]any, 0, len(names))
	for _, n := range names {
		sha := r.refs["refs/heads/"+n]
		items = append(items, map[string]any{
			"name": n, "protected": false,
			"commit": map[string]any{"sha": sha, "url": rc.repoAPI(r) + "/commits/" + sha},
		})
	}
	return listReply(rc, items)
}

func (r *repository) branchNames() []string {
	var names []string
	for ref := range r.refs {
		if n, isBranch := strings.CutPrefix(ref, "refs/heads/"); isBranch {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// GET /repos/{owner}/{repo}/branches/{branch}
func (s *Server) getBranch(rc *reqCtx, r *repository) *reply {
	name := rc.r.PathValue("branch")
	sha, found := r.branchHead(name)
	if !found {
		return fail(http.StatusNotFound, "Branch not found")
	}
	c, _ := r.store.commit(sha)
	return ok(http.StatusOK, map[string]any{
		"name": name, "commit": rc.repoCommitJSON(r, sha, c, nil), "protected": false,
		"protection":     map[string]any{"enabled": false, "required_status_checks": map[string]any{"enforcement_level": "off", "contexts": []string{}, "checks": []string{}}},
		"protection_url": rc.repoAPI(r) + "/branches/" + escapePath(name) + "/protection",
		"_links": map[string]string{
			"self": rc.repoAPI(r) + "/branches/" + escapePath(name),
			"html": rc.repoWeb(r) + "/tree/" + escapePath(name),
		},
	})
}

// GET /repos/{owner}/{repo}/git/ref/{ref}
func (s *Server) getRef(rc *reqCtx, r *repository) *reply {
	name := "refs/" + strings.TrimPrefix(rc.r.PathValue("ref"), "refs/")
	sha, found := r.refs[name]
	if !found {
		return notFound()
	}
	return ok(http.StatusOK, rc.refJSON(r, name, sha))
}

func (r *repository) refsWithPrefix(prefix string) []string {
	var names []string
	for name := range r.refs {
		if strings.HasPrefix(name, prefix) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// GET /repos/{owner}/{repo}/git/matching-refs/{ref}
func (s *Server) matchingRefs(rc *reqCtx, r *repository) *reply {
	prefix := "refs/" + strings.TrimPrefix(rc.r.PathValue("ref"), "refs/")
	names := r.refsWithPrefix(prefix)
	items := make([]map[string]any, 0, len(names))
	for _, n := range names {
		items = append(items, rc.refJSON(r, n, r.refs[n]))
	}
	return listReply(rc, items)
}

// GET /repos/{owner}/{repo}/git/refs[/{ref}]: the older endpoint answers an
// exact match with one object and a prefix with an array.
func (s *Server) legacyRefs(rc *reqCtx, r *repository) *reply {
	ref := strings.TrimPrefix(rc.r.PathValue("ref"), "refs/")
	name := "refs/" + ref
	if sha, found := r.refs[name]; found && ref != "" {
		return ok(http.StatusOK, rc.refJSON(r, name, sha))
	}
	prefix := name
	if ref != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	names := r.refsWithPrefix(prefix)
	if len(names) == 0 {
		return notFound()
	}
	items := make([]map[string]any, 0, len(names))
	for _, n := range names {
		items = append(items, rc.refJSON(r, n, r.refs[n]))
	}
	return listReply(rc, items)
}

// GET /repos/{owner}/{repo}/compare/{base}...{head}
func (s *Server) compare(rc *reqCtx, r *repository) *reply {
	basehead := rc.r.PathValue("basehead")
	base, head, found := strings.Cut(basehead, "...")
	if !found {
		return notFound()
	}
	// Same-repository "owner:branch" heads are accepted, as on GitHub.
	if o, b, hasOwner := strings.Cut(head, ":"); hasOwner && strings.EqualFold(o, r.owner) {
		head = b
	}
	baseSHA, okBase := r.resolveRevision(base)
	headSHA, okHead := r.resolveRevision(head)
	if !okBase || !okHead {
		return notFound()
	}
	mb := r.store.mergeBase(baseSHA, headSHA)
	if mb == "" {
		return fail(http.StatusNotFound, fmt.Sprintf("No common ancestor between %s and %s.", base, head))
	}
	ahead := r.store.commitsBetween(baseSHA, headSHA)
	behind := r.store.commitsBetween(headSHA, baseSHA)
	status := "diverged"
	switch {
	case len(ahead) == 0 && len(behind) == 0:
		status = "identical"
	case len(behind) == 0:
		status = "ahead"
	case len(ahead) == 0:
		status = "behind"
	}
	mbc, _ := r.store.commit(mb)
	hc, _ := r.store.commit(headSHA)
	bc, _ := r.store.commit(baseSHA)
	files, err := r.diffTrees(mbc.Tree, hc.Tree)
	if err != nil {
		return fail(http.StatusInternalServerError, "Server Error")
	}
	commits := make([]map[string]any, 0, min(len(ahead), 250))
	for _, sha := range ahead[:min(len(ahead), 250)] {
		c, _ := r.store.commit(sha)
		commits = append(commits, rc.repoCommitJSON(r, sha, c, nil))
	}
	return ok(http.StatusOK, map[string]any{
		"url":               rc.repoAPI(r) + "/compare/" + basehead,
		"html_url":          rc.repoWeb(r) + "/compare/" + basehead,
		"permalink_url":     rc.repoWeb(r) + "/compare/" + baseSHA[:7] + "..." + headSHA[:7],
		"diff_url":          rc.repoWeb(r) + "/compare/" + basehead + ".diff",
		"patch_url":         rc.repoWeb(r) + "/compare/" + basehead + ".patch",
		"base_commit":       rc.repoCommitJSON(r, baseSHA, bc, nil),
		"merge_base_commit": rc.repoCommitJSON(r, mb, mbc, nil),
		"status":            status, "ahead_by": len(ahead), "behind_by": len(behind),
		"total_commits": len(ahead), "commits": commits, "files": rc.filesJSON(r, headSHA, files),
	})
}
