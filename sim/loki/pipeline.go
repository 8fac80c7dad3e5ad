package loki

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"strconv"
	"strings"
	"text/template"
	"time"
)

// Loki's error labels.
const (
	errorLabel        = "__error__"
	errorDetailsLabel = "__error_details__"
	errJSON           = "JSONParserErr"
	errLogfmt         = "LogfmtParserErr"
	errLabelFilter    = "LabelFilterErr"
	errTemplate       = "TemplateFormatErr"
	extractedSuffix   = "_extracted"
)

// labelsBuilder is the label set of one entry as it goes through the
// pipeline; the stream's labels are copied only when a stage changes them.
type labelsBuilder struct {
	base    map[string]string
	current map[string]string
	copied  bool
}

func newLabelsBuilder(base map[string]string) *labelsBuilder {
	return &labelsBuilder{base: base, current: base}
}

func (b *labelsBuilder) get(name string) (string, bool) {
	v, ok := b.current[name]
	return v, ok
}

func (b *labelsBuilder) hasErr() bool { _, ok := b.current[errorLabel]; return ok }

func (b *labelsBuilder) cow() {
	if !b.copied {
		b.current = maps.Clone(b.base)
		if b.current == nil {
			b.current = map[string]string{}
		}
		b.copied = true
	}
}

func (b *labelsBuilder) set(name, value string) {
	b.cow()
	b.current[name] = value
}

func (b *labelsBuilder) del(name string) {
	if _, ok := b.current[name]; !ok {
		return
	}
	b.cow()
	delete(b.current, name)
}

// setExtracted adds a parsed label; a clash with a stream label gets the
// _extracted suffix like in Loki.
func (b *labelsBuilder) setExtracted(name, value string) {
	if _, clash := b.base[name]; clash {
		name += extractedSuffix
	}
	b.set(name, value)
}

func (b *labelsBuilder) setErr(kind, details string) {
	b.set(errorLabel, kind)
	if details != "" {
		b.set(errorDetailsLabel, details)
	}
}

// Stage is one pipeline step. It returns the (possibly rewritten) line and
// whether the entry is kept.
type Stage interface {
	process(ts int64, line string, lbls *labelsBuilder) (string, bool)
}

type lineFilter struct {
	op     string // |= != |~ !~
	values []string
	res    []*regexp.Regexp
}

func (f *lineFilter) process(_ int64, line string, _ *labelsBuilder) (string, bool) {
	any := false
	for i, v := range f.values {
		var hit bool
		if f.res != nil {
			hit = f.res[i].MatchString(line)
		} else {
			hit = strings.Contains(line, v)
		}
		if hit {
			any = true
			break
		}
	}
	if f.op == "|=" || f.op == "|~" {
		return line, any
	}
	return line, !any
}

type jsonStage struct{}

func (jsonStage) process(_ int64, line string, lbls *labelsBuilder) (string, bool) {
	if lbls.hasErr() {
		return line, true
	}
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		lbls.setErr(errJSON, err.Error())
		return line, true
	}
	obj, ok := v.(map[string]any)
	if !ok {
		lbls.setErr(errJSON, "Value looks like "+jsonKind(v)+", but it is not an object")
		return line, true
	}
	flattenJSON("", obj, lbls)
	return line, true
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "bool"
	default:
		return "null"
	}
}

// flattenJSON extracts scalar fields; nested keys join with "_", arrays are
// skipped (Loki's json parser without parameters).
func flattenJSON(prefix string, obj map[string]any, lbls *labelsBuilder) {
	for k, v := range obj {
		name := sanitizeLabelKey(k, prefix == "")
		if prefix != "" {
			name = prefix + "_" + name
		}
		if name == "" {
			continue
		}
		switch x := v.(type) {
		case map[string]any:
			flattenJSON(name, x, lbls)
		case []any:
		case string:
			lbls.setExtracted(name, x)
		case json.Number:
			lbls.setExtracted(name, x.String())
		case bool:
			lbls.setExtracted(name, strconv.FormatBool(x))
		case nil:
			lbls.setExtracted(name, "")
		}
	}
}

// sanitizeLabelKey turns a field name into a label name as Loki does.
func sanitizeLabelKey(key string, isPrefix bool) string {
	key = strings.TrimSpace(key)
	if key == "" {
		return key
	}
	if isPrefix && key[0] >= '0' && key[0] <= '9' {
		key = "_" + key
	}
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
			return r
		}
		return '_'
	}, key)
}

type logfmtStage struct{}

func (logfmtStage) process(_ int64, line string, lbls *labelsBuilder) (string, bool) {
	if lbls.hasErr() {
		return line, true
	}
	pairs, err := parseLogfmt(line)
	for _, kv := range pairs {
		if name := sanitizeLabelKey(kv[0], true); name != "" {
			lbls.setExtracted(name, kv[1])
		}
	}
	if err != nil {
		lbls.setErr(errLogfmt, err.Error())
	}
	return line, true
}

// parseLogfmt reads key=value pairs; values may be double-quoted with Go
// escapes. Keys without a value are skipped, as Loki does by default.
func parseLogfmt(line string) ([][2]string, error) {
	var out [][2]string
	i := 0
	for i < len(line) {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		start := i
		for i < len(line) && line[i] != '=' && line[i] != ' ' && line[i] != '\t' && line[i] != '"' {
			i++
		}
		key := line[start:i]
		if i < len(line) && line[i] == '"' {
			return out, fmt.Errorf("logfmt syntax error at pos %d : unexpected '\"'", i+1)
		}
		if i >= len(line) || line[i] != '=' {
			continue // bare key
		}
		i++ // '='
		if key == "" {
			return out, fmt.Errorf("logfmt syntax error at pos %d : unexpected '='", i)
		}
		if i < len(line) && line[i] == '"' {
			j := i + 1
			for j < len(line) && line[j] != '"' {
				if line[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(line) {
				return out, fmt.Errorf("logfmt syntax error at pos %d : unterminated quoted value", len(line)+1)
			}
			v, err := strconv.Unquote(line[i : j+1])
			if err != nil {
				v = line[i+1 : j]
			}
			out = append(out, [2]string{key, v})
			i = j + 1
			continue
		}
		start = i
		for i < len(line) && line[i] != ' ' && line[i] != '\t' {
			i++
		}
		out = append(out, [2]string{key, line[start:i]})
	}
	return out, nil
}

type regexpStage struct{ re *regexp.Regexp }

func (s *regexpStage) process(_ int64, line string, lbls *labelsBuilder) (string, bool) {
	if lbls.hasErr() {
		return line, true
	}
	m := s.re.FindStringSubmatch(line)
	if m == nil {
		return line, true
	}
	for i, name := range s.re.SubexpNames() {
		if i > 0 && name != "" {
			lbls.setExtracted(sanitizeLabelKey(name, true), m[i])
		}
	}
	return line, true
}

// lineFormatStage rewrites the line with a text/template over the labels.
// The template functions __line__ and __timestamp__ read the entry being
// processed; a parsed query serves one request, so the state is not shared.
type lineFormatStage struct {
	tmpl *template.Template
	line string
	ts   int64
	buf  bytes.Buffer
}

func newLineFormatStage(src string) (*lineFormatStage, error) {
	st := &lineFormatStage{}
	funcs := template.FuncMap{
		"__line__":      func() string { return st.line },
		"__timestamp__": func() time.Time { return time.Unix(0, st.ts).UTC() },
	}
	for k, v := range templateFuncs {
		funcs[k] = v
	}
	tmpl, err := template.New("line").Option("missingkey=zero").Funcs(funcs).Parse(src)
	if err != nil {
		return nil, err
	}
	st.tmpl = tmpl
	return st, nil
}

func (s *lineFormatStage) process(ts int64, line string, lbls *labelsBuilder) (string, bool) {
	s.line, s.ts = line, ts
	s.buf.Reset()
	if err := s.tmpl.Execute(&s.buf, lbls.current); err != nil {
		lbls.setErr(errTemplate, err.Error())
		return line, true
	}
	return s.buf.String(), true
}

var templateFuncs = template.FuncMap{
	"ToLower":    strings.ToLower,
	"ToUpper":    strings.ToUpper,
	"lower":      strings.ToLower,
	"upper":      strings.ToUpper,
	"Replace":    strings.Replace,
	"replace":    func(old, new, s string) string { return strings.ReplaceAll(s, old, new) },
	"Trim":       strings.Trim,
	"trim":       strings.TrimSpace,
	"TrimSpace":  strings.TrimSpace,
	"TrimPrefix": strings.TrimPrefix,
	"TrimSuffix": strings.TrimSuffix,
	"trimPrefix": func(prefix, s string) string { return strings.TrimPrefix(s, prefix) },
	"trimSuffix": func(suffix, s string) string { return strings.TrimSuffix(s, suffix) },
	"contains":   func(sub, s string) bool { return strings.Contains(s, sub) },
	"hasPrefix":  func(prefix, s string) bool { return strings.HasPrefix(s, prefix) },
	"hasSuffix":  func(suffix, s string) bool { return strings.HasSuffix(s, suffix) },
	"default": func(def string, v any) any {
		if s, ok := v.(string); ok && s == "" || v == nil {
			return def
		}
		return v
	},
}

type dropKeepStage struct {
	keep  bool
	names []string
}

func (s *dropKeepStage) process(_ int64, line string, lbls *labelsBuilder) (string, bool) {
	if !s.keep {
		for _, n := range s.names {
			lbls.del(n)
		}
		return line, true
	}
	for name := range lbls.current {
		keep := false
		for _, n := range s.names {
			if n == name {
				keep = true
				break
			}
		}
		if !keep {
			lbls.del(name)
		}
	}
	return line, true
}

// Label filters.
type labelFilter interface {
	match(lbls *labelsBuilder) bool
}

type labelFilterStage struct{ f labelFilter }

func (s *labelFilterStage) process(_ int64, line string, lbls *labelsBuilder) (string, bool) {
	return line, s.f.match(lbls)
}

type stringLabelFilter struct{ m *Matcher }

func (f *stringLabelFilter) match(lbls *labelsBuilder) bool {
	v, _ := lbls.get(f.m.Name)
	return f.m.Matches(v)
}

// numericLabelFilter compares a label as a number (or a duration in
// seconds). Like Loki, a missing label drops the line, a value that does not
// parse keeps it with __error__=LabelFilterErr, and lines already in error
// pass untouched.
type numericLabelFilter struct {
	name     string
	op       string
	value    float64
	duration bool
}

func (f *numericLabelFilter) match(lbls *labelsBuilder) bool {
	if lbls.hasErr() {
		return true
	}
	raw, ok := lbls.get(f.name)
	if !ok {
		return false
	}
	var v float64
	var err error
	if f.duration {
		var d time.Duration
		d, err = time.ParseDuration(raw)
		v = d.Seconds()
	} else {
		v, err = strconv.ParseFloat(raw, 64)
	}
	if err != nil {
		lbls.setErr(errLabelFilter, err.Error())
		return true
	}
	switch f.op {
	case "==":
		return v == f.value
	case "!=":
		return v != f.value
	case ">":
		return v > f.value
	case ">=":
		return v >= f.value
	case "<":
		return v < f.value
	case "<=":
		return v <= f.value
	}
	return false
}

type binaryLabelFilter struct {
	and      bool
	lhs, rhs labelFilter
}

func (f *binaryLabelFilter) match(lbls *labelsBuilder) bool {
	l := f.lhs.match(lbls)
	if f.and {
		return l && f.rhs.match(lbls)
	}
	return l || f.rhs.match(lbls)
}

// runPipeline applies the stages to one entry and returns the final line
// and labels.
func runPipeline(stages []Stage, ts int64, line string, stream map[string]string) (string, map[string]string, bool) {
	lbls := newLabelsBuilder(stream)
	for _, st := range stages {
		var keep bool
		line, keep = st.process(ts, line, lbls)
		if !keep {
			return "", nil, false
		}
	}
	return line, lbls.current, true
}
