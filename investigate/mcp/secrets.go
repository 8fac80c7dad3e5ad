package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/autoheal/autoheal/redact"
)

// Kubernetes Secrets never reach an investigation, whichever MCP server is
// asked (the built-in Kubernetes capability, a second Kubernetes server,
// Argo CD, a kubectl wrapper): a request that names the Secret kind is
// refused before it is sent, and the values of any Secret an answer holds
// anyway (a List, a custom tool, YAML, JSON or a kubectl table) are masked
// before the answer is used. Key names stay: "secret key DB_URL missing" is
// evidence, its value never is.

// secretKindRE matches a value naming the Secret kind or one Secret:
// Secret, secrets, v1/Secret, secret/db-creds, secrets.v1.
var secretKindRE = regexp.MustCompile(`(?i)^(?:(?:core/)?v1[/.])?secrets?(?:[/.].*)?$`)

// kubectlSecretRE matches a kubectl-like command reading Secrets.
var kubectlSecretRE = regexp.MustCompile(`(?i)\b(?:get|describe|edit|view|show|cat)\b[^|;&\n]*?\bsecrets?\b`)

// kindKeys are argument names that choose what kind of object to read.
var kindKeys = map[string]bool{"kind": true, "kinds": true, "resource": true, "resources": true, "resourcetype": true, "resource_type": true,
	"type": true, "gvk": true, "gvr": true, "apiresource": true, "api_resource": true, "object": true, "objects": true, "target": true}

// secretRequest returns why a tool call's arguments ask for Secrets, or "".
func secretRequest(args json.RawMessage) string {
	var v any
	if json.Unmarshal(args, &v) != nil {
		return ""
	}
	if why := secretArg("", v); why != "" {
		return "Secrets are not read: their values must not reach the investigation (" + why + ")"
	}
	return ""
}

func secretArg(key string, v any) string {
	switch t := v.(type) {
	case string:
		if kindKeys[strings.ToLower(key)] && secretKindRE.MatchString(strings.TrimSpace(t)) {
			return fmt.Sprintf("%s %q", key, t)
		}
		if kubectlSecretRE.MatchString(t) {
			return fmt.Sprintf("%s reads Secrets", orArgs(key))
		}
	case []any:
		var words []string
		for _, x := range t {
			if why := secretArg(key, x); why != "" {
				return why
			}
			if s, ok := x.(string); ok {
				words = append(words, s)
			}
		}
		if kubectlSecretRE.MatchString(strings.Join(words, " ")) {
			return fmt.Sprintf("%s reads Secrets", orArgs(key))
		}
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if why := secretArg(k, t[k]); why != "" {
				return why
			}
		}
	}
	return ""
}

func orArgs(key string) string {
	if key == "" {
		return "the arguments"
	}
	return key
}

// secretKindRE finds an object of kind Secret (or a SecretList) in YAML or
// JSON; secretKindLineRE a line that declares one.
var (
	secretKindAnyRE  = regexp.MustCompile(`"?kind"?[ \t]*:[ \t]*"?Secret(?:List)?\b`)
	secretKindLineRE = regexp.MustCompile(`^[ \t-]*"?kind"?[ \t]*:[ \t]*"?Secret(List)?\b"?,?[ \t]*\r?$`)
)

// lastApplied is the annotation kubectl apply leaves on an object: on a
// Secret it holds the data again.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// GuardSecrets masks the values of Kubernetes Secrets in a tool's text
// answer. JSON is walked as structure; YAML (one object, a List, several
// documents, or text cut short) is read line by line. Text that declares no
// Secret is returned as it is.
func GuardSecrets(text string) string {
	if !strings.Contains(text, "Secret") {
		return text
	}
	if !secretKindAnyRE.MatchString(text) {
		return guardTable(text)
	}
	if t := strings.TrimSpace(text); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		if out, ok := guardJSON([]byte(t), strings.Contains(t, "\n")); ok {
			return string(out)
		}
	}
	return guardYAMLLines(text)
}

// secretColumns are the columns kubectl prints for Secrets: nothing in
// them is a value.
var secretColumns = map[string]bool{"NAMESPACE": true, "APIVERSION": true, "KIND": true, "NAME": true, "TYPE": true, "DATA": true,
	"AGE": true, "LABELS": true}

var tableColumnRE = regexp.MustCompile(`[A-Z][A-Z0-9_.-]*(?: [A-Z][A-Z0-9_.-]*)*`)

// guardTable masks, in a kubectl-style table with a KIND column, the cells
// of Secret rows outside the columns kubectl prints for Secrets (a custom
// column such as PASSWORD:.data.password).
func guardTable(text string) string {
	lines := strings.Split(text, "\n")
	var cols [][]int // column spans of the current table's header
	var names []string
	kind := -1
	changed := false
	for i, l := range lines {
		if h := tableColumnRE.FindAllStringIndex(l, -1); len(h) > 1 && strings.TrimSpace(tableColumnRE.ReplaceAllString(l, "")) == "" {
			cols, names, kind = h, make([]string, len(h)), -1
			for c, sp := range h {
				if names[c] = l[sp[0]:sp[1]]; names[c] == "KIND" {
					kind = c
				}
			}
			continue
		}
		if kind < 0 || cellAt(l, cols, kind) != "Secret" {
			continue
		}
		for c, sp := range cols {
			if secretColumns[names[c]] || sp[0] >= len(l) {
				continue
			}
			end := len(l)
			if c+1 < len(cols) {
				end = min(cols[c+1][0], len(l))
			}
			if strings.TrimSpace(l[sp[0]:end]) != "" {
				l = l[:sp[0]] + redact.Mask + strings.Repeat(" ", max(end-sp[0]-len(redact.Mask), 1)) + l[end:]
				changed = true
			}
		}
		lines[i] = strings.TrimRight(l, " ")
	}
	if !changed {
		return text
	}
	return strings.Join(lines, "\n")
}

// cellAt is the text of column c of a table row.
func cellAt(l string, cols [][]int, c int) string {
	start := cols[c][0]
	if start >= len(l) {
		return ""
	}
	end := len(l)
	if c+1 < len(cols) {
		end = min(cols[c+1][0], len(l))
	}
	return strings.TrimSpace(l[start:end])
}

// GuardCutSecrets is GuardSecrets for an answer cut short: an object cut
// before its kind line may be a Secret (kubectl prints data before kind),
// so the data of every object whose kind is not shown is masked too.
func GuardCutSecrets(text string) string {
	lines := strings.Split(GuardSecrets(text), "\n")
	for i, l := range lines {
		col := keyColumn(l)
		if col >= len(l) || !dataKeyRE.MatchString(l[col:]) {
			continue
		}
		from, to := objectExtent(lines, i, col)
		kinded := false
		for _, o := range lines[from:to] {
			if keyColumn(o) == col && kindLineRE.MatchString(o) {
				kinded = true
				break
			}
		}
		if !kinded {
			maskSecretBlock(lines[from:to], col, false)
		}
	}
	return strings.Join(lines, "\n")
}

var kindLineRE = regexp.MustCompile(`^[ \t-]*"?kind"?[ \t]*:`)

// guardStructured is GuardSecrets for structured content.
func guardStructured(raw json.RawMessage) json.RawMessage {
	if !bytes.Contains(raw, []byte("Secret")) {
		return raw
	}
	if out, ok := guardJSON(raw, false); ok {
		return out
	}
	return raw
}

func guardJSON(b []byte, indent bool) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		return nil, false
	}
	v = maskSecretObjects(v)
	var out []byte
	var err error
	if indent {
		out, err = json.MarshalIndent(v, "", "  ")
	} else {
		out, err = json.Marshal(v)
	}
	return out, err == nil
}

// maskSecretObjects walks a decoded JSON value and masks the data of every
// object of kind Secret in it.
func maskSecretObjects(v any) any {
	switch t := v.(type) {
	case map[string]any:
		switch kind, _ := t["kind"].(string); kind {
		case "Secret":
			maskSecretData(t)
		case "SecretList": // the API leaves kind out of its items
			items, _ := t["items"].([]any)
			for _, it := range items {
				if m, ok := it.(map[string]any); ok {
					maskSecretData(m)
				}
			}
		}
		for k, x := range t {
			t[k] = maskSecretObjects(x)
		}
	case []any:
		for i, x := range t {
			t[i] = maskSecretObjects(x)
		}
	case string:
		// An object serialised into a string (an annotation, a message).
		if strings.Contains(t, `"kind":"Secret"`) {
			if out, ok := guardJSON([]byte(t), false); ok {
				return string(out)
			}
			return redact.Mask
		}
	}
	return v
}

// maskSecretData masks the values of one Secret (its keys stay).
func maskSecretData(t map[string]any) {
	for _, field := range []string{"data", "stringData"} {
		if m, ok := t[field].(map[string]any); ok {
			for k := range m {
				m[k] = redact.Mask
			}
		} else if t[field] != nil {
			t[field] = redact.Mask
		}
	}
	if md, ok := t["metadata"].(map[string]any); ok {
		if an, ok := md["annotations"].(map[string]any); ok && an[lastApplied] != nil {
			an[lastApplied] = redact.Mask
		}
	}
}

// guardYAMLLines masks, in every object of kind Secret, the values under
// data and stringData and the last-applied annotation. An object is the
// run of lines whose keys sit at the indentation of its kind line (a list
// item starts at its dash); it works on text cut short, where a parser
// would give up.
func guardYAMLLines(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		m := secretKindLineRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		col := keyColumn(l)
		from, to := objectExtent(lines, i, col)
		maskSecretBlock(lines[from:to], col, m[1] != "") // a SecretList's items have no kind
	}
	return strings.Join(lines, "\n")
}

// keyColumn is where a line's key starts (after indentation and list dashes).
func keyColumn(l string) int {
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] == '\t' || l[i] == '-' && i+1 < len(l) && l[i+1] == ' ') {
		i++
	}
	return i
}

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " \t")) }

// startsItem reports whether l starts a list item whose keys sit at col.
func startsItem(l string, col int) bool {
	return indentOf(l) == col-2 && strings.HasPrefix(strings.TrimLeft(l, " \t"), "- ")
}

// objectExtent returns the lines [from, to) of the object whose keys sit at
// col and whose kind line is at.
func objectExtent(lines []string, at, col int) (int, int) {
	inside := func(l string) bool {
		t := strings.TrimSpace(l)
		return t == "" || indentOf(l) >= col && !strings.HasPrefix(t, "---")
	}
	from := at
	for from > 0 && !startsItem(lines[from], col) && inside(lines[from-1]) && !startsItem(lines[from-1], col) {
		from--
	}
	if from > 0 && !startsItem(lines[from], col) && startsItem(lines[from-1], col) {
		from--
	}
	to := at + 1
	for to < len(lines) && inside(lines[to]) && !startsItem(lines[to], col) {
		to++
	}
	return from, to
}

var dataKeyRE = regexp.MustCompile(`^"?(?:data|stringData)"?[ \t]*:`)

// maskSecretBlock masks, in the lines of one Secret whose keys sit at col
// (or of a SecretList, whose items' keys sit deeper), what data and
// stringData hold and the last-applied annotation.
func maskSecretBlock(lines []string, col int, list bool) {
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.Contains(l, lastApplied) {
			lines[i] = maskAfterColon(l, lastApplied)
			for j := i + 1; j < len(lines) && indentOf(lines[j]) > keyColumn(l) && strings.TrimSpace(lines[j]) != ""; j++ {
				lines[j] = strings.Repeat(" ", indentOf(lines[j])) + redact.Mask
				i = j
			}
			continue
		}
		kc := keyColumn(l)
		if kc != col && !(list && kc > col) || !dataKeyRE.MatchString(l[kc:]) {
			continue
		}
		if rest := strings.TrimSpace(l[strings.Index(l, ":")+1:]); rest != "" && rest != "{" {
			lines[i] = maskAfterColon(l, "") // flow style: data: {k: v}
			continue
		}
		childCol := -1
		for j := i + 1; j < len(lines); j++ {
			c := lines[j]
			if strings.TrimSpace(c) == "" {
				continue
			}
			if indentOf(c) <= kc {
				break
			}
			if childCol < 0 {
				childCol = indentOf(c)
			}
			if indentOf(c) == childCol && strings.Contains(c, ":") {
				lines[j] = maskAfterColon(c, "")
			} else {
				lines[j] = strings.Repeat(" ", indentOf(c)) + redact.Mask
			}
			i = j
		}
	}
}

// maskAfterColon keeps a line up to the colon that ends its key (after
// after, when set) and masks the rest.
func maskAfterColon(l, after string) string {
	start := 0
	if after != "" {
		start = strings.Index(l, after) + len(after)
	}
	i := strings.Index(l[start:], ":")
	if i < 0 {
		return l
	}
	return l[:start+i+1] + " " + redact.Mask
}
