package github

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// applyPatch applies GitHub-style hunks to old and returns the new text, so
// tests check patches by their effect rather than by their spelling.
func applyPatch(t *testing.T, old, patch string) string {
	t.Helper()
	oldLines, oldNoEOL := splitLines([]byte(old))
	var out []string
	markerAfterNew := false
	pos := 0 // next unconsumed old line (0-based)
	lines := strings.Split(patch, "\n")
	for i := 0; i < len(lines); i++ {
		m := hunkHeader.FindStringSubmatch(lines[i])
		require.NotNil(t, m, "line %d is not a hunk header: %q", i, lines[i])
		start, _ := strconv.Atoi(m[1])
		count := 1
		if m[2] != "" {
			count, _ = strconv.Atoi(m[2])
		}
		if count == 0 {
			start++ // empty ranges name the line before
		}
		require.GreaterOrEqual(t, start-1, pos, "hunks overlap")
		out = append(out, oldLines[pos:start-1]...)
		pos = start - 1
		var last byte
		for i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "@@") {
			i++
			l := lines[i]
			if l == `\ No newline at end of file` {
				if last == '+' || last == ' ' {
					markerAfterNew = true
				}
				continue
			}
			require.NotEmpty(t, l)
			last = l[0]
			switch l[0] {
			case ' ':
				require.Equal(t, oldLines[pos], l[1:], "context mismatch")
				out = append(out, l[1:])
				pos++
			case '-':
				require.Equal(t, oldLines[pos], l[1:], "deletion mismatch")
				pos++
			case '+':
				out = append(out, l[1:])
			default:
				t.Fatalf("bad patch line %q", l)
			}
		}
	}
	newNoEOL := markerAfterNew
	if pos < len(oldLines) {
		newNoEOL = oldNoEOL // the unchanged tail keeps its ending
	}
	out = append(out, oldLines[pos:]...)
	if len(out) == 0 {
		return ""
	}
	s := strings.Join(out, "\n")
	if !newNoEOL {
		s += "\n"
	}
	return s
}

func TestUnifiedDiffCases(t *testing.T) {
	tests := []struct {
		name, old, new string
		adds, dels     int
	}{
		{"one line changed", "a\nb\nc\n", "a\nB\nc\n", 1, 1},
		{"append", "a\nb\n", "a\nb\nc\n", 1, 0},
		{"prepend", "b\nc\n", "a\nb\nc\n", 1, 0},
		{"delete all", "a\nb\n", "", 0, 2},
		{"create", "", "x\ny\n", 2, 0},
		{"newline added at eof", "a\nb", "a\nb\n", 1, 1},
		{"newline removed at eof", "a\nb\n", "a\nb", 1, 1},
		{"two distant hunks", strings.Repeat("l\n", 3) + "x\n" + strings.Repeat("m\n", 20) + "y\n", strings.Repeat("l\n", 3) + "X\n" + strings.Repeat("m\n", 20) + "Y\n", 2, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			patch, adds, dels := unifiedDiff([]byte(tc.old), []byte(tc.new))
			assert.Equal(t, tc.adds, adds)
			assert.Equal(t, tc.dels, dels)
			require.NotEmpty(t, patch)
			assert.Equal(t, tc.new, applyPatch(t, tc.old, patch))
		})
	}
	patch, _, _ := unifiedDiff([]byte("same\n"), []byte("same\n"))
	assert.Empty(t, patch)
	patch, adds, _ := unifiedDiff([]byte("bin\x00ary"), []byte("other"))
	assert.Empty(t, patch, "binary files have no patch")
	assert.Zero(t, adds)
}

func TestUnifiedDiffRandomEdits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 300 {
		n := rng.IntN(40)
		var old []string
		for i := range n {
			old = append(old, fmt.Sprintf("line %d", rng.IntN(8)+i%3))
		}
		cur := append([]string(nil), old...)
		for range rng.IntN(6) {
			switch k := rng.IntN(3); {
			case k == 0 && len(cur) > 0:
				i := rng.IntN(len(cur))
				cur = append(cur[:i], cur[i+1:]...)
			case k == 1:
				i := rng.IntN(len(cur) + 1)
				cur = append(cur[:i], append([]string{fmt.Sprintf("new %d", rng.IntN(5))}, cur[i:]...)...)
			case len(cur) > 0:
				cur[rng.IntN(len(cur))] = fmt.Sprintf("changed %d", rng.IntN(5))
			}
		}
		join := func(ls []string, eol bool) string {
			if len(ls) == 0 {
				return ""
			}
			s := strings.Join(ls, "\n")
			if eol {
				s += "\n"
			}
			return s
		}
		a, b := join(old, rng.IntN(5) > 0), join(cur, rng.IntN(5) > 0)
		patch, _, _ := unifiedDiff([]byte(a), []byte(b))
		if a == b {
			assert.Empty(t, patch)
			continue
		}
		require.Equal(t, b, applyPatch(t, a, patch), "iteration %d\nold=%q\nnew=%q\npatch:\n%s", iter, a, b, patch)
	}
}

// TestUnifiedDiffMatchesGit compares hunks with git diff for a typical edit.
func TestUnifiedDiffMatchesGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git binary not available")
	}
	var oldB, newB strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&oldB, "line %d\n", i)
		switch i {
		case 5:
			newB.WriteString("line five\n")
		case 20:
			fmt.Fprintf(&newB, "line %d\ninserted\n", i)
		default:
			fmt.Fprintf(&newB, "line %d\n", i)
		}
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	require.NoError(t, os.WriteFile(a, []byte(oldB.String()), 0o644))
	require.NoError(t, os.WriteFile(b, []byte(newB.String()), 0o644))
	out, _ := exec.Command("git", "diff", "--no-index", "--no-color", "-U3", a, b).Output()
	gitPatch := string(out)
	gitPatch = gitPatch[strings.Index(gitPatch, "@@"):]
	patch, _, _ := unifiedDiff([]byte(oldB.String()), []byte(newB.String()))
	assert.Equal(t, strings.TrimSuffix(gitPatch, "\n"), patch)
}
