package gh

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/autoheal/autoheal/investigate"
)

// ToolRecentCommits lists recent commits with the files and lines they touched.
const ToolRecentCommits = "changes_recent_commits"

// Changes is the changes capability.
type Changes struct{ r *repo }

// Family implements investigate.Capability.
func (c *Changes) Family() investigate.Family { return investigate.FamilyChanges }

// Availability implements investigate.Capability.
func (c *Changes) Availability() investigate.Availability {
	return c.r.availability(investigate.FamilyChanges)
}

// Tools implements investigate.Capability.
func (c *Changes) Tools() []investigate.ToolSpec {
	return []investigate.ToolSpec{{
		Name: ToolRecentCommits, Family: investigate.FamilyChanges,
		Description: "List recent commits of the repository (optionally only those touching a path), with the files and line ranges each changed.",
		Parameters: investigate.Schema(map[string]any{
			"since": map[string]any{"type": "string", "description": "RFC 3339"},
			"until": map[string]any{"type": "string", "description": "RFC 3339"},
			"path":  map[string]any{"type": "string", "description": "optional repository path the commits must touch"},
			"limit": map[string]any{"type": "integer", "description": "max commits (default 15, max 30)"},
		}, "since", "until"),
	}}
}

var hunkRE = regexp.MustCompile(`(?m)^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@`)

// DiffLines are the lines of a unified diff as "line:text" rows in
// new-file numbering (a removed line is numbered where it was removed), so
// the engine can point at the exact changed setting or statement and see
// what it sits next to.
type DiffLines struct {
	Added, Removed, Context string
}

// SplitDiff reads a unified diff once and keeps up to the given number of
// added, removed and unchanged (context) lines, each cut to 200 bytes.
func SplitDiff(patch string, added, removed, context int) DiffLines {
	var rows [3][]string
	limits := [3]int{added, removed, context}
	keep := func(i, line int, text string) {
		if len(rows[i]) < limits[i] {
			rows[i] = append(rows[i], fmt.Sprintf("%d:%s", line, text[:min(len(text), 200)]))
		}
	}
	newLine := 0
	for _, l := range strings.Split(patch, "\n") {
		if m := hunkRE.FindStringSubmatch(l); m != nil {
			newLine, _ = strconv.Atoi(m[1])
			continue
		}
		if newLine == 0 {
			continue
		}
		switch {
		case strings.HasPrefix(l, "+++"):
			newLine++
		case strings.HasPrefix(l, "+"):
			keep(0, newLine, l[1:])
			newLine++
		case strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "-"):
			keep(1, newLine, l[1:])
		default:
			keep(2, newLine, strings.TrimPrefix(l, " "))
			newLine++
		}
	}
	return DiffLines{Added: strings.Join(rows[0], "\n"), Removed: strings.Join(rows[1], "\n"), Context: strings.Join(rows[2], "\n")}
}

// Hunks returns the new-file line ranges of a unified diff ("start-end,...").
func Hunks(patch string) string {
	var parts []string
	for _, m := range hunkRE.FindAllStringSubmatch(patch, -1) {
		start, _ := strconv.Atoi(m[1])
		n := 1
		if m[2] != "" {
			n, _ = strconv.Atoi(m[2])
		}
		parts = append(parts, fmt.Sprintf("%d-%d", start, start+max(n-1, 0)))
	}
	return strings.Join(parts, ",")
}

// Call implements investigate.Capability.
func (c *Changes) Call(ctx context.Context, tool string, args json.RawMessage) (*investigate.ToolResult, error) {
	if av := c.Availability(); !av.Configured {
		return nil, investigate.NewToolError(av.Kind, av.Reason, nil)
	}
	if tool != ToolRecentCommits {
		return nil, fmt.Errorf("%w: %s", investigate.ErrUnknownTool, tool)
	}
	var a struct {
		Since string `json:"since"`
		Until string `json:"until"`
		Path  string `json:"path"`
		Limit int    `json:"limit"`
	}
	if err := investigate.DecodeArgs(args, &a); err != nil {
		return nil, err
	}
	since, err1 := investigate.ParseTime(a.Since)
	until, err2 := investigate.ParseTime(a.Until)
	if err1 != nil || err2 != nil || since.IsZero() || !until.After(since) {
		return nil, investigate.NewToolError(investigate.ErrKindInvalidArgs, "since and until are required and until must be after since", nil)
	}
	if a.Limit <= 0 {
		a.Limit = 15
	}
	a.Limit = min(a.Limit, 30)
	r := c.r
	ref, err := r.resolveRef(ctx)
	if err != nil {
		return nil, err
	}
	cctx, cancel := r.call(ctx)
	list, _, err := r.client.Repositories.ListCommits(cctx, r.owner, r.name, &github.CommitsListOptions{
		SHA: ref, Path: a.Path, Since: since, Until: until, ListOptions: github.ListOptions{PerPage: a.Limit}})
	cancel()
	if err != nil {
		return nil, classify(ctx, "list commits", err)
	}
	if len(list) > a.Limit {
		list = list[:a.Limit]
	}
	// Commit details (files, patches) concurrently, bounded.
	details := make([]*github.RepositoryCommit, len(list))
	errs := make([]error, len(list))
	sem := make(chan struct{}, 6)
	var wg sync.WaitGroup
	for i, rc := range list {
		wg.Add(1)
		fetch := func(i int, sha string) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			cctx, cancel := r.call(ctx)
			defer cancel()
			d, _, err := r.client.Repositories.GetCommit(cctx, r.owner, r.name, sha, nil)
			if err != nil {
				errs[i] = classify(ctx, "get commit "+shortSHA(sha), err)
				return
			}
			details[i] = d
		}
		if investigate.Sequential(ctx) {
			fetch(i, rc.GetSHA())
		} else {
			go fetch(i, rc.GetSHA())
		}
	}
	wg.Wait()
	var findings []investigate.Finding
	type view struct {
		SHA, Message, Author string
		Date                 time.Time
		Files                []string
	}
	var views []view
	failed := 0
	for i, d := range details {
		if d == nil {
			failed++
			d = list[i] // keep what the list gave: message and date, no files
		}
		cm := d.GetCommit()
		date := cm.GetCommitter().GetDate().Time
		if cm.GetAuthor().GetDate().After(date) || date.IsZero() {
			date = cm.GetAuthor().GetDate().Time
		}
		msg := strings.TrimSpace(cm.GetMessage())
		v := view{SHA: shortSHA(d.GetSHA()), Message: investigate.Quote(msg, 160), Author: cm.GetAuthor().GetName(), Date: date}
		for _, f := range d.Files {
			v.Files = append(v.Files, f.GetFilename())
			diff := SplitDiff(f.GetPatch(), 120, 40, 80)
			findings = append(findings, investigate.Finding{
				Kind: investigate.KindChangeCorrelation, Family: investigate.FamilyChanges,
				File: f.GetFilename(), Time: date, LastTime: date, Count: 1,
				Quote: fmt.Sprintf("%s %s", shortSHA(d.GetSHA()), investigate.Quote(msg, 120)),
				Attrs: map[string]string{"sha": d.GetSHA(), "hunks": Hunks(f.GetPatch()), "added": diff.Added, "removed": diff.Removed, "context": diff.Context,
					"status": f.GetStatus(), "author": cm.GetAuthor().GetName(), "message": investigate.Quote(msg, 300)},
			})
		}
		if len(d.Files) == 0 {
			findings = append(findings, investigate.Finding{Kind: investigate.KindChangeCorrelation, Family: investigate.FamilyChanges,
				Time: date, LastTime: date, Count: 1, Quote: fmt.Sprintf("%s %s", shortSHA(d.GetSHA()), investigate.Quote(msg, 120)),
				Attrs: map[string]string{"sha": d.GetSHA()}})
		}
		views = append(views, v)
	}
	sort.SliceStable(views, func(i, j int) bool { return views[i].Date.After(views[j].Date) })
	sum := fmt.Sprintf("%d commits", len(list))
	if a.Path != "" {
		sum += " touching " + a.Path
	}
	if len(views) > 0 {
		sum += fmt.Sprintf("; latest %s %q", views[0].Date.Format("Jan 2 15:04"), investigate.Quote(views[0].Message, 60))
	}
	if failed > 0 {
		sum += fmt.Sprintf(" (%d commit details unavailable: %v)", failed, firstErr(errs))
	}
	return &investigate.ToolResult{Summary: sum, Findings: findings, Data: views}, nil
}

func firstErr(errs []error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func shortSHA(s string) string {
	if len(s) > 7 {
		return s[:7]
	}
	return s
}
