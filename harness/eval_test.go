package harness

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/scenario"
)

const (
	examplesDir = "../testdata/examples"
	corpusDir   = "../testdata/scenarios"
	holdoutDir  = "../testdata/holdout"
	holdout2Dir = "../testdata/holdout2"
	holdout3Dir = "../testdata/holdout3"
	holdout4Dir = "../testdata/holdout4"
	holdout5Dir = "../testdata/holdout5"
	holdout6Dir = "../testdata/holdout6"
)

func evaluate(t *testing.T, roots ...string) ([]Case, Summary) {
	t.Helper()
	var dirs []string
	for _, r := range roots {
		ds, err := scenario.Discover(r)
		require.NoError(t, err)
		dirs = append(dirs, ds...)
	}
	require.NotEmpty(t, dirs)
	cases, sum, err := Evaluate(context.Background(), dirs, RunOptions{})
	require.NoError(t, err)
	if testing.Verbose() {
		PrintTable(os.Stdout, cases, sum)
	}
	return cases, sum
}

// The shared examples are the product's acceptance bar: every root cause
// correct, never a wrong HIGH.
func TestExamplesAllCorrect(t *testing.T) {
	cases, sum := evaluate(t, examplesDir)
	for _, c := range cases {
		require.NoError(t, c.Err, c.Name)
		assert.True(t, c.Score.RootCause, "%s: got %s/%s/%s %s:%d", c.Name, c.Result.RootCause.Bucket,
			c.Result.RootCause.Service, c.Result.RootCause.ErrorType, c.Result.RootCause.File, c.Result.RootCause.Line)
		assert.True(t, c.Score.ErrorType, c.Name)
	}
	assert.Zero(t, sum.HighWrong)
	assert.LessOrEqual(t, sum.ToolCallsMedian, 8)
}

// The corpus measures generality: zero wrong HIGH in every set, and at
// least 90% root causes right over our own corpus and the independently
// written sets together (each set also keeps its own floor, so a
// regression in one is not hidden by the others; the newest sets, tuned
// on least, have lower floors: holdout6 holds today's 50%).
func TestCorpus(t *testing.T) {
	floors := map[string]float64{corpusDir: 0.9, holdoutDir: 0.9, holdout2Dir: 0.9, holdout3Dir: 0.8, holdout4Dir: 0.8, holdout5Dir: 0.8, holdout6Dir: 0.4}
	var right, total int
	for _, dir := range []string{corpusDir, holdoutDir, holdout2Dir, holdout3Dir, holdout4Dir, holdout5Dir, holdout6Dir} {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			if _, err := os.Stat(dir); err != nil {
				t.Fatalf("scenarios missing: %v", err)
			}
			_, sum := evaluate(t, dir)
			require.GreaterOrEqual(t, sum.Total, 10)
			right, total = right+sum.RCCorrect, total+sum.Total
			assert.Zero(t, sum.HighWrong, "a wrong HIGH is the worst outcome")
			assert.GreaterOrEqual(t, float64(sum.RCCorrect)/float64(sum.Total), floors[dir], "root cause %d/%d", sum.RCCorrect, sum.Total)
			assert.LessOrEqual(t, sum.ToolCallsMedian, 8)
		})
	}
	if total > 0 {
		t.Logf("root cause %d/%d over all sets", right, total)
		assert.GreaterOrEqual(t, float64(right)/float64(total), 0.9, "root cause %d/%d over all sets", right, total)
	}
}

// An incident where no backend holds any evidence: LOW, the note says what
// is missing, nothing is invented.
func TestNoEvidenceIsLow(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "scenario.yaml"), []byte(`name: nothing-here
now: "2026-11-30T10:20:00Z"
trigger:
  mention: "checkout is slow since 10am"
config:
  repo: acme/shop
truth:
  bucket: infrastructure
  service: checkout
  error_type: unknown
`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "logs.json"), []byte(`{"streams":[{"stream":{"service_name":"checkout","level":"info"},"values":[["1796034000000000000","order placed"]]}]}`), 0o644))
	s, err := scenario.Load(dir)
	require.NoError(t, err)
	res, err := Run(context.Background(), s, RunOptions{})
	require.NoError(t, err)
	rc := res.RootCause
	assert.Equal(t, "LOW", string(rc.Band))
	assert.Equal(t, "unknown", string(rc.ErrorType))
	assert.Empty(t, rc.File, "nothing may be invented")
	assert.Empty(t, res.Evidence)
	assert.Nil(t, res.Fix.Patch)
	assert.Contains(t, res.ConfidenceNote, "traces")
	assert.Contains(t, res.ConfidenceNote, "metrics")
	families := map[string]bool{}
	for _, u := range res.ToolsUnavailable {
		families[string(u.Family)] = true
	}
	for _, f := range []string{"traces", "metrics", "changes", "source"} {
		assert.True(t, families[f], "%s should be listed as unavailable", f)
	}
}
