package investigate

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

const plannerDeterministic = "deterministic"

// NormalizeIssue fills the window: it ends at issue.End (the clock) and
// starts 30 minutes before the time the trigger names (alert start or
// "since 10am"), and at least an hour before the end, so that a baseline
// before the impact is visible.
func NormalizeIssue(issue Issue, now time.Time) Issue {
	if issue.End.IsZero() {
		issue.End = now
	}
	if issue.Start.IsZero() {
		start := issue.End.Add(-time.Hour)
		if t, ok := ParseSinceCoarse(issue.Text, issue.End); ok && t.Add(-30*time.Minute).Before(start) {
			start = t.Add(-30 * time.Minute)
		}
		if t := issue.alertStart(); !t.IsZero() && t.Add(-30*time.Minute).Before(start) {
			start = t.Add(-30 * time.Minute)
		}
		if issue.End.Sub(start) > 24*time.Hour {
			start = issue.End.Add(-24 * time.Hour)
		}
		issue.Start = start
	}
	if issue.LogServiceLabel == "" {
		issue.LogServiceLabel = "service_name"
	}
	return issue
}

// Investigate runs a deterministic investigation: a first round querying
// every configured family in parallel, anchoring on the file:line the
// evidence points at, a second round (source window, manifests), then
// classification and the confidence governor.
func (e *Engine) Investigate(ctx context.Context, issue Issue) (*HealResult, error) {
	started := e.opts.Now()
	ctx, cancel := context.WithTimeout(ctx, e.opts.Deadline)
	defer cancel()
	issue = NormalizeIssue(issue, started)
	led := &Ledger{}

	e.CallAll(ctx, led, plannerDeterministic, e.firstRound(issue))
	ev := newEvidence(issue, led.Receipts())
	h := ev.best()
	if h == nil && ctx.Err() == nil && issue.End.Sub(issue.Start) < widenedWindow {
		// Nothing failed in the window: rare failures (flakes, slow SLO
		// burns) may lie further back. Look once over a wider window.
		wide := issue
		wide.Start = issue.End.Add(-widenedWindow)
		if calls := e.evidenceCalls(wide); len(calls) > 0 {
			e.CallAll(ctx, led, plannerDeterministic, calls)
			issue = wide
			ev = newEvidence(issue, led.Receipts())
			h = ev.best()
		}
	}
	// A named service with no line in the window (a batch job between
	// runs): read its last run, once, up to a day back.
	if svc := ev.silentNamed(); svc != "" && weakLead(h) && ctx.Err() == nil && e.has("logs_templates") && issue.End.Sub(issue.Start) < lookbackSpan {
		from := issue.End.Add(-lookbackSpan)
		e.CallAll(ctx, led, plannerDeterministic, []ToolCall{{Tool: "logs_templates", Args: map[string]any{
			"services": []string{svc}, "start": rfc(from), "end": rfc(issue.Start)}}})
		ev = newEvidence(issue, led.Receipts())
		h = ev.best()
	}
	e.progress(h, ev)

	// Runbooks that apply once the evidence names a service and a bucket
	// add their queries to the second round.
	var applied []RunbookMatch
	if h != nil {
		applied = e.runbooksFor(issue, led.Receipts())
	}
	if h != nil && ctx.Err() == nil {
		if calls := append(e.secondRound(ev, h), e.runbookCalls(applied, led.Receipts())...); len(calls) > 0 {
			e.CallAll(ctx, led, plannerDeterministic, calls)
			anchor := h.anchor
			ev = newEvidence(issue, led.Receipts())
			if h2 := ev.best(); h2 != nil {
				h = h2
				if h.anchor == nil {
					h.anchor = anchor
				}
			}
		}
	}
	res := e.Conclude(issue, led.Receipts(), ev, h)
	res.Runbooks = e.appliedRunbooks(issue, res, applied)
	res.Started = started
	res.Wall = e.opts.Now().Sub(started)
	res.Mode = ModeDeterministic
	if ctx.Err() != nil && res.ModeNote == "" {
		res.ModeNote = "the investigation deadline was reached; the answer uses what arrived in time"
	}
	return res, nil
}

func (e *Engine) progress(h *hypothesis, ev *evidence) {
	if e.opts.Observer == nil || h == nil {
		return
	}
	band := BandLow
	if len(evidenceFamilies(h.c)) >= 2 {
		band = BandMedium
	}
	e.opts.Observer(ProgressEvent{Hypothesis: h.describe(), Band: band})
}

func (e *Engine) has(tool string) bool {
	c, ok := e.tools[tool]
	return ok && c.Availability().Configured
}

func rfc(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// firstRound queries every configured family at once.
func (e *Engine) firstRound(issue Issue) []ToolCall {
	var calls []ToolCall
	prefer := []string{}
	if issue.Service != "" {
		prefer = append(prefer, issue.Service)
	}
	for _, k := range []string{"service", "service_name", "app", "container", "deployment", "k8s_deployment_name"} {
		if v := issue.Labels[k]; v != "" {
			prefer = append(prefer, v)
		}
	}
	prefer = dedupe(append(prefer, Words(issue.Text)...))
	if e.has("traces_search_errors") {
		calls = append(calls, ToolCall{Tool: "traces_search_errors", Args: map[string]any{
			"prefer": prefer, "start": rfc(issue.Start), "end": rfc(issue.End)}})
	}
	if e.has("logs_search_errors") {
		calls = append(calls, ToolCall{Tool: "logs_search_errors", Args: map[string]any{
			"start": rfc(issue.Start), "end": rfc(issue.End)}})
	}
	if e.has("logs_templates") {
		args := map[string]any{"start": rfc(issue.Start), "end": rfc(issue.End)}
		if issue.Namespace != "" {
			args["namespace"] = issue.Namespace
		}
		calls = append(calls, ToolCall{Tool: "logs_templates", Args: args})
	}
	if e.has("metrics_health") {
		args := map[string]any{"start": rfc(issue.Start), "end": rfc(issue.End)}
		if issue.Namespace != "" {
			args["namespace"] = issue.Namespace
		}
		calls = append(calls, ToolCall{Tool: "metrics_health", Args: args})
	}
	if e.has("changes_recent_commits") {
		calls = append(calls, ToolCall{Tool: "changes_recent_commits", Args: map[string]any{
			"since": rfc(issue.Start.Add(-leakLookback)), "until": rfc(issue.End)}})
	}
	if e.has("k8s_workload_status") {
		args := map[string]any{}
		if issue.Namespace != "" {
			args["namespace"] = issue.Namespace
		}
		if len(prefer) > 0 {
			args["prefer"] = prefer // whose logs to read first
		}
		args["end"] = rfc(issue.End)
		calls = append(calls, ToolCall{Tool: "k8s_workload_status", Args: args})
	}
	return append(calls, e.runbookCalls(e.runbooksFor(issue, nil), nil)...)
}

// weakLead: the window's evidence does not already explain the impact
// (no leader, or one seen by a single family with no failing trace and no
// platform signal of its own).
func weakLead(h *hypothesis) bool {
	return h == nil || (len(evidenceFamilies(h.c)) < 2 && h.c.infra == 0 && h.c.traceOrigins == 0 && h.c.traceCallee == 0)
}

// widenedWindow is how far back an investigation looks when its window
// shows no failure at all.
const widenedWindow = 72 * time.Hour

// evidenceCalls re-queries the families that show failures (traces, logs)
// over the issue's window.
func (e *Engine) evidenceCalls(issue Issue) []ToolCall {
	var calls []ToolCall
	for _, c := range e.firstRound(issue) {
		if c.Tool == "traces_search_errors" || c.Tool == "logs_search_errors" {
			calls = append(calls, c)
		}
	}
	return calls
}

// infraTypes are error types whose fix lives in configuration/manifests.
func infraLike(h *hypothesis) bool {
	switch h.c.ErrorType {
	case ErrOOM, ErrConfig, ErrResourceExhaustion, ErrTLS:
		return true
	}
	return h.c.infra > 0
}

// secondRound reads what the leading hypothesis points at.
func (e *Engine) secondRound(ev *evidence, h *hypothesis) []ToolCall {
	var calls []ToolCall
	read := func(file string, line int) {
		if e.has("source_read") && len(calls) < 3 {
			calls = append(calls, ToolCall{Tool: "source_read", Args: map[string]any{"file": file, "line": line, "service": h.c.Service}})
		}
	}
	if h.anchor != nil {
		read(PathHint(*h.anchor), h.anchor.Line)
	}
	if l, _, _, ok := ev.contractBreak(h.c); ok {
		read(l.change.File, l.line)
	}
	if h.c.hasSignature("cloud-access-denied") {
		if l, ok := ev.permissionChange(h.c); ok {
			read(l.change.File, l.line)
		}
	}
	if h.c.hasSignature("shared-connection") {
		if l, ok := ev.sharedConnectionChange(h.c); ok {
			read(l.change.File, l.line)
		}
	}
	if ev.readBeforeCommit(h.c) {
		if f := missingRecordFile(h.c); f != "" && e.has("source_read") && len(calls) < 3 {
			// The model of the record that was not found: its callbacks
			// decide when the record is handed over.
			calls = append(calls, ToolCall{Tool: "source_read", Args: map[string]any{"file": f, "line": 1, "context": 40}})
		}
	}
	if h.anchor == nil {
		if m, ok := ev.explainingChange(h.c); ok {
			read(m.line.change.File, m.line.line)
		}
	}
	if app, _, ok := startOrderOwner(h.c, h.anchor); ok && e.has("source_read") && len(calls) < 3 {
		// The resource the failure misses is owned by a process: the
		// application module's children list says when it starts.
		calls = append(calls, ToolCall{Tool: "source_read", Args: map[string]any{"file": applicationFile(app), "line": 1, "context": 40, "service": h.c.Service}})
	}
	switch h.c.ErrorType {
	case ErrTimeout:
		if h.anchor == nil {
			if l, ok := ev.slowChange(h.c); ok {
				read(l.change.File, l.line)
			}
		}
	case ErrOOM, ErrResourceExhaustion:
		if l, ok := ev.blockingChange(h.c); ok && h.c.hasSignature("threadpool-starvation") {
			read(l.change.File, l.line)
		} else if l, _, ok := ev.retryStormChange(h.c); ok && h.c.ErrorType == ErrResourceExhaustion {
			read(l.change.File, l.line)
		} else if l, ok := ev.leakChange(h.c); ok {
			read(l.change.File, l.line)
		}
	}
	// What the failure's words say, when no signature typed it.
	et := h.c.ErrorType
	if et == ErrUnknown || et == "" {
		et = ev.decideErrorType(h.c, changeMatch{}, false)
	}
	if infraLike(h) || et == ErrTimeout || et == ErrNetwork || et == ErrDependency || et == ErrConfig || et == ErrResourceExhaustion || et == ErrOOM || et == ErrTLS {
		if l, ok := ev.memoryVolumeChange(h.c); ok {
			read(l.change.File, l.line)
		} else if l, ok := ev.resourceSettingChange(h.c); ok {
			read(l.change.File, l.line)
		} else if l, ok := ev.configChange(h.c); ok && !h.c.probeMismatch() {
			read(l.change.File, l.line)
		}
		targets, deploy := fieldTargets(h.c)
		if _, named := ev.namedConfigChange(h.c); (!named || len(targets) > 0) && e.has("source_manifests") {
			args := map[string]any{"service": h.c.Service}
			keys := append(settingNames(h.c), namedSettings(h.c)...)
			if spec := resourceOfCandidate(h.c); spec != nil {
				keys = append(keys, spec.keys...) // the setting that bounds the exhausted resource
			}
			if keys := dedupe(keys); len(keys) > 0 {
				args["keys"] = keys
			}
			if vals := quotedLimits(h.c); len(vals) > 0 {
				args["values"] = vals // the limit the failure quotes, to find the setting that holds it
			}
			if len(targets) > 0 {
				args["targets"] = targets // the fields Kubernetes analyzers name, to map onto the repository
			}
			if deploy != nil {
				args["deploy"] = deploy
			}
			calls = append(calls, ToolCall{Tool: "source_manifests", Args: args})
		}
	}
	return calls
}

// evidenceFamilies lists the independent evidence families behind a candidate.
func evidenceFamilies(c *candidate) []Family {
	var out []Family
	for f := range c.Families {
		switch f {
		case FamilyTraces, FamilyLogs, FamilyMetrics, FamilyK8s, FamilyMCP:
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Conclude turns evidence and the leading hypothesis into a governed result.
func (e *Engine) Conclude(issue Issue, receipts []Receipt, ev *evidence, h *hypothesis) *HealResult {
	used, unavailable := toolsUsedAndFailed(receipts, e.Unavailable())
	res := &HealResult{Timeline: receipts, ToolsUsed: used, ToolsUnavailable: unavailable, IssueKey: issue.Key, Repo: issue.Repo, Ref: issue.Ref}
	if h == nil {
		return e.concludeNothing(issue, res, ev)
	}
	c := h.c
	rc := RootCause{Service: c.Service, ErrorType: c.ErrorType, Function: ""}
	// Source windows read in the second round, by path.
	// Every window read, by file (a file may be read at several lines; which
	// one answers depends on the line asked, not on the receipts' order).
	reads := map[string][]Finding{}
	var frameRead *Finding
	for _, f := range ev.findings {
		if f.Kind == KindSourceAnchor {
			reads[f.File] = append(reads[f.File], f)
			if h.anchor != nil && f.Attrs["requested"] == PathHint(*h.anchor) && (f.Line == h.anchor.Line || f.Attrs["asked_line"] == strconv.Itoa(h.anchor.Line)) {
				g := f
				frameRead = &g
			}
		}
	}
	var anchorPath string
	var anchorLine int
	var window []string
	var col int
	// compiledLine: the frame was of compiled output, so its line number is
	// not the source's; the expression the error names places it.
	compiledLine := false
	if frameRead != nil {
		anchorPath, anchorLine = frameRead.File, frameRead.Line
		window = windowLines(frameRead.Attrs["window"])
		if frameRead.Attrs["compiled_from"] != "" {
			compiledLine = true
			if l, ok := exprLine(windowRows(window), candidateExpressions(c), anchorLine); ok {
				anchorLine, compiledLine = l.n, false
			}
		}
	}
	if h.anchor != nil {
		rc.Function = h.anchor.Function
		col = columnOf(c, h.anchor)
		if frameRead != nil && frameRead.Attrs["compiled_from"] != "" {
			col = 0 // a column of the compiled output, not of the source
		}
	}
	explain, explained := ev.explainingChange(c)
	if c.ErrorType == ErrUnknown || c.ErrorType == "" {
		// Nothing in the catalogue typed it: its words, or the change that
		// explains it, do.
		c.ErrorType = ev.decideErrorType(c, explain, explained)
		rc.ErrorType = c.ErrorType
	}
	bucket := ev.classify(h, anchorPath, anchorLine)
	if bucket == BucketUnknown {
		bucket = ev.decideBucket(c, explain, explained)
	}
	if ev.inputDoesNotFit(c, anchorPath, anchorLine) {
		rc.ErrorType = ErrDataValidation
	}
	if bucket == BucketFlake && (ev.checkThenInsertRace(c, anchorPath, anchorLine) || ev.tokenExpiryRace(c) || ev.portRace(c) || ev.readBeforeCommit(c)) {
		rc.ErrorType = ErrRace
	}
	var manifest *ManifestField
	var cfg, leak changeLine
	var hasCfg, hasLeak bool
	// slowPick: the line was chosen as the change most likely to slow the
	// service (a query, a dropped index), not named by the failure.
	slowPick := false
	var brokenFor []string // consumers of a shared schema a producer changed
	var handover string    // the model callback that hands a record over before commit
	var originOf string    // the callee whose failures a caller's change causes
	var handoverLine int
	switch bucket {
	case BucketCodeBug:
		if l, owner, consumers, ok := ev.contractBreak(c); ok {
			leak, hasLeak = l, true
			rc.Service, rc.ErrorType = owner, ErrDataValidation
			brokenFor = consumers
		}
		if !hasLeak {
			if l, _, ok := ev.hazardChange(c, anchorPath); ok {
				leak, hasLeak = l, true // a construct wrong wherever it is written, added just before
			}
		}
		if !hasLeak {
			if l, ok := ev.asyncCallerChange(c, h.anchor); ok {
				leak, hasLeak = l, true // the call that lets the rejection escape
			}
		}
		if !hasLeak && (c.ErrorType == ErrTimeout || c.ErrorType == ErrNetwork || c.ErrorType == ErrDependency || c.ErrorType == ErrResourceExhaustion) {
			leak, hasLeak = ev.leakyReturnChange(c)
		}
		if !hasLeak && c.hasSignature("hung-call") {
			leak, hasLeak = ev.noTimeoutChange(c)
		}
		if !hasLeak && c.hasSignature("threadpool-starvation") {
			leak, hasLeak = ev.blockingChange(c)
			slowPick = hasLeak
		}
		if !hasLeak && c.ErrorType == ErrResourceExhaustion {
			var caller string
			if leak, caller, hasLeak = ev.retryStormChange(c); hasLeak {
				rc.Service = caller // the caller whose retries multiply the load
			}
		}
		if !hasLeak && (c.ErrorType == ErrOOM || c.ErrorType == ErrResourceExhaustion) {
			leak, hasLeak = ev.leakChange(c)
		}
		if !hasLeak && c.ErrorType == ErrTimeout && anchorPath == "" {
			leak, hasLeak = ev.slowChange(c)
			slowPick = hasLeak
		}
		if !hasLeak && c.ErrorType == ErrDependency {
			if l, ok := ev.dependencyChange(c); ok {
				leak, hasLeak = l, true
			}
		}
		if !hasLeak && c.ErrorType == ErrDataValidation && anchorPath == "" {
			var owner string
			if leak, owner, hasLeak = ev.validationChange(c); hasLeak && owner != "" {
				rc.Service = owner // the producer whose change broke the contract
			}
		}
		// A callee rejecting what its callers send, unchanged for long,
		// while the caller sending it changed just before: the caller's
		// change is the origin, the callee the victim.
		if !hasLeak && requestShaped(c.ErrorType) {
			if l, caller, heur, ok := ev.callerOriginChange(c); ok {
				leak, hasLeak = l, true
				rc.Service, originOf = caller, c.Service
				slowPick = slowPick || heur
			}
		}
	case BucketFlake:
		if f, n, ok := ev.enqueueBeforeCommit(c); ok {
			// The handover inside the transaction is where it is fixed, in
			// the service that writes the record and hands it over.
			handover, handoverLine = f.File, n
			slowPick = true // the line follows from the kind of failure, not from a frame
			if w := ev.dominantCallerOf(c.Service); w != "" {
				rc.Service = w
			}
		}
		// A record read back from a replica right after it was written: the
		// change that moved the read off the primary lost read-your-writes.
		if handover == "" {
			if l, ok := ev.replicaReadChange(c); ok {
				leak, hasLeak = l, true
				slowPick = true // chosen by the kind of failure, not by a frame
				rc.ErrorType = ErrRace
			}
		}
		// Replies read from a connection another worker is using: the
		// connection was opened once at start-up and inherited by all.
		if c.hasSignature("shared-connection") {
			// Where the interleaved reply surfaces is not where the
			// connection is shared: the line is a judgement call.
			slowPick = true
			if l, ok := ev.sharedConnectionChange(c); ok {
				leak, hasLeak = l, true
			}
		}
	case BucketInfrastructure:
		// A manifest setting the errors name (the Secret key, the env var)
		// and a probe on the wrong port are fixed where they are set,
		// whatever change exposed them.
		m := pickManifestField(ev, h)
		fm := fieldManifest(ev, c)
		memVol, hasMemVol := ev.memoryVolumeChange(c)
		resSetting, hasResSetting := ev.resourceSettingChange(c)
		_, namedChange := ev.namedConfigChange(c)
		switch {
		case hasMemVol:
			// A RAM-backed volume added just before the kills: its files
			// count against the memory limit the OOM killer enforces.
			cfg, hasCfg = memVol, true
		case fm != nil && (fm.Exact && fm.How != LocatedValueScan || !namedChange):
			manifest = fm // the line that produces the field a Kubernetes analyzer names
		case c.probeMismatch() && m != nil:
			manifest = m
		case hasResSetting:
			cfg, hasCfg = resSetting, true // the bound of the exhausted resource, or where it belongs
		case m != nil && capacitySetting(c, m):
			manifest = m // the ceiling that binds is the setting, whatever change came before
		case c.hasSignature("cloud-access-denied"):
			if l, ok := ev.permissionChange(c); ok {
				cfg, hasCfg = l, true
			}
		default:
			if l, ok := ev.namedConfigChange(c); ok {
				cfg, hasCfg = l, true
			} else if m != nil && (manifestNamed(c, m) || m.Kind == FieldConfigValue) {
				manifest = m
			} else if cfg, hasCfg = ev.configChange(c); !hasCfg {
				manifest = m
			}
		}
	}
	sourceRead := false
	nearby := false
	// nearestRead is the window of file read closest to line.
	nearestRead := func(file string, line int) (Finding, bool) {
		var best Finding
		ok := false
		for _, f := range reads[file] {
			if !ok || abs(f.Line-line) < abs(best.Line-line) {
				best, ok = f, true
			}
		}
		return best, ok
	}
	readAt := func(file string, line int) bool {
		f, ok := nearestRead(file, line)
		return ok && abs(f.Line-line) <= 3
	}
	switch {
	case hasLeak:
		rc.File, rc.Line = leak.change.File, leak.line
		sourceRead = readAt(rc.File, rc.Line)
		near, _ := nearestRead(rc.File, rc.Line)
		window = windowLines(near.Attrs["window"])
		if !windowHas(window, leak.line) {
			window = []string{fmt.Sprintf("> %d  %s", leak.line, leak.text)} // the changed line itself
		}
		rc.Function = ""
	case hasCfg:
		rc.File, rc.Line = cfg.change.File, cfg.line
		rc.Function = "" // a setting, not a function
		sourceRead = readAt(rc.File, rc.Line)
	case manifest != nil:
		rc.File, rc.Line = manifest.File, manifest.Line
		sourceRead = true
	case handover != "":
		rc.File, rc.Line, rc.Function = handover, handoverLine, ""
		sourceRead = true
	case anchorPath != "" && bucket != BucketInfrastructure:
		rc.File, rc.Line = anchorPath, anchorLine
		sourceRead = true
		// The crash surfaced at a line no recent change touched, a few lines
		// below a line a change just before the impact did touch: the
		// defect is the change (a removed guard, a new computation).
		if bucket == BucketCodeBug {
			if l, ok := ev.nearbyChange(anchorPath, anchorLine); ok {
				rc.Line = l.line
				nearby = true
			}
		}
		// A race on a shared object is fixed where the object is shared:
		// its static/singleton declaration in the window read.
		if c.ErrorType == ErrRace {
			if n := sharedDeclaration(window); n > 0 {
				rc.Line = n
			}
			// A lock lost while its holder still worked: the fixed lease
			// taken where the lock is acquired is what ran out.
			if c.hasSignature("lock-lost") {
				if n := windowMatch(window, leaseAcquireRE); n > 0 {
					rc.Line = n
				}
			}
		}
	}
	// A request served before the process that owns what it reads had
	// started: the children's order is the defect, not the lookup.
	startOrder := false
	if !hasLeak && !hasCfg && manifest == nil && handover == "" && (bucket == BucketFlake || bucket == BucketCodeBug) {
		if f, n, ok := ev.startOrderLine(c, h.anchor); ok {
			rc.File, rc.Line, rc.Function = f, n, ""
			sourceRead, startOrder = true, true
			rc.ErrorType = ErrRace
		}
	}
	// Nothing located the cause, but a recent change explains it (it
	// touches the failing code or names what the failure names): the
	// changed line is where to look.
	byChange := false
	// No line of the repository placed it (no frame, or one of code not in
	// the repository), but the error names an expression (fee.toFixed,
	// .items, ['sku']) that a recent change to the service's code holds or
	// runs next to: that line is where the error is raised.
	var exprL changeLine
	byExpr := false
	if rc.File == "" && anchorPath == "" && bucket == BucketCodeBug {
		if l, ok := ev.exprChange(c, candidateExpressions(c)); ok {
			exprL, byExpr = l, true
			rc.File, rc.Line, rc.Function = l.change.File, l.line, ""
			sourceRead = readAt(rc.File, rc.Line)
		}
	}
	if rc.File == "" && h.anchor == nil && explained && (bucket != BucketInfrastructure || IsConfigPath(explain.line.change.File)) && (bucket == BucketCodeBug || bucket == BucketInfrastructure) {
		rc.File, rc.Line, rc.Function = explain.line.change.File, explain.line.line, ""
		sourceRead = readAt(rc.File, rc.Line)
		byChange = true
	}
	// An infrastructure cause nothing else located: the configuration
	// change before the onset that shares most with the failure (a
	// Terraform rule, a values key) is where to look, even when it
	// explains less than a code change would need to.
	if rc.File == "" && bucket == BucketInfrastructure {
		if m, ok := ev.configChangeBefore(c); ok {
			rc.File, rc.Line, rc.Function = m.line.change.File, m.line.line, ""
			sourceRead = readAt(rc.File, rc.Line)
			explain, byChange = m, true
		}
	}
	if bucket == BucketInfrastructure && (rc.ErrorType == ErrRuntime || rc.ErrorType == ErrNullPointer || rc.ErrorType == ErrUnknown || rc.ErrorType == "") {
		rc.ErrorType = ErrConfig // not a defect of code: a setting
	}
	if bucket == BucketBadData && (rc.ErrorType == ErrRuntime || rc.ErrorType == ErrUnknown || rc.ErrorType == "") {
		rc.ErrorType = ErrDataValidation // the code is right; the input is what it cannot accept
	}
	rc.Bucket = bucket
	if strings.TrimSpace(rc.Service) == "" {
		// An answer always names a service: the one asked about, else the
		// loudest one.
		rc.Service = issue.Service
		if rc.Service == "" {
			rc.Service = ev.loudestService()
		}
	}
	unresolved := ""
	if hasCfg && (c.Signature == "dns" || c.Signature == "java-unknownhost") {
		if unresolved = hostNamedIn(c, cfg.text); unresolved != "" {
			// The name that does not resolve is the one a changed setting
			// holds: a misconfiguration, not a network fault.
			rc.ErrorType = ErrConfig
		}
	}
	if ciSystemRE.MatchString(rc.Service) {
		// A CI runner reports the failure; the project under test owns it.
		for _, hsvc := range hintsOf(issue, ev.known) {
			if !ciSystemRE.MatchString(hsvc) {
				rc.Service = hsvc
				break
			}
		}
		if ciSystemRE.MatchString(rc.Service) && issue.Service != "" {
			rc.Service = issue.Service
		}
		if p := projectOfPath(anchorPath); ciSystemRE.MatchString(rc.Service) && p != "" {
			rc.Service = p // the project whose failing test or code the evidence anchors
		}
	}
	if (bucket == BucketFlake || bucket == BucketBadData) && c.traceOrigins == 0 && c.logCause == 0 && c.traceCallee > 0 {
		// A flaky callee is felt by its callers: report where the flake is
		// observed and tolerated.
		if caller := dominantCaller(c); caller != "" {
			rc.Service = caller
		}
	}
	families := evidenceFamilies(c)
	change, exact, hasChange := ev.deployed(anchorPath, anchorLine, ev.onset)
	switch {
	case hasLeak:
		change, exact, hasChange = leak.change, true, true
	case hasCfg:
		change, exact, hasChange = cfg.change, true, true
	case byChange:
		change, exact, hasChange = explain.line.change, true, true
	case byExpr:
		change, exact, hasChange = exprL.change, true, true
	}
	if hasChange && exact && (bucket == BucketCodeBug || hasCfg || byChange || byExpr) {
		families = append(families, FamilyChanges)
	}
	contested := ""
	if h.runnerUp != nil && h.runnerUp.Score > 0.7*c.Score {
		contested = fmt.Sprintf("%s in %s", h.runnerUp.ErrorType, h.runnerUp.Service)
	}
	if doubt := ev.bucketDoubt(h, bucket, anchorPath, anchorLine); doubt != "" {
		contested = joinNonEmpty("; ", contested, doubt)
	}
	in := GovernorInput{
		ErrorTypeKnown: c.ErrorType != ErrUnknown && c.ErrorType != "",
		FileAnchored:   rc.File != "" && rc.Line > 0,
		SourceRead:     sourceRead,
		Corroborating:  families,
		Contested:      contested,
		Failures:       c.failures(),
		HeuristicLine:  nearby || slowPick || byChange || byExpr || compiledLine || startOrder || (hasCfg && !containsSetting(cfg.text, namedSettings(c))) || (manifest != nil && !manifestExact(c, manifest)),
		Warnings:       ReceiptWarnings(receipts),
	}
	rc.RawConfidence = rawConfidence(c, h.runnerUp, in)
	rc.ClaimedBand = ClaimFromRaw(rc.RawConfidence)
	rc.Band, res.ConfidenceNote = Govern(rc.ClaimedBand, in)
	rc.Description = describeCause(h, rc, manifest, change, hasChange && exact, ev.onset)
	if l, ok := ev.replicaReadChange(c); ok && bucket == BucketFlake && hasLeak && l.line == rc.Line && samePath(l.change.File, rc.File) {
		rc.Description = strings.Replace(strings.Replace(rc.Description, readBeforeCommitWhat, replicaReadWhat, 1), "A"+readBeforeCommitWhat[1:], "A"+replicaReadWhat[1:], 1)
	}
	if len(brokenFor) > 0 {
		rc.Description = fmt.Sprintf("%s changed the shared schema %s (%s:%d, in %s) incompatibly: %s, built against the previous version, now decode its messages wrong and fail. Evidence: %q.",
			rc.Service, path.Base(rc.File), rc.File, rc.Line, change.Quote, strings.Join(brokenFor, " and "), Quote(bestQuote(c), 160))
	}
	if originOf != "" {
		rc.Description += fmt.Sprintf(" %s's requests to %s changed just before the failures, while %s had not changed for longer: %s only reports what %s now sends.", rc.Service, originOf, originOf, originOf, rc.Service)
	}
	if unresolved != "" {
		rc.Description += fmt.Sprintf(" The host %s does not resolve, and the changed setting at %s:%d is what names it: check it for a typo.", unresolved, rc.File, rc.Line)
	}
	if why, alts := ev.ambiguity(h, rc, anchorPath, anchorLine, explain, explained); why != "" {
		res.NeedsHuman, res.NeedsHumanReason, res.Alternatives = true, why, alts
		if rc.Band == BandHigh {
			rc.Band = BandMedium
		}
		res.ConfidenceNote = joinNonEmpty(" ", res.ConfidenceNote, "Needs a human: "+why+".")
	}
	res.RootCause = rc
	res.Evidence = pickEvidence(c, ev, anchorPath, manifest, change, hasChange)
	res.Deploy = deployTargetFor(ev, c, manifest)
	res.Fix = e.buildFix(ev, h, rc, window, col, manifest)
	res.Summary = summarize(rc)
	verifyWith(ev, res)
	for i := range res.Alternatives {
		// As well supported as the root cause, never better.
		res.Alternatives[i].RootCause.Band, res.Alternatives[i].RootCause.ClaimedBand = res.RootCause.Band, res.RootCause.Band
	}
	res.Chart = ChartFor(res, ev.impact)
	return res
}

func (e *Engine) concludeNothing(issue Issue, res *HealResult, ev *evidence) *HealResult {
	svc := issue.Service
	if svc == "" && len(ev.hinted) > 0 {
		for _, k := range hintsOf(issue, ev.known) {
			svc = k
			break
		}
	}
	if svc == "" {
		svc = ev.loudestService()
	}
	// Even with nothing to go on, the answer names a bucket: the one the
	// reporter's words point at (infrastructure when they point nowhere).
	bucket := ev.decideBucket(&candidate{ErrorType: ErrUnknown, Support: []Finding{{Quote: issue.Text}}}, changeMatch{}, false)
	res.RootCause = RootCause{Service: svc, ErrorType: ErrUnknown, Bucket: bucket, ClaimedBand: BandLow, Band: BandLow,
		Description: "No failure was found in the evidence that could be gathered."}
	okFamilies := 0
	for range ev.okFamily {
		okFamilies++
	}
	var missing []string
	for _, u := range res.ToolsUnavailable {
		missing = append(missing, fmt.Sprintf("%s (%s)", u.Family, u.Reason))
	}
	res.ConfidenceNote = "LOW: no tool returned evidence of a failure"
	if okFamilies == 0 {
		res.ConfidenceNote = "LOW: no backend could be queried"
	}
	if len(missing) > 0 {
		res.ConfidenceNote += ". Unavailable: " + strings.Join(missing, "; ")
	}
	res.ConfidenceNote += "." + WarningNote(ReceiptWarnings(res.Timeline)) + " Configure more backends or widen the time window to investigate further."
	res.Summary = "No root cause found: " + strings.TrimPrefix(res.ConfidenceNote, "LOW: ")
	res.Fix = Fix{Summary: "Nothing to fix yet: no failure evidence was found. Check the time window and service name, and configure the missing backends."}
	res.Evidence = []Finding{}
	return res
}

func windowLines(w string) []string {
	if strings.TrimSpace(w) == "" {
		return nil // nothing was read
	}
	var out []string
	for _, l := range strings.Split(strings.TrimRight(w, "\n"), "\n") {
		out = append(out, l)
	}
	return out
}

var nodeColRE = regexp.MustCompile(`:(\d+):(\d+)\)?\s*$`)

// columnOf recovers the column of a JavaScript frame from the stack text.
func columnOf(c *candidate, f *Frame) int {
	for _, s := range c.Support {
		idx := strings.Index(s.Quote, fmt.Sprintf("%s:%d:", f.File, f.Line))
		if idx >= 0 {
			rest := s.Quote[idx+len(fmt.Sprintf("%s:%d:", f.File, f.Line)):]
			n := 0
			for _, r := range rest {
				if r < '0' || r > '9' {
					break
				}
				n = n*10 + int(r-'0')
			}
			if n > 0 {
				return n
			}
		}
	}
	return 0
}

// pickManifestField chooses the manifest setting an infrastructure cause
// implicates.
// capacitySetting reports whether m is the capacity ceiling the evidence
// shows binding: maxReplicas of an autoscaler held at its maximum, the CPU
// limit of a throttled container.
func capacitySetting(c *candidate, m *ManifestField) bool {
	return (m.Kind == FieldMaxReplicas && c.hasSignature("hpa-at-max")) ||
		(m.Kind == FieldCPULimit && c.hasSignature("cpu-throttled") && !c.hasSignature("hpa-at-max"))
}

func pickManifestField(ev *evidence, h *hypothesis) *ManifestField {
	var fields []ManifestField
	for _, f := range ev.findings {
		if f.Kind != KindManifest {
			continue
		}
		fields = append(fields, ManifestField{File: f.File, Line: f.Line, Kind: f.Attrs["field"], Path: f.Attrs["path"], Value: f.Attrs["value"], Name: f.Attrs["name"], Container: f.Attrs["container"]})
	}
	if len(fields) == 0 {
		return nil
	}
	want := []string{}
	text := strings.ToLower(joinQuotes(h.c.Support))
	switch {
	case h.c.hasSignature("pdb-selects-nothing"):
		want = []string{FieldPDBSelector}
	case h.c.deepLiveness():
		want = []string{FieldLivenessPath}
	case h.c.ErrorType == ErrOOM:
		want = []string{FieldMemoryLimit, FieldMemoryRequest}
	case h.c.hasSignature("tls-hostname"):
		want = []string{FieldDNSNames, FieldTLS}
	case h.c.ErrorType == ErrTLS:
		want = []string{FieldIssuer, FieldTLS}
	case h.c.ErrorType == ErrResourceExhaustion && h.c.hasSignature("hpa-at-max"):
		want = []string{FieldMaxReplicas, FieldReplicas}
	case h.c.ErrorType == ErrResourceExhaustion && h.c.hasSignature("cpu-throttled"):
		want = []string{FieldCPULimit}
	case h.c.Signature == "k8s-imagepull":
		want = []string{FieldImageTag, FieldImage}
	case (h.c.Signature == "k8s-probe" || strings.Contains(text, "probe failed")) && h.c.probeRefused():
		want = []string{FieldReadinessPort, FieldLivenessPort, FieldContainerPort}
	case h.c.Signature == "k8s-configerror" || h.c.Signature == "bad-credentials":
		want = []string{FieldSecretKeyRef, FieldEnvVar, FieldEnvFrom, FieldEnv}
	case h.c.Signature == "missing-env" || h.c.ErrorType == ErrConfig:
		want = []string{FieldEnvVar, FieldSecretKeyRef, FieldEnv, FieldEnvFrom}
	case h.c.ErrorType == ErrResourceExhaustion && strings.Contains(text, "memory"):
		want = []string{FieldMemoryRequest, FieldMemoryLimit}
	}
	// A setting the errors name outright wins (max_client_conn = 200, the
	// Secret key connection-string, the env var DB_PASSWORD).
	names := namedSettings(h.c)
	for _, k := range []string{FieldConfigKey, FieldSecretKeyRef, FieldEnvVar} {
		for i := range fields {
			f := &fields[i]
			if f.Kind != k {
				continue
			}
			val := f.Value
			if i := strings.LastIndex(f.Name, "/"); i >= 0 {
				val += " " + f.Name[i+1:]
			} else {
				val += " " + f.Name
			}
			if containsSetting(val, names) {
				return f
			}
		}
	}
	// The setting that bounds the exhausted resource (LimitNOFILE, a
	// volume's size).
	if spec := resourceOfCandidate(h.c); spec != nil {
		for _, k := range spec.keys {
			for i := range fields {
				if fields[i].Kind == FieldConfigKey && strings.EqualFold(fields[i].Name, k) {
					return &fields[i]
				}
			}
		}
	}
	// A limit-like setting holding the very value the failure quotes
	// ("aborted after 150ms" and inventory_timeout_ms: 150).
	for i := range fields {
		if fields[i].Kind == FieldConfigValue {
			return &fields[i]
		}
	}
	// Prefer a field whose name the evidence mentions (an env var or secret key).
	for _, k := range want {
		if k != FieldEnvVar && k != FieldSecretKeyRef && k != FieldConfigKey {
			continue // only settings named after something can be named by the evidence
		}
		for i := range fields {
			f := &fields[i]
			if f.Kind == k && f.Name != "" && mentions(text, f.Name) {
				return f
			}
		}
	}
	for _, k := range want {
		for i := range fields {
			if fields[i].Kind == k && fields[i].Kind != FieldEnvVar && fields[i].Kind != FieldSecretKeyRef {
				return &fields[i]
			}
		}
	}
	return nil
}

func mentions(text, name string) bool {
	name = strings.ToLower(name)
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	return name != "" && strings.Contains(text, name)
}

func joinQuotes(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.Quote)
		b.WriteString("\n")
		for _, v := range f.Attrs {
			b.WriteString(v)
			b.WriteString(" ")
		}
	}
	return b.String()
}

// rawConfidence is the engine's own estimate: how clearly the leader wins
// and how much independent evidence it has.
func rawConfidence(c, runnerUp *candidate, in GovernorInput) float64 {
	raw := 0.3 + 0.15*float64(min(len(in.Corroborating), 3))
	if in.FileAnchored {
		raw += 0.15
	}
	if in.SourceRead {
		raw += 0.05
	}
	if runnerUp != nil && c.Score > 0 {
		raw -= 0.3 * (runnerUp.Score / c.Score)
	}
	if !in.ErrorTypeKnown {
		raw -= 0.2
	}
	return clamp01(raw)
}

func clamp01(x float64) float64 {
	if x < 0 {
		return 0
	}
	if x > 1 {
		return 1
	}
	return float64(int(x*100+0.5)) / 100
}

func bucketWord(b Bucket) string {
	switch b {
	case BucketCodeBug:
		return "code bug"
	case BucketInfrastructure:
		return "infrastructure"
	case BucketBadData:
		return "bad data"
	case BucketFlake:
		return "flake"
	}
	return "unclassified"
}

func describeCause(h *hypothesis, rc RootCause, m *ManifestField, change Finding, changeExact bool, onset time.Time) string {
	c := h.c
	what := string(c.ErrorType)
	if s := SignatureByID(c.Signature); s != nil {
		what = s.Title
	}
	if rc.ErrorType == ErrRace && c.hasSignature("token-expired") {
		what = "cached access token used up to its expiry (requests at the boundary are rejected)"
	}
	if rc.ErrorType == ErrRace && c.hasSignature("record-not-found") {
		what = readBeforeCommitWhat
	} else if rc.ErrorType == ErrRace && c.ErrorType == ErrDataValidation {
		what = "concurrent find-or-create of the same key (the losing insert hits the unique index)"
	}
	var b strings.Builder
	if rc.Service != c.Service && c.ErrorType == ErrResourceExhaustion && changeExact && rc.Bucket == BucketCodeBug {
		// A caller's retries exhaust the service: name both.
		fmt.Fprintf(&b, "%s retries its calls to %s (%s:%d, added by %s): when %s slowed, the retries multiplied its load and kept it exhausted.",
			rc.Service, c.Service, rc.File, rc.Line, change.Quote, c.Service)
		if q := bestQuote(c); q != "" {
			fmt.Fprintf(&b, " Evidence: %q.", Quote(q, 160))
		}
		return b.String()
	}
	if rc.Service != "" && rc.Service != c.Service {
		// The failure was re-attributed (a CI runner's failure to the
		// project under test, a callee's to its caller): name the owner,
		// and where it was seen.
		fmt.Fprintf(&b, "%s in %s (seen in %s)", capitalize(what), rc.Service, c.Service)
	} else {
		fmt.Fprintf(&b, "%s in %s", capitalize(what), c.Service)
	}
	if rc.File != "" && m == nil {
		fmt.Fprintf(&b, " at %s:%d", rc.File, rc.Line)
		if rc.Function != "" {
			fmt.Fprintf(&b, " (%s)", shortFunc(rc.Function))
		}
	}
	b.WriteString(".")
	if q := bestQuote(c); q != "" {
		fmt.Fprintf(&b, " Evidence: %q.", Quote(q, 160))
	}
	if c.traceCallee > 0 {
		fmt.Fprintf(&b, " Callers' requests to %s failed in %d traces.", c.Service, c.traceCallee)
	}
	if c.traceOrigins > 0 {
		fmt.Fprintf(&b, " %d failing traces originate here.", c.traceOrigins)
	}
	switch {
	case m != nil && m.Ref != nil && !m.Exact && m.Missing != "":
		fmt.Fprintf(&b, " %s is not set: it belongs under %s (%s:%d).", m.Missing, m.Path, m.File, m.Line)
	case m != nil:
		fmt.Fprintf(&b, " The deployed setting %s is %s (%s:%d).", m.Path, m.Value, m.File, m.Line)
	}
	if changeExact {
		gap := ""
		if onset.IsZero() || !onset.After(change.Time) {
			onset = c.First // a counting window ("in the last 2 days") dated the impact before the change
		}
		if !onset.IsZero() && onset.After(change.Time) {
			gap = " " + approxDuration(onset.Sub(change.Time))
		}
		switch {
		case rc.Bucket == BucketBadData:
			fmt.Fprintf(&b, " The code there last changed in %s,%s before the failures began, and ran without failing in between: the input changed, not the code.", change.Quote, gap)
		case gap != "":
			fmt.Fprintf(&b, " The line was changed by %s,%s before the failures started.", change.Quote, gap)
		default:
			fmt.Fprintf(&b, " The line was changed by %s shortly before the failures started.", change.Quote)
		}
	}
	return b.String()
}

func shortFunc(f string) string {
	if i := strings.LastIndex(f, "/"); i >= 0 && strings.Trim(f[i+1:], "0123456789") != "" {
		f = f[i+1:] // a path, not an Elixir arity (Lots.ensure_started/1)
	}
	return f
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// bestQuote picks the most telling quote: exceptions first, then cause logs, then infra.
func bestQuote(c *candidate) string {
	var best Finding
	rank := func(f Finding) int {
		switch {
		case f.Kind == KindException, f.Signature == "hung-call":
			return 4
		case f.Kind == KindMetricAnomaly && f.Signature != "" && f.Signature != "error-rate":
			return 3
		case f.Kind == KindLogPattern && f.Signature != "":
			return 2
		case f.Kind == KindK8sEvent:
			return 3
		}
		return 1
	}
	// Among platform signals, the one that names the cause reads best.
	score := func(f Finding) int {
		r := 2 * rank(f)
		if r >= 4 && r < 8 && f.Signature != "" && f.Signature == c.Signature {
			r = 7 // the finding that names the cause, above other platform signals
		}
		return r
	}
	for _, f := range c.Support {
		if f.Quote != "" && (best.Quote == "" || score(f) > score(best)) {
			best = f
		}
	}
	return best.Quote
}

func pickEvidence(c *candidate, ev *evidence, anchorPath string, m *ManifestField, change Finding, hasChange bool) []Finding {
	support := append([]Finding(nil), c.Support...)
	sort.SliceStable(support, func(i, j int) bool {
		if support[i].Family != support[j].Family {
			return familyRank(support[i].Family) < familyRank(support[j].Family)
		}
		return support[i].Count > support[j].Count
	})
	var out []Finding
	perFamily := map[Family]int{}
	for _, f := range support {
		if f.Kind == KindLogTemplate {
			continue // shown below, with what else changed
		}
		if perFamily[f.Family] >= 3 {
			continue
		}
		perFamily[f.Family]++
		f.Frames = trimFrames(f.Frames)
		out = append(out, f)
	}
	// What changed at the onset goes right after the leading evidence.
	if changed := ev.whatChanged(c); len(changed) > 0 {
		at := min(1, len(out))
		out = append(out[:at], append(changed, out[at:]...)...)
	}
	for _, f := range ev.findings {
		switch {
		case f.Kind == KindSourceAnchor && f.File == anchorPath:
			g := f
			delete(g.Attrs, "window")
			out = append(out, g)
		case f.Kind == KindManifest && m != nil && f.File == m.File && f.Line == m.Line:
			out = append(out, f)
		}
	}
	if hasChange {
		out = append(out, change)
	}
	return out
}

func trimFrames(fs []Frame) []Frame {
	if len(fs) > 5 {
		return fs[:5]
	}
	return fs
}

func familyRank(f Family) int {
	for i, x := range []Family{FamilyTraces, FamilyLogs, FamilyK8s, FamilyMetrics, FamilyMCP, FamilyChanges, FamilySource} {
		if x == f {
			return i
		}
	}
	return 99
}

func summarize(rc RootCause) string {
	where := rc.Service
	if rc.File != "" {
		where += fmt.Sprintf(" (%s:%d)", rc.File, rc.Line)
	}
	return fmt.Sprintf("%s: %s in %s — %s confidence.", capitalize(bucketWord(rc.Bucket)), strings.ReplaceAll(string(rc.ErrorType), "_", " "), where, rc.Band)
}

var idRE = regexp.MustCompile(`(?i)\b(?:id|record|order|order_id|orderId|sku|product(?:_id)?|account|invoice|message(?:_id)?|key|offset|row|user(?:_id)?|customer(?:_id)?|shipment|tracking)[\s:=#"']+([A-Za-z0-9][A-Za-z0-9_-]{2,40})`)

// affectedRecords extracts the record ids that failing lines name.
func affectedRecords(c *candidate) []string {
	count := map[string]int{}
	var order []string
	for _, f := range c.Support {
		texts := []string{f.Quote}
		for _, v := range f.Attrs {
			texts = append(texts, v)
		}
		for _, t := range texts {
			for _, m := range idRE.FindAllStringSubmatch(t, -1) {
				id := m[1]
				if _, err := strconv.Atoi(id); (err == nil && len(id) < 3) || !hasDigitRE.MatchString(id) {
					continue // record ids carry digits; "duplicate key value" names none
				}
				if count[id] == 0 {
					order = append(order, id)
				}
				count[id]++
			}
		}
	}
	if len(order) > 10 {
		order = order[:10]
	}
	return order
}

// failures counts the failing requests, lines and events behind a candidate.
func (c *candidate) failures() int {
	n := c.traceOrigins + c.traceCallee + c.traceRelayed + c.logCallee + c.logCause + c.logPropagated + c.infra
	for _, f := range c.Support {
		if f.Family == FamilyK8s || f.Family == FamilyMetrics {
			n += max(f.Count, 1)
		}
	}
	return n
}

var tokenRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_.-]{3,}`)

// namedBy reports whether the evidence names something on the chosen line
// (a setting key, an env var, a host, a port).
func namedBy(c *candidate, line string) bool {
	text := strings.ToLower(joinQuotes(c.Support))
	svc := NormalizeServiceName(c.Service)
	for _, tok := range tokenRE.FindAllString(line, -1) {
		t := strings.ToLower(strings.Trim(tok, ".-:\"'"))
		if len(t) < 5 || commonYAMLWord[t] || NormalizeServiceName(t) == svc || strings.Contains(svc, NormalizeServiceName(t)) {
			continue // the service's own name is on every line of its manifests
		}
		if strings.Contains(text, t) {
			return true
		}
	}
	return false
}

// manifestNamed: the evidence names the field's value or name as a setting
// (couldn't find key connection-string -> the secretKeyRef key
// connection-string; DB_PASSWORD -> the env var DB_PASSWORD).
func manifestNamed(c *candidate, m *ManifestField) bool {
	names := namedSettings(c)
	for _, v := range []string{m.Value, m.Name} {
		v = strings.Trim(v, `"'`)
		if i := strings.LastIndex(v, "/"); i >= 0 {
			v = v[i+1:]
		}
		if v != "" && containsSetting(v, names) {
			return true
		}
	}
	return false
}

var commonYAMLWord = map[string]bool{"value": true, "name": true, "image": true, "limits": true, "requests": true, "memory": true,
	"spec": true, "metadata": true, "labels": true, "containers": true, "true": true, "false": true, "error": true, "service": true,
	"secret": true, "secrets": true, "apiversion": true, "namespace": true, "external": true, "template": true, "selector": true,
	"config": true, "configmap": true, "deployment": true, "container": true, "valuefrom": true, "secretkeyref": true}

// manifestExact: the field follows from the failure itself (an OOM kill is
// about the memory limit; an image pull about the image; a probe about the
// probe port) or the evidence names it (an env var or Secret key).
func manifestExact(c *candidate, m *ManifestField) bool {
	switch {
	case m.Ref != nil:
		return m.Exact && m.How != LocatedValueScan // located by the object and field, not by likeness
	case c.ErrorType == ErrOOM && (m.Kind == FieldMemoryLimit):
		return true
	case c.Signature == "k8s-imagepull" && (m.Kind == FieldImage || m.Kind == FieldImageTag):
		return true
	case c.Signature == "k8s-probe" && (m.Kind == FieldReadinessPort || m.Kind == FieldLivenessPort) && c.probeRefused():
		// Only a probe that cannot connect implicates its port; one that
		// times out says the application is too slow to answer.
		return true
	case capacitySetting(c, m):
		return true
	case m.Kind == FieldPDBSelector && c.hasSignature("pdb-selects-nothing"):
		return true
	case m.Kind == FieldDNSNames && c.hasSignature("tls-hostname"):
		return true
	case m.Kind == FieldLivenessPath && c.deepLiveness():
		return true
	case manifestNamed(c, m):
		return true
	}
	return false
}

func dominantCaller(c *candidate) string {
	count := map[string]int{}
	for _, f := range c.Support {
		if f.Attrs["blame"] == "callee" && f.Peer != "" {
			count[f.Peer] += max(f.Count, 1)
		}
	}
	best, n := "", 0
	for k, v := range count {
		if v > n || (v == n && k < best) {
			best, n = k, v
		}
	}
	return best
}

var settingNameRE = regexp.MustCompile(`\b[a-z][a-z0-9]*(?:[_.][a-z0-9]+)+\b|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b`)

// settingNames extracts identifiers that look like setting names
// (max_client_conn, DATABASE_URL, proxy.read.timeout) from the evidence.
func settingNames(c *candidate) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range c.Support {
		for _, m := range settingNameRE.FindAllString(f.Quote, 10) {
			if len(m) < 6 || seen[m] || strings.Count(m, ".") > 3 || strings.HasSuffix(m, ".java") || strings.HasSuffix(m, ".py") || strings.HasSuffix(m, ".go") || strings.HasSuffix(m, ".js") {
				continue
			}
			if strings.Contains(m, ".") && !strings.Contains(m, "_") {
				continue // dotted names are mostly packages and hosts
			}
			seen[m] = true
			out = append(out, m)
			if len(out) >= 8 {
				return out
			}
		}
	}
	return out
}

// projectDirs are the directories a project keeps its code and tests in:
// the directory above the first of them names the project.
var projectDirs = map[string]bool{"src": true, "tests": true, "test": true, "spec": true, "lib": true, "internal": true, "cmd": true,
	"pkg": true, "app": true, "__tests__": true, "main": true}

// projectOfPath names the project a repository path belongs to in a
// monorepo ("search-suggest/tests/reindex.rs" -> search-suggest,
// "services/billing/src/x.go" -> billing); "" when the path does not say.
func projectOfPath(p string) string {
	segs := strings.Split(strings.Trim(p, "/"), "/")
	for i, seg := range segs[:max(len(segs)-1, 0)] {
		if projectDirs[seg] {
			if i == 0 || strings.HasPrefix(segs[i-1], ".") {
				return ""
			}
			return segs[i-1]
		}
	}
	return ""
}

var ciSystemRE = regexp.MustCompile(`(?i)github-actions|actions-runner|gitlab-runner|jenkins|buildkite|circleci|drone|tekton|argo-workflows|teamcity|ci-runner`)

// probeRefused: the probe could not connect (nothing listens on its port,
// or the port does not match), as opposed to timing out on a slow app.
func (c *candidate) probeRefused() bool {
	if c.probeMismatch() {
		return true
	}
	for _, f := range c.Support {
		if f.Signature == "k8s-probe" && regexp.MustCompile(`(?i)connection refused|connect: connection reset|no route to host|HTTP probe failed with statuscode: 404`).MatchString(f.Quote) {
			return true
		}
	}
	return false
}

func (c *candidate) probeMismatch() bool {
	for _, f := range c.Support {
		if f.Attrs["probe_port_mismatch"] == "true" {
			return true
		}
	}
	return false
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	out := xs[:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// approxDuration renders a gap the way people say it: "40 minutes",
// "11 hours", "2 days".
func approxDuration(d time.Duration) string {
	switch {
	case d < 2*time.Minute:
		return "a minute"
	case d < 2*time.Hour:
		return fmt.Sprintf("%d minutes", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d hours", int(d.Hours()))
	}
	return fmt.Sprintf("%d days", int(d.Hours()/24))
}

var hostnameRE = regexp.MustCompile(`\b[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,62}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,62}[a-zA-Z0-9])?)+\b`)

// hostNamedIn returns a host name the candidate's failures quote that the
// text (a changed configuration line) also holds.
func hostNamedIn(c *candidate, text string) string {
	text = strings.ToLower(text)
	for _, f := range c.Support {
		for _, h := range hostnameRE.FindAllString(f.Quote+" "+f.Attrs["causes"], 8) {
			h = strings.ToLower(h)
			if strings.Count(h, ".") >= 1 && !strings.ContainsAny(h[:1], "0123456789") && strings.Contains(text, h) {
				return h
			}
		}
	}
	return ""
}

// sharedDeclRE: a field holding one instance of a non-thread-safe type for
// every thread (a static formatter, a shared map or calendar).
var sharedDeclRE = regexp.MustCompile(`\bstatic\b[^=(]*\b(?:SimpleDateFormat|DateFormat|DecimalFormat|NumberFormat|Calendar|GregorianCalendar|HashMap|ArrayList|LinkedList|HashSet|TreeMap|StringBuilder|MessageDigest|Random)\b`)

// sharedDeclaration returns the line number of such a field in a source
// window ("> 20  code" / "  16  code" rows), 0 when there is none.
func sharedDeclaration(window []string) int {
	for _, row := range window {
		t := strings.TrimLeft(row, "> ")
		var n int
		if _, err := fmt.Sscanf(t, "%d", &n); err != nil {
			continue
		}
		if sharedDeclRE.MatchString(t) {
			return n
		}
	}
	return 0
}

// windowHas reports whether a source window shows the line.
func windowHas(window []string, line int) bool {
	for _, l := range window {
		var n int
		if _, err := fmt.Sscanf(strings.TrimLeft(l, "> "), "%d", &n); err == nil && n == line {
			return true
		}
	}
	return false
}

// dominantCallerOf is the service that calls svc most in the traces.
func (ev *evidence) dominantCallerOf(svc string) string {
	best, n := "", 0
	for caller, callees := range ev.calls {
		if caller == svc {
			continue
		}
		if k := callees[svc]; k > n || (k == n && k > 0 && caller < best) {
			best, n = caller, k
		}
	}
	return best
}

// deepLiveness: the kubelet kills containers whose liveness probe answers
// an error status (not a refused connection) while the service times out
// on a dependency: the liveness endpoint checks the dependency, so a slow
// database restarts every pod at once and turns a slowdown into an outage.
func (c *candidate) deepLiveness() bool {
	if c.probeRefused() {
		return false
	}
	killed, liveness, dependency := false, false, false
	for _, f := range c.Support {
		q := f.Quote
		switch {
		case f.Attrs["liveness_kills"] != "" || strings.Contains(q, "failed liveness probe, will be restarted"):
			killed = true
			liveness = liveness || strings.Contains(f.Attrs["probes"], "liveness") || f.Attrs["probe"] == "liveness"
		case strings.Contains(q, "Liveness probe failed: HTTP probe failed with statuscode: 5"):
			liveness = true
		case f.Kind == KindLogPattern && (f.ErrorType == ErrTimeout || f.ErrorType == ErrNetwork || f.ErrorType == ErrResourceExhaustion):
			dependency = true
		}
	}
	return (killed || liveness) && dependency
}

// leaseAcquireRE: a lock taken with a fixed lease (Redisson tryLock(wait,
// lease, unit), lock(lease, unit), SET NX PX, setIfAbsent with a duration).
var leaseAcquireRE = regexp.MustCompile(`tryLock\(\s*\w+\s*,\s*\w+\s*,|\.lock\(\s*\d+\s*,|\bNX\b.*\bPX\b|\bPX\b.*\bNX\b|setIfAbsent\([^)]*,\s*(?:Duration|\d)|acquire\([^)]*(?:ttl|lease|timeout)`)

// windowMatch returns the first line of a source window the expression
// matches, 0 when none.
func windowMatch(window []string, re *regexp.Regexp) int {
	for _, row := range window {
		t := strings.TrimLeft(row, "> ")
		var n int
		if _, err := fmt.Sscanf(t, "%d", &n); err != nil {
			continue
		}
		if re.MatchString(t) {
			return n
		}
	}
	return 0
}

// loudestService names a service when nothing failing did: the one whose
// warnings and errors are the most lines of the window, else the first
// service any backend knows. An answer always names a service.
func (ev *evidence) loudestService() string {
	lines := map[string]int{}
	for _, f := range ev.findings {
		if f.Service == "" || (f.Kind != KindLogTemplate && f.Kind != KindLogPattern) {
			continue
		}
		if f.Kind == KindLogTemplate && levelRank(f.Attrs["level"]) < levelRank("warn") {
			continue
		}
		lines[f.Service] += max(f.Count, 1)
	}
	best := ""
	for svc, n := range lines {
		if best == "" || n > lines[best] || (n == lines[best] && svc < best) {
			best = svc
		}
	}
	if best == "" && len(ev.known) > 0 {
		best = ev.known[0]
	}
	return best
}

// quotedLimitRE: a number with the unit of a wait, a size or a rate
// (150ms, 30s, 2MB, 512Mi, 50/s), or a count after a limit word (max=5,
// limit 100, pool size 10).
var (
	quotedLimitRE = regexp.MustCompile(`(?i)\b(\d+(?:\.\d+)?)\s?(ms|s|sec|secs|seconds|m|min|mins|minutes|h|kb|mb|gb|kib|mib|gib|ki|mi|gi|k|%)\b`)
	countLimitRE  = regexp.MustCompile(`(?i)\b(?:max(?:imum)?|limit|size|capacity|quota|total)\s*[=:]?\s*(\d+)\b`)
)

// quotedLimits are the limits a candidate's failures quote, normalised
// ("150ms", "2MB", "5"), at most six.
func quotedLimits(c *candidate) []string {
	var out []string
	seen := map[string]bool{}
	add := func(v string) {
		v = strings.ReplaceAll(v, " ", "")
		if !seen[v] && len(out) < 6 {
			seen[v] = true
			out = append(out, v)
		}
	}
	for _, f := range c.Support {
		text := f.Quote
		if t := f.Attrs["template"]; t != "" {
			text += "\n" + t
		}
		for _, m := range quotedLimitRE.FindAllStringSubmatch(text, 8) {
			add(m[1] + m[2])
		}
		for _, m := range countLimitRE.FindAllStringSubmatch(text, 8) {
			add(m[1])
		}
	}
	// In a canonical order: the same failures ask the same call whatever
	// order the receipts came in (the planner's call cache depends on it).
	sort.Strings(out)
	return out
}
