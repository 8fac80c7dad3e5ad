package k8s

import (
	"fmt"
	"strconv"
)

// The job analyzer reads failed Jobs: one stopped at its
// activeDeadlineSeconds is named by that field (of the CronJob's job
// template when a CronJob owns it); one that ran out of retries
// (BackoffLimitExceeded) is a symptom whose cause is in its pods, which
// the pod analysis reads.

func jobFaults(a *analyzer) []fault {
	var out []fault
	seen := map[string]bool{}
	for i := range a.snap.workloads {
		j := &a.snap.workloads[i]
		if j.Kind != "Job" {
			continue
		}
		for _, c := range j.Status.Conditions {
			if c.Type != "Failed" || c.Status != "True" || c.Reason != "DeadlineExceeded" {
				continue
			}
			owner := j
			field, deadline := "spec.activeDeadlineSeconds", j.Spec.ActiveDeadlineSeconds
			wl := j.Metadata.Name
			if len(j.Metadata.OwnerReferences) > 0 && j.Metadata.OwnerReferences[0].Kind == "CronJob" {
				wl = j.Metadata.OwnerReferences[0].Name
				if cj := a.workloadNamed(j.Metadata.Namespace, wl); cj != nil && cj.Kind == "CronJob" {
					owner = cj
					field = "spec.jobTemplate.spec.activeDeadlineSeconds"
					if cj.Spec.JobTemplate.Spec.ActiveDeadlineSeconds != nil {
						deadline = cj.Spec.JobTemplate.Spec.ActiveDeadlineSeconds
					}
				} else {
					owner = &workloadObj{Kind: "CronJob", Metadata: meta{Name: wl, Namespace: j.Metadata.Namespace}}
					field = "spec.jobTemplate.spec.activeDeadlineSeconds"
				}
			}
			if seen[wl] {
				continue
			}
			seen[wl] = true
			value := ""
			if deadline != nil {
				value = strconv.Itoa(*deadline)
			}
			f := fault{Workload: wl, Signature: "k8s-job-deadline", Time: parseTime(c.LastTransitionTime), Evidence: "DeadlineExceeded: " + c.Message}
			f.Ref = refOfWorkload(owner, field, value, "DeadlineExceeded")
			f.Message = fmt.Sprintf("Job %s was stopped at its deadline (activeDeadlineSeconds %s) before it completed", j.Metadata.Name, value)
			out = append(out, f)
		}
	}
	return out
}
