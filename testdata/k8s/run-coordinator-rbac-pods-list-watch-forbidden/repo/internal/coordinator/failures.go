package coordinator

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// exitReason summarises why the pods of a failed run Job stopped, e.g.
// "extract: OOMKilled (exit 137)", for the run page and the Slack alert.
func (c *Coordinator) exitReason(runID string) string {
	pods, err := c.pods.Pods(c.ns).List(labels.SelectorFromSet(labels.Set{"quarry.dev/run-id": runID}))
	if err != nil || len(pods) == 0 {
		return "unknown"
	}
	for _, p := range pods {
		for _, cs := range p.Status.ContainerStatuses {
			if t := cs.State.Terminated; t != nil && t.ExitCode != 0 {
				return fmt.Sprintf("%s: %s (exit %d)", cs.Name, t.Reason, t.ExitCode)
			}
		}
	}
	return phaseSummary(pods)
}

func phaseSummary(pods []*corev1.Pod) string {
	n := map[corev1.PodPhase]int{}
	for _, p := range pods {
		n[p.Status.Phase]++
	}
	return fmt.Sprint(n)
}
