package github

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// The simulator serves a few read-only HTML pages at the paths its
// html_url fields name, so that links AutoHeal posts (a pull request, an
// issue, a source line) open something in a demo: the repository, a pull
// request with its diff and comments, an issue, a file at a ref. They need
// no credentials, like the pages of a public repository.

// apiRoots are the first path segments of API routes; web pages never
// answer under them.
var apiRoots = map[string]bool{
	"repos": true, "user": true, "users": true, "app": true, "rate_limit": true,
	"raw": true, "installation": true, "orgs": true, "api": true,
}

// webBase is the web base URL of a request: Options.WebURL when set, else
// the server's own address (an httptest server's URL).
func (s *Server) webBase(r *http.Request) string {
	if s.opts.WebURL != "" {
		return s.opts.WebURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	base := scheme + "://" + r.Host
	s.lastWeb.Store(&base)
	return base
}

// webBaseNoRequest is the web base for helpers called without a request
// (Merge, under s.mu): the configured one, else the last one a request used.
func (s *Server) webBaseNoRequest() string {
	if s.opts.WebURL != "" {
		return s.opts.WebURL
	}
	if b := s.lastWeb.Load(); b != nil {
		return *b
	}
	return "http://localhost"
}

func (s *Server) webRoutes() *http.ServeMux {
	m := http.NewServeMux()
	m.HandleFunc("GET /{owner}/{repo}", s.webRepo)
	m.HandleFunc("GET /{owner}/{repo}/pull/{number}", s.webIssue)
	m.HandleFunc("GET /{owner}/{repo}/pull/{number}/files", s.webIssue)
	m.HandleFunc("GET /{owner}/{repo}/issues/{number}", s.webIssue)
	m.HandleFunc("GET /{owner}/{repo}/blob/{rest...}", s.webBlob)
	return m
}

// webPage reports whether r is for a web page, and serves it.
func (s *Server) webPage(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	first, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if first == "" || apiRoots[first] {
		return false
	}
	if _, pattern := s.web.Handler(r); pattern == "" {
		return false
	}
	rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	s.web.ServeHTTP(rec, r) // sets the path values Handler does not
	s.opts.Transcript.Record(serviceName, "WEB "+r.Method+" "+r.URL.Path, nil, map[string]any{"status": rec.status})
	return true
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

var webTmpl = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}pre{background:#f6f8fa;padding:1em;overflow:auto}
.add{color:#116329}.del{color:#82071e}.meta{color:#57606a}td.n{color:#57606a;text-align:right;padding-right:1em}</style>
</head><body>
<p class="meta"><a href="{{.RepoURL}}">{{.Repo}}</a> · GitHub simulator</p>
<h1>{{.Title}}</h1>
{{range .Meta}}<p class="meta">{{.}}</p>
{{end}}{{if .Body}}<pre>{{.Body}}</pre>
{{end}}{{range .Files}}<h3>{{.Path}} <span class="meta">({{.Status}}, +{{.Additions}} −{{.Deletions}})</span></h3>
<pre>{{range .Lines}}<span class="{{.Class}}">{{.Text}}</span>
{{end}}</pre>
{{end}}{{if .Source}}<table>{{range .Source}}<tr id="L{{.N}}"><td class="n">{{.N}}</td><td><pre style="margin:0;padding:0;background:none">{{.Text}}</pre></td></tr>
{{end}}</table>
{{end}}{{range .Comments}}<h3>{{.User}} commented</h3><pre>{{.Body}}</pre>
{{end}}{{range .Links}}<p><a href="{{.URL}}">{{.Text}}</a></p>
{{end}}</body></html>
`))

type webLine struct{ Class, Text string }

type webFile struct {
	Path, Status         string
	Additions, Deletions int
	Lines                []webLine
}

type webSourceLine struct {
	N    int
	Text string
}

type webLink struct{ URL, Text string }

type webDoc struct {
	Title, Repo, RepoURL, Body string
	Meta                       []string
	Files                      []webFile
	Source                     []webSourceLine
	Comments                   []Comment
	Links                      []webLink
}

func writeWeb(w http.ResponseWriter, d webDoc) {
	var buf bytes.Buffer
	if err := webTmpl.Execute(&buf, d); err != nil {
		http.Error(w, "render: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(buf.Bytes())
}

// GET /{owner}/{repo}
func (s *Server) webRepo(w http.ResponseWriter, req *http.Request) {
	base := s.webBase(req)
	s.mu.Lock()
	defer s.mu.Unlock()
	r, found := s.repos[repoKey(req.PathValue("owner"), req.PathValue("repo"))]
	if !found {
		http.NotFound(w, req)
		return
	}
	repoURL := fmt.Sprintf("%s/%s/%s", base, r.owner, r.name)
	d := webDoc{Title: r.fullName(), Repo: r.fullName(), RepoURL: repoURL,
		Meta: []string{"default branch " + r.defaultBranch, "branches: " + strings.Join(r.branchNames(), ", ")}}
	nums := make([]int, 0, len(r.issues))
	for n := range r.issues {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	for _, n := range nums {
		iss := r.issues[n]
		kind := "issues"
		if iss.pr != nil {
			kind = "pull"
		}
		d.Links = append(d.Links, webLink{URL: fmt.Sprintf("%s/%s/%d", repoURL, kind, n), Text: fmt.Sprintf("#%d %s (%s)", n, iss.title, iss.state)})
	}
	writeWeb(w, d)
}

// GET /{owner}/{repo}/pull/{number}, /issues/{number}
func (s *Server) webIssue(w http.ResponseWriter, req *http.Request) {
	base := s.webBase(req)
	s.mu.Lock()
	defer s.mu.Unlock()
	r, found := s.repos[repoKey(req.PathValue("owner"), req.PathValue("repo"))]
	if !found {
		http.NotFound(w, req)
		return
	}
	n, err := strconv.Atoi(req.PathValue("number"))
	iss := r.issues[n]
	wantPull := strings.Contains(req.Pattern, "/pull/")
	if err != nil || iss == nil || (wantPull && iss.pr == nil) {
		http.NotFound(w, req)
		return
	}
	repoURL := fmt.Sprintf("%s/%s/%s", base, r.owner, r.name)
	d := webDoc{Title: fmt.Sprintf("%s #%d", iss.title, n), Repo: r.fullName(), RepoURL: repoURL, Body: iss.body,
		Comments: snapshotComments(iss.comments)}
	state := iss.state
	if iss.pr != nil {
		if iss.pr.merged {
			state = "merged"
		} else if iss.pr.draft {
			state += " (draft)"
		}
		d.Meta = append(d.Meta, fmt.Sprintf("%s · %s wants to merge %s into %s", state, iss.user, iss.pr.head, iss.pr.base))
		if files, err := pullFilesOf(r, iss); err == nil {
			for _, f := range files {
				wf := webFile{Path: f.Path, Status: f.Status, Additions: f.Additions, Deletions: f.Deletions}
				for _, l := range strings.Split(strings.TrimRight(f.Patch, "\n"), "\n") {
					c := ""
					switch {
					case strings.HasPrefix(l, "+"):
						c = "add"
					case strings.HasPrefix(l, "-"):
						c = "del"
					}
					wf.Lines = append(wf.Lines, webLine{Class: c, Text: l})
				}
				d.Files = append(d.Files, wf)
			}
		}
	} else {
		d.Meta = append(d.Meta, fmt.Sprintf("%s · opened by %s · labels: %s", state, iss.user, strings.Join(iss.labels, ", ")))
	}
	writeWeb(w, d)
}

// GET /{owner}/{repo}/blob/{ref}/{path...}: the ref may hold slashes, so
// the longest prefix that resolves wins.
func (s *Server) webBlob(w http.ResponseWriter, req *http.Request) {
	base := s.webBase(req)
	s.mu.Lock()
	defer s.mu.Unlock()
	r, found := s.repos[repoKey(req.PathValue("owner"), req.PathValue("repo"))]
	if !found {
		http.NotFound(w, req)
		return
	}
	parts := strings.Split(req.PathValue("rest"), "/")
	for i := len(parts) - 1; i >= 1; i-- {
		ref, p := strings.Join(parts[:i], "/"), strings.Join(parts[i:], "/")
		content, ok := r.fileAt(ref, p)
		if !ok {
			continue
		}
		repoURL := fmt.Sprintf("%s/%s/%s", base, r.owner, r.name)
		d := webDoc{Title: p, Repo: r.fullName(), RepoURL: repoURL, Meta: []string{"at " + ref}}
		for j, l := range strings.Split(strings.TrimSuffix(string(content), "\n"), "\n") {
			d.Source = append(d.Source, webSourceLine{N: j + 1, Text: l})
		}
		writeWeb(w, d)
		return
	}
	http.NotFound(w, req)
}
