package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"
)

// Limits bound what a capture writes. Past a limit, the items that matter
// least for a replay are left out first, and the README says what.
type Limits struct {
	// File bounds each data file (traces.json, logs.json, metrics.json,
	// k8s.json, changes.json) and repo/ as a whole.
	File int64
	// Total bounds the whole directory.
	Total int64
	// SourceFile bounds one file of repo/.
	SourceFile int64
}

// DefaultLimits: 16 MiB per file, 64 MiB in all, 1 MiB per source file.
var DefaultLimits = Limits{File: 16 << 20, Total: 64 << 20, SourceFile: 1 << 20}

// FileReport says what one file holds.
type FileReport struct {
	Name  string
	What  string // "traces", "lines", "series"…
	Kept  int
	Of    int
	Bytes int64
	// Absent: the file was not written (the backend never answered).
	Absent bool
	Notes  []string
}

// WriteOptions are what Write needs besides the data.
type WriteOptions struct {
	Scenario Meta
	Limits   Limits
	Progress Progress
	// Force writes into a directory that already holds files.
	Force bool
}

// ErrNotEmpty: the output directory holds files already.
var ErrNotEmpty = errors.New("the directory is not empty")

// Write writes the scenario directory: the data files cut to the limits,
// repo/, then scenario.yaml. The README is written by WriteReadme once
// the caller knows how the replay went.
//
// Each file is first cut to the per-file limit; when together they exceed
// the total, the total is shared fairly: files smaller than an equal share
// keep all they hold, the larger ones split the rest equally.
func Write(dir string, d *Data, o WriteOptions) ([]FileReport, error) {
	if o.Limits == (Limits{}) {
		o.Limits = DefaultLimits
	}
	if o.Progress == nil {
		o.Progress = NopProgress{}
	}
	if err := prepareDir(dir, o.Force); err != nil {
		return nil, err
	}
	yml, err := renderScenario(o.Scenario)
	if err != nil {
		return nil, err
	}
	files := dataFiles(d)
	o.Progress.Stage("writing the scenario", len(files)+2)
	defer o.Progress.Done()
	want := make([]int64, len(files)+1)
	want[0] = repoSize(d, o.Limits.File, o.Limits.SourceFile)
	for i, f := range files {
		if f.answered {
			_, b, err := fit(f.n, o.Limits.File, f.render)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.name, err)
			}
			want[i+1] = int64(len(b))
		}
	}
	alloc := share(want, o.Limits.Total-int64(len(yml))-readmeReserve)
	fr, err := writeRepo(dir, d, alloc[0], o.Limits.SourceFile)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "repo"), err)
	}
	fr.Notes = append(d.Notes[RepoDir], fr.Notes...)
	reports := []FileReport{fr}
	o.Progress.Step(1, RepoDir)
	for i, f := range files {
		fr, err := writeItems(dir, f, alloc[i+1])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, f.name), err)
		}
		fr.Notes = append(d.Notes[f.name], fr.Notes...)
		reports = append(reports, fr)
		o.Progress.Step(i+2, f.name)
	}
	if err := os.WriteFile(filepath.Join(dir, "scenario.yaml"), yml, 0o644); err != nil {
		return nil, err
	}
	o.Progress.Step(len(files)+2, "scenario.yaml")
	return reports, nil
}

// share splits budget among wants: max-min fairness (a want below an
// equal share is met, the rest is split equally among the larger ones).
func share(want []int64, budget int64) []int64 {
	out := make([]int64, len(want))
	idx := make([]int, len(want))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return want[idx[a]] < want[idx[b]] })
	left := max(budget, 0)
	for n, i := range idx {
		fair := left / int64(len(want)-n)
		out[i] = min(want[i], fair)
		left -= out[i]
	}
	return out
}

// readmeReserve is kept out of the data budget for the README.
const readmeReserve = 16 << 10

// CheckDir fails when dir holds files and force is not set: checked
// before a capture starts, so that a long capture never ends refused.
func CheckDir(dir string, force bool) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return err
	case len(entries) > 0 && !force:
		return fmt.Errorf("%s: %w (give another --out, or --force to replace a capture there)", dir, ErrNotEmpty)
	}
	return nil
}

func prepareDir(dir string, force bool) error {
	if err := CheckDir(dir, force); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return os.MkdirAll(dir, 0o755)
	case err != nil:
		return err
	case len(entries) > 0:
		// Replace a previous capture: only the files a capture writes.
		for _, n := range []string{TracesFile, LogsFile, MetricsFile, K8sFile, ChangesFile, "scenario.yaml", "README.md"} {
			if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
		return os.RemoveAll(filepath.Join(dir, "repo"))
	}
	return nil
}

// fit returns the largest k such that render(k) fits in limit bytes, and
// that rendering. Items are in priority order: a prefix is what is kept.
func fit(n int, limit int64, render func(k int) ([]byte, error)) (int, []byte, error) {
	all, err := render(n)
	if err != nil || int64(len(all)) <= limit {
		return n, all, err
	}
	lo, hi := 0, n // render(lo) fits (or lo == 0), render(hi) does not
	best, err := render(0)
	if err != nil {
		return 0, nil, err
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		b, err := render(mid)
		if err != nil {
			return 0, nil, err
		}
		if int64(len(b)) <= limit {
			lo, best = mid, b
		} else {
			hi = mid
		}
	}
	return lo, best, nil
}

// jsonLines renders items as a JSON array, one compact item per line,
// inside head and tail.
func jsonLines[T any](head string, items []T, tail string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(head)
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
		enc, err := json.Marshal(it)
		if err != nil {
			return nil, err
		}
		b.Write(enc)
	}
	b.WriteString("\n" + tail + "\n")
	return b.Bytes(), nil
}

// dataFile is one JSON file of the format: its items in priority order
// and how a prefix of them is rendered.
type dataFile struct {
	name, what, order string
	n                 int
	render            func(k int) ([]byte, error)
	// answered: the backend answered, so the file is written (empty if
	// it found nothing); otherwise the replay sees it as not configured.
	answered bool
	// after adds notes once the kept count is known.
	after func(kept int) []string
}

func dataFiles(d *Data) []dataFile {
	ts := tracesByPriority(d.Traces)
	objs := k8sPriority(d.K8s)
	raws := make([]map[string]any, len(d.Commits))
	for i, c := range d.Commits {
		raws[i] = c.Raw
	}
	return []dataFile{
		{name: ChangesFile, what: "commits", order: "newest first", n: len(raws), answered: d.Answered[GitHub],
			render: func(k int) ([]byte, error) { return jsonLines(`[`, raws[:k], `]`) },
			after: func(kept int) []string {
				brief := 0
				for _, c := range d.Commits[:kept] {
					if !c.Detailed {
						brief++
					}
				}
				if brief == 0 {
					return nil
				}
				return []string{fmt.Sprintf("%d commits were only listed by the investigation: they are kept without files or patches", brief)}
			}},
		{name: K8sFile, what: "objects", order: "objects first, then Warning events, then other events, newest first", n: len(objs), answered: d.Answered[Kubernetes],
			render: func(k int) ([]byte, error) {
				return jsonLines(`{"apiVersion": "v1", "kind": "List", "items": [`, objs[:k], `]}`)
			}},
		{name: MetricsFile, what: "series", order: "in the order the investigation read them", n: len(d.Metrics), answered: d.Answered[Prometheus],
			render: func(k int) ([]byte, error) { return jsonLines(`{"series": [`, d.Metrics[:k], `]}`) }},
		{name: TracesFile, what: "traces", order: "failing traces first, newest first", n: len(ts), answered: d.Answered[Jaeger],
			render: func(k int) ([]byte, error) { return jsonLines(`{"data": [`, ts[:k], `]}`) }},
		{name: LogsFile, what: "lines", order: "the lines the investigation read first, then the pages that completed its queries", n: len(d.Logs), answered: d.Answered[Loki],
			render: func(k int) ([]byte, error) { return jsonLines(`{"streams": [`, logStreams(d.Logs[:k]), `]}`) }},
	}
}

// writeItems writes the largest prefix of a file's items that fits.
func writeItems(dir string, f dataFile, limit int64) (FileReport, error) {
	fr := FileReport{Name: f.name, What: f.what, Of: f.n}
	if !f.answered {
		fr.Absent = true
		return fr, nil
	}
	k, b, err := fit(f.n, limit, f.render)
	if err != nil {
		return fr, err
	}
	if int64(len(b)) > limit {
		fr.Absent = true
		fr.Notes = append(fr.Notes, fmt.Sprintf("not written: even empty it does not fit in the %s left to it", HumanBytes(limit)))
		return fr, nil
	}
	if err := os.WriteFile(filepath.Join(dir, f.name), b, 0o644); err != nil {
		return fr, err
	}
	fr.Kept, fr.Bytes = k, int64(len(b))
	if k < f.n {
		fr.Notes = append(fr.Notes, fmt.Sprintf("cut to fit the size limits (%s for this file): %d of %d %s kept, %s", HumanBytes(limit), k, f.n, f.what, f.order))
	}
	if f.after != nil {
		fr.Notes = append(fr.Notes, f.after(k)...)
	}
	return fr, nil
}

// repoSize is what repo/ would hold within the per-file and file limits.
func repoSize(d *Data, limit, perFile int64) int64 {
	var n int64
	for _, f := range d.Files {
		if sz := int64(len(f.Content)); sz <= perFile && utf8.Valid(f.Content) && n+sz <= limit {
			n += sz
		}
	}
	return n
}

// writeRepo writes the source files read, within the limits; a file that
// is not text or is over the per-file limit is left out.
func writeRepo(dir string, d *Data, limit, perFile int64) (FileReport, error) {
	fr := FileReport{Name: RepoDir, What: "files", Of: len(d.Files)}
	if len(d.Files) == 0 {
		fr.Absent = true
		return fr, nil
	}
	var big, binary, over []string
	for _, f := range d.Files {
		p := path.Clean("/" + f.Path)[1:]
		switch {
		case p == "" || strings.Contains("/"+f.Path+"/", "/../"):
			continue
		case !utf8.Valid(f.Content):
			binary = append(binary, p)
			continue
		case int64(len(f.Content)) > perFile:
			big = append(big, p)
			continue
		case fr.Bytes+int64(len(f.Content)) > limit:
			over = append(over, p)
			continue
		}
		full := filepath.Join(dir, "repo", filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return fr, err
		}
		if err := os.WriteFile(full, f.Content, 0o644); err != nil {
			return fr, err
		}
		fr.Kept++
		fr.Bytes += int64(len(f.Content))
	}
	list := func(ps []string) string {
		if len(ps) > 20 {
			return fmt.Sprintf("%s and %d more", strings.Join(ps[:20], ", "), len(ps)-20)
		}
		return strings.Join(ps, ", ")
	}
	if len(big) > 0 {
		fr.Notes = append(fr.Notes, fmt.Sprintf("left out, over the %s per-file limit: %s", HumanBytes(perFile), list(big)))
	}
	if len(binary) > 0 {
		fr.Notes = append(fr.Notes, "left out, not text: "+list(binary))
	}
	if len(over) > 0 {
		fr.Notes = append(fr.Notes, fmt.Sprintf("left out at the size limit (%s): %s", HumanBytes(limit), list(over)))
	}
	if fr.Kept == 0 {
		fr.Absent = true
	}
	return fr, nil
}
