package remediate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
)

// numbered returns n lines "line 1".."line n", each ending in eol.
func numbered(n int, eol string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d%s", i, eol)
	}
	return b.String()
}

func applyDiff(t *testing.T, content, diff string) (string, error) {
	t.Helper()
	files, err := ParseUnifiedDiff(diff)
	require.NoError(t, err)
	require.Len(t, files, 1)
	out, err := ApplyHunks([]byte(content), files[0].Hunks)
	return string(out), err
}

func TestApplyHunks(t *testing.T) {
	base := numbered(20, "\n")
	hunk10 := "--- a/f.txt\n+++ b/f.txt\n@@ -9,5 +9,5 @@\n line 9\n line 10\n-line 11\n+LINE ELEVEN\n line 12\n line 13\n"
	want10 := strings.Replace(base, "line 11\n", "LINE ELEVEN\n", 1)

	tests := []struct {
		name    string
		content string
		diff    string
		want    string
		errText string
	}{
		{name: "exact position", content: base, diff: hunk10, want: want10},
		{
			name:    "offset: three lines inserted above",
			content: "new a\nnew b\nnew c\n" + base,
			diff:    hunk10,
			want:    "new a\nnew b\nnew c\n" + want10,
		},
		{
			name:    "negative offset: two lines removed above",
			content: strings.Replace(strings.Replace(base, "line 2\n", "", 1), "line 3\n", "", 1),
			diff:    hunk10,
			want:    strings.Replace(strings.Replace(want10, "line 2\n", "", 1), "line 3\n", "", 1),
		},
		{
			name:    "fuzz 0: one changed context line fails, naming the hunk and the line",
			content: strings.Replace(base, "line 13\n", "line 13 changed\n", 1),
			diff:    hunk10,
			errText: `hunk 1 (@@ -9,5 +9,5 @@) does not match anywhere: it expects line 13 to be "line 13", but the file has "line 13 changed"`,
		},
		{
			name:    "fuzz 0: whitespace matters",
			content: strings.Replace(base, "line 9\n", "line 9 \n", 1),
			diff:    hunk10,
			errText: "hunk 1",
		},
		{
			name:    "removed line must match",
			content: strings.Replace(base, "line 11\n", "line eleven\n", 1),
			diff:    hunk10,
			errText: `expects line 11 to be "line 11", but the file has "line eleven"`,
		},
		{
			name:    "second hunk fails, first would apply",
			content: base,
			diff:    hunk10 + "@@ -17,3 +17,3 @@\n line 17\n-line 99\n+line 18b\n line 19\n",
			errText: "hunk 2 (@@ -17,3 +17,3 @@)",
		},
		{
			name:    "two hunks with offsets",
			content: "x\n" + base,
			diff:    hunk10 + "@@ -17,2 +17,3 @@\n line 17\n+inserted\n line 18\n",
			want:    "x\n" + strings.Replace(want10, "line 17\n", "line 17\ninserted\n", 1),
		},
		{
			name:    "hunks apply in order: a hunk does not match above the previous one",
			content: base,
			diff:    "--- a/f\n+++ b/f\n@@ -10,3 +10,3 @@\n line 10\n-line 11\n+X\n line 12\n@@ -2,3 +2,3 @@\n line 2\n-line 3\n+Y\n line 4\n",
			errText: "hunk 2",
		},
		{
			name:    "less leading than trailing context: must apply at the start",
			content: "header\n" + base,
			diff:    "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n-line 1\n+LINE 1\n line 2\n line 3\n",
			errText: "must apply at the start of the file",
		},
		{
			name:    "less leading than trailing context at the start applies",
			content: base,
			diff:    "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n-line 1\n+LINE 1\n line 2\n line 3\n",
			want:    strings.Replace(base, "line 1\n", "LINE 1\n", 1),
		},
		{
			name:    "less leading than trailing context away from line 1: offsets allowed",
			content: "x\n" + base,
			diff:    "--- a/f\n+++ b/f\n@@ -5,3 +5,3 @@\n-line 5\n+LINE 5\n line 6\n line 7\n",
			want:    "x\n" + strings.Replace(base, "line 5\n", "LINE 5\n", 1),
		},
		{
			name:    "less trailing than leading context: must apply at the end",
			content: base + "footer\n",
			diff:    "--- a/f\n+++ b/f\n@@ -18,3 +18,3 @@\n line 18\n line 19\n-line 20\n+LINE 20\n",
			errText: "must apply at the end of the file",
		},
		{
			name:    "CRLF file: lines match without CR, added lines get CRLF",
			content: numbered(20, "\r\n"),
			diff:    hunk10,
			want:    strings.Replace(numbered(20, "\r\n"), "line 11\r\n", "LINE ELEVEN\r\n", 1),
		},
		{
			name:    "no newline at end of file: kept",
			content: strings.TrimSuffix(base, "\n"),
			diff:    "--- a/f\n+++ b/f\n@@ -18,3 +18,3 @@\n line 18\n-line 19\n+LINE 19\n line 20\n\\ No newline at end of file\n",
			want:    strings.Replace(strings.TrimSuffix(base, "\n"), "line 19\n", "LINE 19\n", 1),
		},
		{
			name:    "no newline at end of file: added",
			content: strings.TrimSuffix(base, "\n"),
			diff:    "--- a/f\n+++ b/f\n@@ -19,2 +19,2 @@\n line 19\n-line 20\n\\ No newline at end of file\n+line 20\n",
			want:    base,
		},
		{
			name:    "marker claims no newline but the file has one",
			content: base,
			diff:    "--- a/f\n+++ b/f\n@@ -19,2 +19,2 @@\n line 19\n-line 20\n\\ No newline at end of file\n+line 20\n",
			errText: "end without a newline",
		},
		{
			name:    "pure insertion",
			content: base,
			diff:    "--- a/f\n+++ b/f\n@@ -5,0 +6,2 @@\n+a\n+b\n",
			want:    strings.Replace(base, "line 5\n", "line 5\na\nb\n", 1),
		},
		{
			name:    "new file",
			content: "",
			diff:    "--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n+a\n+b\n",
			want:    "a\nb\n",
		},
		{
			name:    "hunk past the end of the file",
			content: numbered(5, "\n"),
			diff:    hunk10,
			errText: "the file has only 5 lines",
		},
		{
			name:    "blank context line stripped to an empty line",
			content: "a\n\nb\nc\n",
			diff:    "--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n a\n\n-b\n+B\n c\n",
			want:    "a\n\nB\nc\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := applyDiff(t, tc.content, tc.diff)
			if tc.errText != "" {
				require.Error(t, err)
				var ae *ApplyError
				require.ErrorAs(t, err, &ae)
				assert.Contains(t, err.Error(), tc.errText)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestParseUnifiedDiffRejectsMalformed(t *testing.T) {
	tests := map[string]string{
		"empty":             "",
		"prose only":        "just some words\n",
		"count too small":   "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n c\n",
		"count too large":   "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n",
		"garbage in hunk":   "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n*b\n c\n",
		"bad header":        "--- a/f\n+++ b/f\n@@ -x +1 @@\n a\n",
		"missing +++":       "--- a/f\n@@ -1 +1 @@\n-a\n+b\n",
		"trailing garbage":  "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\nwhat is this\n",
		"stray no-newline":  "--- a/f\n+++ b/f\n@@ -1 +1 @@\n\\ No newline at end of file\n-a\n+b\n",
		"file without hunk": "--- a/f\n+++ b/f\n",
	}
	for name, d := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := ParseUnifiedDiff(d)
			require.ErrorIs(t, err, ErrMalformedDiff)
		})
	}
}

func TestParseUnifiedDiffGitHeaders(t *testing.T) {
	d := "diff --git a/src/x.js b/src/x.js\nindex 0123abc..4567def 100644\n--- a/src/x.js\t2026-01-01 10:00:00\n+++ b/src/x.js\n@@ -1 +1 @@ fn()\n-a\n+b\n"
	files, err := ParseUnifiedDiff(d)
	require.NoError(t, err)
	require.Len(t, files, 1)
	assert.Equal(t, "src/x.js", files[0].Path())
	assert.Equal(t, "fn()", files[0].Hunks[0].Section)
	assert.Equal(t, "@@ -1 +1 @@", files[0].Hunks[0].Header())
}

// The investigation engine's own diffs apply to the example sources.
func TestApplyEngineDiffToExampleSources(t *testing.T) {
	for _, tc := range []struct{ scenario, file string }{
		{"checkout-fails-payment-typeerror", "src/payment/charge.js"},
		{"ad-npe-missing-context", "src/ad/src/main/java/com/acme/shop/ad/AdService.java"},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(examplesDir, tc.scenario, "repo", tc.file))
			require.NoError(t, err)
			lines := strings.Split(strings.TrimSuffix(string(src), "\n"), "\n")
			line := len(lines) / 2
			repl := []string{lines[line-1] + " // guarded"}
			diff := investigate.UnifiedDiff(tc.file, lines, line, line, repl)
			files, err := ParseUnifiedDiff(diff)
			require.NoError(t, err)
			out, err := ApplyHunks(src, files[0].Hunks)
			require.NoError(t, err)
			want := append(append(append([]string{}, lines[:line-1]...), repl...), lines[line:]...)
			assert.Equal(t, strings.Join(want, "\n")+"\n", string(out))
			// Our display diff of the result is the engine's diff.
			assert.Equal(t, diff, UnifiedDiff(tc.file, src, out))
		})
	}
}

func TestUnifiedDiffRoundTrip(t *testing.T) {
	old := numbered(40, "\n")
	cases := map[string]string{
		"one change":         strings.Replace(old, "line 20\n", "LINE 20\n", 1),
		"two far changes":    strings.Replace(strings.Replace(old, "line 3\n", "THREE\n", 1), "line 35\n", "", 1),
		"two close changes":  strings.Replace(strings.Replace(old, "line 10\n", "TEN\n", 1), "line 15\n", "FIFTEEN\nextra\n", 1),
		"prepend":            "zero\n" + old,
		"append":             old + "forty-one\n",
		"drop final newline": strings.TrimSuffix(old, "\n"),
		"rewrite all":        "something else\nentirely\n",
	}
	for name, new := range cases {
		t.Run(name, func(t *testing.T) {
			d := UnifiedDiff("f.txt", []byte(old), []byte(new))
			require.NotEmpty(t, d)
			files, err := ParseUnifiedDiff(d)
			require.NoError(t, err, d)
			out, err := ApplyHunks([]byte(old), files[0].Hunks)
			require.NoError(t, err, d)
			assert.Equal(t, new, string(out), d)
		})
	}
	assert.Empty(t, UnifiedDiff("f", []byte(old), []byte(old)))
	// Far apart changes make two hunks, close ones one.
	assert.Equal(t, 2, strings.Count(UnifiedDiff("f", []byte(old), []byte(cases["two far changes"])), "\n@@"))
	assert.Equal(t, 1, strings.Count(UnifiedDiff("f", []byte(old), []byte(cases["two close changes"])), "@@ -"))
}

// A patch whose new lines are already in the file is recognised (GNU
// patch's "previously applied"), so re-applying it is not mistaken for a
// conflict.
func TestAlreadyApplied(t *testing.T) {
	old := []byte("a\nb\nc\nd\n")
	files, err := ParseUnifiedDiff("--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n a\n-b\n+B\n c\n d\n")
	require.NoError(t, err)
	hunks := files[0].Hunks
	applied, err := ApplyHunks(old, hunks)
	require.NoError(t, err)
	assert.Equal(t, "a\nB\nc\nd\n", string(applied))
	assert.False(t, AlreadyApplied(old, hunks))
	assert.True(t, AlreadyApplied(applied, hunks))
	back, err := ApplyHunks(applied, []Hunk{hunks[0].Reversed()})
	require.NoError(t, err)
	assert.Equal(t, string(old), string(back))
	assert.False(t, AlreadyApplied([]byte("x\ny\n"), hunks), "neither side is there")

	p := &Proposal{Kind: KindCodePatch, SourceDiff: "--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n a\n-b\n+B\n c\n d\n"}
	_, err = p.reapply("f", applied)
	assert.ErrorIs(t, err, ErrAlreadyApplied)
}
