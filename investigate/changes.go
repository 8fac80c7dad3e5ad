package investigate

import (
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// changeLine is one added line of a recent commit.
type changeLine struct {
	change Finding
	line   int
	text   string
}

var configExts = map[string]bool{".yaml": true, ".yml": true, ".ini": true, ".conf": true, ".cfg": true, ".toml": true,
	".json": true, ".properties": true, ".env": true, ".tf": true, ".hcl": true, ".tpl": true}

// IsConfigPath reports whether a repository path holds configuration or
// deployment manifests rather than code.
func IsConfigPath(p string) bool {
	return configExts[strings.ToLower(path.Ext(p))] || IsManifestPath(p) || strings.Contains(strings.ToLower(path.Base(p)), "dockerfile")
}

// keywordsFor returns what a changed setting behind this kind of failure
// usually contains.
func keywordsFor(et ErrorType, sig string) *regexp.Regexp {
	switch {
	case et == ErrTimeout:
		return regexp.MustCompile(`(?i)timeout|deadline|read[-_]?timeout|proxy-read|keepalive`)
	case et == ErrNetwork:
		return regexp.MustCompile(`(?i)egress|ingress|policy|port|cidr|host|dns|endpoint|address|url`)
	case et == ErrTLS:
		return regexp.MustCompile(`(?i)issuer|cert|tls|ssl|secret|ca`)
	case et == ErrOOM:
		return regexp.MustCompile(`(?i)memory|heap|Xmx|limit`)
	case et == ErrResourceExhaustion:
		return regexp.MustCompile(`(?i)max|pool|conn|limit|size|replica`)
	case et == ErrConfig || sig == "bad-credentials":
		return regexp.MustCompile(`(?i)env|secret|key|name|value|password|user|config|image|tag|port|probe`)
	case et == ErrDependency:
		return regexp.MustCompile(`(?i)url|host|endpoint|provider|timeout|retry`)
	}
	return nil
}

// recentChangeLines lists the added lines of commits made within 48 hours
// before the impact started (or a few minutes after: deploys lag merges).
func (ev *evidence) recentChangeLines(filter func(Finding) bool) []changeLine {
	var out []changeLine
	for _, f := range ev.findings {
		if f.Kind != KindChangeCorrelation || f.File == "" || !filter(f) {
			continue
		}
		if !ev.onset.IsZero() && (f.Time.After(ev.onset.Add(5*time.Minute)) || ev.onset.Sub(f.Time) > 48*time.Hour) {
			continue
		}
		for _, row := range strings.Split(f.Attrs["added"], "\n") {
			i := strings.IndexByte(row, ':')
			if i <= 0 {
				continue
			}
			n, err := strconv.Atoi(row[:i])
			if err != nil {
				continue
			}
			out = append(out, changeLine{change: f, line: n, text: row[i+1:]})
		}
	}
	// Newest change first: the last thing that changed before the impact.
	sort.SliceStable(out, func(i, j int) bool { return out[i].change.Time.After(out[j].change.Time) })
	return out
}

// relatedTo reports whether a change concerns the service (its name in the
// path or in the changed lines) or its namespace.
func (ev *evidence) relatedTo(f Finding, service string) bool {
	svc := NormalizeServiceName(service)
	if svc == "" {
		return false
	}
	for _, seg := range strings.Split(strings.TrimSuffix(f.File, path.Ext(f.File)), "/") {
		if n := NormalizeServiceName(seg); n == svc || (len(svc) >= 4 && strings.Contains(n, svc)) {
			return true
		}
	}
	added := strings.ToLower(f.Attrs["added"])
	if strings.Contains(NormalizeServiceName(added), svc) && len(svc) >= 4 {
		return true
	}
	if ns := ev.issue.Namespace; ns != "" && strings.Contains(added, strings.ToLower(ns)) {
		return true
	}
	return false
}

// configChange finds the recent configuration change an infrastructure
// cause most likely comes from: a changed manifest/config line related to
// the service whose content matches the kind of failure.
func (ev *evidence) configChange(c *candidate) (changeLine, bool) {
	kw := keywordsFor(c.ErrorType, c.Signature)
	lines := ev.recentChangeLines(func(f Finding) bool { return IsConfigPath(f.File) && ev.relatedTo(f, c.Service) })
	if len(lines) == 0 {
		lines = ev.recentChangeLines(func(f Finding) bool { return IsConfigPath(f.File) && ev.namespaceWide(f, c) })
	}
	for _, l := range lines {
		if kw != nil && kw.MatchString(l.text) {
			return l, true
		}
	}
	return changeLine{}, false
}

// namespaceWide: cluster/namespace-wide changes (network policies, ingress
// defaults, issuers) whose changed lines name what the failure names (the
// port or host the errors mention).
func (ev *evidence) namespaceWide(f Finding, c *candidate) bool {
	added := strings.ToLower(f.Attrs["added"])
	if !regexp.MustCompile(`(?i)kind:\s*(networkpolicy|ingress|clusterissuer|issuer|certificate|gateway|virtualservice|destinationrule|authorizationpolicy|peerauthentication)`).MatchString(added) &&
		!strings.Contains(strings.ToLower(f.File), "network") && !strings.Contains(strings.ToLower(f.File), "ingress") {
		return false
	}
	switch c.ErrorType {
	case ErrNetwork, ErrTimeout, ErrTLS, ErrDependency:
		return true
	}
	return false
}

var acquireRE = regexp.MustCompile(`getConnection\(|\.open\(|\bOpen\(|\.connect\(|\bacquire\(|\bAcquire\(|new \w*(?:Stream|Reader|Writer|Socket|Client)\(|\bmake\(map\[|\bmap\[[^\]]+\][\w*.]+\{|sync\.Map|[Cc]ache\b|\bmemo|ConcurrentHashMap|\.put\(|\.Store\(|\bappend\(|\bdict\(|\blru|Pool\(|\.Get\(\)|BeginTx|\.begin\(`)

// leakChange finds a recent code change in the service that acquires or
// accumulates resources (a connection without close, an unbounded cache):
// the usual origin of memory or pool exhaustion that is not capacity.
func (ev *evidence) leakChange(c *candidate) (changeLine, bool) {
	lines := ev.recentChangeLines(func(f Finding) bool { return !IsConfigPath(f.File) && ev.relatedTo(f, c.Service) })
	for _, l := range lines {
		t := strings.TrimSpace(l.text)
		if strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "*") {
			continue
		}
		if acquireRE.MatchString(t) {
			return l, true
		}
	}
	return changeLine{}, false
}
