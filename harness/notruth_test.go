package harness

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A scenario whose truth is marked todo (a captured incident nobody has
// judged yet) runs but is neither scored nor counted; one started at an
// explicit window start investigates from that start.
func TestEvaluateWithoutTruthAndWithStart(t *testing.T) {
	src := filepath.Join(examplesDir, "ad-npe-missing-context")
	dir := filepath.Join(t.TempDir(), "ad")
	require.NoError(t, os.CopyFS(dir, os.DirFS(src)))
	y, err := os.ReadFile(filepath.Join(dir, "scenario.yaml"))
	require.NoError(t, err)
	y = regexp.MustCompile(`(?m)^truth:\n`).ReplaceAll(y, []byte("start: '2026-11-30T08:00:00Z'\ntruth:\n  todo: not judged yet\n"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "scenario.yaml"), y, 0o644))

	cases, sum, err := Evaluate(context.Background(), []string{dir, filepath.Join(examplesDir, "cart-oomkilled-low-limit")}, RunOptions{})
	require.NoError(t, err)
	require.Len(t, cases, 2)
	assert.True(t, cases[0].NoTruth)
	require.NotNil(t, cases[0].Result)
	assert.Equal(t, "ad", cases[0].Result.RootCause.Service)
	assert.Equal(t, Summary{}.Total+1, sum.Total, "only the scenario with a truth is counted")
	assert.Equal(t, 1, sum.NoTruth)
	assert.Equal(t, 1, sum.RCCorrect)
	var starts []string
	for _, r := range cases[0].Result.Timeline {
		if s, ok := r.Args["start"].(string); ok {
			starts = append(starts, s)
		}
	}
	assert.Contains(t, starts, "2026-11-30T08:00:00Z", "the window starts where scenario.yaml says")

	var out bytes.Buffer
	PrintTable(&out, cases, sum)
	assert.Contains(t, out.String(), "no truth: code_bug/?")
	assert.Contains(t, out.String(), "1 scenario(s) without truth")
	var js bytes.Buffer
	require.NoError(t, PrintJSON(&js, sum))
	assert.Contains(t, js.String(), `"no_truth":1`)
}
