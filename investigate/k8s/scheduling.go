package k8s

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
)

// The scheduling analyzer decodes why the scheduler leaves pods Pending
// (FailedScheduling: "0/5 nodes are available: 3 Insufficient cpu, 2
// node(s) had untolerated taint {dedicated: gpu}") and names the field of
// the pod template that asks for what no node offers: a request larger
// than any node's allocatable, a nodeSelector label no node carries, a
// taint no toleration admits.

var (
	insufficientRE = regexp.MustCompile(`(\d+) Insufficient ([\w./-]+)`)
	untoleratedRE  = regexp.MustCompile(`had (?:untolerated taint|taint) \{([^:}]+):\s*([^}]*)\}`)
	selectorMissRE = regexp.MustCompile(`didn't match (?:Pod's )?node (?:affinity/selector|selector|affinity)`)
)

func schedulingFaults(a *analyzer) []fault {
	var out []fault
	seen := map[string]bool{}
	for i := range a.snap.pods {
		p := &a.snap.pods[i]
		msg, when := unschedulable(a, p)
		if msg == "" {
			continue
		}
		w := a.controller(p)
		wl := a.podWL[p.Metadata.Namespace+"/"+p.Metadata.Name]
		if seen[wl+"|"+msg] {
			continue
		}
		seen[wl+"|"+msg] = true
		f := fault{Workload: wl, Signature: "k8s-scheduling", Time: when, Evidence: "FailedScheduling: " + msg}
		spec := &w.template().Spec
		base := w.templatePath()
		selKey, selMissing := a.unmatchedSelectorKey(spec.NodeSelector)
		switch {
		case insufficientRE.MatchString(msg):
			res := strings.TrimRight(insufficientRE.FindStringSubmatch(msg)[2], ".,")
			ctr, req := largestRequest(spec, res)
			if ctr == "" {
				continue
			}
			f.Ref = refOfWorkload(w, fmt.Sprintf("%s.containers[%s].resources.requests.%s", base, ctr, res), req, "Insufficient"+res)
			f.Container = ctr
			f.Message = fmt.Sprintf("%s cannot be scheduled: no node has %s %s free for container %s's request", p.Metadata.Name, req, res, ctr)
			if most, node := a.maxAllocatable(res); most > 0 {
				q, ok := parseQuantity(req)
				if !ok || q <= most {
					continue // the request fits a node: the cluster is full, no field is wrong
				}
				f.Ref.Want = a.allocatable(node, res)
				f.Message = fmt.Sprintf("%s cannot be scheduled: container %s requests %s %s, more than any node can offer (largest allocatable %s on %s)",
					p.Metadata.Name, ctr, req, res, a.allocatable(node, res), node)
				f.Attrs = map[string]string{"max_allocatable": a.allocatable(node, res)}
			}
		case selectorMissRE.MatchString(msg) && selMissing:
			key := selKey
			f.Ref = refOfWorkload(w, base+".nodeSelector."+key, spec.NodeSelector[key], "NodeSelectorMismatch")
			f.Message = fmt.Sprintf("%s cannot be scheduled: no node is labelled %s=%s (nodeSelector)", p.Metadata.Name, key, spec.NodeSelector[key])
		case selectorMissRE.MatchString(msg) && len(spec.NodeSelector) == 0 && spec.Affinity != nil && spec.Affinity.NodeAffinity != nil:
			f.Ref = refOfWorkload(w, base+".affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution", "", "NodeAffinityMismatch")
			f.Message = fmt.Sprintf("%s cannot be scheduled: no node satisfies its required node affinity", p.Metadata.Name)
		case untoleratedRE.MatchString(msg):
			m := untoleratedRE.FindStringSubmatch(msg)
			taint := strings.TrimSpace(m[1])
			if v := strings.TrimSpace(m[2]); v != "" {
				taint += "=" + v
			}
			f.Ref = refOfWorkload(w, base+".tolerations", "", "UntoleratedTaint")
			f.Ref.Want = taint
			f.Message = fmt.Sprintf("%s cannot be scheduled: the nodes it may use carry the taint %s, which it does not tolerate", p.Metadata.Name, taint)
			if len(spec.NodeSelector) > 0 {
				f.Message += fmt.Sprintf(" (its nodeSelector %s picks the tainted nodes)", labelString(spec.NodeSelector))
			}
		default:
			continue
		}
		out = append(out, f)
	}
	return out
}

// unschedulable returns the scheduler's message for a Pending pod and
// when it was first given.
func unschedulable(a *analyzer, p *pod) (string, time.Time) {
	if p.Status.Phase != "Pending" && p.Status.Phase != "" {
		return "", time.Time{}
	}
	for _, c := range p.Status.Conditions {
		if c.Type == "PodScheduled" && c.Status == "False" && c.Reason == "Unschedulable" {
			when := parseTime(c.LastTransitionTime)
			for _, e := range a.eventsAbout("Pod", p.Metadata.Namespace, p.Metadata.Name) {
				if e.Reason == "FailedScheduling" {
					if first, _, _ := e.times(); !first.IsZero() && (when.IsZero() || first.Before(when)) {
						when = first
					}
				}
			}
			return c.Message, when
		}
	}
	for _, e := range a.eventsAbout("Pod", p.Metadata.Namespace, p.Metadata.Name) {
		if e.Reason == "FailedScheduling" {
			first, _, _ := e.times()
			return e.Message, first
		}
	}
	return "", time.Time{}
}

// largestRequest names the container with the largest request of a
// resource and that request.
func largestRequest(spec *podSpec, res string) (string, string) {
	best, bestQ, bestV := "", -1.0, ""
	for _, c := range spec.Containers {
		v := c.Resources.Requests[res]
		if v == "" {
			v = c.Resources.Limits[res] // requests default to limits
		}
		q, ok := parseQuantity(v)
		if ok && q > bestQ {
			best, bestQ, bestV = c.Name, q, v
		}
	}
	return best, bestV
}

// maxAllocatable is the largest allocatable amount of a resource among
// the schedulable nodes, and the node that has it.
func (a *analyzer) maxAllocatable(res string) (float64, string) {
	best, name := 0.0, ""
	for _, n := range a.snap.nodes {
		if n.Spec.Unschedulable {
			continue
		}
		if q, ok := parseQuantity(n.Status.Allocatable[res]); ok && q > best {
			best, name = q, n.Metadata.Name
		}
	}
	return best, name
}

func (a *analyzer) allocatable(node, res string) string {
	for _, n := range a.snap.nodes {
		if n.Metadata.Name == node {
			return n.Status.Allocatable[res]
		}
	}
	return ""
}

// unmatchedSelectorKey is the nodeSelector key whose value no node
// carries; missing is false when every term matches some node. Without
// nodes read, the first key is taken as the unmatched one.
func (a *analyzer) unmatchedSelectorKey(sel map[string]string) (key string, missing bool) {
	if len(sel) == 0 {
		return "", false
	}
	keys := make([]string, 0, len(sel))
	for k := range sel {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(a.snap.nodes) == 0 {
		return keys[0], true
	}
	for _, k := range keys {
		found := false
		for _, n := range a.snap.nodes {
			if n.Metadata.Labels[k] == sel[k] {
				found = true
				break
			}
		}
		if !found {
			return k, true
		}
	}
	return "", false
}
