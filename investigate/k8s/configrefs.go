package k8s

import (
	"fmt"
	"strings"
	"time"

	"github.com/autoheal/autoheal/investigate"
)

// The config-refs analyzer follows the references a failing container
// makes to ConfigMaps and Secrets (env valueFrom, envFrom, volumes) when
// the kubelet says one does not resolve (CreateContainerConfigError,
// FailedMount). A key missing from a ConfigMap that exists is named on the
// ConfigMap (data.KEY: the key to add, its value left to people); a
// missing object, or a Secret key (Secret values are never read, so their
// keys are taken from the kubelet's message), is named on the reference.

// configRefProblem is one unresolved reference a kubelet message names.
type configRefProblem struct {
	kind   string // ConfigMap or Secret
	name   string
	key    string // "" when the object itself is missing
	msg    string
	when   time.Time
	count  int
	podRef *pod
}

func configRefFaults(a *analyzer) []fault {
	var out []fault
	seen := map[string]bool{}
	for _, pr := range a.configRefProblems() {
		p := pr.podRef
		w := a.controller(p)
		wl := a.podWL[p.Metadata.Namespace+"/"+p.Metadata.Name]
		id := wl + "|" + pr.kind + "|" + pr.name + "|" + pr.key
		if seen[id] {
			continue
		}
		seen[id] = true
		f := fault{Workload: wl, Signature: "k8s-configerror", Time: pr.when, Count: pr.count, Evidence: pr.msg}
		site, ctr := findRefSite(w, pr.kind, pr.name, pr.key)
		cm := a.configMapNamed(p.Metadata.Namespace, pr.name)
		switch {
		case pr.kind == "ConfigMap" && pr.key != "" && cm != nil:
			f.Ref.Kind, f.Ref.Namespace, f.Ref.Name = "ConfigMap", p.Metadata.Namespace, pr.name
			f.Ref.Field, f.Ref.Want, f.Ref.Reason = "data."+pr.key, pr.key, "ConfigMapKeyMissing"
			f.Message = fmt.Sprintf("ConfigMap %s has no key %s, which %s references", pr.name, pr.key, wl)
			if similar := similarKeys(cm.Keys, pr.key); len(similar) > 0 {
				f.Message += fmt.Sprintf(" (it has %s)", strings.Join(similar, ", "))
				f.Attrs = map[string]string{"similar_keys": strings.Join(similar, ",")}
			}
			if site != "" {
				f.Attrs = withAttr(f.Attrs, "reference", site)
			}
		case pr.kind == "Secret" && pr.key != "":
			// Secret values are never read: the kubelet's message names the
			// key, and whatever produces the Secret (a manifest, an
			// ExternalSecret, a generator) is where it is missing.
			f.Ref.Kind, f.Ref.Namespace, f.Ref.Name = "Secret", p.Metadata.Namespace, pr.name
			f.Ref.Field, f.Ref.Want, f.Ref.Reason = "data."+pr.key, pr.key, "SecretKeyMissing"
			f.Message = fmt.Sprintf("Secret %s has no key %s, which %s references", pr.name, pr.key, wl)
			if site != "" {
				f.Attrs = alternate(refOfWorkload(w, site, pr.key, "SecretRefUnresolved"))
				f.Attrs["reference"] = site
			}
		case site != "":
			f.Ref = refOfWorkload(w, site, pr.name, pr.kind+"RefUnresolved")
			f.Container = ctr
			if pr.key != "" {
				f.Ref.Value = pr.key
				f.Message = fmt.Sprintf("%s references key %s of %s %s, which does not exist", wl, pr.key, pr.kind, pr.name)
			} else {
				f.Message = fmt.Sprintf("%s references %s %s, which does not exist", wl, pr.kind, pr.name)
				if pr.kind == "ConfigMap" {
					if alt := a.similarConfigMap(p.Metadata.Namespace, pr.name); alt != "" {
						f.Message += fmt.Sprintf(" (ConfigMap %s does)", alt)
						f.Ref.Want = alt
					}
				}
			}
		default:
			continue
		}
		out = append(out, f)
	}
	return out
}

// alternate records a second field that may be the one at fault (the
// reference, when the referenced object's producer is not found).
func alternate(r fieldRefT) map[string]string {
	return map[string]string{investigate.AttrAltPrefix + investigate.AttrObjectKind: r.Kind, investigate.AttrAltPrefix + investigate.AttrObjectName: r.Name,
		investigate.AttrAltPrefix + investigate.AttrObjectNamespace: r.Namespace, investigate.AttrAltPrefix + investigate.AttrFieldPath: r.Field,
		investigate.AttrAltPrefix + investigate.AttrFieldValue: r.Value}
}

func withAttr(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[k] = v
	return m
}

// configRefProblems collects the unresolved references of the pods, from
// their waiting states and their FailedMount events.
func (a *analyzer) configRefProblems() []configRefProblem {
	var out []configRefProblem
	for i := range a.snap.pods {
		p := &a.snap.pods[i]
		for _, cs := range p.statuses() {
			if w := cs.State.Waiting; w != nil && (w.Reason == "CreateContainerConfigError" || w.Reason == "CreateContainerError") {
				if pr, ok := parseRefProblem(w.Message); ok {
					pr.podRef, pr.when, pr.count = p, podStart(p), 1
					for _, e := range a.eventsAbout("Pod", p.Metadata.Namespace, p.Metadata.Name) {
						if strings.Contains(e.Message, pr.name) {
							first, _, n := e.times()
							pr.count = max(pr.count, n)
							if !first.IsZero() && first.Before(pr.when) {
								pr.when = first
							}
						}
					}
					out = append(out, pr)
				}
			}
		}
		for _, e := range a.eventsAbout("Pod", p.Metadata.Namespace, p.Metadata.Name) {
			if e.Reason != "FailedMount" && e.Reason != "Failed" {
				continue
			}
			if pr, ok := parseRefProblem(e.Message); ok {
				first, _, n := e.times()
				pr.podRef, pr.when, pr.count = p, first, n
				out = append(out, pr)
			}
		}
	}
	return out
}

func parseRefProblem(msg string) (configRefProblem, bool) {
	if m := secretKeyRE.FindStringSubmatch(msg); m != nil {
		return configRefProblem{kind: canonicalKind(m[2]), name: m[4], key: m[1], msg: msg}, true
	}
	if m := missingObjRE.FindStringSubmatch(msg); m != nil {
		return configRefProblem{kind: canonicalKind(m[1]), name: m[2], msg: msg}, true
	}
	return configRefProblem{}, false
}

func canonicalKind(s string) string {
	if strings.EqualFold(s, "configmap") {
		return "ConfigMap"
	}
	return "Secret"
}

// findRefSite returns the path, in the workload, of the reference to an
// object (and key), and the container holding it.
func findRefSite(w *workloadObj, kind, name, key string) (string, string) {
	spec := &w.template().Spec
	base := w.templatePath()
	for _, group := range []struct {
		field string
		list  []container
	}{{"initContainers", spec.InitContainers}, {"containers", spec.Containers}} {
		for ci := range group.list {
			c := &group.list[ci]
			prefix := fmt.Sprintf("%s.%s[%s]", base, group.field, c.Name)
			for _, e := range c.Env {
				if e.ValueFrom == nil {
					continue
				}
				ref, refName := e.ValueFrom.ConfigMapKeyRef, "configMapKeyRef"
				if kind == "Secret" {
					ref, refName = e.ValueFrom.SecretKeyRef, "secretKeyRef"
				}
				if ref == nil || ref.Name != name || (key != "" && ref.Key != key) {
					continue
				}
				field := "key"
				if key == "" {
					field = "name"
				}
				return fmt.Sprintf("%s.env[%s].valueFrom.%s.%s", prefix, e.Name, refName, field), c.Name
			}
			for i, ef := range c.EnvFrom {
				if kind == "ConfigMap" && ef.ConfigMapRef != nil && ef.ConfigMapRef.Name == name {
					return fmt.Sprintf("%s.envFrom[%d].configMapRef.name", prefix, i), c.Name
				}
				if kind == "Secret" && ef.SecretRef != nil && ef.SecretRef.Name == name {
					return fmt.Sprintf("%s.envFrom[%d].secretRef.name", prefix, i), c.Name
				}
			}
		}
	}
	for _, v := range spec.Volumes {
		if kind == "ConfigMap" && v.ConfigMap != nil && v.ConfigMap.Name == name {
			return fmt.Sprintf("%s.volumes[%s].configMap.name", base, v.Name), ""
		}
		if kind == "Secret" && v.Secret != nil && v.Secret.SecretName == name {
			return fmt.Sprintf("%s.volumes[%s].secret.secretName", base, v.Name), ""
		}
	}
	return "", ""
}

func (a *analyzer) configMapNamed(ns, name string) *configMap {
	for i := range a.snap.configMaps {
		c := &a.snap.configMaps[i]
		if c.Metadata.Name == name && (ns == "" || c.Metadata.Namespace == ns) {
			return c
		}
	}
	return nil
}

// similarConfigMap finds a ConfigMap whose name resembles a missing one
// (a Kustomize hash suffix, a renamed map).
func (a *analyzer) similarConfigMap(ns, name string) string {
	for _, c := range a.snap.configMaps {
		if c.Metadata.Namespace == ns && c.Metadata.Name != name && similarName(c.Metadata.Name, name) {
			return c.Metadata.Name
		}
	}
	return ""
}

// similarKeys lists keys that look like a rename of key: the same last
// word (DB_HOST and DATABASE_HOST) or the same letters (db.url, DB_URL).
func similarKeys(keys []string, key string) []string {
	var out []string
	for _, x := range keys {
		if x != key && (squash(x) == squash(key) || lastWord(x) == lastWord(key)) {
			out = append(out, x)
		}
	}
	return out
}

// lastWord is the last word of a setting name, lower-cased (host of DB_HOST).
func lastWord(s string) string {
	s = strings.ToLower(s)
	if i := strings.LastIndexAny(s, "_-."); i >= 0 {
		return s[i+1:]
	}
	return s
}
