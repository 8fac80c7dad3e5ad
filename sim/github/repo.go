package github

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"path"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/autoheal/autoheal/scenario"
)

// RepoSeed describes one repository the simulator serves.
type RepoSeed struct {
	Owner string
	Name  string
	// DefaultBranch is the branch holding Files; default "main".
	DefaultBranch string
	// Files are the repository's files at the deployed revision, by
	// slash-separated repo-relative path.
	Files map[string][]byte
	// Changes are recent commits, newest first, in the shape of
	// GET /repos/{o}/{r}/commits/{sha}. They are served verbatim by the
	// commits API but are not git objects (see Server).
	Changes []scenario.Commit
	// Date stamps the seed commit. Zero means the newest change's date, or
	// 2020-01-01 without changes, so object ids are reproducible.
	Date time.Time
	// Private marks the repository private in GET /repos/{o}/{r}.
	Private bool
}

var (
	ownerRE  = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$`)
	repoRE   = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)
	branchRE = regexp.MustCompile(`^[^\x00-\x20~^:?*\[\\]+$`)
)

// validRefName applies git's check-ref-format rules that matter here.
func validRefName(name string) bool {
	if name == "" || len(name) > 255 || !branchRE.MatchString(name) {
		return false
	}
	if strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".") ||
		strings.Contains(name, "..") || strings.Contains(name, "//") || strings.Contains(name, "@{") ||
		strings.HasSuffix(name, ".lock") {
		return false
	}
	for _, part := range strings.Split(name, "/") {
		if strings.HasPrefix(part, ".") {
			return false
		}
	}
	return true
}

// change is one seeded commit served by the commits API only.
type change struct {
	sha     string
	full    json.RawMessage // as given
	listing json.RawMessage // without files and stats, as the list endpoint serves it
	date    time.Time
	paths   []string
}

func (c *change) touches(p string) bool {
	for _, f := range c.paths {
		if f == p || strings.HasPrefix(f, p+"/") {
			return true
		}
	}
	return false
}

type comment struct {
	id        int64
	body      string
	user      string
	createdAt time.Time
	updatedAt time.Time
}

// pullInfo is the pull-request half of an issue.
type pullInfo struct {
	head                string // branch name in this repository
	base                string
	headSHA             string // last known head, kept when the branch is deleted
	draft               bool
	maintainerCanModify bool
	merged              bool
	mergedAt            time.Time
	mergeCommit         string
	baseAtMerge         string // base head when merged: the PR keeps its commits and diff
}

type issue struct {
	id        int64
	number    int
	title     string
	body      string
	state     string // open | closed
	labels    []string
	user      string
	createdAt time.Time
	updatedAt time.Time
	closedAt  time.Time
	comments  []*comment
	pr        *pullInfo // nil for plain issues
}

type repository struct {
	owner, name   string
	id            int64
	defaultBranch string
	private       bool
	createdAt     time.Time

	store   *objectStore
	refs    map[string]string // full ref name -> commit id
	seedSHA string

	changes     []*change
	changeIndex map[string]int

	issues     map[int]*issue
	nextNumber int
}

func (r *repository) fullName() string { return r.owner + "/" + r.name }

// stableID derives a positive numeric id from a string, so repeated runs
// serve the same ids.
func stableID(s string) int64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return int64(h.Sum64()>>34) + 1
}

func newRepository(seed RepoSeed, maxObjects int) (*repository, error) {
	if !ownerRE.MatchString(seed.Owner) || !repoRE.MatchString(seed.Name) {
		return nil, fmt.Errorf("repository %q/%q: invalid owner or name", seed.Owner, seed.Name)
	}
	branch := seed.DefaultBranch
	if branch == "" {
		branch = "main"
	}
	if !validRefName(branch) {
		return nil, fmt.Errorf("repository %s/%s: invalid default branch %q", seed.Owner, seed.Name, branch)
	}
	r := &repository{
		owner: seed.Owner, name: seed.Name, defaultBranch: branch, private: seed.Private,
		store:       newObjectStore(maxObjects),
		refs:        map[string]string{},
		changeIndex: map[string]int{},
		issues:      map[int]*issue{},
		nextNumber:  1,
	}
	r.id = stableID(r.fullName())

	for i, c := range seed.Changes {
		ch, err := newChange(c)
		if err != nil {
			return nil, fmt.Errorf("repository %s: change %d: %w", r.fullName(), i, err)
		}
		if _, dup := r.changeIndex[ch.sha]; dup {
			return nil, fmt.Errorf("repository %s: change %d: duplicate sha %s", r.fullName(), i, ch.sha)
		}
		r.changeIndex[ch.sha] = len(r.changes)
		r.changes = append(r.changes, ch)
	}

	files := map[string]leaf{}
	for p, content := range seed.Files {
		clean := path.Clean(strings.TrimPrefix(p, "/"))
		if clean == "." || strings.HasPrefix(clean, "../") || clean != strings.TrimPrefix(p, "/") {
			return nil, fmt.Errorf("repository %s: invalid file path %q", r.fullName(), p)
		}
		sha, err := r.store.putBlob(content)
		if err != nil {
			return nil, fmt.Errorf("repository %s: %w", r.fullName(), err)
		}
		files[clean] = leaf{Mode: modeFile, Type: typeBlob, SHA: sha}
	}
	treeSHA, err := r.store.buildTree(files)
	if err != nil {
		return nil, fmt.Errorf("repository %s: build tree: %w", r.fullName(), err)
	}

	date := seed.Date
	var parents []string
	if len(r.changes) > 0 {
		parents = []string{r.changes[0].sha}
		if date.IsZero() {
			date = r.changes[0].date
		}
	}
	if date.IsZero() {
		date = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	date = date.UTC().Truncate(time.Second)
	r.createdAt = date
	sig := signature{Name: "GitHub", Email: "noreply@github.com", Date: date}
	r.seedSHA, err = r.store.putCommit(&gitCommit{
		Tree: treeSHA, Parents: parents, Author: sig, Committer: sig,
		Message: "Deployed revision of " + r.fullName(),
	})
	if err != nil {
		return nil, fmt.Errorf("repository %s: seed commit: %w", r.fullName(), err)
	}
	r.refs["refs/heads/"+branch] = r.seedSHA
	return r, nil
}

var shaRE = regexp.MustCompile(`^[0-9a-f]{40}$`)

func newChange(c scenario.Commit) (*change, error) {
	sha := strings.ToLower(c.SHA)
	if !shaRE.MatchString(sha) {
		return nil, fmt.Errorf("sha %q is not a 40-digit hex object id", c.SHA)
	}
	full := c.Raw
	if len(full) == 0 {
		b, err := json.Marshal(c)
		if err != nil {
			return nil, fmt.Errorf("encode commit %s: %w", sha, err)
		}
		full = b
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(full, &fields); err != nil {
		return nil, fmt.Errorf("commit %s: %w", sha, err)
	}
	delete(fields, "files")
	delete(fields, "stats")
	listing, err := json.Marshal(fields)
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", sha, err)
	}
	ch := &change{sha: sha, full: full, listing: listing}

	// GitHub filters commit lists by committer date; fall back to the author's.
	var dates struct {
		Commit struct {
			Author    struct{ Date string } `json:"author"`
			Committer struct{ Date string } `json:"committer"`
		} `json:"commit"`
		Files []struct {
			Filename         string `json:"filename"`
			PreviousFilename string `json:"previous_filename"`
		} `json:"files"`
	}
	if err := json.Unmarshal(full, &dates); err != nil {
		return nil, fmt.Errorf("commit %s: %w", sha, err)
	}
	for _, d := range []string{dates.Commit.Committer.Date, dates.Commit.Author.Date} {
		if d == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339, d)
		if err != nil {
			return nil, fmt.Errorf("commit %s: date %q: %w", sha, d, err)
		}
		ch.date = t.UTC()
		break
	}
	for _, f := range dates.Files {
		if f.Filename != "" {
			ch.paths = append(ch.paths, f.Filename)
		}
		if f.PreviousFilename != "" {
			ch.paths = append(ch.paths, f.PreviousFilename)
		}
	}
	return ch, nil
}

// resolveCommit maps a branch name, a ref ("heads/x", "refs/heads/x"), a full
// or an abbreviated (≥ 7 digits) commit id onto a commit of the object graph.
func (r *repository) resolveCommit(ref string) (string, bool) {
	if ref == "" {
		ref = r.defaultBranch
	}
	if _, ok := r.store.commit(ref); ok {
		return ref, true
	}
	for _, name := range []string{ref, "refs/" + ref, "refs/heads/" + ref, "refs/tags/" + ref} {
		if sha, ok := r.refs[name]; ok {
			return sha, true
		}
	}
	if len(ref) >= 7 && len(ref) < 40 && isHex(ref) {
		var found string
		for sha, o := range r.store.objects {
			if o.Type == typeCommit && strings.HasPrefix(sha, ref) {
				if found != "" {
					return "", false // ambiguous
				}
				found = sha
			}
		}
		return found, found != ""
	}
	return "", false
}

// resolveChange finds a seeded change by full or abbreviated id.
func (r *repository) resolveChange(ref string) (int, bool) {
	ref = strings.ToLower(ref)
	if i, ok := r.changeIndex[ref]; ok {
		return i, true
	}
	if len(ref) < 7 || !isHex(ref) {
		return 0, false
	}
	found := -1
	for i, c := range r.changes {
		if strings.HasPrefix(c.sha, ref) {
			if found >= 0 {
				return 0, false
			}
			found = i
		}
	}
	return found, found >= 0
}

func isHex(s string) bool {
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// resolveRevision is resolveCommit for reading files: the newest seeded
// change also names the seed commit, whose tree is the state after it.
// (The commits API keeps serving that change verbatim.)
func (r *repository) resolveRevision(ref string) (string, bool) {
	if sha, ok := r.resolveCommit(ref); ok {
		return sha, true
	}
	if i, ok := r.resolveChange(ref); ok && i == 0 {
		return r.seedSHA, true
	}
	return "", false
}

// resolveTree maps a tree id, or anything resolveRevision accepts, onto a tree.
func (r *repository) resolveTree(ref string) (string, bool) {
	if _, ok := r.store.get(ref, typeTree); ok {
		return ref, true
	}
	sha, ok := r.resolveRevision(ref)
	if !ok {
		return "", false
	}
	c, _ := r.store.commit(sha)
	return c.Tree, true
}

// branchHead returns the commit a branch points at.
func (r *repository) branchHead(branch string) (string, bool) {
	sha, ok := r.refs["refs/heads/"+branch]
	return sha, ok
}

// touches reports whether commit sha changed path relative to its first
// parent (a root commit touches everything it contains).
func (r *repository) touches(sha, p string) bool {
	c, ok := r.store.commit(sha)
	if !ok {
		return false
	}
	cur, inCur := r.store.lookup(c.Tree, p)
	if len(c.Parents) == 0 {
		return inCur
	}
	pc, ok := r.store.commit(c.Parents[0])
	if !ok {
		// The parent is seeded history outside the graph: the seed commit
		// stands for that revision, so it changes nothing.
		return false
	}
	prev, inPrev := r.store.lookup(pc.Tree, p)
	return inCur != inPrev || cur.SHA != prev.SHA || cur.Mode != prev.Mode
}

// fileChange is one entry of a diff between two trees.
type fileChange struct {
	Path      string
	Status    string // added | removed | modified
	SHA       string // blob id after the change (before it, for removals)
	Patch     string
	Additions int
	Deletions int
}

// diffTrees compares two trees ("" is the empty tree) file by file.
func (r *repository) diffTrees(oldTree, newTree string) ([]fileChange, error) {
	oldFiles, newFiles := map[string]leaf{}, map[string]leaf{}
	if oldTree != "" {
		if err := r.store.flatten(oldTree, "", oldFiles); err != nil {
			return nil, err
		}
	}
	if newTree != "" {
		if err := r.store.flatten(newTree, "", newFiles); err != nil {
			return nil, err
		}
	}
	paths := map[string]bool{}
	for p := range oldFiles {
		paths[p] = true
	}
	for p := range newFiles {
		paths[p] = true
	}
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	var out []fileChange
	for _, p := range sorted {
		o, inOld := oldFiles[p]
		n, inNew := newFiles[p]
		if inOld && inNew && o.SHA == n.SHA && o.Mode == n.Mode {
			continue
		}
		fc := fileChange{Path: p}
		var before, after []byte
		switch {
		case !inOld:
			fc.Status, fc.SHA = "added", n.SHA
		case !inNew:
			fc.Status, fc.SHA = "removed", o.SHA
		default:
			fc.Status, fc.SHA = "modified", n.SHA
		}
		if inOld && o.Type == typeBlob {
			before = r.store.objects[o.SHA].Blob
		}
		if inNew && n.Type == typeBlob {
			after = r.store.objects[n.SHA].Blob
		}
		fc.Patch, fc.Additions, fc.Deletions = unifiedDiff(before, after)
		out = append(out, fc)
	}
	return out, nil
}

// commitDiff is the change a commit introduces relative to its first parent.
func (r *repository) commitDiff(sha string) ([]fileChange, error) {
	c, ok := r.store.commit(sha)
	if !ok {
		return nil, fmt.Errorf("commit %s not found", sha)
	}
	parentTree := ""
	if len(c.Parents) > 0 {
		pc, ok := r.store.commit(c.Parents[0])
		if !ok {
			return nil, nil // parent is seeded history: see touches
		}
		parentTree = pc.Tree
	}
	return r.diffTrees(parentTree, c.Tree)
}

// fileAt returns a file's content at a ref.
func (r *repository) fileAt(ref, p string) ([]byte, bool) {
	tree, ok := r.resolveTree(ref)
	if !ok {
		return nil, false
	}
	e, ok := r.store.lookup(tree, strings.Trim(p, "/"))
	if !ok || e.Type != typeBlob {
		return nil, false
	}
	return r.store.objects[e.SHA].Blob, true
}

// pullHeadSHA is the current head of a PR: its branch while it exists.
func (r *repository) pullHeadSHA(pr *pullInfo) string {
	if sha, ok := r.branchHead(pr.head); ok {
		pr.headSHA = sha
	}
	return pr.headSHA
}
