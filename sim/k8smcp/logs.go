package k8smcp

import (
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/autoheal/autoheal/scenario"
)

// logLine is one line of a pod's log.
type logLine struct {
	At        time.Time
	Line      string
	Namespace string
	Container string
}

// indexLogs groups the scenario's Loki streams by their pod label.
func indexLogs(logs *scenario.Logs) map[string][]logLine {
	out := map[string][]logLine{}
	if logs == nil {
		return out
	}
	for _, st := range logs.Streams {
		pod := st.Stream["pod"]
		if pod == "" {
			pod = st.Stream["k8s_pod_name"]
		}
		if pod == "" {
			continue
		}
		ns := st.Stream["namespace"]
		if ns == "" {
			ns = st.Stream["k8s_namespace_name"]
		}
		ctr := st.Stream["container"]
		if ctr == "" {
			ctr = st.Stream["k8s_container_name"]
		}
		for _, v := range st.Values {
			if len(v) < 2 {
				continue
			}
			n, err := strconv.ParseInt(v[0], 10, 64)
			if err != nil {
				continue
			}
			out[pod] = append(out[pod], logLine{At: time.Unix(0, n).UTC(), Line: v[1], Namespace: ns, Container: ctr})
		}
	}
	for pod := range out {
		lines := out[pod]
		sort.SliceStable(lines, func(i, j int) bool { return lines[i].At.Before(lines[j].At) })
	}
	return out
}

// podLog returns the lines of one container as kubectl logs would: the
// current container's lines, or with previous the lines of the container
// that last terminated (those between its start and finish; if none can be
// told apart, the lines before the current container started; failing that,
// the last lines).
func (s *Server) podLog(pod *object, container string, previous bool, tail int) ([]string, error) {
	statuses := list(pod.Raw, "status", "containerStatuses")
	var cs map[string]any
	for _, c := range statuses {
		if container == "" || str(c, "name") == container {
			cs = c
			break
		}
	}
	if container == "" {
		specs := list(pod.Raw, "spec", "containers")
		if len(specs) > 1 {
			var names []string
			for _, c := range specs {
				names = append(names, str(c, "name"))
			}
			return nil, fmt.Errorf("a container name must be specified for pod %s, choose one of: %v", pod.Name, names)
		}
		if len(specs) == 1 {
			container = str(specs[0], "name")
		}
	}
	var lines []logLine
	for _, l := range s.logs[pod.Name] {
		if (l.Namespace == "" || l.Namespace == pod.Namespace) && (l.Container == "" || container == "" || l.Container == container) {
			lines = append(lines, l)
		}
	}
	ts := func(path ...string) time.Time {
		if cs == nil {
			return time.Time{}
		}
		t, _ := time.Parse(time.RFC3339, str(cs, path...))
		return t
	}
	runningSince := ts("state", "running", "startedAt")
	var pick []logLine
	if previous {
		if cs == nil || get(cs, "lastState", "terminated") == nil {
			return nil, fmt.Errorf("previous terminated container %q in pod %q not found", container, pod.Name)
		}
		from, to := ts("lastState", "terminated", "startedAt"), ts("lastState", "terminated", "finishedAt")
		if !from.IsZero() && !to.IsZero() {
			for _, l := range lines {
				if !l.At.Before(from.Add(-time.Second)) && !l.At.After(to.Add(time.Second)) {
					pick = append(pick, l)
				}
			}
		}
		if len(pick) == 0 && !runningSince.IsZero() {
			for _, l := range lines {
				if l.At.Before(runningSince) {
					pick = append(pick, l)
				}
			}
		}
		if len(pick) == 0 {
			pick = lines
		}
	} else {
		pick = lines
		if !runningSince.IsZero() {
			pick = nil
			for _, l := range lines {
				if !l.At.Before(runningSince) {
					pick = append(pick, l)
				}
			}
		}
	}
	if tail > 0 && len(pick) > tail {
		pick = pick[len(pick)-tail:]
	}
	out := make([]string, len(pick))
	for i, l := range pick {
		out[i] = l.Line
	}
	return out, nil
}
