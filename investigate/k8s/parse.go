package k8s

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// errTable marks a kubectl-style table answer (--list-output table).
var errTable = errors.New("table output")

// parseObjects decodes a list answer of kubernetes-mcp-server: a YAML or
// JSON sequence of objects (--list-output yaml/json), a v1 List object, or
// a single object. Leading "#" comment lines are skipped. A table answer
// returns errTable.
func parseObjects(text string) ([]json.RawMessage, error) {
	body := stripComments(text)
	if body == "" || body == "[]" || strings.HasPrefix(body, "No resources found") {
		return nil, nil
	}
	if looksLikeTable(body) {
		return nil, errTable
	}
	var v any
	if err := yaml.Unmarshal([]byte(body), &v); err != nil {
		return nil, fmt.Errorf("unexpected output (neither YAML nor JSON): %w", err)
	}
	v = normalize(v, 0)
	var items []any
	switch t := v.(type) {
	case []any:
		items = t
	case map[string]any:
		if arr, ok := t["items"].([]any); ok {
			items = arr
		} else {
			items = []any{t}
		}
	case nil:
		return nil, nil
	default:
		return nil, fmt.Errorf("unexpected output: a %T, want objects", v)
	}
	out := make([]json.RawMessage, 0, len(items))
	for _, it := range items {
		if _, ok := it.(map[string]any); !ok {
			continue
		}
		b, err := json.Marshal(it)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// ParseObjects is parseObjects for other readers of the server's answers
// (bot capture keeps the objects an investigation read); IsTable tells its
// table-output error.
func ParseObjects(text string) ([]json.RawMessage, error) { return parseObjects(text) }

// IsTable reports whether err says the answer was a table.
func IsTable(err error) bool { return errors.Is(err, errTable) }

func stripComments(text string) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	i := 0
	for i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "#") {
		i++
	}
	return strings.TrimSpace(strings.Join(lines[i:], "\n"))
}

var tableHeaderRE = regexp.MustCompile(`^(NAMESPACE|NAME|APIVERSION)\s{2,}[A-Z]`)

func looksLikeTable(body string) bool {
	first, _, _ := strings.Cut(body, "\n")
	return tableHeaderRE.MatchString(first)
}

// normalize turns YAML-decoded values into JSON-encodable ones (maps with
// non-string keys become string-keyed), bounded in depth.
func normalize(v any, depth int) any {
	if depth > 64 {
		return nil
	}
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = normalize(x, depth+1)
		}
		return t
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, x := range t {
			m[fmt.Sprint(k)] = normalize(x, depth+1)
		}
		return m
	case []any:
		for i, x := range t {
			t[i] = normalize(x, depth+1)
		}
		return t
	}
	return v
}

// decodeAll decodes raw objects into T, skipping those that do not decode.
func decodeAll[T any](raws []json.RawMessage) []T {
	out := make([]T, 0, len(raws))
	for _, r := range raws {
		var v T
		if err := json.Unmarshal(r, &v); err == nil {
			out = append(out, v)
		}
	}
	return out
}

// tableRows parses a kubectl table: columns start where the header's
// words start after a run of two or more spaces.
func tableRows(text string) []map[string]string {
	body := stripComments(text)
	lines := strings.Split(body, "\n")
	if len(lines) < 2 {
		return nil
	}
	header := lines[0]
	var starts []int
	var names []string
	for i := 0; i < len(header); {
		if header[i] == ' ' {
			i++
			continue
		}
		j := i
		for j < len(header) && !(header[j] == ' ' && (j+1 >= len(header) || header[j+1] == ' ')) {
			j++
		}
		starts = append(starts, i)
		names = append(names, strings.TrimSpace(header[i:j]))
		i = j
	}
	var rows []map[string]string
	for _, l := range lines[1:] {
		if strings.TrimSpace(l) == "" {
			continue
		}
		row := map[string]string{}
		for k := range starts {
			from := starts[k]
			if from >= len(l) {
				break
			}
			to := len(l)
			if k+1 < len(starts) && starts[k+1] < len(l) {
				to = starts[k+1]
			}
			row[names[k]] = strings.TrimSpace(l[from:to])
		}
		rows = append(rows, row)
	}
	return rows
}

// EventsListEntry is one entry of events_list's YAML answer.
type EventsListEntry struct {
	Namespace      string `yaml:"Namespace"`
	Timestamp      string `yaml:"Timestamp"`
	Type           string `yaml:"Type"`
	Reason         string `yaml:"Reason"`
	Message        string `yaml:"Message"`
	InvolvedObject struct {
		Kind string `yaml:"Kind"`
		Name string `yaml:"Name"`
	} `yaml:"InvolvedObject"`
}

// ParseEventsList decodes events_list's answer ("# The following events
// (YAML format) were found:" and a YAML list) into its entries, for this
// package and for other readers of the server's answers (bot capture keeps
// them as v1 Events).
func ParseEventsList(text string) ([]EventsListEntry, error) {
	body := stripComments(text)
	if body == "" || strings.HasPrefix(body, "No events found") {
		return nil, nil
	}
	var entries []EventsListEntry
	if err := yaml.Unmarshal([]byte(body), &entries); err != nil {
		return nil, fmt.Errorf("events_list: unexpected output: %w", err)
	}
	return entries, nil
}

// parseEventsList decodes events_list's answer into events.
func parseEventsList(text string) ([]event, error) {
	entries, err := ParseEventsList(text)
	if err != nil {
		return nil, err
	}
	out := make([]event, 0, len(entries))
	for _, e := range entries {
		var ev event
		ev.Metadata.Namespace = e.Namespace
		ev.InvolvedObject.Kind, ev.InvolvedObject.Name, ev.InvolvedObject.Namespace = e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Namespace
		ev.Type, ev.Reason, ev.Message = e.Type, e.Reason, e.Message
		ev.LastTimestamp = e.Timestamp
		out = append(out, ev)
	}
	return out, nil
}
