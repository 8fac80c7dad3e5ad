package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"github.com/autoheal/autoheal/capture"
	"github.com/autoheal/autoheal/config"
	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/tap"
	"github.com/autoheal/autoheal/redact"
	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sessions"
)

// runCapture is `bot capture`: a live incident (a kept investigation, or
// a window on the command line) written as a scenario directory.
func runCapture(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("capture", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "directory to write (default ./NAME)")
	name := fs.String("name", "", "scenario name, [a-z0-9-] (default capture-SERVICE-YYYYMMDD-HHMM)")
	force := fs.Bool("force", false, "replace a capture in a directory that is not empty")
	since := fs.String("since", "", "without KEY: window start, RFC 3339 or a duration before the end (2h)")
	until := fs.String("until", "", "without KEY: window end, RFC 3339 or a duration before now (default now)")
	service := fs.String("service", "", "without KEY: the service the incident is about (env AUTOHEAL_SERVICE)")
	text := fs.String("text", "", "without KEY: what the on-call engineer said (default \"SERVICE errors\")")
	repo := fs.String("repo", "", "GitHub repository owner/name (env AUTOHEAL_REPO)")
	ref := fs.String("ref", "", "git ref deployed (env AUTOHEAL_REF)")
	namespace := fs.String("namespace", "", "Kubernetes namespace (env AUTOHEAL_NAMESPACE)")
	deadline := fs.Duration("deadline", 60*time.Second, "bound of the recorded investigation (and of the replay check)")
	maxFile := fs.String("max-file", "16MiB", "largest data file (traces.json, logs.json, …) and repo/ as a whole")
	maxTotal := fs.String("max-total", "64MiB", "largest capture, all files together")
	noVerify := fs.Bool("no-verify", false, "do not replay the capture through the simulators to compare its root cause with the live run's")
	level := addLogLevelFlag(fs, "warn")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: bot capture [flags] KEY
       bot capture [flags] --since T [--until T] --service S [--text TEXT]

Writes a live incident as a scenario directory (shared scenario format) for
bot eval: KEY is a Slack investigation's job id, an incident's issue key or
its thread (CHANNEL/THREAD_TS, as bot history prints it), read from serve's
Redis (REDIS_URL, AUTOHEAL_REDIS_PREFIX); or give a window. The backends are
those of the environment, as for bot investigate.`)
		fs.PrintDefaults()
	}
	// Flags may follow the KEY (bot capture KEY --out DIR).
	var positional []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		positional, rest = append(positional, fs.Arg(0)), fs.Args()[1:]
	}
	if err := setCLILogger(stderr, *level); err != nil {
		return err
	}
	if len(positional) > 1 {
		return fmt.Errorf("%w: one KEY at most, got %q", errUsage, positional)
	}
	limits := capture.DefaultLimits
	var err error
	if limits.File, err = parseSize("--max-file", *maxFile); err != nil {
		return err
	}
	if limits.Total, err = parseSize("--max-total", *maxTotal); err != nil {
		return err
	}
	key := ""
	if len(positional) == 1 {
		key = strings.TrimSpace(positional[0])
	}
	window := *since != "" || *until != "" || *service != "" || *text != ""

	// What to capture: a kept investigation, or a window.
	var (
		src  captureSource
		live *investigate.HealResult
		cfg  = envConfig()
	)
	switch {
	case key != "" && window:
		return fmt.Errorf("%w: give a KEY or a window (--since/--until/--service/--text), not both", errUsage)
	case key != "":
		if src, live, err = keptSource(ctx, key); err != nil {
			return err
		}
		setGiven(cfg, map[string]string{"repo": src.issue.Repo, "ref": src.issue.Ref, "namespace": src.issue.Namespace,
			"service_name": src.issue.Service, "log_service_label": src.issue.LogServiceLabel})
	case *since == "":
		return fmt.Errorf("%w: give a KEY (job id, issue key or thread) or a window with --since (and --service or --text)", errUsage)
	default:
		if src, err = windowSource(*since, *until, *service, *text, cfg["service_name"]); err != nil {
			return err
		}
	}
	setGiven(cfg, map[string]string{"repo": *repo, "ref": *ref, "service_name": *service, "namespace": *namespace})
	issue := issueFromConfig(src.issue, cfg)
	if *name != "" && !scenarioNameRE.MatchString(*name) {
		return fmt.Errorf("%w: --name %q must match [a-z0-9][a-z0-9-]*", errUsage, *name)
	}
	if *out != "" {
		if err := capture.CheckDir(*out, *force); err != nil {
			return err
		}
	}

	// Record one investigation over the incident's window.
	e, done, err := backendsEngine(ctx, cfg, *deadline, nil, nil)
	if err != nil {
		return err
	}
	defer done()
	prog := capture.NewProgress(stderr, isTerminal(stderr))
	rec := capture.NewRecorder(func(n int, b int64) { prog.Step(n, fmt.Sprintf("%d answers, %s", n, capture.HumanBytes(b))) })
	rctx := tap.With(ctx, rec)
	prog.Stage("recording the investigation", 0)
	res, err := e.Investigate(rctx, issue)
	prog.Done()
	if err != nil {
		return fmt.Errorf("investigating the incident again to record it: %w", err)
	}
	led := &investigate.Ledger{}
	if live != nil {
		// What the live run read beyond this run (its model's calls).
		if calls := callsNotMade(live.Timeline, res.Timeline); len(calls) > 0 {
			prog.Stage("reading again what the live run read", len(calls))
			for i, c := range calls {
				e.Call(rctx, led, "capture", c)
				prog.Step(i+1, c.Tool)
			}
			prog.Done()
		}
	}
	query := func(ctx context.Context, tool string, args map[string]any) error {
		if r := e.Call(ctx, led, "capture", investigate.ToolCall{Tool: tool, Args: args}); !r.OK {
			return errors.New(r.Error)
		}
		return nil
	}
	data, err := capture.Collect(rctx, capture.Options{Recorder: rec, Query: query, Repo: cfg["repo"], End: issue.End,
		Limits: limits, Progress: prog})
	if err != nil {
		return err
	}
	if live == nil {
		live = res
	}
	if *name == "" {
		*name = defaultCaptureName(issue, live)
	}
	dir := *out
	if dir == "" {
		dir = *name
	}
	missing := missingBackends(data, res)
	for _, m := range missing {
		fmt.Fprintf(stderr, "capture: not captured: %s\n", m)
	}
	truth, truthNote := truthOf(src, live)
	meta := capture.Meta{Name: *name, Now: issue.End, Config: scenarioConfig(cfg, data.Ref), Truth: truth, TruthNote: truthNote,
		Summary: redact.String(fmt.Sprintf("Captured from %s. The live run found: %s", src.describe, live.Summary)),
		Header:  fmt.Sprintf("Captured by `bot capture` from %s on %s.\nSee README.md for what was kept, cut or left out.", src.describe, time.Now().UTC().Format(time.RFC3339))}
	meta.Start = explicitStart(issue)
	if issue.Trigger == investigate.TriggerAlert && len(issue.Labels) > 0 {
		if meta.Alert, err = alertBody(issue); err != nil {
			return err
		}
	} else {
		meta.Mention = redact.String(issue.Text)
	}
	files, err := capture.Write(dir, data, capture.WriteOptions{Scenario: meta, Limits: limits, Progress: prog, Force: *force})
	if err != nil {
		return err
	}
	if _, err := scenario.Load(dir); err != nil {
		return fmt.Errorf("the capture does not load as a scenario: %w", err)
	}
	report := capture.Report{Name: *name, Source: src.describe, CapturedAt: time.Now(), Start: windowStart(res, issue), End: issue.End,
		Live: rootCauseLine(live), TruthNote: truthNote, TruthTodo: !truth.Scored(), Files: files, Missing: missing, Limits: limits}
	if !*noVerify {
		prog.Stage("replaying the capture through the simulators", 0)
		report.Replay, err = replayCheck(ctx, dir, *deadline, live, res)
		prog.Done()
		if err != nil {
			return err
		}
	}
	if err := capture.WriteReadme(dir, report); err != nil {
		return err
	}
	printCapture(stdout, dir, report, truth)
	return nil
}

// captureSource is what a capture starts from.
type captureSource struct {
	issue    investigate.Issue
	describe string // for the README: "job m-Ev1 (issue key …)"
	jobID    string
	memory   *sessions.MemoryRecord // the humans' verdict, when there is one
}

// keptSource reads a kept investigation and what people decided about it.
func keptSource(ctx context.Context, key string) (captureSource, *investigate.HealResult, error) {
	store, closeStore, err := storeFromEnv(ctx)
	if err != nil {
		return captureSource{}, nil, fmt.Errorf("capturing %q reads its kept result from serve's Redis (REDIS_URL, AUTOHEAL_REDIS_PREFIX): %w; without Redis, capture the window: bot capture --since … --until … --service …", key, err)
	}
	defer closeStore()
	jobID, issue, res, err := keptResult(ctx, store, key)
	if errors.Is(err, sessions.ErrNotFound) {
		return captureSource{}, nil, fmt.Errorf("no kept result for %q: it is not the job id, issue key or thread (CHANNEL/THREAD_TS) of an investigation kept in this Redis (results are kept 7 days; bot history lists the incidents); capture the window instead: bot capture --since … --until … --service …", key)
	}
	if err != nil {
		return captureSource{}, nil, fmt.Errorf("reading the kept result of %q: %w", key, err)
	}
	if res == nil {
		return captureSource{}, nil, fmt.Errorf("the kept investigation %q has no result (it did not finish)", key)
	}
	if issue.End.IsZero() {
		issue.End = res.Started // an investigation without a window end ended it when it started
	}
	src := captureSource{issue: issue, jobID: jobID, describe: "job " + jobID}
	if issue.Key != "" {
		src.describe += fmt.Sprintf(" (issue key %s)", issue.Key)
	}
	if rec, err := store.Recall(ctx, jobID); err == nil {
		src.memory = &rec
		src.describe += fmt.Sprintf(", thread %s/%s", rec.Channel, rec.ThreadTS)
	} else if !errors.Is(err, sessions.ErrNotFound) {
		slog.Warn("the verdict on the incident could not be read; its truth is left to fill", "err", err)
	}
	return src, res, nil
}

// windowSource is an incident given on the command line.
func windowSource(since, until, service, text, envService string) (captureSource, error) {
	start, end, err := parseWindow(since, until, time.Now())
	if err != nil {
		return captureSource{}, fmt.Errorf("%w: %v", errUsage, err)
	}
	if service == "" {
		service = envService
	}
	text = strings.TrimSpace(text)
	if text == "" && service == "" {
		return captureSource{}, fmt.Errorf("%w: a window needs --service or --text (what the incident is about)", errUsage)
	}
	if text == "" {
		text = service + " errors"
	}
	issue := investigate.Issue{Text: text, Service: service, Trigger: investigate.TriggerMention, Start: start, End: end}
	return captureSource{issue: issue, describe: fmt.Sprintf("the window %s to %s given on the command line",
		start.UTC().Format(time.RFC3339), end.UTC().Format(time.RFC3339))}, nil
}

var scenarioNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

var nonSlugRE = regexp.MustCompile(`[^a-z0-9]+`)

// defaultCaptureName is capture-SERVICE-YYYYMMDD-HHMM: the service the
// incident names (else the one the live run blamed) and the window's end.
func defaultCaptureName(issue investigate.Issue, live *investigate.HealResult) string {
	what := firstNonEmptyString(issue.Service, live.RootCause.Service, issue.Key, "incident")
	slug := strings.Trim(nonSlugRE.ReplaceAllString(strings.ToLower(what), "-"), "-")
	if len(slug) > 40 {
		slug = strings.Trim(slug[:40], "-")
	}
	if slug == "" {
		slug = "incident"
	}
	return fmt.Sprintf("capture-%s-%s", slug, issue.End.UTC().Format("20060102-1504"))
}

func firstNonEmptyString(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// parseSize reads 1048576, 512KiB, 16MiB, 1GiB (K, M, G and KB, MB, GB
// are read as binary units too).
func parseSize(flagName, v string) (int64, error) {
	s := strings.TrimSpace(strings.ToUpper(v))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GIB", 1 << 30}, {"MIB", 1 << 20}, {"KIB", 1 << 10}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%w: %s %q: want a positive size such as 16MiB, 512KiB or 1048576", errUsage, flagName, v)
	}
	return n * mult, nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// callsNotMade are the live run's tool calls this run did not make (the
// model's own choices), to be made again so that what they read is kept.
func callsNotMade(live, made []investigate.Receipt) []investigate.ToolCall {
	key := func(tool string, args map[string]any) string {
		b, _ := json.Marshal(args) // map keys are sorted
		return tool + string(b)
	}
	done := map[string]bool{}
	for _, r := range made {
		done[key(r.Tool, r.Args)] = true
	}
	var out []investigate.ToolCall
	for _, r := range live {
		if k := key(r.Tool, r.Args); !done[k] {
			done[k] = true
			out = append(out, investigate.ToolCall{Tool: r.Tool, Args: r.Args})
		}
	}
	return out
}

// scenarioConfig keeps the settings a replay needs and may know: no URL
// (the simulators replace them), no secret and nothing bound to an
// endpoint (tokens, the Loki tenant). The ref is the one the source was
// read at when the settings name none.
func scenarioConfig(cfg map[string]string, readRef string) map[string]string {
	out := map[string]string{}
	for k, v := range cfg {
		if v != "" && !config.IsSecret(k) && !config.IsURL(k) && !config.IsBound(k) {
			out[k] = redact.String(v)
		}
	}
	if out["ref"] == "" && readRef != "" && out["repo"] != "" {
		out["ref"] = readRef
	}
	return out
}

// explicitStart is the window's start when the replay would not derive
// the same one from the trigger (a window given with --since).
func explicitStart(issue investigate.Issue) time.Time {
	if issue.Start.IsZero() {
		return time.Time{}
	}
	derived := issue
	derived.Start = time.Time{}
	if investigate.NormalizeIssue(derived, issue.End).Start.Equal(issue.Start) {
		return time.Time{}
	}
	return issue.Start
}

// windowStart is the start the recorded investigation used.
func windowStart(res *investigate.HealResult, issue investigate.Issue) time.Time {
	if !issue.Start.IsZero() {
		return issue.Start
	}
	return investigate.NormalizeIssue(issue, issue.End).Start
}

// alertBody rebuilds an Alertmanager webhook body from a kept alert
// issue: one firing alert with the incident's labels, its annotations
// (the summary and description set so that the bot reads the same text)
// and its first startsAt.
func alertBody(issue investigate.Issue) (json.RawMessage, error) {
	labels := map[string]string{}
	for k, v := range issue.Labels {
		labels[k] = redact.String(v)
	}
	ann := map[string]string{}
	for k, v := range issue.Annotations {
		if k != "summary" && k != "description" && k != "message" {
			ann[k] = redact.String(v)
		}
	}
	text := redact.String(issue.Text)
	if name := labels["alertname"]; name != "" && strings.HasPrefix(text, name) {
		text = strings.TrimPrefix(strings.TrimPrefix(text, name), "\n")
	}
	if summary, desc, _ := strings.Cut(text, "\n"); summary != "" {
		ann["summary"] = summary
		if desc != "" {
			ann["description"] = desc
		}
	}
	fired := issue.FiredAt
	if fired.IsZero() {
		fired = issue.End
	}
	body := map[string]any{
		"version": "4", "status": "firing", "receiver": "autoheal", "groupKey": "{}:{}", "truncatedAlerts": 0,
		"groupLabels": map[string]string{}, "commonLabels": labels, "commonAnnotations": ann, "externalURL": "",
		"alerts": []map[string]any{{"status": "firing", "labels": labels, "annotations": ann,
			"startsAt": fired.UTC().Format(time.RFC3339Nano), "endsAt": "0001-01-01T00:00:00Z", "generatorURL": ""}},
	}
	return json.Marshal(body)
}

// truthOf fills the truth from the humans' verdict: an approved fix (or
// a merged pull request) makes the live root cause the truth; otherwise
// the live answer is a draft marked todo for a human.
func truthOf(src captureSource, live *investigate.HealResult) (scenario.Truth, string) {
	rc := live.RootCause
	t := scenario.Truth{Bucket: string(rc.Bucket), Service: rc.Service, ErrorType: string(rc.ErrorType), File: rc.File, Line: rc.Line}
	m := src.memory
	approved := m != nil && (m.Decision == "approved" || m.PRState == "merged")
	var note string
	switch {
	case approved && truthComplete(t):
		note = fmt.Sprintf("Truth from the humans' verdict: the fix proposed for job %s was approved", src.jobID)
		if m.By != "" {
			note += " by " + m.By
		}
		if m.PRNumber > 0 {
			note += fmt.Sprintf(" (PR #%d %s)", m.PRNumber, firstNonEmptyString(m.PRState, "open"))
		}
		return t, note + ", so its root cause is the truth."
	case approved:
		t.Todo = "the fix was approved, but the live root cause is not a complete truth (a code bug needs file and line; the bucket must be one of code_bug, infrastructure, bad_data, flake): complete it, then delete this line"
	case m != nil && m.Decision == "rejected":
		t.Todo = "the proposed fix was rejected"
		if m.Reason != "" {
			t.Todo += " (" + redact.String(m.Reason) + ")"
		}
		t.Todo += ": the fields below are the bot's answer, which may be wrong; write the real root cause, then delete this line"
	default:
		t.Todo = fmt.Sprintf("no human verdict yet: the fields below are the bot's own answer (band %s), unverified; check them against what happened, then delete this line", rc.Band)
	}
	// The draft keeps only what the format accepts (never bucket unknown).
	if !slices.Contains(scenario.Buckets, t.Bucket) {
		t.Bucket = ""
	}
	if !slices.Contains(scenario.ErrorTypes, t.ErrorType) {
		t.ErrorType = ""
	}
	note = "Truth left to a human (see todo): " + strings.SplitN(t.Todo, ":", 2)[0] + "."
	return t, note
}

// truthComplete reports whether a truth passes the format's rules.
func truthComplete(t scenario.Truth) bool {
	return slices.Contains(scenario.Buckets, t.Bucket) && slices.Contains(scenario.ErrorTypes, t.ErrorType) && t.Service != "" &&
		(t.Bucket != "code_bug" || t.File != "") && (t.File == "" || t.Line >= 1)
}

// missingBackends says which backends the capture holds nothing of, and
// why (not configured, or what the calls to them answered).
func missingBackends(d *capture.Data, res *investigate.HealResult) []string {
	families := []struct {
		backend capture.Backend
		family  []investigate.Family
		file    string
	}{
		{capture.Jaeger, []investigate.Family{investigate.FamilyTraces}, capture.TracesFile},
		{capture.Loki, []investigate.Family{investigate.FamilyLogs}, capture.LogsFile},
		{capture.Prometheus, []investigate.Family{investigate.FamilyMetrics}, capture.MetricsFile},
		{capture.Kubernetes, []investigate.Family{investigate.FamilyK8s}, capture.K8sFile},
		{capture.GitHub, []investigate.Family{investigate.FamilyChanges, investigate.FamilySource}, capture.ChangesFile + " and " + capture.RepoDir},
	}
	var out []string
	for _, f := range families {
		if d.Answered[f.backend] {
			continue
		}
		why := "it answered nothing"
		for _, u := range res.ToolsUnavailable {
			if u.Family == f.family[0] {
				why = fmt.Sprintf("%s: %s", u.Kind, u.Reason)
			}
		}
		for _, r := range res.Timeline {
			if r.Family == f.family[0] && !r.OK {
				why = r.Error
				break
			}
		}
		out = append(out, fmt.Sprintf("%s (%s): %s — %s not written", f.family[0], f.backend, redact.String(why), f.file))
	}
	return out
}

// rootCauseLine is a root cause in one line.
func rootCauseLine(r *investigate.HealResult) string {
	rc := r.RootCause
	loc := "no file"
	if rc.File != "" {
		loc = fmt.Sprintf("%s:%d", rc.File, rc.Line)
	}
	return fmt.Sprintf("%s in %s (%s, %s), %s confidence [%s]", rc.ErrorType, firstNonEmptyString(rc.Service, "?"), rc.Bucket, loc, rc.Band, r.Mode)
}

// sameRootCause compares what a replay must reproduce.
func sameRootCause(a, b investigate.RootCause) (bool, string) {
	var diff []string
	check := func(name string, x, y any) {
		if x != y {
			diff = append(diff, fmt.Sprintf("%s %v, live %v", name, y, x))
		}
	}
	check("service", a.Service, b.Service)
	check("file", a.File, b.File)
	check("line", a.Line, b.Line)
	check("bucket", a.Bucket, b.Bucket)
	check("error type", a.ErrorType, b.ErrorType)
	check("band", a.Band, b.Band)
	return len(diff) == 0, strings.Join(diff, "; ")
}

// replayCheck runs the written scenario through the simulators, as bot
// eval will, and compares its root cause with the live run's.
func replayCheck(ctx context.Context, dir string, deadline time.Duration, live, recorded *investigate.HealResult) (string, error) {
	s, err := scenario.Load(dir)
	if err != nil {
		return "", err
	}
	got, err := harness.Run(ctx, s, harness.RunOptions{Engine: investigate.Options{Deadline: deadline, Logger: slog.Default()}})
	if err != nil {
		return "", fmt.Errorf("replaying the capture: %w", err)
	}
	line := "The scenario replayed through the simulators (deterministic engine) finds: " + rootCauseLine(got) + ". "
	if same, _ := sameRootCause(live.RootCause, got.RootCause); same {
		return line + "Same root cause as the live run (service, file, line, bucket, error type, band).", nil
	}
	_, diff := sameRootCause(live.RootCause, got.RootCause)
	line += "It differs from the live run: " + diff + "."
	if live != recorded {
		if same, _ := sameRootCause(recorded.RootCause, got.RootCause); same {
			line += " It is what the deterministic engine found when the capture was recorded: the live run's planner (" + string(live.Mode) + ") concluded otherwise on the same evidence."
		} else {
			line += " The backends may have changed since the live run (retention, late data): the recorded investigation found " + rootCauseLine(recorded) + "."
		}
	}
	return line, nil
}

func printCapture(w io.Writer, dir string, r capture.Report, truth scenario.Truth) {
	fmt.Fprintf(w, "captured %s into %s\n\n", r.Name, dir)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	for _, f := range r.Files {
		holds := fmt.Sprintf("%d %s", f.Kept, f.What)
		switch {
		case f.Absent:
			holds = "not written"
		case f.Kept < f.Of:
			holds = fmt.Sprintf("%d of %d %s (cut at the size limit)", f.Kept, f.Of, f.What)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", f.Name, holds, capture.HumanBytes(f.Bytes))
	}
	tw.Flush()
	fmt.Fprintf(w, "\nlive:   %s\n", r.Live)
	if truth.Scored() {
		fmt.Fprintf(w, "truth:  %s\n", r.TruthNote)
	} else {
		fmt.Fprintf(w, "truth:  todo — %s\n", truth.Todo)
	}
	if r.Replay != "" {
		fmt.Fprintf(w, "replay: %s\n", r.Replay)
	}
	fmt.Fprintf(w, "\nnext: review %s/README.md and the truth in %s/scenario.yaml, then: bot eval %s\n", dir, dir, dir)
}
