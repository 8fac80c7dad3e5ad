package capture

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/autoheal/autoheal/scenario"
)

// Meta is what scenario.yaml says besides the data.
type Meta struct {
	Name    string
	Summary string
	// Header is a comment at the top of scenario.yaml.
	Header string
	Now    time.Time
	// Start, when set, is written as the window's start (the replay would
	// not derive it from the trigger).
	Start   time.Time
	Mention string
	Alert   json.RawMessage
	Config  map[string]string
	Truth   scenario.Truth
	// TruthNote is a comment above the truth block.
	TruthNote string
}

type yamlTruth struct {
	Todo          string   `yaml:"todo,omitempty"`
	Bucket        string   `yaml:"bucket,omitempty"`
	Service       string   `yaml:"service,omitempty"`
	ErrorType     string   `yaml:"error_type,omitempty"`
	File          string   `yaml:"file,omitempty"`
	Line          int      `yaml:"line,omitempty"`
	LineTolerance *int     `yaml:"line_tolerance,omitempty"`
	FixKeywords   []string `yaml:"fix_keywords,omitempty"`
}

type yamlScenario struct {
	Name    string            `yaml:"name"`
	Summary string            `yaml:"summary"`
	Now     string            `yaml:"now"`
	Start   string            `yaml:"start,omitempty"`
	Trigger map[string]any    `yaml:"trigger"`
	Config  map[string]string `yaml:"config,omitempty"`
	Truth   yamlTruth         `yaml:"truth"`
}

// renderScenario writes scenario.yaml in the format's order, with the
// header and the truth note as comments.
func renderScenario(m Meta) ([]byte, error) {
	y := yamlScenario{Name: m.Name, Summary: m.Summary, Now: m.Now.UTC().Format(time.RFC3339Nano), Config: m.Config,
		Truth: yamlTruth{Todo: m.Truth.Todo, Bucket: m.Truth.Bucket, Service: m.Truth.Service, ErrorType: m.Truth.ErrorType,
			File: m.Truth.File, Line: m.Truth.Line, LineTolerance: m.Truth.LineTolerance, FixKeywords: m.Truth.FixKeywords}}
	if !m.Start.IsZero() {
		y.Start = m.Start.UTC().Format(time.RFC3339Nano)
	}
	switch {
	case len(m.Alert) > 0:
		var a any
		if err := json.Unmarshal(m.Alert, &a); err != nil {
			return nil, fmt.Errorf("trigger alert: %w", err)
		}
		y.Trigger = map[string]any{"alert": a}
	default:
		y.Trigger = map[string]any{"mention": m.Mention}
	}
	var doc yaml.Node
	if err := doc.Encode(y); err != nil {
		return nil, err
	}
	doc.HeadComment = m.Header
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if doc.Content[i].Value == "truth" && m.TruthNote != "" {
			doc.Content[i].HeadComment = m.TruthNote
		}
	}
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	return []byte(b.String()), enc.Close()
}

// Report is what the scenario's README says.
type Report struct {
	Name       string
	Source     string // where the incident came from
	CapturedAt time.Time
	Start, End time.Time
	// Live is the live run's root cause, one line.
	Live      string
	TruthNote string
	// TruthTodo: the truth awaits a human.
	TruthTodo bool
	Files     []FileReport
	// Missing lists backends that were not captured, with the reason.
	Missing []string
	Limits  Limits
	// Replay says how the captured scenario replayed (empty: not checked).
	Replay string
}

// WriteReadme writes README.md: where the capture comes from, what each
// file holds and what was cut or is missing, and what is left to a human.
func WriteReadme(dir string, r Report) error {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("# %s\n\n", r.Name)
	p("Captured by `bot capture` on %s from %s.\n", r.CapturedAt.UTC().Format(time.RFC3339), r.Source)
	p("Window: %s to %s (the scenario's `now`).\n\n", r.Start.UTC().Format(time.RFC3339), r.End.UTC().Format(time.RFC3339Nano))
	p("## Live result\n\n%s\n\n", r.Live)
	p("## Truth\n\n%s\n\n", r.TruthNote)
	if r.TruthTodo {
		p("Before adding this scenario to a set: write the truth block of `scenario.yaml` (bucket, service, error_type, and file and line for a code bug), remove its `todo:` line, then `bot eval` this directory. Until then `bot eval` runs it without scoring it (`no truth` in the table).\n\n")
	} else {
		p("Check it against what happened before adding this scenario to a set (an approved fix is not always the whole story), then `bot eval` this directory.\n\n")
	}
	p("## Files\n\n| file | holds | size | notes |\n|---|---|---|---|\n")
	for _, f := range r.Files {
		holds := fmt.Sprintf("%d %s", f.Kept, f.What)
		if f.Absent {
			holds = "not written"
		} else if f.Kept < f.Of {
			holds = fmt.Sprintf("%d of %d %s", f.Kept, f.Of, f.What)
		}
		notes := strings.Join(f.Notes, "; ")
		if notes == "" {
			notes = "-"
		}
		p("| `%s` | %s | %s | %s |\n", f.Name, holds, HumanBytes(f.Bytes), strings.ReplaceAll(notes, "|", "\\|"))
	}
	p("\n")
	if len(r.Missing) > 0 {
		p("## Not captured\n\nThe replay sees these backends as not configured:\n\n")
		for _, m := range r.Missing {
			p("- %s\n", m)
		}
		p("\n")
	}
	l := r.Limits
	p("## Size limits\n\nEach data file and `repo/` at most %s, one source file at most %s, the directory at most %s. Past a limit, what matters least for a replay is left out first: healthy traces before failing ones and older before newer; log lines that only completed a query before the lines the investigation read; events before other objects; older commits before newer; source files past the limit whole.\n\n",
		HumanBytes(l.File), HumanBytes(l.SourceFile), HumanBytes(l.Total))
	if r.Replay != "" {
		p("## Replay check\n\n%s\n\n", r.Replay)
	}
	p("## Redaction\n\nEverything here passed through AutoHeal's redaction (`redact/`): the session's secrets, credential-shaped strings (tokens, keys, passwords in URLs, private keys) and the values of secret-named keys and tags are `[REDACTED]`; Secrets keep only their names and key names. Source files and patches are masked line by line, so line numbers are unchanged. Review the files before sharing them outside the team: names, hosts and customer data in log lines are kept.\n")
	return os.WriteFile(filepath.Join(dir, "README.md"), []byte(b.String()), 0o644)
}
