package scenario

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const examples = "../testdata/examples"

func TestLoadExamples(t *testing.T) {
	dirs, err := Discover(examples)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(dirs), 3)
	for _, d := range dirs {
		s, err := Load(d)
		require.NoError(t, err, d)
		assert.NotEmpty(t, s.Name)
		assert.False(t, s.Now.IsZero())
		assert.NotNil(t, s.Traces, d)
		assert.NotNil(t, s.Repo, d)
		assert.NotEmpty(t, s.Changes, d)
		assert.NotEmpty(t, s.Changes[0].Raw, d)
	}
}

func TestLoadAlertTrigger(t *testing.T) {
	s, err := Load(filepath.Join(examples, "cart-oomkilled-low-limit"))
	require.NoError(t, err)
	require.True(t, s.Trigger.IsAlert())
	assert.Contains(t, string(s.Trigger.Alert), `"KubeContainerOOMKilled"`)
	assert.Equal(t, "cart", s.Config["service_name"])
	assert.Equal(t, 58, s.Truth.Line)
}

func TestLoadErrorsNameFileAndProblem(t *testing.T) {
	cases := map[string]struct {
		yaml  string
		files map[string]string
		want  string
	}{
		"bad yaml":            {yaml: "name: [", want: "scenario.yaml: invalid YAML"},
		"unknown key":         {yaml: "name: x\nnow: '2026-01-01T00:00:00Z'\nbogus: 1\ntrigger: {mention: hi}\n", want: "field bogus not found"},
		"bad name":            {yaml: "name: Bad_Name\nnow: '2026-01-01T00:00:00Z'\ntrigger: {mention: hi}\n", want: "must match"},
		"no trigger":          {yaml: "name: x\nnow: '2026-01-01T00:00:00Z'\ntrigger: {}\n", want: "exactly one of mention or alert"},
		"bad now":             {yaml: "name: x\nnow: yesterday\ntrigger: {mention: hi}\n", want: "not RFC 3339"},
		"bad bucket":          {yaml: "name: x\nnow: '2026-01-01T00:00:00Z'\ntrigger: {mention: hi}\ntruth: {bucket: oops, service: a, error_type: oom}\n", want: "bucket \"oops\""},
		"code bug needs file": {yaml: "name: x\nnow: '2026-01-01T00:00:00Z'\ntrigger: {mention: hi}\ntruth: {bucket: code_bug, service: a, error_type: oom}\n", want: "file is required"},
		"start after now":     {yaml: "name: x\nnow: '2026-01-01T00:00:00Z'\nstart: '2026-01-01T01:00:00Z'\ntrigger: {mention: hi}\n", want: "must be before now"},
		"bad start":           {yaml: "name: x\nnow: '2026-01-01T00:00:00Z'\nstart: 9am\ntrigger: {mention: hi}\n", want: "start \"9am\" is not RFC 3339"},
		"todo bad bucket":     {yaml: "name: x\nnow: '2026-01-01T00:00:00Z'\ntrigger: {mention: hi}\ntruth: {todo: review, bucket: oops}\n", want: "bucket \"oops\""},
		"bad traces json":     {yaml: "name: x\nnow: '2026-01-01T00:00:00Z'\ntrigger: {mention: hi}\n", files: map[string]string{"traces.json": "{"}, want: "traces.json: invalid JSON"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "scenario.yaml"), []byte(tc.yaml), 0o644))
			for f, body := range tc.files {
				require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte(body), 0o644))
			}
			_, err := Load(dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestDiscoverSkipsRepoTrees(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "a", "repo", "nested"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "a", "scenario.yaml"), []byte("x"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "a", "repo", "nested", "scenario.yaml"), []byte("x"), 0o644))
	dirs, err := Discover(root)
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(root, "a")}, dirs)
}

func TestLoadStartAndTruthTodo(t *testing.T) {
	dir := t.TempDir()
	yaml := "name: x\nnow: '2026-01-01T10:00:00.5Z'\nstart: '2026-01-01T08:00:00Z'\ntrigger: {mention: hi}\n" +
		"truth:\n  todo: nobody has judged this incident yet\n  bucket: code_bug\n  service: ad\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "scenario.yaml"), []byte(yaml), 0o644))
	s, err := Load(dir)
	require.NoError(t, err, "a draft truth marked todo needs no file for a code bug")
	assert.Equal(t, "2026-01-01T08:00:00Z", s.Start.UTC().Format(time.RFC3339))
	assert.Equal(t, 500, s.Now.Nanosecond()/1e6)
	assert.False(t, s.Truth.Scored())
	assert.Equal(t, "ad", s.Truth.Service)

	ex, err := Load(filepath.Join(examples, "ad-npe-missing-context"))
	require.NoError(t, err)
	assert.True(t, ex.Truth.Scored())
	assert.True(t, ex.Start.IsZero(), "without start the window comes from the trigger")
}
