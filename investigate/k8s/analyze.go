package k8s

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/autoheal/autoheal/investigate"
)

// snapshot is what one k8s_workload_status call read from the cluster.
type snapshot struct {
	namespace string
	pods      []pod
	events    []event
	workloads []workloadObj
	nodes     []node
	budgets   []disruptionBudget

	services    []service
	endpoints   []endpoints
	ingresses   []ingress
	routes      []httpRoute
	claims      []pvc
	classes     []storageClass
	autoscalers []hpa
	policies    []networkPolicy
	roles       []role
	bindings    []roleBinding
	quotas      []resourceQuota
	limits      []limitRange
	configMaps  []configMap
	certs       []certificate
	issuers     []issuer
	gitops      []gitopsObject
	// listed records the kinds that were read (an empty list of a kind
	// that was not read proves nothing).
	listed map[string]bool
	// logs are the current logs read from running pods, by namespace/pod.
	logs map[string][]string
	now  time.Time
}

// has reports whether a kind was read.
func (s *snapshot) has(kind string) bool { return s.listed[kind] }

// observation is one piece of evidence before merging per workload and
// signature.
type observation struct {
	f     investigate.Finding
	pod   string // pod the evidence is about ("" for other objects)
	count int
	first time.Time
	last  time.Time
	quote string
	attrs map[string]string
	// prio ranks observations whose quote and attrs represent the group:
	// container status (3) > event (2) > log line (1).
	prio int
}

// logTarget is a crashed container whose previous logs are worth reading.
type logTarget struct {
	Namespace, Pod, Container, Workload string
	Restarts                            int
	Exit                                int
	Reason                              string
	Started, Finished                   time.Time
	waiting                             bool
	cause                               *observation // the crash-loop observation to refine
}

// analyzer turns a snapshot into findings.
type analyzer struct {
	snap     *snapshot
	ix       *index
	pods     map[string]*pod // ns/name
	podWL    map[string]string
	obs      []*observation
	crashed  []logTarget
	causeOf  map[string]string // ns/pod -> signature that explains its restarts
	backoff  map[string]time.Time
	evicted  map[string][]string // node -> workloads evicted from it
	pressure map[string][]condition
	suspects map[string][]string // node -> workloads without memory limit on it
	// livenessKills counts containers the kubelet restarted for failing
	// liveness probes, per workload.
	livenessKills map[string]int
}

func newAnalyzer(s *snapshot) *analyzer {
	a := &analyzer{snap: s, ix: newIndex(s.workloads), pods: map[string]*pod{}, podWL: map[string]string{},
		causeOf: map[string]string{}, backoff: map[string]time.Time{}, evicted: map[string][]string{},
		pressure: map[string][]condition{}, suspects: map[string][]string{}, livenessKills: map[string]int{}}
	for i := range s.pods {
		p := &s.pods[i]
		key := p.Metadata.Namespace + "/" + p.Metadata.Name
		a.pods[key] = p
		wl := a.ix.workloadOf(p)
		a.podWL[key] = wl
		a.ix.known[wl] = true
	}
	// The first restart back-off of each pod dates its crash loop.
	for _, e := range s.events {
		if e.InvolvedObject.Kind == "Pod" && e.Reason == "BackOff" && strings.Contains(e.Message, "restarting failed container") {
			first, _, _ := e.times()
			key := nsOf(e) + "/" + e.InvolvedObject.Name
			if t, ok := a.backoff[key]; !ok || first.Before(t) {
				a.backoff[key] = first
			}
		}
	}
	return a
}

func nsOf(e event) string {
	if e.InvolvedObject.Namespace != "" {
		return e.InvolvedObject.Namespace
	}
	return e.Metadata.Namespace
}

// add records an observation when text matches the fingerprint catalogue.
func (a *analyzer) add(kind investigate.FindingKind, service, text string, o observation) *observation {
	f, ok := investigate.TextFinding(kind, investigate.FamilyK8s, service, text, o.first)
	if !ok {
		return nil
	}
	o.f = f
	if o.last.IsZero() || o.last.Before(o.first) {
		o.last = o.first
	}
	if o.count < 1 {
		o.count = 1
	}
	if o.quote == "" {
		o.quote = f.Quote
	}
	a.obs = append(a.obs, &o)
	return a.obs[len(a.obs)-1]
}

func containerAttrs(p *pod, cs *containerStatus, c *container) map[string]string {
	at := map[string]string{"pod": p.Metadata.Name, "namespace": p.Metadata.Namespace}
	if p.Spec.NodeName != "" {
		at["node"] = p.Spec.NodeName
	}
	if cs != nil {
		at["container"] = cs.Name
		at["restarts"] = fmt.Sprint(cs.RestartCount)
		if cs.Image != "" {
			at["image"] = cs.Image
		}
	}
	if c != nil {
		at["container"] = c.Name
		if at["image"] == "" && c.Image != "" {
			at["image"] = c.Image
		}
		if v := c.Resources.Limits["memory"]; v != "" {
			at["memory_limit"] = v
		}
		if v := c.Resources.Requests["memory"]; v != "" {
			at["memory_request"] = v
		}
	}
	return at
}

func memoryNote(c *container) string {
	if c == nil {
		return ""
	}
	lim, req := c.Resources.Limits["memory"], c.Resources.Requests["memory"]
	switch {
	case lim != "" && req != "":
		return fmt.Sprintf(", memory limit %s (request %s)", lim, req)
	case lim != "":
		return ", memory limit " + lim
	case req != "":
		return fmt.Sprintf(", no memory limit (request %s)", req)
	}
	return ", no memory limit"
}

// scanPods reads container states, evictions and scheduling failures.
func (a *analyzer) scanPods() {
	for i := range a.snap.pods {
		p := &a.snap.pods[i]
		key := p.Metadata.Namespace + "/" + p.Metadata.Name
		wl := a.podWL[key]
		if p.Status.Reason == "Evicted" {
			at := containerAttrs(p, nil, firstContainer(p))
			at["reason"] = "Evicted"
			when := evictionTime(p)
			a.add(investigate.KindK8sEvent, wl, "Evicted: "+p.Status.Message, observation{pod: p.Metadata.Name, first: when, prio: 3, attrs: at,
				quote: fmt.Sprintf("%s evicted from node %s: %s", p.Metadata.Name, p.Spec.NodeName, strings.TrimSpace(p.Status.Message))})
			if p.Spec.NodeName != "" {
				a.evicted[p.Spec.NodeName] = appendUnique(a.evicted[p.Spec.NodeName], wl)
			}
		}
		for _, c := range p.Status.Conditions {
			if c.Type == "PodScheduled" && c.Status == "False" && c.Reason == "Unschedulable" {
				at := containerAttrs(p, nil, firstContainer(p))
				at["reason"] = "FailedScheduling"
				a.add(investigate.KindK8sEvent, wl, "FailedScheduling: "+c.Message, observation{pod: p.Metadata.Name, first: parseTime(c.LastTransitionTime), prio: 3, attrs: at,
					quote: fmt.Sprintf("%s cannot be scheduled: %s", p.Metadata.Name, strings.TrimSpace(c.Message))})
			}
		}
		for _, cs := range p.statuses() {
			a.scanContainer(p, wl, cs)
		}
	}
}

func firstContainer(p *pod) *container {
	if len(p.Spec.Containers) > 0 {
		return &p.Spec.Containers[0]
	}
	return nil
}

func evictionTime(p *pod) time.Time {
	var t time.Time
	for _, cs := range p.Status.ContainerStatuses {
		if tt := cs.State.Terminated; tt != nil {
			if f := parseTime(tt.FinishedAt); !f.IsZero() && (t.IsZero() || f.Before(t)) {
				t = f
			}
		}
	}
	if t.IsZero() {
		for _, c := range p.Status.Conditions {
			if c.Type == "Ready" && c.Status == "False" {
				t = parseTime(c.LastTransitionTime)
			}
		}
	}
	return t
}

func (a *analyzer) scanContainer(p *pod, wl string, cs containerStatus) {
	key := p.Metadata.Namespace + "/" + p.Metadata.Name
	c := p.container(cs.Name)
	id := p.Metadata.Name + "/" + cs.Name
	if w := cs.State.Waiting; w != nil {
		switch w.Reason {
		case "", "ContainerCreating", "PodInitializing":
		case "CrashLoopBackOff":
			lt := cs.LastState.Terminated
			if lt != nil && lt.Reason == "OOMKilled" {
				a.oom(p, wl, cs, c, lt, true)
				return
			}
			a.crashLoop(p, wl, cs, c, lt)
			return
		case "ImagePullBackOff", "ErrImagePull", "InvalidImageName", "ErrImageNeverPull":
			at := containerAttrs(p, &cs, c)
			at["reason"] = w.Reason
			if c != nil {
				at["image"] = c.Image
			}
			if prev := a.previousImage(p, cs.Name); prev != "" && prev != at["image"] {
				at["previous_image"] = prev
			}
			a.setField(at, p, cs.Name, "image", at["image"], at["previous_image"], w.Reason)
			q := fmt.Sprintf("%s %s: image %s cannot be pulled", id, w.Reason, at["image"])
			if d := a.pullDetail(p); d != "" {
				q += " (" + d + ")"
			}
			if at["previous_image"] != "" {
				q += "; the previous ReplicaSet ran " + at["previous_image"]
			}
			a.add(investigate.KindK8sEvent, wl, w.Reason+": "+w.Message, observation{pod: p.Metadata.Name, first: podStart(p), prio: 3, attrs: at, quote: q})
			return
		case "CreateContainerConfigError", "CreateContainerError":
			at := containerAttrs(p, &cs, c)
			at["reason"] = w.Reason
			refAttrs(at, w.Message, c)
			q := fmt.Sprintf("%s %s: %s", id, w.Reason, w.Message)
			if at["env_var"] != "" {
				q += fmt.Sprintf(" (referenced by env %s)", at["env_var"])
			}
			a.add(investigate.KindK8sEvent, wl, w.Reason+": "+w.Message, observation{pod: p.Metadata.Name, first: podStart(p), prio: 3, attrs: at, quote: q})
			a.causeOf[key] = "k8s-configerror"
			return
		default:
			at := containerAttrs(p, &cs, c)
			at["reason"] = w.Reason
			a.add(investigate.KindK8sEvent, wl, w.Reason+": "+w.Message, observation{pod: p.Metadata.Name, first: podStart(p), prio: 3, attrs: at,
				quote: fmt.Sprintf("%s %s: %s", id, w.Reason, w.Message)})
			return
		}
	}
	if t := cs.State.Terminated; t != nil && t.Reason == "OOMKilled" {
		a.oom(p, wl, cs, c, t, false)
		return
	}
	lt := cs.LastState.Terminated
	if lt == nil || cs.RestartCount == 0 {
		return
	}
	if lt.Reason == "OOMKilled" {
		a.oom(p, wl, cs, c, lt, false)
		return
	}
	if lt.Message != "" {
		at := containerAttrs(p, &cs, c)
		at["reason"], at["exit_code"] = lt.Reason, fmt.Sprint(lt.ExitCode)
		a.add(investigate.KindK8sEvent, wl, lt.Message, observation{pod: p.Metadata.Name, first: parseTime(lt.FinishedAt), count: cs.RestartCount, prio: 3, attrs: at,
			quote: fmt.Sprintf("%s last terminated %s (exit %d), %d restarts: %s", id, lt.Reason, lt.ExitCode, cs.RestartCount, strings.TrimSpace(lt.Message))})
	}
	if lt.ExitCode != 0 {
		a.crashed = append(a.crashed, logTarget{Namespace: p.Metadata.Namespace, Pod: p.Metadata.Name, Container: cs.Name, Workload: wl,
			Restarts: cs.RestartCount, Exit: lt.ExitCode, Reason: lt.Reason, Started: parseTime(lt.StartedAt), Finished: parseTime(lt.FinishedAt)})
	}
}

func podStart(p *pod) time.Time {
	if t := parseTime(p.Status.StartTime); !t.IsZero() {
		return t
	}
	return parseTime(p.Metadata.CreationTimestamp)
}

// oom records an OOM kill of a container.
func (a *analyzer) oom(p *pod, wl string, cs containerStatus, c *container, t *terminated, backingOff bool) {
	key := p.Metadata.Namespace + "/" + p.Metadata.Name
	at := containerAttrs(p, &cs, c)
	at["reason"], at["exit_code"] = "OOMKilled", fmt.Sprint(t.ExitCode)
	limit := ""
	if c != nil {
		limit = c.Resources.Limits["memory"]
	}
	a.setField(at, p, cs.Name, "resources.limits.memory", limit, "", "OOMKilled")
	first, last := parseTime(t.FinishedAt), parseTime(t.FinishedAt)
	if b, ok := a.backoff[key]; ok && (first.IsZero() || b.Before(first)) {
		first = b
	}
	q := fmt.Sprintf("%s/%s last terminated OOMKilled (exit %d), %d restarts%s", p.Metadata.Name, cs.Name, t.ExitCode, cs.RestartCount, memoryNote(c))
	if backingOff {
		q += "; now in CrashLoopBackOff"
	}
	a.add(investigate.KindK8sEvent, wl, "OOMKilled", observation{pod: p.Metadata.Name, first: first, last: last, count: max(cs.RestartCount, 1), prio: 3, attrs: at, quote: q})
	a.causeOf[key] = "k8s-oomkilled"
}

// crashLoop records a container restarting in a loop for a reason its
// status does not tell; its previous logs are read to find out.
func (a *analyzer) crashLoop(p *pod, wl string, cs containerStatus, c *container, lt *terminated) {
	key := p.Metadata.Namespace + "/" + p.Metadata.Name
	at := containerAttrs(p, &cs, c)
	at["reason"] = "CrashLoopBackOff"
	first := a.backoff[key]
	var last time.Time
	q := fmt.Sprintf("%s/%s in CrashLoopBackOff, %d restarts", p.Metadata.Name, cs.Name, cs.RestartCount)
	text := "CrashLoopBackOff: back-off restarting failed container"
	tgt := logTarget{Namespace: p.Metadata.Namespace, Pod: p.Metadata.Name, Container: cs.Name, Workload: wl, Restarts: cs.RestartCount, waiting: true}
	if lt != nil {
		at["exit_code"], at["last_reason"] = fmt.Sprint(lt.ExitCode), lt.Reason
		q += fmt.Sprintf(", last exit %d (%s)", lt.ExitCode, lt.Reason)
		last = parseTime(lt.FinishedAt)
		if first.IsZero() {
			first = last
		}
		if m := strings.TrimSpace(lt.Message); m != "" {
			q += ": " + m
			text += "\n" + m
		}
		tgt.Exit, tgt.Reason, tgt.Started, tgt.Finished = lt.ExitCode, lt.Reason, parseTime(lt.StartedAt), last
	}
	tgt.cause = a.add(investigate.KindK8sEvent, wl, text, observation{pod: p.Metadata.Name, first: first, last: last, count: max(cs.RestartCount, 1), prio: 3, attrs: at, quote: q})
	if tgt.cause != nil && tgt.cause.f.Signature != "k8s-crashloop" {
		a.causeOf[key] = tgt.cause.f.Signature
	}
	a.crashed = append(a.crashed, tgt)
}

var (
	secretKeyRE  = regexp.MustCompile(`couldn't find key (\S+) in (Secret|ConfigMap) (?:([^/\s]+)/)?(\S+)`)
	missingObjRE = regexp.MustCompile(`(secret|configmap) "([^"]+)" not found`)
	missingEnvRE = regexp.MustCompile(`(?i)(?:environment variable|env var|env)\s+["'\x60]?([A-Z][A-Z0-9_]{2,})["'\x60]?|KeyError: '([A-Z][A-Z0-9_]{2,})'|required key \[?([A-Z][A-Z0-9_]+)\]?`)
)

// refAttrs names the Secret/ConfigMap key a message complains about and the
// env var of the container that references it.
func refAttrs(at map[string]string, msg string, c *container) {
	if m := secretKeyRE.FindStringSubmatch(msg); m != nil {
		kind := strings.ToLower(m[2])
		at[kind+"_key"], at[kind] = m[1], m[4]
		if c != nil {
			for _, e := range c.Env {
				if e.ValueFrom == nil {
					continue
				}
				ref := e.ValueFrom.SecretKeyRef
				if kind == "configmap" {
					ref = e.ValueFrom.ConfigMapKeyRef
				}
				if ref != nil && ref.Name == m[4] && ref.Key == m[1] {
					at["env_var"] = e.Name
				}
			}
		}
		return
	}
	if m := missingObjRE.FindStringSubmatch(msg); m != nil {
		at[strings.ToLower(m[1])] = m[2]
	}
}

// envAttrs names the variable a "missing env" message complains about,
// whether the container defines it, and defined names that look like a
// rename of it.
func envAttrs(at map[string]string, msg string, c *container) {
	m := missingEnvRE.FindStringSubmatch(msg)
	if m == nil {
		return
	}
	name := firstNonEmpty(m[1], m[2], m[3])
	at["env_var"] = name
	if c == nil {
		return
	}
	defined := false
	var similar []string
	for _, e := range c.Env {
		if e.Name == name {
			defined = true
		} else if len(e.Name) >= 4 && (strings.HasSuffix(name, e.Name) || strings.HasSuffix(e.Name, name) || strings.HasPrefix(name, e.Name) || strings.HasPrefix(e.Name, name)) {
			similar = append(similar, e.Name)
		}
	}
	at["env_defined"] = fmt.Sprint(defined)
	if len(similar) > 0 {
		at["env_similar"] = strings.Join(similar, ",")
	}
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// previousImage is the image of the ReplicaSet that preceded the pod's own
// (by deployment revision), when a rollout changed it.
func (a *analyzer) previousImage(p *pod, ctr string) string {
	if len(p.Metadata.OwnerReferences) == 0 || p.Metadata.OwnerReferences[0].Kind != "ReplicaSet" {
		return ""
	}
	own := p.Metadata.OwnerReferences[0].Name
	var mine *workloadObj
	for i := range a.snap.workloads {
		w := &a.snap.workloads[i]
		if w.Kind == "ReplicaSet" && w.Metadata.Name == own && w.Metadata.Namespace == p.Metadata.Namespace {
			mine = w
		}
	}
	if mine == nil || len(mine.Metadata.OwnerReferences) == 0 {
		return ""
	}
	deploy := mine.Metadata.OwnerReferences[0].Name
	var prev *workloadObj
	for i := range a.snap.workloads {
		w := &a.snap.workloads[i]
		if w.Kind != "ReplicaSet" || w == mine || w.Metadata.Namespace != p.Metadata.Namespace ||
			len(w.Metadata.OwnerReferences) == 0 || w.Metadata.OwnerReferences[0].Name != deploy {
			continue
		}
		if w.revision() < mine.revision() && (prev == nil || w.revision() > prev.revision()) {
			prev = w
		}
	}
	if prev == nil {
		return ""
	}
	return prev.image(ctr)
}

// pullDetail is the registry's answer quoted in the pod's pull failure
// events ("not found", "unauthorized"...).
func (a *analyzer) pullDetail(p *pod) string {
	for _, e := range a.snap.events {
		if e.InvolvedObject.Kind == "Pod" && e.InvolvedObject.Name == p.Metadata.Name && strings.HasPrefix(e.Message, "Failed to pull image") {
			parts := strings.Split(e.Message, ": ")
			return investigate.Quote(parts[len(parts)-1], 80)
		}
	}
	return ""
}

// scanNodes ties node pressure to the workloads on the node: those evicted
// from it, and those running there without a memory limit.
func (a *analyzer) scanNodes() {
	for _, n := range a.snap.nodes {
		conds := n.pressure()
		if len(conds) == 0 {
			continue
		}
		a.pressure[n.Metadata.Name] = conds
		for _, cond := range conds {
			if cond.Type != "MemoryPressure" {
				continue
			}
			since := parseTime(cond.LastTransitionTime)
			for i := range a.snap.pods {
				p := &a.snap.pods[i]
				if p.Spec.NodeName != n.Metadata.Name || p.Status.Reason == "Evicted" || p.Status.Phase == "Succeeded" || p.Status.Phase == "Failed" {
					continue
				}
				for j := range p.Spec.Containers {
					c := &p.Spec.Containers[j]
					if c.Resources.Limits["memory"] != "" {
						continue
					}
					wl := a.podWL[p.Metadata.Namespace+"/"+p.Metadata.Name]
					at := containerAttrs(p, nil, c)
					at["condition"], at["memory_limit"], at["role"] = cond.Type, "none", "no_memory_limit_on_pressured_node"
					if p.Status.QOSClass != "" {
						at["qos"] = p.Status.QOSClass
					}
					req := c.Resources.Requests["memory"]
					if req == "" {
						req = "none"
					}
					q := fmt.Sprintf("node %s has MemoryPressure since %s; %s/%s runs there without a memory limit (request %s)",
						n.Metadata.Name, since.Format("15:04:05Z"), p.Metadata.Name, c.Name, req)
					a.add(investigate.KindK8sEvent, wl, q, observation{pod: p.Metadata.Name, first: since, prio: 2, attrs: at, quote: q})
					a.suspects[n.Metadata.Name] = appendUnique(a.suspects[n.Metadata.Name], wl)
				}
			}
		}
	}
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// benignReasons are normal lifecycle events, never findings.
var benignReasons = map[string]bool{
	"Scheduled": true, "Pulling": true, "Pulled": true, "Created": true, "Started": true, "Killing": true,
	"ScalingReplicaSet": true, "SuccessfulCreate": true, "SuccessfulDelete": true, "SuccessfulRescale": true,
	"Issuing": true, "Updated": true, "ScaleDown": true, "Completed": true, "SawCompletedJob": true, "Sync": true,
	"SuccessfulAttachVolume": true, "NodeReady": true, "RegisteredNode": true, "Starting": true, "NodeHasSufficientMemory": true,
	"NodeHasNoDiskPressure": true, "NodeHasSufficientPID": true, "LeaderElection": true,
}

// canonicalReasons spell out what an event reason means when its message
// does not say it in the words of the fingerprint catalogue.
var canonicalReasons = map[string]string{
	"Certificate/Expired": "certificate has expired",
}

// warnedReasons are findings even when the event type is Normal.
var warnedReasons = map[string]bool{"BackOff": true, "NodeHasInsufficientMemory": true, "NodeHasDiskPressure": true, "Evicted": true, "OOMKilling": true}

var (
	probeRE     = regexp.MustCompile(`(?i)^(Readiness|Liveness|Startup) probe (?:failed|errored)`)
	probePortRE = regexp.MustCompile(`:(\d{2,5})(?:/|\b)`)
	fieldCtrRE  = regexp.MustCompile(`spec\.(?:init)?[cC]ontainers\{([^}]+)\}`)
)

// scanEvents turns warning events into observations tied to workloads.
func (a *analyzer) scanEvents() {
	for _, e := range a.snap.events {
		if e.Reason == "Killing" && strings.Contains(e.Message, "failed liveness probe") {
			_, _, n := e.times()
			a.livenessKills[a.ix.fromPodName(e.InvolvedObject.Name)] += max(n, 1)
		}
		if benignReasons[e.Reason] || (e.Type != "Warning" && !warnedReasons[e.Reason]) {
			continue
		}
		first, last, count := e.times()
		ns := nsOf(e)
		text := e.Reason + ": " + strings.TrimSpace(e.Message)
		if canon, ok := canonicalReasons[e.InvolvedObject.Kind+"/"+e.Reason]; ok {
			text = canon + ": " + text
		}
		at := map[string]string{"reason": e.Reason, "object": e.InvolvedObject.Kind + "/" + e.InvolvedObject.Name}
		if ns != "" {
			at["namespace"] = ns
		}
		o := observation{first: first, last: last, count: count, prio: 2, attrs: at}
		switch e.InvolvedObject.Kind {
		case "Pod":
			key := ns + "/" + e.InvolvedObject.Name
			p := a.pods[key]
			wl := a.podWL[key]
			if p == nil {
				wl = a.ix.fromPodName(e.InvolvedObject.Name)
			}
			if e.Reason == "BackOff" && strings.Contains(e.Message, "restarting failed container") && a.causeOf[key] != "" {
				continue // already folded into the crash cause of this pod
			}
			o.pod = e.InvolvedObject.Name
			at["pod"] = e.InvolvedObject.Name
			var c *container
			if p != nil {
				if p.Spec.NodeName != "" {
					at["node"] = p.Spec.NodeName
				}
				if m := fieldCtrRE.FindStringSubmatch(e.InvolvedObject.FieldPath); m != nil {
					c = p.container(m[1])
				}
			}
			o.quote = fmt.Sprintf("%s %s (%d×, last %s): %s", e.InvolvedObject.Name, e.Reason, count, last.Format("15:04:05Z"), investigate.Quote(e.Message, 160))
			if m := probeRE.FindStringSubmatch(e.Message); m != nil && p != nil {
				o.quote += a.probeAttrs(at, p, strings.ToLower(m[1]), e.Message)
			} else if c != nil {
				at["container"] = c.Name
			}
			if strings.Contains(e.Message, "couldn't find key") || strings.Contains(e.Message, "not found") {
				if p != nil {
					refAttrs(at, e.Message, firstContainer(p))
				} else {
					refAttrs(at, e.Message, nil)
				}
			}
			if added := a.add(investigate.KindK8sEvent, wl, text, o); added != nil && probeRE.MatchString(e.Message) && at["probe_port_mismatch"] != "true" {
				// The probe's own configuration is at fault only when it
				// targets a port the container does not listen on; an
				// answer such as 503 or a timeout is a symptom of the app.
				added.f.ErrorType = investigate.ErrUnknown
			}
		case "Node":
			node := e.InvolvedObject.Name
			at["node"] = node
			o.quote = fmt.Sprintf("node %s %s (%d×, last %s): %s", node, e.Reason, count, last.Format("15:04:05Z"), investigate.Quote(e.Message, 160))
			// Node pressure is caused by what consumes memory there: the pods
			// without a memory limit; else it is told for its victims.
			targets := a.suspects[node]
			if len(targets) == 0 {
				targets = a.evicted[node]
			}
			if len(targets) == 0 {
				a.add(investigate.KindK8sEvent, "", text, o)
			}
			for _, wl := range targets {
				oo := o
				oo.attrs = copyAttrs(at)
				a.add(investigate.KindK8sEvent, wl, text, oo)
			}
		default:
			wl := a.ix.fromObjectName(e.InvolvedObject.Kind, ns, e.InvolvedObject.Name)
			o.quote = fmt.Sprintf("%s/%s %s (%d×): %s", e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Reason, count, investigate.Quote(e.Message, 160))
			a.add(investigate.KindK8sEvent, wl, text, o)
		}
	}
}

// probeAttrs describes the probe an event says is failing: its port and
// path against the ports the container listens on.
func (a *analyzer) probeAttrs(at map[string]string, p *pod, kind, msg string) string {
	at["probe"] = kind
	msgPort := ""
	if m := probePortRE.FindStringSubmatch(msg); m != nil {
		msgPort = m[1]
	}
	var best *container
	var bestPort, bestPath, bestRaw, bestHandler string
	for i := range p.Spec.Containers {
		c := &p.Spec.Containers[i]
		pr := c.ReadinessProbe
		switch kind {
		case "liveness":
			pr = c.LivenessProbe
		case "startup":
			pr = c.StartupProbe
		}
		raw, path, handler := pr.target()
		if pr == nil {
			continue
		}
		port := c.portNamed(raw)
		if best == nil || (msgPort != "" && port == msgPort) {
			best, bestPort, bestPath, bestRaw, bestHandler = c, port, path, raw, handler
		}
	}
	if best == nil {
		return ""
	}
	at["container"] = best.Name
	if bestPort != "" {
		at["probe_port"] = bestPort
	}
	if bestPath != "" {
		at["probe_path"] = bestPath
	}
	ports := best.ports()
	if len(ports) > 0 {
		at["container_ports"] = strings.Join(ports, ",")
	}
	if bestPort != "" && len(ports) > 0 && !contains(ports, bestPort) {
		at["probe_port_mismatch"] = "true"
		want := ""
		if len(ports) == 1 {
			want = ports[0]
		}
		a.setField(at, p, best.Name, fmt.Sprintf("%sProbe.%s.port", kind, bestHandler), bestRaw, want, "ProbePortNotExposed")
		return fmt.Sprintf("; the %s probe targets port %s but container %s listens on %s", kind, bestPort, best.Name, strings.Join(ports, ","))
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func copyAttrs(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// logTargets picks at most n crashed containers whose previous logs are
// worth reading: crash loops first, then the most restarted, one per
// workload before a second of the same.
func (a *analyzer) logTargets(n int, services []string) []logTarget {
	cands := append([]logTarget(nil), a.crashed...)
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].waiting != cands[j].waiting {
			return cands[i].waiting
		}
		return cands[i].Restarts > cands[j].Restarts
	})
	var out []logTarget
	seen := map[string]bool{}
	for pass := 0; pass < 2 && len(out) < n; pass++ {
		for _, t := range cands {
			if len(out) >= n {
				break
			}
			if len(services) > 0 && !matchService(t.Workload, services) {
				continue
			}
			id := t.Pod + "/" + t.Container
			if seen[id] || (pass == 0 && seen["wl:"+t.Workload]) {
				continue
			}
			seen[id], seen["wl:"+t.Workload] = true, true
			out = append(out, t)
		}
	}
	return out
}

var lineTimeRE = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?`)

// scanLogs turns a crashed container's previous log lines into findings,
// one per error pattern. A configuration or platform cause (missing env,
// rejected credentials...) also explains the crash loop.
func (a *analyzer) scanLogs(t logTarget, lines []string) {
	p := a.pods[t.Namespace+"/"+t.Pod]
	var c *container
	if p != nil {
		c = p.container(t.Container)
	}
	type group struct {
		o    *observation
		text string
	}
	groups := map[string]*group{}
	var order []string
	for _, line := range joinEntries(lines) {
		text, _ := investigate.LogText(line)
		at := t.Finished
		if m := lineTimeRE.FindString(line); m != "" {
			if tt := parseLineTime(m); !tt.IsZero() {
				at = tt
			}
		}
		f, ok := investigate.TextFinding(investigate.KindLogPattern, investigate.FamilyK8s, t.Workload, text, at)
		if !ok {
			continue
		}
		key := f.Signature + "|" + investigate.Template(f.Quote)
		g := groups[key]
		if g == nil {
			attrs := map[string]string{"pod": t.Pod, "container": t.Container, "namespace": t.Namespace, "source": "previous_container_logs",
				"restarts": fmt.Sprint(t.Restarts)}
			if t.Reason != "" {
				attrs["exit_code"], attrs["last_reason"] = fmt.Sprint(t.Exit), t.Reason
			}
			envAttrs(attrs, text, c)
			g = &group{text: text, o: &observation{f: f, pod: t.Pod, first: at, last: at, prio: 1, attrs: attrs,
				quote: fmt.Sprintf("%s/%s previous container log: %s", t.Pod, t.Container, lastMatchingLine(text, f))}}
			g.o.f.Quote = lastMatchingLine(text, f)
			groups[key] = g
			order = append(order, key)
		}
		g.o.count++
		if at.Before(g.o.first) {
			g.o.first = at
		}
		if at.After(g.o.last) {
			g.o.last = at
		}
	}
	var cause *group
	for _, k := range order {
		g := groups[k]
		g.o.f.Count = g.o.count
		a.obs = append(a.obs, g.o)
		if s := investigate.SignatureByID(g.o.f.Signature); s != nil && s.Infra && s.Role == investigate.RoleCause {
			if cause == nil || g.o.count > cause.o.count {
				cause = g
			}
		}
	}
	// The crash loop is explained by a platform/configuration cause: the
	// loop's own finding now carries it.
	if cause != nil && t.cause != nil && t.cause.f.Signature == "k8s-crashloop" {
		text := "CrashLoopBackOff: " + cause.text
		if f, ok := investigate.TextFinding(investigate.KindK8sEvent, investigate.FamilyK8s, t.Workload, text, t.cause.first); ok && f.Signature != "k8s-crashloop" {
			t.cause.f = f
			t.cause.quote += "; it exits with: " + investigate.Quote(cause.o.f.Quote, 160)
			for k, v := range cause.o.attrs {
				if strings.HasPrefix(k, "env_") {
					t.cause.attrs[k] = v
				}
			}
			a.causeOf[t.Namespace+"/"+t.Pod] = f.Signature
		}
	}
}

// klogTimeRE is the header of a klog line (client-go's): W0414 09:38:39.771752.
var klogTimeRE = regexp.MustCompile(`^[IWEF](\d{2})(\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d+)?)`)

// logLineTime reads the time a log line starts with (RFC 3339-like, or a
// klog header, whose year is the clock's), zero when it has none.
func logLineTime(line string, now time.Time) time.Time {
	if m := lineTimeRE.FindString(line); m != "" {
		return parseLineTime(m)
	}
	if m := klogTimeRE.FindStringSubmatch(strings.TrimSpace(line)); m != nil && !now.IsZero() {
		t, err := time.Parse("2006-01-02 15:04:05.999999999", fmt.Sprintf("%d-%s-%s %s", now.Year(), m[1], m[2], m[3]))
		if err == nil {
			if t.After(now.Add(24 * time.Hour)) {
				t = t.AddDate(-1, 0, 0) // a line of last December read in January
			}
			return t
		}
	}
	return time.Time{}
}

func parseLineTime(s string) time.Time {
	s = strings.Replace(s, ",", ".", 1)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999", "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// findings merges observations per (workload, signature, kind): counts
// add up over pods (the largest count of each pod), times span all of
// them, and the most telling observation gives the quote and attrs.
func (a *analyzer) findings(services []string) (out, unattributed []investigate.Finding) {
	type agg struct {
		best   *observation
		perPod map[string]int
		first  time.Time
		last   time.Time
		pods   []string
		probes map[string]bool // probe kinds failing (readiness, liveness)
	}
	groups := map[string]*agg{}
	var order []string
	for _, o := range a.obs {
		k := o.f.Service + "|" + o.f.Signature + "|" + string(o.f.Kind)
		g := groups[k]
		if g == nil {
			g = &agg{perPod: map[string]int{}}
			groups[k] = g
			order = append(order, k)
		}
		if g.best == nil || o.prio > g.best.prio || (o.prio == g.best.prio && o.count > g.best.count) {
			g.best = o
		}
		if p := o.attrs["probe"]; p != "" {
			if g.probes == nil {
				g.probes = map[string]bool{}
			}
			g.probes[p] = true
		}
		if _, ok := g.perPod[o.pod]; !ok && o.pod != "" {
			g.pods = append(g.pods, o.pod)
		}
		g.perPod[o.pod] = max(g.perPod[o.pod], o.count)
		if !o.first.IsZero() && (g.first.IsZero() || o.first.Before(g.first)) {
			g.first = o.first
		}
		if o.last.After(g.last) {
			g.last = o.last
		}
	}
	// A probe failing on a healthy probe configuration is a symptom: when
	// the workload's crash logs say what is wrong, the failure supports
	// that error type instead of standing alone.
	logType := map[string]investigate.ErrorType{}
	logCount := map[string]int{}
	for _, o := range a.obs {
		if o.f.Kind == investigate.KindLogPattern && o.f.ErrorType != investigate.ErrUnknown && o.count > logCount[o.f.Service] {
			logType[o.f.Service], logCount[o.f.Service] = o.f.ErrorType, o.count
		}
	}
	for _, o := range a.obs {
		if o.f.Signature == "k8s-probe" && o.f.ErrorType == investigate.ErrUnknown && logType[o.f.Service] != "" {
			o.f.ErrorType = logType[o.f.Service]
			o.attrs["error_type_from"] = "previous_container_logs"
		}
	}
	// Victims of node pressure point at what consumes the node's memory.
	for _, o := range a.obs {
		node := o.attrs["node"]
		if o.attrs["reason"] == "Evicted" && len(a.suspects[node]) > 0 {
			o.attrs["pressure_suspects"] = strings.Join(a.suspects[node], ",")
		}
	}
	for _, k := range order {
		g := groups[k]
		f := g.best.f
		total := 0
		for _, n := range g.perPod {
			total += n
		}
		f.Count, f.Time, f.LastTime = total, g.first, g.last
		if f.LastTime.Before(f.Time) {
			f.LastTime = f.Time
		}
		f.Attrs = copyAttrs(g.best.attrs)
		if len(g.probes) > 1 {
			var kinds []string
			for p := range g.probes {
				kinds = append(kinds, p)
			}
			sort.Strings(kinds)
			f.Attrs["probes"] = strings.Join(kinds, ",")
		}
		if n := a.livenessKills[f.Service]; n > 0 && f.Signature == "k8s-probe" {
			// The kubelet restarted containers for failing liveness: the
			// probe is killing pods, not only taking them out of service.
			f.Attrs["liveness_kills"] = fmt.Sprint(n)
		}
		q := g.best.quote
		if len(g.pods) > 1 {
			f.Attrs["pods_affected"] = fmt.Sprint(len(g.pods))
			sort.Strings(g.pods)
			f.Attrs["pods"] = strings.Join(g.pods[:min(len(g.pods), 5)], ",")
			q += fmt.Sprintf(" [%d pods of %s affected, %d occurrences]", len(g.pods), f.Service, total)
		}
		f.Quote = investigate.Quote(q, 320)
		if f.Service == "" {
			unattributed = append(unattributed, f)
			continue
		}
		if len(services) > 0 && !matchService(f.Service, services) {
			continue
		}
		out = append(out, f)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Service != out[j].Service {
			return out[i].Service < out[j].Service
		}
		return out[i].Signature < out[j].Signature
	})
	return out, unattributed
}

func matchService(wl string, services []string) bool {
	n := investigate.NormalizeServiceName(wl)
	for _, s := range services {
		if n == investigate.NormalizeServiceName(s) || strings.EqualFold(wl, s) {
			return true
		}
	}
	return false
}

var (
	recordStartRE = regexp.MustCompile(`^(?:\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|\{|time=|ts=|level=|[IWEF]\d{4} \d{2}:)`)
	pyExcRE       = regexp.MustCompile(`^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning)\b`)
	goFrameRE     = regexp.MustCompile(`^(?:goroutine \d+ \[|[\w./*()\[\]-]+\(.*\)$|created by )`)
)

// maxEntryBytes bounds one joined log entry.
const maxEntryBytes = 16 << 10

// joinEntries rebuilds multi-line log entries (stack traces, Python
// tracebacks, Go panics) from the lines kubectl logs prints: when lines
// start with a timestamp or a structured prefix, each such line starts an
// entry; otherwise indented lines, "Caused by" lines and the body of a
// traceback or panic join the entry before them.
func joinEntries(lines []string) []string {
	starts := 0
	for _, l := range lines {
		if recordStartRE.MatchString(l) {
			starts++
		}
	}
	structured := starts > 0 && starts*4 >= len(lines)
	var out []string
	block := "" // "py" inside a Python traceback, "go" inside a Go panic
	appendTo := func(l string) {
		if len(out) == 0 {
			out = append(out, l)
			return
		}
		if len(out[len(out)-1])+len(l) < maxEntryBytes {
			out[len(out)-1] += "\n" + l
		}
	}
	for _, l := range lines {
		trimmed := strings.TrimSpace(l)
		switch {
		case len(out) == 0:
			out = append(out, l)
		case structured:
			if recordStartRE.MatchString(l) {
				out = append(out, l)
			} else {
				appendTo(l)
			}
			continue
		case strings.HasPrefix(l, "Traceback (most recent call last)"):
			if block == "py" && strings.HasSuffix(out[len(out)-1], ":") {
				appendTo(l) // a chained exception
			} else {
				out = append(out, l)
			}
		case l != trimmed && trimmed != "", strings.HasPrefix(trimmed, "Caused by"), strings.HasPrefix(trimmed, "... "),
			strings.HasPrefix(l, "During handling of the above exception"), strings.HasPrefix(l, "The above exception was the direct cause"):
			appendTo(l)
		case trimmed == "" && block != "":
			appendTo(l)
		case block == "py":
			appendTo(l)
			if pyExcRE.MatchString(l) {
				block = ""
			}
			continue
		case block == "go" && goFrameRE.MatchString(l):
			appendTo(l)
			continue
		default:
			out = append(out, l)
			block = ""
		}
		if strings.HasPrefix(l, "Traceback (most recent call last)") {
			block = "py"
		} else if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
			block = "go"
		}
	}
	return out
}

// lastMatchingLine quotes the last line of a multi-line entry that matches
// the finding's signature: in a traceback that is the exception itself
// ("ImportError: urllib3 v2 only supports OpenSSL 1.1.1+"), not the
// statement that raised it.
func lastMatchingLine(text string, f investigate.Finding) string {
	sig := investigate.SignatureByID(f.Signature)
	if sig == nil || !strings.Contains(text, "\n") {
		return f.Quote
	}
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if sig.Pattern.MatchString(lines[i]) {
			return investigate.Quote(lines[i], 200)
		}
	}
	return f.Quote
}

// setField records, on an observation's attributes, the field of the pod's
// workload that is at fault: sub is the path under the container.
func (a *analyzer) setField(at map[string]string, p *pod, ctr, sub, value, want, reason string) {
	w := a.controller(p)
	r := refOfWorkload(w, containerPath(w, ctr)+"."+sub, value, reason)
	r.Want = want
	r.SetAttrs(at)
}
