package investigate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Locating a Kubernetes field in the repository that produces it.
//
// A Kubernetes analyzer names the field at fault (FieldRef: the object and
// the path of the field in it). LocateField finds the line of the
// repository a person edits to change that field: the field in a plain
// manifest; in a Kustomize overlay, the patch, images entry or
// configMapGenerator literal that overrides or produces it; in a Helm
// chart, the values key the template reads (not the rendered line). When
// the field is missing (requests an autoscaler needs, a key a ConfigMap
// lacks) the line is the nearest enclosing key, where it is to be added.

// RepoFiles is read access to one revision of a repository.
type RepoFiles interface {
	Paths() []string
	Read(path string) ([]byte, error)
}

// How a location was found (FieldLocation.How).
const (
	LocatedManifest  = "manifest"            // the object's own manifest
	LocatedPatch     = "kustomize-patch"     // a Kustomize patch overriding it
	LocatedImages    = "kustomize-images"    // a Kustomize images entry
	LocatedGenerator = "kustomize-generator" // a configMapGenerator entry
	LocatedReplicas  = "kustomize-replicas"  // a Kustomize replicas entry
	LocatedValues    = "helm-values"         // the values key a Helm template reads
	LocatedValueScan = "value-search"        // a key holding the faulty value, by name likeness
)

// FieldLocation is the line that produces a field.
type FieldLocation struct {
	File string `json:"file"`
	Line int    `json:"line"`
	// Path is the field's path in File (a values key, a patch's path).
	Path  string `json:"path"`
	Value string `json:"value,omitempty"`
	How   string `json:"how"`
	// Exact: the line sets the field itself; false when it is the
	// enclosing key where a missing field is to be added, or a line found
	// by value likeness.
	Exact bool `json:"exact"`
	// Missing is the part of the path the file lacks, to be added under
	// Line (requests.cpu under resources), when the location is not exact.
	Missing string `json:"missing,omitempty"`
	Note    string `json:"note,omitempty"`
}

// maxLocateFiles bounds the files read for one repository.
const maxLocateFiles = 80

// Locator finds fields in one repository revision, reading each file
// once.
type Locator struct {
	repo  RepoFiles
	scope DeployTarget
	files map[string][]byte
	docs  map[string][]*yaml.Node
	reads int
	paths []string
}

// NewLocator prepares a locator over a repository; scope (the GitOps
// target, possibly empty) says which path and values files deploy the
// workloads.
func NewLocator(repo RepoFiles, scope DeployTarget) *Locator {
	l := &Locator{repo: repo, scope: scope, files: map[string][]byte{}, docs: map[string][]*yaml.Node{}}
	for _, p := range repo.Paths() {
		if isYAML(p) || path.Base(p) == "Chart.yaml" || strings.HasSuffix(p, ".env") || strings.HasSuffix(p, ".properties") {
			l.paths = append(l.paths, p)
		}
	}
	sort.SliceStable(l.paths, func(i, j int) bool { return l.rank(l.paths[i]) < l.rank(l.paths[j]) })
	return l
}

// rank orders files: those under the deploy path first, then manifest-like
// paths, then the rest.
func (l *Locator) rank(p string) int {
	switch {
	case l.scope.Path != "" && (strings.HasPrefix(p, strings.TrimSuffix(l.scope.Path, "/")+"/") || p == l.scope.Path):
		return 0
	case IsManifestPath(p):
		return 1
	}
	return 2
}

func isYAML(p string) bool {
	ext := path.Ext(p)
	return ext == ".yaml" || ext == ".yml"
}

// read returns a file's content (nil when unreadable or over the budget).
func (l *Locator) read(p string) []byte {
	if b, ok := l.files[p]; ok {
		return b
	}
	if l.reads >= maxLocateFiles {
		return nil
	}
	l.reads++
	b, err := l.repo.Read(p)
	if err != nil {
		b = nil
	}
	l.files[p] = b
	return b
}

// yamlDocs parses a file's documents (Helm templates with their actions
// blanked, lines kept).
func (l *Locator) yamlDocs(p string) []*yaml.Node {
	if d, ok := l.docs[p]; ok {
		return d
	}
	b := l.read(p)
	var out []*yaml.Node
	if b != nil {
		content := b
		if bytes.Contains(b, []byte("{{")) {
			content = detemplate(b)
		}
		dec := yaml.NewDecoder(bytes.NewReader(content))
		for {
			var doc yaml.Node
			err := dec.Decode(&doc)
			if errors.Is(err, io.EOF) || err != nil {
				break
			}
			if len(doc.Content) > 0 {
				out = append(out, doc.Content[0])
			}
		}
	}
	l.docs[p] = out
	return out
}

// ReadCount is how many files the locator read.
func (l *Locator) ReadCount() int { return l.reads }

// workloadKinds are the kinds whose pod template paths are interchangeable
// (an analyzer that only saw pods names a Deployment; the manifest may
// hold a Rollout or a StatefulSet of that name).
var workloadKinds = map[string]bool{"Deployment": true, "StatefulSet": true, "DaemonSet": true, "ReplicaSet": true, "Job": true, "CronJob": true, "Pod": true, "Rollout": true}

// Locate finds the line that produces a field; ok is false when nothing in
// the repository does.
func (l *Locator) Locate(ref FieldRef) (FieldLocation, bool) {
	var best FieldLocation
	found := false
	consider := func(loc FieldLocation, ok bool) {
		if ok && (!found || better(loc, best)) {
			best, found = loc, true
		}
	}
	// The object's own manifests (plain YAML, or a chart's templates).
	for _, p := range l.paths {
		if !isYAML(p) {
			continue
		}
		for _, doc := range l.yamlDocs(p) {
			if !l.objectMatches(doc, ref, p) {
				continue
			}
			if isHelmTemplate(p) {
				consider(l.helmValue(p, doc, ref))
				continue
			}
			consider(fieldIn(p, doc, ref.Field, LocatedManifest))
		}
	}
	// The producer of a Secret's or ConfigMap's key (an ExternalSecret, a
	// SealedSecret, a key renamed next to the one asked for).
	if (ref.Kind == "Secret" || ref.Kind == "ConfigMap") && strings.HasPrefix(ref.Field, "data.") {
		consider(l.dataKey(ref))
	}
	// Kustomize overlays override what the base sets.
	consider(l.kustomize(ref, best, found))
	if !found || !best.Exact {
		consider(l.valueScan(ref))
	}
	return best, found
}

// better prefers exact locations, then overrides (patches, generators,
// values) over the base manifest, then files under the deploy path.
func better(a, b FieldLocation) bool {
	if a.Exact != b.Exact {
		return a.Exact
	}
	pa, pb := howRank[a.How], howRank[b.How]
	if pa != pb {
		return pa > pb
	}
	return false
}

var howRank = map[string]int{LocatedValueScan: 0, LocatedManifest: 1, LocatedValues: 2, LocatedPatch: 3, LocatedImages: 3, LocatedGenerator: 3, LocatedReplicas: 3}

// objectMatches reports whether a document is the object (its kind and
// name; a name a template computes matches the chart named like it).
func (l *Locator) objectMatches(doc *yaml.Node, ref FieldRef, file string) bool {
	kind := scalar(mapGet(doc, "kind"))
	if kind != ref.Kind && !(workloadKinds[kind] && workloadKinds[ref.Kind]) {
		return false
	}
	name := scalar(mapGet(mapGet(doc, "metadata"), "name"))
	switch {
	case name == ref.Name:
		return true
	case strings.Contains(name, templated):
		return namedByChart(file, strings.ReplaceAll(name, templated, ""), NormalizeServiceName(ref.Name)) || chartNamed(file, ref.Name)
	}
	// Kustomize prefixes and suffixes names (namePrefix: prod-).
	return name != "" && len(name) >= 3 && (strings.HasSuffix(ref.Name, "-"+name) || strings.HasPrefix(ref.Name, name+"-")) && l.renamedByKustomize(file, name, ref.Name)
}

// chartNamed: the file is a template of a chart named like the object.
func chartNamed(file, name string) bool {
	dir := path.Dir(path.Dir(file)) // charts/<chart>/templates/x.yaml -> charts/<chart>
	return path.Base(path.Dir(file)) == "templates" && similarWords(path.Base(dir), name)
}

// similarWords: one name contains the other, separators ignored.
func similarWords(a, b string) bool {
	na, nb := NormalizeServiceName(a), NormalizeServiceName(b)
	return na != "" && nb != "" && (strings.Contains(na, nb) || strings.Contains(nb, na))
}

func isHelmTemplate(p string) bool {
	return path.Base(path.Dir(p)) == "templates" || strings.Contains(p, "/templates/")
}

// --- navigating a field path -------------------------------------------------

var segRE = regexp.MustCompile(`^([^\[]*)(?:\[([^\]]*)\])?$`)

// splitFieldPath splits a.b[c].d into segments, keeping dots inside
// brackets.
func splitFieldPath(p string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '[':
			depth++
		case ']':
			depth--
		case '.':
			if depth == 0 {
				out = append(out, p[start:i])
				start = i + 1
			}
		}
	}
	return append(out, p[start:])
}

// walk follows segments from a mapping node. Keys may contain dots
// (label keys such as app.kubernetes.io/name): the longest run of segments
// that is a key wins. It returns the deepest node reached, the line of its
// key, and the segments left.
func walk(n *yaml.Node, segs []string) (node *yaml.Node, line int, rest []string) {
	node, line = n, n.Line
	for len(segs) > 0 {
		if node == nil || node.Kind != yaml.MappingNode {
			return node, line, segs
		}
		matched := false
		for take := len(segs); take >= 1; take-- {
			m := segRE.FindStringSubmatch(strings.Join(segs[:take], "."))
			if m == nil {
				continue
			}
			k, v := mapGetKey(node, m[1])
			if k == nil {
				continue
			}
			if strings.Contains(strings.Join(segs[:take], "."), "[") && m[2] == "" {
				continue
			}
			next, nline := v, k.Line
			if m[2] != "" || strings.HasSuffix(segs[take-1], "]") {
				item := selectItem(v, m[2])
				if item == nil {
					return v, k.Line, segs // the list exists, the item does not
				}
				next, nline = item, item.Line
			}
			node, line, segs, matched = next, nline, segs[take:], true
			if node.Kind == yaml.ScalarNode && len(segs) == 0 {
				line = node.Line
			}
			break
		}
		if !matched {
			return node, line, segs
		}
	}
	return node, line, nil
}

// selectItem picks a sequence item by index or by its name (name, or
// metadata.name for claim templates).
func selectItem(seq *yaml.Node, sel string) *yaml.Node {
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return nil
	}
	if i, err := strconv.Atoi(sel); err == nil {
		if i >= 0 && i < len(seq.Content) {
			return seq.Content[i]
		}
		return nil
	}
	for _, it := range seq.Content {
		if scalar(mapGet(it, "name")) == sel || scalar(mapGet(mapGet(it, "metadata"), "name")) == sel {
			return it
		}
	}
	// One item whose name a template computes: it is the one.
	if len(seq.Content) == 1 && strings.Contains(scalar(mapGet(seq.Content[0], "name")), templated) {
		return seq.Content[0]
	}
	return nil
}

// fieldIn locates a field in one document: exact when the whole path
// exists, else the nearest enclosing key (for a field to add).
func fieldIn(file string, doc *yaml.Node, field, how string) (FieldLocation, bool) {
	segs := splitFieldPath(field)
	node, line, rest := walk(doc, segs)
	if node == nil || line == 0 {
		return FieldLocation{}, false
	}
	if len(rest) == len(segs) {
		return FieldLocation{}, false
	}
	loc := FieldLocation{File: file, Line: line, Path: field, How: how, Exact: len(rest) == 0}
	if node.Kind == yaml.ScalarNode {
		loc.Value = node.Value
	} else if node.Kind == yaml.SequenceNode && loc.Exact {
		loc.Value = flowList(node)
	}
	if !loc.Exact {
		loc.Path = strings.Join(segs[:len(segs)-len(rest)], ".")
		loc.Missing = strings.Join(rest, ".")
	}
	return loc, true
}

// flowList renders a sequence of scalars as a,b,c.
func flowList(n *yaml.Node) string {
	var parts []string
	for _, c := range n.Content {
		if c.Kind == yaml.ScalarNode {
			parts = append(parts, c.Value)
		}
	}
	return strings.Join(parts, ",")
}

// --- value search --------------------------------------------------------------

// valueScan finds a key that holds the faulty value and whose name looks
// like the field's (storageClass for storageClassName), preferring files
// named after the object.
func (l *Locator) valueScan(ref FieldRef) (FieldLocation, bool) {
	if ref.Value == "" || strings.Contains(ref.Value, ",") {
		return FieldLocation{}, false
	}
	leaf := fieldLeaf(ref.Field)
	var best FieldLocation
	bestScore := 0
	for _, p := range l.paths {
		if !isYAML(p) {
			continue
		}
		b := l.read(p)
		if b == nil {
			continue
		}
		for i, line := range strings.Split(string(b), "\n") {
			k, v, ok := keyValue(line)
			if !ok || strings.Trim(v, `"'`) != ref.Value {
				continue
			}
			score := 0
			switch {
			case strings.EqualFold(k, leaf):
				score = 3
			case similarWords(k, leaf) && len(NormalizeServiceName(k)) >= 4:
				score = 2
			default:
				continue
			}
			if similarWords(p, ref.Name) {
				score++
			}
			if l.rank(p) == 0 {
				score++
			}
			if score > bestScore {
				best, bestScore = FieldLocation{File: p, Line: i + 1, Path: k, Value: ref.Value, How: LocatedValueScan}, score
			}
		}
	}
	return best, bestScore > 0
}

// fieldLeaf is the last key of a path (the container key for a field of
// a list item: port of ports[http]).
func fieldLeaf(field string) string {
	segs := splitFieldPath(field)
	last := segs[len(segs)-1]
	if m := segRE.FindStringSubmatch(last); m != nil {
		return m[1]
	}
	return last
}

var keyValueRE = regexp.MustCompile(`^\s*(?:-\s+)?([\w.\-/]+)\s*:\s*(\S.*?)\s*(?:#.*)?$`)

func keyValue(line string) (string, string, bool) {
	m := keyValueRE.FindStringSubmatch(line)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// dataKey locates a key of a Secret or ConfigMap in what produces it: the
// object's own data, an ExternalSecret's data entries (secretKey) or a
// SealedSecret's encryptedData. A key that is missing is located at a key
// that looks like its rename (DB_PASSWORD and password), else at the map
// where it is to be added.
func (l *Locator) dataKey(ref FieldRef) (FieldLocation, bool) {
	key := strings.TrimPrefix(ref.Field, "data.")
	var best FieldLocation
	found := false
	for _, p := range l.paths {
		if !isYAML(p) || isHelmTemplate(p) {
			continue
		}
		for _, doc := range l.yamlDocs(p) {
			kind := scalar(mapGet(doc, "kind"))
			name := scalar(mapGet(mapGet(doc, "metadata"), "name"))
			spec := mapGet(doc, "spec")
			var keys []*yaml.Node // the key nodes the producer sets
			var holder *yaml.Node // the node under which keys go
			switch {
			case kind == "ExternalSecret" && ref.Kind == "Secret":
				if t := scalar(mapGet(mapGet(spec, "target"), "name")); t != "" {
					name = t
				}
				k, v := mapGetKey(spec, "data")
				holder = k
				for _, it := range seqItems(v) {
					if sk := mapGet(it, "secretKey"); sk != nil {
						keys = append(keys, sk)
					}
				}
			case kind == "SealedSecret" && ref.Kind == "Secret":
				if t := scalar(mapGet(mapGet(mapGet(spec, "template"), "metadata"), "name")); t != "" {
					name = t
				}
				k, v := mapGetKey(spec, "encryptedData")
				holder = k
				keys = mapKeys(v)
			case kind == ref.Kind:
				for _, field := range []string{"data", "stringData", "binaryData"} {
					k, v := mapGetKey(doc, field)
					if k != nil && holder == nil {
						holder = k
					}
					keys = append(keys, mapKeys(v)...)
				}
			default:
				continue
			}
			if name != ref.Name || holder == nil {
				continue
			}
			loc := FieldLocation{File: p, Line: holder.Line, Path: holder.Value, How: LocatedManifest, Missing: key}
			for _, k := range keys {
				switch {
				case k.Value == key:
					loc = FieldLocation{File: p, Line: k.Line, Path: holder.Value, Value: k.Value, How: LocatedManifest, Exact: true}
				case similarKey(k.Value, key) && !loc.Exact:
					loc = FieldLocation{File: p, Line: k.Line, Path: holder.Value, Value: k.Value, How: LocatedManifest, Missing: key,
						Note: fmt.Sprintf("the key is named %s here, not %s", k.Value, key)}
				}
			}
			if !found || better(loc, best) || (loc.Value != "" && best.Value == "" && loc.Exact == best.Exact) {
				best, found = loc, true
			}
		}
	}
	return best, found
}

// mapKeys lists the key nodes of a mapping.
func mapKeys(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	var out []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, n.Content[i])
	}
	return out
}

// similarKey reports whether two setting names look like one renamed: the
// same letters (db.url, DB_URL) or the same last word (DB_PASSWORD,
// password).
func similarKey(a, b string) bool {
	if a == b {
		return false
	}
	sq := func(s string) string {
		return strings.NewReplacer("-", "", "_", "", ".", "").Replace(strings.ToLower(s))
	}
	last := func(s string) string {
		s = strings.ToLower(s)
		if i := strings.LastIndexAny(s, "_-."); i >= 0 {
			return s[i+1:]
		}
		return s
	}
	return sq(a) == sq(b) || (len(last(a)) >= 3 && last(a) == last(b))
}
