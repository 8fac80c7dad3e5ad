package capture

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/autoheal/autoheal/investigate/k8s"
	"github.com/autoheal/autoheal/investigate/tap"
)

// k8sObjects gathers the Kubernetes objects the investigation read through
// the MCP server (lists, single objects, events), each once: the most
// detailed answer about an object wins. Secrets keep only their metadata
// and key names. Pod logs read through the server come back separately,
// to be stored as log streams of their pods.
func k8sObjects(results []tap.Tool) (objs []map[string]any, podLogs []podLog, notes []string) {
	type entry struct {
		obj  map[string]any
		size int
	}
	var order []string
	by := map[string]*entry{}
	add := func(o map[string]any, apiVersion, kind string) {
		if str(o, "apiVersion") == "" && apiVersion != "" {
			o["apiVersion"] = apiVersion
		}
		if str(o, "kind") == "" && kind != "" {
			o["kind"] = kind
		}
		if strings.EqualFold(str(o, "kind"), "Secret") {
			o = secretShape(o)
		}
		b, _ := json.Marshal(o)
		key := strings.Join([]string{str(o, "apiVersion"), str(o, "kind"), str(o, "metadata", "namespace"), str(o, "metadata", "name")}, "/")
		if str(o, "metadata", "name") == "" {
			key = fmt.Sprintf("%s#%d", key, len(order))
		}
		if e, ok := by[key]; ok {
			if len(b) > e.size {
				e.obj, e.size = o, len(b)
			}
			return
		}
		by[key] = &entry{obj: o, size: len(b)}
		order = append(order, key)
	}
	tables, unreadable := 0, 0
	for _, r := range results {
		var args map[string]any
		_ = json.Unmarshal(r.Args, &args)
		arg := func(k string) string { s, _ := args[k].(string); return s }
		switch r.Tool {
		case "pods_list", "pods_list_in_namespace", "pods_get", "resources_list", "resources_get":
			apiVersion, kind := arg("apiVersion"), arg("kind")
			if strings.HasPrefix(r.Tool, "pods_") {
				apiVersion, kind = "v1", "Pod"
			}
			raws, err := k8s.ParseObjects(r.Text)
			switch {
			case k8s.IsTable(err):
				tables++
			case err != nil:
				unreadable++
			}
			for _, raw := range raws {
				var o map[string]any
				if json.Unmarshal(raw, &o) == nil {
					add(o, apiVersion, kind)
				}
			}
		case "events_list":
			evs, err := parseEventsList(r.Text)
			if err != nil {
				unreadable++
			}
			for _, e := range evs {
				add(e, "v1", "Event")
			}
		case "pods_log":
			prev, _ := args["previous"].(bool)
			podLogs = append(podLogs, podLog{Namespace: arg("namespace"), Pod: arg("name"), Container: arg("container"), Previous: prev, Lines: splitLines(r.Text)})
		}
	}
	if tables > 0 {
		notes = append(notes, fmt.Sprintf("%d Kubernetes answers were tables (--list-output table), which hold no objects: only the objects read one by one are kept", tables))
	}
	if unreadable > 0 {
		notes = append(notes, fmt.Sprintf("%d Kubernetes answers could not be read as objects and were left out", unreadable))
	}
	for _, k := range order {
		objs = append(objs, by[k].obj)
	}
	return objs, podLogs, notes
}

// podLog is one pods_log answer.
type podLog struct {
	Namespace, Pod, Container string
	Previous                  bool
	Lines                     []string
}

func splitLines(text string) []string {
	text = strings.TrimRight(text, "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// secretShape keeps what the format allows of a Secret: its identity,
// type, labels and the names of its keys (with empty values).
func secretShape(o map[string]any) map[string]any {
	meta := map[string]any{}
	for _, k := range []string{"name", "namespace", "labels", "creationTimestamp", "uid"} {
		if v, ok := mapOf(o, "metadata")[k]; ok {
			meta[k] = v
		}
	}
	keys := map[string]any{}
	for _, field := range []string{"data", "stringData"} {
		for k := range mapOf(o, field) {
			keys[k] = ""
		}
	}
	out := map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": meta, "data": keys}
	if t := str(o, "type"); t != "" {
		out["type"] = t
	}
	return out
}

// k8sPriority orders objects for the size cap: everything but events
// first (pods, workloads, nodes…), then Warning events, then the others,
// newest first.
func k8sPriority(objs []map[string]any) []map[string]any {
	out := append([]map[string]any(nil), objs...)
	rank := func(o map[string]any) int {
		switch {
		case str(o, "kind") != "Event":
			return 0
		case str(o, "type") == "Warning":
			return 1
		}
		return 2
	}
	when := func(o map[string]any) string {
		return firstNonEmpty(str(o, "lastTimestamp"), str(o, "eventTime"), str(o, "metadata", "creationTimestamp"))
	}
	sort.SliceStable(out, func(i, j int) bool {
		ri, rj := rank(out[i]), rank(out[j])
		if ri != rj {
			return ri < rj
		}
		return ri > 0 && when(out[i]) > when(out[j])
	})
	return out
}

// parseEventsList reads events_list's YAML entries as v1 Events.
func parseEventsList(text string) ([]map[string]any, error) {
	entries, err := k8s.ParseEventsList(text)
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	for i, e := range entries {
		out = append(out, map[string]any{
			"apiVersion": "v1", "kind": "Event",
			"metadata":       map[string]any{"name": fmt.Sprintf("%s.%d", strings.ToLower(e.InvolvedObject.Name), i), "namespace": e.Namespace},
			"involvedObject": map[string]any{"kind": e.InvolvedObject.Kind, "name": e.InvolvedObject.Name, "namespace": e.Namespace},
			"type":           e.Type, "reason": e.Reason, "message": e.Message, "lastTimestamp": e.Timestamp,
		})
	}
	return out, nil
}

func mapOf(m map[string]any, path ...string) map[string]any {
	cur := m
	for _, p := range path {
		next, ok := cur[p].(map[string]any)
		if !ok {
			return nil
		}
		cur = next
	}
	return cur
}

func str(m map[string]any, path ...string) string {
	if len(path) == 0 {
		return ""
	}
	parent := mapOf(m, path[:len(path)-1]...)
	s, _ := parent[path[len(path)-1]].(string)
	return s
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// podLogEntries places pod log lines read through the MCP server in time,
// as the Kubernetes simulator will look for them: a previous container's
// lines spread over its run (lastState.terminated), the current one's
// after it started. Lines the log backend already holds for that pod are
// not added twice.
func podLogEntries(logs []podLog, objs []map[string]any, have *logSet, end time.Time) (added int, notes []string) {
	pods := map[string]map[string]any{}
	for _, o := range objs {
		if str(o, "kind") == "Pod" {
			pods[str(o, "metadata", "namespace")+"/"+str(o, "metadata", "name")] = o
			pods["/"+str(o, "metadata", "name")] = o
		}
	}
	known := map[string]bool{}
	for _, e := range have.entries {
		if p := firstNonEmpty(e.labels["pod"], e.labels["k8s_pod_name"]); p != "" {
			known[p+"\x00"+e.line] = true
		}
	}
	missingPods := 0
	for _, l := range logs {
		pod := pods[l.Namespace+"/"+l.Pod]
		if pod == nil {
			pod = pods["/"+l.Pod]
		}
		if pod == nil {
			missingPods++
			continue
		}
		var fresh []string
		for _, line := range l.Lines {
			if !known[l.Pod+"\x00"+line] {
				fresh = append(fresh, line)
			}
		}
		if len(fresh) == 0 {
			continue
		}
		status := containerStatus(pod, l.Container)
		ts := func(path ...string) time.Time {
			t, _ := time.Parse(time.RFC3339, str(status, path...))
			return t
		}
		from, to := ts("state", "running", "startedAt"), end
		if l.Previous {
			from, to = ts("lastState", "terminated", "startedAt"), ts("lastState", "terminated", "finishedAt")
		}
		if from.IsZero() || !to.After(from) {
			from, to = end.Add(-time.Minute), end
		}
		ns := firstNonEmpty(l.Namespace, str(pod, "metadata", "namespace"))
		ctr := firstNonEmpty(l.Container, str(status, "name"))
		// The k8s_* labels (which the simulator reads like pod and
		// namespace) keep these lines out of the log queries the engine
		// makes by service and namespace: Loki never held them.
		labels := map[string]string{"k8s_namespace_name": ns, "k8s_pod_name": l.Pod, "k8s_container_name": ctr}
		step := to.Sub(from) / time.Duration(len(fresh)+1)
		for i, line := range fresh {
			if have.add(labels, from.Add(step*time.Duration(i+1)).UnixNano(), line) {
				added++
			}
		}
	}
	if missingPods > 0 {
		notes = append(notes, fmt.Sprintf("%d pod logs read through Kubernetes were left out: their pod was not among the objects read", missingPods))
	}
	return added, notes
}

// containerStatus returns the status of a container (the only one when
// container is empty).
func containerStatus(pod map[string]any, container string) map[string]any {
	sts, _ := mapOf(pod, "status")["containerStatuses"].([]any)
	for _, s := range sts {
		m, _ := s.(map[string]any)
		if m != nil && (container == "" || str(m, "name") == container) {
			return m
		}
	}
	return nil
}
