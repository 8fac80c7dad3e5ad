package investigate

import (
	"path"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Helm: a chart's template renders a field from a value (image: "{{
// .Values.image.repository }}:{{ .Values.image.tag }}"), or a whole block
// (resources: {{- toYaml .Values.resources | nindent 12 }}, often inside
// {{- with .Values.nodeSelector }}). The line to change is the values key
// the template reads, in the values file that sets it last (the deploy
// target's value files, else values.yaml and a production override), or a
// HelmRelease's inline values.

var (
	valuesRefRE = regexp.MustCompile(`\.Values((?:\.[A-Za-z_][\w-]*)+)`)
	withValues  = regexp.MustCompile(`\{\{-?\s*(?:with|range)\s+(?:\$\w+\s*:=\s*)?\.Values((?:\.[A-Za-z_][\w-]*)+)`)
	toYamlDot   = regexp.MustCompile(`toYaml\s+\.\s*[|}]`)
)

// helmValue maps a field of a chart template onto the values key it reads.
func (l *Locator) helmValue(tmpl string, doc *yaml.Node, ref FieldRef) (FieldLocation, bool) {
	raw := strings.Split(string(l.read(tmpl)), "\n")
	segs := splitFieldPath(ref.Field)
	node, line, rest := walk(doc, segs)
	if node == nil || line < 1 || line > len(raw) || len(rest) == len(segs) {
		return FieldLocation{}, false
	}
	// The value (or block) the reached line renders.
	keys := valueKeysAt(raw, line, node)
	if len(keys) == 0 && len(rest) == 0 && node.Kind == yaml.ScalarNode && !strings.Contains(node.Value, templated) {
		// A literal in the template: the template's line is the field.
		return FieldLocation{File: tmpl, Line: line, Path: ref.Field, Value: node.Value, How: LocatedManifest, Exact: true}, true
	}
	if len(keys) == 0 {
		return FieldLocation{}, false
	}
	key := l.pickValueKey(tmpl, keys, ref)
	if len(rest) > 0 {
		key += "." + strings.Join(pointerKeys(rest), ".")
	}
	return l.valuesLocation(tmpl, key, ref)
}

// valueKeysAt lists the values keys the template reads at a line: on the
// line itself, in the block of directive lines under it (toYaml
// .Values.x), or through an enclosing with .Values.x whose dot it renders.
func valueKeysAt(raw []string, line int, node *yaml.Node) []string {
	text := raw[line-1]
	var keys []string
	for _, m := range valuesRefRE.FindAllStringSubmatch(text, -1) {
		keys = append(keys, strings.TrimPrefix(m[1], "."))
	}
	if len(keys) > 0 {
		return keys
	}
	indent := len(text) - len(strings.TrimLeft(text, " "))
	// Directive lines under the key (its value rendered by a template).
	for i := line; i < len(raw) && i < line+4; i++ {
		t := raw[i]
		if strings.TrimSpace(t) == "" {
			continue
		}
		if len(t)-len(strings.TrimLeft(t, " ")) <= indent && !strings.HasPrefix(strings.TrimSpace(t), "{{") {
			break
		}
		if m := valuesRefRE.FindStringSubmatch(t); m != nil && strings.Contains(t, "toYaml") {
			return []string{strings.TrimPrefix(m[1], ".")}
		}
		if toYamlDot.MatchString(t) {
			text = t
			break
		}
	}
	// toYaml . inside with .Values.x: the dot is .Values.x.
	if toYamlDot.MatchString(text) || strings.Contains(text, "{{ . }}") || strings.Contains(text, "{{- . }}") {
		for i := line - 1; i >= 0 && i >= line-6; i-- {
			if m := withValues.FindStringSubmatch(raw[i]); m != nil {
				return []string{strings.TrimPrefix(m[1], ".")}
			}
		}
	}
	return nil
}

// pickValueKey chooses among several values a line reads (an image line
// reads a repository and a tag): the one whose value ends the field's
// value, else the longest that it contains, else the last.
func (l *Locator) pickValueKey(tmpl string, keys []string, ref FieldRef) string {
	if len(keys) == 1 {
		return keys[0]
	}
	best, bestLen, suffix := keys[len(keys)-1], -1, false
	for _, k := range keys {
		loc, ok := l.valuesLocation(tmpl, k, ref)
		if !ok || !loc.Exact || loc.Value == "" || !strings.Contains(ref.Value, loc.Value) {
			continue
		}
		isSuffix := strings.HasSuffix(ref.Value, loc.Value)
		if (isSuffix && !suffix) || (isSuffix == suffix && len(loc.Value) > bestLen) {
			best, bestLen, suffix = k, len(loc.Value), isSuffix
		}
	}
	return best
}

// valuesFiles lists the values files of a template's chart in the order
// Helm applies them: values.yaml, then the deploy target's files (else the
// chart's production override).
func (l *Locator) valuesFiles(tmpl string) []string {
	chart := path.Dir(tmpl)
	for path.Base(chart) != "templates" && chart != "." && chart != "/" {
		chart = path.Dir(chart)
	}
	chart = path.Dir(chart)
	var out []string
	base := path.Join(chart, "values.yaml")
	out = append(out, base)
	if len(l.scope.ValueFiles) > 0 {
		for _, vf := range l.scope.ValueFiles {
			if vf != base {
				out = append(out, vf)
			}
		}
		return out
	}
	var overrides []string
	for _, p := range l.paths {
		b := path.Base(p)
		if isYAML(p) && strings.HasPrefix(b, "values") && p != base && (path.Dir(p) == chart || strings.HasPrefix(path.Dir(p), chart+"/")) {
			overrides = append(overrides, p)
		}
	}
	sort.SliceStable(overrides, func(i, j int) bool {
		return strings.Contains(overrides[i], "prod") && !strings.Contains(overrides[j], "prod")
	})
	if len(overrides) > 0 && strings.Contains(overrides[0], "prod") {
		out = append(out, overrides[0])
	}
	return out
}

// valuesLocation finds a values key: the last file (or HelmRelease) that
// sets it exactly, else the deepest enclosing key of the last file that
// has part of it.
func (l *Locator) valuesLocation(tmpl, key string, ref FieldRef) (FieldLocation, bool) {
	var exact, partial FieldLocation
	hasExact, hasPartial := false, false
	for _, vf := range l.valuesFiles(tmpl) {
		docs := l.yamlDocs(vf)
		if len(docs) == 0 {
			continue
		}
		loc, ok := fieldIn(vf, docs[0], key, LocatedValues)
		switch {
		case ok && loc.Exact:
			exact, hasExact = loc, true
		case ok:
			partial, hasPartial = loc, true
		}
	}
	// A HelmRelease's inline values override the chart's files.
	for _, p := range l.paths {
		if !isYAML(p) || isHelmTemplate(p) {
			continue
		}
		for _, doc := range l.yamlDocs(p) {
			if scalar(mapGet(doc, "kind")) != "HelmRelease" || mapGet(mapGet(doc, "spec"), "values") == nil {
				continue
			}
			if loc, ok := fieldIn(p, doc, "spec.values."+key, LocatedValues); ok && loc.Exact {
				exact, hasExact = loc, true
			}
		}
	}
	switch {
	case hasExact:
		exact.Path = key
		return exact, true
	case hasPartial:
		return partial, true
	}
	return FieldLocation{}, false
}
