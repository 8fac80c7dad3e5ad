package k8s

import (
	"encoding/json"
	"sort"
	"strings"
)

// Lookups over the snapshot that several analyzers share.

// topLevel kinds are the workloads people write manifests for.
var topLevel = map[string]bool{"Deployment": true, "StatefulSet": true, "DaemonSet": true, "CronJob": true, "Job": true}

// controller returns the workload object that owns the pod (its
// Deployment, StatefulSet, DaemonSet, CronJob or Job); when that object
// was not read, one is made from the pod, named as the pod's workload, so
// that faults still name a manifest's object.
func (a *analyzer) controller(p *pod) *workloadObj {
	name := a.podWL[p.Metadata.Namespace+"/"+p.Metadata.Name]
	if w := a.workloadNamed(p.Metadata.Namespace, name); w != nil {
		return w
	}
	kind := "Pod"
	if len(p.Metadata.OwnerReferences) > 0 {
		switch o := p.Metadata.OwnerReferences[0]; o.Kind {
		case "ReplicaSet":
			kind = "Deployment"
		case "Job":
			kind = "Job"
			if jobSufRE.MatchString(o.Name) {
				kind = "CronJob"
			}
		default:
			kind = o.Kind
		}
	}
	w := &workloadObj{Kind: kind, Metadata: meta{Name: name, Namespace: p.Metadata.Namespace}}
	if kind == "Pod" {
		w.Metadata.Name = p.Metadata.Name
	}
	w.template().Spec = p.Spec
	w.template().Metadata.Labels = p.Metadata.Labels
	return w
}

// workloadNamed finds a top-level workload by namespace and name.
func (a *analyzer) workloadNamed(ns, name string) *workloadObj {
	var job *workloadObj
	for i := range a.snap.workloads {
		w := &a.snap.workloads[i]
		if w.Metadata.Name != name || !topLevel[w.Kind] || (ns != "" && w.Metadata.Namespace != "" && w.Metadata.Namespace != ns) {
			continue
		}
		if w.Kind == "Job" {
			job = w // a CronJob of the same name wins
			continue
		}
		return w
	}
	return job
}

// workloads lists the top-level workloads (Jobs a CronJob owns excluded).
func (a *analyzer) workloads() []*workloadObj {
	var out []*workloadObj
	for i := range a.snap.workloads {
		w := &a.snap.workloads[i]
		if !topLevel[w.Kind] || (w.Kind == "Job" && len(w.Metadata.OwnerReferences) > 0) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// podsOf lists the pods of a workload.
func (a *analyzer) podsOf(ns, workload string) []*pod {
	var out []*pod
	for i := range a.snap.pods {
		p := &a.snap.pods[i]
		if p.Metadata.Namespace == ns && a.podWL[ns+"/"+p.Metadata.Name] == workload {
			out = append(out, p)
		}
	}
	return out
}

// selected lists the pods of a namespace whose labels satisfy match.
func (a *analyzer) selected(ns string, match func(map[string]string) bool) []*pod {
	var out []*pod
	for i := range a.snap.pods {
		p := &a.snap.pods[i]
		if (ns == "" || p.Metadata.Namespace == ns) && p.Status.Reason != "Evicted" && match(p.Metadata.Labels) {
			out = append(out, p)
		}
	}
	return out
}

// workloadOfPods names the workload most of the pods belong to.
func (a *analyzer) workloadOfPods(pods []*pod) string {
	count := map[string]int{}
	for _, p := range pods {
		count[a.podWL[p.Metadata.Namespace+"/"+p.Metadata.Name]]++
	}
	best, n := "", 0
	for w, c := range count {
		if c > n || (c == n && w < best) {
			best, n = w, c
		}
	}
	return best
}

// labelSets lists, per workload of a namespace, the labels of its pods
// (or of its pod template when no pod runs).
func (a *analyzer) labelSets(ns string) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, w := range a.workloads() {
		if w.Metadata.Namespace == ns && len(w.template().Metadata.Labels) > 0 {
			out[w.Metadata.Name] = w.template().Metadata.Labels
		}
	}
	for i := range a.snap.pods {
		p := &a.snap.pods[i]
		if p.Metadata.Namespace != ns {
			continue
		}
		wl := a.podWL[ns+"/"+p.Metadata.Name]
		if _, ok := out[wl]; !ok {
			out[wl] = p.Metadata.Labels
		}
	}
	return out
}

// closestWorkload finds the workload of a namespace a selector was meant
// for: the one whose labels agree with most of its terms (ties broken by
// a name the selector's values share), and the selector keys it misses.
func (a *analyzer) closestWorkload(ns string, sel map[string]string, hint string) (string, []string) {
	best, bestScore := "", -1
	var bestMissing []string
	sets := a.labelSets(ns)
	names := make([]string, 0, len(sets))
	for n := range sets {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, wl := range names {
		labels := sets[wl]
		score := 0
		var missing []string
		for k, v := range sel {
			switch {
			case labels[k] == v:
				score += 3
			case labels[k] != "":
				score++ // the key is there with another value: a rename or a typo
				missing = append(missing, k)
			default:
				missing = append(missing, k)
			}
			if similarName(v, wl) {
				score += 2
			}
		}
		if hint != "" && similarName(hint, wl) {
			score += 2
		}
		if score > bestScore {
			best, bestScore, bestMissing = wl, score, missing
		}
	}
	if bestScore <= 0 {
		return "", nil
	}
	sort.Strings(bestMissing)
	return best, bestMissing
}

// similarName: one name contains the other once separators are ignored
// (payments-api and payments, storefront-svc and storefront).
func similarName(a, b string) bool {
	na, nb := squash(a), squash(b)
	if len(na) < 3 || len(nb) < 3 {
		return na == nb && na != ""
	}
	return strings.Contains(na, nb) || strings.Contains(nb, na)
}

func squash(s string) string {
	return strings.NewReplacer("-", "", "_", "", ".", "").Replace(strings.ToLower(s))
}

// serviceNamed finds a Service.
func (a *analyzer) serviceNamed(ns, name string) *service {
	for i := range a.snap.services {
		s := &a.snap.services[i]
		if s.Metadata.Name == name && (ns == "" || s.Metadata.Namespace == ns) {
			return s
		}
	}
	return nil
}

// servicePods lists the pods a Service selects.
func (a *analyzer) servicePods(s *service) []*pod {
	if len(s.Spec.Selector) == 0 {
		return nil
	}
	return a.selected(s.Metadata.Namespace, func(l map[string]string) bool { return selectorMatches(s.Spec.Selector, l) })
}

// eventsAbout lists the events about one object.
func (a *analyzer) eventsAbout(kind, ns, name string) []event {
	var out []event
	for _, e := range a.snap.events {
		if e.InvolvedObject.Kind == kind && e.InvolvedObject.Name == name && (ns == "" || nsOf(e) == "" || nsOf(e) == ns) {
			out = append(out, e)
		}
	}
	return out
}

// podStates says what keeps a workload's pods from serving: the waiting
// reasons and whether any is ready.
func podsReady(pods []*pod) (ready, total int) {
	for _, p := range pods {
		if p.Status.Phase == "Succeeded" {
			continue
		}
		total++
		if p.ready() {
			ready++
		}
	}
	return ready, total
}

// add decodes objects of one kind into the snapshot and records the kind
// as read. Objects that carry their own kind (a List of several kinds)
// go where their kind says.
func (s *snapshot) add(kind string, raws [][]byte) {
	if s.listed == nil {
		s.listed = map[string]bool{}
	}
	s.listed[kind] = true
	for _, r := range raws {
		k := kind
		var head struct {
			Kind string `json:"kind"`
		}
		if json.Unmarshal(r, &head) == nil && head.Kind != "" && head.Kind != "List" {
			k = head.Kind
			s.listed[k] = true
		}
		s.decode(k, r)
	}
}

func decodeOne[T any](r []byte, dst *[]T) {
	var v T
	if json.Unmarshal(r, &v) == nil {
		*dst = append(*dst, v)
	}
}

func (s *snapshot) decode(kind string, r []byte) {
	switch kind {
	case "Pod":
		decodeOne(r, &s.pods)
	case "Event":
		decodeOne(r, &s.events)
	case "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob":
		var w workloadObj
		if json.Unmarshal(r, &w) == nil {
			w.Kind = kind
			s.workloads = append(s.workloads, w)
		}
	case "Node":
		decodeOne(r, &s.nodes)
	case "PodDisruptionBudget":
		decodeOne(r, &s.budgets)
	case "Service":
		decodeOne(r, &s.services)
	case "Endpoints":
		decodeOne(r, &s.endpoints)
	case "Ingress":
		decodeOne(r, &s.ingresses)
	case "HTTPRoute":
		decodeOne(r, &s.routes)
	case "PersistentVolumeClaim":
		decodeOne(r, &s.claims)
	case "StorageClass":
		decodeOne(r, &s.classes)
	case "HorizontalPodAutoscaler":
		decodeOne(r, &s.autoscalers)
	case "NetworkPolicy":
		decodeOne(r, &s.policies)
	case "Role", "ClusterRole":
		var ro role
		if json.Unmarshal(r, &ro) == nil {
			ro.Kind = kind
			s.roles = append(s.roles, ro)
		}
	case "RoleBinding", "ClusterRoleBinding":
		var b roleBinding
		if json.Unmarshal(r, &b) == nil {
			b.Kind = kind
			s.bindings = append(s.bindings, b)
		}
	case "ResourceQuota":
		decodeOne(r, &s.quotas)
	case "LimitRange":
		decodeOne(r, &s.limits)
	case "ConfigMap":
		decodeOne(r, &s.configMaps)
	case "Certificate":
		decodeOne(r, &s.certs)
	case "Issuer", "ClusterIssuer":
		var is issuer
		if json.Unmarshal(r, &is) == nil {
			is.Kind = kind
			s.issuers = append(s.issuers, is)
		}
	case "Application", "Kustomization", "HelmRelease", "GitRepository":
		var g gitopsObject
		if json.Unmarshal(r, &g) == nil {
			g.Kind = kind
			s.gitops = append(s.gitops, g)
		}
	}
}
