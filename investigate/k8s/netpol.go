package k8s

import (
	"fmt"
	"net"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The network-policy analyzer decides whether NetworkPolicies drop traffic
// the workloads need. The traffic is what their logs say failed: a
// connection that timed out (or was refused) to a host and port, resolved
// to a Service or a pod. Between the pods on both sides it evaluates every
// policy as the API defines them (a pod selected for a direction only
// accepts what some rule allows; rules match peers by pod and namespace
// selectors, ip blocks and ports) and names the policy and the rule that
// fall short. A rule whose pod selector matches no pod at all (a label
// renamed on one side) is named even without a failed connection.

var (
	// dial tcp 10.96.4.12:5432: i/o timeout; connect ETIMEDOUT 10.0.44.12:6379;
	// Connection to redis.cache.svc:6379 timed out; ...
	connFailRE = regexp.MustCompile(`(?i)(?:i/o timeout|timed out|timeout|ETIMEDOUT|connection refused|ECONNREFUSED|no route to host|EHOSTUNREACH|unreachable)`)
	hostPortRE = regexp.MustCompile(`\b((?:\d{1,3}\.){3}\d{1,3}|[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*)[:/ ](\d{2,5})\b`)
	jsonAddrRE = regexp.MustCompile(`"address"\s*:\s*"([^"]+)"\s*,\s*"port"\s*:\s*(\d+)`)
)

// flow is one connection the logs say failed.
type flow struct {
	src     *pod
	dst     []*pod
	port    int
	service string // the Service the host named, if any
	line    string
	when    time.Time
	count   int
}

func networkPolicyFaults(a *analyzer) []fault {
	if len(a.snap.policies) == 0 {
		return nil
	}
	var out []fault
	seen := map[string]bool{}
	for _, fl := range a.failedFlows() {
		f, ok := a.blockingPolicy(fl)
		if !ok || seen[f.Ref.Key()+f.Workload] {
			continue
		}
		seen[f.Ref.Key()+f.Workload] = true
		out = append(out, f)
	}
	// Rules that admit nobody: a from/to pod selector no pod matches.
	for i := range a.snap.policies {
		np := &a.snap.policies[i]
		wl := a.workloadOfPods(a.selected(np.Metadata.Namespace, np.Spec.PodSelector.matches))
		if wl == "" {
			continue
		}
		for ri, r := range np.Spec.Ingress {
			for pi, peer := range r.From {
				if f, ok := a.deadPeer(np, wl, fmt.Sprintf("spec.ingress[%d].from[%d]", ri, pi), peer); ok && !seen[f.Ref.Key()+f.Workload] {
					seen[f.Ref.Key()+f.Workload] = true
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// deadPeer reports a peer whose pod selector (in the policy's namespace)
// matches no pod, naming the label that differs from the closest workload.
func (a *analyzer) deadPeer(np *networkPolicy, wl, field string, peer netpolPeer) (fault, bool) {
	if peer.PodSelector == nil || peer.PodSelector.empty() || peer.NamespaceSelector != nil || len(peer.PodSelector.MatchLabels) == 0 {
		return fault{}, false
	}
	ns := np.Metadata.Namespace
	if len(a.selected(ns, peer.PodSelector.matches)) > 0 {
		return fault{}, false
	}
	other, missing := a.closestWorkload(ns, peer.PodSelector.MatchLabels, "")
	if other == "" || len(missing) == 0 {
		return fault{}, false
	}
	key := missing[0]
	f := fault{Workload: wl, Signature: "k8s-netpol-blocked"}
	f.Ref.Kind, f.Ref.Namespace, f.Ref.Name = "NetworkPolicy", ns, np.Metadata.Name
	f.Ref.Field = field + ".podSelector.matchLabels." + key
	f.Ref.Value, f.Ref.Reason = peer.PodSelector.MatchLabels[key], "PeerSelectsNoPods"
	f.Ref.Want = a.labelSets(ns)[other][key]
	f.Message = fmt.Sprintf("NetworkPolicy %s does not allow %s to reach %s: its rule admits pods labelled %s, and no pod is (the pods of %s are labelled %s)",
		np.Metadata.Name, other, wl, labelString(peer.PodSelector.MatchLabels), other, labelString(identityLabels(a.labelSets(ns)[other])))
	f.Attrs = map[string]string{"blocked_peer": other}
	return f, true
}

// failedFlows reads the logs for connections that failed, resolved to the
// pods on both ends.
func (a *analyzer) failedFlows() []flow {
	var out []flow
	keys := make([]string, 0, len(a.snap.logs))
	for k := range a.snap.logs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	by := map[string]int{}
	for _, k := range keys {
		src := a.pods[k]
		if src == nil {
			continue
		}
		for _, line := range a.snap.logs[k] {
			if !connFailRE.MatchString(line) {
				continue
			}
			host, port := peerOf(line)
			if host == "" {
				continue
			}
			dst, svc, target := a.resolvePeer(src.Metadata.Namespace, host, port)
			if len(dst) == 0 {
				continue
			}
			id := k + "|" + host + "|" + strconv.Itoa(port)
			if i, ok := by[id]; ok {
				out[i].count++
				continue
			}
			by[id] = len(out)
			out = append(out, flow{src: src, dst: dst, port: target, service: svc, line: line, when: logLineTime(line, a.snap.now), count: 1})
		}
	}
	return out
}

// peerOf extracts the host and port a failed connection names.
func peerOf(line string) (string, int) {
	if m := jsonAddrRE.FindStringSubmatch(line); m != nil {
		p, _ := strconv.Atoi(m[2])
		return m[1], p
	}
	for _, m := range hostPortRE.FindAllStringSubmatch(line, -1) {
		host := m[1]
		if lineTimeRE.MatchString(host) || !strings.ContainsAny(host, ".") && net.ParseIP(host) == nil && !strings.Contains(host, "-") {
			continue // a clock time, or a bare word
		}
		p, err := strconv.Atoi(m[2])
		if err != nil || p <= 0 || p > 65535 {
			continue
		}
		return host, p
	}
	return "", 0
}

// resolvePeer maps a host (a Service name or IP, a pod IP) to the pods
// behind it, the Service, and the port on the pods.
func (a *analyzer) resolvePeer(fromNS, host string, port int) ([]*pod, string, int) {
	if ip := net.ParseIP(host); ip != nil {
		for i := range a.snap.services {
			s := &a.snap.services[i]
			if s.Spec.ClusterIP == host {
				return a.servicePods(s), s.Metadata.Name, targetPortOf(s, port, a.servicePods(s))
			}
		}
		for i := range a.snap.pods {
			if p := &a.snap.pods[i]; p.Status.PodIP == host {
				return []*pod{p}, "", port
			}
		}
		return nil, "", 0
	}
	parts := strings.Split(strings.TrimSuffix(host, "."), ".")
	name, ns := parts[0], fromNS
	if len(parts) > 1 && parts[1] != "svc" {
		ns = parts[1]
	}
	if len(parts) > 2 && parts[1] != "svc" && parts[2] != "svc" {
		return nil, "", 0 // an external name
	}
	s := a.serviceNamed(ns, name)
	if s == nil {
		return nil, "", 0
	}
	pods := a.servicePods(s)
	return pods, s.Metadata.Name, targetPortOf(s, port, pods)
}

// targetPortOf resolves a Service port to the port on its pods.
func targetPortOf(s *service, port int, pods []*pod) int {
	for _, sp := range s.Spec.Ports {
		if sp.Port != port {
			continue
		}
		tp := string(sp.TargetPort)
		if n, err := strconv.Atoi(tp); err == nil {
			return n
		}
		for _, p := range pods {
			for _, c := range p.Spec.Containers {
				for _, cp := range c.Ports {
					if cp.Name == tp {
						return cp.ContainerPort
					}
				}
			}
		}
	}
	return port
}

// nsLabels are the labels of a namespace as the API sets them (only the
// name label is known without reading Namespace objects).
func nsLabels(ns string) map[string]string {
	return map[string]string{"kubernetes.io/metadata.name": ns}
}

// peerMatches reports whether a rule's peer admits a pod.
func peerMatches(peer netpolPeer, policyNS string, p *pod) bool {
	if peer.IPBlock != nil {
		_, cidr, err := net.ParseCIDR(peer.IPBlock.CIDR)
		ip := net.ParseIP(p.Status.PodIP)
		if err != nil || ip == nil || !cidr.Contains(ip) {
			return false
		}
		for _, ex := range peer.IPBlock.Except {
			if _, e, err := net.ParseCIDR(ex); err == nil && e.Contains(ip) {
				return false
			}
		}
		return true
	}
	if peer.NamespaceSelector != nil {
		if !peer.NamespaceSelector.matches(nsLabels(p.Metadata.Namespace)) {
			return false
		}
	} else if p.Metadata.Namespace != policyNS {
		return false
	}
	if peer.PodSelector != nil && !peer.PodSelector.matches(p.Metadata.Labels) {
		return false
	}
	return true
}

// portMatches reports whether a rule's ports admit a port of a pod.
func portMatches(ports []netpolPort, port int, p *pod) bool {
	if len(ports) == 0 {
		return true
	}
	for _, np := range ports {
		if np.Port == nil {
			return true
		}
		v := string(*np.Port)
		if n, err := strconv.Atoi(v); err == nil {
			if n == port || (np.EndPort != nil && port >= n && port <= *np.EndPort) {
				return true
			}
			continue
		}
		for _, c := range p.Spec.Containers {
			for _, cp := range c.Ports {
				if cp.Name == v && cp.ContainerPort == port {
					return true
				}
			}
		}
	}
	return false
}

// allows evaluates the policies of one side: whether pod self may talk to
// peer on port in the direction dir. It returns the policies that select
// self for dir (none: allowed).
func (a *analyzer) allows(self, peer *pod, port int, dir string) (bool, []*networkPolicy) {
	var selecting []*networkPolicy
	for i := range a.snap.policies {
		np := &a.snap.policies[i]
		if np.Metadata.Namespace != self.Metadata.Namespace || !np.governs(dir) || !np.Spec.PodSelector.matches(self.Metadata.Labels) {
			continue
		}
		selecting = append(selecting, np)
		rules := np.Spec.Ingress
		if dir == "Egress" {
			rules = np.Spec.Egress
		}
		for _, r := range rules {
			peers := r.From
			if dir == "Egress" {
				peers = r.To
			}
			okPeer := len(peers) == 0
			for _, pe := range peers {
				if peerMatches(pe, np.Metadata.Namespace, peer) {
					okPeer = true
					break
				}
			}
			portPod := self
			if dir == "Egress" {
				portPod = peer
			}
			if okPeer && portMatches(r.Ports, port, portPod) {
				return true, selecting
			}
		}
	}
	return len(selecting) == 0, selecting
}

// blockingPolicy explains a failed flow by the policies, if they drop it.
func (a *analyzer) blockingPolicy(fl flow) (fault, bool) {
	dst := fl.dst[0]
	srcWL := a.podWL[fl.src.Metadata.Namespace+"/"+fl.src.Metadata.Name]
	dstWL := a.podWL[dst.Metadata.Namespace+"/"+dst.Metadata.Name]
	peerName := dstWL
	if fl.service != "" {
		peerName = fl.service
	}
	f := fault{Signature: "k8s-netpol-blocked", Time: fl.when, Count: fl.count, Evidence: fl.line,
		Attrs: map[string]string{"blocked_peer": peerName, "port": strconv.Itoa(fl.port)}}
	if ok, pols := a.allows(fl.src, dst, fl.port, "Egress"); !ok {
		np := pols[0]
		f.Workload = srcWL
		f.Ref.Kind, f.Ref.Namespace, f.Ref.Name = "NetworkPolicy", np.Metadata.Namespace, np.Metadata.Name
		f.Ref.Field, f.Ref.Reason = "spec.egress", "EgressNotAllowed"
		f.Ref.Want = fmt.Sprintf("to %s/%s port %d", dst.Metadata.Namespace, labelString(identityLabels(dst.Metadata.Labels)), fl.port)
		f.Message = fmt.Sprintf("NetworkPolicy %s does not allow %s to reach %s on port %d (egress): %s's connections time out",
			np.Metadata.Name, srcWL, peerName, fl.port, srcWL)
		return f, true
	}
	if ok, pols := a.allows(dst, fl.src, fl.port, "Ingress"); !ok {
		np := pols[0]
		f.Workload = dstWL
		f.Ref.Kind, f.Ref.Namespace, f.Ref.Name = "NetworkPolicy", np.Metadata.Namespace, np.Metadata.Name
		f.Ref.Field, f.Ref.Reason = "spec.ingress", "IngressNotAllowed"
		f.Ref.Want = fmt.Sprintf("from %s/%s port %d", fl.src.Metadata.Namespace, labelString(identityLabels(fl.src.Metadata.Labels)), fl.port)
		// The rule that meant to admit the caller: the one whose pod
		// selector shares a key with the caller's labels.
		if field, val, want := closestRule(np, fl.src); field != "" {
			f.Ref.Field, f.Ref.Value, f.Ref.Want = field, val, want
		}
		f.Message = fmt.Sprintf("NetworkPolicy %s does not allow %s to reach %s on port %d (ingress of %s): %s's connections time out",
			np.Metadata.Name, srcWL, peerName, fl.port, dstWL, srcWL)
		f.Attrs["blocked_peer"] = srcWL
		return f, true
	}
	return fault{}, false
}

// closestRule finds the ingress peer whose pod selector differs from the
// caller's labels by one value, and names that label.
func closestRule(np *networkPolicy, src *pod) (field, value, want string) {
	for ri, r := range np.Spec.Ingress {
		for pi, pe := range r.From {
			if pe.PodSelector == nil {
				continue
			}
			keys := make([]string, 0, len(pe.PodSelector.MatchLabels))
			for k := range pe.PodSelector.MatchLabels {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				v := pe.PodSelector.MatchLabels[k]
				if have, ok := src.Metadata.Labels[k]; ok && have != v {
					return fmt.Sprintf("spec.ingress[%d].from[%d].podSelector.matchLabels.%s", ri, pi, k), v, have
				}
			}
		}
	}
	return "", "", ""
}
