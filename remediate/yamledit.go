package remediate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/autoheal/autoheal/investigate"
)

// Errors of EditYAML.
var (
	// ErrValueNotFound: no scalar matching the edit is at the given line (or path).
	ErrValueNotFound = errors.New("value not found")
	// ErrValueMismatch: the located value is not the edit's old value.
	ErrValueMismatch = errors.New("value differs from the expected old value")
	// ErrAlreadyApplied: the located value already is the new value (or,
	// re-applying a code patch, the file already has its new lines).
	ErrAlreadyApplied = errors.New("the file already has the change")
	// ErrUnsupportedEdit: the value cannot be edited surgically (alias,
	// multi-line or block scalar, ambiguous location).
	ErrUnsupportedEdit = errors.New("value cannot be edited surgically")
)

// maxYAMLBytes bounds the manifests EditYAML accepts.
const maxYAMLBytes = 2 << 20

// YAMLEdit is the result of a surgical edit.
type YAMLEdit struct {
	Content []byte
	Line    int    // 1-based line of the edited value
	Path    string // path of the edited value, as EditYAML names it
	OldRaw  string // bytes replaced
	NewRaw  string // bytes written
	Note    string // e.g. the value was found by path at another line, or carries an anchor
}

// located is a candidate scalar with its path.
type located struct {
	node   *yaml.Node
	key    string // mapping key holding it ("" in a sequence)
	path   string
	doc    int
	inFlow bool
}

// EditYAML changes one scalar value of a YAML manifest or Helm values file
// (or, with edit.Op, appends an item to a list or adds a missing key; see
// yamlinsert.go):
// the one at edit.Line (1-based) whose path ends like edit.Path and whose
// value is edit.OldValue. Only that scalar's bytes are replaced, so
// comments, key order, quoting style, indentation, line endings, anchors and
// every other byte stay as they were; the document is never re-marshalled.
// The old quoting style is kept (a plain value that would change type or
// meaning when written plain is double-quoted). When the line holds no such
// value, a unique match of the path elsewhere in the file is used (the file
// moved since the investigation) and noted.
func EditYAML(content []byte, edit investigate.ManifestEdit) (YAMLEdit, error) {
	if len(content) > maxYAMLBytes {
		return YAMLEdit{}, fmt.Errorf("%w: file larger than %d bytes", ErrUnsupportedEdit, maxYAMLBytes)
	}
	switch edit.Op {
	case "":
	case investigate.EditAppend:
		return appendYAML(content, edit)
	case investigate.EditAdd:
		return addYAML(content, edit)
	default:
		return YAMLEdit{}, fmt.Errorf("%w: unknown operation %q", ErrUnsupportedEdit, edit.Op)
	}
	oldValue, newValue := unquoteArg(edit.OldValue), unquoteArg(edit.NewValue)
	if strings.ContainsAny(newValue, "\n\r") {
		return YAMLEdit{}, fmt.Errorf("%w: the new value spans several lines", ErrUnsupportedEdit)
	}
	docs, err := decodeAll(content)
	if err != nil {
		return YAMLEdit{}, fmt.Errorf("parse YAML: %w", err)
	}
	var all []located
	for i, d := range docs {
		collectScalars(d, i, "", "", false, &all)
	}
	target, note, err := pickTarget(all, edit.Line, edit.Path, oldValue, newValue)
	if err != nil {
		return YAMLEdit{}, err
	}
	n := target.node
	if n.Kind == yaml.AliasNode {
		line := 0
		if n.Alias != nil {
			line = n.Alias.Line
		}
		return YAMLEdit{}, fmt.Errorf("%w: line %d is an alias (*%s); edit the anchor &%s at line %d instead", ErrUnsupportedEdit, n.Line, n.Value, n.Value, line)
	}
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 || strings.ContainsAny(n.Value, "\n\r") {
		return YAMLEdit{}, fmt.Errorf("%w: line %d (%s) is a block or multi-line scalar", ErrUnsupportedEdit, n.Line, target.path)
	}
	if n.Value == newValue && n.Value != oldValue {
		return YAMLEdit{}, fmt.Errorf("line %d (%s) is already %q: %w", n.Line, target.path, newValue, ErrAlreadyApplied)
	}
	if n.Value != oldValue {
		return YAMLEdit{}, fmt.Errorf("line %d (%s) is %q, not %q: %w", n.Line, target.path, clip(n.Value, 60), clip(oldValue, 60), ErrValueMismatch)
	}
	start, end, err := scalarSpan(content, n, target.inFlow)
	if err != nil {
		return YAMLEdit{}, err
	}
	newRaw, err := renderScalar(n, newValue, target.inFlow)
	if err != nil {
		return YAMLEdit{}, err
	}
	out := make([]byte, 0, len(content)-(end-start)+len(newRaw))
	out = append(out, content[:start]...)
	out = append(out, newRaw...)
	out = append(out, content[end:]...)
	if err := verifyEdit(docs, out, target, newValue); err != nil {
		return YAMLEdit{}, err
	}
	if n.Anchor != "" {
		note = strings.TrimSpace(note + fmt.Sprintf(" The value carries the anchor &%s: every alias of it changes too.", n.Anchor))
	}
	return YAMLEdit{Content: out, Line: n.Line, Path: target.path, OldRaw: string(content[start:end]), NewRaw: newRaw, Note: note}, nil
}

// unquoteArg strips one pair of matching quotes that a planner may have put
// around a value ("7070" for 7070).
func unquoteArg(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		if v, err := decodeScalarText(s); err == nil {
			return v
		}
		return s[1 : len(s)-1]
	}
	return s
}

func decodeAll(content []byte) ([]*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(content))
	var docs []*yaml.Node
	for {
		var d yaml.Node
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		docs = append(docs, &d)
		if len(docs) > 1000 {
			return nil, errors.New("more than 1000 documents")
		}
	}
}

// collectScalars lists every scalar and alias value with a path: keys
// joined by dots, sequence items as [name] (their name key) or [index].
func collectScalars(n *yaml.Node, doc int, path, key string, inFlow bool, out *[]located) {
	if n == nil {
		return
	}
	flow := inFlow || n.Style&yaml.FlowStyle != 0
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			collectScalars(c, doc, path, "", false, out)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			collectScalars(n.Content[i+1], doc, joinPath(path, k), k, flow, out)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			sel := strconv.Itoa(i)
			if c.Kind == yaml.MappingNode {
				for j := 0; j+1 < len(c.Content); j += 2 {
					if c.Content[j].Value == "name" && c.Content[j+1].Kind == yaml.ScalarNode {
						sel = c.Content[j+1].Value
					}
				}
			}
			collectScalars(c, doc, path+"["+sel+"]", "", flow, out)
		}
	case yaml.ScalarNode, yaml.AliasNode:
		*out = append(*out, located{node: n, key: key, path: path, doc: doc, inFlow: inFlow})
	}
}

func joinPath(p, k string) string {
	if p == "" {
		return k
	}
	return p + "." + k
}

// pathMatches reports whether a located path ends with want on a segment
// boundary ("spec.template.spec.containers[cart].resources.limits.memory"
// matches "containers[cart].resources.limits.memory"; Helm values paths may
// lack or carry the section prefix).
func pathMatches(have, want string) bool {
	if want == "" {
		return false
	}
	if have == want {
		return true
	}
	if strings.HasSuffix(have, want) {
		c := have[len(have)-len(want)-1]
		return c == '.' || c == ']'
	}
	if strings.HasSuffix(want, have) { // want names a section prefix the file lacks
		c := want[len(want)-len(have)-1]
		return c == '.'
	}
	return false
}

// lastKey is the final key of a dotted path ("limits.memory" -> "memory").
func lastKey(p string) string {
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		p = p[i+1:]
	}
	if i := strings.IndexByte(p, '['); i >= 0 {
		p = p[:i]
	}
	return p
}

// pickTarget chooses the scalar to edit.
func pickTarget(all []located, line int, path, oldValue, newValue string) (located, string, error) {
	var onLine []located
	for _, c := range all {
		if c.node.Line == line {
			onLine = append(onLine, c)
		}
	}
	filters := []func(located) bool{
		func(c located) bool { return pathMatches(c.path, path) },
		func(c located) bool { return path != "" && c.key == lastKey(path) },
		func(c located) bool { return c.node.Value == oldValue || c.node.Value == newValue },
	}
	if line > 0 && len(onLine) > 0 {
		if len(onLine) == 1 && path == "" {
			return onLine[0], "", nil
		}
		for _, f := range filters {
			var hits []located
			for _, c := range onLine {
				if f(c) {
					hits = append(hits, c)
				}
			}
			if len(hits) == 1 {
				return hits[0], "", nil
			}
			if len(hits) > 1 {
				// several candidates on one line (flow style): the old value decides
				var same []located
				for _, c := range hits {
					if c.node.Value == oldValue {
						same = append(same, c)
					}
				}
				if len(same) == 1 {
					return same[0], "", nil
				}
				return located{}, "", fmt.Errorf("%w: line %d holds %d values matching %q", ErrUnsupportedEdit, line, len(hits), path)
			}
		}
	}
	// The line does not hold the value: a unique match of the path elsewhere.
	if path != "" {
		var hits []located
		for _, c := range all {
			if pathMatches(c.path, path) {
				hits = append(hits, c)
			}
		}
		if len(hits) == 1 {
			note := ""
			if line > 0 {
				note = fmt.Sprintf("The value was found at line %d, not %d (the file changed since the investigation).", hits[0].node.Line, line)
			}
			return hits[0], note, nil
		}
		if len(hits) > 1 {
			return located{}, "", fmt.Errorf("%w: line %d does not hold %s and the path matches %d values", ErrValueNotFound, line, path, len(hits))
		}
	}
	return located{}, "", fmt.Errorf("%w: no value at line %d matches %q", ErrValueNotFound, line, path)
}

// lineOffsets returns the byte offset of each line start (index 0 = line 1).
func lineOffsets(b []byte) []int {
	offs := []int{0}
	for i, c := range b {
		if c == '\n' {
			offs = append(offs, i+1)
		}
	}
	return offs
}

// scalarSpan returns the byte range of a single-line scalar's text (after
// any anchor or tag) in content.
func scalarSpan(content []byte, n *yaml.Node, inFlow bool) (int, int, error) {
	offs := lineOffsets(content)
	if n.Line < 1 || n.Line > len(offs) {
		return 0, 0, fmt.Errorf("%w: line %d is outside the file", ErrValueNotFound, n.Line)
	}
	lineStart := offs[n.Line-1]
	lineEnd := len(content)
	if n.Line < len(offs) {
		lineEnd = offs[n.Line] - 1 // the '\n'
	}
	if lineEnd > lineStart && content[lineEnd-1] == '\r' {
		lineEnd--
	}
	line := content[lineStart:lineEnd]
	if n.Line == 1 {
		line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		lineStart += lineEnd - lineStart - len(line)
	}
	// yaml.v3 columns count characters, not bytes.
	pos := 0
	for col := 1; col < n.Column; col++ {
		if pos >= len(line) {
			return 0, 0, fmt.Errorf("%w: column %d is past the end of line %d", ErrUnsupportedEdit, n.Column, n.Line)
		}
		_, size := utf8.DecodeRune(line[pos:])
		pos += size
	}
	// Skip node properties: &anchor and !tag.
	for pos < len(line) && (line[pos] == '&' || line[pos] == '!') {
		for pos < len(line) && line[pos] != ' ' && line[pos] != '\t' {
			pos++
		}
		for pos < len(line) && (line[pos] == ' ' || line[pos] == '\t') {
			pos++
		}
	}
	start := pos
	switch {
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return 0, 0, fmt.Errorf("%w: line %d is a block scalar (| or >)", ErrUnsupportedEdit, n.Line)
	case n.Style&yaml.DoubleQuotedStyle != 0:
		if pos >= len(line) || line[pos] != '"' {
			return 0, 0, fmt.Errorf("%w: no opening quote at line %d", ErrUnsupportedEdit, n.Line)
		}
		pos++
		for ; pos < len(line); pos++ {
			if line[pos] == '\\' {
				pos++
				continue
			}
			if line[pos] == '"' {
				return checkSpan(content, lineStart+start, lineStart+pos+1, n)
			}
		}
		return 0, 0, fmt.Errorf("%w: the quoted value at line %d spans several lines", ErrUnsupportedEdit, n.Line)
	case n.Style&yaml.SingleQuotedStyle != 0:
		if pos >= len(line) || line[pos] != '\'' {
			return 0, 0, fmt.Errorf("%w: no opening quote at line %d", ErrUnsupportedEdit, n.Line)
		}
		pos++
		for ; pos < len(line); pos++ {
			if line[pos] == '\'' {
				if pos+1 < len(line) && line[pos+1] == '\'' {
					pos++
					continue
				}
				return checkSpan(content, lineStart+start, lineStart+pos+1, n)
			}
		}
		return 0, 0, fmt.Errorf("%w: the quoted value at line %d spans several lines", ErrUnsupportedEdit, n.Line)
	default:
		// A single-line plain scalar is its own text.
		if !bytes.HasPrefix(line[pos:], []byte(n.Value)) || n.Value == "" {
			return 0, 0, fmt.Errorf("%w: the value at line %d spans several lines or is written unusually", ErrUnsupportedEdit, n.Line)
		}
		// (A multi-line plain scalar's value holds its folded continuation, so
		// it never is a prefix of its first line.)
		end := pos + len(n.Value)
		if end < len(line) {
			c := line[end]
			ok := c == ' ' || c == '\t' || (inFlow && (c == ',' || c == ']' || c == '}'))
			if !ok {
				return 0, 0, fmt.Errorf("%w: the value at line %d continues past %q", ErrUnsupportedEdit, n.Line, clip(n.Value, 40))
			}
		}
		return lineStart + start, lineStart + end, nil
	}
}

// checkSpan verifies that the quoted text decodes to the node's value.
func checkSpan(content []byte, start, end int, n *yaml.Node) (int, int, error) {
	if v, err := decodeScalarText(string(content[start:end])); err != nil || v != n.Value {
		return 0, 0, fmt.Errorf("%w: could not find the exact text of the value at line %d", ErrUnsupportedEdit, n.Line)
	}
	return start, end, nil
}

// decodeScalarText decodes the YAML text of one scalar.
func decodeScalarText(text string) (string, error) {
	var doc struct {
		V string `yaml:"v"`
	}
	if err := yaml.Unmarshal([]byte("v: "+text), &doc); err != nil {
		return "", err
	}
	return doc.V, nil
}

// renderScalar writes newValue in the style of n.
func renderScalar(n *yaml.Node, newValue string, inFlow bool) (string, error) {
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		return doubleQuote(newValue), nil
	case n.Style&yaml.SingleQuotedStyle != 0:
		if !printable(newValue) {
			return doubleQuote(newValue), nil
		}
		return "'" + strings.ReplaceAll(newValue, "'", "''") + "'", nil
	}
	// Plain: keep it plain when it reads back as the same value with the
	// same type (an explicit tag fixes the type anyway).
	if plainSafe(newValue, n, inFlow) {
		return newValue, nil
	}
	return doubleQuote(newValue), nil
}

func printable(s string) bool {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

func doubleQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if !unicode.IsPrint(r) {
				fmt.Fprintf(&b, `\u%04x`, r)
				continue
			}
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// plainSafe reports whether s written plain in n's place reads back as s
// with n's type.
func plainSafe(s string, n *yaml.Node, inFlow bool) bool {
	if s == "" || !printable(s) || strings.Contains(s, " #") || strings.HasSuffix(s, ":") || strings.Contains(s, ": ") ||
		strings.TrimSpace(s) != s {
		return false
	}
	if inFlow && strings.ContainsAny(s, ",[]{}") {
		return false
	}
	doc := "v: " + s
	if inFlow {
		doc = "v: [" + s + "]"
	}
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &root); err != nil || len(root.Content) != 1 {
		return false
	}
	m := root.Content[0]
	if m.Kind != yaml.MappingNode || len(m.Content) != 2 {
		return false
	}
	v := m.Content[1]
	if inFlow {
		if v.Kind != yaml.SequenceNode || len(v.Content) != 1 {
			return false
		}
		v = v.Content[0]
	}
	if v.Kind != yaml.ScalarNode || v.Value != s || v.Style != 0 {
		return false
	}
	return n.Style&yaml.TaggedStyle != 0 || v.ShortTag() == n.ShortTag()
}

// flatScalar is a scalar as verifyEdit compares it.
type flatScalar struct {
	path, value, tag, anchor, comments string
	kind                               yaml.Kind
	line                               int
}

func flatten(docs []*yaml.Node) []flatScalar {
	var all []located
	for i, d := range docs {
		collectScalars(d, i, "", "", false, &all)
	}
	out := make([]flatScalar, 0, len(all))
	for _, c := range all {
		n := c.node
		out = append(out, flatScalar{
			path: fmt.Sprintf("%d:%s", c.doc, c.path), value: n.Value, tag: n.ShortTag(), anchor: n.Anchor,
			comments: n.HeadComment + "\x00" + n.LineComment + "\x00" + n.FootComment, kind: n.Kind, line: n.Line,
		})
	}
	return out
}

// verifyEdit re-parses the edited file and checks that exactly the target
// changed, to the new value, with its type, and nothing else did.
func verifyEdit(before []*yaml.Node, out []byte, target located, newValue string) error {
	after, err := decodeAll(out)
	if err != nil {
		return fmt.Errorf("%w: the edited file does not parse: %v", ErrUnsupportedEdit, err)
	}
	a, b := flatten(before), flatten(after)
	if len(a) != len(b) || len(before) != len(after) {
		return fmt.Errorf("%w: the edit changed the document structure", ErrUnsupportedEdit)
	}
	want := fmt.Sprintf("%d:%s", target.doc, target.path)
	changed := 0
	for i := range a {
		x, y := a[i], b[i]
		if x.path == want && x.line == target.node.Line && x.value == target.node.Value {
			if y.value != newValue || y.tag != x.tag && target.node.Style&yaml.TaggedStyle == 0 && x.tag != "!!str" {
				return fmt.Errorf("%w: the edited value reads back as %q (%s)", ErrUnsupportedEdit, clip(y.value, 40), y.tag)
			}
			changed++
			continue
		}
		if x != y {
			return fmt.Errorf("%w: the edit would also change %s", ErrUnsupportedEdit, x.path)
		}
	}
	if changed != 1 {
		return fmt.Errorf("%w: the edit did not change exactly one value", ErrUnsupportedEdit)
	}
	return nil
}
