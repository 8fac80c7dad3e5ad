package k8s

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// The rollout analyzer reports Deployments, StatefulSets and DaemonSets
// whose update does not finish: a Deployment past its progress deadline,
// a StatefulSet or DaemonSet whose new revision is not ready everywhere.
// It names no field: a stuck rollout is the symptom of its new pods'
// failure, which the pod states and the other analyzers explain. What it
// adds is what the new revision changed (the images of the ReplicaSets
// before and after), the first place an SRE looks.

func rolloutFaults(a *analyzer) []fault {
	var out []fault
	for _, w := range a.workloads() {
		var f *fault
		switch w.Kind {
		case "Deployment":
			f = a.deploymentStuck(w)
		case "StatefulSet", "DaemonSet":
			f = a.revisionStuck(w)
		}
		if f != nil {
			out = append(out, *f)
		}
	}
	return out
}

func (a *analyzer) deploymentStuck(w *workloadObj) *fault {
	for _, c := range w.Status.Conditions {
		if c.Type != "Progressing" || c.Status != "False" || c.Reason != "ProgressDeadlineExceeded" {
			continue
		}
		want := 1
		if w.Spec.Replicas != nil {
			want = *w.Spec.Replicas
		}
		f := &fault{Workload: w.Metadata.Name, Signature: "k8s-rollout-stuck", Time: parseTime(c.LastTransitionTime), Count: 1,
			Message: fmt.Sprintf("Deployment %s exceeded its progress deadline: %d of %d replicas available, %d unavailable",
				w.Metadata.Name, w.Status.AvailableReplicas, want, w.Status.UnavailableReplicas),
			Evidence: strings.TrimSpace(c.Message), Attrs: map[string]string{}}
		if prev, cur := a.replicaSetsOf(w); prev != nil && cur != nil {
			for _, ctr := range cur.template().Spec.Containers {
				if old := prev.image(ctr.Name); old != "" && old != ctr.Image {
					f.Attrs["container"], f.Attrs["image"], f.Attrs["previous_image"] = ctr.Name, ctr.Image, old
					f.Message += fmt.Sprintf("; the new revision changed %s's image from %s to %s", ctr.Name, old, ctr.Image)
					break
				}
			}
		}
		return f
	}
	return nil
}

// replicaSetsOf returns the Deployment's previous and current ReplicaSets
// by revision (nil when they were not read).
func (a *analyzer) replicaSetsOf(d *workloadObj) (prev, cur *workloadObj) {
	var rs []*workloadObj
	for i := range a.snap.workloads {
		w := &a.snap.workloads[i]
		if w.Kind == "ReplicaSet" && w.Metadata.Namespace == d.Metadata.Namespace &&
			len(w.Metadata.OwnerReferences) > 0 && w.Metadata.OwnerReferences[0].Name == d.Metadata.Name {
			rs = append(rs, w)
		}
	}
	if len(rs) < 2 {
		return nil, nil
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].revision() < rs[j].revision() })
	return rs[len(rs)-2], rs[len(rs)-1]
}

// revisionStuck reports a StatefulSet or DaemonSet whose update has pods
// that are not ready, dated by the first of them to stop being ready.
func (a *analyzer) revisionStuck(w *workloadObj) *fault {
	var updated, desired, unready int
	switch w.Kind {
	case "StatefulSet":
		if w.Status.UpdateRevision == "" || w.Status.UpdateRevision == w.Status.CurrentRevision {
			return nil
		}
		desired = 1
		if w.Spec.Replicas != nil {
			desired = *w.Spec.Replicas
		}
		updated, unready = w.Status.UpdatedReplicas, desired-w.Status.ReadyReplicas
	case "DaemonSet":
		desired, updated, unready = w.Status.DesiredNumberScheduled, w.Status.UpdatedNumberScheduled, w.Status.NumberUnavailable
		if updated >= desired {
			return nil
		}
	}
	if unready <= 0 {
		return nil
	}
	var since time.Time
	for _, p := range a.podsOf(w.Metadata.Namespace, w.Metadata.Name) {
		for _, c := range p.Status.Conditions {
			if c.Type == "Ready" && c.Status == "False" {
				if t := parseTime(c.LastTransitionTime); !t.IsZero() && (since.IsZero() || t.Before(since)) {
					since = t
				}
			}
		}
	}
	if since.IsZero() {
		return nil // nothing observed failing: an update still under way
	}
	return &fault{Workload: w.Metadata.Name, Signature: "k8s-rollout-stuck", Time: since, Count: unready,
		Message: fmt.Sprintf("%s %s rollout stuck: %d of %d pods updated, %d not ready", w.Kind, w.Metadata.Name, updated, desired, unready),
		Attrs:   map[string]string{"updated": fmt.Sprint(updated), "desired": fmt.Sprint(desired)}}
}
