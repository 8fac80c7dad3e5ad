package k8s

import "fmt"

// The node analyzer reports nodes that are NotReady while pods of the
// workloads run there. No manifest field is at fault: the node needs an
// operator, so the fault names the node and no field.

func nodeFaults(a *analyzer) []fault {
	var out []fault
	for _, n := range a.snap.nodes {
		for _, c := range n.Status.Conditions {
			if c.Type != "Ready" || c.Status == "True" {
				continue
			}
			seen := map[string]bool{}
			for i := range a.snap.pods {
				p := &a.snap.pods[i]
				wl := a.podWL[p.Metadata.Namespace+"/"+p.Metadata.Name]
				if p.Spec.NodeName != n.Metadata.Name || seen[wl] {
					continue
				}
				seen[wl] = true
				out = append(out, fault{Workload: wl, Signature: "k8s-node-notready", Time: parseTime(c.LastTransitionTime),
					Message:  fmt.Sprintf("node %s is NotReady (%s) with pods of %s on it", n.Metadata.Name, c.Reason, wl),
					Evidence: c.Message, Attrs: map[string]string{"node": n.Metadata.Name}})
			}
		}
	}
	return out
}
