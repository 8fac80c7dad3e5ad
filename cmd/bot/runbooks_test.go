package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/autoheal/autoheal/runbooks"
)

const chartRunbooks = "../../deploy/helm/autoheal/runbooks"

// `bot runbooks check` accepts the chart's examples and says what each
// does.
func TestRunbooksCheckGoodLibrary(t *testing.T) {
	out, stderr, code := run(t, "runbooks", "check", chartRunbooks)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "ok    container-oomkilled.md: applies on alerts KubeContainerOOMKilled, KubePodCrashLooping, ContainerOOMKilled; runs working-set (promql), memory-limit (promql_instant)\n")
	assert.Contains(t, out, "ok    payments-timeouts.md: applies on alerts PaymentsLatencyHigh, PaymentsErrorRateHigh, Payment*Timeout*; services payment, payments; runs p99-latency (promql), timeout-lines (logql)\n")
	assert.Contains(t, out, "2 runbook(s) valid")
}

// A bad library fails with exit status 1 and every problem of every file,
// each naming the file and the field.
func TestRunbooksCheckBadLibrary(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"good.md":     "---\nmatch:\n  services: [cart]\n---\n# Cart\nSteps.\n",
		"bad-kind.md": "---\nmatch:\n  services: [cart]\ntools:\n  - {name: restart, kind: kubectl, query: rollout restart deploy/cart}\n---\n# x\n",
		"typo.md":     "---\nmatch:\n  service: [cart]\n---\n# x\n",
		"no-body.md":  "---\nmatch:\n  buckets: [infra]\n---\n",
	}
	for n, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), []byte(text), 0o644))
	}
	out, stderr, code := run(t, "runbooks", "check", dir)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "ok    good.md: applies on services cart\n")
	assert.Contains(t, out, `error bad-kind.md: tools[0].kind: unknown kind "kubectl": runbooks may run only read-only queries of kind promql, promql_instant, logql`)
	assert.Contains(t, out, `error typo.md: front matter: line 3: unknown field "service" (known here: alerts, labels, services, buckets)`)
	assert.Contains(t, out, `error no-body.md: match.buckets[0]: unknown bucket "infra"`)
	assert.Contains(t, out, "error no-body.md: body: empty")
	assert.Contains(t, stderr, "4 problem(s); 1 runbook(s) valid")

	_, stderr, code = run(t, "runbooks", "check", filepath.Join(dir, "missing"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "1 problem(s)")

	_, _, code = run(t, "runbooks")
	assert.Equal(t, 2, code, "usage")

	// investigate refuses a bad library rather than running without it.
	_, stderr, code = run(t, "investigate", "--runbooks", dir, "--scenario", filepath.Join(cliExamples, "cart-oomkilled-low-limit"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "bad-kind.md: tools[0].kind")
}

// `bot investigate --runbooks` names the runbook that applied and shows
// the calls its hints made.
func TestInvestigateNamesTheRunbook(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	out, stderr, code := run(t, "investigate", "--runbooks", chartRunbooks, "--scenario", filepath.Join(cliExamples, "cart-oomkilled-low-limit"))
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "Runbook      container-oomkilled.md\n")
	assert.Contains(t, out, "(runbook container-oomkilled.md#working-set)")
	assert.Contains(t, out, "(runbook container-oomkilled.md#memory-limit)")
}

// serve loads the library of AUTOHEAL_RUNBOOKS_DIR at start, and a bad one
// stops it with the problems named (a ConfigMap edit is checked on roll-out,
// not found out during an incident).
func TestServeLoadsTheRunbookLibrary(t *testing.T) {
	e, err := loadServeEnv(envFrom(baseServeEnv(map[string]string{"AUTOHEAL_RUNBOOKS_DIR": chartRunbooks})))
	require.NoError(t, err)
	require.NotNil(t, e.Runbooks)
	assert.Len(t, e.Runbooks.Runbooks, 2)

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x.md"), []byte("---\nmatch:\n  buckets: [infra]\n---\n# x\n"), 0o644))
	_, err = loadServeEnv(envFrom(baseServeEnv(map[string]string{"AUTOHEAL_RUNBOOKS_DIR": dir})))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `AUTOHEAL_RUNBOOKS_DIR: runbooks `+dir+`: x.md: match.buckets[0]: unknown bucket "infra"`)

	e, err = loadServeEnv(envFrom(baseServeEnv(nil)))
	require.NoError(t, err)
	assert.Nil(t, e.Runbooks)
}

// The runbooks the chart's ci values files add (runbooks.files) are valid
// runbooks, as the bot will read them from the ConfigMap.
func TestChartValuesRunbooksParse(t *testing.T) {
	files, err := filepath.Glob("../../deploy/helm/autoheal/ci/*.yaml")
	require.NoError(t, err)
	n := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		var values struct {
			Runbooks struct {
				Files map[string]string `yaml:"files"`
			} `yaml:"runbooks"`
		}
		require.NoError(t, yaml.Unmarshal(raw, &values), f)
		for name, text := range values.Runbooks.Files {
			_, err := runbooks.Parse(name, []byte(text))
			assert.NoError(t, err, f)
			n++
		}
	}
	assert.Positive(t, n, "a ci values file shows runbooks.files")
}
