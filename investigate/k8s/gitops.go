package k8s

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/autoheal/autoheal/investigate"
)

// GitOps target resolution: which repository, revision and path deploy a
// workload, read from the objects of the GitOps controllers that manage
// it. Argo CD marks what it manages with a tracking annotation
// (argocd.argoproj.io/tracking-id) or label (app.kubernetes.io/instance)
// and lists it in the Application's status; Flux labels what a
// Kustomization applies (kustomize.toolkit.fluxcd.io/name) and Helm
// annotates what a release installs (meta.helm.sh/release-name). When no
// mark resolves, the only GitOps object whose destination is the
// workload's namespace is taken.

// deployTarget resolves the target of an object (the workload at fault or
// the object whose field is at fault).
func (a *analyzer) deployTarget(kind, ns, name string) (investigate.DeployTarget, bool) {
	if len(a.snap.gitops) == 0 {
		return investigate.DeployTarget{}, false
	}
	m := a.objectMeta(kind, ns, name)
	var labels, ann map[string]string
	if m != nil {
		labels, ann = m.Labels, m.Annotations
	}
	// Argo CD tracking annotation: "<app>:<group>/<kind>:<ns>/<name>".
	if id := ann["argocd.argoproj.io/tracking-id"]; id != "" {
		app, _, _ := strings.Cut(id, ":")
		if g := a.gitopsNamed("Application", "", app); g != nil {
			return a.targetOf(g), true
		}
	}
	if n := labels["kustomize.toolkit.fluxcd.io/name"]; n != "" {
		if g := a.gitopsNamed("Kustomization", labels["kustomize.toolkit.fluxcd.io/namespace"], n); g != nil {
			return a.targetOf(g), true
		}
	}
	if n := labels["helm.toolkit.fluxcd.io/name"]; n != "" {
		if g := a.gitopsNamed("HelmRelease", labels["helm.toolkit.fluxcd.io/namespace"], n); g != nil {
			return a.targetOf(g), true
		}
	}
	if rel := ann["meta.helm.sh/release-name"]; rel != "" {
		for i := range a.snap.gitops {
			g := &a.snap.gitops[i]
			if g.Kind == "HelmRelease" && (g.Spec.ReleaseName == rel || g.Metadata.Name == rel) {
				return a.targetOf(g), true
			}
		}
	}
	// An Application or a Kustomization that lists the object.
	for i := range a.snap.gitops {
		g := &a.snap.gitops[i]
		for _, r := range g.Status.Resources {
			if r.Name == name && (r.Kind == kind || topLevel[r.Kind] && topLevel[kind]) && (r.Namespace == "" || ns == "" || r.Namespace == ns) {
				return a.targetOf(g), true
			}
		}
		if g.Status.Inventory != nil {
			for _, e := range g.Status.Inventory.Entries {
				// <namespace>_<name>_<group>_<kind>
				parts := strings.Split(e.ID, "_")
				if len(parts) == 4 && parts[1] == name && (parts[0] == ns || ns == "") && (parts[3] == kind || topLevel[parts[3]] && topLevel[kind]) {
					return a.targetOf(g), true
				}
			}
		}
	}
	if inst := labels["app.kubernetes.io/instance"]; inst != "" {
		if g := a.gitopsNamed("Application", "", inst); g != nil {
			return a.targetOf(g), true
		}
	}
	// The one GitOps object that deploys into the namespace.
	var only *gitopsObject
	n := 0
	for i := range a.snap.gitops {
		g := &a.snap.gitops[i]
		if g.Kind == "GitRepository" {
			continue
		}
		dest := g.Spec.Destination.Namespace
		if g.Kind != "Application" {
			dest = g.Spec.TargetNamespace
		}
		if dest != "" && dest == ns {
			only = g
			n++
		}
	}
	if n == 1 {
		t := a.targetOf(only)
		t.Note = fmt.Sprintf("resolved by namespace: %s %s is the only GitOps object deploying into %s", only.Kind, only.Metadata.Name, ns)
		return t, true
	}
	return investigate.DeployTarget{}, false
}

func (a *analyzer) gitopsNamed(kind, ns, name string) *gitopsObject {
	for i := range a.snap.gitops {
		g := &a.snap.gitops[i]
		if g.Kind == kind && g.Metadata.Name == name && (ns == "" || g.Metadata.Namespace == ns) {
			return g
		}
	}
	return nil
}

// targetOf reads where a GitOps object deploys from.
func (a *analyzer) targetOf(g *gitopsObject) investigate.DeployTarget {
	t := investigate.DeployTarget{Object: g.Kind + " " + g.Metadata.Namespace + "/" + g.Metadata.Name}
	switch g.Kind {
	case "Application":
		t.Source = "argocd"
		src := g.Spec.Source
		if src == nil {
			for i := range g.Spec.Sources {
				if g.Spec.Sources[i].Path != "" || src == nil {
					src = &g.Spec.Sources[i]
				}
			}
		}
		if src != nil {
			t.RepoURL, t.Ref, t.Path = src.RepoURL, src.TargetRevision, src.Path
			if src.Helm != nil {
				for _, vf := range src.Helm.ValueFiles {
					t.ValueFiles = append(t.ValueFiles, joinRepoPath(src.Path, vf))
				}
			}
		}
	case "Kustomization":
		t.Source = "flux-kustomization"
		t.Path = strings.TrimPrefix(strings.TrimPrefix(g.Spec.Path, "./"), "/")
		a.fluxSource(g, &t)
	case "HelmRelease":
		t.Source = "flux-helmrelease"
		if g.Spec.Chart != nil {
			t.Path = strings.TrimPrefix(strings.TrimPrefix(g.Spec.Chart.Spec.Chart, "./"), "/")
			for _, vf := range g.Spec.Chart.Spec.ValuesFiles {
				t.ValueFiles = append(t.ValueFiles, strings.TrimPrefix(strings.TrimPrefix(vf, "./"), "/"))
			}
		}
		a.fluxSource(g, &t)
	}
	if t.Ref == "HEAD" {
		t.Ref = ""
	}
	t.Repo = repoFromURL(t.RepoURL)
	return t
}

// fluxSource fills the repository of a Flux object from its GitRepository.
func (a *analyzer) fluxSource(g *gitopsObject, t *investigate.DeployTarget) {
	var kind, name, ns string
	switch {
	case g.Spec.SourceRef != nil:
		kind, name, ns = g.Spec.SourceRef.Kind, g.Spec.SourceRef.Name, g.Spec.SourceRef.Namespace
	case g.Spec.Chart != nil:
		r := g.Spec.Chart.Spec.SourceRef
		kind, name, ns = r.Kind, r.Name, r.Namespace
	}
	if ns == "" {
		ns = g.Metadata.Namespace
	}
	if kind != "GitRepository" {
		return
	}
	if src := a.gitopsNamed("GitRepository", ns, name); src != nil {
		t.RepoURL = src.Spec.URL
		if src.Spec.Ref != nil {
			t.Ref = firstNonEmpty(src.Spec.Ref.Branch, src.Spec.Ref.Tag, src.Spec.Ref.Commit)
		}
	}
}

// joinRepoPath resolves a values file an Argo CD source names relative to
// its path ("values-prod.yaml" in charts/shop, or "$values/..." refs kept).
func joinRepoPath(base, p string) string {
	if strings.HasPrefix(p, "$") || strings.HasPrefix(p, "/") {
		return strings.TrimPrefix(p, "/")
	}
	if base == "" || base == "." {
		return p
	}
	return strings.TrimSuffix(base, "/") + "/" + strings.TrimPrefix(p, "./")
}

// repoFromURL returns owner/name of a Git URL (https, ssh or scp-like),
// "" when it is not one.
func repoFromURL(u string) string {
	u = strings.TrimSpace(u)
	if u == "" {
		return ""
	}
	if strings.HasPrefix(u, "git@") {
		if _, rest, ok := strings.Cut(u, ":"); ok {
			u = "ssh://x/" + rest
		}
	}
	pu, err := url.Parse(u)
	if err != nil {
		return ""
	}
	parts := strings.Split(strings.Trim(strings.TrimSuffix(pu.Path, ".git"), "/"), "/")
	if len(parts) < 2 {
		return ""
	}
	return parts[len(parts)-2] + "/" + parts[len(parts)-1]
}

// objectMeta finds the metadata of an object the snapshot holds.
func (a *analyzer) objectMeta(kind, ns, name string) *meta {
	match := func(m *meta) bool { return m.Name == name && (ns == "" || m.Namespace == "" || m.Namespace == ns) }
	if topLevel[kind] {
		if w := a.workloadNamed(ns, name); w != nil {
			return &w.Metadata
		}
	}
	find := func(n int, at func(int) *meta) *meta {
		for i := 0; i < n; i++ {
			if m := at(i); match(m) {
				return m
			}
		}
		return nil
	}
	s := a.snap
	switch kind {
	case "Service":
		return find(len(s.services), func(i int) *meta { return &s.services[i].Metadata })
	case "Ingress":
		return find(len(s.ingresses), func(i int) *meta { return &s.ingresses[i].Metadata })
	case "PersistentVolumeClaim":
		return find(len(s.claims), func(i int) *meta { return &s.claims[i].Metadata })
	case "HorizontalPodAutoscaler":
		return find(len(s.autoscalers), func(i int) *meta { return &s.autoscalers[i].Metadata })
	case "NetworkPolicy":
		return find(len(s.policies), func(i int) *meta { return &s.policies[i].Metadata })
	case "Role", "ClusterRole":
		return find(len(s.roles), func(i int) *meta { return &s.roles[i].Metadata })
	case "RoleBinding", "ClusterRoleBinding":
		return find(len(s.bindings), func(i int) *meta { return &s.bindings[i].Metadata })
	case "ResourceQuota":
		return find(len(s.quotas), func(i int) *meta { return &s.quotas[i].Metadata })
	case "ConfigMap":
		return find(len(s.configMaps), func(i int) *meta { return &s.configMaps[i].Metadata })
	case "Certificate":
		return find(len(s.certs), func(i int) *meta { return &s.certs[i].Metadata })
	}
	return nil
}

// attachDeployTargets resolves, for each fault, the GitOps target of the
// object at fault (else of its workload) and records it on the fault.
func (a *analyzer) attachDeployTargets(faults []fault) {
	for i := range faults {
		f := &faults[i]
		t, ok := a.deployTarget(f.Ref.Kind, f.Ref.Namespace, f.Ref.Name)
		if !ok {
			ns := f.Ref.Namespace
			if ns == "" {
				ns = a.snap.namespace
			}
			t, ok = a.deployTarget("Deployment", ns, f.Workload)
		}
		if !ok {
			continue
		}
		if f.Attrs == nil {
			f.Attrs = map[string]string{}
		}
		t.SetAttrs(f.Attrs)
	}
}
