package k8s

import (
	"fmt"
	"strings"
	"time"
)

// The autoscaler analyzer reads HorizontalPodAutoscalers as `kubectl
// describe hpa` shows them: a utilization target over containers that
// request nothing (FailedGetResourceMetric: the autoscaler cannot compute
// a percentage and never scales), a scale target that does not exist, and
// an autoscaler held at its maxReplicas.

func autoscalerFaults(a *analyzer) []fault {
	var out []fault
	for i := range a.snap.autoscalers {
		h := &a.snap.autoscalers[i]
		ns, name := h.Metadata.Namespace, h.Metadata.Name
		target := a.workloadNamed(ns, h.Spec.ScaleTargetRef.Name)
		problem, when, count := a.hpaProblem(h)
		switch {
		case target == nil && a.workloadsRead(ns, h.Spec.ScaleTargetRef.Kind):
			f := fault{Workload: h.Spec.ScaleTargetRef.Name, Signature: "k8s-configerror", Time: when, Count: count, Evidence: problem}
			f.Ref.Kind, f.Ref.Namespace, f.Ref.Name = "HorizontalPodAutoscaler", ns, name
			f.Ref.Field, f.Ref.Value, f.Ref.Reason = "spec.scaleTargetRef.name", h.Spec.ScaleTargetRef.Name, "ScaleTargetNotFound"
			f.Message = fmt.Sprintf("HorizontalPodAutoscaler %s scales %s %s, which does not exist", name, h.Spec.ScaleTargetRef.Kind, h.Spec.ScaleTargetRef.Name)
			out = append(out, f)
		case target != nil:
			for _, res := range h.resources() {
				ctr := missingRequest(&target.template().Spec, res)
				if ctr == "" {
					continue
				}
				if problem == "" && a.snap.has("Event") {
					continue // requests missing, but the autoscaler has not complained: not this incident
				}
				f := fault{Workload: target.Metadata.Name, Signature: "k8s-hpa-no-requests", Time: when, Count: count, Container: ctr,
					Evidence: problem}
				f.Ref = refOfWorkload(target, fmt.Sprintf("%s.resources.requests.%s", containerPath(target, ctr), res), "", "MissingResourceRequest")
				f.Ref.Want = suggestedRequest(res)
				f.Message = fmt.Sprintf("HorizontalPodAutoscaler %s targets %s utilization, but container %s of %s requests no %s: the autoscaler cannot compute utilization and does not scale",
					name, res, ctr, target.Metadata.Name, res)
				out = append(out, f)
				break
			}
		}
		for _, c := range h.Status.Conditions {
			if c.Type == "ScalingLimited" && c.Status == "True" && c.Reason == "TooManyReplicas" && target != nil {
				f := fault{Workload: target.Metadata.Name, Signature: "hpa-at-max", Time: parseTime(c.LastTransitionTime), Capacity: true,
					Evidence: "ScalingLimited: " + c.Message}
				f.Ref.Kind, f.Ref.Namespace, f.Ref.Name = "HorizontalPodAutoscaler", ns, name
				f.Ref.Field, f.Ref.Value, f.Ref.Reason = "spec.maxReplicas", fmt.Sprint(h.Spec.MaxReplicas), "AtMaxReplicas"
				f.Message = fmt.Sprintf("HorizontalPodAutoscaler at its maxReplicas: %s wants more than %d replicas of %s", name, h.Spec.MaxReplicas, target.Metadata.Name)
				out = append(out, f)
			}
		}
	}
	return out
}

// hpaProblem returns what the autoscaler says is wrong (its conditions and
// warnings), when it started and how often it was said.
func (a *analyzer) hpaProblem(h *hpa) (string, time.Time, int) {
	var msg string
	var when time.Time
	count := 0
	for _, c := range h.Status.Conditions {
		if c.Status == "False" && (c.Type == "ScalingActive" || c.Type == "AbleToScale") && c.Message != "" {
			msg = c.Reason + ": " + c.Message
			when = parseTime(c.LastTransitionTime)
			count = 1
		}
	}
	for _, e := range a.eventsAbout("HorizontalPodAutoscaler", h.Metadata.Namespace, h.Metadata.Name) {
		if e.Type != "Warning" {
			continue
		}
		first, _, n := e.times()
		count += n
		if msg == "" || strings.Contains(e.Message, "missing request") {
			msg = e.Reason + ": " + e.Message
		}
		if !first.IsZero() && (when.IsZero() || first.Before(when)) {
			when = first
		}
	}
	return msg, when, count
}

// missingRequest names the first container that requests nothing of res.
func missingRequest(spec *podSpec, res string) string {
	for _, c := range spec.Containers {
		if c.Resources.Requests[res] == "" && c.Resources.Limits[res] == "" {
			return c.Name
		}
	}
	return ""
}

func containerNamed(spec *podSpec, name string) *container {
	for i := range spec.Containers {
		if spec.Containers[i].Name == name {
			return &spec.Containers[i]
		}
	}
	return nil
}

// suggestedRequest proposes a request for a container that sets neither a
// request nor a limit: a modest default for people to adjust.
func suggestedRequest(res string) string {
	if res == "memory" {
		return "256Mi"
	}
	return "250m"
}

// workloadsRead reports whether workloads of a kind were read in a
// namespace (one missing from an empty list proves nothing).
func (a *analyzer) workloadsRead(ns, kind string) bool {
	for _, w := range a.workloads() {
		if w.Kind == kind && w.Metadata.Namespace == ns {
			return true
		}
	}
	return false
}
