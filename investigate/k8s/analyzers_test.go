package k8s

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
)

// Each analyzer is tested on objects as `kubectl get -o json` prints them
// (testdata/analyzers/*.json, v1 Lists), with the log lines a pod printed
// where the analyzer reads logs.

func loadCluster(t *testing.T, name string, logs map[string][]string) *analyzer {
	t.Helper()
	b, err := os.ReadFile("testdata/analyzers/" + name + ".json")
	require.NoError(t, err)
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	require.NoError(t, json.Unmarshal(b, &list))
	snap := &snapshot{listed: map[string]bool{"Pod": true, "Event": true}, logs: logs, now: mustTime("2026-03-02T10:00:00Z")}
	if snap.logs == nil {
		snap.logs = map[string][]string{}
	}
	for _, it := range list.Items {
		snap.add("List", [][]byte{it})
	}
	for _, k := range []string{"Service", "StorageClass", "Role", "ClusterRole", "RoleBinding", "Issuer", "ClusterIssuer", "Deployment"} {
		snap.listed[k] = true // read, even when the cluster has none
	}
	an := newAnalyzer(snap)
	an.scanPods()
	return an
}

// only returns the single fault of a workload.
func only(t *testing.T, fs []fault, workload string) fault {
	t.Helper()
	var out []fault
	for _, f := range fs {
		if f.Workload == workload {
			out = append(out, f)
		}
	}
	require.Len(t, out, 1, "faults of %s: %+v", workload, fs)
	return out[0]
}

func noFault(t *testing.T, fs []fault, workload string) {
	t.Helper()
	for _, f := range fs {
		assert.NotEqual(t, workload, f.Workload, "unexpected fault %+v", f)
	}
}

func TestSchedulingAnalyzer(t *testing.T) {
	fs := schedulingFaults(loadCluster(t, "scheduling", nil))

	f := only(t, fs, "report-builder")
	assert.Equal(t, "Deployment", f.Ref.Kind)
	assert.Equal(t, "spec.template.spec.containers[report-builder].resources.requests.cpu", f.Ref.Field)
	assert.Equal(t, "8", f.Ref.Value)
	assert.Equal(t, "k8s-scheduling", f.Signature)
	assert.Contains(t, f.Message, "more than any node can offer (largest allocatable 4")
	assert.Equal(t, mustTime("2026-03-02T09:10:41Z"), f.Time, "the first FailedScheduling event")

	f = only(t, fs, "trainer")
	assert.Equal(t, "spec.template.spec.nodeSelector.pool", f.Ref.Field)
	assert.Equal(t, "gpu", f.Ref.Value)

	f = only(t, fs, "nightly-batch")
	assert.Equal(t, "spec.template.spec.tolerations", f.Ref.Field, "the nodeSelector picks the tainted pool")
	assert.Equal(t, "dedicated=batch", f.Ref.Want)

	noFault(t, fs, "dashboard")
}

func TestConfigRefsAnalyzer(t *testing.T) {
	fs := configRefFaults(loadCluster(t, "configrefs", nil))

	f := only(t, fs, "api")
	assert.Equal(t, investigate.FieldRef{Kind: "ConfigMap", Namespace: "shop", Name: "api-config", Field: "data.DB_HOST", Want: "DB_HOST", Reason: "ConfigMapKeyMissing"}, f.Ref,
		"the key to add is named on the ConfigMap")
	assert.Equal(t, "DATABASE_HOST", f.Attrs["similar_keys"])
	assert.Equal(t, "spec.template.spec.containers[api].env[DB_HOST].valueFrom.configMapKeyRef.key", f.Attrs["reference"])
	assert.Equal(t, 120, f.Count)

	f = only(t, fs, "worker")
	assert.Equal(t, "Deployment", f.Ref.Kind, "a Secret is never read: the reference is named")
	assert.Equal(t, "spec.template.spec.containers[worker].env[QUEUE_PASSWORD].valueFrom.secretKeyRef.name", f.Ref.Field)
	assert.Equal(t, "worker-queue-creds", f.Ref.Value)
}

func TestAdmissionAnalyzer(t *testing.T) {
	fs := admissionFaults(loadCluster(t, "admission", nil))

	f := only(t, fs, "exporter")
	assert.Equal(t, "k8s-limitrange", f.Signature)
	assert.Equal(t, "spec.template.spec.containers[exporter].resources.limits.memory", f.Ref.Field)
	assert.Equal(t, "2Gi", f.Ref.Value)
	assert.Equal(t, "1Gi", f.Ref.Want)
	assert.Equal(t, mustTime("2026-03-02T09:19:40Z"), f.Time)

	f = only(t, fs, "renderer")
	assert.Equal(t, "quota-exceeded", f.Signature)
	assert.Equal(t, investigate.FieldRef{Kind: "ResourceQuota", Namespace: "reports", Name: "reports-compute", Field: "spec.hard.requests.cpu", Value: "8", Reason: "QuotaExceeded"}, f.Ref)
}

func TestServiceAnalyzer(t *testing.T) {
	fs := serviceFaults(loadCluster(t, "service", nil))

	f := only(t, fs, "checkout")
	assert.Equal(t, "k8s-selector-mismatch", f.Signature)
	assert.Equal(t, "spec.selector.app.kubernetes.io/name", f.Ref.Field)
	assert.Equal(t, "checkout-service", f.Ref.Value)
	assert.Equal(t, "checkout", f.Ref.Want)
	assert.Contains(t, f.Evidence, "Endpoints checkout has no addresses")
	assert.Equal(t, mustTime("2026-03-02T09:00:00Z"), f.Time, "empty since the pods it was meant for were created")

	f = only(t, fs, "cart")
	assert.Equal(t, "k8s-target-port", f.Signature)
	assert.Equal(t, "spec.ports[grpc].targetPort", f.Ref.Field)
	assert.Equal(t, "8080", f.Ref.Value)
	assert.Equal(t, "7070", f.Ref.Want)

	noFault(t, fs, "frontend") // a named targetPort the pods declare
}

func TestIngressAnalyzer(t *testing.T) {
	fs := ingressFaults(loadCluster(t, "ingress", nil))

	f := only(t, fs, "storefront")
	assert.Equal(t, "spec.rules[0].http.paths[0].backend.service.name", f.Ref.Field)
	assert.Equal(t, "storefront-svc", f.Ref.Value)
	assert.Equal(t, "storefront", f.Ref.Want)

	f = only(t, fs, "search")
	assert.Equal(t, "spec.rules[0].http.paths[1].backend.service.port.number", f.Ref.Field)
	assert.Equal(t, "9200", f.Ref.Value)
	assert.Equal(t, "80", f.Ref.Want)
}

func TestGatewayRouteAnalyzer(t *testing.T) {
	fs := ingressFaults(loadCluster(t, "gateway", nil))

	f := only(t, fs, "storefront")
	assert.Equal(t, investigate.FieldRef{Kind: "HTTPRoute", Namespace: "web", Name: "public",
		Field: "spec.rules[0].backendRefs[0].name", Value: "storefront-svc", Want: "storefront", Reason: "BackendServiceNotFound"}, f.Ref)

	f = only(t, fs, "search")
	assert.Equal(t, "spec.rules[1].backendRefs[0].port", f.Ref.Field)
	assert.Equal(t, "9200", f.Ref.Value, "the pods' port, not the Service's")
	assert.Contains(t, f.Message, "backend port 9200 is not a port of Service search")
}

func TestStorageAnalyzer(t *testing.T) {
	fs := storageFaults(loadCluster(t, "storage", nil))

	f := only(t, fs, "postgres")
	assert.Equal(t, investigate.FieldRef{Kind: "StatefulSet", Namespace: "data", Name: "postgres",
		Field: "spec.volumeClaimTemplates[data].spec.storageClassName", Value: "premium-ssd", Want: "standard-rwo", Reason: "StorageClassNotFound"}, f.Ref,
		"a claim made from a template is fixed in the StatefulSet")
	assert.Equal(t, 180, f.Count)
	assert.Equal(t, mustTime("2026-03-02T09:02:00Z"), f.Time)
	assert.Contains(t, f.Evidence, "ProvisioningFailed")

	noFault(t, fs, "media") // its claim is Bound
}

func TestAutoscalerAnalyzer(t *testing.T) {
	fs := autoscalerFaults(loadCluster(t, "autoscaler", nil))

	f := only(t, fs, "web")
	assert.Equal(t, "k8s-hpa-no-requests", f.Signature)
	assert.Equal(t, "spec.template.spec.containers[web].resources.requests.cpu", f.Ref.Field)
	assert.Empty(t, f.Ref.Value, "the request is missing")
	assert.NotEmpty(t, f.Ref.Want)
	assert.Equal(t, mustTime("2026-03-02T09:03:00Z"), f.Time)

	f = only(t, fs, "api")
	assert.Equal(t, "hpa-at-max", f.Signature)
	assert.Equal(t, "spec.maxReplicas", f.Ref.Field)
	assert.Equal(t, "4", f.Ref.Value)
}

func TestNetworkPolicyIngressAnalyzer(t *testing.T) {
	logs := map[string][]string{"payments/payments-api-7c8d9x6f5b-pprpp": {
		`2026-03-02T09:14:03.201Z ERROR ledger client: Post "http://ledger.payments.svc:8080/v1/entries": dial tcp 10.96.40.20:8080: i/o timeout`,
	}}
	fs := networkPolicyFaults(loadCluster(t, "netpol", logs))

	f := only(t, fs, "ledger")
	assert.Equal(t, "k8s-netpol-blocked", f.Signature)
	assert.Equal(t, investigate.FieldRef{Kind: "NetworkPolicy", Namespace: "payments", Name: "ledger-ingress",
		Field: "spec.ingress[0].from[0].podSelector.matchLabels.app", Value: "payments-gateway", Want: "payments-api", Reason: "IngressNotAllowed"}, f.Ref)
	assert.Equal(t, "payments-api", f.Attrs["blocked_peer"])
	assert.Equal(t, mustTime("2026-03-02T09:14:03.201Z"), f.Time)

	// Without a failed connection, a rule that admits no pod is still named.
	fs = networkPolicyFaults(loadCluster(t, "netpol", nil))
	f = only(t, fs, "ledger")
	assert.Equal(t, "PeerSelectsNoPods", f.Ref.Reason)
	assert.Equal(t, "spec.ingress[0].from[0].podSelector.matchLabels.app", f.Ref.Field)
}

func TestNetworkPolicyEgressAnalyzer(t *testing.T) {
	logs := map[string][]string{"docs/export-service-6d7k8f9b5c-wwxww": {
		`{"level":"error","time":"2026-03-02T09:41:12.118Z","msg":"redis connection error","err":{"message":"connect ETIMEDOUT","code":"ETIMEDOUT","address":"10.96.44.12","port":6379}}`,
	}}
	fs := networkPolicyFaults(loadCluster(t, "netpol-egress", logs))
	f := only(t, fs, "export-service")
	assert.Equal(t, "docs-default-deny-egress", f.Ref.Name)
	assert.Equal(t, "spec.egress", f.Ref.Field)
	assert.Equal(t, "EgressNotAllowed", f.Ref.Reason)
	assert.Equal(t, "redis-master", f.Attrs["blocked_peer"])

	// Traffic the policy allows is not blamed on it.
	logs = map[string][]string{"docs/export-service-6d7k8f9b5c-wwxww": {`dial tcp 10.0.32.7:5432: connect: connection refused`}}
	assert.Empty(t, networkPolicyFaults(loadCluster(t, "netpol-egress", logs)))
}

func TestRBACAnalyzer(t *testing.T) {
	line := `W0302 09:21:44.118210       1 reflector.go:561] k8s.io/client-go/informers/factory.go:160: failed to list *v1.Pod: pods is forbidden: User "system:serviceaccount:batch:scheduler" cannot list resource "pods" in API group "" in the namespace "batch"`
	an := loadCluster(t, "rbac", map[string][]string{"batch/job-scheduler-6c7d8x9f5b-sstss": {line, line}})
	require.True(t, an.needsRBAC())
	fs := rbacFaults(an)

	f := only(t, fs, "job-scheduler")
	assert.Equal(t, "k8s-rbac-forbidden", f.Signature)
	assert.Equal(t, investigate.FieldRef{Kind: "Role", Namespace: "batch", Name: "scheduler", Field: "rules[0].verbs", Value: "get,watch", Want: "list", Reason: "VerbNotAllowed"}, f.Ref)
	assert.Equal(t, 2, f.Count)
	assert.Equal(t, "batch/scheduler", f.Attrs["service_account"])
	assert.Equal(t, mustTime("2026-03-02T09:21:44.11821Z"), f.Time, "a klog line's time, the year from the clock")

	// No refusal, nothing to say about the roles.
	assert.Empty(t, rbacFaults(loadCluster(t, "rbac", nil)))
}

func TestJobAnalyzer(t *testing.T) {
	fs := jobFaults(loadCluster(t, "job", nil))
	f := only(t, fs, "nightly-export")
	assert.Equal(t, investigate.FieldRef{Kind: "CronJob", Namespace: "etl", Name: "nightly-export", Field: "spec.jobTemplate.spec.activeDeadlineSeconds", Value: "600", Reason: "DeadlineExceeded"}, f.Ref)
	assert.Equal(t, investigate.ErrTimeout, investigate.SignatureByID(f.Signature).ErrorType)
}

func TestCertificateAnalyzer(t *testing.T) {
	fs := certificateFaults(loadCluster(t, "certificate", nil))
	f := only(t, fs, "api-gateway")
	assert.Equal(t, investigate.FieldRef{Kind: "Certificate", Namespace: "edge", Name: "api-tls", Field: "spec.issuerRef.name", Value: "letsencrypt-prod", Want: "letsencrypt-production", Reason: "IssuerNotFound"}, f.Ref)
}

func TestGitOpsTargets(t *testing.T) {
	an := loadCluster(t, "gitops", nil)

	tg, ok := an.deployTarget("Deployment", "shop", "checkout")
	require.True(t, ok)
	assert.Equal(t, investigate.DeployTarget{Source: "argocd", Object: "Application argocd/shop-prod", RepoURL: "https://github.com/acme/shop-deploy.git",
		Repo: "acme/shop-deploy", Ref: "main", Path: "overlays/prod"}, tg, "the tracking annotation")

	tg, ok = an.deployTarget("Deployment", "payments", "ledger")
	require.True(t, ok)
	assert.Equal(t, "acme/payments-chart", tg.Repo, "an scp-like URL")
	assert.Equal(t, []string{"charts/payments/values.yaml", "charts/payments/values-prod.yaml"}, tg.ValueFiles)

	tg, ok = an.deployTarget("Deployment", "ops", "notifier")
	require.True(t, ok)
	assert.Equal(t, investigate.DeployTarget{Source: "flux-kustomization", Object: "Kustomization flux-system/apps", RepoURL: "ssh://git@github.com/acme/fleet",
		Repo: "acme/fleet", Ref: "main", Path: "clusters/prod/apps"}, tg, "Flux labels, the GitRepository's URL and branch")

	_, ok = an.deployTarget("Deployment", "misc", "orphan")
	assert.False(t, ok, "nothing deploys it")
}

func TestFaultFinding(t *testing.T) {
	f := fault{Analyzer: "storage", Workload: "postgres", Signature: "k8s-storage", Message: "claim pending", Evidence: "ProvisioningFailed: not found",
		Time: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC), Count: 3,
		Ref: investigate.FieldRef{Kind: "StatefulSet", Namespace: "data", Name: "postgres", Field: "spec.volumeClaimTemplates[data].spec.storageClassName", Value: "premium-ssd"}}
	fd, ok := f.finding()
	require.True(t, ok)
	assert.Equal(t, investigate.KindK8sEvent, fd.Kind)
	assert.Equal(t, investigate.ErrConfig, fd.ErrorType)
	ref, ok := investigate.FieldRefOf(fd.Attrs)
	require.True(t, ok)
	assert.Equal(t, f.Ref, ref)
	assert.Contains(t, fd.Quote, "claim pending (ProvisioningFailed: not found)")

	_, ok = fault{Signature: "no-such-signature"}.finding()
	assert.False(t, ok)
}

// observed returns the first observation of each signature for a workload
// (pod states come before events, node pressure after).
func observed(a *analyzer, workload string) map[string]*observation {
	out := map[string]*observation{}
	for _, o := range a.obs {
		if _, seen := out[o.f.Signature]; o.f.Service == workload && !seen {
			out[o.f.Signature] = o
		}
	}
	return out
}

func TestPodAnalyzer(t *testing.T) {
	a := loadCluster(t, "pods", nil)
	a.scanEvents()

	o := observed(a, "api")["k8s-configerror"]
	require.NotNil(t, o, "CreateContainerConfigError: %+v", observed(a, "api"))
	assert.Equal(t, "DB_PASSWORD", o.attrs["secret_key"])
	assert.Equal(t, "api-db", o.attrs["secret"])
	assert.Equal(t, "DB_PASSWORD", o.attrs["env_var"], "the env var that references the key")

	o = observed(a, "images")["k8s-imagepull"]
	require.NotNil(t, o)
	assert.Equal(t, "ghcr.io/acme/images:2.0.1", o.attrs["image"])
	assert.Contains(t, o.quote, "not found", "the registry's answer from the pull event")

	o = observed(a, "cart")["k8s-oomkilled"]
	require.NotNil(t, o, "an OOM kill behind a crash loop is the cause, not the loop")
	assert.Equal(t, "256Mi", o.attrs["memory_limit"])
	assert.Equal(t, 7, o.count)
	assert.Equal(t, mustTime("2026-03-02T09:12:40Z"), o.first, "dated by the first restart back-off")
	assert.Contains(t, o.quote, "now in CrashLoopBackOff")
	assert.Nil(t, observed(a, "cart")["k8s-crashloop"], "the back-off event is folded into the OOM kill")

	o = observed(a, "billing")["k8s-crashloop"]
	require.NotNil(t, o, "an init container's crash loop: %+v", observed(a, "billing"))
	assert.Equal(t, "migrate", o.attrs["container"])
	assert.Equal(t, "1", o.attrs["exit_code"])
	assert.Contains(t, o.quote, `column "currency" of relation "invoices" already exists`)

	o = observed(a, "search")["k8s-probe"]
	require.NotNil(t, o)
	assert.Equal(t, "true", o.attrs["probe_port_mismatch"])
	assert.Equal(t, "8080", o.attrs["probe_port"])
	assert.Equal(t, "9200", o.attrs["container_ports"])
	assert.Equal(t, investigate.ErrConfig, o.f.ErrorType, "a probe on a port nobody listens on is misconfigured")

	assert.Empty(t, observed(a, "frontend"), "a healthy pod and a Normal event are no findings")
}

func TestNodeAnalyzer(t *testing.T) {
	a := loadCluster(t, "nodes", nil)
	a.scanNodes()

	fs := nodeFaults(a)
	f := only(t, fs, "worker")
	assert.Equal(t, "k8s-node-notready", f.Signature)
	assert.Equal(t, "node-b", f.Attrs["node"])
	assert.Equal(t, mustTime("2026-03-02T09:17:45Z"), f.Time)
	assert.Contains(t, f.Evidence, "Kubelet stopped posting node status")
	noFault(t, fs, "api")     // on a Ready node
	noFault(t, fs, "indexer") // a pressured node is still Ready

	o := observed(a, "indexer")["k8s-evicted"]
	require.NotNil(t, o, "the pod without a memory limit on the pressured node: %+v", a.obs)
	assert.Equal(t, "MemoryPressure", o.attrs["condition"])
	assert.Equal(t, mustTime("2026-03-02T09:09:00Z"), o.first)
	assert.Empty(t, observed(a, "gateway"), "a pod with a memory limit does not press the node")
}

func TestRolloutAnalyzer(t *testing.T) {
	fs := rolloutFaults(loadCluster(t, "rollout", nil))

	f := only(t, fs, "checkout")
	assert.Equal(t, "k8s-rollout-stuck", f.Signature)
	assert.Equal(t, mustTime("2026-03-02T09:21:04Z"), f.Time)
	assert.Equal(t, "ghcr.io/acme/checkout:1.5.0", f.Attrs["image"])
	assert.Equal(t, "ghcr.io/acme/checkout:1.4.0", f.Attrs["previous_image"], "what the new revision changed")
	assert.Contains(t, f.Message, "3 of 3 replicas available, 1 unavailable")
	assert.Empty(t, f.Ref.Field, "a stuck rollout is a symptom: no field is blamed")

	f = only(t, fs, "kafka")
	assert.Contains(t, f.Message, "StatefulSet kafka rollout stuck: 1 of 3 pods updated, 1 not ready")
	assert.Equal(t, mustTime("2026-03-02T09:12:30Z"), f.Time, "since the updated pod stopped being ready")

	noFault(t, fs, "web")           // progressing normally
	noFault(t, fs, "node-exporter") // every pod updated
}

func TestLifecycleHookAnalyzer(t *testing.T) {
	fs := lifecycleFaults(loadCluster(t, "lifecycle", nil))

	// Events of pods of revisions already rolled away (hashes the pod list
	// no longer shows) are the Deployment's; its hook's command is at fault.
	f := only(t, fs, "web")
	assert.Equal(t, "Deployment", f.Ref.Kind)
	assert.Equal(t, "spec.template.spec.containers[web].lifecycle.preStop.exec.command", f.Ref.Field)
	assert.Equal(t, "sleep 10", f.Ref.Value)
	assert.Equal(t, "k8s-lifecycle-hook", f.Signature)
	assert.Equal(t, "sleep", f.Attrs["missing_executable"])
	assert.Equal(t, 3, f.Count)
	assert.Equal(t, mustTime("2026-03-02T08:10:01Z"), f.Time)
	assert.Equal(t, mustTime("2026-03-02T09:41:01Z"), f.Last)
	assert.Contains(t, f.Message, "SIGTERM without the delay")

	// The event names the container among several with a postStart hook.
	f = only(t, fs, "search")
	assert.Equal(t, "StatefulSet", f.Ref.Kind)
	assert.Equal(t, "spec.template.spec.containers[search].lifecycle.postStart.httpGet.path", f.Ref.Field)
	assert.Equal(t, "/warm", f.Ref.Value)
	assert.Empty(t, f.Attrs["missing_executable"])

	// No manifest read for the pod's workload: nothing to name.
	noFault(t, fs, "gone")
	noFault(t, fs, "gone-7d9c4f5b6-x2kqz")

	fd, ok := only(t, fs, "web").finding()
	require.True(t, ok)
	assert.Equal(t, investigate.BucketInfrastructure, investigate.SignatureByID(fd.Signature).Bucket)
	assert.Equal(t, mustTime("2026-03-02T09:41:01Z"), fd.LastTime)
}
