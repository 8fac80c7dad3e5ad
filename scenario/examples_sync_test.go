package scenario

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The repository keeps a copy of the team's shared example scenarios so
// that a fresh clone can run the demo and the tests; when the shared
// directory is present the copy must not drift from it.
func TestExamplesCopyMatchesShared(t *testing.T) {
	const shared, local = "../../shared/scenarios/examples", "../testdata/examples"
	if _, err := os.Stat(shared); err != nil {
		t.Logf("no shared examples next to the repository (%v): nothing to compare", err)
		return
	}
	err := filepath.WalkDir(shared, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(shared, p)
		require.NoError(t, err)
		want, err := os.ReadFile(p)
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(local, rel))
		require.NoError(t, err, "missing copy of %s", rel)
		assert.Equal(t, want, got, rel)
		return nil
	})
	require.NoError(t, err)
}
