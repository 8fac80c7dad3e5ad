package k8s

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/autoheal/autoheal/investigate"
)

// voluntaryReasons are events of planned disruptions: node drains for
// upgrades and scale-downs, and the evictions they make.
var voluntaryReasons = map[string]bool{"Drain": true, "Draining": true, "NodeNotSchedulable": true, "Cordon": true,
	"Evict": true, "EvictionThresholdMet": false, "Upgrade": true, "ScaleDown": true, "Preempted": false}

// scanBudgets finds PodDisruptionBudgets that protect nothing: the budget
// named after a workload selects none of that workload's pods (labels
// renamed in a chart migration, a typo), so a node drain may take every
// replica down at once. Reported only when planned disruptions happened.
func (a *analyzer) scanBudgets() {
	drains := a.voluntaryDisruptions()
	if drains.IsZero() {
		return
	}
	for i := range a.snap.budgets {
		b := &a.snap.budgets[i]
		ns := b.Metadata.Namespace
		var own []*pod
		selected := 0
		for j := range a.snap.pods {
			p := &a.snap.pods[j]
			if ns != "" && p.Metadata.Namespace != "" && p.Metadata.Namespace != ns {
				continue
			}
			if b.selects(p.Metadata.Labels) {
				selected++
			}
			if wl := a.podWL[p.Metadata.Namespace+"/"+p.Metadata.Name]; wl == b.Metadata.Name {
				own = append(own, p)
			}
		}
		if len(own) == 0 || selected > 0 || (b.Status.ExpectedPods != nil && *b.Status.ExpectedPods > 0) {
			continue
		}
		wl := b.Metadata.Name
		killed, first := a.stoppedPods(ns, wl)
		if killed < 2 {
			continue // one pod at a time is what a budget would have allowed anyway
		}
		if first.IsZero() {
			first = drains
		}
		q := fmt.Sprintf("PodDisruptionBudget %s selects no pods (selector %s; the pods of %s are labelled %s): node drains stopped %d of its pods within minutes",
			wl, labelString(b.Spec.Selector.MatchLabels), wl, labelString(identityLabels(own[0].Metadata.Labels)), killed)
		at := map[string]string{"object": "PodDisruptionBudget/" + wl, "selector": labelString(b.Spec.Selector.MatchLabels),
			"pod_labels": labelString(identityLabels(own[0].Metadata.Labels)), "pods_stopped": fmt.Sprint(killed)}
		if ns != "" {
			at["namespace"] = ns
		}
		a.add(investigate.KindK8sEvent, wl, q, observation{first: first, count: killed, prio: 3, attrs: at, quote: q})
	}
}

// voluntaryDisruptions returns when the first planned disruption (a node
// drained or cordoned) happened, zero when none did.
func (a *analyzer) voluntaryDisruptions() time.Time {
	var first time.Time
	for _, e := range a.snap.events {
		if e.InvolvedObject.Kind != "Node" && e.InvolvedObject.Kind != "Pod" {
			continue
		}
		if !voluntaryReasons[e.Reason] {
			continue
		}
		t, _, _ := e.times()
		if !t.IsZero() && (first.IsZero() || t.Before(first)) {
			first = t
		}
	}
	return first
}

// stoppedPods counts the workload's pods stopped by the platform (Killing,
// Evicted) within ten minutes of the first, and when the first was.
func (a *analyzer) stoppedPods(ns, wl string) (int, time.Time) {
	var times []time.Time
	for _, e := range a.snap.events {
		if e.InvolvedObject.Kind != "Pod" || (e.Reason != "Killing" && e.Reason != "Evicted" && e.Reason != "Evict") {
			continue
		}
		if ns != "" && nsOf(e) != "" && nsOf(e) != ns {
			continue
		}
		if a.ix.fromPodName(e.InvolvedObject.Name) != wl {
			continue
		}
		t, _, _ := e.times()
		times = append(times, t)
	}
	sort.Slice(times, func(i, j int) bool { return times[i].Before(times[j]) })
	if len(times) == 0 {
		return 0, time.Time{}
	}
	n := 0
	for _, t := range times {
		if t.Sub(times[0]) <= 10*time.Minute {
			n++
		}
	}
	return n, times[0]
}

func labelString(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		if k == "pod-template-hash" {
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, ",")
}

// identityLabels keeps the labels selectors use to name a workload (the
// version, chart and hash labels change with every release).
func identityLabels(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		switch k {
		case "app", "name", "k8s-app", "component", "app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/component":
			out[k] = v
		}
	}
	if len(out) == 0 {
		return m
	}
	return out
}
