package k8s

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/autoheal/autoheal/investigate"
)

// A fault is one analyzer's conclusion, as `kubectl describe` would let an
// SRE draw it: the object and the field at fault, why, and the workload it
// breaks. Faults become k8s_event findings that carry the field reference
// (investigate.FieldRef), so the engine can map the field to the line of
// the repository that produces it.
type fault struct {
	Analyzer string
	Ref      investigate.FieldRef
	// Workload is the workload the fault breaks (the finding's service).
	Workload string
	// Signature is the catalogue entry the fault is an instance of.
	Signature string
	// Message is one line for people: what is wrong, with the values.
	Message string
	// Evidence quotes what shows it (an event, a log line, a condition).
	Evidence string
	Time     time.Time
	// Last is when it was last seen failing (Time when zero).
	Last  time.Time
	Count int
	// Container names the container when the field is one of its own.
	Container string
	// Extra attributes (the peer a policy blocks, the verb refused...).
	Attrs map[string]string
	// Capacity marks a limit that binds under load (an autoscaler at its
	// maximum, a quota used up): the load may come from elsewhere, so the
	// field is a place to act, not proof of a misconfiguration.
	Capacity bool
}

// finding turns the fault into a finding.
func (f fault) finding() (investigate.Finding, bool) {
	sig := investigate.SignatureByID(f.Signature)
	if sig == nil {
		return investigate.Finding{}, false
	}
	at := map[string]string{"analyzer": f.Analyzer}
	for k, v := range f.Attrs {
		at[k] = v
	}
	if f.Ref.Kind != "" {
		f.Ref.SetAttrs(at)
		at["object"] = f.Ref.Kind + "/" + f.Ref.Name
		if f.Ref.Namespace != "" {
			at["namespace"] = f.Ref.Namespace
		}
	}
	if f.Container != "" {
		at["container"] = f.Container
	}
	if f.Evidence != "" {
		at["evidence"] = investigate.Quote(f.Evidence, 300)
	}
	if !f.Time.IsZero() {
		at[investigate.AttrObserved] = "true" // seen failing, not only read in the configuration
	}
	if f.Capacity {
		at[investigate.AttrCapacity] = "true"
	}
	last := f.Time
	if f.Last.After(last) {
		last = f.Last
	}
	q := f.Message
	if f.Evidence != "" && !strings.Contains(q, f.Evidence) {
		q += " (" + investigate.Quote(f.Evidence, 160) + ")"
	}
	return investigate.Finding{Kind: investigate.KindK8sEvent, Family: investigate.FamilyK8s, Service: f.Workload,
		ErrorType: sig.ErrorType, Signature: sig.ID, Time: f.Time, LastTime: last, Count: max(f.Count, 1),
		Quote: investigate.Quote(q, 320), Attrs: at}, true
}

// analyzerSpec is one analyzer: a small function over the snapshot that
// names the field at fault.
type analyzerSpec struct {
	name string
	run  func(*analyzer) []fault
}

// analyzers is the analyzer set, one per object kind or failure kind, in
// the spirit of k8sgpt's layout (pod states and events are read by
// scanPods and scanEvents; these add what only the other objects show).
var analyzers = []analyzerSpec{
	{"scheduling", schedulingFaults},
	{"config-refs", configRefFaults},
	{"admission", admissionFaults},
	{"service", serviceFaults},
	{"ingress", ingressFaults},
	{"storage", storageFaults},
	{"autoscaler", autoscalerFaults},
	{"network-policy", networkPolicyFaults},
	{"rbac", rbacFaults},
	{"job", jobFaults},
	{"certificate", certificateFaults},
	{"node", nodeFaults},
	{"rollout", rolloutFaults},
	{"lifecycle-hook", lifecycleFaults},
}

// runAnalyzers runs every analyzer and merges faults about the same field.
func (a *analyzer) runAnalyzers() []fault {
	var all []fault
	for _, an := range analyzers {
		for _, f := range an.run(a) {
			if f.Analyzer == "" {
				f.Analyzer = an.name
			}
			all = append(all, f)
		}
	}
	return mergeFaults(all)
}

// mergeFaults keeps one fault per field and workload (the first analyzer's,
// with the counts added up and the earliest time).
func mergeFaults(fs []fault) []fault {
	by := map[string]int{}
	var out []fault
	for _, f := range fs {
		k := f.Ref.Key() + "|" + f.Workload
		if i, ok := by[k]; ok {
			out[i].Count += f.Count
			if !f.Time.IsZero() && (out[i].Time.IsZero() || f.Time.Before(out[i].Time)) {
				out[i].Time = f.Time
			}
			continue
		}
		by[k] = len(out)
		out = append(out, f)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Ref.Key() < out[j].Ref.Key() })
	return out
}

// containerPath is the path of a container (or init container) of a
// workload's pod template.
func containerPath(w *workloadObj, ctr string) string {
	for _, c := range w.template().Spec.InitContainers {
		if c.Name == ctr {
			return fmt.Sprintf("%s.initContainers[%s]", w.templatePath(), ctr)
		}
	}
	return fmt.Sprintf("%s.containers[%s]", w.templatePath(), ctr)
}

// refOfWorkload names a field of a workload's manifest.
func refOfWorkload(w *workloadObj, field, value, reason string) investigate.FieldRef {
	return investigate.FieldRef{Kind: w.Kind, Namespace: w.Metadata.Namespace, Name: w.Metadata.Name, Field: field, Value: value, Reason: reason}
}

// fieldRefT is the engine's field reference.
type fieldRefT = investigate.FieldRef
