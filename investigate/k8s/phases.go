package k8s

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/autoheal/autoheal/investigate"
)

// scanOptions are the arguments of one scan.
type scanOptions struct {
	ns       string
	services []string // report on these workloads only (empty: all)
	prefer   []string // read these workloads' logs first
	now      time.Time
}

// kindSpec is a kind the analyzers read through resources_list.
type kindSpec struct {
	api, kind string
	cluster   bool // cluster-scoped, or listed across namespaces (GitOps objects live in their own)
	optional  bool // a custom resource: a cluster without it is normal, not worth a note
}

// analyzedKinds are listed with pods and events in the first phase.
var analyzedKinds = []kindSpec{
	{api: "apps/v1", kind: "DaemonSet"},
	{api: "batch/v1", kind: "CronJob"},
	{api: "v1", kind: "Service"},
	{api: "v1", kind: "Endpoints"},
	{api: "networking.k8s.io/v1", kind: "Ingress"},
	{api: "v1", kind: "PersistentVolumeClaim"},
	{api: "storage.k8s.io/v1", kind: "StorageClass", cluster: true},
	{api: "autoscaling/v2", kind: "HorizontalPodAutoscaler"},
	{api: "networking.k8s.io/v1", kind: "NetworkPolicy"},
	{api: "v1", kind: "ResourceQuota"},
	{api: "v1", kind: "LimitRange"},
	{api: "v1", kind: "ConfigMap"},
	{api: "rbac.authorization.k8s.io/v1", kind: "RoleBinding"},
	{api: "rbac.authorization.k8s.io/v1", kind: "ClusterRoleBinding", cluster: true},
	{api: "cert-manager.io/v1", kind: "Certificate", optional: true},
	{api: "gateway.networking.k8s.io/v1", kind: "HTTPRoute", optional: true},
}

// Kinds read in the second phase, only when the evidence calls for them.
var (
	rbacKinds = []kindSpec{
		{api: "rbac.authorization.k8s.io/v1", kind: "Role"},
		{api: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", cluster: true},
	}
	issuerKinds = []kindSpec{
		{api: "cert-manager.io/v1", kind: "Issuer", optional: true},
		{api: "cert-manager.io/v1", kind: "ClusterIssuer", cluster: true, optional: true},
	}
	gitopsKinds = []kindSpec{
		{api: "argoproj.io/v1alpha1", kind: "Application", cluster: true, optional: true},
		{api: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", cluster: true, optional: true},
		{api: "helm.toolkit.fluxcd.io/v2", kind: "HelmRelease", cluster: true, optional: true},
		{api: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", cluster: true, optional: true},
	}
)

// listKind reads the objects of one kind into the snapshot.
func (c *Capability) listKind(ctx context.Context, k kindSpec, ns string, snap *snapshot, mu *sync.Mutex, note func(string, error)) {
	args := map[string]any{"apiVersion": k.api, "kind": k.kind}
	if ns != "" && !k.cluster {
		args["namespace"] = ns
	}
	text, err := c.call(ctx, "resources_list", args)
	if err != nil {
		if !k.optional {
			note(strings.ToLower(k.kind)+"s", err)
		}
		return
	}
	raws, err := parseObjects(text)
	if errors.Is(err, errTable) {
		note(strings.ToLower(k.kind)+"s", errors.New("a table answer (--list-output table) cannot be analysed"))
		return
	}
	if err != nil {
		if !k.optional {
			note(strings.ToLower(k.kind)+"s", err)
		}
		return
	}
	bs := make([][]byte, len(raws))
	for i := range raws {
		bs[i] = raws[i]
	}
	mu.Lock()
	defer mu.Unlock()
	snap.add(k.kind, bs)
}

// listAll reads several kinds at once.
func (c *Capability) listAll(ctx context.Context, kinds []kindSpec, ns string, snap *snapshot, mu *sync.Mutex, note func(string, error)) {
	var fns []func()
	for _, k := range kinds {
		fns = append(fns, func() { c.listKind(ctx, k, ns, snap, mu, note) })
	}
	runAll(ctx, fns...)
}

// secondPhase reads what the first phase says is worth reading: RBAC
// objects when the API refused a service account, certificate issuers
// when a certificate is not Ready.
func (c *Capability) secondPhase(ctx context.Context, an *analyzer, ns string, note func(string, error)) {
	var mu sync.Mutex
	var kinds []kindSpec
	if an.needsRBAC() {
		kinds = append(kinds, rbacKinds...)
	}
	if an.certificateNotReady() {
		kinds = append(kinds, issuerKinds...)
	}
	if len(kinds) > 0 {
		c.listAll(ctx, kinds, ns, an.snap, &mu, note)
	}
}

// listGitOps reads the objects that say what deploys the workloads.
func (c *Capability) listGitOps(ctx context.Context, snap *snapshot, mu *sync.Mutex, note func(string, error)) {
	c.listAll(ctx, gitopsKinds, "", snap, mu, note)
}

// Bounds of the current logs read per scan.
const (
	maxCurrentLogPods = 6
	currentLogLines   = 200
)

// readCurrentLogs reads the current logs of one pod of a few workloads
// whose logs can say what the cluster refuses them: those that talk to
// the API server (their service account is bound to a role: RBAC
// refusals), those behind NetworkPolicies (connections that time out) and
// those the incident names; the named ones first, then those not ready or
// restarting. Refusals are often logged at warning level.
func (c *Capability) readCurrentLogs(ctx context.Context, an *analyzer, prefer []string, note func(string, error)) {
	guarded := map[string]bool{} // namespaces with NetworkPolicies
	for _, np := range an.snap.policies {
		guarded[np.Metadata.Namespace] = true
	}
	type cand struct {
		p    *pod
		wl   string
		rank int
	}
	var cands []cand
	seen := map[string]bool{}
	for i := range an.snap.pods {
		p := &an.snap.pods[i]
		key := p.Metadata.Namespace + "/" + p.Metadata.Name
		wl := an.podWL[key]
		if p.Status.Phase != "Running" || seen[wl] || len(p.Spec.Containers) == 0 {
			continue
		}
		preferred := len(prefer) > 0 && matchService(wl, prefer)
		if !preferred && !guarded[p.Metadata.Namespace] && !an.saBound(p.Metadata.Namespace, p.Spec.serviceAccount()) {
			continue // nothing the cluster refuses it would show in its logs alone
		}
		seen[wl] = true
		rank := 3
		switch {
		case preferred:
			rank = 0
		case !p.ready():
			rank = 1
		case p.restarts() > 0:
			rank = 2
		}
		cands = append(cands, cand{p, wl, rank})
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].rank != cands[j].rank {
			return cands[i].rank < cands[j].rank
		}
		return cands[i].wl < cands[j].wl
	})
	if len(cands) > maxCurrentLogPods {
		cands = cands[:maxCurrentLogPods]
	}
	logs := make([][]string, len(cands))
	var fns []func()
	for i, cd := range cands {
		fns = append(fns, func() {
			ctr := mainContainer(cd.p, cd.wl)
			text, err := c.call(ctx, "pods_log", map[string]any{"namespace": cd.p.Metadata.Namespace, "name": cd.p.Metadata.Name, "container": ctr, "tail": currentLogLines})
			if err != nil {
				note("logs of "+cd.p.Metadata.Name, err)
				return
			}
			logs[i] = joinEntries(splitLines(text))
		})
	}
	runAll(ctx, fns...)
	for i, cd := range cands {
		if logs[i] != nil {
			key := cd.p.Metadata.Namespace + "/" + cd.p.Metadata.Name
			an.snap.logs[key] = append(an.snap.logs[key], logs[i]...)
		}
	}
}

// mainContainer is the container named like the workload, else the first.
func mainContainer(p *pod, wl string) string {
	for _, c := range p.Spec.Containers {
		if c.Name == wl {
			return c.Name
		}
	}
	return p.Spec.Containers[0].Name
}

// latestTime is the latest time the snapshot shows (the clock of a frozen
// scenario; near now on a live cluster).
func latestTime(s *snapshot) time.Time {
	var t time.Time
	for _, e := range s.events {
		if _, last, _ := e.times(); last.After(t) {
			t = last
		}
	}
	if t.IsZero() {
		t = time.Now().UTC()
	}
	return t
}

// faultFindings turns the faults into findings (those of the requested
// services only, when services are given).
func (a *analyzer) faultFindings(faults []fault, services []string) []investigate.Finding {
	var out []investigate.Finding
	for _, f := range faults {
		if f.Workload == "" || (len(services) > 0 && !matchService(f.Workload, services)) {
			continue
		}
		if fd, ok := f.finding(); ok {
			out = append(out, fd)
		}
	}
	return out
}

// faultView is a fault as planners read it.
func faultView(f fault) map[string]any {
	v := map[string]any{"analyzer": f.Analyzer, "workload": f.Workload, "message": f.Message}
	if f.Ref.Kind != "" {
		v["object"] = f.Ref.Object()
		v["field"] = f.Ref.Field
		if f.Ref.Value != "" {
			v["value"] = f.Ref.Value
		}
		if f.Ref.Want != "" {
			v["want"] = f.Ref.Want
		}
	}
	if f.Evidence != "" {
		v["evidence"] = investigate.Quote(f.Evidence, 200)
	}
	return v
}
