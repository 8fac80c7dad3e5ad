package k8s

import (
	"fmt"
	"strings"
	"time"
)

// The certificate analyzer reads cert-manager Certificates that are not
// Ready: an issuerRef naming no Issuer or ClusterIssuer is named by that
// field; an expired certificate by its issuer (renewal is what failed).

func certificateFaults(a *analyzer) []fault {
	var out []fault
	for i := range a.snap.certs {
		c := &a.snap.certs[i]
		ready := condition{}
		for _, cond := range c.Status.Conditions {
			if cond.Type == "Ready" {
				ready = cond
			}
		}
		if ready.Status != "False" {
			continue
		}
		ns := c.Metadata.Namespace
		wl := a.certWorkload(c)
		if wl == "" {
			continue
		}
		f := fault{Workload: wl, Signature: "k8s-cert-not-ready", Time: parseTime(ready.LastTransitionTime),
			Evidence: "Ready=False " + ready.Reason + ": " + ready.Message}
		f.Ref.Kind, f.Ref.Namespace, f.Ref.Name = "Certificate", ns, c.Metadata.Name
		f.Ref.Field, f.Ref.Value = "spec.issuerRef.name", c.Spec.IssuerRef.Name
		kind := c.Spec.IssuerRef.Kind
		if kind == "" {
			kind = "Issuer"
		}
		if len(a.snap.issuers) > 0 && a.issuerNamed(kind, ns, c.Spec.IssuerRef.Name) == nil {
			f.Ref.Reason = "IssuerNotFound"
			f.Ref.Want = a.similarIssuer(c.Spec.IssuerRef.Name)
			f.Message = fmt.Sprintf("Certificate %s is not Ready: its issuer %s %s does not exist", c.Metadata.Name, kind, c.Spec.IssuerRef.Name)
			if f.Ref.Want != "" {
				f.Message += fmt.Sprintf(" (%s does)", f.Ref.Want)
			}
		} else {
			f.Ref.Reason = "NotReady"
			f.Message = fmt.Sprintf("Certificate %s is not Ready (%s): %s", c.Metadata.Name, ready.Reason, ready.Message)
			if t := parseTime(c.Status.NotAfter); !t.IsZero() && !a.snap.now.IsZero() && t.Before(a.snap.now) {
				f.Signature = "tls-cert"
				f.Message = fmt.Sprintf("Certificate %s has expired (notAfter %s) and is not renewed: %s", c.Metadata.Name, t.Format(time.RFC3339), ready.Message)
				f.Time = t
			}
		}
		out = append(out, f)
	}
	return out
}

func (a *analyzer) issuerNamed(kind, ns, name string) *issuer {
	for i := range a.snap.issuers {
		is := &a.snap.issuers[i]
		if is.Kind == kind && is.Metadata.Name == name && (kind == "ClusterIssuer" || is.Metadata.Namespace == ns) {
			return is
		}
	}
	return nil
}

func (a *analyzer) similarIssuer(name string) string {
	for _, is := range a.snap.issuers {
		if is.Metadata.Name != name && similarName(is.Metadata.Name, name) {
			return is.Metadata.Name
		}
	}
	if len(a.snap.issuers) == 1 {
		return a.snap.issuers[0].Metadata.Name
	}
	return ""
}

// certWorkload names the workload that serves the certificate: one that
// mounts its Secret, the backend of an Ingress that terminates TLS with
// it, else the workload its name starts with.
func (a *analyzer) certWorkload(c *certificate) string {
	ns := c.Metadata.Namespace
	for _, w := range a.workloads() {
		if w.Metadata.Namespace != ns {
			continue
		}
		for _, v := range w.template().Spec.Volumes {
			if v.Secret != nil && v.Secret.SecretName == c.Spec.SecretName {
				return w.Metadata.Name
			}
		}
	}
	for _, ing := range a.snap.ingresses {
		if ing.Metadata.Namespace != ns {
			continue
		}
		for _, t := range ing.Spec.TLS {
			if t.SecretName != c.Spec.SecretName {
				continue
			}
			for _, r := range ing.Spec.Rules {
				if r.HTTP == nil {
					continue
				}
				for _, p := range r.HTTP.Paths {
					if p.Backend.Service != nil {
						if s := a.serviceNamed(ns, p.Backend.Service.Name); s != nil {
							if wl := a.workloadOfPods(a.servicePods(s)); wl != "" {
								return wl
							}
						}
						return p.Backend.Service.Name
					}
				}
			}
		}
	}
	if wl := a.ix.fromObjectName("Certificate", ns, c.Metadata.Name); wl != "" {
		return wl
	}
	return strings.TrimSuffix(strings.TrimSuffix(c.Metadata.Name, "-tls"), "-cert")
}

// certificateNotReady reports whether a Certificate is not Ready (its
// issuers are read only then).
func (a *analyzer) certificateNotReady() bool {
	for _, c := range a.snap.certs {
		for _, cond := range c.Status.Conditions {
			if cond.Type == "Ready" && cond.Status == "False" {
				return true
			}
		}
	}
	return false
}
