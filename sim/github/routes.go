package github

import (
	"net/http"
)

type repoHandler func(rc *reqCtx, r *repository) *reply

func (s *Server) routes() *http.ServeMux {
	m := http.NewServeMux()
	plain := func(pattern string, h func(rc *reqCtx) *reply) {
		m.HandleFunc(pattern, func(_ http.ResponseWriter, req *http.Request) {
			rc := req.Context().Value(ctxKey{}).(*reqCtx)
			rc.r = req
			rc.out = h(rc)
		})
	}
	// Repository handlers run under the server lock: state is small and a
	// single lock keeps every multi-object update atomic.
	repo := func(pattern string, h repoHandler) {
		m.HandleFunc(pattern, func(_ http.ResponseWriter, req *http.Request) {
			rc := req.Context().Value(ctxKey{}).(*reqCtx)
			rc.r = req
			s.mu.Lock()
			defer s.mu.Unlock()
			r, found := s.repos[repoKey(req.PathValue("owner"), req.PathValue("repo"))]
			if !found {
				rc.out = notFound()
				return
			}
			rc.out = h(rc, r)
		})
	}

	plain("/", func(*reqCtx) *reply { return notFound() })
	plain("GET /rate_limit", s.getRateLimit)
	plain("GET /user", func(rc *reqCtx) *reply { return ok(http.StatusOK, rc.userJSON(rc.cred.login, rc.cred.bot)) })

	plain("GET /app", s.getApp)
	plain("GET /app/installations/{id}", s.getInstallation)
	plain("POST /app/installations/{id}/access_tokens", s.createInstallationToken)
	plain("GET /repos/{owner}/{repo}/installation", s.getRepoInstallation)

	repo("GET /repos/{owner}/{repo}", s.getRepo)
	repo("GET /repos/{owner}/{repo}/contents", s.getContents)
	repo("GET /repos/{owner}/{repo}/contents/{path...}", s.getContents)
	repo("PUT /repos/{owner}/{repo}/contents/{path...}", s.putContents)
	repo("DELETE /repos/{owner}/{repo}/contents/{path...}", s.deleteContents)
	repo("GET /raw/{owner}/{repo}/{ref}/{path...}", s.getRaw)
	repo("GET /repos/{owner}/{repo}/commits", s.listCommits)
	repo("GET /repos/{owner}/{repo}/commits/{ref...}", s.getCommit)
	repo("GET /repos/{owner}/{repo}/branches", s.listBranches)
	repo("GET /repos/{owner}/{repo}/branches/{branch...}", s.getBranch)
	repo("GET /repos/{owner}/{repo}/compare/{basehead...}", s.compare)

	repo("GET /repos/{owner}/{repo}/git/ref/{ref...}", s.getRef)
	repo("GET /repos/{owner}/{repo}/git/matching-refs/{ref...}", s.matchingRefs)
	repo("GET /repos/{owner}/{repo}/git/refs", s.legacyRefs)
	repo("GET /repos/{owner}/{repo}/git/refs/{ref...}", s.legacyRefs)
	repo("POST /repos/{owner}/{repo}/git/refs", s.createRef)
	repo("PATCH /repos/{owner}/{repo}/git/refs/{ref...}", s.updateRef)
	repo("DELETE /repos/{owner}/{repo}/git/refs/{ref...}", s.deleteRef)
	repo("POST /repos/{owner}/{repo}/git/blobs", s.createBlob)
	repo("GET /repos/{owner}/{repo}/git/blobs/{sha}", s.getBlob)
	repo("POST /repos/{owner}/{repo}/git/trees", s.createTree)
	repo("GET /repos/{owner}/{repo}/git/trees/{ref...}", s.getTree)
	repo("POST /repos/{owner}/{repo}/git/commits", s.createCommit)
	repo("GET /repos/{owner}/{repo}/git/commits/{sha}", s.getGitCommit)

	repo("POST /repos/{owner}/{repo}/pulls", s.createPull)
	repo("GET /repos/{owner}/{repo}/pulls", s.listPulls)
	repo("GET /repos/{owner}/{repo}/pulls/{number}", s.getPull)
	repo("PATCH /repos/{owner}/{repo}/pulls/{number}", s.updatePull)
	repo("GET /repos/{owner}/{repo}/pulls/{number}/files", s.pullFiles)
	repo("GET /repos/{owner}/{repo}/pulls/{number}/commits", s.pullCommits)
	repo("PUT /repos/{owner}/{repo}/pulls/{number}/merge", s.mergePull)

	repo("POST /repos/{owner}/{repo}/issues", s.createIssue)
	repo("GET /repos/{owner}/{repo}/issues", s.listIssues)
	repo("GET /repos/{owner}/{repo}/issues/{number}", s.getIssue)
	repo("PATCH /repos/{owner}/{repo}/issues/{number}", s.updateIssue)
	repo("POST /repos/{owner}/{repo}/issues/{number}/comments", s.createComment)
	repo("GET /repos/{owner}/{repo}/issues/{number}/comments", s.listComments)
	return m
}

// GET /rate_limit
func (s *Server) getRateLimit(*reqCtx) *reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	core := map[string]any{
		"limit": s.opts.RateLimit, "used": s.rateUsed, "remaining": s.opts.RateLimit - s.rateUsed,
		"reset": s.rateReset.Unix(), "resource": "core",
	}
	return ok(http.StatusOK, map[string]any{"resources": map[string]any{"core": core}, "rate": core})
}
