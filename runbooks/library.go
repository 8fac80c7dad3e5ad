package runbooks

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/autoheal/autoheal/investigate"
)

// DirEnv names the directory of the runbook library.
const DirEnv = "AUTOHEAL_RUNBOOKS_DIR"

// Library is a validated set of runbooks. It implements
// investigate.RunbookLibrary.
type Library struct {
	Dir      string
	Runbooks []*Runbook // by file name
}

var _ investigate.RunbookLibrary = (*Library)(nil)

// Load reads and validates every runbook of dir; any problem in any file
// fails the whole library (the error lists them all), so that a library
// is used as written or not at all.
func Load(dir string) (*Library, error) {
	lib, errs := Check(dir)
	if len(errs) > 0 {
		return nil, fmt.Errorf("runbooks %s: %w", dir, errors.Join(errs...))
	}
	return lib, nil
}

// Check reads every runbook of dir and returns the valid ones with the
// problems of the others (one error per problem, each naming its file and
// field). Files are the directory's *.md entries; hidden entries (a
// ConfigMap volume's ..data) and other files are skipped.
func Check(dir string) (*Library, []error) {
	lib := &Library{Dir: dir}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return lib, []error{fmt.Errorf("runbooks directory: %w", err)}
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, ".") || !strings.EqualFold(filepath.Ext(n), ".md") {
			continue
		}
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) > MaxFiles {
		return lib, []error{fmt.Errorf("runbooks directory %s: %d runbook files, more than the %d a library may hold", dir, len(names), MaxFiles)}
	}
	var errs []error
	for _, n := range names {
		data, err := readCapped(filepath.Join(dir, n))
		if err != nil {
			errs = append(errs, &FieldError{File: n, Msg: err.Error()})
			continue
		}
		rb, err := Parse(n, data)
		if err != nil {
			errs = append(errs, unjoin(err)...)
			continue
		}
		lib.Runbooks = append(lib.Runbooks, rb)
	}
	return lib, errs
}

// readCapped reads a regular file (a ConfigMap's symlink is followed) of
// at most MaxFileBytes.
func readCapped(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("more than the %d bytes a runbook may hold", MaxFileBytes)
	}
	return data, nil
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// Match implements investigate.RunbookLibrary: the runbooks whose every
// condition holds for the subject, at most MaxMatches, by file name, with
// the calls of their tools: hints.
func (l *Library) Match(s investigate.RunbookSubject) []investigate.RunbookMatch {
	if l == nil {
		return nil
	}
	var out []investigate.RunbookMatch
	for _, rb := range l.Runbooks {
		svc, ok := rb.Applies(s)
		if !ok {
			continue
		}
		out = append(out, investigate.RunbookMatch{Name: rb.File, Title: rb.Title, Guidance: rb.Body, Calls: rb.calls(s, svc)})
		if len(out) == MaxMatches {
			break
		}
	}
	return out
}

// Applies reports whether every condition of the runbook holds for the
// subject, and the service that matched (the first service the subject
// names when the runbook has no services: condition).
func (rb *Runbook) Applies(s investigate.RunbookSubject) (service string, ok bool) {
	m := rb.Match
	if len(m.Alerts) > 0 && !anyGlob(m.Alerts, s.AlertName()) {
		return "", false
	}
	for k, pat := range m.Labels {
		v, has := s.Issue.Labels[k]
		if !has || !glob(pat, v) {
			return "", false
		}
	}
	if len(m.Buckets) > 0 {
		if s.Bucket == "" || !contains(m.Buckets, string(s.Bucket)) {
			return "", false
		}
	}
	services := s.ServiceNames()
	if len(m.Services) == 0 {
		if len(services) > 0 {
			service = services[0]
		}
		return service, true
	}
	for _, svc := range services {
		for _, pat := range m.Services {
			if glob(strings.ToLower(pat), strings.ToLower(svc)) ||
				(investigate.NormalizeServiceName(pat) != "" && investigate.NormalizeServiceName(pat) == investigate.NormalizeServiceName(svc)) {
				return svc, true
			}
		}
	}
	return "", false
}

// safeValue is what a variable may be filled with: a plain name, so that
// an alert label cannot change the shape of a query.
var safeValue = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$`)

// calls builds the tool calls of the runbook's hints for the subject's
// window. A hint whose variables the incident cannot fill is left out.
func (rb *Runbook) calls(s investigate.RunbookSubject, service string) []investigate.ToolCall {
	ns := s.Issue.Namespace
	if ns == "" {
		ns = s.Issue.Labels["namespace"]
	}
	vars := map[string]string{"service": service, "namespace": ns}
	start, end := s.Issue.Start.UTC().Format(time.RFC3339), s.Issue.End.UTC().Format(time.RFC3339)
	var out []investigate.ToolCall
	for _, h := range rb.Tools {
		q, ok := fill(h.Query, vars)
		if !ok {
			continue
		}
		args := map[string]any{"query": q}
		switch h.Kind {
		case KindPromQL:
			args["start"], args["end"] = start, end
			if h.Step != "" {
				args["step"] = h.Step
			}
		case KindPromQLInstant:
			args["time"] = end
		case KindLogQL:
			args["start"], args["end"] = start, end
			if h.Limit > 0 {
				args["limit"] = h.Limit
			}
		default:
			continue // validated away; never a tool of unknown kind
		}
		out = append(out, investigate.ToolCall{Tool: toolOf[h.Kind], Args: args, Runbook: rb.File + "#" + h.Name})
	}
	return out
}

// fill replaces ${service} and ${namespace}; ok is false when a variable
// the query uses has no safe value.
func fill(q string, vars map[string]string) (string, bool) {
	ok := true
	out := varRE.ReplaceAllStringFunc(q, func(m string) string {
		v := vars[m[2:len(m)-1]]
		if !safeValue.MatchString(v) {
			ok = false
		}
		return v
	})
	return strings.TrimSpace(out), ok
}

func glob(pattern, s string) bool {
	ok, err := path.Match(pattern, s)
	return err == nil && ok
}

func anyGlob(patterns []string, s string) bool {
	if s == "" {
		return false
	}
	for _, p := range patterns {
		if glob(p, s) {
			return true
		}
	}
	return false
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
