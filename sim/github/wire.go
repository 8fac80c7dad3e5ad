package github

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
)

// This file builds the JSON documents GitHub serves. Field names follow the
// REST API reference; only fields a client can reasonably use are filled.

func (rc *reqCtx) repoAPI(r *repository) string {
	return fmt.Sprintf("%s/repos/%s/%s", rc.api, r.owner, r.name)
}

func (rc *reqCtx) repoWeb(r *repository) string {
	return fmt.Sprintf("%s/%s/%s", rc.web, r.owner, r.name)
}

// escapePath escapes each segment of a slash-separated path.
func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

func (rc *reqCtx) userJSON(login string, bot bool) map[string]any {
	typ := "User"
	if bot || strings.HasSuffix(login, "[bot]") {
		typ = "Bot"
	}
	return map[string]any{
		"login": login, "id": stableID("user:" + login), "node_id": "U_" + base64.RawStdEncoding.EncodeToString([]byte(login)),
		"type": typ, "site_admin": false,
		"url": rc.api + "/users/" + url.PathEscape(login), "html_url": rc.web + "/" + url.PathEscape(login),
	}
}

func (rc *reqCtx) ownerJSON(r *repository) map[string]any {
	u := rc.userJSON(r.owner, false)
	u["type"] = "Organization"
	return u
}

func (rc *reqCtx) repoJSON(r *repository) map[string]any {
	visibility := "public"
	if r.private {
		visibility = "private"
	}
	api := rc.repoAPI(r)
	return map[string]any{
		"id": r.id, "node_id": fmt.Sprintf("R_%d", r.id), "name": r.name, "full_name": r.fullName(),
		"private": r.private, "visibility": visibility, "owner": rc.ownerJSON(r),
		"html_url": rc.repoWeb(r), "url": api, "description": nil, "fork": false,
		"git_url":        strings.Replace(rc.repoWeb(r), "https://", "git://", 1) + ".git",
		"clone_url":      rc.repoWeb(r) + ".git",
		"commits_url":    api + "/commits{/sha}",
		"contents_url":   api + "/contents/{+path}",
		"pulls_url":      api + "/pulls{/number}",
		"default_branch": r.defaultBranch,
		"created_at":     isoTime(r.createdAt), "updated_at": isoTime(r.createdAt), "pushed_at": isoTime(r.createdAt),
		"archived": false, "disabled": false, "has_issues": true,
		"permissions": map[string]bool{"admin": false, "maintain": false, "push": true, "triage": true, "pull": true},
	}
}

func (rc *reqCtx) signatureJSON(s signature) map[string]any {
	return map[string]any{"name": s.Name, "email": s.Email, "date": isoTime(s.Date)}
}

func (rc *reqCtx) parentsJSON(r *repository, parents []string, web bool) []map[string]any {
	out := make([]map[string]any, 0, len(parents))
	for _, p := range parents {
		e := map[string]any{"sha": p, "url": rc.repoAPI(r) + "/commits/" + p, "html_url": rc.repoWeb(r) + "/commit/" + p}
		if !web {
			e["url"] = rc.repoAPI(r) + "/git/commits/" + p
		}
		out = append(out, e)
	}
	return out
}

var unsigned = map[string]any{"verified": false, "reason": "unsigned", "signature": nil, "payload": nil}

// gitCommitJSON is the Git Data API commit (GET /git/commits/{sha}).
func (rc *reqCtx) gitCommitJSON(r *repository, sha string, c *gitCommit) map[string]any {
	return map[string]any{
		"sha": sha, "node_id": "C_" + sha[:20], "url": rc.repoAPI(r) + "/git/commits/" + sha,
		"html_url": rc.repoWeb(r) + "/commit/" + sha,
		"author":   rc.signatureJSON(c.Author), "committer": rc.signatureJSON(c.Committer),
		"tree":    map[string]any{"sha": c.Tree, "url": rc.repoAPI(r) + "/git/trees/" + c.Tree},
		"message": c.Message, "parents": rc.parentsJSON(r, c.Parents, false),
		"verification": unsigned,
	}
}

// repoCommitJSON is the commits API commit; files are included for the
// single-commit endpoint only, as on GitHub.
func (rc *reqCtx) repoCommitJSON(r *repository, sha string, c *gitCommit, files []fileChange) map[string]any {
	inner := map[string]any{
		"author": rc.signatureJSON(c.Author), "committer": rc.signatureJSON(c.Committer),
		"message": c.Message, "tree": map[string]any{"sha": c.Tree, "url": rc.repoAPI(r) + "/git/trees/" + c.Tree},
		"url": rc.repoAPI(r) + "/git/commits/" + sha, "comment_count": 0, "verification": unsigned,
	}
	out := map[string]any{
		"sha": sha, "node_id": "C_" + sha[:20], "commit": inner,
		"url": rc.repoAPI(r) + "/commits/" + sha, "html_url": rc.repoWeb(r) + "/commit/" + sha,
		"comments_url": rc.repoAPI(r) + "/commits/" + sha + "/comments",
		"author":       nil, "committer": nil,
		"parents": rc.parentsJSON(r, c.Parents, true),
	}
	if files != nil {
		adds, dels := 0, 0
		for _, f := range files {
			adds += f.Additions
			dels += f.Deletions
		}
		out["stats"] = map[string]int{"total": adds + dels, "additions": adds, "deletions": dels}
		out["files"] = rc.filesJSON(r, sha, files)
	}
	return out
}

// filesJSON renders diff entries (commit files, PR files, compare files).
func (rc *reqCtx) filesJSON(r *repository, ref string, files []fileChange) []map[string]any {
	out := make([]map[string]any, 0, len(files))
	for _, f := range files {
		e := map[string]any{
			"sha": f.SHA, "filename": f.Path, "status": f.Status,
			"additions": f.Additions, "deletions": f.Deletions, "changes": f.Additions + f.Deletions,
			"blob_url":     rc.repoWeb(r) + "/blob/" + ref + "/" + escapePath(f.Path),
			"raw_url":      rc.repoWeb(r) + "/raw/" + ref + "/" + escapePath(f.Path),
			"contents_url": rc.repoAPI(r) + "/contents/" + escapePath(f.Path) + "?ref=" + ref,
		}
		if f.Patch != "" {
			e["patch"] = f.Patch
		}
		out = append(out, e)
	}
	return out
}

func (rc *reqCtx) refJSON(r *repository, name, sha string) map[string]any {
	return map[string]any{
		"ref": name, "node_id": "REF_" + base64.RawStdEncoding.EncodeToString([]byte(name)),
		"url": rc.repoAPI(r) + "/git/" + escapePath(name),
		"object": map[string]any{
			"sha": sha, "type": "commit", "url": rc.repoAPI(r) + "/git/commits/" + sha,
		},
	}
}

// encodeContent is base64 broken into 60-character lines, as GitHub sends it.
func encodeContent(b []byte) string {
	enc := base64.StdEncoding.EncodeToString(b)
	var sb strings.Builder
	sb.Grow(len(enc) + len(enc)/60 + 1)
	for len(enc) > 60 {
		sb.WriteString(enc[:60])
		sb.WriteByte('\n')
		enc = enc[60:]
	}
	sb.WriteString(enc)
	sb.WriteByte('\n')
	return sb.String()
}
