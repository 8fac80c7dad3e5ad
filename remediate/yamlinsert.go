package remediate

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/autoheal/autoheal/investigate"
)

// Insertions: the edits that add rather than replace. An item appended to
// a sequence (a verb to a Role's rule) and a key added to a mapping (the
// requests an autoscaler needs) are written as new bytes next to the
// existing ones, in the file's own indentation, quoting and line endings;
// nothing else in the file moves.

// appendYAML adds edit.NewValue as the last item of the sequence whose key
// (or first item) is at edit.Line.
func appendYAML(content []byte, edit investigate.ManifestEdit) (YAMLEdit, error) {
	value := unquoteArg(edit.NewValue)
	if value == "" || strings.ContainsAny(value, "\n\r") {
		return YAMLEdit{}, fmt.Errorf("%w: the item to add is empty or spans several lines", ErrUnsupportedEdit)
	}
	docs, err := decodeAll(content)
	if err != nil {
		return YAMLEdit{}, fmt.Errorf("parse YAML: %w", err)
	}
	seq, key, path := findSequence(docs, edit.Line, edit.Path)
	if seq == nil {
		return YAMLEdit{}, fmt.Errorf("%w: no list at line %d matches %q", ErrValueNotFound, edit.Line, edit.Path)
	}
	for _, it := range seq.Content {
		if it.Kind == yaml.ScalarNode && it.Value == value {
			return YAMLEdit{}, fmt.Errorf("the list at line %d (%s) already holds %q: %w", seq.Line, path, value, ErrAlreadyApplied)
		}
		if it.Kind != yaml.ScalarNode {
			return YAMLEdit{}, fmt.Errorf("%w: the list at line %d holds more than scalars", ErrUnsupportedEdit, seq.Line)
		}
	}
	nl := lineEnding(content)
	offs := lineOffsets(content)
	var out []byte
	var line int
	var newRaw string
	switch {
	case seq.Style&yaml.FlowStyle != 0:
		start, end, err := flowSpan(content, offs, seq)
		if err != nil {
			return YAMLEdit{}, err
		}
		item := renderLike(lastItem(seq), value, true)
		newRaw = item
		if len(seq.Content) > 0 {
			newRaw = ", " + item
		}
		// Insert before the closing bracket, after any space before it.
		at := end - 1
		for at > start+1 && (content[at-1] == ' ' || content[at-1] == '\t') && len(seq.Content) > 0 {
			at--
		}
		out = append(append(append([]byte{}, content[:at]...), newRaw...), content[at:]...)
		line = seq.Line
	case len(seq.Content) > 0:
		last := seq.Content[len(seq.Content)-1]
		text := lineText(content, offs, last.Line)
		m := dashPrefixRE.FindString(text)
		if m == "" {
			return YAMLEdit{}, fmt.Errorf("%w: the list item at line %d is not written as \"- item\"", ErrUnsupportedEdit, last.Line)
		}
		newRaw = m + renderLike(last, value, false)
		out = insertLine(content, offs, last.Line, newRaw, nl)
		line = last.Line + 1
	default:
		return YAMLEdit{}, fmt.Errorf("%w: the list at line %d is empty and not in flow style", ErrUnsupportedEdit, seq.Line)
	}
	if err := verifyInsert(docs, out, func(after []*yaml.Node) bool {
		s, _, _ := findSequence(after, key.Line, edit.Path)
		return s != nil && len(s.Content) == len(seq.Content)+1 && s.Content[len(s.Content)-1].Value == value
	}); err != nil {
		return YAMLEdit{}, err
	}
	return YAMLEdit{Content: out, Line: line, Path: path, NewRaw: newRaw}, nil
}

var dashPrefixRE = regexp.MustCompile(`^\s*-\s+`)

// findSequence finds the sequence whose key is at line (or that starts
// there), preferring one whose path ends like want.
func findSequence(docs []*yaml.Node, line int, want string) (*yaml.Node, *yaml.Node, string) {
	type hit struct {
		seq, key *yaml.Node
		path     string
	}
	var hits []hit
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		if n == nil {
			return
		}
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, path)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				p := joinPath(path, k.Value)
				if v.Kind == yaml.SequenceNode && (k.Line == line || v.Line == line) {
					hits = append(hits, hit{v, k, p})
				}
				walk(v, p)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
	for _, d := range docs {
		walk(d, "")
	}
	for _, h := range hits {
		if pathMatches(h.path, want) || lastKey(want) == lastKey(h.path) {
			return h.seq, h.key, h.path
		}
	}
	if len(hits) == 1 {
		return hits[0].seq, hits[0].key, hits[0].path
	}
	return nil, nil, ""
}

// addYAML adds the keys of edit.Path missing under the mapping key at
// edit.Line, the last one with edit.NewValue.
func addYAML(content []byte, edit investigate.ManifestEdit) (YAMLEdit, error) {
	value := unquoteArg(edit.NewValue)
	if strings.ContainsAny(value, "\n\r") {
		return YAMLEdit{}, fmt.Errorf("%w: the new value spans several lines", ErrUnsupportedEdit)
	}
	docs, err := decodeAll(content)
	if err != nil {
		return YAMLEdit{}, fmt.Errorf("parse YAML: %w", err)
	}
	key, val, path := findKeyAt(docs, edit.Line)
	if key == nil {
		return YAMLEdit{}, fmt.Errorf("%w: no key at line %d", ErrValueNotFound, edit.Line)
	}
	missing := missingKeys(edit.Path, key.Value)
	if len(missing) == 0 {
		return YAMLEdit{}, fmt.Errorf("%w: %q does not continue the key %q at line %d", ErrValueNotFound, edit.Path, key.Value, edit.Line)
	}
	for _, m := range missing {
		if strings.ContainsAny(m, "[]") {
			return YAMLEdit{}, fmt.Errorf("%w: %s names a list item", ErrUnsupportedEdit, m)
		}
	}
	if existing := walkKeys(val, missing); existing {
		return YAMLEdit{}, fmt.Errorf("%s already exists under line %d: %w", strings.Join(missing, "."), edit.Line, ErrAlreadyApplied)
	}
	nl := lineEnding(content)
	offs := lineOffsets(content)
	keyIndent := key.Column - 1
	childIndent := keyIndent + 2
	base := content
	switch {
	case val.Kind == yaml.MappingNode && len(val.Content) > 0 && val.Style&yaml.FlowStyle == 0:
		childIndent = val.Content[0].Column - 1
		// Only the first missing key may exist already (requests under
		// resources); deeper ones are new.
		if k, v := mapGetNode(val, missing[0]); k != nil {
			if v.Kind != yaml.MappingNode || v.Style&yaml.FlowStyle != 0 {
				return YAMLEdit{}, fmt.Errorf("%w: %s at line %d is not a block mapping", ErrUnsupportedEdit, missing[0], k.Line)
			}
			key, missing = k, missing[1:]
			keyIndent = key.Column - 1
			childIndent = keyIndent + 2
			if len(v.Content) > 0 {
				childIndent = v.Content[0].Column - 1
			}
		}
	case val.Kind == yaml.MappingNode && len(val.Content) == 0 && val.Style&yaml.FlowStyle != 0 && val.Line == key.Line:
		// key: {} -> key: (the children follow)
		text := lineText(content, offs, key.Line)
		i := strings.LastIndex(text, "{}")
		if i < 0 {
			return YAMLEdit{}, fmt.Errorf("%w: line %d is written unusually", ErrUnsupportedEdit, key.Line)
		}
		j := i
		for j > 0 && text[j-1] == ' ' {
			j--
		}
		start := offs[key.Line-1]
		base = append(append([]byte{}, content[:start+j]...), content[start+i+2:]...)
		offs = lineOffsets(base)
	case val.Kind == yaml.ScalarNode && val.Tag == "!!null" && (val.Line > key.Line || val.Value == ""):
	default:
		return YAMLEdit{}, fmt.Errorf("%w: the value at line %d is not a mapping keys can be added to", ErrUnsupportedEdit, key.Line)
	}
	var lines []string
	for i, m := range missing {
		pad := strings.Repeat(" ", childIndent+2*i)
		if i == len(missing)-1 {
			lines = append(lines, pad+m+": "+renderPlain(value))
		} else {
			lines = append(lines, pad+m+":")
		}
	}
	newRaw := strings.Join(lines, nl)
	out := insertLine(base, offs, key.Line, newRaw, nl)
	if err := verifyInsert(docs, out, func(after []*yaml.Node) bool {
		k, v, _ := findKeyAt(after, key.Line)
		return k != nil && walkValue(v, missing) == value
	}); err != nil {
		return YAMLEdit{}, err
	}
	return YAMLEdit{Content: out, Line: key.Line + 1, Path: joinPath(path, strings.Join(missing, ".")), NewRaw: newRaw}, nil
}

// findKeyAt finds the mapping key at a line, its value and its path.
func findKeyAt(docs []*yaml.Node, line int) (*yaml.Node, *yaml.Node, string) {
	var k, v *yaml.Node
	var p string
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		if n == nil || k != nil {
			return
		}
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, path)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				kk, vv := n.Content[i], n.Content[i+1]
				if kk.Line == line && k == nil {
					k, v, p = kk, vv, joinPath(path, kk.Value)
					return
				}
				walk(vv, joinPath(path, kk.Value))
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
	for _, d := range docs {
		walk(d, "")
	}
	return k, v, p
}

// missingKeys returns the keys of path that follow the last occurrence of
// key ("spec...resources.requests.cpu" after resources: requests, cpu).
func missingKeys(path, key string) []string {
	segs := strings.Split(path, ".")
	for i := len(segs) - 1; i >= 0; i-- {
		s := segs[i]
		if j := strings.IndexByte(s, '['); j >= 0 {
			s = s[:j]
		}
		if s == key {
			return segs[i+1:]
		}
	}
	return nil
}

func mapGetNode(n *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i], n.Content[i+1]
		}
	}
	return nil, nil
}

// walkKeys reports whether the whole key path exists under n.
func walkKeys(n *yaml.Node, keys []string) bool {
	for _, k := range keys {
		_, v := mapGetNode(n, k)
		if v == nil {
			return false
		}
		n = v
	}
	return true
}

// walkValue returns the scalar at the key path under n.
func walkValue(n *yaml.Node, keys []string) string {
	for _, k := range keys {
		_, v := mapGetNode(n, k)
		if v == nil {
			return "\x00"
		}
		n = v
	}
	if n.Kind != yaml.ScalarNode {
		return "\x00"
	}
	return n.Value
}

// insertLine inserts text as new lines after line (1-based).
func insertLine(content []byte, offs []int, line int, text, nl string) []byte {
	var at int
	if line < len(offs) {
		at = offs[line] // start of the next line
	} else {
		at = len(content)
	}
	var b bytes.Buffer
	b.Write(content[:at])
	if at > 0 && content[at-1] != '\n' {
		b.WriteString(nl)
	}
	b.WriteString(text)
	b.WriteString(nl)
	b.Write(content[at:])
	return b.Bytes()
}

func lineText(content []byte, offs []int, line int) string {
	start := offs[line-1]
	end := len(content)
	if line < len(offs) {
		end = offs[line] - 1
	}
	return strings.TrimRight(string(content[start:end]), "\r")
}

func lineEnding(content []byte) string {
	if bytes.Contains(content, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}

// flowSpan returns the byte range of a one-line flow sequence ([ ... ]).
func flowSpan(content []byte, offs []int, seq *yaml.Node) (int, int, error) {
	text := lineText(content, offs, seq.Line)
	pos := 0
	for col := 1; col < seq.Column && pos < len(text); col++ {
		_, size := decodeRune(text[pos:])
		pos += size
	}
	if pos >= len(text) || text[pos] != '[' {
		return 0, 0, fmt.Errorf("%w: the list at line %d is not a one-line [ ... ]", ErrUnsupportedEdit, seq.Line)
	}
	depth, quote := 0, byte(0)
	for i := pos; i < len(text); i++ {
		c := text[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[':
			depth++
		case c == ']':
			depth--
			if depth == 0 {
				start := offs[seq.Line-1]
				return start + pos, start + i + 1, nil
			}
		}
	}
	return 0, 0, fmt.Errorf("%w: the list at line %d spans several lines", ErrUnsupportedEdit, seq.Line)
}

func decodeRune(s string) (rune, int) {
	for i, r := range s {
		if i == 0 {
			return r, len(string(r))
		}
	}
	return 0, 1
}

func lastItem(seq *yaml.Node) *yaml.Node {
	if len(seq.Content) == 0 {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Style: yaml.DoubleQuotedStyle}
	}
	return seq.Content[len(seq.Content)-1]
}

// renderLike writes a value quoted the way an existing item is.
func renderLike(like *yaml.Node, value string, inFlow bool) string {
	switch {
	case like.Style&yaml.DoubleQuotedStyle != 0:
		return doubleQuote(value)
	case like.Style&yaml.SingleQuotedStyle != 0 && printable(value):
		return "'" + strings.ReplaceAll(value, "'", "''") + "'"
	}
	plain := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str"}
	if plainSafe(value, plain, inFlow) {
		return value
	}
	return doubleQuote(value)
}

// renderPlain writes a new scalar plain when it reads back as the same
// string, quoted otherwise (a quantity such as 250m stays plain).
func renderPlain(value string) string {
	if value == "" {
		return `""`
	}
	return renderLike(&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str"}, value, false)
}

// verifyInsert re-parses the edited file: it must parse, every scalar of
// the original must still be there with its value, and check must hold.
func verifyInsert(before []*yaml.Node, out []byte, check func([]*yaml.Node) bool) error {
	after, err := decodeAll(out)
	if err != nil {
		return fmt.Errorf("%w: the edited file does not parse: %v", ErrUnsupportedEdit, err)
	}
	if len(after) != len(before) {
		return fmt.Errorf("%w: the edit changed the document structure", ErrUnsupportedEdit)
	}
	want := map[string]int{}
	for _, s := range flatten(before) {
		want[s.path+"="+s.value]++
	}
	for _, s := range flatten(after) {
		want[s.path+"="+s.value]--
	}
	for k, n := range want {
		if n > 0 {
			return fmt.Errorf("%w: the edit would change %s", ErrUnsupportedEdit, strings.SplitN(k, "=", 2)[0])
		}
	}
	if !check(after) {
		return fmt.Errorf("%w: the edited file does not hold the new value where expected", ErrUnsupportedEdit)
	}
	return nil
}
