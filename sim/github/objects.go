package github

import (
	"bytes"
	"container/heap"
	"crypto/sha1" //nolint:gosec // git object ids are SHA-1 by definition
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Git object types as they appear in the wire format and in object headers.
const (
	typeBlob   = "blob"
	typeTree   = "tree"
	typeCommit = "commit"
)

// Tree entry modes as the REST API spells them.
const (
	modeFile    = "100644"
	modeExec    = "100755"
	modeDir     = "040000"
	modeModule  = "160000"
	modeSymlink = "120000"
)

// emptyTreeSHA is git's well-known id of the empty tree.
const emptyTreeSHA = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

type treeEntry struct {
	Name string
	Mode string
	Type string
	SHA  string
}

type signature struct {
	Name  string
	Email string
	Date  time.Time
}

type gitCommit struct {
	Tree      string
	Parents   []string
	Author    signature
	Committer signature
	Message   string
}

// object is one git object. Exactly one of the payload fields is set,
// according to Type.
type object struct {
	Type   string
	Blob   []byte
	Tree   []treeEntry // sorted in git order
	Commit *gitCommit
}

// hashObject returns the git object id of a payload: sha1("<type> <len>\0" + body).
func hashObject(typ string, body []byte) string {
	h := sha1.New() //nolint:gosec // git object ids are SHA-1 by definition
	fmt.Fprintf(h, "%s %d\x00", typ, len(body))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// gitTreeLess is git's tree ordering: directories compare as if their name
// ended with '/'.
func gitTreeLess(a, b treeEntry) bool {
	an, bn := a.Name, b.Name
	if a.Type == typeTree {
		an += "/"
	}
	if b.Type == typeTree {
		bn += "/"
	}
	return an < bn
}

// encodeTree serializes entries (which must be sorted) in git's binary tree format.
func encodeTree(entries []treeEntry) ([]byte, error) {
	var buf bytes.Buffer
	for _, e := range entries {
		raw, err := hex.DecodeString(e.SHA)
		if err != nil || len(raw) != sha1.Size {
			return nil, fmt.Errorf("tree entry %q: invalid object id %q", e.Name, e.SHA)
		}
		// git writes directory modes without the leading zero.
		fmt.Fprintf(&buf, "%s %s\x00", strings.TrimPrefix(e.Mode, "0"), e.Name)
		buf.Write(raw)
	}
	return buf.Bytes(), nil
}

func formatSignature(s signature) string {
	return fmt.Sprintf("%s <%s> %d %s", s.Name, s.Email, s.Date.Unix(), s.Date.Format("-0700"))
}

// encodeCommit serializes a commit in git's text format.
func encodeCommit(c *gitCommit) []byte {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "tree %s\n", c.Tree)
	for _, p := range c.Parents {
		fmt.Fprintf(&buf, "parent %s\n", p)
	}
	fmt.Fprintf(&buf, "author %s\n", formatSignature(c.Author))
	fmt.Fprintf(&buf, "committer %s\n", formatSignature(c.Committer))
	buf.WriteString("\n")
	buf.WriteString(c.Message)
	return buf.Bytes()
}

// objectStore holds a repository's objects by id. It is not safe for
// concurrent use; the server's lock guards it.
type objectStore struct {
	objects map[string]*object
	max     int
}

func newObjectStore(max int) *objectStore {
	return &objectStore{objects: map[string]*object{}, max: max}
}

var errObjectLimit = fmt.Errorf("object limit reached")

func (s *objectStore) put(sha string, o *object) (string, error) {
	if _, ok := s.objects[sha]; ok {
		return sha, nil
	}
	if s.max > 0 && len(s.objects) >= s.max {
		return "", fmt.Errorf("store %s %s: %w (%d objects)", o.Type, sha, errObjectLimit, s.max)
	}
	s.objects[sha] = o
	return sha, nil
}

func (s *objectStore) putBlob(content []byte) (string, error) {
	c := append([]byte(nil), content...)
	return s.put(hashObject(typeBlob, c), &object{Type: typeBlob, Blob: c})
}

func (s *objectStore) putTree(entries []treeEntry) (string, error) {
	sorted := append([]treeEntry(nil), entries...)
	sort.Slice(sorted, func(i, j int) bool { return gitTreeLess(sorted[i], sorted[j]) })
	body, err := encodeTree(sorted)
	if err != nil {
		return "", err
	}
	return s.put(hashObject(typeTree, body), &object{Type: typeTree, Tree: sorted})
}

func (s *objectStore) putCommit(c *gitCommit) (string, error) {
	cp := *c
	cp.Parents = append([]string(nil), c.Parents...)
	return s.put(hashObject(typeCommit, encodeCommit(&cp)), &object{Type: typeCommit, Commit: &cp})
}

func (s *objectStore) get(sha, typ string) (*object, bool) {
	o, ok := s.objects[sha]
	if !ok || (typ != "" && o.Type != typ) {
		return nil, false
	}
	return o, true
}

func (s *objectStore) commit(sha string) (*gitCommit, bool) {
	o, ok := s.get(sha, typeCommit)
	if !ok {
		return nil, false
	}
	return o.Commit, true
}

// leaf is a non-tree entry of a flattened tree.
type leaf struct {
	Mode string
	Type string
	SHA  string
}

// flatten lists every non-tree entry under treeSHA by full path.
func (s *objectStore) flatten(treeSHA, prefix string, out map[string]leaf) error {
	o, ok := s.get(treeSHA, typeTree)
	if !ok {
		return fmt.Errorf("tree %s not found", treeSHA)
	}
	for _, e := range o.Tree {
		p := e.Name
		if prefix != "" {
			p = prefix + "/" + e.Name
		}
		if e.Type == typeTree {
			if err := s.flatten(e.SHA, p, out); err != nil {
				return err
			}
			continue
		}
		out[p] = leaf{Mode: e.Mode, Type: e.Type, SHA: e.SHA}
	}
	return nil
}

// buildTree stores the nested trees for a flat path→leaf map and returns
// the root tree id.
func (s *objectStore) buildTree(files map[string]leaf) (string, error) {
	type dir struct {
		files map[string]leaf
		dirs  map[string]*dir
	}
	newDir := func() *dir { return &dir{files: map[string]leaf{}, dirs: map[string]*dir{}} }
	root := newDir()
	for p, l := range files {
		parts := strings.Split(p, "/")
		d := root
		for _, part := range parts[:len(parts)-1] {
			sub, ok := d.dirs[part]
			if !ok {
				sub = newDir()
				d.dirs[part] = sub
			}
			d = sub
		}
		d.files[parts[len(parts)-1]] = l
	}
	var store func(d *dir) (string, error)
	store = func(d *dir) (string, error) {
		entries := make([]treeEntry, 0, len(d.files)+len(d.dirs))
		for name, l := range d.files {
			entries = append(entries, treeEntry{Name: name, Mode: l.Mode, Type: l.Type, SHA: l.SHA})
		}
		for name, sub := range d.dirs {
			sha, err := store(sub)
			if err != nil {
				return "", err
			}
			entries = append(entries, treeEntry{Name: name, Mode: modeDir, Type: typeTree, SHA: sha})
		}
		return s.putTree(entries)
	}
	return store(root)
}

// lookup finds the entry at path under treeSHA; the empty path is the tree itself.
func (s *objectStore) lookup(treeSHA, path string) (treeEntry, bool) {
	cur := treeEntry{Mode: modeDir, Type: typeTree, SHA: treeSHA}
	if path == "" {
		return cur, true
	}
	for _, part := range strings.Split(path, "/") {
		if cur.Type != typeTree || part == "" {
			return treeEntry{}, false
		}
		o, ok := s.get(cur.SHA, typeTree)
		if !ok {
			return treeEntry{}, false
		}
		found := false
		for _, e := range o.Tree {
			if e.Name == part {
				cur, found = e, true
				break
			}
		}
		if !found {
			return treeEntry{}, false
		}
	}
	return cur, true
}

// ancestors returns every commit reachable from sha (inclusive) inside the
// object graph. Parents outside the graph (seeded history) are skipped.
func (s *objectStore) ancestors(sha string) map[string]bool {
	seen := map[string]bool{}
	stack := []string{sha}
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[cur] {
			continue
		}
		c, ok := s.commit(cur)
		if !ok {
			continue
		}
		seen[cur] = true
		stack = append(stack, c.Parents...)
	}
	return seen
}

// mergeBase returns the nearest commit reachable from head that is also
// reachable from base (breadth first), or "" when there is none.
func (s *objectStore) mergeBase(base, head string) string {
	inBase := s.ancestors(base)
	seen := map[string]bool{}
	queue := []string{head}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if seen[cur] {
			continue
		}
		seen[cur] = true
		if inBase[cur] {
			return cur
		}
		if c, ok := s.commit(cur); ok {
			queue = append(queue, c.Parents...)
		}
	}
	return ""
}

// commitsBetween lists commits reachable from head but not from base,
// parents before children (the order GitHub uses for compare and PR commits).
func (s *objectStore) commitsBetween(base, head string) []string {
	exclude := s.ancestors(base)
	var out []string
	done := map[string]bool{}
	var visit func(sha string)
	visit = func(sha string) {
		if done[sha] || exclude[sha] {
			return
		}
		done[sha] = true
		c, ok := s.commit(sha)
		if !ok {
			return
		}
		for _, p := range c.Parents {
			visit(p)
		}
		out = append(out, sha)
	}
	visit(head)
	return out
}

// commitHeap orders commits newest committer date first, like git log.
type commitHeap struct {
	shas  []string
	dates []time.Time
}

func (h *commitHeap) Len() int           { return len(h.shas) }
func (h *commitHeap) Less(i, j int) bool { return h.dates[i].After(h.dates[j]) }
func (h *commitHeap) Swap(i, j int) {
	h.shas[i], h.shas[j] = h.shas[j], h.shas[i]
	h.dates[i], h.dates[j] = h.dates[j], h.dates[i]
}
func (h *commitHeap) Push(x any) {
	e := x.(heapItem)
	h.shas = append(h.shas, e.sha)
	h.dates = append(h.dates, e.date)
}
func (h *commitHeap) Pop() any {
	n := len(h.shas) - 1
	e := heapItem{sha: h.shas[n], date: h.dates[n]}
	h.shas, h.dates = h.shas[:n], h.dates[:n]
	return e
}

type heapItem struct {
	sha  string
	date time.Time
}

// walk visits graph commits reachable from start, newest committer date
// first, until visit returns false.
func (s *objectStore) walk(start string, visit func(sha string, c *gitCommit) bool) {
	h := &commitHeap{}
	seen := map[string]bool{}
	push := func(sha string) {
		if seen[sha] {
			return
		}
		c, ok := s.commit(sha)
		if !ok {
			return
		}
		seen[sha] = true
		heap.Push(h, heapItem{sha: sha, date: c.Committer.Date})
	}
	push(start)
	for h.Len() > 0 {
		it := heap.Pop(h).(heapItem)
		c, _ := s.commit(it.sha)
		if !visit(it.sha, c) {
			return
		}
		for _, p := range c.Parents {
			push(p)
		}
	}
}
