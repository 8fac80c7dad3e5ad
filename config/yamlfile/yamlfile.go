// Package yamlfile reads the sections of the bot's config file strictly:
// every unknown or repeated key is an error, every error names the file,
// the line and the path of the value (routing.routes[2].matchers[0]), and
// all problems of a file are reported at once. The routing section
// (alerts) and the mcp_servers section (investigate/mcp) share it.
package yamlfile

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Error is one problem in the config file, with its line.
type Error struct {
	File string
	Line int
	Path string // routing.routes[2].matchers[0]
	Msg  string
}

func (e *Error) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc += ":" + strconv.Itoa(e.Line)
	}
	if e.Path != "" {
		return loc + ": " + e.Path + ": " + e.Msg
	}
	return loc + ": " + e.Msg
}

// Root parses a config file's content and returns its top-level mapping,
// nil for an empty file. sections lists the expected sections for the
// message of a file that is not a mapping ("routing:, …").
func Root(name string, data []byte, sections string) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &Error{File: name, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, &Error{File: name, Line: root.Line, Msg: "the config file must be a mapping of sections (" + sections + ")"}
	}
	return root, nil
}

// Parser collects the errors found in one file.
type Parser struct {
	File string
	errs []error
}

// Errf records an error at n's line (none when n is nil).
func (p *Parser) Errf(n *yaml.Node, path, format string, a ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	p.errs = append(p.errs, &Error{File: p.File, Line: line, Path: path, Msg: fmt.Sprintf(format, a...)})
}

// Count is the number of errors recorded so far.
func (p *Parser) Count() int { return len(p.errs) }

// Err joins every error recorded, nil when there is none.
func (p *Parser) Err() error { return errors.Join(p.errs...) }

// Fields walks a mapping, calling the handler of each known key and
// reporting unknown and repeated keys.
func (p *Parser) Fields(n *yaml.Node, path string, handlers map[string]func(k, v *yaml.Node, path string)) {
	if n.Kind != yaml.MappingNode {
		p.Errf(n, path, "must be a mapping")
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		sub := path + "." + k.Value
		h, ok := handlers[k.Value]
		if !ok {
			known := make([]string, 0, len(handlers))
			for name := range handlers {
				known = append(known, name)
			}
			sort.Strings(known)
			p.Errf(k, sub, "unknown key %q (known: %s)", k.Value, strings.Join(known, ", "))
			continue
		}
		if seen[k.Value] {
			p.Errf(k, sub, "defined twice")
			continue
		}
		seen[k.Value] = true
		h(k, v, sub)
	}
}

// Scalar returns a single value, trimmed.
func (p *Parser) Scalar(n *yaml.Node, path string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		p.Errf(n, path, "must be a single value")
		return "", false
	}
	return strings.TrimSpace(n.Value), true
}

// List returns the items of a sequence.
func (p *Parser) List(n *yaml.Node, path string) []*yaml.Node {
	if n.Kind != yaml.SequenceNode {
		p.Errf(n, path, "must be a list")
		return nil
	}
	return n.Content
}
