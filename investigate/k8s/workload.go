package k8s

import (
	"regexp"
	"strings"
)

// Kubernetes generates names from a restricted alphabet without vowels
// (k8s.io/apimachinery/pkg/util/rand): ReplicaSet hashes of 6-10 and pod
// suffixes of 5 characters. Words such as "worker" are never mistaken
// for them.
var (
	rsHashRE   = regexp.MustCompile(`^(.+)-[bcdfghjklmnpqrstvwxz2456789]{6,10}$`)
	podSufRE   = regexp.MustCompile(`^(.+)-[bcdfghjklmnpqrstvwxz2456789]{5}$`)
	jobSufRE   = regexp.MustCompile(`^(.+)-\d{6,}$`)
	ordinalRE  = regexp.MustCompile(`^(.+)-\d+$`)
	hashLabels = []string{"pod-template-hash", "controller-revision-hash"}
	// generatedRE is a segment a controller may have generated (a hash, a
	// suffix, an ordinal); with a digit or without vowels it is no word.
	generatedRE = regexp.MustCompile(`^(?:\d+|[a-z0-9]{4,12})$`)
	hashWordRE  = regexp.MustCompile(`^[bcdfghjklmnpqrstvwxz]{5,10}$`)
)

// index relates pods to the workloads that own them.
type index struct {
	owners map[string]ownerRef // "Kind/ns/name" -> controller of that object
	known  map[string]bool     // workload names (Deployments, StatefulSets, DaemonSets, CronJobs)
}

func newIndex(workloads []workloadObj) *index {
	ix := &index{owners: map[string]ownerRef{}, known: map[string]bool{}}
	for _, w := range workloads {
		if len(w.Metadata.OwnerReferences) > 0 {
			o := w.Metadata.OwnerReferences[0]
			ix.owners[w.Kind+"/"+w.Metadata.Namespace+"/"+w.Metadata.Name] = o
			switch o.Kind {
			case "Deployment", "StatefulSet", "DaemonSet", "CronJob":
				ix.known[o.Name] = true
			}
		}
		switch w.Kind {
		case "Deployment", "StatefulSet", "DaemonSet", "CronJob":
			ix.known[w.Metadata.Name] = true
		}
	}
	return ix
}

// workloadOf names the workload a pod belongs to: the Deployment,
// StatefulSet, DaemonSet or CronJob that owns it (through its ReplicaSet or
// Job), else a well-known app label, else its first container.
func (ix *index) workloadOf(p *pod) string {
	if len(p.Metadata.OwnerReferences) > 0 {
		o := p.Metadata.OwnerReferences[0]
		return ix.resolve(o.Kind, p.Metadata.Namespace, o.Name, p.Metadata.Labels)
	}
	for _, k := range []string{"app.kubernetes.io/name", "app", "k8s-app"} {
		if v := p.Metadata.Labels[k]; v != "" {
			return v
		}
	}
	if len(p.Spec.Containers) > 0 {
		return p.Spec.Containers[0].Name
	}
	return ix.fromPodName(p.Metadata.Name)
}

// resolve follows owner references up to the top-level workload.
func (ix *index) resolve(kind, ns, name string, labels map[string]string) string {
	for range 3 {
		o, ok := ix.owners[kind+"/"+ns+"/"+name]
		if !ok {
			break
		}
		kind, name = o.Kind, o.Name
	}
	switch kind {
	case "ReplicaSet":
		for _, l := range hashLabels {
			if h := labels[l]; h != "" && strings.HasSuffix(name, "-"+h) {
				return strings.TrimSuffix(name, "-"+h)
			}
		}
		if m := rsHashRE.FindStringSubmatch(name); m != nil {
			return m[1]
		}
		if w := ix.knownPrefix(name, 1); w != "" {
			return w
		}
	case "Job":
		if m := jobSufRE.FindStringSubmatch(name); m != nil {
			return m[1]
		}
	}
	return name
}

// fromPodName guesses the workload of a pod known only by name (an event
// about a pod that no longer exists).
func (ix *index) fromPodName(name string) string {
	guess := ix.guessFromPodName(name)
	if ix.known[guess] {
		return guess
	}
	// A workload that was read names its pods <workload>-<hash>-<suffix>
	// (Deployments) or <workload>-<suffix> (DaemonSets, StatefulSets):
	// the pod of a rolled-out revision is still that workload's, whatever
	// alphabet generated its suffixes.
	if w := ix.knownPrefix(name, 2); w != "" {
		return w
	}
	return guess
}

// knownPrefix is the longest known workload that name extends by one to
// max generated segments ("" when none).
func (ix *index) knownPrefix(name string, max int) string {
	best := ""
	for w := range ix.known {
		rest, ok := strings.CutPrefix(name, w+"-")
		if !ok || len(w) <= len(best) {
			continue
		}
		segs := strings.Split(rest, "-")
		if len(segs) > max {
			continue
		}
		gen := true
		for _, s := range segs {
			gen = gen && generatedRE.MatchString(s) && (strings.ContainsAny(s, "0123456789") || hashWordRE.MatchString(s))
		}
		if gen {
			best = w
		}
	}
	return best
}

// guessFromPodName reads the workload from the shape of a pod's name alone.
func (ix *index) guessFromPodName(name string) string {
	base := name
	if m := podSufRE.FindStringSubmatch(base); m != nil {
		base = m[1]
		if m := rsHashRE.FindStringSubmatch(base); m != nil {
			return m[1]
		}
		if m := jobSufRE.FindStringSubmatch(base); m != nil {
			return m[1]
		}
		return base
	}
	if m := ordinalRE.FindStringSubmatch(base); m != nil && ix.known[m[1]] {
		return m[1]
	}
	return base
}

// fromObjectName maps another object (a Certificate, an HPA, a ConfigMap)
// to the known workload whose name prefixes it, or "".
func (ix *index) fromObjectName(kind, ns, name string) string {
	switch kind {
	case "Deployment", "StatefulSet", "DaemonSet", "CronJob":
		return name
	case "ReplicaSet", "Job":
		return ix.resolve(kind, ns, name, nil)
	case "Pod":
		return ix.fromPodName(name)
	}
	best := ""
	for w := range ix.known {
		if (name == w || strings.HasPrefix(name, w+"-")) && len(w) > len(best) {
			best = w
		}
	}
	return best
}
