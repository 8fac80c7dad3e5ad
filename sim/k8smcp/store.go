package k8smcp

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/autoheal/autoheal/scenario"
)

// object is one item of the scenario's v1 List.
type object struct {
	APIVersion string
	Kind       string
	Name       string
	Namespace  string
	Labels     map[string]string
	Created    time.Time
	Raw        map[string]any
}

// store indexes the scenario's objects; immutable after newStore.
type store struct {
	objs []*object
}

func newStore(list *scenario.K8sList) (*store, error) {
	st := &store{}
	if list == nil {
		return st, nil
	}
	for i, raw := range list.Items {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("k8s.json: item %d: %w", i, err)
		}
		o := &object{Raw: m, APIVersion: str(m, "apiVersion"), Kind: str(m, "kind"),
			Name: str(m, "metadata", "name"), Namespace: str(m, "metadata", "namespace"), Labels: map[string]string{}}
		if o.Kind == "" || o.Name == "" {
			return nil, fmt.Errorf("k8s.json: item %d: kind and metadata.name are required", i)
		}
		if o.APIVersion == "" {
			o.APIVersion = defaultAPIVersion(o.Kind)
			m["apiVersion"] = o.APIVersion
		}
		if l, ok := get(m, "metadata", "labels").(map[string]any); ok {
			for k, v := range l {
				o.Labels[k] = fmt.Sprint(v)
			}
		}
		o.Created, _ = time.Parse(time.RFC3339, str(m, "metadata", "creationTimestamp"))
		st.objs = append(st.objs, o)
	}
	return st, nil
}

func defaultAPIVersion(kind string) string {
	switch kind {
	case "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "ControllerRevision":
		return "apps/v1"
	case "Job", "CronJob":
		return "batch/v1"
	case "Ingress", "IngressClass", "NetworkPolicy":
		return "networking.k8s.io/v1"
	case "HorizontalPodAutoscaler":
		return "autoscaling/v2"
	case "PodDisruptionBudget":
		return "policy/v1"
	case "StorageClass", "VolumeAttachment", "CSIDriver":
		return "storage.k8s.io/v1"
	case "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding":
		return "rbac.authorization.k8s.io/v1"
	case "EndpointSlice":
		return "discovery.k8s.io/v1"
	case "PriorityClass":
		return "scheduling.k8s.io/v1"
	case "Certificate", "Issuer", "ClusterIssuer", "CertificateRequest":
		return "cert-manager.io/v1"
	case "Application", "AppProject":
		return "argoproj.io/v1alpha1"
	}
	return "v1"
}

// clusterScoped kinds ignore the namespace argument.
var clusterScoped = map[string]bool{"Node": true, "Namespace": true, "ClusterIssuer": true, "ClusterRole": true,
	"ClusterRoleBinding": true, "PersistentVolume": true, "StorageClass": true, "CustomResourceDefinition": true,
	"IngressClass": true, "PriorityClass": true, "VolumeAttachment": true, "CSIDriver": true}

// query selects objects.
type query struct {
	APIVersion string // empty: any
	Kind       string
	Namespace  string // empty: all namespaces
	Name       string
	Labels     []requirement
	Fields     []fieldReq
}

func (st *store) find(q query) []*object {
	var out []*object
	for _, o := range st.objs {
		if o.Kind != q.Kind || (q.APIVersion != "" && !sameAPIVersion(o.APIVersion, q.APIVersion)) {
			continue
		}
		if q.Namespace != "" && !clusterScoped[o.Kind] && o.Namespace != q.Namespace {
			continue
		}
		if q.Name != "" && o.Name != q.Name {
			continue
		}
		if !matchLabels(q.Labels, o.Labels) || !matchFields(q.Fields, o) {
			continue
		}
		out = append(out, o)
	}
	return out
}

// sameAPIVersion compares the API groups of two group/versions, accepting
// the core group written as "v1" or "core/v1": the API server serves an
// object under every version of its group (an HPA written as
// autoscaling/v1 is listed as autoscaling/v2 too).
func sameAPIVersion(a, b string) bool {
	group := func(s string) string {
		s = strings.TrimPrefix(s, "core/")
		if g, _, ok := strings.Cut(s, "/"); ok {
			return g
		}
		return ""
	}
	return group(a) == group(b)
}

func (st *store) namespaces() []string {
	seen := map[string]bool{}
	for _, o := range st.objs {
		if o.Namespace != "" {
			seen[o.Namespace] = true
		}
		if o.Kind == "Namespace" {
			seen[o.Name] = true
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// requirement is one term of a label selector.
type requirement struct {
	Key    string
	Op     string // =, !=, in, notin, exists, !exists
	Values []string
}

var (
	setReqRE   = regexp.MustCompile(`^\s*([A-Za-z0-9./_-]+)\s+(in|notin)\s+\(([^)]*)\)\s*$`)
	labelKeyRE = regexp.MustCompile(`^[A-Za-z0-9./_-]+$`)
)

// parseLabelSelector parses the equality- and set-based selector syntax.
func parseLabelSelector(s string) ([]requirement, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var out []requirement
	for _, term := range splitSelector(s) {
		term = strings.TrimSpace(term)
		if m := setReqRE.FindStringSubmatch(term); m != nil {
			var vals []string
			for _, v := range strings.Split(m[3], ",") {
				vals = append(vals, strings.TrimSpace(v))
			}
			out = append(out, requirement{Key: m[1], Op: m[2], Values: vals})
			continue
		}
		switch {
		case strings.Contains(term, "!="):
			k, v, _ := strings.Cut(term, "!=")
			out = append(out, requirement{Key: strings.TrimSpace(k), Op: "!=", Values: []string{strings.TrimSpace(v)}})
		case strings.Contains(term, "=="):
			k, v, _ := strings.Cut(term, "==")
			out = append(out, requirement{Key: strings.TrimSpace(k), Op: "=", Values: []string{strings.TrimSpace(v)}})
		case strings.Contains(term, "="):
			k, v, _ := strings.Cut(term, "=")
			out = append(out, requirement{Key: strings.TrimSpace(k), Op: "=", Values: []string{strings.TrimSpace(v)}})
		case strings.HasPrefix(term, "!"):
			out = append(out, requirement{Key: strings.TrimSpace(term[1:]), Op: "!exists"})
		default:
			out = append(out, requirement{Key: term, Op: "exists"})
		}
		if k := out[len(out)-1].Key; !labelKeyRE.MatchString(k) {
			return nil, fmt.Errorf("unable to parse requirement: invalid label key %q", k)
		}
	}
	return out, nil
}

// splitSelector splits on commas outside parentheses.
func splitSelector(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

func matchLabels(reqs []requirement, labels map[string]string) bool {
	for _, r := range reqs {
		v, has := labels[r.Key]
		switch r.Op {
		case "=":
			if !has || v != r.Values[0] {
				return false
			}
		case "!=":
			if has && v == r.Values[0] {
				return false
			}
		case "in":
			if !has || !contains(r.Values, v) {
				return false
			}
		case "notin":
			if has && contains(r.Values, v) {
				return false
			}
		case "exists":
			if !has {
				return false
			}
		case "!exists":
			if has {
				return false
			}
		}
	}
	return true
}

// fieldReq is one term of a field selector.
type fieldReq struct {
	Path  string
	Neg   bool
	Value string
}

// fieldPaths are the field selector paths the API server supports for pods
// and events (and metadata.* for every kind).
var fieldPaths = map[string][]string{
	"metadata.name":             {"metadata", "name"},
	"metadata.namespace":        {"metadata", "namespace"},
	"spec.nodeName":             {"spec", "nodeName"},
	"spec.restartPolicy":        {"spec", "restartPolicy"},
	"spec.schedulerName":        {"spec", "schedulerName"},
	"spec.serviceAccountName":   {"spec", "serviceAccountName"},
	"status.phase":              {"status", "phase"},
	"status.podIP":              {"status", "podIP"},
	"status.nominatedNodeName":  {"status", "nominatedNodeName"},
	"involvedObject.name":       {"involvedObject", "name"},
	"involvedObject.kind":       {"involvedObject", "kind"},
	"involvedObject.namespace":  {"involvedObject", "namespace"},
	"involvedObject.uid":        {"involvedObject", "uid"},
	"involvedObject.apiVersion": {"involvedObject", "apiVersion"},
	"involvedObject.fieldPath":  {"involvedObject", "fieldPath"},
	"reason":                    {"reason"},
	"reportingComponent":        {"reportingComponent"},
	"source":                    {"source", "component"},
	"type":                      {"type"},
}

func parseFieldSelector(s string) ([]fieldReq, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var out []fieldReq
	for _, term := range strings.Split(s, ",") {
		var f fieldReq
		var k, v string
		switch {
		case strings.Contains(term, "!="):
			k, v, _ = strings.Cut(term, "!=")
			f.Neg = true
		case strings.Contains(term, "=="):
			k, v, _ = strings.Cut(term, "==")
		case strings.Contains(term, "="):
			k, v, _ = strings.Cut(term, "=")
		default:
			return nil, fmt.Errorf("invalid selector: '%s'; can't understand '%s'", s, term)
		}
		f.Path, f.Value = strings.TrimSpace(k), strings.TrimSpace(v)
		if _, ok := fieldPaths[f.Path]; !ok {
			return nil, fmt.Errorf("field label not supported: %s", f.Path)
		}
		out = append(out, f)
	}
	return out, nil
}

func matchFields(reqs []fieldReq, o *object) bool {
	for _, f := range reqs {
		v := str(o.Raw, fieldPaths[f.Path]...)
		if (v == f.Value) == f.Neg {
			return false
		}
	}
	return true
}

// get walks nested maps.
func get(m map[string]any, path ...string) any {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[p]
	}
	return cur
}

func str(m map[string]any, path ...string) string {
	switch v := get(m, path...).(type) {
	case string:
		return v
	case float64:
		return fmt.Sprint(v)
	case bool:
		return fmt.Sprint(v)
	}
	return ""
}

func num(m map[string]any, path ...string) int {
	if v, ok := get(m, path...).(float64); ok {
		return int(v)
	}
	return 0
}

func list(m map[string]any, path ...string) []map[string]any {
	arr, _ := get(m, path...).([]any)
	out := make([]map[string]any, 0, len(arr))
	for _, x := range arr {
		if mm, ok := x.(map[string]any); ok {
			out = append(out, mm)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
