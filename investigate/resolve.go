package investigate

import (
	"path"
	"sort"
	"strings"
)

// ResolveRepoPath maps a file as a stack frame or span printed it
// (/usr/src/app/charge.js, com/acme/ad/AdService.java, main.go) onto a path
// of the repository listing. It prefers the longest matching path suffix,
// then paths that name the service, then non-test paths. ok is false when
// nothing matches.
func ResolveRepoPath(paths []string, file, service string) (best string, candidates []string, ok bool) {
	hint := PathHint(Frame{File: file})
	if strings.Contains(file, "/") && !strings.HasPrefix(file, "/") {
		hint = strings.TrimPrefix(path.Clean(file), "./")
	}
	if hint == "" || hint == "." {
		return "", nil, false
	}
	segs := strings.Split(hint, "/")
	type cand struct {
		p     string
		score int
	}
	var cs []cand
	svc := NormalizeServiceName(service)
	for _, p := range paths {
		if path.Base(p) != segs[len(segs)-1] {
			continue
		}
		// Count matching trailing segments.
		ps := strings.Split(p, "/")
		match := 0
		for i := 1; i <= len(segs) && i <= len(ps); i++ {
			if ps[len(ps)-i] != segs[len(segs)-i] {
				break
			}
			match++
		}
		score := match * 10
		if svc != "" {
			for _, seg := range ps[:len(ps)-1] {
				ns := NormalizeServiceName(seg)
				if ns == svc || (len(svc) >= 4 && strings.Contains(ns, svc)) {
					score += 15
					break
				}
			}
		}
		lp := strings.ToLower(p)
		if strings.Contains(lp, "test") || strings.Contains(lp, "spec") || strings.Contains(lp, "mock") || strings.Contains(lp, "example") {
			score -= 5
		}
		score -= len(ps) // shorter paths win ties
		cs = append(cs, cand{p, score})
	}
	if len(cs) == 0 {
		return "", nil, false
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].score > cs[j].score })
	for _, c := range cs {
		candidates = append(candidates, c.p)
	}
	return cs[0].p, candidates, true
}
