package k8s

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseObjects(t *testing.T) {
	yamlList := "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: a\n    creationTimestamp: 2026-01-01T00:00:00Z\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: b\n"
	raws, err := parseObjects(yamlList)
	require.NoError(t, err)
	pods := decodeAll[pod](raws)
	require.Len(t, pods, 2)
	assert.Equal(t, "a", pods[0].Metadata.Name)
	assert.Equal(t, "2026-01-01T00:00:00Z", pods[0].Metadata.CreationTimestamp, "timestamps stay strings")

	raws, err = parseObjects(`[{"kind":"Pod","metadata":{"name":"j"}}]`)
	require.NoError(t, err)
	assert.Len(t, raws, 1)

	raws, err = parseObjects(`{"apiVersion":"v1","kind":"List","items":[{"kind":"Pod","metadata":{"name":"x"}},{"kind":"Pod","metadata":{"name":"y"}}]}`)
	require.NoError(t, err)
	assert.Len(t, raws, 2)

	raws, err = parseObjects("# The following resources (YAML):\napiVersion: v1\nkind: Pod\nmetadata:\n  name: one\n")
	require.NoError(t, err)
	assert.Len(t, raws, 1)

	for _, empty := range []string{"", "[]", "No resources found"} {
		raws, err = parseObjects(empty)
		assert.NoError(t, err)
		assert.Empty(t, raws)
	}

	_, err = parseObjects("NAMESPACE   APIVERSION   KIND   NAME   READY\nshop        v1           Pod    a      1/1\n")
	assert.ErrorIs(t, err, errTable)

	_, err = parseObjects("{{{ not yaml")
	assert.Error(t, err)
}

func TestTableRows(t *testing.T) {
	table := "NAMESPACE   APIVERSION   KIND   NAME                    READY   STATUS             RESTARTS       AGE   IP          NODE     NOMINATED NODE   READINESS GATES   LABELS\n" +
		"shop        v1           Pod    cart-dzq4gtp8tn-wp7rz   0/1     CrashLoopBackOff   6 (5m2s ago)   68m   10.42.3.9   node-a   <none>           <none>            app=cart\n" +
		"shop        v1           Pod    frontend-x-y            1/1     Running            0              4d    10.42.3.2   node-a   <none>           <none>            app=frontend\n"
	rows := tableRows(table)
	require.Len(t, rows, 2)
	assert.Equal(t, "cart-dzq4gtp8tn-wp7rz", rows[0]["NAME"])
	assert.Equal(t, "CrashLoopBackOff", rows[0]["STATUS"])
	assert.Equal(t, "6 (5m2s ago)", rows[0]["RESTARTS"])
	assert.Equal(t, "<none>", rows[0]["NOMINATED NODE"])
	assert.Equal(t, "app=frontend", rows[1]["LABELS"])
}

func TestParseEventsList(t *testing.T) {
	text := "# The following events (YAML format) were found:\n- InvolvedObject:\n    Kind: Pod\n    Name: cart-abc\n    apiVersion: v1\n  Message: Back-off restarting failed container cart\n  Namespace: shop\n  Reason: BackOff\n  Timestamp: 2026-11-27 18:35:23 +0000 UTC\n  Type: Warning\n"
	evs, err := parseEventsList(text)
	require.NoError(t, err)
	require.Len(t, evs, 1)
	first, last, count := evs[0].times()
	assert.Equal(t, time.Date(2026, 11, 27, 18, 35, 23, 0, time.UTC), last)
	assert.Equal(t, last, first)
	assert.Equal(t, 1, count)
	assert.Equal(t, "shop", nsOf(evs[0]))

	evs, err = parseEventsList("# No events found")
	assert.NoError(t, err)
	assert.Empty(t, evs)
}

func TestWorkloadNames(t *testing.T) {
	ix := newIndex([]workloadObj{
		{Kind: "ReplicaSet", Metadata: meta{Name: "api-6d4cf56db6", Namespace: "ns", OwnerReferences: []ownerRef{{Kind: "Deployment", Name: "api"}}}},
		{Kind: "Job", Metadata: meta{Name: "report-29467200", Namespace: "ns", OwnerReferences: []ownerRef{{Kind: "CronJob", Name: "report"}}}},
		{Kind: "StatefulSet", Metadata: meta{Name: "db", Namespace: "ns"}},
	})
	p := func(kind, owner string, labels map[string]string) *pod {
		var pd pod
		pd.Metadata = meta{Name: "x", Namespace: "ns", Labels: labels}
		if kind != "" {
			pd.Metadata.OwnerReferences = []ownerRef{{Kind: kind, Name: owner}}
		}
		pd.Spec.Containers = []container{{Name: "main"}}
		return &pd
	}
	assert.Equal(t, "api", ix.workloadOf(p("ReplicaSet", "api-6d4cf56db6", nil)), "through the ReplicaSet's owner")
	assert.Equal(t, "cart", ix.workloadOf(p("ReplicaSet", "cart-dzq4gtp8tn", map[string]string{"pod-template-hash": "dzq4gtp8tn"})), "hash label")
	assert.Equal(t, "payouts-worker", ix.workloadOf(p("ReplicaSet", "payouts-worker-79f5cw5zl", nil)), "hash alphabet")
	assert.Equal(t, "report", ix.workloadOf(p("Job", "report-29467200", nil)), "through the Job's CronJob")
	assert.Equal(t, "nightly-report", ix.workloadOf(p("Job", "nightly-report-29467200", nil)), "CronJob suffix")
	assert.Equal(t, "db", ix.workloadOf(p("StatefulSet", "db", nil)))
	assert.Equal(t, "web", ix.workloadOf(p("", "", map[string]string{"app": "web"})))
	assert.Equal(t, "main", ix.workloadOf(p("", "", nil)), "the container name")

	assert.Equal(t, "catalog-indexer", ix.fromPodName("catalog-indexer-5f9d8c7b6-t7khl"))
	assert.Equal(t, "payouts-worker", ix.fromPodName("payouts-worker-79f5cw5zl-6bgzv"))
	assert.Equal(t, "db", ix.fromPodName("db-0"))
	assert.Equal(t, "queue-worker", ix.fromPodName("queue-worker"), "words are not hashes")
	assert.Equal(t, "api", ix.fromObjectName("Certificate", "ns", "api-tls"))
	assert.Equal(t, "", ix.fromObjectName("Certificate", "ns", "unrelated"))
}

// An event about a pod of a revision already rolled away names the pod
// only: it belongs to the workload that was read and prefixes its name,
// whatever alphabet generated the hash and suffix.
func TestPodNameOfKnownWorkload(t *testing.T) {
	ix := newIndex([]workloadObj{
		{Kind: "Deployment", Metadata: meta{Name: "menu-api", Namespace: "ns"}},
		{Kind: "Deployment", Metadata: meta{Name: "cart", Namespace: "ns"}},
	})
	assert.Equal(t, "menu-api", ix.fromPodName("menu-api-c171bcbdf-36769"), "hex hash and numeric suffix")
	assert.Equal(t, "menu-api", ix.resolve("ReplicaSet", "ns", "menu-api-c171bcbdf", nil), "a ReplicaSet named after it")
	assert.Equal(t, "cart-worker", ix.fromPodName("cart-worker"), "a word is not a generated suffix")
	assert.Equal(t, "cart-worker", ix.fromPodName("cart-worker-7d9c4f5b6-x2kqz"), "a workload not read keeps its own name")
	assert.Equal(t, "cart-v2", ix.fromPodName("cart-v2"), "too short for a generated suffix")
	assert.Equal(t, "other-c171bcbdf-36769", newIndex(nil).fromPodName("other-c171bcbdf-36769"), "nothing read, nothing guessed")
}

func TestJoinEntries(t *testing.T) {
	py := []string{
		"starting worker",
		"Traceback (most recent call last):",
		`  File "/srv/app.py", line 3, in <module>`,
		"    import requests",
		"ImportError: boom",
		"next line",
	}
	got := joinEntries(py)
	require.Len(t, got, 3)
	assert.Equal(t, "starting worker", got[0])
	assert.Contains(t, got[1], `File "/srv/app.py", line 3`)
	assert.True(t, len(got[1]) > 0 && got[1][len(got[1])-len("ImportError: boom"):] == "ImportError: boom")
	assert.Equal(t, "next line", got[2])

	java := []string{"Exception in thread \"main\" java.lang.IllegalStateException: bad", "\tat com.acme.Main.run(Main.java:10)", "Caused by: java.io.IOException: x", "\t... 3 more"}
	assert.Len(t, joinEntries(java), 1)

	goPanic := []string{"panic: runtime error: index out of range [3] with length 3", "", "goroutine 1 [running]:", "main.handler(0x1)", "\t/app/main.go:88 +0x1d", "exit status 2"}
	got = joinEntries(goPanic)
	require.Len(t, got, 2)
	assert.Contains(t, got[0], "/app/main.go:88")

	structured := []string{
		`time=2026-03-12T08:52:36Z level=ERROR msg="startup failed"`,
		"  detail continues",
		`time=2026-03-12T08:52:37Z level=INFO msg="retry"`,
	}
	assert.Len(t, joinEntries(structured), 2)
}

func TestParseTimeFormats(t *testing.T) {
	want := time.Date(2026, 3, 12, 8, 52, 36, 0, time.UTC)
	assert.Equal(t, want, parseTime("2026-03-12T08:52:36Z"))
	assert.Equal(t, want, parseTime("2026-03-12 08:52:36 +0000 UTC"))
	assert.True(t, parseTime("yesterday").IsZero())
	assert.Equal(t, want, parseLineTime("2026-03-12 08:52:36,000"))
}
