package scenario

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// Traces is the body of Jaeger's GET /api/traces.
type Traces struct {
	Data []Trace `json:"data"`
}

// Trace is one Jaeger trace (JSON model of the v1 query API).
type Trace struct {
	TraceID   string             `json:"traceID"`
	Spans     []Span             `json:"spans"`
	Processes map[string]Process `json:"processes"`
	Warnings  []string           `json:"warnings"`
}

// Span is one Jaeger span.
type Span struct {
	TraceID       string      `json:"traceID"`
	SpanID        string      `json:"spanID"`
	Flags         int         `json:"flags,omitempty"`
	OperationName string      `json:"operationName"`
	References    []Reference `json:"references"`
	StartTime     int64       `json:"startTime"` // microseconds since the epoch
	Duration      int64       `json:"duration"`  // microseconds
	Tags          []KeyValue  `json:"tags"`
	Logs          []SpanLog   `json:"logs"`
	ProcessID     string      `json:"processID"`
	Warnings      []string    `json:"warnings"`
}

// Reference links spans.
type Reference struct {
	RefType string `json:"refType"`
	TraceID string `json:"traceID"`
	SpanID  string `json:"spanID"`
}

// KeyValue is a Jaeger tag; Value keeps its JSON type (string, number, bool).
type KeyValue struct {
	Key   string `json:"key"`
	Type  string `json:"type"`
	Value any    `json:"value"`
}

// SpanLog is a span event.
type SpanLog struct {
	Timestamp int64      `json:"timestamp"`
	Fields    []KeyValue `json:"fields"`
}

// Process is the emitting service.
type Process struct {
	ServiceName string     `json:"serviceName"`
	Tags        []KeyValue `json:"tags"`
}

// Logs is the body of Loki's POST /loki/api/v1/push.
type Logs struct {
	Streams []LogStream `json:"streams"`
}

// LogStream is a labelled stream of [nanosecond-timestamp, line] pairs.
type LogStream struct {
	Stream map[string]string `json:"stream"`
	Values [][]string        `json:"values"`
}

// Metrics holds raw samples in the shape of a Prometheus matrix result.
type Metrics struct {
	Series []Series `json:"series"`
}

// Series is one labelled series; values are [unix seconds, "value"].
type Series struct {
	Metric map[string]string `json:"metric"`
	Values [][2]any          `json:"values"`
}

// K8sList is a Kubernetes v1 List; items stay raw so any kind passes through.
type K8sList struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Items      []json.RawMessage `json:"items"`
}

// Commit is a commit in the shape of GitHub's GET /repos/{o}/{r}/commits/{sha}.
// Raw keeps the whole object so simulators can serve every field.
type Commit struct {
	SHA    string `json:"sha"`
	Commit struct {
		Message string `json:"message"`
		Author  struct {
			Name  string `json:"name"`
			Email string `json:"email,omitempty"`
			Date  string `json:"date"`
		} `json:"author"`
	} `json:"commit"`
	Files []CommitFile    `json:"files"`
	Raw   json.RawMessage `json:"-"`
}

// CommitFile is one file of a commit.
type CommitFile struct {
	Filename string `json:"filename"`
	Status   string `json:"status"`
	Patch    string `json:"patch,omitempty"`
}

// UnmarshalJSON keeps the raw object next to the typed fields.
func (c *Commit) UnmarshalJSON(b []byte) error {
	type plain Commit
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*c = Commit(p)
	c.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// RepoTree is the repository at the deployed revision: repo-relative
// slash-separated paths to contents.
type RepoTree struct {
	Files map[string][]byte
}

// Paths returns the sorted file paths.
func (r *RepoTree) Paths() []string {
	out := make([]string, 0, len(r.Files))
	for p := range r.Files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// maxRepoFile bounds what a scenario may hold per file (scenarios are small).
const maxRepoFile = 4 << 20

func loadRepo(dir string) (*RepoTree, error) {
	tree := &RepoTree{Files: map[string][]byte{}}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.Size() > maxRepoFile {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		tree.Files[filepath.ToSlash(rel)] = b
		return nil
	})
	return tree, err
}
