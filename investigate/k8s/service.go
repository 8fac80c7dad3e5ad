package k8s

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The service analyzer checks what a Service routes to: a selector that
// matches no pod (a label renamed on one side), and a targetPort the
// selected pods do not expose (named ports included). Both leave callers
// with no endpoint or a refused connection while every pod looks healthy.

func serviceFaults(a *analyzer) []fault {
	var out []fault
	for i := range a.snap.services {
		s := &a.snap.services[i]
		if len(s.Spec.Selector) == 0 || s.Spec.Type == "ExternalName" {
			continue
		}
		ns := s.Metadata.Namespace
		pods := a.servicePods(s)
		if len(pods) == 0 {
			if !a.snap.has("Pod") || len(a.labelSets(ns)) == 0 {
				continue
			}
			wl, missing := a.closestWorkload(ns, s.Spec.Selector, s.Metadata.Name)
			if wl == "" || len(missing) == 0 {
				continue
			}
			key := missing[0]
			f := fault{Workload: wl, Signature: "k8s-selector-mismatch", Time: a.serviceSymptomTime(s)}
			f.Ref.Kind, f.Ref.Namespace, f.Ref.Name = "Service", ns, s.Metadata.Name
			f.Ref.Field, f.Ref.Value, f.Ref.Reason = "spec.selector."+key, s.Spec.Selector[key], "SelectorMatchesNoPods"
			have := a.labelSets(ns)[wl][key]
			if have != "" {
				f.Ref.Want = have
			}
			f.Message = fmt.Sprintf("Service %s selects no pods: its selector %s matches no pod, the pods of %s are labelled %s",
				s.Metadata.Name, labelString(s.Spec.Selector), wl, labelString(identityLabels(a.labelSets(ns)[wl])))
			f.Evidence = a.serviceEvidence(s)
			if f.Time.IsZero() && (a.endpointsEmpty(s) || !a.hasEndpoints(s)) {
				// The Service routes nowhere since the pods it was meant for
				// were replaced by pods it does not select.
				f.Time = newestPod(a.podsOf(ns, wl))
			}
			out = append(out, f)
			continue
		}
		wl := a.workloadOfPods(pods)
		for pi, sp := range s.Spec.Ports {
			tp := string(sp.TargetPort)
			if tp == "" {
				tp = strconv.Itoa(sp.Port)
			}
			exposed, declared := portsOf(pods)
			if len(declared) == 0 || exposed[tp] {
				continue
			}
			f := fault{Workload: wl, Signature: "k8s-target-port", Time: a.serviceSymptomTime(s)}
			f.Ref.Kind, f.Ref.Namespace, f.Ref.Name = "Service", ns, s.Metadata.Name
			sel := sp.Name
			if sel == "" {
				sel = strconv.Itoa(pi)
			}
			f.Ref.Field, f.Ref.Value, f.Ref.Reason = fmt.Sprintf("spec.ports[%s].targetPort", sel), tp, "TargetPortNotExposed"
			if len(declared) == 1 {
				f.Ref.Want = declared[0]
			}
			f.Message = fmt.Sprintf("Service %s: targetPort %s is not a port of the pods of %s (they listen on %s)", s.Metadata.Name, tp, wl, strings.Join(declared, ", "))
			f.Evidence = a.serviceEvidence(s)
			out = append(out, f)
		}
	}
	return out
}

// portsOf lists the ports the pods' containers declare, by number and
// name, and the numbers in order.
func portsOf(pods []*pod) (map[string]bool, []string) {
	set := map[string]bool{}
	var nums []string
	for _, p := range pods {
		for _, c := range p.Spec.Containers {
			for _, cp := range c.Ports {
				n := strconv.Itoa(cp.ContainerPort)
				if !set[n] {
					nums = append(nums, n)
				}
				set[n] = true
				if cp.Name != "" {
					set[cp.Name] = true
				}
			}
		}
	}
	sort.Strings(nums)
	return set, nums
}

// serviceSymptomTime dates a Service's failure by what shows it: the
// first warning about it, else nothing (a static defect has no time).
func (a *analyzer) serviceSymptomTime(s *service) time.Time {
	var t time.Time
	for _, e := range a.eventsAbout("Service", s.Metadata.Namespace, s.Metadata.Name) {
		if first, _, _ := e.times(); !first.IsZero() && (t.IsZero() || first.Before(t)) {
			t = first
		}
	}
	return t
}

// serviceEvidence quotes what the cluster says about the Service: its
// empty Endpoints and its warnings.
func (a *analyzer) serviceEvidence(s *service) string {
	var parts []string
	for _, ep := range a.snap.endpoints {
		if ep.Metadata.Name == s.Metadata.Name && ep.Metadata.Namespace == s.Metadata.Namespace {
			n := 0
			for _, ss := range ep.Subsets {
				n += len(ss.Addresses)
			}
			if n == 0 {
				parts = append(parts, "Endpoints "+s.Metadata.Name+" has no addresses")
			}
		}
	}
	for _, e := range a.eventsAbout("Service", s.Metadata.Namespace, s.Metadata.Name) {
		if e.Type == "Warning" {
			parts = append(parts, e.Reason+": "+e.Message)
			break
		}
	}
	return strings.Join(parts, "; ")
}

// The ingress analyzer follows each Ingress rule and Gateway API route to
// its backend: a Service that does not exist, or a port the Service does
// not have.
func ingressFaults(a *analyzer) []fault {
	var out []fault
	for i := range a.snap.ingresses {
		ing := &a.snap.ingresses[i]
		ns := ing.Metadata.Namespace
		check := func(b *ingressBackend, field string) {
			if b == nil || b.Service == nil || !a.servicesRead(ns) {
				return
			}
			f := fault{Signature: "k8s-ingress-backend", Time: a.objectWarningTime("Ingress", ns, ing.Metadata.Name)}
			f.Ref.Kind, f.Ref.Namespace, f.Ref.Name = "Ingress", ns, ing.Metadata.Name
			svc := a.serviceNamed(ns, b.Service.Name)
			switch {
			case svc == nil:
				f.Ref.Field, f.Ref.Value, f.Ref.Reason = field+".service.name", b.Service.Name, "BackendServiceNotFound"
				f.Workload, f.Ref.Want = a.serviceLike(ns, b.Service.Name)
				f.Message = fmt.Sprintf("Ingress %s: backend Service %s does not exist", ing.Metadata.Name, b.Service.Name)
				if f.Ref.Want != "" {
					f.Message += fmt.Sprintf(" (Service %s does)", f.Ref.Want)
				}
			case !servicePortExists(svc, b.Service.Port.Number, b.Service.Port.Name):
				port := b.Service.Port.Name
				sub := ".service.port.name"
				if port == "" {
					port, sub = strconv.Itoa(b.Service.Port.Number), ".service.port.number"
				}
				f.Ref.Field, f.Ref.Value, f.Ref.Reason = field+sub, port, "BackendPortNotFound"
				if len(svc.Spec.Ports) == 1 {
					f.Ref.Want = strconv.Itoa(svc.Spec.Ports[0].Port)
				}
				f.Workload = a.workloadOfPods(a.servicePods(svc))
				if f.Workload == "" {
					f.Workload = svc.Metadata.Name
				}
				f.Message = fmt.Sprintf("Ingress %s: backend port %s is not a port of Service %s (it has %s)", ing.Metadata.Name, port, svc.Metadata.Name, servicePorts(svc))
			default:
				return
			}
			if f.Workload == "" {
				f.Workload = b.Service.Name
			}
			out = append(out, f)
		}
		check(ing.Spec.DefaultBackend, "spec.defaultBackend")
		for ri, r := range ing.Spec.Rules {
			if r.HTTP == nil {
				continue
			}
			for pi := range r.HTTP.Paths {
				check(&r.HTTP.Paths[pi].Backend, fmt.Sprintf("spec.rules[%d].http.paths[%d].backend", ri, pi))
			}
		}
	}
	for i := range a.snap.routes {
		rt := &a.snap.routes[i]
		ns := rt.Metadata.Namespace
		for ri, r := range rt.Spec.Rules {
			for bi, b := range r.BackendRefs {
				bns := ns
				if b.Namespace != "" {
					bns = b.Namespace
				}
				if (b.Kind != "" && b.Kind != "Service") || !a.servicesRead(bns) {
					continue
				}
				svc := a.serviceNamed(bns, b.Name)
				field := fmt.Sprintf("spec.rules[%d].backendRefs[%d]", ri, bi)
				f := fault{Signature: "k8s-ingress-backend", Time: a.objectWarningTime("HTTPRoute", ns, rt.Metadata.Name)}
				f.Ref.Kind, f.Ref.Namespace, f.Ref.Name = "HTTPRoute", ns, rt.Metadata.Name
				switch {
				case svc == nil:
					f.Ref.Field, f.Ref.Value, f.Ref.Reason = field+".name", b.Name, "BackendServiceNotFound"
					f.Workload, f.Ref.Want = a.serviceLike(bns, b.Name)
					f.Message = fmt.Sprintf("HTTPRoute %s: backend Service %s does not exist", rt.Metadata.Name, b.Name)
				case b.Port != 0 && !servicePortExists(svc, b.Port, ""):
					f.Ref.Field, f.Ref.Value, f.Ref.Reason = field+".port", strconv.Itoa(b.Port), "BackendPortNotFound"
					f.Workload = a.workloadOfPods(a.servicePods(svc))
					f.Message = fmt.Sprintf("HTTPRoute %s: backend port %d is not a port of Service %s (it has %s)", rt.Metadata.Name, b.Port, b.Name, servicePorts(svc))
				default:
					continue
				}
				if f.Workload == "" {
					f.Workload = b.Name
				}
				out = append(out, f)
			}
		}
	}
	return out
}

// serviceLike finds the workload and the Service a missing Service name
// was meant to name (storefront-svc for storefront).
func (a *analyzer) serviceLike(ns, name string) (workload, service string) {
	for i := range a.snap.services {
		s := &a.snap.services[i]
		if s.Metadata.Namespace == ns && similarName(s.Metadata.Name, name) {
			wl := a.workloadOfPods(a.servicePods(s))
			if wl == "" {
				wl = s.Metadata.Name
			}
			return wl, s.Metadata.Name
		}
	}
	for _, w := range a.workloads() {
		if w.Metadata.Namespace == ns && similarName(w.Metadata.Name, name) {
			return w.Metadata.Name, ""
		}
	}
	return "", ""
}

func servicePortExists(s *service, number int, name string) bool {
	for _, p := range s.Spec.Ports {
		if (name != "" && p.Name == name) || (name == "" && p.Port == number) {
			return true
		}
	}
	return false
}

func servicePorts(s *service) string {
	var parts []string
	for _, p := range s.Spec.Ports {
		if p.Name != "" {
			parts = append(parts, fmt.Sprintf("%d (%s)", p.Port, p.Name))
		} else {
			parts = append(parts, strconv.Itoa(p.Port))
		}
	}
	return strings.Join(parts, ", ")
}

// objectWarningTime is when the first warning about an object was seen.
func (a *analyzer) objectWarningTime(kind, ns, name string) time.Time {
	var t time.Time
	for _, e := range a.eventsAbout(kind, ns, name) {
		if first, _, _ := e.times(); e.Type == "Warning" && !first.IsZero() && (t.IsZero() || first.Before(t)) {
			t = first
		}
	}
	return t
}

// servicesRead reports whether the Services of a namespace were read: a
// Service missing from a list that holds none of the namespace's proves
// nothing (the list may not have been readable there).
func (a *analyzer) servicesRead(ns string) bool {
	if !a.snap.has("Service") {
		return false
	}
	for i := range a.snap.services {
		if a.snap.services[i].Metadata.Namespace == ns {
			return true
		}
	}
	return false
}

// endpointsEmpty reports whether the Service's Endpoints were read and
// hold no ready address.
func (a *analyzer) endpointsEmpty(s *service) bool {
	for _, ep := range a.snap.endpoints {
		if ep.Metadata.Name != s.Metadata.Name || ep.Metadata.Namespace != s.Metadata.Namespace {
			continue
		}
		for _, ss := range ep.Subsets {
			if len(ss.Addresses) > 0 {
				return false
			}
		}
		return true
	}
	return false
}

// newestPod is when the newest of the pods was created.
func newestPod(pods []*pod) time.Time {
	var t time.Time
	for _, p := range pods {
		if c := parseTime(p.Metadata.CreationTimestamp); c.After(t) {
			t = c
		}
	}
	return t
}

// hasEndpoints reports whether the Service's Endpoints object was read.
func (a *analyzer) hasEndpoints(s *service) bool {
	for _, ep := range a.snap.endpoints {
		if ep.Metadata.Name == s.Metadata.Name && ep.Metadata.Namespace == s.Metadata.Namespace {
			return true
		}
	}
	return false
}
