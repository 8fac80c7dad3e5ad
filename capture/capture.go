// Package capture turns one live investigation into a scenario directory
// in the shared format (shared/scenarios/FORMAT.md), so that a team can
// keep its real incidents as regression tests of the bot.
//
// It records rather than re-queries: `bot capture` runs the investigation
// again over the incident's window with a Recorder in its context
// (investigate/tap), so every answer the capabilities fetched — Jaeger
// traces, Loki lines, Prometheus series, Kubernetes objects through MCP,
// commits and source files from GitHub — is what the scenario holds, and
// the engine replaying the scenario asks the same questions and gets the
// same answers. Two kinds of answers cannot be replayed from what was
// seen, so they are completed through the same capabilities: a log query
// that hit its limit saw a sample of its lines (the replay would count
// only that sample), so its remaining lines are paged in; a PromQL
// expression other than a bare selector (rate(…), ratios) was computed
// from raw samples its answer does not hold, so those are read raw.
//
// Collect builds the data from the recording; Write redacts it through
// redact/, cuts it to documented size limits (saying what was cut in the
// scenario's README) and writes the files.
package capture

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/autoheal/autoheal/redact"
	"github.com/autoheal/autoheal/scenario"
)

// Querier runs one more tool call through the investigation's
// capabilities (its answer reaches the Recorder like the others).
type Querier func(ctx context.Context, tool string, args map[string]any) error

// Options configure Collect.
type Options struct {
	Recorder *Recorder
	// Query completes what was seen (log pages, raw samples); nil leaves
	// it as seen, and the README says so.
	Query Querier
	// Repo is the repository (owner/name) whose answers are the source
	// and the changes.
	Repo string
	// End is the window's end (the scenario's now): pod logs are placed
	// before it.
	End      time.Time
	Limits   Limits
	Progress Progress
	// Redactor masks what is written (default redact.Default, where the
	// session's secrets are registered).
	Redactor *redact.Redactor
}

// Data is what a capture holds, redacted, before the size limits.
type Data struct {
	Traces  []scenario.Trace
	Logs    []logEntry
	Metrics []scenario.Series
	K8s     []map[string]any
	Commits []commit
	Files   []repoFile
	// Ref is the ref the source files were read at.
	Ref string
	// Answered says which backends answered at least once: a file is
	// written for those only (an empty one when they found nothing), so
	// that the replay sees the others as not configured, as they were.
	Answered map[Backend]bool
	// Notes say, per file, what could not be kept as seen.
	Notes map[string][]string
}

// File names of the format.
const (
	TracesFile  = "traces.json"
	LogsFile    = "logs.json"
	MetricsFile = "metrics.json"
	K8sFile     = "k8s.json"
	ChangesFile = "changes.json"
	RepoDir     = "repo/"
)

// Follow-up bounds: pages read to complete one log query (5,000 lines
// each, Loki's usual max_entries_limit_per_query) and raw metric reads.
const (
	maxLogPages   = 200
	logPageLimit  = 5000
	maxRawQueries = 200
)

// Collect builds the capture's data from what the Recorder holds,
// completing it through o.Query.
func Collect(ctx context.Context, o Options) (*Data, error) {
	if o.Recorder == nil {
		return nil, fmt.Errorf("capture: no recorder")
	}
	if o.Redactor == nil {
		o.Redactor = redact.Default
	}
	if o.Progress == nil {
		o.Progress = NopProgress{}
	}
	if o.Limits == (Limits{}) {
		o.Limits = DefaultLimits
	}
	rec := o.Recorder
	d := &Data{Answered: map[Backend]bool{}, Notes: map[string][]string{}}
	note := func(file string, ns ...string) { d.Notes[file] = append(d.Notes[file], ns...) }
	for _, b := range []Backend{Jaeger, Loki, Prometheus, GitHub} {
		d.Answered[b] = len(rec.HTTPFrom(b, 0)) > 0
	}
	d.Answered[Kubernetes] = len(rec.ToolsOf("kubernetes")) > 0

	var ns []string
	d.Traces, ns = traces(rec.HTTPFrom(Jaeger, 0))
	note(TracesFile, ns...)

	logs := newLogSet()
	queries := logs.addLokiAnswers(rec.HTTPFrom(Loki, 0))
	note(LogsFile, completeLogs(ctx, o, logs, queries)...)

	set, raws, ns := metricsPlan(rec.HTTPFrom(Prometheus, 0))
	note(MetricsFile, ns...)
	note(MetricsFile, readRaw(ctx, o, set, raws)...)
	d.Metrics = set.series()

	objs, podLogs, ns := k8sObjects(rec.ToolsOf("kubernetes"))
	note(K8sFile, ns...)
	d.K8s = objs
	if _, ns := podLogEntries(podLogs, objs, logs, o.End); len(ns) > 0 {
		note(LogsFile, ns...)
	}
	d.Logs = logs.entries
	if len(podLogs) > 0 {
		d.Answered[Loki] = true // the Kubernetes simulator serves pod logs from logs.json
	}

	d.Commits, d.Files, d.Ref, ns = github(rec.HTTPFrom(GitHub, 0), o.Repo)
	note(ChangesFile, ns...)

	if others := otherServers(rec); len(others) > 0 {
		note(K8sFile, fmt.Sprintf("answers of other MCP servers (%v) have no place in the scenario format and were not kept", others))
	}
	mask(o.Redactor, d)
	return d, nil
}

// completeLogs pages in the rest of every log query that hit its limit.
func completeLogs(ctx context.Context, o Options, logs *logSet, queries []lokiQuery) []string {
	var full []lokiQuery
	seen := map[string]bool{}
	for _, q := range queries {
		k := q.Query + "@" + strconv.FormatInt(q.Start, 10) + "-" + strconv.FormatInt(q.End, 10)
		if q.Full() && !seen[k] {
			seen[k] = true
			full = append(full, q)
		}
	}
	if len(full) == 0 {
		return nil
	}
	if o.Query == nil {
		return []string{fmt.Sprintf("%d log queries hit their limit: only the lines the investigation read are kept, so the replay counts fewer lines than there were", len(full))}
	}
	var notes []string
	o.Progress.Stage("completing log queries that hit their limit", len(full))
	defer o.Progress.Done()
	budget := o.Limits.File
	for i, q := range full {
		end := q.Oldest + 1
		for page := 0; ; page++ {
			if logs.bytes > budget {
				return append(notes, fmt.Sprintf("log completion stopped at the size limit (%s): %d of %d queries that hit their limit were completed", HumanBytes(budget), i, len(full)))
			}
			if page == maxLogPages {
				notes = append(notes, fmt.Sprintf("%s: stopped after %d pages", q.Query, maxLogPages))
				break
			}
			mark, _ := o.Recorder.Answers()
			err := o.Query(ctx, "logs_query", map[string]any{"query": q.Query, "start": strconv.FormatInt(q.Start, 10),
				"end": strconv.FormatInt(end, 10), "limit": logPageLimit})
			if err != nil {
				notes = append(notes, fmt.Sprintf("%s: completing it failed (%v); the lines read so far are kept", q.Query, err))
				break
			}
			before := len(logs.entries)
			got := logs.addLokiAnswers(o.Recorder.HTTPFrom(Loki, mark))
			if len(got) == 0 || got[0].Lines < logPageLimit || len(logs.entries) == before || got[0].Oldest >= end {
				break
			}
			end = got[0].Oldest + 1
		}
		o.Progress.Step(i+1, fmt.Sprintf("%d lines", len(logs.entries)))
	}
	return notes
}

// readRaw reads the raw samples behind expressions that were not bare
// selectors.
func readRaw(ctx context.Context, o Options, set *seriesSet, raws []rawQuery) []string {
	if len(raws) == 0 {
		return nil
	}
	if o.Query == nil {
		return []string{fmt.Sprintf("%d PromQL expressions were computed from raw samples that were not read: the replay answers them from the stepped samples kept", len(raws))}
	}
	var notes []string
	if len(raws) > maxRawQueries {
		notes = append(notes, fmt.Sprintf("%d raw reads needed, the first %d done", len(raws), maxRawQueries))
		raws = raws[:maxRawQueries]
	}
	o.Progress.Stage("reading the raw samples behind computed metrics", len(raws))
	defer o.Progress.Done()
	failed := 0
	for i, rq := range raws {
		mark, _ := o.Recorder.Answers()
		if err := o.Query(ctx, "metrics_query", map[string]any{"query": rq.Query, "time": rq.At.UTC().Format(time.RFC3339Nano)}); err != nil {
			failed++
			continue
		}
		for _, a := range o.Recorder.HTTPFrom(Prometheus, mark) {
			if _, err := set.addAnswer(a.Body); err != nil {
				failed++
			}
		}
		o.Progress.Step(i+1, fmt.Sprintf("%d series", len(set.order)))
	}
	if failed > 0 {
		notes = append(notes, fmt.Sprintf("%d raw metric reads failed; their expressions replay from the samples kept", failed))
	}
	return notes
}

func otherServers(rec *Recorder) []string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	seen := map[string]bool{}
	var out []string
	for _, t := range rec.tools {
		if t.Server != "kubernetes" && !seen[t.Server] {
			seen[t.Server] = true
			out = append(out, t.Server)
		}
	}
	return out
}

// mask redacts everything the capture holds, in place.
func mask(r *redact.Redactor, d *Data) {
	maskTraces(r, d.Traces)
	for i := range d.Logs {
		e := &d.Logs[i]
		e.labels = maskLabels(r, e.labels)
		e.key = labelKey(e.labels)
		e.line = maskLines(r, e.line)
	}
	for i := range d.Metrics {
		d.Metrics[i].Metric = maskLabels(r, d.Metrics[i].Metric)
	}
	for i, o := range d.K8s {
		if m := mapOf(o, "metadata"); m != nil {
			delete(m, "managedFields") // bulky bookkeeping no analysis reads
		}
		d.K8s[i], _ = r.Value(o).(map[string]any)
	}
	for i := range d.Commits {
		d.Commits[i].Raw = maskCommit(r, d.Commits[i].Raw)
	}
	for i := range d.Files {
		d.Files[i].Content = []byte(maskLines(r, string(d.Files[i].Content)))
	}
}
