package github

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHashObjectKnownIDs(t *testing.T) {
	// Ids every git installation agrees on.
	assert.Equal(t, "ce013625030ba8dba906f756967f9e9ca394464a", hashObject(typeBlob, []byte("hello\n")))
	assert.Equal(t, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391", hashObject(typeBlob, nil))
	st := newObjectStore(0)
	sha, err := st.putTree(nil)
	require.NoError(t, err)
	assert.Equal(t, emptyTreeSHA, sha)
}

// git runs the git binary in dir with a fixed identity and clock.
func git(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

// TestObjectsMatchGit checks blob, tree and commit ids against the git
// binary, including git's ordering of "a.b" files next to an "a" directory.
func TestObjectsMatchGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git binary not available")
	}
	files := map[string]string{
		"a.b":            "file beside a directory\n",
		"a/x.go":         "package a\n",
		"a-b/y.txt":      "dash\n",
		"z/deep/n/e.txt": "nested\n",
		"README.md":      "readme without newline",
	}
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(c), 0o644))
	}
	git(t, dir, nil, "init", "-q")
	git(t, dir, nil, "add", ".")
	wantTree := git(t, dir, nil, "write-tree")

	st := newObjectStore(0)
	flat := map[string]leaf{}
	for p, c := range files {
		sha, err := st.putBlob([]byte(c))
		require.NoError(t, err)
		assert.Equal(t, git(t, dir, nil, "hash-object", filepath.FromSlash(p)), sha, p)
		flat[p] = leaf{Mode: modeFile, Type: typeBlob, SHA: sha}
	}
	gotTree, err := st.buildTree(flat)
	require.NoError(t, err)
	assert.Equal(t, wantTree, gotTree)

	date := time.Date(2026, 11, 30, 9, 52, 40, 0, time.UTC)
	gitEnv := []string{
		"GIT_AUTHOR_NAME=Dev One", "GIT_AUTHOR_EMAIL=dev@example.com", "GIT_AUTHOR_DATE=2026-11-30T09:52:40Z",
		"GIT_COMMITTER_NAME=Dev One", "GIT_COMMITTER_EMAIL=dev@example.com", "GIT_COMMITTER_DATE=2026-11-30T09:52:40Z",
		"TZ=UTC",
	}
	root := git(t, dir, gitEnv, "commit-tree", wantTree, "-m", "initial")
	sig := signature{Name: "Dev One", Email: "dev@example.com", Date: date}
	// git commit-tree appends a newline to -m messages.
	gotRoot, err := st.putCommit(&gitCommit{Tree: gotTree, Author: sig, Committer: sig, Message: "initial\n"})
	require.NoError(t, err)
	assert.Equal(t, root, gotRoot)

	child := git(t, dir, gitEnv, "commit-tree", wantTree, "-p", root, "-m", "second")
	gotChild, err := st.putCommit(&gitCommit{Tree: gotTree, Parents: []string{gotRoot}, Author: sig, Committer: sig, Message: "second\n"})
	require.NoError(t, err)
	assert.Equal(t, child, gotChild)
}

func TestObjectStoreLimit(t *testing.T) {
	st := newObjectStore(2)
	_, err := st.putBlob([]byte("one"))
	require.NoError(t, err)
	_, err = st.putBlob([]byte("two"))
	require.NoError(t, err)
	_, err = st.putBlob([]byte("one")) // already stored: no new object
	require.NoError(t, err)
	_, err = st.putBlob([]byte("three"))
	require.ErrorIs(t, err, errObjectLimit)
}

func TestCommitGraph(t *testing.T) {
	st := newObjectStore(0)
	tree, err := st.putTree(nil)
	require.NoError(t, err)
	at := func(min int) signature {
		return signature{Name: "d", Email: "d@x", Date: time.Date(2026, 1, 1, 0, min, 0, 0, time.UTC)}
	}
	mk := func(msg string, min int, parents ...string) string {
		sha, err := st.putCommit(&gitCommit{Tree: tree, Parents: parents, Author: at(min), Committer: at(min), Message: msg})
		require.NoError(t, err)
		return sha
	}
	root := mk("root", 0)
	a1 := mk("a1", 1, root)
	b1 := mk("b1", 2, root)
	a2 := mk("a2", 3, a1)

	assert.Equal(t, root, st.mergeBase(a2, b1))
	assert.Equal(t, a1, st.mergeBase(a1, a2))
	assert.Equal(t, []string{a1, a2}, st.commitsBetween(b1, a2))
	assert.Equal(t, []string{b1}, st.commitsBetween(a2, b1))
	assert.Empty(t, st.commitsBetween(a2, a1))

	var order []string
	st.walk(a2, func(sha string, _ *gitCommit) bool { order = append(order, sha); return true })
	assert.Equal(t, []string{a2, a1, root}, order)
}
