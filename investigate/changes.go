package investigate

import (
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
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
	if isUnitFile(p) {
		return true // a systemd unit (or its template) configures the process
	}
	if u := untemplated(p); u != p && configExts[strings.ToLower(path.Ext(u))] {
		return true // a config file behind a template extension (app.conf.j2)
	}
	return configExts[strings.ToLower(path.Ext(p))] || IsManifestPath(p) || strings.Contains(strings.ToLower(path.Base(p)), "dockerfile")
}

// keywordsFor returns, most telling first, what a changed setting behind
// this kind of failure usually contains.
func keywordsFor(et ErrorType, sig string) []*regexp.Regexp {
	res := func(pats ...string) []*regexp.Regexp {
		out := make([]*regexp.Regexp, len(pats))
		for i, p := range pats {
			out[i] = compiled(p)
		}
		return out
	}
	switch {
	case et == ErrTimeout:
		return res(`(?i)timeout|deadline`, `(?i)keepalive|retries|retry`)
	case et == ErrNetwork:
		return res(`(?i)^\s*-?\s*(egress|ingress):`, `(?i)\bports?:|\bport\b`, `(?i)cidr|ipBlock|namespaceSelector|podSelector`, `(?i)host|endpoint|address|url|dns`, `(?i)policy`)
	case et == ErrTLS:
		return res(`(?i)issuer`, `(?i)cert|tls|ssl`, `(?i)secret|\bca\b`)
	case et == ErrOOM:
		return res(`(?i)memory`, `(?i)heap|Xmx|limit`)
	case sig == "rate-limited":
		// A gateway's own limiter: its policy, the limit, and what it counts by.
		return res(`(?i)limit_by|identifier|header_name|policy|by_ip|key`, `(?i)minute|second|hour|limit`)
	case sig == "redis-oom":
		return res(`(?i)maxmemory`, `(?i)max|evict`)
	case sig == "quota-exceeded":
		// The quota's hard limit that binds (limits.cpu, pods) was lowered.
		return res(`(?i)(?:requests|limits)\.(?:cpu|memory)|pods|count/`, `(?i)hard|quota`)
	case sig == "proxy-overflow":
		// Pending-request overflow is the usual trip (a queue of 1), then
		// the connection and request caps.
		return res(`(?i)pending`, `(?i)maxConnections|maxRequests|max_requests|max_connections|connectionPool`)
	case sig == "consumer-rebalance":
		return res(`(?i)poll|session|heartbeat|rebalanc`, `(?i)batch|max|records|timeout`)
	case sig == "queue-redelivery":
		return res(`(?i)visibility|ack_?deadline|ackDeadline|consumer_timeout|lock_?duration|lockDuration`, `(?i)timeout|deadline|extension`)
	case et == ErrResourceExhaustion && sig == "server-connlimit":
		// A server's connection limit is often set by a shared parameter
		// group or config profile the change switched to.
		return res(`(?i)max|pool|conn|parameter|profile`, `(?i)limit|size|replica`)
	case et == ErrResourceExhaustion:
		return res(`(?i)max|pool|conn`, `(?i)limit|size|replica`)
	case et == ErrConfig || sig == "bad-credentials":
		return res(`(?i)secretKeyRef|key:|env|secret`, `(?i)name|value|password|user|config|image|tag|port|probe`)
	case et == ErrDependency:
		return res(`(?i)url|host|endpoint|provider`, `(?i)timeout|retry`)
	}
	return nil
}

// recentLookback is how far before the impact a change still counts as its
// likely cause; leakLookback is longer because a leak takes days to exhaust
// memory or a pool after the deploy that introduced it.
const (
	recentLookback = 48 * time.Hour
	leakLookback   = 7 * 24 * time.Hour
)

// changedBefore reports whether a change made at t lies within lookback
// before ref (or a few minutes after: deploys lag merges). Without a
// reference time every change counts.
func changedBefore(t, ref time.Time, lookback time.Duration) bool {
	return ref.IsZero() || (!t.After(ref.Add(5*time.Minute)) && ref.Sub(t) <= lookback)
}

// recentChangeLines lists the added lines of commits made within 48 hours
// before the impact started.
func (ev *evidence) recentChangeLines(filter func(Finding) bool) []changeLine {
	return ev.addedLinesBefore(filter, ev.onset, recentLookback)
}

// numberedLine is one line of a source window or a diff: its number and text.
type numberedLine struct {
	n    int
	text string
}

// diffRows parses a change's "n:text" rows.
func diffRows(attr string) []numberedLine {
	var out []numberedLine
	for _, row := range strings.Split(attr, "\n") {
		i := strings.IndexByte(row, ':')
		if i <= 0 {
			continue
		}
		n, err := strconv.Atoi(row[:i])
		if err != nil {
			continue
		}
		out = append(out, numberedLine{n: n, text: row[i+1:]})
	}
	return out
}

// addedLinesBefore lists the added lines of the changes filter accepts made
// within lookback before ref, newest change first.
func (ev *evidence) addedLinesBefore(filter func(Finding) bool, ref time.Time, lookback time.Duration) []changeLine {
	var out []changeLine
	for _, f := range ev.findings {
		if f.Kind != KindChangeCorrelation || f.File == "" || !filter(f) {
			continue
		}
		if !changedBefore(f.Time, ref, lookback) {
			continue
		}
		for _, row := range diffRows(f.Attrs["added"]) {
			out = append(out, changeLine{change: f, line: row.n, text: row.text})
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
		n := NormalizeServiceName(seg)
		if n == svc || (len(svc) >= 4 && strings.Contains(n, svc)) || (len(n) >= 5 && strings.HasPrefix(svc, n) && genericSuffix[strings.TrimPrefix(svc, n)]) {
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
	if l, ok := ev.namedConfigChange(c); ok {
		return l, true
	}
	kw := keywordsFor(c.ErrorType, c.Signature)
	lines := ev.recentChangeLines(func(f Finding) bool { return IsConfigPath(f.File) && ev.relatedTo(f, c.Service) })
	if slowBurn[c.Signature] {
		lines = ev.addedLinesBefore(func(f Finding) bool { return IsConfigPath(f.File) && ev.relatedTo(f, c.Service) }, ev.onset, leakLookback)
	}
	if c.hasSignature("quota-exceeded") {
		// The quota is the namespace's, not in the service's own files, and
		// a lowered ceiling bites only at the next peak, days later.
		lines = ev.addedLinesBefore(func(f Finding) bool { return IsConfigPath(f.File) && ev.namespaceWide(f, c) }, ev.onset, leakLookback)
		// The admission error names the hard limit that binds.
		if m := quotaLimitedRE.FindStringSubmatch(joinQuotes(c.Support) + " " + supportAttr(c, "message")); m != nil {
			for _, l := range lines {
				if strings.Contains(l.text, m[1]+":") || strings.Contains(l.text, m[1]+" :") {
					return l, true
				}
			}
		}
	}
	if len(lines) == 0 && c.ErrorType != ErrTLS {
		lines = ev.recentChangeLines(func(f Finding) bool { return IsConfigPath(f.File) && ev.namespaceWide(f, c) })
	}
	if c.ErrorType == ErrOOM || c.ErrorType == ErrResourceExhaustion {
		lines = withoutRaisedLimits(lines)
	}
	// In a multi-document manifest, the document that names the service
	// (its NetworkPolicy, its Ingress) holds the setting.
	docOf, mentions := yamlDocuments(lines, c.Service)
	for _, own := range []bool{true, false} {
		for _, re := range kw {
			for i, l := range lines {
				if own && !mentions[docOf[i]] {
					continue
				}
				if re.MatchString(l.text) {
					return l, true
				}
			}
		}
	}
	return changeLine{}, false
}

type docKey struct {
	sha, file string
	doc       int
}

// yamlDocuments numbers the YAML documents ("---" separated) the changed
// lines belong to and reports which documents name the service.
func yamlDocuments(lines []changeLine, service string) ([]docKey, map[docKey]bool) {
	svc := NormalizeServiceName(service)
	docOf := make([]docKey, len(lines))
	mentions := map[docKey]bool{}
	counter := map[[2]string]int{}
	// Lines of one change are in file order within recentChangeLines.
	for i, l := range lines {
		k := [2]string{l.change.Attrs["sha"], l.change.File}
		if strings.TrimSpace(l.text) == "---" {
			counter[k]++
		}
		docOf[i] = docKey{k[0], k[1], counter[k]}
		if svc != "" && strings.Contains(NormalizeServiceName(l.text), svc) {
			mentions[docOf[i]] = true
		}
	}
	return docOf, mentions
}

// namespaceWide: cluster/namespace-wide changes (network policies, ingress
// defaults, issuers) whose changed lines name what the failure names (the
// port or host the errors mention).
// namespaceKindRE: objects that apply to a whole namespace or route.
var namespaceKindRE = regexp.MustCompile(`(?i)kind:\s*(networkpolicy|ingress|clusterissuer|issuer|certificate|gateway|virtualservice|destinationrule|authorizationpolicy|peerauthentication)`)

func (ev *evidence) namespaceWide(f Finding, c *candidate) bool {
	added := strings.ToLower(f.Attrs["added"])
	if c.hasSignature("quota-exceeded") {
		// The namespace's quota: a file under the namespace's directory or
		// one that declares a ResourceQuota.
		ns := strings.ToLower(ev.issue.Namespace)
		inNS := ns != "" && strings.Contains("/"+strings.ToLower(path.Dir(f.File))+"/", "/"+ns+"/")
		if ns != "" {
			return inNS || strings.Contains(added, "namespace: "+ns)
		}
		return strings.Contains(strings.ToLower(f.File), "quota") || strings.Contains(added, "resourcequota")
	}
	if !namespaceKindRE.MatchString(added) &&
		!strings.Contains(strings.ToLower(f.File), "network") && !strings.Contains(strings.ToLower(f.File), "ingress") {
		return false
	}
	switch c.ErrorType {
	case ErrNetwork, ErrTimeout, ErrTLS, ErrDependency:
		return true
	}
	return false
}

// storeRE: a write into a map/cache or an acquisition: where memory or
// resources accumulate. Declarations (acquireRE only) rank lower.
var storeRE = regexp.MustCompile(`\w+\[[^\]]+\]\s*=[^=]|\.put\(|\.Store\(|\bappend\(|\.add\(|\.push\(|getConnection\(|\.open\(|\bOpen\(|\.connect\(|\bacquire\(|\bAcquire\(|BeginTx|\.begin\(|\.setdefault\(`)

// acquireRE also covers concurrency that can leak: goroutines and threads
// started per request, channels a timed-out sender blocks on forever.
var acquireRE = regexp.MustCompile(`\bgo func\(|\bgo \w+(?:\.\w+)*\(|make\(chan\b|new Thread\(|Executors\.|setInterval\(|asyncio\.create_task|threading\.Thread|Task\.Run\(|getConnection\(|\.open\(|\bOpen\(|\.connect\(|\bacquire\(|\bAcquire\(|new \w*(?:Stream|Reader|Writer|Socket|Client)\(|\bmake\(map\[|\bmap\[[^\]]+\][\w*.]+\{|sync\.Map|[Cc]ache\b|\bmemo|ConcurrentHashMap|\.put\(|\.Store\(|\bappend\(|\bdict\(|\blru|Pool\(|\.Get\(\)|BeginTx|\.begin\(`)

// leakChange finds a recent code change in the service that acquires or
// accumulates resources (a connection without close, an unbounded cache):
// the usual origin of memory or pool exhaustion that is not capacity.
func (ev *evidence) leakChange(c *candidate) (changeLine, bool) {
	// The change precedes the first exhaustion, which can come days after
	// the deploy; the stated onset may be a counting window ("OOMKilled 2
	// times in the last 2 days"), so the later of the two is the reference.
	ref := ev.onset
	if c.First.After(ref) {
		ref = c.First
	}
	lines := ev.addedLinesBefore(func(f Finding) bool { return !IsConfigPath(f.File) && ev.relatedCode(f, c) }, ref, leakLookback)
	var best changeLine
	bestScore := 0
	for _, l := range lines {
		t := strings.TrimSpace(l.text)
		if strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "*") || strings.HasPrefix(t, "import") {
			continue
		}
		score := 0
		switch {
		case storeRE.MatchString(t) && acquireRE.MatchString(t):
			score = 3
		case storeRE.MatchString(t) && !strings.HasPrefix(t, "return"):
			score = 2
		case acquireRE.MatchString(t):
			score = 1
		}
		if score > bestScore {
			best, bestScore = l, score
		}
	}
	return best, bestScore > 0
}

// relatedCode reports whether a code change belongs to the service: its
// name in the path, the package the failing frames live in, or — in a
// repository that names no service at all — any code change.
func (ev *evidence) relatedCode(f Finding, c *candidate) bool {
	if ev.relatedTo(f, c.Service) {
		return true
	}
	dir := path.Dir(f.File)
	for _, s := range c.Support {
		for _, fr := range s.Frames {
			h := path.Dir(PathHint(fr))
			if h != "." && h != "" && (strings.HasSuffix(dir, h) || strings.HasSuffix(h, dir)) {
				return true
			}
		}
	}
	for _, k := range ev.known {
		if ev.relatedTo(f, k) {
			return false // a monorepo: the change belongs to another service
		}
	}
	return true
}

var fieldNameREs = []*regexp.Regexp{
	regexp.MustCompile(`\b([A-Za-z_][A-Za-z0-9_]{1,40})(?:\[\d+\])?\s*:?\s+(?:must|should)\s+(?:not\s+)?(?:be|match|have)\b`),
	regexp.MustCompile(`(?i)(?:field|property|column|attribute|key|parameter)\s+['"\x60]?([A-Za-z_][A-Za-z0-9_.]{1,40})['"\x60]?`),
	regexp.MustCompile(`['"\x60]([A-Za-z_][A-Za-z0-9_]{1,40})['"\x60]\s+(?:is\s+)?(?:required|missing|invalid|null)`),
	regexp.MustCompile(`(?i)missing\s+(?:required\s+)?(?:field|property|key)?\s*['"\x60]?([A-Za-z_][A-Za-z0-9_]{1,40})`),
}

var validationCodeRE = regexp.MustCompile(`@(?:Matches|Pattern|Is[A-Z]\w*|NotNull|NotBlank|Valid|Size|Length|Min|Max|Email)\b|\bregex|Regex|\bpattern\b|validate|Validator|\bz\.\w+\(|Joi\.|json:"|jsonProperty|JsonProperty|@SerializedName|serde\(rename|alias=`)

// validationFields returns the field names and literal messages validation
// failures carry ("phone must be a valid phone number" -> phone).
func validationFields(c *candidate) (fields, messages []string) {
	seen := map[string]bool{}
	for _, f := range c.Support {
		for _, text := range []string{f.Quote, f.Attrs["causes"], f.Attrs["detail"]} {
			if text == "" {
				continue
			}
			for _, re := range fieldNameREs {
				for _, m := range re.FindAllStringSubmatch(text, 6) {
					n := strings.ToLower(m[1])
					if len(n) < 3 || stopField[n] || seen[n] {
						continue
					}
					seen[n] = true
					fields = append(fields, m[1])
				}
			}
		}
		if q := strings.TrimSpace(f.Quote); len(q) >= 20 {
			messages = append(messages, q)
		}
	}
	return fields, messages
}

var stopField = map[string]bool{"value": true, "this": true, "the": true, "that": true, "request": true, "body": true, "input": true, "data": true, "object": true, "field": true, "message": true, "record": true, "error": true, "it": true, "id": false}

// normField compares field names across naming styles: customerId, customer_id, customer-id.
func normField(s string) string {
	return strings.NewReplacer("_", "", "-", "", ".", "").Replace(strings.ToLower(s))
}

// validationChange finds the recent code change behind validation failures:
// a changed line that contains the failing message itself, or that renames
// or constrains the field the failures name (a producer renaming a JSON
// field breaks its consumers). It returns the change and the service that
// owns the changed file.
func (ev *evidence) validationChange(c *candidate) (changeLine, string, bool) {
	fields, messages := validationFields(c)
	if len(fields) == 0 && len(messages) == 0 {
		return changeLine{}, "", false
	}
	var lines []changeLine
	for _, f := range ev.findings {
		if f.Kind != KindChangeCorrelation || f.File == "" {
			continue
		}
		if !changedBefore(f.Time, ev.onset, recentLookback) {
			continue
		}
		for _, attr := range []string{"added", "removed"} {
			for _, row := range diffRows(f.Attrs[attr]) {
				lines = append(lines, changeLine{change: f, line: row.n, text: row.text})
			}
		}
	}
	owner := func(file string) string {
		for _, k := range ev.known {
			if ev.relatedTo(Finding{File: file}, k) {
				return k
			}
		}
		return c.Service
	}
	// 1. The failing message appears verbatim in the change.
	for _, l := range lines {
		for _, m := range messages {
			core := messageCore(m)
			if len(core) >= 15 && strings.Contains(strings.ToLower(l.text), strings.ToLower(core)) {
				return l, owner(l.change.File), true
			}
		}
	}
	// 2. A changed field declaration or constraint naming the failing field.
	for _, l := range lines {
		if !validationCodeRE.MatchString(l.text) {
			continue
		}
		nl := normField(l.text)
		for _, fld := range fields {
			if nf := normField(fld); len(nf) >= 3 && strings.Contains(nl, nf) {
				return l, owner(l.change.File), true
			}
		}
	}
	return changeLine{}, "", false
}

// messageCore strips a validation message to its human part: the text
// after the last "Exception:"/"Error:" prefix and log framing.
func messageCore(m string) string {
	for _, sep := range []string{"Exception: ", "Error: ", "error: ", "message\":\"", "\": "} {
		if i := strings.LastIndex(m, sep); i >= 0 {
			m = m[i+len(sep):]
		}
	}
	return strings.Trim(strings.TrimSpace(m), `"'[]{}.`)
}

var queryCodeRE = regexp.MustCompile(`\.objects\.|\.filter\(|\.all\(\)|select_related|prefetch_related|\bSELECT\b|\.find\(|\.findAll|\.query\(|\.Query\(|\.Where\(|\.Include\(|\.join\(|\bJOIN\b|findBy\w+\(|\.aggregate\(|\.execute\(|\.Exec\(|N\+1|\bfor\b.*\bin\b|\.forEach\(|\.map\(`)

// slowChange finds a recent code change in the service that touched its
// data access (queries, ORM calls, loops over results): the usual origin of
// timeouts that appear right after a deploy without any platform change.
func (ev *evidence) slowChange(c *candidate) (changeLine, bool) {
	lines := ev.recentChangeLines(func(f Finding) bool {
		related := ev.relatedTo(f, c.Service) || (schemaMigrationRE.MatchString(f.File) && ev.relatedCode(f, c))
		return !IsConfigPath(f.File) && related && ev.onset.Sub(f.Time) <= 24*time.Hour
	})
	for _, re := range []*regexp.Regexp{indexDropRE, queryCodeRE, perfCodeRE} {
		for _, l := range lines {
			t := strings.TrimSpace(l.text)
			if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "import") || strings.HasPrefix(t, "from ") {
				continue
			}
			if re.MatchString(t) {
				return l, true
			}
		}
	}
	return changeLine{}, false
}

// schemaMigrationRE: files that change a database schema.
var schemaMigrationRE = regexp.MustCompile(`(?i)(^|/)(migrate|migrations?|db/changelog|flyway|liquibase|alembic/versions|schema)(/|\.)|\.sql$`)

// indexDropRE: a schema change that removes an index (or a changed index
// whose leading column differs): queries that used it fall back to scans.
var indexDropRE = regexp.MustCompile(`(?i)\bremove_index\b|\bdrop\s+index\b|\bdropIndex\b|\bDropIndex\b|\bdrop_index\b|op\.drop_index|RemoveIndex\(`)

// perfCodeRE: constructs whose cost can explode with input (regular
// expressions, sorting, parsing, blocking calls, locks, retries).
var perfCodeRE = regexp.MustCompile(`re\.compile|regexp\.(?:Must)?Compile|Pattern\.compile|new RegExp|Regex\(|\bRegex\b|\.match\(|\.search\(|\bsleep\(|Sleep\(|\.sort\(|sorted\(|json\.loads|JSON\.parse|\.lock\(|Lock\(\)|synchronized|\bwhile\b|\bretry|Retry|deepcopy|\.wait\(|Wait\(`)

var depManifestRE = regexp.MustCompile(`(?i)(^|/)(requirements[\w.-]*\.txt|constraints\.txt|pyproject\.toml|poetry\.lock|Pipfile(\.lock)?|package(-lock)?\.json|yarn\.lock|pnpm-lock\.yaml|go\.mod|go\.sum|pom\.xml|build\.gradle(\.kts)?|gradle\.properties|Gemfile(\.lock)?|[\w.-]+\.csproj|packages\.config|Cargo\.(toml|lock)|composer\.(json|lock)|Dockerfile[\w.-]*)$`)

var pkgTokenRE = regexp.MustCompile(`[A-Za-z][A-Za-z0-9_.-]{2,}`)

// dependencyChange finds a recent change to a dependency manifest of the
// service whose changed line names a package the failure names (urllib3 in
// "ImportError: urllib3 v2 only supports OpenSSL 1.1.1+").
func (ev *evidence) dependencyChange(c *candidate) (changeLine, bool) {
	text := strings.ToLower(joinQuotes(c.Support))
	lines := ev.recentChangeLines(func(f Finding) bool { return depManifestRE.MatchString(f.File) && ev.relatedCode(f, c) })
	for _, l := range lines {
		for _, tok := range pkgTokenRE.FindAllString(l.text, 4) {
			t := strings.ToLower(strings.Trim(tok, ".-"))
			if len(t) >= 3 && !commonYAMLWord[t] && strings.Contains(text, t) {
				return l, true
			}
		}
	}
	return changeLine{}, false
}

// genericSuffix: what teams append to a component's name to name its
// service (reporting -> reporting-api).
var genericSuffix = map[string]bool{"api": true, "svc": true, "service": true, "server": true, "app": true, "web": true, "worker": true,
	"backend": true, "frontend": true, "ui": true, "gateway": true, "job": true, "cron": true, "consumer": true, "producer": true,
	"prod": true, "production": true, "primary": true, "db": true, "rds": true, "main": true, "cluster": true}

// namedConfigChange finds a recently changed configuration line (added or
// removed) that contains something the errors name — the Secret key, the
// env var, the setting — in a file of the service or its namespace.
func (ev *evidence) namedConfigChange(c *candidate) (changeLine, bool) {
	names := namedSettings(c)
	prose := phraseText(failureProse(c))
	for _, attr := range []string{"added", "removed"} {
		var chart []changeLine // in the service's chart, not in its own files
		for _, l := range ev.changeLinesOf(attr, func(f Finding) bool {
			return IsConfigPath(f.File) && (ev.relatedTo(f, c.Service) || ev.namespaceWide(f, c) || ev.serviceManifestFile(f.File, c.Service))
		}) {
			if !ev.relatedTo(l.change, c.Service) && !ev.namespaceWide(l.change, c) {
				chart = append(chart, l)
				continue
			}
			if containsSetting(l.text, names) || len(phraseNamedSettings(l.text, prose)) > 0 {
				return l, true
			}
		}
		// A shared values file of the chart that deploys the service (a
		// global block every workload reads): a line that configures no
		// other service and holds the setting the failure names.
		for _, l := range chart {
			if ev.mentionsOtherService(l, c.Service) {
				continue
			}
			if len(phraseNamedSettings(l.text, prose)) > 0 {
				return l, true
			}
		}
	}
	// The very limit that fires (a statement timeout, a visibility
	// timeout), set for the whole namespace: shared values every workload
	// of the namespace is rendered with.
	if implied := impliedSettings[c.Signature]; len(implied) > 0 && ev.issue.Namespace != "" {
		for _, attr := range []string{"added", "removed"} {
			for _, l := range ev.changeLinesOf(attr, func(f Finding) bool { return IsConfigPath(f.File) && ev.inNamespaceDir(f.File) }) {
				if containsSetting(l.text, implied) {
					return l, true
				}
			}
		}
	}
	return changeLine{}, false
}

// inNamespaceDir: the file lies under a directory named after the
// incident's namespace (deploy/helm/<namespace>/values-prod.yaml).
func (ev *evidence) inNamespaceDir(file string) bool {
	ns := strings.ToLower(ev.issue.Namespace)
	return ns != "" && strings.Contains("/"+strings.ToLower(path.Dir(file))+"/", "/"+ns+"/")
}

// failureProse is the text of a candidate's own failures: quotes,
// exceptions, details and causes.
func failureProse(c *candidate) string {
	var b strings.Builder
	for _, f := range c.Support {
		b.WriteString(f.Quote + "\n" + f.Exception + "\n" + f.Attrs["detail"] + "\n" + f.Attrs["causes"] + "\n" + f.Attrs["message"] + "\n")
	}
	return b.String()
}

var (
	settingAfterWordRE = regexp.MustCompile(`(?i)\b(?:key|variable|env(?:ironment)?(?: var(?:iable)?)?|field|parameter|setting|option|property|flag)\s+['"\x60]?([A-Za-z_][\w.-]{2,60})`)
	quotedSettingRE    = regexp.MustCompile(`['"\x60]([A-Za-z_][\w-]{2,60})['"\x60]`)
	upperSnakeRE       = regexp.MustCompile(`\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b`)
	lowerSnakeRE       = regexp.MustCompile(`\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b`)
)

// namedSettings extracts the identifiers failures name as settings: the
// Secret key, the env var, the config parameter ("couldn't find key
// connection-string", "DB_PASSWORD", "(max_client_conn)").
func namedSettings(c *candidate) []string {
	seen := map[string]bool{}
	var out []string
	svc := NormalizeServiceName(c.Service)
	add := func(s string) {
		s = strings.Trim(s, ".-")
		l := strings.ToLower(s)
		if len(s) < 4 || seen[l] || commonYAMLWord[l] || stopField[l] || NormalizeServiceName(s) == svc || strings.ContainsAny(s, "/") {
			return
		}
		for _, ext := range []string{".java", ".py", ".go", ".js", ".ts", ".cs", ".rb", ".php", ".rs", ".kt", ".com", ".io", ".svc", ".local"} {
			if strings.HasSuffix(l, ext) {
				return
			}
		}
		seen[l] = true
		out = append(out, s)
	}
	for _, f := range c.Support {
		for _, text := range []string{f.Quote, f.Attrs["causes"], f.Attrs["detail"], f.Attrs["message"]} {
			if text == "" {
				continue
			}
			for _, m := range settingAfterWordRE.FindAllStringSubmatch(text, 8) {
				add(m[1])
			}
			for _, m := range quotedSettingRE.FindAllStringSubmatch(text, 8) {
				if strings.ContainsAny(m[1], "_-") || upperSnakeRE.MatchString(m[1]) {
					add(m[1])
				}
			}
			for _, m := range upperSnakeRE.FindAllString(text, 8) {
				add(m)
			}
			for _, m := range lowerSnakeRE.FindAllString(text, 8) {
				add(m)
			}
		}
	}
	// Limits whose errors never name their setting.
	for _, name := range impliedSettings[c.Signature] {
		add(name)
	}
	return out
}

// impliedSettings: the settings behind a limit whose error message does
// not name them (nginx says "client intended to send too large body").
var impliedSettings = map[string][]string{
	"body-too-large":     {"proxy-body-size", "client_max_body_size", "client-max-body-size", "max_request_body_size", "maxRequestSize", "max-file-size", "max-request-size", "bodyLimit", "MaxRequestBodySize", "max_recv_msg_size", "MaxRecvMsgSize", "maxInboundMessageSize", "upload_max_filesize", "post_max_size"},
	"consumer-rebalance": {"max.poll.interval.ms", "max_poll_interval_ms", "maxPollIntervalMs", "MaxPollIntervalMs", "max.poll.records", "max_poll_records", "maxPollRecords", "session.timeout.ms", "session_timeout_ms", "sessionTimeoutMs"},
	// A message processed longer than the queue lets it stay invisible.
	"queue-redelivery": {"visibility_timeout_seconds", "visibility_timeout", "VisibilityTimeout", "visibilityTimeout", "VisibilityTimeoutSeconds",
		"visibility-timeout", "ack_deadline_seconds", "ackDeadlineSeconds", "ack_deadline", "ackDeadline", "max_extension", "maxExtension",
		"consumer_timeout", "x-consumer-timeout", "lock_duration", "LockDuration", "lockDuration", "visibility_timeout_ms"},
	"proxy-overflow":   {"http1MaxPendingRequests", "maxPendingRequests", "max_pending_requests"},
	"server-connlimit": {"max_connections", "max_client_conn", "maxclients", "max_user_connections", "default_pool_size"},
	"php-memory":       {"memory_limit"},
	"php-timeout":      {"max_execution_time"},
	// "canceling statement due to statement timeout": the server's own
	// per-statement limit, set per role, per database or by the client
	// (PGOPTIONS, a connection string option).
	"db-statement-timeout": {"statement_timeout", "lock_timeout", "max_execution_time", "max_statement_time", "statementTimeout"},
}

// containsSetting reports whether a line sets or mentions one of names as
// a whole token.
func containsSetting(line string, names []string) bool {
	for _, n := range names {
		i := strings.Index(line, n)
		for i >= 0 {
			before := i == 0 || !isIdentRune(rune(line[i-1]))
			after := i+len(n) >= len(line) || !isIdentRune(rune(line[i+len(n)]))
			if before && after {
				return true
			}
			next := strings.Index(line[i+1:], n)
			if next < 0 {
				break
			}
			i += next + 1
		}
	}
	return false
}

func isIdentRune(r rune) bool {
	return r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
}

// changeLinesOf is recentChangeLines over the added or the removed lines.
func (ev *evidence) changeLinesOf(attr string, filter func(Finding) bool) []changeLine {
	if attr == "added" {
		return ev.recentChangeLines(filter)
	}
	var out []changeLine
	for _, f := range ev.findings {
		if f.Kind != KindChangeCorrelation || f.File == "" || !filter(f) {
			continue
		}
		if !changedBefore(f.Time, ev.onset, recentLookback) {
			continue
		}
		for _, row := range strings.Split(f.Attrs["removed"], "\n") {
			i := strings.IndexByte(row, ':')
			if i <= 0 {
				continue
			}
			if n, err := strconv.Atoi(row[:i]); err == nil {
				out = append(out, changeLine{change: f, line: n, text: row[i+1:]})
			}
		}
	}
	return out
}

// nearbyChange finds, in the anchored file, a line changed shortly before
// the impact within a few lines above the crash line when the crash line
// itself was not changed.
func (ev *evidence) nearbyChange(file string, line int) (changeLine, bool) {
	if _, exact, ok := ev.deployed(file, line, ev.onset); ok && exact {
		return changeLine{}, false
	}
	// Only a removed guard (a clamp, a bounds or null check) moves the
	// defect from the crash line to the change: any other nearby change
	// merely let new inputs reach a line that was already fragile.
	added := map[int]string{}
	for _, l := range ev.changeLinesOf("added", func(f Finding) bool { return samePath(f.File, file) }) {
		added[l.line] += l.text
	}
	var best changeLine
	found := false
	for _, l := range ev.changeLinesOf("removed", func(f Finding) bool { return samePath(f.File, file) }) {
		if !guardRE.MatchString(l.text) || guardRE.MatchString(added[l.line]) {
			continue
		}
		if d := line - l.line; d > 0 && d <= 15 && (!found || l.line > best.line) {
			best, found = l, true
		}
	}
	return best, found
}

var guardRE = regexp.MustCompile(`\.min\(|\.max\(|\bclamp|Math\.(?:min|max)|\bmin\(|\bmax\(|(?:len\([^)]*\)|\.len\(\)|\.length|\.size\(\)|\.Count)\s*-\s*1|\?\.|\?\?|!=\s*null|!=\s*nil|is not None|!==?\s*undefined|\bif\b.*(?:null|nil|None|undefined|len|length|size|empty|isEmpty|bounds)|getOrDefault|orElse|\bcatch\b|\brescue\b|\bexcept\b|unwrap_or`)

var settingValueRE = regexp.MustCompile(`^\s*-?\s*([A-Za-z_][\w.-]*)\s*[:=]\s*["']?(\d+(?:\.\d+)?)\s*([A-Za-z]*)["']?\s*(?:#.*)?$`)

// withoutRaisedLimits drops changed lines that raised a number (maxReplicas
// 6 -> 8, memory 512Mi -> 768Mi): more capacity does not exhaust anything.
func withoutRaisedLimits(lines []changeLine) []changeLine {
	var out []changeLine
	for _, l := range lines {
		if raised(l) {
			continue
		}
		out = append(out, l)
	}
	return out
}

func raised(l changeLine) bool {
	m := settingValueRE.FindStringSubmatch(l.text)
	if m == nil {
		return false
	}
	for _, row := range strings.Split(l.change.Attrs["removed"], "\n") {
		i := strings.IndexByte(row, ':')
		if i <= 0 {
			continue
		}
		o := settingValueRE.FindStringSubmatch(row[i+1:])
		if o == nil || o[1] != m[1] || o[3] != m[3] {
			continue
		}
		was, _ := strconv.ParseFloat(o[2], 64)
		now, _ := strconv.ParseFloat(m[2], 64)
		return now > was
	}
	return false
}

// retryLineRE: client-side retries, strongest first — a retry loop, a retry
// count, a retry helper.
var retryLineREs = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\b(?:for|while)\b.*\b(?:attempts?|retr(?:y|ies)|tries)\b`),
	regexp.MustCompile(`(?i)\b(?:max_?attempts|max_?retries|retry_?count|num_?retries|retries|attempts)\b\s*[:=]\s*\d`),
	regexp.MustCompile(`(?i)\bretry(?:ing|able|_on|On)?\s*[(:=]|@Retry|Retry\w*\(|\bbackoff\b`),
}

// retryStormChange finds a recent code change in a caller of the exhausted
// service that retries its calls to it: retries without backoff or budget
// multiply the load a hiccup puts on the callee until it cannot recover.
// It returns the change line and the caller that owns it.
func (ev *evidence) retryStormChange(c *candidate) (changeLine, string, bool) {
	callee := NormalizeServiceName(c.Service)
	var callers []string
	for caller, callees := range ev.calls {
		for s := range callees {
			if NormalizeServiceName(s) == callee && NormalizeServiceName(caller) != callee {
				callers = append(callers, caller)
			}
		}
	}
	sort.Strings(callers)
	for _, re := range retryLineREs {
		for _, caller := range callers {
			lines := ev.recentChangeLines(func(f Finding) bool {
				return !IsConfigPath(f.File) && ev.relatedTo(f, caller) &&
					(strings.Contains(NormalizeServiceName(f.File), callee) || strings.Contains(NormalizeServiceName(f.Attrs["added"]), callee))
			})
			for _, l := range lines {
				t := strings.TrimSpace(l.text)
				if strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "*") || strings.HasPrefix(t, "/*") {
					continue
				}
				if re.MatchString(t) {
					return l, caller, true
				}
			}
		}
	}
	return changeLine{}, "", false
}

// startupHookRE: code that runs once at process start, before workers fork
// or threads start (Django ready(), gunicorn preload, init functions,
// static initialisers, startup events).
var startupHookRE = regexp.MustCompile(`\bdef ready\(|preload_app|\bon_startup\b|on_event\(["']startup|\bwhen_ready\b|\bfunc init\(\)|\bstatic \{|@PostConstruct|CommandLineRunner|ApplicationRunner|IHostedService|module-level|at import`)

// connUseRE: a line that opens or uses a network connection or client.
var connUseRE = regexp.MustCompile(`(?i)\.(?:client|conn|connection|pool|socket|session)\.\w+\(|\bconnect\(|\bClient\(|\.(?:get|set|ping)\(["'][\w:.-]*warm`)

// sharedConnectionChange finds a recent change in the service that opens a
// connection in code run once at start-up (before workers fork or threads
// start): every worker then shares that one socket.
func (ev *evidence) sharedConnectionChange(c *candidate) (changeLine, bool) {
	for _, f := range ev.findings {
		if f.Kind != KindChangeCorrelation || IsConfigPath(f.File) || !ev.relatedCode(f, c) || !changedBefore(f.Time, ev.onset, leakLookback) {
			continue
		}
		if !startupHookRE.MatchString(f.Attrs["added"]) {
			continue
		}
		for _, l := range ev.addedLinesBefore(func(g Finding) bool { return g.File == f.File && g.Attrs["sha"] == f.Attrs["sha"] }, ev.onset, leakLookback) {
			t := strings.TrimSpace(l.text)
			if strings.HasPrefix(t, "#") || strings.HasPrefix(t, "//") {
				continue
			}
			if connUseRE.MatchString(t) {
				return l, true
			}
		}
	}
	return changeLine{}, false
}

// blockingCallRE: a blocking wait inside asynchronous code — it holds a
// pool thread for the whole wait (C# .Result/.Wait(), Kotlin runBlocking,
// Reactor block(), Python time.sleep or requests in async code).
var blockingCallRE = regexp.MustCompile(`\.Result\b|\.Wait\(\)|GetAwaiter\(\)\.GetResult\(\)|\brunBlocking\b|\.block\(\)|\.blockFirst\(\)|\.join\(\)|\.get\(\)\s*;|time\.sleep\(|requests\.(?:get|post|put)\(|Thread\.sleep\(`)

// blockingChange finds a recent code change in the service that adds a
// blocking wait: the usual origin of thread-pool starvation.
func (ev *evidence) blockingChange(c *candidate) (changeLine, bool) {
	lines := ev.addedLinesBefore(func(f Finding) bool { return !IsConfigPath(f.File) && ev.relatedCode(f, c) }, ev.onset, leakLookback)
	for _, l := range lines {
		t := strings.TrimSpace(l.text)
		if strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "*") {
			continue
		}
		if blockingCallRE.MatchString(t) {
			return l, true
		}
	}
	return changeLine{}, false
}

// iamFileRE / iamLineRE: identity and permission definitions (IAM roles and
// trust policies, IRSA/workload identity bindings, RBAC).
var (
	iamFileRE = regexp.MustCompile(`(?i)(^|/)[\w.-]*(iam|irsa|rbac|polic(y|ies)|roles?|permissions?|workload[-_]?identity)[\w.-]*(/|\.(tf|ya?ml|json|hcl)$)`)
	iamLineRE = regexp.MustCompile(`(?i)serviceaccount|assume_?role|sts:|:sub\b|principal|rolebinding|role_arn|roleArn|iam\.gke\.io|azure\.workload\.identity|"Action"|actions\s*=|values\s*=\s*\[`)
)

// permissionChange finds a recent change to an identity or permission
// definition that names the service (loosely: "listings-photo-worker" for
// listing-photos-worker) — the usual origin of access denied errors.
func (ev *evidence) permissionChange(c *candidate) (changeLine, bool) {
	for _, attr := range []string{"added", "removed"} {
		for _, l := range ev.changeLinesOf(attr, func(f Finding) bool { return iamFileRE.MatchString(f.File) }) {
			if iamLineRE.MatchString(l.text) && (namesLoosely(l.text, c.Service) || namesLoosely(l.change.Attrs["added"], c.Service)) {
				if attr == "removed" {
					continue // the added line of the same hunk is the one to fix
				}
				return l, true
			}
		}
	}
	// A changed trust or binding line in a file that names the service.
	for _, l := range ev.recentChangeLines(func(f Finding) bool {
		return iamFileRE.MatchString(f.File) && namesLoosely(f.File+" "+f.Attrs["added"], c.Service)
	}) {
		if iamLineRE.MatchString(l.text) {
			return l, true
		}
	}
	return changeLine{}, false
}

// namesLoosely reports whether text names the service up to plurals and
// word order: two of the service's words (four letters or more) start words
// of the text ("listings-photo-worker" for listing-photos-worker).
func namesLoosely(text, service string) bool {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') })
	var parts []string
	for _, p := range strings.FieldsFunc(strings.ToLower(service), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') }) {
		if len(p) >= 4 {
			parts = append(parts, p)
		}
	}
	if len(parts) < 2 {
		return false
	}
	hits := 0
	for _, p := range parts {
		stem := p[:4]
		for _, w := range words {
			if strings.HasPrefix(w, stem) && (strings.HasPrefix(w, p) || strings.HasPrefix(p, w)) {
				hits++
				break
			}
		}
	}
	return hits >= 2
}

// asyncBoundaryRE: frames of the event loop or task scheduler that replace
// the caller in an asynchronous stack (Node's processTicksAndRejections,
// asyncio, coroutines, the .NET thread pool, tokio).
var asyncBoundaryRE = regexp.MustCompile(`processTicksAndRejections|node:internal/process/task_queues|asyncio/(?:events|base_events|tasks)\.py|kotlinx\.coroutines\.|System\.Threading\.Tasks\.|System\.Runtime\.CompilerServices\.AsyncTaskMethodBuilder|tokio::runtime|ThreadPoolExecutor`)

// awaitedRE: a call whose result is awaited, returned, chained with a
// handler or assigned: its failure reaches a caller.
var awaitedRE = regexp.MustCompile(`\bawait\b|\breturn\b|\.catch\(|\.then\(|\byield\b|=\s*[\w.]*\(|\.(?:join|result|get)\(\)|\.Wait\(|\.GetAwaiter\(`)

// asyncCallerChange: an error thrown from an asynchronous function whose
// stack ends at the event loop has lost its caller. A recent change that
// added a call to that function without awaiting it (fire and forget) is
// where the failure escapes: nobody handles the rejection, and in Node it
// kills the process.
func (ev *evidence) asyncCallerChange(c *candidate, anchor *Frame) (changeLine, bool) {
	if anchor == nil || anchor.Function == "" {
		return changeLine{}, false
	}
	lost := false
	for _, f := range c.Support {
		if len(f.Frames) > 0 && f.Frames[0].File == anchor.File && asyncBoundaryRE.MatchString(f.Quote+" "+f.Attrs["detail"]+" "+f.Attrs["stack"]+" "+framesText(f.Frames)) {
			lost = true
			break
		}
	}
	if !lost {
		return changeLine{}, false
	}
	fn := anchor.Function
	if i := strings.LastIndexAny(fn, ".:"); i >= 0 {
		fn = fn[i+1:]
	}
	if len(fn) < 3 {
		return changeLine{}, false
	}
	call := regexp.MustCompile(`[.\s(]` + regexp.QuoteMeta(fn) + `\(`)
	for _, l := range ev.recentChangeLines(func(f Finding) bool { return !IsConfigPath(f.File) && path.Base(f.File) != path.Base(anchor.File) }) {
		if call.MatchString(l.text) && !awaitedRE.MatchString(l.text) {
			return l, true
		}
	}
	return changeLine{}, false
}

func framesText(fs []Frame) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.Function)
		b.WriteString(" ")
		b.WriteString(f.File)
		b.WriteString("\n")
	}
	return b.String()
}

// hazard is a construct that is wrong almost wherever it is written; a
// recent change adding one to the failing file is the likely defect even
// when the failure surfaces elsewhere in the file.
type hazard struct {
	re     *regexp.Regexp
	what   string
	unless *regexp.Regexp // the line also says what makes it safe
	// when: the failure's own text must show the hazard at work (empty:
	// the construct is wrong by itself).
	when *regexp.Regexp
}

// noTimeoutHazards: HTTP clients that wait forever unless told otherwise.
var noTimeoutHazards = []hazard{
	{re: regexp.MustCompile(`&?http\.Client\{\s*\}|http\.DefaultClient|\bhttp\.(?:Get|Post|Head|PostForm)\(`), what: "HTTP client without a timeout"},
	{re: regexp.MustCompile(`\brequests\.(?:get|post|put|patch|delete|head|request)\(|\bSession\(\)\.(?:get|post)\(`), what: "HTTP request without a timeout", unless: regexp.MustCompile(`timeout\s*=`)},
	{re: regexp.MustCompile(`\bnew HttpClient\(\s*\)|HttpClient\.newHttpClient\(\)|\bnew RestTemplate\(\s*\)`), what: "HTTP client without a timeout"},
}

var (
	// Python evaluates a default once: the list, dict or set is shared by
	// every call and accumulates across requests.
	mutableDefault = hazard{re: regexp.MustCompile(`^\s*(?:async\s+)?def\s+\w+\(.*\w\s*(?::\s*[^=,)]+)?=\s*(?:\[\]|\{\}|set\(\)|list\(\)|dict\(\)|\[[^\]]*\]|\{[^}]*\})\s*[,)]`), what: "mutable default argument"}
	// A catch-all in a coroutine catches the cancellation that a timeout
	// or a cancelled caller uses to stop it: the loop retries forever.
	catchAllCancellation = hazard{re: regexp.MustCompile(`catch\s*\(\s*\w+\s*:\s*(?:Exception|Throwable)\s*\)|catch\s*\(\s*(?:System\.)?Exception(?:\s+\w+)?\s*\)`), what: "catch-all that swallows cancellation",
		when: regexp.MustCompile(`(?:retry|retrying|attempt)[^\n]*(?:CancellationException|OperationCanceledException|TaskCanceledException)|(?:CancellationException|OperationCanceledException|TaskCanceledException)[^\n]*(?:retry|retrying|attempt)`)}
	// JavaScript strings are UTF-16: cutting at a fixed length can split an
	// emoji's surrogate pair, and the lone half breaks JSON and databases.
	surrogateCut = hazard{re: regexp.MustCompile(`\.(?:slice|substring|substr)\(\s*0\s*,`), what: "string cut at a fixed length that can split a surrogate pair",
		when: regexp.MustCompile(`(?i)surrogate|\\ud[89ab][0-9a-f]{2}|invalid UTF-16|lone (?:high|low)|unpaired`)}

	// Array.prototype.map passes (value, index): parseInt takes the index
	// as its radix, so every element after the first parses in base 1, 2,
	// 3, ... (NaN or a wrong small number).
	mapParseInt = hazard{re: regexp.MustCompile(`\.map\(\s*(?:Number\.)?parseInt\s*\)`), what: "parseInt passed to map, which hands it the index as the radix"}

	hazards = []hazard{mutableDefault, catchAllCancellation, surrogateCut, mapParseInt}
)

// hazardChange finds a hazard added by a recent change to the failing
// file, or, when no frame names one, to the service's code.
func (ev *evidence) hazardChange(c *candidate, file string) (changeLine, string, bool) {
	filter := func(f Finding) bool { return samePath(f.File, file) }
	if file == "" {
		filter = func(f Finding) bool { return !IsConfigPath(f.File) && ev.relatedTo(f, c.Service) }
	}
	text := joinQuotes(c.Support) + " " + supportAttr(c, "detail") + " " + supportAttr(c, "causes")
	for _, f := range ev.findings {
		// The other side of the same failure (the database's own log of
		// the rejected statement) shows what the caller sent.
		if (f.Kind == KindLogPattern || f.Kind == KindException) && f.Service != c.Service && aligned(f.Time, c.First, 5*time.Minute) {
			text += " " + f.Quote
		}
	}
	for _, l := range ev.recentChangeLines(filter) {
		for _, h := range hazards {
			if h.re.MatchString(l.text) && (h.when == nil || h.when.MatchString(text)) {
				return l, h.what, true
			}
		}
	}
	{
		// Hazards the failure itself shows at work may sit in a helper the
		// failing file calls.
		sameTree := func(a, b string) bool { // src/activity/x.ts and src/comments/y.ts
			i, j := strings.IndexByte(a, '/'), strings.IndexByte(b, '/')
			return i > 0 && j > 0 && a[:i] == b[:j]
		}
		for _, l := range ev.recentChangeLines(func(f Finding) bool {
			return !IsConfigPath(f.File) && (ev.relatedTo(f, c.Service) || file == "" || sameTree(f.File, file))
		}) {
			for _, h := range hazards {
				if h.when != nil && h.re.MatchString(l.text) && h.when.MatchString(text) {
					return l, h.what, true
				}
			}
		}
	}
	return changeLine{}, "", false
}

// noTimeoutChange: a recent change that added an HTTP client or request
// without a timeout, preferring the file that talks to peer (the host the
// hung call went to).
func (ev *evidence) noTimeoutChange(c *candidate) (changeLine, bool) {
	peer := ""
	for _, f := range c.Support {
		if f.Signature == "hung-call" {
			peer = f.Attrs["peer"]
			break
		}
	}
	label := strings.ToLower(peer)
	if i := strings.Index(label, "."); i > 0 {
		label = label[:i]
	}
	label = strings.TrimPrefix(label, "api")
	var best changeLine
	bestScore := -1
	for _, l := range ev.recentChangeLines(func(f Finding) bool { return !IsConfigPath(f.File) }) {
		for _, h := range noTimeoutHazards {
			if !h.re.MatchString(l.text) || (h.unless != nil && h.unless.MatchString(l.text)) {
				continue
			}
			score := 0
			if len(label) >= 4 && strings.Contains(strings.ToLower(l.change.File), label) {
				score += 2
			}
			if namesLoosely(l.change.File, c.Service) || strings.Contains(NormalizeServiceName(l.change.File), NormalizeServiceName(c.Service)) {
				score++
			}
			if score > bestScore {
				best, bestScore = l, score
			}
		}
	}
	return best, bestScore >= 0
}

// quotaLimitedRE: the resource a quota refused ("limited: limits.cpu=24").
var quotaLimitedRE = regexp.MustCompile(`(?:limited|requested): ([\w./-]+)=`)

// supportAttr joins an attribute of the candidate's findings.
func supportAttr(c *candidate, key string) string {
	var b strings.Builder
	for _, f := range c.Support {
		if v := f.Attrs[key]; v != "" {
			b.WriteString(v)
			b.WriteString(" ")
		}
	}
	return b.String()
}

// slowBurn: limits a change lowers that bite only when usage grows into
// them, days later (memory filling up to maxmemory): their changes are
// looked for a week back.
var slowBurn = map[string]bool{"redis-oom": true}

var (
	// acquireCallRE: a call returning something the caller must close.
	acquireCallRE = regexp.MustCompile(`\w+,\s*err\s*:?=\s*.*\.(?:Do|Get|Post|Head|Open|OpenFile|Dial|DialContext|Query|QueryContext|Begin)\(`)
	// deferCloseRE: the close that only runs once the function gets there.
	deferCloseRE = regexp.MustCompile(`^\s*defer\s+[\w.]+\.(?:Close|Rollback)\(\)`)
	returnRE     = regexp.MustCompile(`^\s*return\b`)
	errCheckRE   = regexp.MustCompile(`^\s*if\s+err\s*!=\s*nil\s*\{`)
)

// leakyReturnChange finds a return a recent change added between acquiring
// a resource and the deferred close that releases it (Go: after
// http.Client.Do, before defer resp.Body.Close()): every time that branch
// runs one connection or file stays open, until a pool or a limit runs dry.
func (ev *evidence) leakyReturnChange(c *candidate) (changeLine, bool) {
	for _, f := range ev.findings {
		if f.Kind != KindChangeCorrelation || IsConfigPath(f.File) || !changedBefore(f.Time, ev.onset, leakLookback) {
			continue
		}
		lines := map[int]string{}
		added := map[int]bool{}
		for _, attr := range []string{"context", "added"} {
			for _, row := range strings.Split(f.Attrs[attr], "\n") {
				i := strings.IndexByte(row, ':')
				if i <= 0 {
					continue
				}
				n, err := strconv.Atoi(row[:i])
				if err != nil {
					continue
				}
				lines[n] = row[i+1:]
				added[n] = added[n] || attr == "added"
			}
		}
		for n, text := range lines {
			if !added[n] || !returnRE.MatchString(text) || errCheckRE.MatchString(lines[n-1]) {
				continue // returning on the call's own error is right: there is nothing to close
			}
			closeAfter, acquireBefore := false, false
			for k := n + 1; k <= n+6; k++ {
				if deferCloseRE.MatchString(lines[k]) {
					closeAfter = true
					// Returning before an HTTP response's body is closed
					// leaks its connection, whatever acquired it.
					acquireBefore = acquireBefore || strings.Contains(lines[k], ".Body.Close()")
				}
			}
			for k := n - 12; k < n; k++ {
				if acquireCallRE.MatchString(lines[k]) {
					acquireBefore = true
				}
			}
			if closeAfter && acquireBefore {
				return changeLine{change: f, line: n, text: text}, true
			}
		}
	}
	return changeLine{}, false
}

// compiledREs caches the expressions keywordsFor builds on every call.
var compiledREs sync.Map

func compiled(pattern string) *regexp.Regexp {
	if re, ok := compiledREs.Load(pattern); ok {
		return re.(*regexp.Regexp)
	}
	re := regexp.MustCompile(pattern)
	compiledREs.Store(pattern, re)
	return re
}
