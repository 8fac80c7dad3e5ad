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

// compiledFrom maps a runtime file extension onto the source extensions it
// is compiled from (TypeScript's tsc, Babel, esbuild).
var compiledFrom = map[string][]string{
	".js": {".ts", ".tsx"}, ".mjs": {".mts", ".ts"}, ".cjs": {".cts", ".ts"}, ".jsx": {".tsx"},
}

// buildOutputDirs hold compiled output, not sources.
var buildOutputDirs = map[string]bool{"dist": true, "build": true, "out": true, "lib": true, ".output": true, "compiled": true, "target": true}

// ResolveCompiledSource maps a file of compiled output a frame printed
// (/app/dist/routes/order.js) onto the source it was compiled from
// (src/routes/order.ts) when the repository holds no file of that name:
// the build-output directories are dropped and the source extensions
// tried. The line numbers of compiled output are not the source's.
func ResolveCompiledSource(paths []string, file, service string) (best string, candidates []string, ok bool) {
	ext := strings.ToLower(path.Ext(file))
	srcs := compiledFrom[ext]
	if len(srcs) == 0 {
		return "", nil, false
	}
	hint := strings.TrimSuffix(PathHint(Frame{File: file}), path.Ext(file))
	var keep []string
	for _, s := range strings.Split(hint, "/") {
		if s != "" && !buildOutputDirs[s] {
			keep = append(keep, s)
		}
	}
	if len(keep) == 0 {
		return "", nil, false
	}
	stem := strings.Join(keep, "/")
	for _, se := range srcs {
		if p, cs, ok := ResolveRepoPath(paths, stem+se, service); ok {
			return p, cs, true
		}
	}
	return "", nil, false
}
