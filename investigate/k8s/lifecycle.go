package k8s

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The lifecycle analyzer reads failed container lifecycle hooks
// (FailedPreStopHook, FailedPostStartHook). A hook is part of the workload's
// manifest: when it cannot run (its executable is not in the image, its
// HTTP target does not answer) the kubelet goes on without it. A failed
// preStop hook sends SIGTERM at once, so a pod stops serving before the
// endpoints controller and the proxies in front have let go of it; a failed
// postStart hook kills the container. The field at fault is the hook's
// handler in the manifest of the workload that owns the pods: the events
// name pods (often of a revision already rolled away), so they are read
// back to their Deployment, StatefulSet or DaemonSet.

var (
	hookReasonRE = regexp.MustCompile(`^Failed(PreStop|PostStart)Hook$`)
	hookCtrRE    = regexp.MustCompile(`for Container "([^"]+)"`)
	// missingExecRE: the handler names a program the image does not have.
	missingExecRE = regexp.MustCompile(`exec: "([^"]+)": (?:executable file not found in \$PATH|stat [^:]+: no such file or directory)|exec: "([^"]+)": permission denied|exited with (?:126|127)\b`)
)

func lifecycleFaults(a *analyzer) []fault {
	type acc struct {
		f           fault
		first, last time.Time
	}
	by := map[string]*acc{}
	var order []string
	for _, e := range a.snap.events {
		m := hookReasonRE.FindStringSubmatch(e.Reason)
		if m == nil || e.InvolvedObject.Kind != "Pod" {
			continue
		}
		phase := strings.ToLower(m[1][:1]) + m[1][1:] // preStop, postStart
		ns := nsOf(e)
		key := ns + "/" + e.InvolvedObject.Name
		wl := a.podWL[key]
		if a.pods[key] == nil || wl == "" {
			wl = a.ix.fromPodName(e.InvolvedObject.Name)
		}
		w := a.workloadNamed(ns, wl)
		if w == nil {
			continue // the manifest that holds the hook was not read
		}
		ctr, h := hookContainer(w, phase, &e)
		if h == nil {
			continue
		}
		field, value := hookField(containerPath(w, ctr)+".lifecycle."+phase, h)
		first, last, count := e.times()
		k := w.Kind + "/" + w.Metadata.Namespace + "/" + w.Metadata.Name + "|" + field
		g := by[k]
		if g == nil {
			f := fault{Workload: w.Metadata.Name, Signature: "k8s-lifecycle-hook", Container: ctr,
				Attrs: map[string]string{"hook": phase}, Evidence: e.Reason + ": " + strings.TrimSpace(e.Message)}
			f.Ref = refOfWorkload(w, field, value, e.Reason)
			f.Message = fmt.Sprintf("the %s hook of container %s (%s) fails", phase, ctr, value)
			if mm := missingExecRE.FindStringSubmatch(e.Message); mm != nil {
				exe := mm[1] + mm[2]
				if exe == "" && h.Exec != nil && len(h.Exec.Command) > 0 {
					exe = h.Exec.Command[0]
				}
				f.Attrs["missing_executable"] = exe
				f.Message += fmt.Sprintf(": the image has no %q to run", exe)
			}
			if phase == "preStop" {
				f.Message += "; the container gets SIGTERM without the delay, while endpoints and proxies still route to it"
			} else {
				f.Message += "; the kubelet kills the container"
			}
			g = &acc{f: f, first: first, last: last}
			by[k] = g
			order = append(order, k)
		}
		g.f.Count += max(count, 1)
		if !first.IsZero() && (g.first.IsZero() || first.Before(g.first)) {
			g.first = first
		}
		if last.After(g.last) {
			g.last = last
			g.f.Evidence = e.Reason + ": " + strings.TrimSpace(e.Message)
		}
	}
	var out []fault
	for _, k := range order {
		g := by[k]
		g.f.Time, g.f.Last = g.first, g.last
		g.f.Attrs["failures"] = strconv.Itoa(g.f.Count)
		out = append(out, g.f)
	}
	return out
}

// hookContainer finds the container whose hook failed: the one the event
// names, else the only one with a handler for that phase.
func hookContainer(w *workloadObj, phase string, e *event) (string, *hook) {
	name := ""
	if m := fieldCtrRE.FindStringSubmatch(e.InvolvedObject.FieldPath); m != nil {
		name = m[1]
	} else if m := hookCtrRE.FindStringSubmatch(e.Message); m != nil {
		name = m[1]
	}
	var found *container
	n := 0
	for i := range w.template().Spec.Containers {
		c := &w.template().Spec.Containers[i]
		if c.hook(phase) == nil {
			continue
		}
		if c.Name == name {
			return c.Name, c.hook(phase)
		}
		found = c
		n++
	}
	if n != 1 {
		return "", nil
	}
	return found.Name, found.hook(phase)
}

// hookField is the path and value of the handler's field that runs.
func hookField(path string, h *hook) (string, string) {
	switch {
	case h.Exec != nil:
		return path + ".exec.command", strings.Join(h.Exec.Command, " ")
	case h.HTTPGet != nil:
		return path + ".httpGet.path", h.HTTPGet.Path
	case h.Sleep != nil:
		return path + ".sleep.seconds", strconv.Itoa(h.Sleep.Seconds)
	}
	return path, ""
}
