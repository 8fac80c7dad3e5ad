package k8smcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"gopkg.in/yaml.v3"
)

// List output formats of kubernetes-mcp-server's --list-output flag.
const (
	OutputYAML  = "yaml"
	OutputTable = "table"
	OutputJSON  = "json"
)

// marshalYAML prints a value as kubernetes-mcp-server does (sigs.k8s.io/yaml:
// keys sorted, two-space indentation).
func marshalYAML(v any) (string, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	if err := enc.Close(); err != nil {
		return "", err
	}
	return b.String(), nil
}

func marshalJSON(v any) (string, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	return string(b), err
}

func raws(objs []*object) []any {
	out := make([]any, len(objs))
	for i, o := range objs {
		out[i] = o.Raw
	}
	return out
}

// printList renders a list of objects in the configured list output.
func (s *Server) printList(objs []*object) (string, error) {
	switch s.opts.ListOutput {
	case OutputJSON:
		return marshalJSON(raws(objs))
	case OutputTable:
		return s.table(objs), nil
	default:
		return marshalYAML(raws(objs))
	}
}

// table renders objects as the kubectl table printer does with
// WithNamespace, WithKind, Wide and ShowLabels (the columns the real
// server prints: NAMESPACE APIVERSION KIND NAME ... LABELS).
func (s *Server) table(objs []*object) string {
	if len(objs) == 0 {
		return "No resources found"
	}
	kind := objs[0].Kind
	var header []string
	var row func(o *object) []string
	switch kind {
	case "Pod":
		header = []string{"READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES"}
		row = func(o *object) []string {
			ready, total, restarts := 0, 0, 0
			var last time.Time
			for _, cs := range list(o.Raw, "status", "containerStatuses") {
				total++
				if b, _ := cs["ready"].(bool); b {
					ready++
				}
				restarts += num(cs, "restartCount")
				if t, err := time.Parse(time.RFC3339, str(cs, "lastState", "terminated", "finishedAt")); err == nil && t.After(last) {
					last = t
				}
			}
			if total == 0 {
				total = len(list(o.Raw, "spec", "containers"))
			}
			r := fmt.Sprint(restarts)
			if restarts > 0 && !last.IsZero() {
				r = fmt.Sprintf("%d (%s ago)", restarts, humanDuration(s.now().Sub(last)))
			}
			return []string{fmt.Sprintf("%d/%d", ready, total), podStatus(o.Raw), r, s.age(o),
				orNone(str(o.Raw, "status", "podIP")), orNone(str(o.Raw, "spec", "nodeName")), "<none>", "<none>"}
		}
	case "Event":
		header = []string{"LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"}
		row = func(o *object) []string {
			at := eventTime(o.Raw)
			return []string{humanDuration(s.now().Sub(at)), str(o.Raw, "type"), str(o.Raw, "reason"),
				strings.ToLower(str(o.Raw, "involvedObject", "kind")) + "/" + str(o.Raw, "involvedObject", "name"), str(o.Raw, "message")}
		}
	case "Deployment", "ReplicaSet", "StatefulSet":
		header = []string{"READY", "AGE", "CONTAINERS", "IMAGES"}
		row = func(o *object) []string {
			var names, images []string
			for _, c := range list(o.Raw, "spec", "template", "spec", "containers") {
				names = append(names, str(c, "name"))
				images = append(images, str(c, "image"))
			}
			return []string{fmt.Sprintf("%d/%d", num(o.Raw, "status", "readyReplicas"), num(o.Raw, "spec", "replicas")), s.age(o),
				strings.Join(names, ","), strings.Join(images, ",")}
		}
	case "Node":
		header = []string{"STATUS", "AGE"}
		row = func(o *object) []string {
			status := "Unknown"
			for _, c := range list(o.Raw, "status", "conditions") {
				if str(c, "type") == "Ready" {
					status = map[bool]string{true: "Ready", false: "NotReady"}[str(c, "status") == "True"]
				}
			}
			return []string{status, s.age(o)}
		}
	default:
		header = []string{"AGE"}
		row = func(o *object) []string { return []string{s.age(o)} }
	}
	var b bytes.Buffer
	w := tabwriter.NewWriter(&b, 0, 8, 3, ' ', 0)
	cols := append([]string{"NAMESPACE", "APIVERSION", "KIND", "NAME"}, header...)
	fmt.Fprintln(w, strings.Join(append(cols, "LABELS"), "\t"))
	for _, o := range objs {
		cells := append([]string{orNone(o.Namespace), o.APIVersion, o.Kind, o.Name}, row(o)...)
		fmt.Fprintln(w, strings.Join(append(cells, labelString(o.Labels)), "\t"))
	}
	_ = w.Flush()
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

func labelString(l map[string]string) string {
	if len(l) == 0 {
		return "<none>"
	}
	keys := make([]string, 0, len(l))
	for k := range l {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + l[k]
	}
	return strings.Join(parts, ",")
}

func (s *Server) age(o *object) string {
	if o.Created.IsZero() {
		return "<unknown>"
	}
	return humanDuration(s.now().Sub(o.Created))
}

// podStatus is the STATUS column of kubectl get pods.
func podStatus(p map[string]any) string {
	reason := str(p, "status", "phase")
	if r := str(p, "status", "reason"); r != "" {
		reason = r
	}
	for _, cs := range list(p, "status", "containerStatuses") {
		if r := str(cs, "state", "waiting", "reason"); r != "" {
			reason = r
		} else if r := str(cs, "state", "terminated", "reason"); r != "" {
			reason = r
		}
	}
	if reason == "" {
		reason = "Unknown"
	}
	return reason
}

// humanDuration is kubectl's short duration (5s, 3m20s, 47m, 5h12m, 3d4h, 40d).
func humanDuration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	switch {
	case d < 2*time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < 10*time.Minute:
		s := int(d.Seconds()) % 60
		if s == 0 {
			return fmt.Sprintf("%dm", int(d.Minutes()))
		}
		return fmt.Sprintf("%dm%ds", int(d.Minutes()), s)
	case d < 3*time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 8*time.Hour:
		m := int(d.Minutes()) % 60
		if m == 0 {
			return fmt.Sprintf("%dh", int(d.Hours()))
		}
		return fmt.Sprintf("%dh%dm", int(d.Hours()), m)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	case d < 8*24*time.Hour:
		h := int(d.Hours()) % 24
		if h == 0 {
			return fmt.Sprintf("%dd", int(d.Hours()/24))
		}
		return fmt.Sprintf("%dd%dh", int(d.Hours()/24), h)
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// eventTime picks the time events_list reports: eventTime, else the series'
// last observation, else lastTimestamp for repeated events, else
// firstTimestamp.
func eventTime(e map[string]any) time.Time {
	parse := func(path ...string) time.Time {
		t, _ := time.Parse(time.RFC3339Nano, str(e, path...))
		return t
	}
	if t := parse("eventTime"); !t.IsZero() {
		return t
	}
	if t := parse("series", "lastObservedTime"); !t.IsZero() {
		return t
	}
	if num(e, "count") > 1 {
		if t := parse("lastTimestamp"); !t.IsZero() {
			return t
		}
	}
	return parse("firstTimestamp")
}
