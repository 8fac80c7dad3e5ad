package investigate

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Kubernetes faults in the engine: findings of the Kubernetes analyzers
// carry the field at fault (FieldRef) and where the workload is deployed
// from (DeployTarget). The hooks below make them candidates like any other
// platform signal, ask the source capability to map their fields onto the
// repository, and turn the mapped line into the root cause's location and
// a manifest proposal.

// isFieldFault reports whether a finding is an analyzer's fault naming a
// field (pod states read the classic way carry a field too, but are
// weighed by the rules that read them).
func isFieldFault(f Finding) bool {
	if f.Family != FamilyK8s || f.Attrs["analyzer"] == "" || f.Attrs[AttrCapacity] == "true" {
		return false
	}
	_, ok := FieldRefOf(f.Attrs)
	return ok
}

// hasFieldFault reports whether an analyzer named a field at fault for the
// candidate.
func (c *candidate) hasFieldFault() bool {
	for _, f := range c.Support {
		if isFieldFault(f) {
			return true
		}
	}
	return false
}

// maxFieldTargets bounds the fields the second round asks to locate.
const maxFieldTargets = 6

// fieldTargets lists the fields the candidate's Kubernetes evidence names,
// the analyzers' faults first, and the GitOps target to read them from.
func fieldTargets(c *candidate) ([]map[string]any, map[string]any) {
	type tgt struct {
		ref   FieldRef
		prio  int
		count int
	}
	seen := map[string]bool{}
	var ts []tgt
	var deploy map[string]any
	for _, f := range c.Support {
		ref, ok := FieldRefOf(f.Attrs)
		if !ok || f.Family != FamilyK8s || f.Service != c.Service || seen[ref.Key()] {
			continue // a field of another workload (a victim's) says nothing of this one's
		}
		seen[ref.Key()] = true
		if !isFieldFault(f) {
			continue // a pod state's field (image, memory limit, probe) is located by the service's own lookup
		}
		ts = append(ts, tgt{ref, 0, f.Count})
		if alt, ok := AltFieldRefOf(f.Attrs); ok && !seen[alt.Key()] {
			seen[alt.Key()] = true
			ts = append(ts, tgt{alt, 2, f.Count})
		}
		if d, ok := DeployTargetOf(f.Attrs); ok && deploy == nil {
			deploy = map[string]any{"source": d.Source, "object": d.Object, "repo_url": d.RepoURL, "repo": d.Repo, "ref": d.Ref, "path": d.Path}
			if len(d.ValueFiles) > 0 {
				deploy["value_files"] = d.ValueFiles
			}
			if d.Note != "" {
				deploy["note"] = d.Note
			}
		}
	}
	sort.SliceStable(ts, func(i, j int) bool {
		if ts[i].prio != ts[j].prio {
			return ts[i].prio < ts[j].prio
		}
		return ts[i].count > ts[j].count
	})
	var out []map[string]any
	for _, t := range ts {
		if len(out) >= maxFieldTargets {
			break
		}
		m := map[string]any{"kind": t.ref.Kind, "name": t.ref.Name, "field": t.ref.Field, "service": c.Service}
		for k, v := range map[string]string{"namespace": t.ref.Namespace, "value": t.ref.Value, "want": t.ref.Want, "reason": t.ref.Reason} {
			if v != "" {
				m[k] = v
			}
		}
		out = append(out, m)
	}
	return out, deploy
}

// fieldManifest returns the located line of the field the candidate's
// most telling fault names (an analyzer's fault before a pod state; the
// candidate's own signature first), nil when none was located.
func fieldManifest(ev *evidence, c *candidate) *ManifestField {
	located := map[string]Finding{}
	for _, f := range ev.findings {
		if f.Kind != KindManifest || f.Attrs["field"] != FieldK8sRef {
			continue
		}
		if ref, ok := FieldRefOf(f.Attrs); ok {
			for _, k := range []string{ref.Key(), looseKey(ref)} {
				if cur, seen := located[k]; !seen || (f.Attrs["exact"] == "true" && cur.Attrs["exact"] != "true") {
					located[k] = f
				}
			}
		}
	}
	if len(located) == 0 {
		return nil
	}
	rank := func(f Finding) int {
		r := 0
		if isFieldFault(f) {
			r += 4
		}
		if f.Signature == c.Signature {
			r += 2
		}
		return r
	}
	support := append([]Finding(nil), c.Support...)
	sort.SliceStable(support, func(i, j int) bool { return rank(support[i]) > rank(support[j]) })
	for _, f := range support {
		ref, ok := FieldRefOf(f.Attrs)
		if !ok || f.Family != FamilyK8s || f.Service != c.Service {
			continue
		}
		m, ok := located[ref.Key()]
		if !ok {
			m, ok = located[looseKey(ref)]
		}
		if alt, isAlt := AltFieldRefOf(f.Attrs); isAlt {
			if am, altOK := located[alt.Key()]; altOK && (!ok || ev.referenceAtFault(m, am)) {
				m, ref, ok = am, alt, true
			}
		}
		if !ok {
			continue
		}
		exact, how := m.Attrs["exact"] == "true", m.Attrs["mapped_by"]
		kind := FieldK8sRef
		if !isFieldFault(f) {
			// A pod state (an OOM kill, an image pull, a probe) is fixed by
			// the rules that know it: they read the classic field kinds.
			if !exact || how == LocatedValueScan {
				continue
			}
			kind = classicKind(ref.Field, m.Attrs["path"])
		}
		r := ref
		return &ManifestField{File: m.File, Line: m.Line, Kind: kind, Path: m.Attrs["path"], Value: m.Attrs["value"], Workload: c.Service,
			Ref: &r, How: how, Exact: exact, Missing: m.Attrs["missing"]}
	}
	return nil
}

// classicKind names a pod-state field the way the manifest rules do.
func classicKind(field, located string) string {
	switch {
	case strings.HasSuffix(field, "resources.limits.memory"):
		return FieldMemoryLimit
	case strings.HasSuffix(field, ".image") && strings.HasSuffix(located, "tag"):
		return FieldImageTag
	case strings.HasSuffix(field, ".image"):
		return FieldImage
	case strings.Contains(field, "livenessProbe") && strings.HasSuffix(field, ".port"):
		return FieldLivenessPort
	case strings.Contains(field, "Probe") && strings.HasSuffix(field, ".port"):
		return FieldReadinessPort
	}
	return FieldK8sRef
}

// deployTargetFor is where the candidate's workload is deployed from, as
// the source capability read it (else as the analyzers resolved it).
func deployTargetFor(ev *evidence, c *candidate, m *ManifestField) *DeployTarget {
	if m != nil {
		for _, f := range ev.findings {
			if f.Kind == KindManifest && f.File == m.File && f.Line == m.Line {
				if d, ok := DeployTargetOf(f.Attrs); ok {
					return &d
				}
			}
		}
	}
	for _, f := range c.Support {
		if d, ok := DeployTargetOf(f.Attrs); ok {
			return &d
		}
	}
	return nil
}

// faultOf returns the candidate's finding that names a field.
func faultOf(c *candidate, ref FieldRef) (Finding, bool) {
	for _, f := range c.Support {
		if r, ok := FieldRefOf(f.Attrs); ok && r.Key() == ref.Key() {
			return f, true
		}
	}
	return Finding{}, false
}

// fieldFix proposes the change of a located Kubernetes field: the value
// the evidence asks for at the line that produces it (appended to a list
// such as a rule's verbs; added under the enclosing key when missing).
func fieldFix(c *candidate, m *ManifestField, deploy *DeployTarget) (Fix, bool) {
	if m == nil || m.Kind != FieldK8sRef || m.Ref == nil || !c.hasFieldFault() {
		return Fix{}, false
	}
	ref := *m.Ref
	f, _ := faultOf(c, ref)
	what := strings.TrimSuffix(f.Quote, ".")
	if what == "" {
		what = ref.String()
	}
	fix := Fix{}
	where := fmt.Sprintf("%s:%d", m.File, m.Line)
	var edit *ManifestEdit
	switch want := wantAt(ref, m); {
	case want == "":
	case m.Exact && strings.HasSuffix(ref.Field, "verbs"):
		edit = &ManifestEdit{File: m.File, Line: m.Line, Path: m.Path, OldValue: m.Value, NewValue: want, Op: EditAppend,
			Reason: fmt.Sprintf("allow %s: %s", want, what)}
	case m.Exact && m.Value != "" && m.Value != want:
		edit = &ManifestEdit{File: m.File, Line: m.Line, Path: m.Path, OldValue: m.Value, NewValue: want, Reason: what}
	case !m.Exact && m.Missing != "" && m.How == LocatedGenerator:
		edit = &ManifestEdit{File: m.File, Line: m.Line, Path: m.Path, NewValue: m.Missing + "=", Op: EditAppend,
			Reason: fmt.Sprintf("%s (the value is left to you)", what)}
	case !m.Exact && m.Missing != "":
		edit = &ManifestEdit{File: m.File, Line: m.Line, Path: m.Path + "." + m.Missing, NewValue: want, Op: EditAdd, Reason: what}
	}
	if edit != nil && deploy != nil && deploy.Repo != "" {
		edit.Repo, edit.Ref = deploy.Repo, deploy.Ref
	}
	fix.ManifestEdit = edit
	switch {
	case edit == nil:
		fix.Summary = fmt.Sprintf("%s. The field is %s of %s, produced at %s (%s).", what, ref.Field, ref.Object(), where, m.Path)
	case edit.Op == EditAppend:
		fix.Summary = fmt.Sprintf("%s. Add %s to %s at %s.", what, edit.NewValue, m.Path, where)
	case edit.Op == EditAdd:
		fix.Summary = fmt.Sprintf("%s. Set %s: %s under %s at %s.", what, m.Missing, edit.NewValue, m.Path, where)
	default:
		fix.Summary = fmt.Sprintf("%s. Change %s from %s to %s at %s.", what, m.Path, m.Value, edit.NewValue, where)
	}
	if !m.Exact && m.How != LocatedGenerator {
		fix.Summary += " The repository does not set the field today: it is to be added there."
	}
	if deploy != nil && deploy.Note != "" {
		fix.Summary += " Note: " + deploy.Note + "."
	}
	fix.Steps = []string{fmt.Sprintf("Change %s of %s at %s", ref.Field, ref.Object(), where), "Let the GitOps controller (or kubectl apply) roll it out", "Check the object with kubectl describe and watch the workload recover"}
	return fix, true
}

// wantAt converts the value the evidence asks for into the located line's
// terms: an image a tag line holds only the tag of, a value equal to the
// field's.
func wantAt(ref FieldRef, m *ManifestField) string {
	want := ref.Want
	if want == "" || !m.Exact || m.Value == ref.Value || ref.Value == "" {
		return want
	}
	if strings.HasSuffix(ref.Value, m.Value) {
		prefix := strings.TrimSuffix(ref.Value, m.Value)
		if strings.HasPrefix(want, prefix) {
			return strings.TrimPrefix(want, prefix)
		}
	}
	return ""
}

// referenceAtFault decides between the producer of a key (a Secret's
// ExternalSecret) that lacks it and the reference that asks for it: the
// side a recent change touched is the one that broke; without such a
// change, a producer holding a look-alike key (connectionString for
// connection-string) points at the reference, a producer without anything
// like it at the key to add.
func (ev *evidence) referenceAtFault(producer, reference Finding) bool {
	if producer.Attrs["exact"] == "true" {
		return false
	}
	p, r := ev.changedFile(producer.File), ev.changedFile(reference.File)
	switch {
	case p && !r:
		return false
	case r && !p:
		return true
	}
	return producer.Attrs["value"] != "" // a look-alike key
}

// changedFile reports whether a recent change (before the impact) touched
// a file.
func (ev *evidence) changedFile(file string) bool {
	for _, f := range ev.findings {
		if f.Kind == KindChangeCorrelation && f.File == file && (ev.onset.IsZero() || !f.Time.After(ev.onset.Add(5*time.Minute))) {
			return true
		}
	}
	return false
}

// containerSelRE is the selector of a container in a field path.
var containerSelRE = regexp.MustCompile(`(containers|initContainers)\[[^\]]*\]`)

// looseKey identifies a field of a workload whatever its kind, namespace
// and container (a service's standard fields are looked up by its name).
func looseKey(r FieldRef) string {
	kind := r.Kind
	if workloadKinds[kind] {
		kind = "workload"
	}
	return strings.Join([]string{"~", kind, r.Name, containerSelRE.ReplaceAllString(r.Field, "$1[]")}, "|")
}
