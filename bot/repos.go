package bot

import (
	"fmt"
	"path"
	"strings"
)

// Repositories a thread may point the investigation at: `repo` decides
// what the deployment's GitHub credentials read and what source reaches
// the thread, so a thread may only name a repository on the allowlist
// (AUTOHEAL_ALLOWED_REPOS: owner/name or owner/*); by default the owners of
// the repositories the operator configured (the environment's repo and the
// alert routes' sessions). A whole channel's repo is an admin's choice.

// RepoPatterns parses AUTOHEAL_ALLOWED_REPOS: owner/name or owner/*,
// separated by commas or spaces.
func RepoPatterns(s string) ([]string, error) {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' }) {
		owner, name, ok := strings.Cut(strings.ToLower(f), "/")
		if !ok || owner == "" || name == "" || strings.Contains(name, "/") || owner == "*" {
			return nil, fmt.Errorf("%q: want owner/name or owner/*", f)
		}
		out = append(out, owner+"/"+name)
	}
	return out, nil
}

// OwnerPatterns are owner/* for each configured repository.
func OwnerPatterns(repos ...string) []string {
	var out []string
	for _, r := range repos {
		if owner, _, ok := strings.Cut(strings.ToLower(strings.TrimSpace(r)), "/"); ok && owner != "" {
			out = append(out, owner+"/*")
		}
	}
	return out
}

// repoAllowed reports whether repo matches a pattern. With no pattern at
// all (the operator configured no repository anywhere), every repository
// is allowed: nothing says which ones the credentials are meant for.
func repoAllowed(patterns []string, repo string) bool {
	if len(patterns) == 0 {
		return true
	}
	repo = strings.ToLower(strings.TrimSpace(repo))
	for _, p := range patterns {
		if ok, _ := path.Match(p, repo); ok {
			return true
		}
	}
	return false
}
