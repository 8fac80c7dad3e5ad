package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/autoheal/autoheal/alerts"
	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/render"
	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sessions"
	ghsim "github.com/autoheal/autoheal/sim/github"
	slacksim "github.com/autoheal/autoheal/sim/slack"
)

// demoDedupeWindow is the webhook's dedupe window in the scripted demo (5
// minutes by default), so that the repeated notification is a re-fire.
const demoDedupeWindow = time.Second

// Bounds of what the demo prints about the pull request.
const (
	demoBodyLines    = 14
	demoCommentLines = 4
)

// demoRun is what the approval part of the demo works with.
type demoRun struct {
	Scenario     *scenario.Scenario
	Bot          *wiredBot
	Slack        *slacksim.Server
	Backends     *harness.Backends
	Threads      []demoThread
	WebhookURL   string
	WebhookToken string
	FirstPost    time.Time
	DedupeWindow time.Duration
	// Secrets must appear neither in the pull request nor in the output.
	Secrets        []string
	Printed        *printedText
	Stdout, Stderr io.Writer
	BotDone        <-chan error
	Timeout        time.Duration
}

// approvable is the result the approver clicks.
type approvable struct {
	idx    int
	thread demoThread
	rec    sessions.ResultRecord
}

// demoApproval is the rest of the flow once the results are posted: the
// approver clicks Approve the way Slack delivers it (a block_actions
// payload over the bot's Socket Mode connection), the bot opens the pull
// request on the GitHub simulator with go-github, and the alert fires
// again to show that the thread and the pull request converge.
func demoApproval(ctx context.Context, r demoRun) error {
	out := r.Stdout
	fmt.Fprintf(out, "\n%s\n", banner("Approval"))
	var target *approvable
	var others []string
	for i, t := range r.Threads {
		rec, err := r.Bot.Store.GetResult(ctx, t.JobID)
		if err != nil {
			return fmt.Errorf("result of %s: %w", r.label(i), err)
		}
		m, ok := r.Slack.Message(rec.Channel, rec.MessageTS)
		if !ok {
			return fmt.Errorf("result of %s: message %s not found in the Slack simulator", r.label(i), rec.MessageTS)
		}
		switch {
		case findElement(m.Blocks, render.ActionApprove) == nil:
			fmt.Fprintf(out, "%s: no [ Approve ] to click — %s\n", r.label(i), noApproveReason(m.Blocks))
		case target == nil:
			target = &approvable{idx: i, thread: t, rec: rec}
		default:
			others = append(others, r.label(i))
		}
	}
	if target == nil {
		fmt.Fprintln(out, "Nothing to approve: no result offers [ Approve ], so no pull request is opened.")
		return r.checkSecrets(ctx, out)
	}
	if err := r.clickApprove(ctx, *target, others); err != nil {
		return err
	}
	pr, err := r.showPullRequest(ctx)
	if err != nil {
		return err
	}
	if r.Scenario.Trigger.IsAlert() {
		if err := r.refire(ctx, pr); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(out, "\n(a mention scenario: there is no alert to fire again)")
	}
	return r.checkSecrets(ctx, out)
}

func (r demoRun) label(i int) string {
	if len(r.Threads) == 1 {
		return "the thread"
	}
	if k := r.Threads[i].Key; k != "" {
		return fmt.Sprintf("thread %d (incident %s)", i+1, k)
	}
	return fmt.Sprintf("thread %d", i+1)
}

// clickApprove has the approver click Approve on the result and prints
// what changed in the thread.
func (r demoRun) clickApprove(ctx context.Context, a approvable, others []string) error {
	out := r.Stdout
	m, _ := r.Slack.Message(a.rec.Channel, a.rec.MessageTS)
	fmt.Fprintf(out, "lead (%s) is the approver of this demo (AUTOHEAL_APPROVERS=%s; on-call %s is not one).\n", demoApprover, demoApprover, demoOncall)
	if title, text, confirm, ok := confirmDialog(m.Blocks); ok {
		fmt.Fprintf(out, "lead clicks [ Approve ] on the result in %s; Slack asks %q (%s) and lead clicks [ %s ].\n", r.label(a.idx), title, text, confirm)
	} else {
		fmt.Fprintf(out, "lead clicks [ Approve ] on the result in %s.\n", r.label(a.idx))
	}
	for _, o := range others {
		fmt.Fprintf(out, "(%s also offers [ Approve ]; the demo approves one fix per run, so that one is left for review.)\n", o)
	}
	before := r.Slack.RenderThread(a.rec.Channel, a.thread.ThreadTS)
	ephemerals := len(r.Slack.Ephemerals(a.rec.Channel, demoApprover))
	in, err := r.Slack.BlockAction(slacksim.BlockActionOptions{Channel: a.rec.Channel, MessageTS: a.rec.MessageTS, User: demoApprover, ActionID: render.ActionApprove})
	if err != nil {
		return fmt.Errorf("click Approve: %w", err)
	}
	actx, cancel := context.WithTimeout(ctx, r.Timeout)
	ack, err := r.Slack.WaitAck(actx, in.EnvelopeID)
	cancel()
	if err != nil {
		return fmt.Errorf("the bot did not acknowledge the Approve click: %w", err)
	}
	fmt.Fprintf(out, "Slack delivered the block_actions payload over the bot's Socket Mode connection; the bot acknowledged it in %s.\n", ack.Latency.Round(time.Millisecond))

	// Done when the result shows the outcome, or the approver was told why not.
	var final string
	err = r.wait(ctx, "the outcome of the approval", func() bool {
		m, _ := r.Slack.Message(a.rec.Channel, a.rec.MessageTS)
		b := string(m.Blocks)
		switch {
		case strings.Contains(b, ":white_check_mark: Approved by") && strings.Contains(b, "pull request:"):
			final = "approved"
		case strings.Contains(b, ":warning: Approved by"):
			final = "failed"
		case len(r.Slack.Ephemerals(a.rec.Channel, demoApprover)) > ephemerals && !strings.Contains(b, "opening a pull request"):
			final = "refused"
		}
		return final != ""
	})
	if err != nil {
		return err
	}
	r.settle(ctx)
	fmt.Fprintf(out, "\n── the thread after Approve (new messages, and the changed lines of updated ones) ──\n")
	fmt.Fprint(out, threadChanges(before, r.Slack.RenderThread(a.rec.Channel, a.thread.ThreadTS)))
	if final != "approved" {
		return fmt.Errorf("the approval did not open a pull request (%s); see the thread above", final)
	}
	return nil
}

// onlyPullRequest returns the repository's pull request, and fails unless
// there is exactly one.
func (r demoRun) onlyPullRequest() (ghsim.PullRequest, string, string, error) {
	gh, owner, name, err := r.github()
	if err != nil {
		return ghsim.PullRequest{}, "", "", err
	}
	prs, err := gh.PullRequests(owner, name)
	if err != nil {
		return ghsim.PullRequest{}, "", "", fmt.Errorf("GitHub simulator: %w", err)
	}
	if len(prs) != 1 {
		return ghsim.PullRequest{}, "", "", fmt.Errorf("expected exactly one pull request in %s/%s, found %d", owner, name, len(prs))
	}
	return prs[0], owner, name, nil
}

// shownPR is the pull request as first shown.
type shownPR struct {
	Number  int
	URL     string
	HeadSHA string
}

// showPullRequest prints the repository's one pull request as the GitHub
// simulator stores it, with its diff as GitHub serves it.
func (r demoRun) showPullRequest(ctx context.Context) (shownPR, error) {
	out := r.Stdout
	pr, owner, name, err := r.onlyPullRequest()
	if err != nil {
		return shownPR{}, err
	}
	fmt.Fprintf(out, "\n── the pull request on the GitHub simulator: %s/%s has exactly one ──\n", owner, name)
	client, err := r.githubClient()
	if err != nil {
		return shownPR{}, err
	}
	api, _, err := client.PullRequests.Get(ctx, owner, name, pr.Number)
	if err != nil {
		return shownPR{}, fmt.Errorf("GET pull request #%d: %w", pr.Number, err)
	}
	files, _, err := client.PullRequests.ListFiles(ctx, owner, name, pr.Number, &github.ListOptions{PerPage: 100})
	if err != nil {
		return shownPR{}, fmt.Errorf("GET pull request #%d files: %w", pr.Number, err)
	}
	draft := ""
	if pr.Draft {
		draft = " (draft)"
	}
	fmt.Fprintf(out, "#%d  %s\n", pr.Number, pr.Title)
	fmt.Fprintf(out, "  state    %s%s · by %s · %d commit(s) · %d comment(s)\n", pr.State, draft, pr.User, len(pr.Commits), len(pr.Comments))
	fmt.Fprintf(out, "  branches %s (head %s) → %s\n", pr.Head, short(pr.HeadSHA), pr.Base)
	if len(pr.Labels) > 0 {
		fmt.Fprintf(out, "  labels   %s\n", strings.Join(pr.Labels, ", "))
	}
	fmt.Fprintf(out, "  url      %s\n", api.GetHTMLURL())
	body := strings.Split(strings.TrimRight(pr.Body, "\n"), "\n")
	fmt.Fprintf(out, "  body (%s):\n", firstOf(len(body), demoBodyLines, "line"))
	for _, l := range body[:min(len(body), demoBodyLines)] {
		fmt.Fprintf(out, "    │ %s\n", l)
	}
	fmt.Fprintf(out, "  diff (GET /repos/%s/%s/pulls/%d/files):\n", owner, name, pr.Number)
	for _, f := range files {
		fmt.Fprint(out, indent(fileDiff(f), "    "))
	}
	return shownPR{Number: pr.Number, URL: api.GetHTMLURL(), HeadSHA: pr.HeadSHA}, nil
}

// refire repeats the alert's notification and shows that it lands in the
// same thread and converges on the same pull request.
func (r demoRun) refire(ctx context.Context, first shownPR) error {
	out := r.Stdout
	fmt.Fprintf(out, "\n%s\n", banner("Re-fire"))
	if wait := time.Until(r.FirstPost.Add(r.DedupeWindow + 100*time.Millisecond)); wait > 0 {
		time.Sleep(wait)
	}
	fmt.Fprintf(out, "Alertmanager sends the same notification again, as it does every repeat_interval while the alert fires\n")
	fmt.Fprintf(out, "(the demo's webhook dedupe window is %s instead of %s, so that the repeat counts as a new fire).\n", r.DedupeWindow, alerts.DefaultDedupeWindow)
	before := map[string]string{}
	fires := map[string]int{}
	for _, t := range r.Threads {
		before[t.ThreadTS] = r.Slack.RenderThread(demoChannel, t.ThreadTS)
		inc, err := r.Bot.Store.GetIncident(ctx, t.Key)
		if err != nil {
			return fmt.Errorf("incident %s: %w", t.Key, err)
		}
		fires[t.Key] = inc.FireCount
	}
	resp, err := postAlert(ctx, r.WebhookURL, r.WebhookToken, r.Scenario.Trigger.Alert)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "POST %s → %d incident(s), %d queued, %d duplicate\n", urlPath(r.WebhookURL), resp.Incidents, resp.Queued, resp.Duplicate)
	if resp.Queued > 0 {
		err = r.wait(ctx, "the re-fire to be handled", func() bool {
			for _, t := range r.Threads {
				inc, err := r.Bot.Store.GetIncident(ctx, t.Key)
				if err != nil || inc.FireCount <= fires[t.Key] {
					return false
				}
			}
			d, err := r.Bot.Queue.Depth(ctx)
			return err == nil && d.Stream == 0
		})
		if err != nil {
			return err
		}
		r.settle(ctx)
	}
	for i, t := range r.Threads {
		inc, _ := r.Bot.Store.GetIncident(ctx, t.Key)
		same := "the same thread"
		if inc.RootTS != t.ThreadTS {
			same = "a NEW thread " + inc.RootTS
		}
		fmt.Fprintf(out, "\n── %s after the re-fire: %d fires, %s (new messages, and the changed lines of updated ones) ──\n", r.label(i), inc.FireCount, same)
		fmt.Fprint(out, threadChanges(before[t.ThreadTS], r.Slack.RenderThread(demoChannel, t.ThreadTS)))
		if inc.RootTS != t.ThreadTS {
			return fmt.Errorf("the re-fire of %s opened another thread", t.Key)
		}
	}
	pr, owner, name, err := r.onlyPullRequest()
	if err != nil {
		return fmt.Errorf("after the re-fire: %w", err)
	}
	if pr.Number != first.Number {
		return fmt.Errorf("after the re-fire: the pull request is #%d, not #%d", pr.Number, first.Number)
	}
	head := "unchanged"
	if pr.HeadSHA != first.HeadSHA {
		head = "updated by a new commit"
	}
	fmt.Fprintf(out, "\n── the GitHub simulator after the re-fire: %s/%s still has exactly one pull request ──\n", owner, name)
	fmt.Fprintf(out, "#%d  %s\n  state    %s · %d commit(s) · %d comment(s) · head %s (%s)\n  url      %s\n",
		pr.Number, pr.Title, pr.State, len(pr.Commits), len(pr.Comments), short(pr.HeadSHA), head, first.URL)
	if cs := pr.Comments; len(cs) > 0 {
		c := cs[len(cs)-1]
		lines := strings.Split(strings.TrimRight(c.Body, "\n"), "\n")
		fmt.Fprintf(out, "  latest comment by %s (%s):\n", c.User, firstOf(len(lines), demoCommentLines, "line"))
		for _, l := range lines[:min(len(lines), demoCommentLines)] {
			fmt.Fprintf(out, "    │ %s\n", l)
		}
	}
	fmt.Fprintf(out, "Converged: the re-fire stayed in the same thread and referenced the same pull request; no second pull request was opened.\n")
	return nil
}

// checkSecrets fails the demo when a token reached the pull requests, the
// issues or the output.
func (r demoRun) checkSecrets(ctx context.Context, out io.Writer) error {
	var texts []string
	if gh, owner, name, err := r.github(); err == nil {
		issues, _ := gh.Issues(owner, name)
		for _, is := range issues {
			texts = append(texts, is.Title, is.Body)
			for _, c := range is.Comments {
				texts = append(texts, c.Body)
			}
		}
		if client, err := r.githubClient(); err == nil {
			for _, is := range issues {
				if !is.IsPullRequest {
					continue
				}
				files, _, err := client.PullRequests.ListFiles(ctx, owner, name, is.Number, &github.ListOptions{PerPage: 100})
				if err != nil {
					return fmt.Errorf("GET pull request #%d files: %w", is.Number, err)
				}
				for _, f := range files {
					texts = append(texts, f.GetPatch())
				}
			}
		}
	}
	texts = append(texts, r.Printed.String())
	all := strings.Join(texts, "\n")
	var found []string
	names := []string{"the GitHub simulator token", "the Slack bot token", "the Slack app token", "the webhook token"}
	for i, s := range r.Secrets {
		if len(s) >= 8 && strings.Contains(all, s) {
			name := "a token"
			if i < len(names) {
				name = names[i]
			}
			found = append(found, name)
		}
	}
	if len(found) > 0 {
		return fmt.Errorf("secret leak: %s appears in the pull request or the output", strings.Join(found, ", "))
	}
	fmt.Fprintln(out, "\nNo token (GitHub simulator, Slack bot and app, webhook) appears in the pull request, its comments or this output.")
	return nil
}

func (r demoRun) github() (*ghsim.Server, string, string, error) {
	if r.Backends == nil {
		return nil, "", "", errors.New("no simulators")
	}
	repo := r.Backends.Config()["repo"]
	owner, name, ok := strings.Cut(repo, "/")
	if r.Backends.GitHub == nil || !ok {
		return nil, "", "", errors.New("the scenario has no repository on the GitHub simulator")
	}
	return r.Backends.GitHub, owner, name, nil
}

// githubClient reads the simulator the way a reviewer's tools would:
// go-github with the simulator's token.
func (r demoRun) githubClient() (*github.Client, error) {
	cfg := r.Backends.Config()
	u, err := url.Parse(cfg["github_api_url"])
	if err != nil || u.Host == "" {
		return nil, errors.New("the GitHub simulator has no URL")
	}
	c := github.NewClient(&http.Client{Timeout: 30 * time.Second})
	if tok := cfg["github_token"]; tok != "" {
		c = c.WithAuthToken(tok)
	}
	c.BaseURL = u
	return c, nil
}

// wait polls cond until it holds, the bot stops or the timeout passes.
func (r demoRun) wait(ctx context.Context, what string, cond func() bool) error {
	deadline := time.NewTimer(r.Timeout)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-r.BotDone:
			return fmt.Errorf("the bot stopped while waiting for %s", what)
		case <-deadline.C:
			return fmt.Errorf("no %s within %s", what, r.Timeout)
		case <-tick.C:
		}
	}
	return nil
}

// settle waits until the bot has made no Slack call for a moment, so that
// the replies following a decision are printed with it.
func (r demoRun) settle(ctx context.Context) {
	const quiet = 400 * time.Millisecond
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		last := time.Time{}
		if calls := r.Slack.Calls(); len(calls) > 0 {
			last = calls[len(calls)-1].Time
		}
		if time.Since(last) >= quiet {
			if d, err := r.Bot.Queue.Depth(ctx); err != nil || d.Stream == 0 {
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// confirmDialog returns the title, text and confirm label of the Approve
// button's confirmation dialog.
func confirmDialog(blocks json.RawMessage) (title, text, confirm string, ok bool) {
	el := findElement(blocks, render.ActionApprove)
	if el == nil {
		return "", "", "", false
	}
	c, _ := el["confirm"].(map[string]any)
	str := func(k string) string {
		o, _ := c[k].(map[string]any)
		s, _ := o["text"].(string)
		return s
	}
	if c == nil || str("title") == "" {
		return "", "", "", false
	}
	return str("title"), str("text"), str("confirm"), true
}

// findElement returns the interactive element with actionID in blocks.
func findElement(blocks json.RawMessage, actionID string) map[string]any {
	var found map[string]any
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if x["action_id"] == actionID && found == nil {
				found = x
				return
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	var v any
	if json.Unmarshal(blocks, &v) == nil {
		walk(v)
	}
	return found
}

// noApproveReason is the line a result shows instead of Approve.
func noApproveReason(blocks json.RawMessage) string {
	var reason string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if s, ok := x["text"].(string); ok && reason == "" {
				if i := strings.Index(s, ":no_entry_sign:"); i >= 0 {
					reason = strings.TrimSpace(s[i+len(":no_entry_sign:"):])
					return
				}
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	var v any
	if json.Unmarshal(blocks, &v) == nil {
		walk(v)
	}
	if reason == "" {
		return "the result proposes no change that a pull request can carry."
	}
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(reason)
}

// fileDiff renders a pull request file as a unified diff.
func fileDiff(f *github.CommitFile) string {
	name := f.GetFilename()
	from, to := "a/"+name, "b/"+name
	switch f.GetStatus() {
	case "added":
		from = "/dev/null"
	case "removed":
		to = "/dev/null"
	case "renamed":
		from = "a/" + f.GetPreviousFilename()
	}
	patch := f.GetPatch()
	if patch == "" {
		patch = "(no textual diff)"
	}
	return fmt.Sprintf("--- %s\n+++ %s\n%s\n", from, to, strings.TrimRight(patch, "\n"))
}

// threadItems splits a rendered thread into its title lines and messages.
func threadItems(rendered string) (head string, items []string) {
	lines := strings.Split(strings.TrimRight(rendered, "\n"), "\n")
	if len(lines) < 2 {
		return rendered, nil
	}
	head = lines[0] + "\n" + lines[1] + "\n"
	var cur []string
	prevEmpty := true
	flush := func() {
		if cur != nil {
			items = append(items, strings.TrimRight(strings.Join(cur, "\n"), "\n"))
			cur = nil
		}
	}
	for _, l := range lines[2:] {
		if l != "" && prevEmpty && !strings.HasPrefix(l, " ") {
			flush()
			cur = []string{l}
		} else if cur != nil {
			cur = append(cur, l)
		}
		prevEmpty = l == ""
	}
	flush()
	return head, items
}

// threadChanges prints what changed between two renderings of a thread:
// new messages whole, updated ones as their author line and new lines.
func threadChanges(before, after string) string {
	head, old := threadItems(before)
	_, cur := threadItems(after)
	if len(cur) < len(old) {
		return after // a message went away: show the whole thread
	}
	var b strings.Builder
	b.WriteString(head)
	n := 0
	for i, it := range cur {
		switch {
		case i >= len(old):
			b.WriteString("\n" + it + "\n")
		case it != old[i]:
			b.WriteString("\n" + changedLines(old[i], it))
		default:
			continue
		}
		n++
	}
	if n == 0 {
		b.WriteString("\n  (no change)\n")
	}
	return b.String()
}

// changedLines shows an updated message: its author line, its new lines,
// and … where unchanged lines are left out.
func changedLines(old, cur string) string {
	ol, cl := strings.Split(old, "\n"), strings.Split(cur, "\n")
	seen := map[string]int{}
	for _, l := range ol[1:] {
		seen[l]++
	}
	out := []string{cl[0] + "  · updated, changed lines only"}
	skipped := false
	for _, l := range cl[1:] {
		if seen[l] > 0 {
			seen[l]--
			skipped = true
			continue
		}
		if skipped {
			out = append(out, "  …")
			skipped = false
		}
		out = append(out, l)
	}
	if skipped {
		out = append(out, "  …")
	}
	return strings.Join(out, "\n") + "\n"
}

func short(sha string) string { return sha[:min(len(sha), 7)] }

func banner(title string) string {
	return "══ " + title + " " + strings.Repeat("═", max(3, 56-len(title)))
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n") + "\n"
}

func firstOf(n, limit int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	if n <= limit {
		return fmt.Sprintf("%d %ss", n, unit)
	}
	return fmt.Sprintf("first %d of %d %ss", limit, n, unit)
}

func urlPath(u string) string {
	if p, err := url.Parse(u); err == nil {
		return p.Path
	}
	return u
}

// printedText keeps everything the demo prints (to check it for secrets).
type printedText struct {
	mu sync.Mutex
	b  strings.Builder
}

func (p *printedText) tee(w io.Writer) io.Writer { return teeWriter{w: w, p: p} }

func (p *printedText) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.b.String()
}

type teeWriter struct {
	w io.Writer
	p *printedText
}

// Write copies b and passes it on under the one lock, so that the log and
// the output, teed from several goroutines, reach a shared writer (one
// terminal, one test buffer) one write at a time.
func (t teeWriter) Write(b []byte) (int, error) {
	t.p.mu.Lock()
	defer t.p.mu.Unlock()
	t.p.b.Write(b)
	return t.w.Write(b)
}
