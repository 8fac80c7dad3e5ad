package investigate

import (
	"bytes"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Kustomize: an overlay changes what its bases declare through patches
// (strategic-merge documents or JSON 6902 operations, in files or inline),
// an images list (new tags and names), a replicas list and generators
// (configMapGenerator literals, env files and files). A field an overlay
// sets is produced by the overlay's line, not the base's.

// kustomization is one kustomization.yaml.
type kustomization struct {
	file string
	dir  string
	doc  *yaml.Node
}

func isKustomization(p string) bool {
	switch path.Base(p) {
	case "kustomization.yaml", "kustomization.yml", "Kustomization":
		return true
	}
	return false
}

// kustomizations lists the repository's kustomizations, those under the
// deploy path and those that name production first.
func (l *Locator) kustomizations() []kustomization {
	var out []kustomization
	for _, p := range l.paths {
		if !isKustomization(p) {
			continue
		}
		docs := l.yamlDocs(p)
		if len(docs) == 0 {
			continue
		}
		out = append(out, kustomization{file: p, dir: path.Dir(p), doc: docs[0]})
	}
	score := func(k kustomization) int {
		s := 0
		if l.scope.Path != "" && (k.dir == strings.TrimSuffix(l.scope.Path, "/") || strings.HasPrefix(k.dir, strings.TrimSuffix(l.scope.Path, "/")+"/")) {
			s += 4
		}
		if strings.Contains(k.dir, "prod") {
			s++
		}
		return s
	}
	sort.SliceStable(out, func(i, j int) bool { return score(out[i]) > score(out[j]) })
	return out
}

// renamedByKustomize: an overlay prefixes or suffixes the name.
func (l *Locator) renamedByKustomize(_ string, name, full string) bool {
	for _, k := range l.kustomizations() {
		pre, suf := scalar(mapGet(k.doc, "namePrefix")), scalar(mapGet(k.doc, "nameSuffix"))
		if (pre != "" || suf != "") && pre+name+suf == full {
			return true
		}
	}
	return false
}

// kustomize finds the overlay line that produces the field.
func (l *Locator) kustomize(ref FieldRef, base FieldLocation, hasBase bool) (FieldLocation, bool) {
	for _, k := range l.kustomizations() {
		if loc, ok := l.kustomizationField(k, ref, base, hasBase); ok {
			return loc, true
		}
	}
	return FieldLocation{}, false
}

func (l *Locator) kustomizationField(k kustomization, ref FieldRef, base FieldLocation, hasBase bool) (FieldLocation, bool) {
	pre, suf := scalar(mapGet(k.doc, "namePrefix")), scalar(mapGet(k.doc, "nameSuffix"))
	nameMatches := func(n string) bool {
		return n == ref.Name || pre+n+suf == ref.Name
	}
	// images: the tag (or name, or digest) of an image the overlay sets.
	if strings.HasSuffix(ref.Field, ".image") {
		repo := imageRepo(ref.Value)
		for _, it := range seqItems(mapGet(k.doc, "images")) {
			name := scalar(mapGet(it, "name"))
			if name == "" || (name != repo && path.Base(name) != path.Base(repo)) {
				continue
			}
			for _, key := range []string{"newTag", "digest", "newName"} {
				if kn, v := mapGetKey(it, key); kn != nil {
					return FieldLocation{File: k.file, Line: v.Line, Path: "images[" + name + "]." + key, Value: v.Value, How: LocatedImages, Exact: true}, true
				}
			}
		}
	}
	if ref.Field == "spec.replicas" {
		for _, it := range seqItems(mapGet(k.doc, "replicas")) {
			if nameMatches(scalar(mapGet(it, "name"))) {
				if kn, v := mapGetKey(it, "count"); kn != nil {
					return FieldLocation{File: k.file, Line: v.Line, Path: "replicas[" + ref.Name + "].count", Value: v.Value, How: LocatedReplicas, Exact: true}, true
				}
			}
		}
	}
	if ref.Kind == "ConfigMap" {
		if loc, ok := l.generatorField(k, ref, nameMatches); ok {
			return loc, true
		}
	}
	// Patches, in files or inline.
	var best FieldLocation
	found := false
	try := func(loc FieldLocation, ok bool) {
		if ok && (!found || loc.Exact && !best.Exact) {
			best, found = loc, true
		}
	}
	patchDocs := func(file string, content []byte, offset int) {
		for _, doc := range parseDocs(content) {
			shiftLines(doc, offset)
			if scalar(mapGet(doc, "op")) != "" || doc.Kind == yaml.SequenceNode {
				try(json6902Field(file, doc, ref))
				continue
			}
			kind := scalar(mapGet(doc, "kind"))
			name := scalar(mapGet(mapGet(doc, "metadata"), "name"))
			if (kind == ref.Kind || workloadKinds[kind] && workloadKinds[ref.Kind]) && nameMatches(name) {
				loc, ok := fieldIn(file, doc, ref.Field, LocatedPatch)
				// A patch that only reaches an enclosing key does not set the
				// field; the base's own line says more, unless the base lacks it.
				if ok && (loc.Exact || !hasBase) {
					try(loc, ok)
				}
			}
		}
	}
	targetMatches := func(t *yaml.Node) bool {
		if t == nil {
			return true
		}
		kind, name := scalar(mapGet(t, "kind")), scalar(mapGet(t, "name"))
		return (kind == "" || kind == ref.Kind || workloadKinds[kind] && workloadKinds[ref.Kind]) && (name == "" || nameMatches(name) || regexMatches(name, ref.Name))
	}
	for _, key := range []string{"patches", "patchesStrategicMerge", "patchesJson6902"} {
		for _, it := range seqItems(mapGet(k.doc, key)) {
			switch {
			case it.Kind == yaml.ScalarNode && key == "patchesStrategicMerge" && strings.Contains(it.Value, "\n"):
				patchDocs(k.file, []byte(it.Value), it.Line)
			case it.Kind == yaml.ScalarNode:
				f := path.Join(k.dir, it.Value)
				if b := l.read(f); b != nil {
					patchDocs(f, b, 0)
				}
			case it.Kind == yaml.MappingNode:
				if !targetMatches(mapGet(it, "target")) {
					continue
				}
				if p := scalar(mapGet(it, "path")); p != "" {
					f := path.Join(k.dir, p)
					if b := l.read(f); b != nil {
						patchDocs(f, b, 0)
					}
				} else if pn := mapGet(it, "patch"); pn != nil && pn.Kind == yaml.ScalarNode {
					patchDocs(k.file, []byte(pn.Value), pn.Line)
				}
			}
		}
	}
	return best, found
}

func regexMatches(expr, s string) bool {
	re, err := regexp.Compile("^(?:" + expr + ")$")
	return err == nil && re.MatchString(s)
}

// generatorHashRE is the hash suffix Kustomize appends to generated names.
var generatorHashRE = regexp.MustCompile(`-[a-z0-9]{10}$`)

// generatorField finds a ConfigMap key in a configMapGenerator: the
// literal or env-file line that sets it, else the entry (where to add it).
func (l *Locator) generatorField(k kustomization, ref FieldRef, nameMatches func(string) bool) (FieldLocation, bool) {
	key := strings.TrimPrefix(strings.TrimPrefix(ref.Field, "data."), "binaryData.")
	for _, it := range seqItems(mapGet(k.doc, "configMapGenerator")) {
		name := scalar(mapGet(it, "name"))
		if !nameMatches(name) && !nameMatches(name+"-x") && generatorHashRE.ReplaceAllString(ref.Name, "") != name && !strings.HasSuffix(generatorHashRE.ReplaceAllString(ref.Name, ""), "-"+name) {
			continue
		}
		lk, lv := mapGetKey(it, "literals")
		for _, lit := range seqItems(lv) {
			if k2, _, ok := strings.Cut(lit.Value, "="); ok && strings.TrimSpace(k2) == key {
				return FieldLocation{File: k.file, Line: lit.Line, Path: "configMapGenerator[" + name + "].literals", Value: lit.Value, How: LocatedGenerator, Exact: true}, true
			}
		}
		for _, src := range []string{"envs", "env"} {
			for _, e := range append(seqItems(mapGet(it, src)), scalarNode(mapGet(it, src))...) {
				f := path.Join(k.dir, e.Value)
				b := l.read(f)
				for i, line := range strings.Split(string(b), "\n") {
					if k2, _, ok := strings.Cut(line, "="); ok && strings.TrimSpace(k2) == key {
						return FieldLocation{File: f, Line: i + 1, Path: key, Value: line, How: LocatedGenerator, Exact: true}, true
					}
				}
			}
		}
		for _, fl := range seqItems(mapGet(it, "files")) {
			fk, fp, ok := strings.Cut(fl.Value, "=")
			if !ok {
				fk, fp = path.Base(fl.Value), fl.Value
			}
			if fk == key {
				return FieldLocation{File: k.file, Line: fl.Line, Path: "configMapGenerator[" + name + "].files", Value: fp, How: LocatedGenerator, Exact: true}, true
			}
		}
		// The key is missing: it is added to the literals (or the entry).
		line := mapGet(it, "name").Line
		if lk != nil {
			line = lk.Line
		}
		return FieldLocation{File: k.file, Line: line, Path: "configMapGenerator[" + name + "].literals", How: LocatedGenerator, Missing: key}, true
	}
	return FieldLocation{}, false
}

func scalarNode(n *yaml.Node) []*yaml.Node {
	if n != nil && n.Kind == yaml.ScalarNode {
		return []*yaml.Node{n}
	}
	return nil
}

// parseDocs parses every document of a YAML text.
func parseDocs(content []byte) []*yaml.Node {
	if bytes.Contains(content, []byte("{{")) {
		content = detemplate(content)
	}
	dec := yaml.NewDecoder(bytes.NewReader(content))
	var out []*yaml.Node
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			break
		}
		if len(doc.Content) > 0 {
			out = append(out, doc.Content[0])
		}
	}
	return out
}

// shiftLines moves the lines of an inline patch to the file's lines.
func shiftLines(n *yaml.Node, offset int) {
	if n == nil || offset == 0 {
		return
	}
	n.Line += offset
	for _, c := range n.Content {
		shiftLines(c, offset)
	}
}

// json6902Field finds the operation of a JSON 6902 patch whose path is
// the field (list items by index or by any selector) and returns its
// value line.
func json6902Field(file string, doc *yaml.Node, ref FieldRef) (FieldLocation, bool) {
	ops := []*yaml.Node{doc}
	if doc.Kind == yaml.SequenceNode {
		ops = doc.Content
	}
	want := pointerKeys(splitFieldPath(ref.Field))
	for _, op := range ops {
		p := scalar(mapGet(op, "path"))
		if p == "" {
			continue
		}
		var keys []string
		for _, s := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
			if _, err := strconv.Atoi(s); err == nil || s == "-" {
				continue
			}
			keys = append(keys, strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~"))
		}
		if strings.Join(keys, ".") != strings.Join(want, ".") {
			continue
		}
		line, val := op.Line, ""
		if k, v := mapGetKey(op, "value"); k != nil {
			line, val = v.Line, v.Value
		}
		return FieldLocation{File: file, Line: line, Path: p, Value: val, How: LocatedPatch, Exact: true}, true
	}
	return FieldLocation{}, false
}

// pointerKeys drops list selectors from a field path's segments.
func pointerKeys(segs []string) []string {
	out := make([]string, 0, len(segs))
	for _, s := range segs {
		if m := segRE.FindStringSubmatch(s); m != nil {
			out = append(out, m[1])
		} else {
			out = append(out, s)
		}
	}
	return out
}

// imageRepo strips the tag or digest of an image reference.
func imageRepo(image string) string {
	if i := strings.Index(image, "@"); i >= 0 {
		image = image[:i]
	}
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		image = image[:i]
	}
	return image
}
