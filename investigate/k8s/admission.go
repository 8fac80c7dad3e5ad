package k8s

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// The admission analyzer reads why a controller cannot create its pods
// (FailedCreate events, ReplicaFailure conditions): a LimitRange the
// container's resources break, a ResourceQuota that is used up or that
// demands limits the containers lack, a PodSecurity level, a service
// account that does not exist. Each names the field to change: the
// container's resources, the quota's hard limit, the security setting, the
// serviceAccountName.

var (
	limitRangeRE  = regexp.MustCompile(`(maximum|minimum) (cpu|memory|ephemeral-storage) usage per (Container|Pod) is ([\w.]+), but (limit|request) is ([\w.]+)`)
	quotaRE       = regexp.MustCompile(`exceeded quota: ([\w.-]+), requested: ([\w./-]+)=([\w.]+), used: [\w./-]+=([\w.]+), limited: [\w./-]+=([\w.]+)`)
	mustSpecifyRE = regexp.MustCompile(`failed quota: ([\w.-]+): must specify ([\w.,/ -]+)`)
	podSecurityRE = regexp.MustCompile(`\(containers? "([^"]+)"[^)]*? must set (securityContext\.[\w.]+)=(\w+)\)`)
	missingSARE   = regexp.MustCompile(`serviceaccount "([^"]+)" not found`)
)

func admissionFaults(a *analyzer) []fault {
	var out []fault
	seen := map[string]bool{}
	for _, fc := range a.failedCreates() {
		w := fc.w
		f := fault{Workload: w.Metadata.Name, Time: fc.when, Count: fc.count, Evidence: fc.msg}
		spec, base := &w.template().Spec, w.templatePath()
		switch {
		case limitRangeRE.MatchString(fc.msg):
			m := limitRangeRE.FindStringSubmatch(fc.msg)
			bound, res, scope, allowed, which, got := m[1], m[2], m[3], m[4], m[5], m[6]
			kind := "limits"
			if which == "request" {
				kind = "requests"
			}
			ctr := containerWith(spec, kind, res, got)
			if ctr == "" {
				continue
			}
			f.Signature, f.Container = "k8s-limitrange", ctr
			f.Ref = refOfWorkload(w, fmt.Sprintf("%s.containers[%s].resources.%s.%s", base, ctr, kind, res), got, "LimitRange")
			f.Ref.Want = allowed
			f.Message = fmt.Sprintf("the LimitRange of namespace %s allows a %s %s of %s per %s, but container %s of %s sets %s: no pod can be created",
				w.Metadata.Namespace, bound, res, allowed, scope, ctr, w.Metadata.Name, got)
		case quotaRE.MatchString(fc.msg):
			m := quotaRE.FindStringSubmatch(fc.msg)
			quota, res, requested, used, limited := m[1], m[2], m[3], m[4], m[5]
			f.Signature, f.Capacity = "quota-exceeded", true
			f.Ref.Kind, f.Ref.Namespace, f.Ref.Name = "ResourceQuota", w.Metadata.Namespace, quota
			f.Ref.Field, f.Ref.Value, f.Ref.Reason = "spec.hard."+res, limited, "QuotaExceeded"
			f.Message = fmt.Sprintf("ResourceQuota %s is used up: %s needs %s=%s more, %s of %s are used", quota, w.Metadata.Name, res, requested, used, limited)
		case mustSpecifyRE.MatchString(fc.msg):
			m := mustSpecifyRE.FindStringSubmatch(fc.msg)
			res := strings.TrimSpace(strings.Split(strings.Split(m[2], ",")[0], " ")[0]) // limits.memory
			ctr := ""
			if len(spec.Containers) > 0 {
				ctr = spec.Containers[0].Name
			}
			for _, c := range spec.Containers {
				if strings.Contains(m[2], "for: "+c.Name) || strings.Contains(m[2], c.Name) {
					ctr = c.Name
				}
			}
			if ctr == "" {
				continue
			}
			f.Signature, f.Container = "quota-exceeded", ctr
			f.Ref = refOfWorkload(w, fmt.Sprintf("%s.containers[%s].resources.%s", base, ctr, res), "", "QuotaRequiresResources")
			f.Message = fmt.Sprintf("ResourceQuota %s requires %s on every container; container %s of %s sets none, so no pod can be created", m[1], res, ctr, w.Metadata.Name)
		case podSecurityRE.MatchString(fc.msg):
			m := podSecurityRE.FindStringSubmatch(fc.msg)
			ctr := strings.Split(m[1], `"`)[0]
			f.Signature, f.Container = "k8s-configerror", ctr
			f.Ref = refOfWorkload(w, fmt.Sprintf("%s.containers[%s].%s", base, ctr, m[2]), "", "PodSecurity")
			f.Ref.Want = m[3]
			f.Message = fmt.Sprintf("the namespace's PodSecurity level rejects the pods of %s: container %s must set %s=%s", w.Metadata.Name, ctr, m[2], m[3])
		case missingSARE.MatchString(fc.msg):
			sa := missingSARE.FindStringSubmatch(fc.msg)[1]
			f.Signature = "k8s-configerror"
			f.Ref = refOfWorkload(w, base+".serviceAccountName", sa, "ServiceAccountNotFound")
			f.Message = fmt.Sprintf("%s runs as service account %s, which does not exist: no pod can be created", w.Metadata.Name, sa)
		default:
			continue
		}
		if seen[f.Ref.Key()+"|"+f.Workload] {
			continue // the same refusal, told by an event and by a condition
		}
		seen[f.Ref.Key()+"|"+f.Workload] = true
		out = append(out, f)
	}
	return out
}

// failedCreate is a controller that could not create pods, and why.
type failedCreate struct {
	w     *workloadObj
	msg   string
	when  time.Time
	count int
}

// failedCreates collects FailedCreate events of ReplicaSets, StatefulSets,
// DaemonSets and Jobs, and ReplicaFailure conditions of Deployments.
func (a *analyzer) failedCreates() []failedCreate {
	var out []failedCreate
	for _, e := range a.snap.events {
		if e.Reason != "FailedCreate" {
			continue
		}
		ns := nsOf(e)
		name := a.ix.fromObjectName(e.InvolvedObject.Kind, ns, e.InvolvedObject.Name)
		w := a.workloadNamed(ns, name)
		if w == nil {
			w = &workloadObj{Kind: ownerKindGuess(e.InvolvedObject.Kind), Metadata: meta{Name: name, Namespace: ns}}
		}
		first, _, n := e.times()
		out = append(out, failedCreate{w: w, msg: e.Message, when: first, count: n})
	}
	for _, w := range a.workloads() {
		for _, c := range w.Status.Conditions {
			if c.Type == "ReplicaFailure" && c.Status == "True" {
				out = append(out, failedCreate{w: w, msg: c.Message, when: parseTime(c.LastTransitionTime), count: 1})
			}
		}
	}
	return out
}

func ownerKindGuess(kind string) string {
	if kind == "ReplicaSet" {
		return "Deployment"
	}
	return kind
}

// containerWith names the container whose resources.<kind>.<res> is value
// (the only container when the message's value cannot be matched).
func containerWith(spec *podSpec, kind, res, value string) string {
	for _, c := range spec.Containers {
		m := c.Resources.Limits
		if kind == "requests" {
			m = c.Resources.Requests
		}
		if m[res] == value {
			return c.Name
		}
	}
	if len(spec.Containers) == 1 {
		return spec.Containers[0].Name
	}
	return ""
}
