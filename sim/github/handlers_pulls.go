package github

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// issueByNumber finds an issue or pull request by the {number} path value.
func issueByNumber(rc *reqCtx, r *repository) (*issue, *reply) {
	n, err := strconv.Atoi(rc.r.PathValue("number"))
	if err != nil || n < 1 {
		return nil, notFound()
	}
	iss, found := r.issues[n]
	if !found {
		return nil, notFound()
	}
	return iss, nil
}

func pullByNumber(rc *reqCtx, r *repository) (*issue, *reply) {
	iss, out := issueByNumber(rc, r)
	if out != nil {
		return nil, out
	}
	if iss.pr == nil {
		return nil, notFound()
	}
	return iss, nil
}

// checkText enforces GitHub's length limits on titles and bodies.
func checkText(resource, field, v string, limit int) *reply {
	if utf8.RuneCountInString(v) > limit {
		return invalid(fieldError{Resource: resource, Field: field, Code: "custom",
			Message: fmt.Sprintf("%s is too long (maximum is %d characters)", field, limit)})
	}
	return nil
}

func (s *Server) newIssue(rc *reqCtx, r *repository, title, body string) (*issue, *reply) {
	if len(r.issues) >= maxIssues {
		return nil, unprocessable("Issue limit of the simulator reached")
	}
	now := s.now().UTC()
	iss := &issue{
		id: s.newID(), number: r.nextNumber, title: title, body: body, state: "open",
		user: rc.cred.login, createdAt: now, updatedAt: now,
	}
	r.nextNumber++
	r.issues[iss.number] = iss
	return iss, nil
}

// pullBaseSHA is the base a PR is measured against: the base branch, or
// where it stood when the PR was merged.
func pullBaseSHA(r *repository, pr *pullInfo) (string, bool) {
	if pr.merged {
		return pr.baseAtMerge, true
	}
	return r.branchHead(pr.base)
}

// pullCommitsOf lists a PR's commits, oldest first.
func pullCommitsOf(r *repository, iss *issue) []string {
	head := r.pullHeadSHA(iss.pr)
	base, found := pullBaseSHA(r, iss.pr)
	if !found {
		return nil
	}
	return r.store.commitsBetween(base, head)
}

func (rc *reqCtx) branchJSON(r *repository, branch, sha string) map[string]any {
	return map[string]any{
		"label": r.owner + ":" + branch, "ref": branch, "sha": sha,
		"user": rc.ownerJSON(r), "repo": rc.repoJSON(r),
	}
}

// pullJSON renders a pull request; full adds the fields GitHub only sends
// for a single pull request (counts and merge state).
func (rc *reqCtx) pullJSON(r *repository, iss *issue, full bool) map[string]any {
	api := fmt.Sprintf("%s/pulls/%d", rc.repoAPI(r), iss.number)
	web := fmt.Sprintf("%s/pull/%d", rc.repoWeb(r), iss.number)
	baseSHA, _ := r.branchHead(iss.pr.base)
	out := map[string]any{
		"url": api, "id": iss.id, "node_id": fmt.Sprintf("PR_%d", iss.id), "html_url": web,
		"diff_url": web + ".diff", "patch_url": web + ".patch",
		"issue_url":    fmt.Sprintf("%s/issues/%d", rc.repoAPI(r), iss.number),
		"commits_url":  api + "/commits",
		"comments_url": fmt.Sprintf("%s/issues/%d/comments", rc.repoAPI(r), iss.number),
		"number":       iss.number, "state": iss.state, "locked": false, "title": iss.title,
		"user": rc.userJSON(iss.user, false), "body": iss.body, "labels": labelsJSON(iss.labels),
		"created_at": isoTime(iss.createdAt), "updated_at": isoTime(iss.updatedAt),
		"closed_at": nullableTime(iss.closedAt), "merged_at": nullableTime(iss.pr.mergedAt), "merge_commit_sha": nilIfEmpty(iss.pr.mergeCommit),
		"draft": iss.pr.draft, "author_association": "NONE",
		"head": rc.branchJSON(r, iss.pr.head, r.pullHeadSHA(iss.pr)),
		"base": rc.branchJSON(r, iss.pr.base, baseSHA),
	}
	if full {
		commits := pullCommitsOf(r, iss)
		adds, dels, changed := 0, 0, 0
		if files, err := pullFilesOf(r, iss); err == nil {
			changed = len(files)
			for _, f := range files {
				adds += f.Additions
				dels += f.Deletions
			}
		}
		out["merged"] = iss.pr.merged
		out["mergeable"] = nil
		out["mergeable_state"] = "unknown"
		out["comments"] = len(iss.comments)
		out["review_comments"] = 0
		out["commits"] = len(commits)
		out["additions"], out["deletions"], out["changed_files"] = adds, dels, changed
		out["maintainer_can_modify"] = iss.pr.maintainerCanModify
	}
	return out
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func labelsJSON(labels []string) []map[string]any {
	out := make([]map[string]any, 0, len(labels))
	for _, l := range labels {
		out = append(out, map[string]any{"id": stableID("label:" + l), "name": l, "color": "ededed", "default": false})
	}
	return out
}

// pullFilesOf is the PR diff: merge base to head.
func pullFilesOf(r *repository, iss *issue) ([]fileChange, error) {
	head := r.pullHeadSHA(iss.pr)
	base, found := pullBaseSHA(r, iss.pr)
	if !found {
		return nil, fmt.Errorf("base branch %q is gone", iss.pr.base)
	}
	mb := r.store.mergeBase(base, head)
	if mb == "" {
		return nil, fmt.Errorf("no common ancestor of %s and %s", iss.pr.base, iss.pr.head)
	}
	mbc, _ := r.store.commit(mb)
	hc, _ := r.store.commit(head)
	return r.diffTrees(mbc.Tree, hc.Tree)
}

// openPullFor finds an open PR with the same head and base.
func openPullFor(r *repository, head, base string, except int) *issue {
	for _, iss := range r.issues {
		if iss.pr != nil && iss.state == "open" && iss.number != except && iss.pr.head == head && iss.pr.base == base {
			return iss
		}
	}
	return nil
}

// POST /repos/{owner}/{repo}/pulls
func (s *Server) createPull(rc *reqCtx, r *repository) *reply {
	var req struct {
		Title               *string `json:"title"`
		Head                string  `json:"head"`
		Base                string  `json:"base"`
		Body                string  `json:"body"`
		Draft               bool    `json:"draft"`
		MaintainerCanModify *bool   `json:"maintainer_can_modify"`
		Issue               int     `json:"issue"`
	}
	if out := rc.decode(&req); out != nil {
		return out
	}
	if req.Issue != 0 {
		return invalid(fieldError{Resource: "PullRequest", Field: "issue", Code: "invalid",
			Message: "converting issues to pull requests is not supported by the simulator"})
	}
	var errs []fieldError
	if req.Title == nil || strings.TrimSpace(*req.Title) == "" {
		errs = append(errs, fieldError{Resource: "PullRequest", Field: "title", Code: "missing_field"})
	}
	if req.Head == "" {
		errs = append(errs, fieldError{Resource: "PullRequest", Field: "head", Code: "missing_field"})
	}
	if req.Base == "" {
		errs = append(errs, fieldError{Resource: "PullRequest", Field: "base", Code: "missing_field"})
	}
	if len(errs) > 0 {
		return invalid(errs...)
	}
	if out := checkText("PullRequest", "title", *req.Title, maxTitleLen); out != nil {
		return out
	}
	if out := checkText("PullRequest", "body", req.Body, maxBodyLen); out != nil {
		return out
	}
	head := req.Head
	if owner, branch, hasOwner := strings.Cut(head, ":"); hasOwner {
		if !strings.EqualFold(owner, r.owner) {
			return invalid(fieldError{Resource: "PullRequest", Field: "head", Code: "invalid"})
		}
		head = branch
	}
	headSHA, okHead := r.branchHead(head)
	if !okHead {
		return invalid(fieldError{Resource: "PullRequest", Field: "head", Code: "invalid"})
	}
	baseSHA, okBase := r.branchHead(req.Base)
	if !okBase {
		return invalid(fieldError{Resource: "PullRequest", Field: "base", Code: "invalid"})
	}
	if existing := openPullFor(r, head, req.Base, 0); existing != nil {
		return invalid(fieldError{Resource: "PullRequest", Code: "custom",
			Message: fmt.Sprintf("A pull request already exists for %s:%s.", r.owner, head)})
	}
	if head == req.Base || len(r.store.commitsBetween(baseSHA, headSHA)) == 0 {
		return invalid(fieldError{Resource: "PullRequest", Code: "custom",
			Message: fmt.Sprintf("No commits between %s and %s", req.Base, head)})
	}
	iss, out := s.newIssue(rc, r, *req.Title, req.Body)
	if out != nil {
		return out
	}
	iss.pr = &pullInfo{head: head, base: req.Base, headSHA: headSHA, draft: req.Draft,
		maintainerCanModify: req.MaintainerCanModify == nil || *req.MaintainerCanModify}
	out = ok(http.StatusCreated, rc.pullJSON(r, iss, true))
	out.header.Set("Location", fmt.Sprintf("%s/pulls/%d", rc.repoAPI(r), iss.number))
	return out
}

// sortedIssues returns issues newest first (GitHub's default for lists).
func sortedIssues(r *repository, keep func(*issue) bool) []*issue {
	var out []*issue
	for _, iss := range r.issues {
		if keep(iss) {
			out = append(out, iss)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].number > out[j].number })
	return out
}

func stateFilter(rc *reqCtx) (string, *reply) {
	state := rc.r.URL.Query().Get("state")
	switch state {
	case "":
		return "open", nil
	case "open", "closed", "all":
		return state, nil
	default:
		return "", invalid(fieldError{Field: "state", Code: "invalid", Message: "state must be one of open, closed, all"})
	}
}

// GET /repos/{owner}/{repo}/pulls?state=&head=owner:branch&base=
func (s *Server) listPulls(rc *reqCtx, r *repository) *reply {
	q := rc.r.URL.Query()
	state, bad := stateFilter(rc)
	if bad != nil {
		return bad
	}
	// Like GitHub, a head without "owner:" is silently ignored.
	headOwner, headBranch, headFilter := strings.Cut(q.Get("head"), ":")
	base := q.Get("base")
	pulls := sortedIssues(r, func(iss *issue) bool {
		if iss.pr == nil || (state != "all" && iss.state != state) {
			return false
		}
		if headFilter && (!strings.EqualFold(headOwner, r.owner) || iss.pr.head != headBranch) {
			return false
		}
		return base == "" || iss.pr.base == base
	})
	if q.Get("direction") == "asc" {
		for i, j := 0, len(pulls)-1; i < j; i, j = i+1, j-1 {
			pulls[i], pulls[j] = pulls[j], pulls[i]
		}
	}
	items := make([]map[string]any, 0, len(pulls))
	for _, iss := range pulls {
		items = append(items, rc.pullJSON(r, iss, false))
	}
	return listReply(rc, items)
}

// GET /repos/{owner}/{repo}/pulls/{number}
func (s *Server) getPull(rc *reqCtx, r *repository) *reply {
	iss, out := pullByNumber(rc, r)
	if out != nil {
		return out
	}
	return ok(http.StatusOK, rc.pullJSON(r, iss, true))
}

// PATCH /repos/{owner}/{repo}/pulls/{number}
func (s *Server) updatePull(rc *reqCtx, r *repository) *reply {
	iss, out := pullByNumber(rc, r)
	if out != nil {
		return out
	}
	var req struct {
		Title *string `json:"title"`
		Body  *string `json:"body"`
		State *string `json:"state"`
		Base  *string `json:"base"`
	}
	if out := rc.decode(&req); out != nil {
		return out
	}
	if req.Title != nil {
		if strings.TrimSpace(*req.Title) == "" {
			return invalid(fieldError{Resource: "PullRequest", Field: "title", Code: "missing_field"})
		}
		if out := checkText("PullRequest", "title", *req.Title, maxTitleLen); out != nil {
			return out
		}
	}
	if req.Body != nil {
		if out := checkText("PullRequest", "body", *req.Body, maxBodyLen); out != nil {
			return out
		}
	}
	base := iss.pr.base
	if req.Base != nil {
		if _, found := r.branchHead(*req.Base); !found {
			return invalid(fieldError{Resource: "PullRequest", Field: "base", Code: "invalid"})
		}
		base = *req.Base
	}
	state := iss.state
	if req.State != nil {
		if *req.State != "open" && *req.State != "closed" {
			return invalid(fieldError{Resource: "PullRequest", Field: "state", Code: "invalid"})
		}
		state = *req.State
	}
	if state == "open" && iss.state != "open" && iss.pr.merged {
		return unprocessable("Cannot reopen a merged pull request")
	}
	if state == "open" {
		if _, found := r.branchHead(iss.pr.head); !found {
			return unprocessable("Cannot reopen a pull request whose head branch was deleted")
		}
		if openPullFor(r, iss.pr.head, base, iss.number) != nil {
			return invalid(fieldError{Resource: "PullRequest", Code: "custom",
				Message: fmt.Sprintf("A pull request already exists for %s:%s.", r.owner, iss.pr.head)})
		}
	}
	now := s.now().UTC()
	if req.Title != nil {
		iss.title = *req.Title
	}
	if req.Body != nil {
		iss.body = *req.Body
	}
	iss.pr.base = base
	if state != iss.state {
		iss.state = state
		iss.closedAt = time.Time{}
		if state == "closed" {
			iss.closedAt = now
		}
	}
	iss.updatedAt = now
	return ok(http.StatusOK, rc.pullJSON(r, iss, true))
}

// GET /repos/{owner}/{repo}/pulls/{number}/files
func (s *Server) pullFiles(rc *reqCtx, r *repository) *reply {
	iss, out := pullByNumber(rc, r)
	if out != nil {
		return out
	}
	files, err := pullFilesOf(r, iss)
	if err != nil {
		files = nil
	}
	return listReply(rc, rc.filesJSON(r, r.pullHeadSHA(iss.pr), files))
}

// GET /repos/{owner}/{repo}/pulls/{number}/commits
func (s *Server) pullCommits(rc *reqCtx, r *repository) *reply {
	iss, out := pullByNumber(rc, r)
	if out != nil {
		return out
	}
	shas := pullCommitsOf(r, iss)
	items := make([]map[string]any, 0, len(shas))
	for _, sha := range shas {
		c, _ := r.store.commit(sha)
		items = append(items, rc.repoCommitJSON(r, sha, c, nil))
	}
	return listReply(rc, items)
}

func (rc *reqCtx) issueJSON(r *repository, iss *issue) map[string]any {
	api := fmt.Sprintf("%s/issues/%d", rc.repoAPI(r), iss.number)
	out := map[string]any{
		"id": iss.id, "node_id": fmt.Sprintf("I_%d", iss.id), "url": api,
		"repository_url": rc.repoAPI(r), "comments_url": api + "/comments",
		"html_url": fmt.Sprintf("%s/issues/%d", rc.repoWeb(r), iss.number),
		"number":   iss.number, "state": iss.state, "title": iss.title, "body": iss.body,
		"user": rc.userJSON(iss.user, false), "labels": labelsJSON(iss.labels),
		"assignees": []any{}, "locked": false, "comments": len(iss.comments),
		"created_at": isoTime(iss.createdAt), "updated_at": isoTime(iss.updatedAt),
		"closed_at": nullableTime(iss.closedAt), "author_association": "NONE",
	}
	if iss.pr != nil {
		web := fmt.Sprintf("%s/pull/%d", rc.repoWeb(r), iss.number)
		out["html_url"] = web
		out["pull_request"] = map[string]any{
			"url":      fmt.Sprintf("%s/pulls/%d", rc.repoAPI(r), iss.number),
			"html_url": web, "diff_url": web + ".diff", "patch_url": web + ".patch", "merged_at": nullableTime(iss.pr.mergedAt),
		}
	}
	return out
}

func cleanLabels(labels []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range labels {
		l = strings.TrimSpace(l)
		if l == "" || seen[strings.ToLower(l)] {
			continue
		}
		seen[strings.ToLower(l)] = true
		out = append(out, l)
	}
	return out
}

// POST /repos/{owner}/{repo}/issues
func (s *Server) createIssue(rc *reqCtx, r *repository) *reply {
	var req struct {
		Title  *string  `json:"title"`
		Body   string   `json:"body"`
		Labels []string `json:"labels"`
	}
	if out := rc.decode(&req); out != nil {
		return out
	}
	if req.Title == nil || strings.TrimSpace(*req.Title) == "" {
		return invalid(fieldError{Resource: "Issue", Field: "title", Code: "missing_field"})
	}
	if out := checkText("Issue", "title", *req.Title, maxTitleLen); out != nil {
		return out
	}
	if out := checkText("Issue", "body", req.Body, maxBodyLen); out != nil {
		return out
	}
	if len(req.Labels) > 100 {
		return invalid(fieldError{Resource: "Issue", Field: "labels", Code: "invalid", Message: "at most 100 labels"})
	}
	iss, out := s.newIssue(rc, r, *req.Title, req.Body)
	if out != nil {
		return out
	}
	iss.labels = cleanLabels(req.Labels)
	out = ok(http.StatusCreated, rc.issueJSON(r, iss))
	out.header.Set("Location", fmt.Sprintf("%s/issues/%d", rc.repoAPI(r), iss.number))
	return out
}

// GET /repos/{owner}/{repo}/issues?state=&labels=a,b
func (s *Server) listIssues(rc *reqCtx, r *repository) *reply {
	state, bad := stateFilter(rc)
	if bad != nil {
		return bad
	}
	var want []string
	if v := rc.r.URL.Query().Get("labels"); v != "" {
		want = cleanLabels(strings.Split(v, ","))
	}
	issues := sortedIssues(r, func(iss *issue) bool {
		if state != "all" && iss.state != state {
			return false
		}
		for _, w := range want {
			found := false
			for _, l := range iss.labels {
				found = found || strings.EqualFold(l, w)
			}
			if !found {
				return false
			}
		}
		return true
	})
	items := make([]map[string]any, 0, len(issues))
	for _, iss := range issues {
		items = append(items, rc.issueJSON(r, iss))
	}
	return listReply(rc, items)
}

// GET /repos/{owner}/{repo}/issues/{number}
func (s *Server) getIssue(rc *reqCtx, r *repository) *reply {
	iss, out := issueByNumber(rc, r)
	if out != nil {
		return out
	}
	return ok(http.StatusOK, rc.issueJSON(r, iss))
}

// PATCH /repos/{owner}/{repo}/issues/{number}
func (s *Server) updateIssue(rc *reqCtx, r *repository) *reply {
	iss, out := issueByNumber(rc, r)
	if out != nil {
		return out
	}
	var req struct {
		Title  *string   `json:"title"`
		Body   *string   `json:"body"`
		State  *string   `json:"state"`
		Labels *[]string `json:"labels"`
	}
	if out := rc.decode(&req); out != nil {
		return out
	}
	if req.Title != nil {
		if strings.TrimSpace(*req.Title) == "" {
			return invalid(fieldError{Resource: "Issue", Field: "title", Code: "missing_field"})
		}
		if out := checkText("Issue", "title", *req.Title, maxTitleLen); out != nil {
			return out
		}
	}
	if req.Body != nil {
		if out := checkText("Issue", "body", *req.Body, maxBodyLen); out != nil {
			return out
		}
	}
	if req.State != nil && *req.State != "open" && *req.State != "closed" {
		return invalid(fieldError{Resource: "Issue", Field: "state", Code: "invalid"})
	}
	if req.Labels != nil && len(*req.Labels) > 100 {
		return invalid(fieldError{Resource: "Issue", Field: "labels", Code: "invalid", Message: "at most 100 labels"})
	}
	now := s.now().UTC()
	if req.Title != nil {
		iss.title = *req.Title
	}
	if req.Body != nil {
		iss.body = *req.Body
	}
	if req.Labels != nil {
		iss.labels = cleanLabels(*req.Labels)
	}
	if req.State != nil && *req.State != iss.state {
		iss.state = *req.State
		iss.closedAt = time.Time{}
		if iss.state == "closed" {
			iss.closedAt = now
		}
	}
	iss.updatedAt = now
	return ok(http.StatusOK, rc.issueJSON(r, iss))
}

func (rc *reqCtx) commentJSON(r *repository, iss *issue, c *comment) map[string]any {
	web := fmt.Sprintf("%s/issues/%d", rc.repoWeb(r), iss.number)
	if iss.pr != nil {
		web = fmt.Sprintf("%s/pull/%d", rc.repoWeb(r), iss.number)
	}
	return map[string]any{
		"id": c.id, "node_id": fmt.Sprintf("IC_%d", c.id),
		"url":       fmt.Sprintf("%s/issues/comments/%d", rc.repoAPI(r), c.id),
		"html_url":  fmt.Sprintf("%s#issuecomment-%d", web, c.id),
		"issue_url": fmt.Sprintf("%s/issues/%d", rc.repoAPI(r), iss.number),
		"body":      c.body, "user": rc.userJSON(c.user, false),
		"created_at": isoTime(c.createdAt), "updated_at": isoTime(c.updatedAt),
		"author_association": "NONE",
	}
}

// POST /repos/{owner}/{repo}/issues/{number}/comments
func (s *Server) createComment(rc *reqCtx, r *repository) *reply {
	iss, out := issueByNumber(rc, r)
	if out != nil {
		return out
	}
	var req struct {
		Body *string `json:"body"`
	}
	if out := rc.decode(&req); out != nil {
		return out
	}
	if req.Body == nil || strings.TrimSpace(*req.Body) == "" {
		return invalid(fieldError{Resource: "IssueComment", Field: "body", Code: "missing_field"})
	}
	if out := checkText("IssueComment", "body", *req.Body, maxBodyLen); out != nil {
		return out
	}
	if len(iss.comments) >= maxCommentsPerIss {
		return fail(http.StatusForbidden, "Commenting is disabled on issues with more than 2500 comments")
	}
	now := s.now().UTC()
	c := &comment{id: s.newID(), body: *req.Body, user: rc.cred.login, createdAt: now, updatedAt: now}
	iss.comments = append(iss.comments, c)
	iss.updatedAt = now
	out = ok(http.StatusCreated, rc.commentJSON(r, iss, c))
	out.header.Set("Location", fmt.Sprintf("%s/issues/comments/%d", rc.repoAPI(r), c.id))
	return out
}

// GET /repos/{owner}/{repo}/issues/{number}/comments
func (s *Server) listComments(rc *reqCtx, r *repository) *reply {
	iss, out := issueByNumber(rc, r)
	if out != nil {
		return out
	}
	items := make([]map[string]any, 0, len(iss.comments))
	for _, c := range iss.comments {
		items = append(items, rc.commentJSON(r, iss, c))
	}
	return listReply(rc, items)
}
