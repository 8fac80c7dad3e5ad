package k8s

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// The storage analyzer explains claims that stay Pending: a
// storageClassName naming no StorageClass, or no class at all where the
// cluster has no default. A claim made from a StatefulSet's
// volumeClaimTemplates is fixed in the StatefulSet, so the field is named
// there.

func storageFaults(a *analyzer) []fault {
	var out []fault
	if !a.snap.has("StorageClass") || len(a.snap.classes) == 0 {
		return nil // no class read: a missing one proves nothing
	}
	seen := map[string]bool{}
	for i := range a.snap.claims {
		c := &a.snap.claims[i]
		if c.Status.Phase == "Bound" {
			continue
		}
		f, ok := a.claimFault(c.Metadata.Namespace, c.Metadata.Name, c.storageClass(), c.Spec.StorageClassName != nil)
		if !ok || seen[f.Ref.Key()] {
			continue
		}
		seen[f.Ref.Key()] = true
		out = append(out, f)
	}
	// Claim templates whose class does not exist, claims not read.
	for _, w := range a.workloads() {
		if w.Kind != "StatefulSet" {
			continue
		}
		for _, t := range w.Spec.VolumeClaimTemplates {
			cls := t.storageClass()
			if cls == "" || a.classNamed(cls) != nil {
				continue
			}
			claim := fmt.Sprintf("%s-%s-0", t.Metadata.Name, w.Metadata.Name)
			f, ok := a.claimFault(w.Metadata.Namespace, claim, cls, true)
			if ok && !seen[f.Ref.Key()] {
				seen[f.Ref.Key()] = true
				out = append(out, f)
			}
		}
	}
	return out
}

// claimFault describes why a claim cannot be provisioned.
func (a *analyzer) claimFault(ns, claim, class string, classSet bool) (fault, bool) {
	var reason, msg, want string
	switch {
	case class != "" && a.classNamed(class) == nil:
		reason = "StorageClassNotFound"
		want = a.likelyClass(class)
		msg = fmt.Sprintf("PersistentVolumeClaim %s asks for StorageClass %s, which does not exist (classes: %s)", claim, class, a.classNames())
	case !classSet && a.defaultClass() == "":
		reason = "NoDefaultStorageClass"
		want = a.likelyClass("")
		msg = fmt.Sprintf("PersistentVolumeClaim %s names no StorageClass and the cluster has no default one (classes: %s)", claim, a.classNames())
	default:
		return fault{}, false
	}
	f := fault{Signature: "k8s-storage", Evidence: a.claimEvidence(ns, claim)}
	f.Time, f.Count = a.claimTime(ns, claim)
	f.Ref = claimOwnerRef(a, ns, claim)
	f.Ref.Value, f.Ref.Want, f.Ref.Reason = class, want, reason
	f.Workload = a.claimWorkload(ns, claim)
	f.Message = msg
	if f.Workload == "" {
		return fault{}, false
	}
	return f, true
}

// claimOwnerRef names the field that sets a claim's class: the
// StatefulSet's claim template when the claim is made from one, else the
// claim's own.
func claimOwnerRef(a *analyzer, ns, claim string) fieldRefT {
	for _, w := range a.workloads() {
		if w.Kind != "StatefulSet" || w.Metadata.Namespace != ns {
			continue
		}
		for _, t := range w.Spec.VolumeClaimTemplates {
			prefix := t.Metadata.Name + "-" + w.Metadata.Name + "-"
			if strings.HasPrefix(claim, prefix) && ordinalRE.MatchString(claim) {
				return fieldRefT{Kind: "StatefulSet", Namespace: ns, Name: w.Metadata.Name,
					Field: fmt.Sprintf("spec.volumeClaimTemplates[%s].spec.storageClassName", t.Metadata.Name)}
			}
		}
	}
	return fieldRefT{Kind: "PersistentVolumeClaim", Namespace: ns, Name: claim, Field: "spec.storageClassName"}
}

// claimWorkload names the workload whose pods mount the claim.
func (a *analyzer) claimWorkload(ns, claim string) string {
	for i := range a.snap.pods {
		p := &a.snap.pods[i]
		if p.Metadata.Namespace != ns {
			continue
		}
		for _, v := range p.Spec.Volumes {
			if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == claim {
				return a.podWL[ns+"/"+p.Metadata.Name]
			}
		}
	}
	for _, w := range a.workloads() {
		if w.Metadata.Namespace != ns {
			continue
		}
		for _, v := range w.template().Spec.Volumes {
			if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == claim {
				return w.Metadata.Name
			}
		}
		if w.Kind == "StatefulSet" {
			for _, t := range w.Spec.VolumeClaimTemplates {
				if strings.HasPrefix(claim, t.Metadata.Name+"-"+w.Metadata.Name+"-") {
					return w.Metadata.Name
				}
			}
		}
	}
	return ""
}

func (a *analyzer) classNamed(name string) *storageClass {
	for i := range a.snap.classes {
		if a.snap.classes[i].Metadata.Name == name {
			return &a.snap.classes[i]
		}
	}
	return nil
}

func (a *analyzer) defaultClass() string {
	for _, c := range a.snap.classes {
		if c.isDefault() {
			return c.Metadata.Name
		}
	}
	return ""
}

func (a *analyzer) classNames() string {
	var names []string
	for _, c := range a.snap.classes {
		n := c.Metadata.Name
		if c.isDefault() {
			n += " (default)"
		}
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// likelyClass is the class a wrong name was meant to be: one with a
// similar name, else the default, else the only one.
func (a *analyzer) likelyClass(wrong string) string {
	if wrong != "" {
		for _, c := range a.snap.classes {
			if similarName(c.Metadata.Name, wrong) {
				return c.Metadata.Name
			}
		}
	}
	if d := a.defaultClass(); d != "" {
		return d
	}
	if len(a.snap.classes) == 1 {
		return a.snap.classes[0].Metadata.Name
	}
	return ""
}

// claimTime dates a claim's failure: its first ProvisioningFailed event,
// or the first time pods could not be scheduled for want of it.
func (a *analyzer) claimTime(ns, claim string) (time.Time, int) {
	var t time.Time
	count := 0
	for _, e := range a.eventsAbout("PersistentVolumeClaim", ns, claim) {
		first, _, n := e.times()
		count += n
		if !first.IsZero() && (t.IsZero() || first.Before(t)) {
			t = first
		}
	}
	if t.IsZero() {
		for i := range a.snap.claims {
			if c := &a.snap.claims[i]; c.Metadata.Name == claim && c.Metadata.Namespace == ns {
				t = parseTime(c.Metadata.CreationTimestamp)
			}
		}
	}
	return t, max(count, 1)
}

func (a *analyzer) claimEvidence(ns, claim string) string {
	for _, e := range a.eventsAbout("PersistentVolumeClaim", ns, claim) {
		if e.Type == "Warning" {
			return e.Reason + ": " + e.Message
		}
	}
	return ""
}
