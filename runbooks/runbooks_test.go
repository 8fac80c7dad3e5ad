package runbooks_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/runbooks"
)

// chartRunbooks are the examples the Helm chart ships.
const chartRunbooks = "../deploy/helm/autoheal/runbooks"

const good = `---
name: Payments timeouts
match:
  alerts: [PaymentsLatencyHigh, "Payment*Timeout"]
  labels: {team: payments, severity: "crit*"}
  services: [payments]
tools:
  - name: p99
    kind: promql
    step: 1m
    query: histogram_quantile(0.99, sum by (le) (rate(http_server_request_duration_seconds_bucket{service_name="${service}"}[5m])))
  - name: timeouts
    kind: logql
    limit: 200
    query: '{service_name="${service}", namespace="${namespace}"} |= "timeout"'
---
# Steps
Look at the gateway.
`

func TestParseGood(t *testing.T) {
	rb, err := runbooks.Parse("payments-timeouts.md", []byte(good))
	require.NoError(t, err)
	assert.Equal(t, "payments-timeouts.md", rb.File)
	assert.Equal(t, "Payments timeouts", rb.Title)
	assert.Equal(t, []string{"PaymentsLatencyHigh", "Payment*Timeout"}, rb.Match.Alerts)
	assert.Equal(t, map[string]string{"team": "payments", "severity": "crit*"}, rb.Match.Labels)
	require.Len(t, rb.Tools, 2)
	assert.Equal(t, runbooks.KindLogQL, rb.Tools[1].Kind)
	assert.Equal(t, "# Steps\nLook at the gateway.", rb.Body)

	// CRLF line endings and a byte order mark, as editors on Windows write.
	crlf := "\uFEFF" + strings.ReplaceAll(good, "\n", "\r\n")
	rb, err = runbooks.Parse("crlf.md", []byte(crlf))
	require.NoError(t, err)
	assert.Len(t, rb.Tools, 2)
}

// Every problem is reported with the file and the field at fault, all of
// them at once.
func TestParseErrorsNameFileAndField(t *testing.T) {
	const body = "\n# Steps\nDo this.\n"
	withMatch := func(fm string) string { return "---\nmatch:\n  services: [cart]\n" + fm + "---" + body }
	cases := map[string]struct {
		text string
		want []string
	}{
		"no front matter":   {"# Just markdown\n", []string{"x.md: no front matter"}},
		"unclosed":          {"---\nmatch:\n  services: [cart]\n# Steps\n", []string{"x.md: front matter is not closed"}},
		"unknown field":     {"---\nmatch:\n  alert: [X]\n---" + body, []string{`x.md: front matter: line 3: unknown field "alert" (known here: alerts, labels, services, buckets)`}},
		"unknown top field": {"---\nmatch:\n  services: [cart]\nwhen: always\n---" + body, []string{`x.md: front matter: line 4: unknown field "when"`}},
		"wrong type":        {"---\nmatch:\n  services: cart\n---" + body, []string{"x.md: front matter: line 3: cannot unmarshal"}},
		"empty match":       {"---\nname: x\n---" + body, []string{"x.md: match: say when the runbook applies"}},
		"unknown bucket":    {"---\nmatch:\n  buckets: [infra]\n---" + body, []string{`x.md: match.buckets[0]: unknown bucket "infra" (want code_bug, infrastructure, bad_data or flake)`}},
		"bad glob":          {"---\nmatch:\n  alerts: [\"Pay[\"]\n---" + body, []string{`x.md: match.alerts[0]: bad pattern "Pay["`}},
		"unknown kind": {withMatch("tools:\n  - name: restart\n    kind: kubectl\n    query: rollout restart deploy/cart\n"),
			[]string{`x.md: tools[0].kind: unknown kind "kubectl": runbooks may run only read-only queries of kind promql, promql_instant, logql`}},
		"missing kind": {withMatch("tools:\n  - name: q\n    query: up\n"), []string{"x.md: tools[0].kind: missing (want promql, promql_instant, logql)"}},
		"bad promql":   {withMatch("tools:\n  - name: q\n    kind: promql\n    query: sum(rate(x[5m])\n"), []string{"x.md: tools[0].query: not valid PromQL"}},
		"bad logql":    {withMatch("tools:\n  - name: q\n    kind: logql\n    query: timeout\n"), []string{"x.md: tools[0].query: a LogQL log query starts with a stream selector"}},
		"unknown var":  {withMatch("tools:\n  - name: q\n    kind: promql\n    query: up{pod=\"${pod}\"}\n"), []string{"x.md: tools[0].query: unknown variable ${pod} (want ${service} or ${namespace})"}},
		"no query":     {withMatch("tools:\n  - name: q\n    kind: promql\n"), []string{"x.md: tools[0].query: missing"}},
		"bad name":     {withMatch("tools:\n  - name: P 99\n    kind: promql\n    query: up\n"), []string{`x.md: tools[0].name: "P 99": use lower-case letters`}},
		"dup name": {withMatch("tools:\n  - {name: q, kind: promql, query: up}\n  - {name: q, kind: promql, query: up}\n"),
			[]string{`x.md: tools[1].name: "q" is used by another hint of this runbook`}},
		"step on logql": {withMatch("tools:\n  - {name: q, kind: logql, query: '{a=\"b\"}', step: 1m}\n"), []string{"x.md: tools[0].step: only a promql range query takes a step"}},
		"bad step":      {withMatch("tools:\n  - {name: q, kind: promql, query: up, step: soon}\n"), []string{`x.md: tools[0].step: "soon" is not a duration`}},
		"empty body":    {"---\nmatch:\n  services: [cart]\n---\n\n", []string{"x.md: body: empty: write the investigation steps and known fixes"}},
		"several at once": {"---\nmatch:\n  buckets: [infra]\ntools:\n  - {name: q, kind: shell, query: rm -rf /}\n---\n",
			[]string{"x.md: match.buckets[0]: unknown bucket", `x.md: tools[0].kind: unknown kind "shell"`, "x.md: body: empty"}},
	}
	var many strings.Builder
	many.WriteString("tools:\n")
	for i := range runbooks.MaxTools + 1 {
		fmt.Fprintf(&many, "  - {name: q%d, kind: promql, query: up}\n", i)
	}
	cases["too many tools"] = struct {
		text string
		want []string
	}{withMatch(many.String()), []string{fmt.Sprintf("x.md: tools: %d hints, more than %d", runbooks.MaxTools+1, runbooks.MaxTools)}}
	cases["too large"] = struct {
		text string
		want []string
	}{withMatch("") + strings.Repeat("x", runbooks.MaxFileBytes), []string{"x.md: ", fmt.Sprintf("more than the %d a runbook may hold", runbooks.MaxFileBytes)}}

	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rb, err := runbooks.Parse("x.md", []byte(tc.text))
			require.Error(t, err)
			assert.Nil(t, rb)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func writeLib(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	return dir
}

// A library reports every file's problems, keeps the valid runbooks, and
// reads a ConfigMap volume's layout (symlinks into a hidden ..data
// directory) without counting its hidden entries.
func TestCheckLibrary(t *testing.T) {
	dir := writeLib(t, map[string]string{
		"..2026_01_01/payments.md": good,
		"..2026_01_01/broken.md":   "---\nmatch:\n  buckets: [infra]\n---\n# x\n",
		"..2026_01_01/notes.txt":   "not a runbook",
	})
	require.NoError(t, os.Symlink("..2026_01_01", filepath.Join(dir, "..data")))
	for _, n := range []string{"payments.md", "broken.md", "notes.txt"} {
		require.NoError(t, os.Symlink(filepath.Join("..data", n), filepath.Join(dir, n)))
	}
	lib, errs := runbooks.Check(dir)
	require.Len(t, errs, 1)
	assert.Equal(t, `broken.md: match.buckets[0]: unknown bucket "infra" (want code_bug, infrastructure, bad_data or flake)`, errs[0].Error())
	require.Len(t, lib.Runbooks, 1)
	assert.Equal(t, "payments.md", lib.Runbooks[0].File)

	_, err := runbooks.Load(dir)
	require.Error(t, err, "one bad file fails the whole library")
	assert.Contains(t, err.Error(), "broken.md: match.buckets[0]")

	_, err = runbooks.Load(filepath.Join(dir, "missing"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "runbooks directory")
}

func TestCheckLimitsFileCount(t *testing.T) {
	files := map[string]string{}
	for i := range runbooks.MaxFiles + 1 {
		files[fmt.Sprintf("rb-%03d.md", i)] = good
	}
	_, errs := runbooks.Check(writeLib(t, files))
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), fmt.Sprintf("%d runbook files, more than the %d", runbooks.MaxFiles+1, runbooks.MaxFiles))
}

// The chart's examples are valid runbooks.
func TestChartExamplesAreValid(t *testing.T) {
	lib, err := runbooks.Load(chartRunbooks)
	require.NoError(t, err)
	var names []string
	for _, rb := range lib.Runbooks {
		names = append(names, rb.File)
		assert.NotEmpty(t, rb.Tools, rb.File)
	}
	assert.Equal(t, []string{"container-oomkilled.md", "payments-timeouts.md"}, names)
}

var (
	t0 = time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	t1 = t0.Add(time.Hour)
)

func alertIssue(labels map[string]string) investigate.Issue {
	return investigate.Issue{Trigger: investigate.TriggerAlert, Labels: labels, Start: t0, End: t1}
}

func TestMatch(t *testing.T) {
	lib := &runbooks.Library{}
	for name, text := range map[string]string{
		"a-payments.md": good,
		"b-infra.md":    "---\nmatch:\n  buckets: [infrastructure]\n  services: [cart]\n---\n# infra\n",
		"c-oom.md":      "---\nmatch:\n  alerts: [KubeContainerOOMKilled]\ntools:\n  - {name: ws, kind: promql_instant, query: 'container_memory_working_set_bytes{container=\"${service}\"}'}\n---\n# oom\n",
	} {
		rb, err := runbooks.Parse(name, []byte(text))
		require.NoError(t, err, name)
		lib.Runbooks = append(lib.Runbooks, rb)
	}
	names := func(ms []investigate.RunbookMatch) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.Name)
		}
		return out
	}
	payments := map[string]string{"alertname": "PaymentGatewayTimeout", "team": "payments", "severity": "critical", "service": "payments", "namespace": "shop"}

	t.Run("alert, labels and service all hold", func(t *testing.T) {
		ms := lib.Match(investigate.RunbookSubject{Issue: alertIssue(payments)})
		require.Equal(t, []string{"a-payments.md"}, names(ms))
		m := ms[0]
		assert.Equal(t, "# Steps\nLook at the gateway.", m.Guidance)
		require.Len(t, m.Calls, 2)
		assert.Equal(t, investigate.ToolCall{Tool: "metrics_query_range", Runbook: "a-payments.md#p99", Args: map[string]any{
			"query": `histogram_quantile(0.99, sum by (le) (rate(http_server_request_duration_seconds_bucket{service_name="payments"}[5m])))`,
			"start": "2026-03-04T10:00:00Z", "end": "2026-03-04T11:00:00Z", "step": "1m"}}, m.Calls[0])
		assert.Equal(t, investigate.ToolCall{Tool: "logs_query", Runbook: "a-payments.md#timeouts", Args: map[string]any{
			"query": `{service_name="payments", namespace="shop"} |= "timeout"`,
			"start": "2026-03-04T10:00:00Z", "end": "2026-03-04T11:00:00Z", "limit": 200}}, m.Calls[1])
	})
	t.Run("one condition fails", func(t *testing.T) {
		for k, v := range map[string]string{"alertname": "DiskFull", "team": "search", "severity": "warning", "service": "cart"} {
			l := map[string]string{}
			for a, b := range payments {
				l[a] = b
			}
			l[k] = v
			assert.Empty(t, lib.Match(investigate.RunbookSubject{Issue: alertIssue(l)}), "%s=%s", k, v)
		}
	})
	t.Run("a service named differently but the same", func(t *testing.T) {
		l := map[string]string{"alertname": "PaymentsLatencyHigh", "team": "payments", "severity": "critical"}
		is := alertIssue(l)
		is.Service = "payments-service"
		assert.Equal(t, []string{"a-payments.md"}, names(lib.Match(investigate.RunbookSubject{Issue: is})))
	})
	t.Run("a bucket condition waits for the evidence", func(t *testing.T) {
		is := investigate.Issue{Text: "cart is down", Trigger: investigate.TriggerMention, Start: t0, End: t1}
		assert.Empty(t, lib.Match(investigate.RunbookSubject{Issue: is}))
		assert.Empty(t, lib.Match(investigate.RunbookSubject{Issue: is, Services: []string{"cart"}, Bucket: investigate.BucketCodeBug}))
		assert.Equal(t, []string{"b-infra.md"}, names(lib.Match(investigate.RunbookSubject{Issue: is, Services: []string{"cart"}, Bucket: investigate.BucketInfrastructure})))
	})
	t.Run("a variable without a safe value leaves its query out", func(t *testing.T) {
		oom := map[string]string{"alertname": "KubeContainerOOMKilled", "container": "cart"}
		ms := lib.Match(investigate.RunbookSubject{Issue: alertIssue(oom)})
		require.Equal(t, []string{"c-oom.md"}, names(ms))
		require.Len(t, ms[0].Calls, 1)
		assert.Equal(t, `container_memory_working_set_bytes{container="cart"}`, ms[0].Calls[0].Args["query"])
		assert.Equal(t, "2026-03-04T11:00:00Z", ms[0].Calls[0].Args["time"])

		oom["container"] = `cart"} or vector(1) #`
		ms = lib.Match(investigate.RunbookSubject{Issue: alertIssue(oom)})
		require.Equal(t, []string{"c-oom.md"}, names(ms), "the runbook still applies")
		assert.Empty(t, ms[0].Calls, "a label cannot change the query's shape")
	})
	t.Run("at most MaxMatches runbooks apply", func(t *testing.T) {
		big := &runbooks.Library{}
		for i := range runbooks.MaxMatches + 2 {
			rb, err := runbooks.Parse(fmt.Sprintf("r%d.md", i), []byte("---\nmatch:\n  services: [cart]\n---\n# x\n"))
			require.NoError(t, err)
			big.Runbooks = append(big.Runbooks, rb)
		}
		is := investigate.Issue{Service: "cart", Start: t0, End: t1}
		assert.Len(t, big.Match(investigate.RunbookSubject{Issue: is}), runbooks.MaxMatches)
	})
}
