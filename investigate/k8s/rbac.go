package k8s

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
)

// The RBAC analyzer resolves "forbidden" answers of the API server, found
// in events and in the logs of the pods (at any level: a client-go
// reflector logs them as warnings and keeps retrying), to the permission
// that is missing: the service account, the RoleBindings and
// ClusterRoleBindings that bind it, and the rule of the Role or
// ClusterRole that covers the resource but lacks the verb (its verbs
// field), or the Role that has no rule for the resource at all.

var forbiddenRE = regexp.MustCompile(`User "system:serviceaccount:([^:"]+):([^"]+)" cannot (\w+) resource "([^"]+)" in API group "([^"]*)"(?: in the namespace "([^"]+)")?`)

// forbidden is one refused request.
type forbidden struct {
	ns, sa, verb, resource, group, target string
	text                                  string
	pod                                   *pod
	when                                  time.Time
	count                                 int
}

// needsRBAC reports whether events or logs hold a forbidden answer (the
// roles and bindings are read only then).
func (a *analyzer) needsRBAC() bool {
	return len(a.forbiddens()) > 0
}

func (a *analyzer) forbiddens() []forbidden {
	var out []forbidden
	idx := map[string]int{}
	addText := func(text string, p *pod, when time.Time, n int) {
		m := forbiddenRE.FindStringSubmatch(text)
		if m == nil {
			return
		}
		fb := forbidden{ns: m[1], sa: m[2], verb: m[3], resource: m[4], group: m[5], target: m[6], text: text, pod: p, when: when, count: n}
		k := strings.Join(m[1:7], "|")
		if i, ok := idx[k]; ok {
			out[i].count += n
			if !when.IsZero() && (out[i].when.IsZero() || when.Before(out[i].when)) {
				out[i].when = when
			}
			return
		}
		idx[k] = len(out)
		out = append(out, fb)
	}
	for _, e := range a.snap.events {
		first, _, n := e.times()
		var p *pod
		if e.InvolvedObject.Kind == "Pod" {
			p = a.pods[nsOf(e)+"/"+e.InvolvedObject.Name]
		}
		addText(e.Message, p, first, n)
	}
	keys := make([]string, 0, len(a.snap.logs))
	for k := range a.snap.logs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, l := range a.snap.logs[k] {
			addText(l, a.pods[k], logLineTime(l, a.snap.now), 1)
		}
	}
	return out
}

func rbacFaults(a *analyzer) []fault {
	if !a.snap.has("Role") && !a.snap.has("ClusterRole") {
		return nil
	}
	var out []fault
	for _, fb := range a.forbiddens() {
		wl := a.saWorkload(fb)
		if wl == "" {
			continue
		}
		f := fault{Workload: wl, Signature: "k8s-rbac-forbidden", Time: fb.when, Count: fb.count, Evidence: fb.text,
			Attrs: map[string]string{"service_account": fb.ns + "/" + fb.sa, "verb": fb.verb, "resource": groupResource(fb.group, fb.resource)}}
		where := "cluster-wide"
		if fb.target != "" {
			where = "in namespace " + fb.target
		}
		roles := a.boundRoles(fb)
		switch {
		case len(roles) == 0:
			if b, i, field := a.nearMissBinding(fb); b != nil {
				f.Ref.Kind, f.Ref.Namespace, f.Ref.Name = b.Kind, b.Metadata.Namespace, b.Metadata.Name
				f.Ref.Field, f.Ref.Reason = fmt.Sprintf("subjects[%d].%s", i, field), "BindingSubjectMismatch"
				if field == "name" {
					f.Ref.Value, f.Ref.Want = b.Subjects[i].Name, fb.sa
				} else {
					f.Ref.Value, f.Ref.Want = b.Subjects[i].Namespace, fb.ns
				}
				f.Message = fmt.Sprintf("service account %s/%s may not %s %s %s: %s %s binds %s %s, not this account",
					fb.ns, fb.sa, fb.verb, groupResource(fb.group, fb.resource), where, b.Kind, b.Metadata.Name, field, f.Ref.Value)
				break
			}
			if b := a.bindingToMissingRole(fb); b != nil {
				f.Ref.Kind, f.Ref.Namespace, f.Ref.Name = b.Kind, b.Metadata.Namespace, b.Metadata.Name
				f.Ref.Field, f.Ref.Value, f.Ref.Reason = "roleRef.name", b.RoleRef.Name, "RoleNotFound"
				f.Message = fmt.Sprintf("service account %s/%s may not %s %s %s: %s %s refers to %s %s, which does not exist",
					fb.ns, fb.sa, fb.verb, groupResource(fb.group, fb.resource), where, b.Kind, b.Metadata.Name, b.RoleRef.Kind, b.RoleRef.Name)
				break
			}
			continue
		default:
			r, ri, covering := bestRule(roles, fb)
			f.Ref.Kind, f.Ref.Namespace, f.Ref.Name = r.Kind, r.Metadata.Namespace, r.Metadata.Name
			f.Ref.Want = fb.verb
			if covering {
				f.Ref.Field, f.Ref.Value, f.Ref.Reason = fmt.Sprintf("rules[%d].verbs", ri), strings.Join(r.Rules[ri].Verbs, ","), "VerbNotAllowed"
				f.Message = fmt.Sprintf("service account %s/%s may not %s %s %s: %s %s allows only %s on it (rules[%d].verbs)",
					fb.ns, fb.sa, fb.verb, groupResource(fb.group, fb.resource), where, r.Kind, r.Metadata.Name, strings.Join(r.Rules[ri].Verbs, ", "), ri)
			} else {
				f.Ref.Field, f.Ref.Reason = "rules", "ResourceNotAllowed"
				f.Ref.Want = fmt.Sprintf("%s %s", fb.verb, groupResource(fb.group, fb.resource))
				f.Message = fmt.Sprintf("service account %s/%s may not %s %s %s: no rule of %s %s covers %s",
					fb.ns, fb.sa, fb.verb, groupResource(fb.group, fb.resource), where, r.Kind, r.Metadata.Name, groupResource(fb.group, fb.resource))
			}
		}
		out = append(out, f)
	}
	return out
}

func groupResource(group, res string) string {
	if group == "" {
		return res
	}
	return res + "." + group
}

// saWorkload names the workload that runs as the service account (the
// pod that logged the refusal, else the workloads whose pods use it).
func (a *analyzer) saWorkload(fb forbidden) string {
	if fb.pod != nil && fb.pod.Metadata.Namespace == fb.ns && fb.pod.Spec.serviceAccount() == fb.sa {
		return a.podWL[fb.pod.Metadata.Namespace+"/"+fb.pod.Metadata.Name]
	}
	var pods []*pod
	for i := range a.snap.pods {
		p := &a.snap.pods[i]
		if p.Metadata.Namespace == fb.ns && p.Spec.serviceAccount() == fb.sa {
			pods = append(pods, p)
		}
	}
	if wl := a.workloadOfPods(pods); wl != "" {
		return wl
	}
	for _, w := range a.workloads() {
		if w.Metadata.Namespace == fb.ns && w.template().Spec.serviceAccount() == fb.sa {
			return w.Metadata.Name
		}
	}
	if fb.pod != nil {
		return a.podWL[fb.pod.Metadata.Namespace+"/"+fb.pod.Metadata.Name]
	}
	return ""
}

// boundRoles lists the roles bound to the service account where the
// request applies (RoleBindings of the target namespace, and
// ClusterRoleBindings).
func (a *analyzer) boundRoles(fb forbidden) []*role {
	var out []*role
	for i := range a.snap.bindings {
		b := &a.snap.bindings[i]
		if b.Kind == "RoleBinding" && (fb.target == "" || b.Metadata.Namespace != fb.target) {
			continue
		}
		if !bindsSA(b, fb.ns, fb.sa) {
			continue
		}
		if r := a.roleFor(b); r != nil {
			out = append(out, r)
		}
	}
	return out
}

func bindsSA(b *roleBinding, ns, sa string) bool {
	for _, s := range b.Subjects {
		sns := s.Namespace
		if sns == "" {
			sns = b.Metadata.Namespace
		}
		if s.Kind == "ServiceAccount" && s.Name == sa && sns == ns {
			return true
		}
		if s.Kind == "Group" && (s.Name == "system:serviceaccounts" || s.Name == "system:serviceaccounts:"+ns) {
			return true
		}
	}
	return false
}

// roleFor finds the Role or ClusterRole a binding refers to.
func (a *analyzer) roleFor(b *roleBinding) *role {
	for i := range a.snap.roles {
		r := &a.snap.roles[i]
		if r.Kind != b.RoleRef.Kind || r.Metadata.Name != b.RoleRef.Name {
			continue
		}
		if r.Kind == "Role" && r.Metadata.Namespace != b.Metadata.Namespace {
			continue
		}
		return r
	}
	return nil
}

// bestRule picks the rule that covers the resource (and lacks the verb),
// or, when none does, the role to extend (a namespaced Role first).
func bestRule(roles []*role, fb forbidden) (*role, int, bool) {
	sort.SliceStable(roles, func(i, j int) bool { return roles[i].Kind == "Role" && roles[j].Kind != "Role" })
	for _, r := range roles {
		for i, rule := range r.Rules {
			if covers(rule.APIGroups, fb.group) && covers(rule.Resources, fb.resource) && !covers(rule.Verbs, fb.verb) {
				return r, i, true
			}
		}
	}
	// Only the subresource is missing (pods/log next to pods): the rule of
	// the parent resource is the one to extend.
	if base, _, ok := strings.Cut(fb.resource, "/"); ok {
		for _, r := range roles {
			for i, rule := range r.Rules {
				if covers(rule.APIGroups, fb.group) && covers(rule.Resources, base) {
					return r, i, false
				}
			}
		}
	}
	return roles[0], -1, false
}

func covers(list []string, want string) bool {
	for _, x := range list {
		if x == want || x == "*" {
			return true
		}
	}
	return false
}

// nearMissBinding finds a binding whose ServiceAccount subject names the
// account in another namespace, or another account of the namespace with
// a similar name: the subject to correct.
func (a *analyzer) nearMissBinding(fb forbidden) (*roleBinding, int, string) {
	for bi := range a.snap.bindings {
		b := &a.snap.bindings[bi]
		if b.Kind == "RoleBinding" && fb.target != "" && b.Metadata.Namespace != fb.target {
			continue
		}
		r := a.roleFor(b)
		if r == nil || !grants(r, fb) {
			continue
		}
		for i, s := range b.Subjects {
			if s.Kind != "ServiceAccount" {
				continue
			}
			sns := s.Namespace
			if sns == "" {
				sns = b.Metadata.Namespace
			}
			switch {
			case s.Name == fb.sa && sns != fb.ns:
				return b, i, "namespace"
			case sns == fb.ns && s.Name != fb.sa && similarName(s.Name, fb.sa):
				return b, i, "name"
			}
		}
	}
	return nil, 0, ""
}

// grants reports whether a role allows the refused request.
func grants(r *role, fb forbidden) bool {
	for _, rule := range r.Rules {
		if covers(rule.APIGroups, fb.group) && covers(rule.Resources, fb.resource) && covers(rule.Verbs, fb.verb) {
			return true
		}
	}
	return false
}

// bindingToMissingRole finds a binding of the account whose role does not
// exist.
func (a *analyzer) bindingToMissingRole(fb forbidden) *roleBinding {
	for i := range a.snap.bindings {
		b := &a.snap.bindings[i]
		if bindsSA(b, fb.ns, fb.sa) && a.roleFor(b) == nil && len(a.snap.roles) > 0 {
			return b
		}
	}
	return nil
}

// saBound reports whether a binding names the service account (its pods
// talk to the API server).
func (a *analyzer) saBound(ns, sa string) bool {
	for i := range a.snap.bindings {
		for _, s := range a.snap.bindings[i].Subjects {
			sns := s.Namespace
			if sns == "" {
				sns = a.snap.bindings[i].Metadata.Namespace
			}
			if s.Kind == "ServiceAccount" && s.Name == sa && sns == ns {
				return true
			}
		}
	}
	return false
}
