package investigate

import (
	"regexp"
	"strings"
)

// Start order: a request served before the process that owns what it reads
// has started. An OTP application starts its supervisor's children in list
// order; when the endpoint that accepts requests is listed before the
// process that creates a named ETS table or registers a name, every pod
// serves a few requests in its first seconds that find no table or no
// process. The error is raised at the lookup, but the defect is the order
// of the children: that is where it is fixed (move the owner before the
// endpoint, or gate readiness on it).

// notStartedRE: errors that say a named resource a process owns does not
// exist (yet): a missing ETS table, a name with no process behind it.
var notStartedRE = regexp.MustCompile(`(?i)table identifier does not refer to an existing ETS table|the process is not alive or there's no process currently associated with the given name|\(EXIT\) no process|\{:noproc,|:noproc\b|unknown registry:`)

// servingChildRE: a child that accepts requests or messages once started.
var servingChildRE = regexp.MustCompile(`\b(?:\w+\.)*(?:Endpoint|Router|Listener|Server|Consumer|Broadway\w*|Bandit|Plug\.Cowboy|Cowboy|Ranch)\b`)

// startOrderOwner returns the OTP application and the module that owns the
// missing resource — the module of the innermost application frame — when
// the candidate's failures say a process-owned resource is missing.
func startOrderOwner(c *candidate, anchor *Frame) (app, module string, ok bool) {
	if anchor == nil || !strings.HasSuffix(anchor.File, ".ex") || anchor.Module == "" || elixirLibraryApps[anchor.Module] {
		return "", "", false
	}
	if !notStartedRE.MatchString(joinQuotes(c.Support)) {
		return "", "", false
	}
	fn := anchor.Function // FareRules.Cache.lookup/3
	i := strings.LastIndexByte(fn, '.')
	if i <= 0 {
		return "", "", false
	}
	return anchor.Module, fn[:i], true
}

// applicationFile is where mix puts an OTP application's callback module,
// which lists the supervisor's children.
func applicationFile(app string) string {
	return "lib/" + app + "/application.ex"
}

// childOrderLine finds, in a window of the application module, the child
// spec of module when a child that serves requests is listed before it.
func childOrderLine(window []string, module string) (int, bool) {
	owner := regexp.MustCompile(`(?:^|[\s{\[,])` + regexp.QuoteMeta(module) + `\b`)
	servingBefore := false
	for _, r := range windowRows(window) {
		t := strings.TrimSpace(r.text)
		if strings.HasPrefix(t, "#") {
			continue
		}
		if owner.MatchString(r.text) && !strings.Contains(r.text, "defmodule") {
			if servingBefore {
				return r.n, true
			}
			return 0, false
		}
		if servingChildRE.MatchString(r.text) && !strings.Contains(r.text, "defmodule") && !strings.Contains(r.text, "Supervisor.start_link") {
			servingBefore = true
		}
	}
	return 0, false
}

// startOrderLine is the child spec to move: the owner of the missing
// resource listed after a child that serves requests, in the application
// module read in the second round.
func (ev *evidence) startOrderLine(c *candidate, anchor *Frame) (string, int, bool) {
	app, module, ok := startOrderOwner(c, anchor)
	if !ok {
		return "", 0, false
	}
	want := applicationFile(app)
	for _, f := range ev.findings {
		if f.Kind != KindSourceAnchor || !strings.HasSuffix(f.File, want) {
			continue
		}
		if n, ok := childOrderLine(windowLines(f.Attrs["window"]), module); ok {
			return f.File, n, true
		}
	}
	return "", 0, false
}

// Read-after-write on a replica: a record created a moment ago is read
// from a replica that has not replayed the insert yet. A recent change that
// moved a read from the primary to a replica is where read-your-writes was
// lost, and where it is restored.

var (
	// replicaReadRE: a read routed to a replica or reader endpoint.
	replicaReadRE = regexp.MustCompile(`(?i)\breplica\b|Replica\(|\breader\b|Reader\(|\bsecondary\b|ReadPreference\.secondary|\bread_?only\b|\.using\(\s*['"](?:replica|read)|\bslave\b`)
	// primaryRE: the same read against the primary before the change.
	primaryRE = regexp.MustCompile(`(?i)\bprimary\b|Primary\(|\bwriter\b|Writer\(|\bmaster\b|\bdefault\b`)
	// notFoundCodeRE: code that turns a missing row into "not found".
	notFoundCodeRE = regexp.MustCompile(`ErrNoRows|NotFound|not found|DoesNotExist|RecordNotFound|NoResultFound|EmptyResultDataAccess|\b404\b|is None|== nil|\?\?|orElseThrow`)
)

// replicaReadChange finds the line of a recent change (a week back) that
// moved a read of the candidate's service from the primary to a replica,
// preferring the one whose hunk turns a missing row into not found.
func (ev *evidence) replicaReadChange(c *candidate) (changeLine, bool) {
	if !c.hasSignature("record-not-found") {
		return changeLine{}, false
	}
	var best changeLine
	bestScore := 0
	for _, f := range ev.findings {
		if f.Kind != KindChangeCorrelation || f.File == "" || IsConfigPath(f.File) || !changedBefore(f.Time, ev.onset, leakLookback) || !ev.relatedCode(f, c) {
			continue
		}
		removed := map[int]string{}
		for _, r := range diffRows(f.Attrs["removed"]) {
			removed[r.n] = r.text
		}
		around := append(diffRows(f.Attrs["context"]), diffRows(f.Attrs["added"])...)
		for _, a := range diffRows(f.Attrs["added"]) {
			if !replicaReadRE.MatchString(a.text) || replicaReadRE.MatchString(removed[a.n]) || !primaryRE.MatchString(removed[a.n]) {
				continue
			}
			score := 1
			for _, r := range around {
				if r.n > a.n && r.n <= a.n+8 && notFoundCodeRE.MatchString(r.text) {
					score = 2
				}
			}
			if score > bestScore {
				best, bestScore = changeLine{change: f, line: a.n, text: a.text}, score
			}
		}
	}
	return best, bestScore > 0
}

const (
	readBeforeCommitWhat = "a record read before the transaction that writes it commits (handed over too early)"
	replicaReadWhat      = "a record read back from a replica right after it was written, before the replica replayed the write (read-your-writes lost)"
)
