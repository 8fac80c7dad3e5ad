// Package runbooks is AutoHeal's editable runbook library: markdown files
// in a directory (AUTOHEAL_RUNBOOKS_DIR), each with YAML front matter that
// says when it applies (alert names, labels, services, buckets) and which
// read-only queries are worth running then (tools:), and a body of
// investigation steps and known fixes for the model and the reader.
//
// A file is validated as a whole; every problem is reported with the file
// and the field at fault. Only query kinds this package knows become tool
// calls, and every one is read-only (PromQL and LogQL queries).
package runbooks

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/prometheus/prometheus/promql/parser"
	"gopkg.in/yaml.v3"

	"github.com/autoheal/autoheal/investigate"
)

// Limits on a library: a directory mounted from a ConfigMap is written by
// people, and everything in it reaches every investigation.
const (
	MaxFiles      = 100      // runbook files in a directory
	MaxFileBytes  = 32 << 10 // one file, front matter and body
	MaxTools      = 5        // tools: hints of one runbook
	MaxQueryChars = 2000     // one hint's query
	MaxPatterns   = 50       // patterns of one match: field (alerts, services, labels)
	MaxMatches    = 3        // runbooks applied to one incident
)

// Tool hint kinds: each maps onto one read-only query tool.
const (
	KindPromQL        = "promql"         // PromQL range query over the investigation's window
	KindPromQLInstant = "promql_instant" // PromQL instant query at the window's end
	KindLogQL         = "logql"          // LogQL log query over the window
)

// toolOf is the capability tool each hint kind runs.
var toolOf = map[string]string{
	KindPromQL:        "metrics_query_range",
	KindPromQLInstant: "metrics_query",
	KindLogQL:         "logs_query",
}

var kinds = []string{KindPromQL, KindPromQLInstant, KindLogQL}

// Runbook is one validated runbook file.
type Runbook struct {
	// File is the file name (payments-timeouts.md): how results name it.
	File        string
	Title       string
	Description string
	Match       Match
	Tools       []Hint
	// Body is the markdown after the front matter.
	Body string
}

// Match says when a runbook applies. Every field given must match (alert
// name and labels and service and bucket); within a field, any entry
// does. Names are exact or shell-like globs (payments-*).
type Match struct {
	Alerts   []string          `yaml:"alerts"`
	Labels   map[string]string `yaml:"labels"`
	Services []string          `yaml:"services"`
	Buckets  []string          `yaml:"buckets"`
}

// Hint is one read-only query a runbook asks for when it applies.
type Hint struct {
	Name        string `yaml:"name"`
	Kind        string `yaml:"kind"`
	Query       string `yaml:"query"`
	Description string `yaml:"description"`
	// Step is a PromQL range query's resolution (30s, 1m); optional.
	Step string `yaml:"step"`
	// Limit caps a LogQL query's lines; optional.
	Limit int `yaml:"limit"`
}

type frontMatter struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Match       Match  `yaml:"match"`
	Tools       []Hint `yaml:"tools"`
}

// FieldError is one problem of a runbook file, naming the field at fault.
type FieldError struct {
	File  string
	Field string // match.buckets[0], tools[1].kind; empty for the file as a whole
	Msg   string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.File + ": " + e.Msg
	}
	return e.File + ": " + e.Field + ": " + e.Msg
}

var (
	hintNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]{0,62}$`)
	varRE      = regexp.MustCompile(`\$\{([^}]*)\}`)
	// Variables a query may use; the engine fills them from the incident.
	variables = map[string]bool{"service": true, "namespace": true}
)

// Parse reads and validates one runbook file; its error lists every
// problem found (errors.Join of *FieldError).
func Parse(file string, data []byte) (*Runbook, error) {
	fail := func(field, format string, a ...any) error {
		return &FieldError{File: file, Field: field, Msg: fmt.Sprintf(format, a...)}
	}
	if len(data) > MaxFileBytes {
		return nil, fail("", "%d bytes, more than the %d a runbook may hold", len(data), MaxFileBytes)
	}
	if !utf8.Valid(data) {
		return nil, fail("", "not UTF-8 text")
	}
	text := strings.ReplaceAll(string(bytes.TrimPrefix(data, []byte("\uFEFF"))), "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return nil, fail("", "no front matter: the file must start with a line --- , then YAML (match:, tools:), then a line ---")
	}
	rest := text[len("---\n"):]
	end := strings.Index("\n"+rest, "\n---\n")
	if end < 0 && strings.HasSuffix("\n"+rest, "\n---") {
		end = len(rest) - len("---")
	}
	if end < 0 {
		return nil, fail("", "front matter is not closed: add a line --- after its YAML")
	}
	head, body := rest[:end], ""
	if after := end + len("---\n"); after <= len(rest) {
		body = rest[after:]
	}
	var fm frontMatter
	dec := yaml.NewDecoder(strings.NewReader(head))
	dec.KnownFields(true)
	if err := dec.Decode(&fm); err != nil && !errors.Is(err, io.EOF) { // io.EOF: only comments
		return nil, fail("front matter", "%s", yamlMessage(err))
	}
	rb := &Runbook{File: file, Title: strings.TrimSpace(fm.Name), Description: strings.TrimSpace(fm.Description), Match: fm.Match,
		Tools: fm.Tools, Body: strings.TrimSpace(body)}
	var errs []error
	add := func(field, format string, a ...any) { errs = append(errs, fail(field, format, a...)) }

	m := fm.Match
	if len(m.Alerts)+len(m.Labels)+len(m.Services)+len(m.Buckets) == 0 {
		add("match", "say when the runbook applies: at least one of alerts, labels, services, buckets")
	}
	patterns := func(field string, xs []string) {
		if len(xs) > MaxPatterns {
			add(field, "%d entries, more than %d", len(xs), MaxPatterns)
		}
		for i, x := range xs {
			f := fmt.Sprintf("%s[%d]", field, i)
			switch {
			case strings.TrimSpace(x) == "":
				add(f, "empty")
			case len(x) > 200:
				add(f, "longer than 200 characters")
			default:
				if _, err := path.Match(x, ""); err != nil {
					add(f, "bad pattern %q: %v", x, err)
				}
			}
		}
	}
	patterns("match.alerts", m.Alerts)
	patterns("match.services", m.Services)
	if len(m.Labels) > MaxPatterns {
		add("match.labels", "%d labels, more than %d", len(m.Labels), MaxPatterns)
	}
	for _, k := range sortedKeys(m.Labels) {
		f := "match.labels." + k
		if _, err := path.Match(m.Labels[k], ""); err != nil {
			add(f, "bad pattern %q: %v", m.Labels[k], err)
		}
		if strings.TrimSpace(k) == "" {
			add("match.labels", "empty label name")
		}
	}
	for i, b := range m.Buckets {
		if !validBucket(b) {
			add(fmt.Sprintf("match.buckets[%d]", i), "unknown bucket %q (want code_bug, infrastructure, bad_data or flake)", b)
		}
	}

	if len(fm.Tools) > MaxTools {
		add("tools", "%d hints, more than %d", len(fm.Tools), MaxTools)
	}
	names := map[string]bool{}
	for i, h := range fm.Tools {
		f := fmt.Sprintf("tools[%d]", i)
		switch {
		case h.Name == "":
			add(f+".name", "missing: name the query (p99-latency)")
		case !hintNameRE.MatchString(h.Name):
			add(f+".name", "%q: use lower-case letters, digits, '.', '_' and '-' (at most 63)", h.Name)
		case names[h.Name]:
			add(f+".name", "%q is used by another hint of this runbook", h.Name)
		}
		names[h.Name] = true
		if _, ok := toolOf[h.Kind]; !ok {
			if h.Kind == "" {
				add(f+".kind", "missing (want %s)", strings.Join(kinds, ", "))
			} else {
				add(f+".kind", "unknown kind %q: runbooks may run only read-only queries of kind %s", h.Kind, strings.Join(kinds, ", "))
			}
		}
		for _, msg := range checkQuery(h) {
			add(f+".query", "%s", msg)
		}
		if h.Step != "" {
			if h.Kind != KindPromQL {
				add(f+".step", "only a promql range query takes a step")
			} else if d, err := time.ParseDuration(h.Step); err != nil || d <= 0 {
				add(f+".step", "%q is not a duration like 30s or 1m", h.Step)
			}
		}
		if h.Limit != 0 && (h.Kind != KindLogQL || h.Limit < 0 || h.Limit > 5000) {
			add(f+".limit", "only a logql query takes a limit, from 1 to 5000")
		}
	}
	if rb.Body == "" {
		add("body", "empty: write the investigation steps and known fixes after the front matter")
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return rb, nil
}

// checkQuery validates a hint's query for its kind.
func checkQuery(h Hint) []string {
	q := strings.TrimSpace(h.Query)
	if q == "" {
		return []string{"missing"}
	}
	var out []string
	if len(h.Query) > MaxQueryChars {
		out = append(out, fmt.Sprintf("%d characters, more than %d", len(h.Query), MaxQueryChars))
	}
	for _, v := range varRE.FindAllStringSubmatch(q, -1) {
		if !variables[v[1]] {
			out = append(out, fmt.Sprintf("unknown variable ${%s} (want ${service} or ${namespace})", v[1]))
		}
	}
	probe := varRE.ReplaceAllString(q, "x") // the values the engine fills in are plain names
	switch h.Kind {
	case KindPromQL, KindPromQLInstant:
		if _, err := parser.NewParser(parser.Options{}).ParseExpr(probe); err != nil {
			out = append(out, "not valid PromQL: "+oneLine(err.Error()))
		}
	case KindLogQL:
		if !strings.HasPrefix(probe, "{") || !strings.Contains(probe, "}") {
			out = append(out, "a LogQL log query starts with a stream selector, e.g. {service_name=\"payments\"} |= \"timeout\"")
		}
	}
	return out
}

func validBucket(b string) bool {
	switch investigate.Bucket(b) {
	case investigate.BucketCodeBug, investigate.BucketInfrastructure, investigate.BucketBadData, investigate.BucketFlake:
		return true
	}
	return false
}

var (
	yamlFieldRE = regexp.MustCompile(`line (\d+): field (\S+) not found in type runbooks\.(\w+)`)
	yamlLineRE  = regexp.MustCompile(`line (\d+):`)
)

// knownFields names each section's fields for unknown-field errors.
var knownFields = map[string]string{
	"frontMatter": "name, description, match, tools",
	"Match":       "alerts, labels, services, buckets",
	"Hint":        "name, kind, query, description, step, limit",
}

// yamlMessage rewrites a YAML error for people: file lines (the front
// matter starts on line 2) and the fields a section knows.
func yamlMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:\n")
	msg = yamlFieldRE.ReplaceAllStringFunc(msg, func(s string) string {
		m := yamlFieldRE.FindStringSubmatch(s)
		return fmt.Sprintf("line %s: unknown field %q (known here: %s)", m[1], m[2], knownFields[m[3]])
	})
	msg = yamlLineRE.ReplaceAllStringFunc(msg, func(s string) string {
		var n int
		_, _ = fmt.Sscanf(s, "line %d:", &n)
		return fmt.Sprintf("line %d:", n+1)
	})
	return oneLine(msg)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
