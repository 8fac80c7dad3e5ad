// Package scenario loads incident scenarios (see shared FORMAT.md): the
// trigger, the clock, the session config, the ground truth and the frozen
// telemetry that simulators serve. The engine never reads scenarios directly.
package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Scenario is one incident frozen in time.
type Scenario struct {
	Dir     string
	Name    string
	Summary string
	Now     time.Time
	// Start is the window's start when the investigation was given one
	// (bot investigate --since, bot capture); zero: derived from the
	// trigger, as the bot does.
	Start   time.Time
	Trigger Trigger
	Config  map[string]string
	Truth   Truth

	Traces  *Traces   // nil when traces.json is absent
	Logs    *Logs     // nil when logs.json is absent
	Metrics *Metrics  // nil when metrics.json is absent
	K8s     *K8sList  // nil when k8s.json is absent
	Changes []Commit  // nil when changes.json is absent
	Repo    *RepoTree // nil when repo/ is absent
}

// Trigger is exactly one of a mention text or an Alertmanager webhook body.
type Trigger struct {
	Mention string
	// Alert is the webhook body as JSON (template.Data plus version,
	// groupKey, truncatedAlerts).
	Alert json.RawMessage
}

// IsAlert reports whether the trigger is an alert.
func (t Trigger) IsAlert() bool { return len(t.Alert) > 0 }

// Truth is the expert's ground truth.
type Truth struct {
	// Todo, when set, says the truth still awaits a human (a captured
	// incident nobody has judged yet): the scenario runs but is not
	// scored, and the fields below may be empty or a draft.
	Todo          string   `yaml:"todo" json:"todo,omitempty"`
	Bucket        string   `yaml:"bucket" json:"bucket"`
	Service       string   `yaml:"service" json:"service"`
	ErrorType     string   `yaml:"error_type" json:"error_type"`
	File          string   `yaml:"file" json:"file,omitempty"`
	Line          int      `yaml:"line" json:"line,omitempty"`
	LineTolerance *int     `yaml:"line_tolerance" json:"line_tolerance,omitempty"`
	FixKeywords   []string `yaml:"fix_keywords" json:"fix_keywords,omitempty"`
}

// Scored reports whether the truth can score a result: it is filled in
// (a bucket) and not marked todo.
func (t Truth) Scored() bool { return t.Todo == "" && t.Bucket != "" }

// Tolerance is the accepted line distance (default 3).
func (t Truth) Tolerance() int {
	if t.LineTolerance == nil {
		return 3
	}
	return *t.LineTolerance
}

// Known enumerations of FORMAT.md.
var (
	Buckets    = []string{"code_bug", "infrastructure", "bad_data", "flake"}
	ErrorTypes = []string{"null_pointer", "runtime_error", "race_condition", "oom", "tls", "network", "timeout",
		"config", "resource_exhaustion", "data_validation", "dependency", "unknown"}
)

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// LoadError names the file and the problem.
type LoadError struct {
	File string
	Err  error
}

func (e *LoadError) Error() string { return fmt.Sprintf("%s: %v", e.File, e.Err) }
func (e *LoadError) Unwrap() error { return e.Err }

type rawScenario struct {
	Name    string         `yaml:"name"`
	Summary string         `yaml:"summary"`
	Now     string         `yaml:"now"`
	Start   string         `yaml:"start"`
	Trigger map[string]any `yaml:"trigger"`
	Config  map[string]any `yaml:"config"`
	Truth   *Truth         `yaml:"truth"`
}

// Load reads and validates the scenario in dir.
func Load(dir string) (*Scenario, error) {
	path := filepath.Join(dir, "scenario.yaml")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &LoadError{File: path, Err: err}
	}
	var raw rawScenario
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&raw); err != nil {
		return nil, &LoadError{File: path, Err: fmt.Errorf("invalid YAML: %w", err)}
	}
	s := &Scenario{Dir: dir, Name: raw.Name, Summary: strings.TrimSpace(raw.Summary), Config: map[string]string{}}
	fail := func(format string, a ...any) error {
		return &LoadError{File: path, Err: fmt.Errorf(format, a...)}
	}
	if !nameRE.MatchString(raw.Name) {
		return nil, fail("name %q must match [a-z0-9-]+", raw.Name)
	}
	if raw.Now == "" {
		return nil, fail("now is required")
	}
	if s.Now, err = time.Parse(time.RFC3339, raw.Now); err != nil {
		return nil, fail("now %q is not RFC 3339: %v", raw.Now, err)
	}
	if raw.Start != "" {
		if s.Start, err = time.Parse(time.RFC3339, raw.Start); err != nil {
			return nil, fail("start %q is not RFC 3339: %v", raw.Start, err)
		}
		if !s.Start.Before(s.Now) {
			return nil, fail("start %s must be before now %s", raw.Start, raw.Now)
		}
	}
	mention, hasMention := raw.Trigger["mention"]
	alert, hasAlert := raw.Trigger["alert"]
	switch {
	case hasMention == hasAlert:
		return nil, fail("trigger must have exactly one of mention or alert")
	case hasMention:
		text, ok := mention.(string)
		if !ok || strings.TrimSpace(text) == "" {
			return nil, fail("trigger.mention must be a non-empty string")
		}
		s.Trigger.Mention = text
	default:
		js, err := json.Marshal(jsonable(alert))
		if err != nil {
			return nil, fail("trigger.alert: %v", err)
		}
		s.Trigger.Alert = js
	}
	for k, v := range raw.Config {
		s.Config[k] = fmt.Sprint(v)
	}
	if raw.Truth != nil {
		s.Truth = *raw.Truth
		if err := s.Truth.validate(); err != nil {
			return nil, fail("truth: %v", err)
		}
	}
	if err := s.loadData(); err != nil {
		return nil, err
	}
	return s, nil
}

func (t Truth) validate() error {
	if t.Todo != "" {
		return t.validateDraft()
	}
	if !contains(Buckets, t.Bucket) {
		return fmt.Errorf("bucket %q is not one of %v", t.Bucket, Buckets)
	}
	if t.Service == "" {
		return errors.New("service is required")
	}
	if !contains(ErrorTypes, t.ErrorType) {
		return fmt.Errorf("error_type %q is not one of %v", t.ErrorType, ErrorTypes)
	}
	if t.Bucket == "code_bug" && t.File == "" {
		return errors.New("file is required when bucket is code_bug")
	}
	if t.File != "" && t.Line < 1 {
		return errors.New("line must be >= 1 when file is set")
	}
	return nil
}

// validateDraft checks the fields a truth marked todo already has.
func (t Truth) validateDraft() error {
	if t.Bucket != "" && !contains(Buckets, t.Bucket) {
		return fmt.Errorf("bucket %q is not one of %v", t.Bucket, Buckets)
	}
	if t.ErrorType != "" && !contains(ErrorTypes, t.ErrorType) {
		return fmt.Errorf("error_type %q is not one of %v", t.ErrorType, ErrorTypes)
	}
	if t.Line < 0 {
		return errors.New("line must be >= 1 when set")
	}
	return nil
}

func (s *Scenario) loadData() error {
	type target struct {
		name string
		into any
		set  func()
	}
	var (
		traces  Traces
		logs    Logs
		metrics Metrics
		k8s     K8sList
		changes []Commit
	)
	targets := []target{
		{"traces.json", &traces, func() { s.Traces = &traces }},
		{"logs.json", &logs, func() { s.Logs = &logs }},
		{"metrics.json", &metrics, func() { s.Metrics = &metrics }},
		{"k8s.json", &k8s, func() { s.K8s = &k8s }},
		{"changes.json", &changes, func() {
			s.Changes = changes
			if s.Changes == nil {
				s.Changes = []Commit{}
			}
		}},
	}
	for _, t := range targets {
		path := filepath.Join(s.Dir, t.name)
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return &LoadError{File: path, Err: err}
		}
		if err := json.Unmarshal(b, t.into); err != nil {
			return &LoadError{File: path, Err: fmt.Errorf("invalid JSON: %w", err)}
		}
		t.set()
	}
	repoDir := filepath.Join(s.Dir, "repo")
	if st, err := os.Stat(repoDir); err == nil && st.IsDir() {
		tree, err := loadRepo(repoDir)
		if err != nil {
			return &LoadError{File: repoDir, Err: err}
		}
		s.Repo = tree
	}
	return nil
}

// Discover returns the scenario directories under the given roots: a
// directory holding scenario.yaml is one scenario. The result is sorted.
func Discover(roots ...string) ([]string, error) {
	var dirs []string
	for _, root := range roots {
		st, err := os.Stat(root)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("%s: not a directory", root)
		}
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "repo" && p != root {
				return filepath.SkipDir // a scenario's source tree is never a scenario
			}
			if !d.IsDir() && d.Name() == "scenario.yaml" {
				dirs = append(dirs, filepath.Dir(p))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(dirs)
	return dirs, nil
}

// jsonable converts YAML-decoded maps (map[string]any with nested any) into
// values encoding/json accepts, keeping key order irrelevant.
func jsonable(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = jsonable(x)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[fmt.Sprint(k)] = jsonable(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = jsonable(x)
		}
		return out
	case time.Time:
		return t.Format(time.RFC3339Nano)
	default:
		return v
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
