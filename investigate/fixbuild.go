package investigate

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"time"
)

// buildFix writes the recommended fix for the bucket. Only code bugs get a
// code patch; only infrastructure gets a manifest edit.
func (e *Engine) buildFix(ev *evidence, h *hypothesis, rc RootCause, window []string, col int, m *ManifestField) Fix {
	c := h.c
	switch rc.Bucket {
	case BucketCodeBug:
		return codeBugFix(h, rc, window, col)
	case BucketInfrastructure:
		return infraFix(ev, h, rc, m)
	case BucketBadData:
		key, ids := c.recurringRecords()
		if len(ids) == 0 {
			ids = affectedRecords(c)
		}
		fix := Fix{AffectedRecords: ids}
		if key != "" {
			fix.Steps = append(fix.Steps, fmt.Sprintf("The failures follow %s %s: inspect those records first", key, strings.Join(ids, ", ")))
		}
		where := c.Service
		if rc.File != "" {
			where = fmt.Sprintf("%s (%s:%d)", c.Service, rc.File, rc.Line)
		}
		fix.Summary = fmt.Sprintf("Bad input data is failing requests in %s. Quarantine or repair the offending records, then make the consumer reject invalid records with a clear error instead of failing.", c.Service)
		fix.Remediation = fmt.Sprintf("1. Identify and repair (or skip/dead-letter) the records that fail validation%s. 2. Add input validation at %s so one bad record cannot fail the whole request or batch. 3. Tell the data owner/producer which records were rejected.", idsNote(ids), where)
		fix.Steps = append(fix.Steps, "Repair (data fix) or quarantine the affected records", "Validate the input where it is read (e.g. a NOT NULL constraint or an explicit check) and reject bad records individually", "Tell the owner of the data which records were rejected")
		if q := bestQuote(c); q != "" {
			fix.Remediation += fmt.Sprintf(" The failing check: %q.", Quote(q, 160))
		}
		switch {
		case c.hasSignature("byte-order-mark"):
			fix.Summary = fmt.Sprintf("The input read by %s starts with a UTF-8 byte-order mark (U+FEFF): the first header or field name is read as \"\ufeffname\", so lookups by that name fail for every row. Strip the BOM where the file is read (decode as UTF-8 with BOM, e.g. Python's utf-8-sig, or trim \\xEF\\xBB\\xBF from the first line), ask the producer to export without it, and re-run the failed imports.", where)
		case c.hasSignature("text-encoding"):
			fix.Summary = fmt.Sprintf("Records reaching %s carry text in an encoding the store or parser cannot take (for example 4-byte UTF-8 such as emoji into a latin1 or utf8mb3 column). Convert the column or connection to utf8mb4 / UTF-8, or validate and normalise the text where it enters, then replay the rejected records.", where)
		}
		return fix
	case BucketFlake:
		n := 0
		t0, t1 := c.First, c.First
		// Patterns of one failure (the assertion, the FAIL line, the exit
		// code) describe the same events: count the largest.
		for _, f := range c.Support {
			n = max(n, f.Count, 1)
			if f.LastTime.After(t1) {
				t1 = f.LastTime
			}
		}
		layout := "15:04"
		if t1.Sub(t0) >= 20*time.Hour {
			layout = "Jan 2 15:04"
		}
		freq := fmt.Sprintf("%d failures between %s and %s", n, t0.Format(layout), t1.Format(layout))
		if r, ok := ev.rate[c.Service]; ok {
			freq += fmt.Sprintf(" (error ratio %s)", r.Attrs["ratio_after"])
		}
		cond := fmt.Sprintf("%s failures in %s", strings.ReplaceAll(string(c.ErrorType), "_", " "), c.Service)
		if q := bestQuote(c); q != "" {
			cond += fmt.Sprintf(": %q", Quote(q, 120))
		}
		if change, _, ok := ev.deployed(rc.File, rc.Line, ev.onset); ok {
			cond += fmt.Sprintf("; the code there last changed in %s", change.Quote)
		} else {
			cond += "; no deploy or configuration change correlates with them"
		}
		fix := Fix{
			Summary: fmt.Sprintf("Intermittent %s in %s: a flake, not a regression. Track it, make the operation tolerate it (retry with backoff / idempotency, or fix the race), and do not roll back.", strings.ReplaceAll(string(c.ErrorType), "_", " "), c.Service),
			Flake:   &FlakeReport{Frequency: freq, Conditions: cond, FirstSeen: t0, LastSeen: t1},
			Steps:   []string{"Record the flake with its frequency and conditions", "Add a retry with backoff or fix the race at the failing call", "Watch the error ratio; escalate if it grows"},
		}
		if hour := c.sameHourDaily(); hour != "" && c.hasSignature("test-failure") {
			loc := firstNonEmpty(rc.File, c.Service)
			if rc.File != "" {
				loc = fmt.Sprintf("%s:%d", rc.File, rc.Line)
			}
			fix.Summary = fmt.Sprintf("The test at %s fails only between %s:00 and %s:59 UTC, on several days, and passes at every other hour: it depends on the clock. Typically it computes an expected date in UTC while the code under test uses a local time zone (or the reverse), so the two disagree near midnight. Compute expected values the same way the code does (same time zone), or freeze the clock at a fixed instant (fake timers) and add cases just before and after midnight in that zone.", loc, hour, hour)
			fix.Steps = []string{"Freeze the clock in the test (fake timers / an injected clock)", "Derive expected dates in the code's time zone", "Add cases at 23:30 and 00:30 local time"}
			fix.RegressionTest = "Run the test with the clock set to 23:30 UTC and to 00:30 in the code's time zone; both must pass."
			fix.Flake.Conditions += fmt.Sprintf("; every failure happened between %s:00 and %s:59 UTC", hour, hour)
		}
		if _, module, ok := startOrderOwner(c, h.anchor); ok && rc.ErrorType == ErrRace && strings.HasSuffix(rc.File, "application.ex") {
			loc := fmt.Sprintf("%s:%d", rc.File, rc.Line)
			fix.Summary = fmt.Sprintf("%s, which owns what the failing lookup reads, is started at %s after a child that already serves requests: the supervisor starts children in list order, so every new instance answers its first requests before %s has started, and they fail with %q. Start it before the endpoint (the supervisor then waits for its init), and if loading takes long, gate readiness on it being loaded instead of moving it last.", module, loc, module, Quote(bestQuote(c), 80))
			fix.Steps = []string{"Move " + module + " before the endpoint in the children list at " + loc, "Gate the readiness probe on the loaded state if loading is slow", "Watch the errors right after pod starts drop to zero"}
			fix.RegressionTest = "Start the application and send a request as soon as the endpoint accepts connections; assert it does not fail for a missing table or process."
			fix.Flake.Conditions += "; only in the first seconds after an instance starts"
		}
		if rc.ErrorType == ErrRace && c.hasSignature("lock-lost") {
			loc := firstNonEmpty(rc.File, c.Service)
			if rc.File != "" {
				loc = fmt.Sprintf("%s:%d", rc.File, rc.Line)
			}
			fix.Summary = fmt.Sprintf("The lock taken at %s has a fixed lease that expires while the work still runs: another instance then acquires it and does the same work (duplicates), and the first one's unlock fails. Let the lock renew itself while held (Redisson's watchdog: tryLock without a lease time, or lock()), or make the lease longer than the slowest run and make the work idempotent (a unique key, as the duplicate-key errors show already exists).", loc)
			fix.Steps = []string{"Drop the fixed lease or renew it while the work runs", "Make the guarded work idempotent", "Alert on unlock failures and duplicate-key errors"}
			fix.Flake.Conditions += "; a run outlives the lock's lease"
		}
		if rc.ErrorType == ErrRace && ev.readBeforeCommit(c) {
			loc := firstNonEmpty(rc.File, c.Service)
			if rc.File != "" {
				loc = fmt.Sprintf("%s:%d", rc.File, rc.Line)
			}
			fix.Summary = fmt.Sprintf("The record is handed over (a job enqueued, an event published) from inside the transaction that writes it (%s): a fast worker reads it before COMMIT and gets %q, and the retry a few seconds later finds it. Hand it over only after the commit: Rails after_commit / after_create_commit instead of after_save, Django transaction.on_commit, a transactional outbox for events; keep the worker's retry as the safety net.", loc, Quote(bestQuote(c), 80))
			fix.Steps = []string{"Move the enqueue to an after-commit hook", "Add a test that enqueues inside a transaction and asserts the job runs only after commit", "Watch the job's not-found retries drop to zero"}
			fix.RegressionTest = "In a test with transactional callbacks enabled, save the record inside a transaction and assert no job is enqueued until the transaction commits."
			fix.Flake.Conditions += "; the reader runs before the writer's transaction commits (more often when the queue is idle)"
		}
		if l, ok := ev.replicaReadChange(c); ok && rc.ErrorType == ErrRace && l.line == rc.Line && samePath(l.change.File, rc.File) {
			loc := fmt.Sprintf("%s:%d", rc.File, rc.Line)
			fix.Summary = fmt.Sprintf("The read at %s was moved from the primary to a replica (%s). A record created a moment earlier is not on the replica until it replays the write, so reads right after a create fail with %q while replication lags (write bursts), and a retry a second later succeeds. Restore read-your-writes on this path: read from the primary right after a write (or for the session that wrote), or fall back to the primary when the replica finds nothing; keep replica reads for data that tolerates lag.", loc, l.change.Quote, Quote(bestQuote(c), 80))
			fix.Steps = []string{"Read from the primary at " + loc + " (or fall back to it on not-found)", "Add a test that creates a record and reads it back at once against a lagging replica", "Watch not-found errors during write bursts drop to zero"}
			fix.RegressionTest = "With a replica that lags by a second, create a record and read it back immediately; assert it is found."
			fix.Flake.Conditions = strings.Replace(fix.Flake.Conditions, "; the reader runs before the writer's transaction commits (more often when the queue is idle)", "", 1) + "; reads right after a write, while the replica lags"
		}
		if rc.ErrorType == ErrRace && ev.portRace(c) {
			loc := firstNonEmpty(rc.File, c.Service)
			if rc.File != "" {
				loc = fmt.Sprintf("%s:%d", rc.File, rc.Line)
			}
			fix.Summary = fmt.Sprintf("The code at %s binds a fixed port: when two tests (or processes) run at the same time, the second bind fails with \"address already in use\", so the failure comes and goes with scheduling and passes on re-run. Bind port 0 (127.0.0.1:0) and read the port the OS chose (pass it to whatever must call back), or serialise the tests that share the port.", loc)
			fix.Steps = []string{"Bind 127.0.0.1:0 and read the chosen port", "Pass the port to the code under test instead of a constant", "Run the suite with full parallelism a few times to confirm"}
			fix.RegressionTest = "Run the affected tests concurrently (or twice in parallel) and assert none fails with address already in use."
			fix.Flake.Conditions += "; tests running in parallel bind the same fixed port"
		}
		if rc.ErrorType == ErrRace && ev.tokenExpiryRace(c) {
			fix.Summary = fmt.Sprintf("%s uses its cached access token up to the instant it expires: a request sent in the last moments reaches the API after expiry (clock skew, network time) and is rejected (%s); the next refresh heals it, so the failures are rare and retries succeed. Refresh the token ahead of expiry with a margin (for example 60 s or 10%% of its lifetime, as golang.org/x/oauth2's expiry delta does), and on a 401 invalid_token refresh once and retry the request.", c.Service, Quote(bestQuote(c), 100))
			fix.Steps = []string{"Treat the token as expired a margin before expires_in runs out", "On 401 invalid_token: force a refresh and retry once", "Alert on the 401 rate from the API rather than on single failures"}
			fix.RegressionTest = "With a fake clock, fetch a token with expires_in=3600, advance to 3599.5 s and assert the token source refreshes before returning a token."
			fix.Flake.Conditions += "; each failure comes at the end of a token's lifetime"
		}
		if rc.ErrorType == ErrRace && rc.File != "" && ev.checkThenInsertRace(c, rc.File, rc.Line) {
			loc := fmt.Sprintf("%s:%d", rc.File, rc.Line)
			fix.Summary = fmt.Sprintf("The find-or-create at %s looks the row up and then inserts it: two concurrent requests for the same key (webhook deliveries, retries, double submits) both miss the lookup, and the second insert hits the unique index. The caller's retry finds the row, so the failures heal themselves, but they page people and can drop side effects. Make the write atomic: insert first and read on conflict (Rails create_or_find_by / upsert, INSERT … ON CONFLICT DO NOTHING, Django update_or_create inside a transaction with the unique constraint), or rescue the unique violation and re-read the existing row.", loc)
			fix.Steps = []string{"Replace the lookup-then-insert at " + loc + " with an insert-then-read-on-conflict (upsert)", "Keep the unique index: it is what makes the fix safe", "Process the same event id twice in parallel in a test"}
			fix.RegressionTest = fmt.Sprintf("Run the code at %s for the same key from two threads at once (or stub the lookup to miss twice) and assert one row exists and neither call raises.", path.Base(rc.File))
			fix.Flake.Conditions += "; concurrent requests for the same key"
		}
		if decl := sharedDeclRE.FindString(windowLine(window, rc.Line)); decl != "" && rc.File != "" {
			loc := fmt.Sprintf("%s:%d", rc.File, rc.Line)
			fix.Summary = fmt.Sprintf("The object declared at %s (%s) is shared by every thread but is not thread-safe: concurrent calls corrupt its internal state and fail with varying exceptions (or silently return wrong values). Replace it with a thread-safe equivalent (java.time.DateTimeFormatter for formatters, a ConcurrentHashMap for maps), or give each thread its own instance (ThreadLocal / a local variable). A rollback only helps if a recent change added the concurrency; the shared instance is the defect.", loc, strings.TrimSpace(decl))
			fix.Steps = []string{"Replace the shared instance at " + loc + " with an immutable/thread-safe one", "Add a concurrency test that calls it from many threads and compares results", "Watch the error ratio of " + c.Service}
			fix.RegressionTest = fmt.Sprintf("Call the code using the object at %s from 32 threads with known inputs and assert every result equals the single-threaded one.", path.Base(rc.File))
		}
		return fix
	}
	return Fix{Summary: "The evidence does not show a clear fix yet; see the confidence note for what would help."}
}

func idsNote(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return " (" + strings.Join(ids, ", ") + ")"
}

func codeBugFix(h *hypothesis, rc RootCause, window []string, col int) Fix {
	c := h.c
	fix := Fix{}
	exception := ""
	quote := bestQuote(c)
	for _, f := range c.Support {
		if f.Exception != "" {
			exception = f.Exception
			break
		}
	}
	var lines []string
	from := 0
	for _, l := range window {
		// window lines look like "> 137  code" or "  136  code"
		t := strings.TrimLeft(l, "> ")
		var n int
		if _, err := fmt.Sscanf(t, "%d", &n); err == nil {
			if from == 0 {
				from = n
			}
			idx := strings.Index(t, "  ")
			code := ""
			if idx >= 0 {
				code = t[idx+2:]
			}
			lines = append(lines, code)
		}
	}
	var patch *Patch
	prose := fireAndForgetProse(h, rc, lineAt(lines, rc.Line, from), firstNonEmpty(exception, quote))
	if prose == "" {
		prose = hazardProse(rc, lineAt(lines, rc.Line, from))
	}
	if prose == "" && rc.File != "" && returnRE.MatchString(lineAt(lines, rc.Line, from)) {
		switch rc.ErrorType {
		case ErrTimeout, ErrNetwork, ErrDependency, ErrResourceExhaustion:
			prose = fmt.Sprintf("The return added at %s:%d (%s) leaves before the deferred Close that releases the response (or file): every time this branch runs one connection stays checked out, until the per-host pool is exhausted and every call waits for its deadline. Close (and drain) the body on this path too — move the defer right after the error check, before any early return — and test the branch with a response that takes it.", rc.File, rc.Line, strings.TrimSpace(lineAt(lines, rc.Line, from)))
		}
	}
	if prose == "" && rc.File != "" && len(lines) > 0 && from > 0 {
		// Build a full-file-shaped slice: pad before the window so line numbers align.
		full := make([]string, from-1, from-1+len(lines))
		full = append(full, lines...)
		patch, prose = codeFix(rc.File, full, rc.Line, c.ErrorType, quote, exception, col)
		if patch != nil {
			patch.Ref = ""
		}
	}
	loc := rc.Service
	if rc.File != "" {
		loc = fmt.Sprintf("%s:%d", rc.File, rc.Line)
	}
	if prose == "" {
		switch rc.ErrorType {
		case ErrNullPointer:
			if strings.Contains(quote, "nil map") {
				prose = fmt.Sprintf("A map is written before it is initialised at %s: the value holding it was built without make(map...). Initialise the map where the value is constructed (use the existing constructor rather than a struct literal), or allocate it lazily before the first write.", loc)
				break
			}
			prose = fmt.Sprintf("A null/undefined value is dereferenced at %s. Check for null (or use a safe default) before using it, and decide what the request should get when the value is missing.", loc)
		case ErrRuntime:
			prose = fmt.Sprintf("%s is raised at %s. Validate the inputs that reach this line and handle the failing case explicitly.", firstNonEmpty(exception, "A runtime error"), loc)
		case ErrDataValidation:
			if schemaFileRE.MatchString(rc.File) {
				prose = fmt.Sprintf("The schema change at %s is not backward compatible: consumers built against the previous version misread the new messages. Restore the original field numbers/names (never renumber or reuse a field; add new fields with new numbers and mark removed ones reserved), release the schema, and add a compatibility check (buf breaking, a schema-registry compatibility mode) to CI.", loc)
				break
			}
			prose = fmt.Sprintf("The parsing/validation at %s was changed and now rejects valid input; fix the parsing logic and add a test with the failing input.", loc)
		case ErrResourceExhaustion, ErrOOM:
			prose = leakProse(loc, lines, rc.Line, from)
		case ErrTimeout:
			if text := lineAt(lines, rc.Line, from); c.hasSignature("hung-call") && noTimeout(text) {
				prose = fmt.Sprintf("The HTTP client created at %s (%s) has no timeout, and the request does not carry the caller's deadline: when the dependency slows down, calls wait for minutes while callers give up after seconds, and requests and goroutines pile up. Give the client a timeout like the other providers' (http.Client{Timeout: …} / requests timeout=…), build the request with the incoming context (http.NewRequestWithContext) so it ends when the caller gives up, and bound the work per dependency.", loc, strings.TrimSpace(text))
				break
			}
			prose = slowProse(loc, lineAt(lines, rc.Line, from), c.Service)
		default:
			prose = fmt.Sprintf("Fix the failing code at %s.", loc)
		}
	}
	fix.Summary = prose
	fix.Patch = patch
	fn := shortFunc(rc.Function)
	if fn == "" {
		fn = "the failing function"
	}
	fix.RegressionTest = fmt.Sprintf("Add a unit test for %s (%s) that feeds it the input that failed in production%s and asserts it no longer throws %s.",
		fn, path.Base(firstNonEmpty(rc.File, c.Service)), sampleInput(c), firstNonEmpty(exception, string(c.ErrorType)))
	fix.Steps = []string{"Apply the guard at " + loc, "Add the regression test", "Deploy and watch the error rate of " + c.Service}
	if rc.ErrorType == ErrDataValidation && schemaFileRE.MatchString(rc.File) {
		fix.RegressionTest = fmt.Sprintf("Add a schema compatibility check to CI (e.g. buf breaking against the last released %s, or the schema registry's BACKWARD mode) so a renumbered, retyped or renamed field fails the build.", path.Base(rc.File))
		fix.Steps = []string{"Restore the previous field numbers/names at " + loc + " and release the schema", "Replay or re-drive the messages the consumers rejected (dead letters)", "Add the compatibility check to CI"}
	}
	if c.ErrorType == ErrTimeout && rc.File != "" {
		if indexDropRE.MatchString(lineAt(lines, rc.Line, from)) {
			fix.RegressionTest = "Run EXPLAIN on the failing query against a production-sized copy in CI (or a migration check) and fail when it plans a sequential scan of the table; keep every index a hot query needs until its replacement is in place and used."
			fix.Steps = []string{"Recreate the dropped index concurrently (or an index whose leading columns match the query's filter)", "Confirm with EXPLAIN that the query uses it", "Watch query latency and statement-timeout cancellations of " + rc.Service}
		} else {
			fix.RegressionTest = fmt.Sprintf("Add a test that runs the code changed at %s over a realistic volume of data and asserts the number of queries (and their plans) stays bounded.", path.Base(rc.File))
			fix.Steps = []string{"Revert or optimise the change at " + loc, "Add the query-count/plan test", "Watch latency and timeouts of " + rc.Service}
		}
	}
	if c.ErrorType == ErrOOM || c.ErrorType == ErrResourceExhaustion {
		if retryLine(lineAt(lines, rc.Line, from)) {
			fix.RegressionTest = fmt.Sprintf("Add a test where the dependency called from %s times out for every request and assert the number of calls it receives stays within the retry budget (and that retries are spaced by a growing, jittered delay).", path.Base(rc.File))
			fix.Steps = []string{"Add backoff with jitter, a retry budget and a circuit breaker at " + loc, "Add the retry-budget test", "Deploy and watch " + c.Service + "'s request rate against " + rc.Service + "'s traffic"}
		} else {
			fix.RegressionTest = fmt.Sprintf("Add a test that calls %s (%s) many times under the failing condition (timeouts, errors) and asserts that goroutines, threads, connections and memory return to their baseline afterwards.",
				fn, path.Base(firstNonEmpty(rc.File, c.Service)))
			fix.Steps = []string{"Release the resource on every path at " + loc, "Add the leak test", "Deploy and watch the memory working set and goroutine/thread counts of " + rc.Service + " stay flat with uptime"}
		}
	}
	return fix
}

// sampleInput quotes a request attribute seen next to failures, if any.
func sampleInput(c *candidate) string {
	for _, f := range c.Support {
		if f.Attrs["trace_id"] != "" {
			return fmt.Sprintf(" (e.g. the request of trace %s)", f.Attrs["trace_id"])
		}
	}
	return ""
}

func infraFix(ev *evidence, h *hypothesis, rc RootCause, m *ManifestField) Fix {
	c := h.c
	if fix, ok := fieldFix(c, m, deployTargetFor(ev, c, m)); ok {
		return fix
	}
	fix := Fix{}
	switch {
	case rc.ErrorType == ErrConfig && (c.Signature == "dns" || c.Signature == "java-unknownhost") && rc.File != "":
		fix.Summary = fmt.Sprintf("The host name %s's changed setting points at does not resolve (%s). Abort or roll back the rollout now, then correct the host name at %s:%d (check it for a typo against the Service's real DNS name) and roll out again.", c.Service, Quote(bestQuote(c), 120), rc.File, rc.Line)
		fix.Steps = []string{"Abort the canary / roll back the rollout", fmt.Sprintf("Fix the host name at %s:%d", rc.File, rc.Line), "Resolve it from a pod (nslookup) before rolling out again", "Make the readiness probe or the rollout analysis check the dependency's connection"}
	case c.Signature == "cloud-access-denied":
		fix.Summary = fmt.Sprintf("%s is denied by the cloud provider (%s): the identity it runs as is no longer allowed to assume its role or perform the call.", c.Service, Quote(bestQuote(c), 140))
		if rc.File != "" {
			fix.Summary += fmt.Sprintf(" The permission changed at %s:%d: make the trust/binding match the service account the workload actually runs as (or complete the rename on the workload side), apply, and restart the pods so they fetch fresh credentials.", rc.File, rc.Line)
		} else {
			fix.Summary += " Check the role's trust policy and permissions against the service account the pods run as."
		}
		fix.Steps = []string{"Compare the role's trust subject/binding with the pod's service account", "Revert or complete the permission change and apply it", "Restart the workload so it obtains new credentials", "Add a plan-time check that every IRSA/workload-identity subject matches an existing service account"}
	case c.Signature == "clock-skew":
		where := "the nodes its failing pods run on"
		for _, f := range ev.findings {
			if f.Signature == "clock-skew" && f.Attrs["node"] != "" {
				where = fmt.Sprintf("node %s (clock off by %ss)", f.Attrs["node"], f.Attrs["offset_seconds"])
				break
			}
		}
		fix.Summary = fmt.Sprintf("%s rejects valid tokens because clocks disagree (%s): the clock of %s is behind the token issuer's. Cordon and drain that node so the pods move, then fix its time sync (step the clock: chrony makestep / a forced NTP sync) before uncordoning. Allowing a small leeway for iat/nbf in token validation makes the service tolerant of normal drift.", c.Service, Quote(bestQuote(c), 100), where)
		fix.Steps = []string{"kubectl cordon and drain the skewed node", "Step its clock (chronyc makestep) and check time sync alerts", "Add a few seconds of leeway to JWT iat/nbf validation", "Alert on node_timex_offset_seconds"}
	case c.hasSignature("pdb-selects-nothing"):
		fix.Summary = pdbProse(c, m)
		fix.Steps = []string{"Make the PodDisruptionBudget's selector the workload's selector labels (the chart's selectorLabels helper, not a literal)", "Check it: kubectl get pdb shows expected pods equal to the replicas and ALLOWED DISRUPTIONS 1", "Spread replicas across nodes/zones (topologySpreadConstraints) so one drain cannot take them all", "Add a chart test that the budget selects the deployment's pods"}
	case c.Signature == "disk-full":
		fix.Summary = diskFullProse(c)
		fix.Steps = []string{"Find what fills the volume (du on the data directory; for databases, the write-ahead log)", "Free space or grow the volume (PVC) to get the service back", "Remove what keeps data from being recycled (abandoned replication slot, failing archiver, retention)", "Alert on volume usage before it is full"}
	case c.ErrorType == ErrOOM:
		peak := 0.0
		for _, f := range c.Support {
			if f.Attrs["peak_bytes"] != "" {
				fmt.Sscan(f.Attrs["peak_bytes"], &peak)
			}
		}
		if m != nil && (m.Kind == FieldMemoryLimit || m.Kind == FieldMemoryRequest) {
			to := nextMemory(m.Value, peak)
			if to != "" {
				fix.ManifestEdit = &ManifestEdit{File: m.File, Line: m.Line, Path: m.Path, OldValue: m.Value, NewValue: to,
					Reason: fmt.Sprintf("%s is OOM-killed: its working set reaches the %s memory limit", c.Service, m.Value)}
				fix.Summary = fmt.Sprintf("Raise the memory limit of %s from %s to %s (%s in %s:%d), and the request with it; or add replicas/an HPA so each pod carries less load. This is capacity, not a code change.", c.Service, m.Value, to, m.Path, m.File, m.Line)
			}
		}
		if fix.Summary == "" {
			fix.Summary = fmt.Sprintf("%s is killed for exceeding its memory limit: raise the container memory limit (resources.limits.memory) and request, or add replicas so each pod carries less load.", c.Service)
		}
		fix.Steps = []string{"Raise resources.limits.memory (and requests.memory)", "Roll out and watch restarts and working set", "If memory keeps growing with time rather than load, profile for a leak"}
	case c.Signature == "k8s-imagepull":
		fix.Summary = fmt.Sprintf("The image of %s cannot be pulled. Point the deployment back at an existing image tag (roll back to the previous ReplicaSet's image) and fix the tag in the manifest.", c.Service)
		if m != nil {
			fix.Summary += fmt.Sprintf(" The manifest sets %s = %s (%s:%d).", m.Path, m.Value, m.File, m.Line)
		}
		fix.Steps = []string{"kubectl rollout undo the deployment", "Fix the image tag in the manifest", "Check the CI publish step produced the tag"}
	case c.deepLiveness():
		fix.Summary = fmt.Sprintf("The liveness probe of %s checks its dependencies: when a dependency is slow (%s), the probe fails and the kubelet restarts every pod, so a slowdown becomes an outage with cold starts on top. Point livenessProbe at a shallow endpoint that only says the process is alive (e.g. /healthz/live), keep the dependency checks in the readiness probe, and give liveness a generous timeout and failureThreshold.", c.Service, Quote(bestQuote(c), 90))
		if m != nil && m.Kind == FieldLivenessPath {
			fix.Summary += fmt.Sprintf(" Today %s = %s (%s:%d).", m.Path, m.Value, m.File, m.Line)
		}
		fix.Steps = []string{"Add a liveness endpoint that checks no dependency", "Point livenessProbe at it; keep readiness on the deep check", "Watch restarts during the next dependency slowdown"}
	case c.Signature == "k8s-probe":
		fix.Summary = fmt.Sprintf("The health probe of %s fails: make the probe port/path match what the container listens on.", c.Service)
		if m != nil {
			fix.Summary += fmt.Sprintf(" Currently %s = %s (%s:%d).", m.Path, m.Value, m.File, m.Line)
		}
	case c.hasSignature("redis-oom"):
		fix.Summary = fmt.Sprintf("%s is full: used memory reached maxmemory and, with the noeviction policy, every write is refused (%s). A cache wants an evicting policy (allkeys-lru / volatile-lru) while a job queue needs noeviction and its own room: keep them on separate Redis instances (or give the shared one enough memory for both), and bound the keys that grow without a TTL.", c.Service, Quote(bestQuote(c), 110))
		if rc.File != "" {
			fix.Summary += fmt.Sprintf(" The setting changed at %s:%d.", rc.File, rc.Line)
		}
		fix.Steps = []string{"Relieve it now: raise maxmemory or delete/expire the biggest keyspaces", "Split the queue and the cache, or set an evicting policy where only cache data lives", "Alert on used_memory / maxmemory above 85%"}
	case c.hasSignature("quota-exceeded"):
		fix.Summary = fmt.Sprintf("The namespace's ResourceQuota refuses new pods of %s (%s): the autoscaler or a rollout asks for more replicas, but the quota's hard limit is already used up, so the service cannot scale and the existing pods saturate.", c.Service, Quote(bestQuote(c), 140))
		if rc.File != "" {
			fix.Summary += fmt.Sprintf(" The limit that binds was lowered at %s:%d: raise it back to cover peak replicas × per-pod requests/limits (plus a rollout's surge), or lower the pods' own limits.", rc.File, rc.Line)
		}
		fix.Steps = []string{"kubectl describe resourcequota in the namespace: used vs hard", "Raise the binding hard limit (or the pods' requests/limits) to fit peak replicas plus surge", "Alert on quota usage above 80% and on FailedCreate events"}
	case c.Signature == "server-connlimit":
		fix.Summary = fmt.Sprintf("%s refuses new connections: its connection limit is reached (%s). The clients' pools together (pool size × replicas of every service, plus jobs and tools) ask for more connections than the server allows.", c.Service, Quote(bestQuote(c), 110))
		if rc.File != "" {
			fix.Summary += fmt.Sprintf(" The setting behind the limit changed at %s:%d: restore the previous limit (or the parameter group/profile that carried it) and apply it (a restart may be needed for max_connections).", rc.File, rc.Line)
		} else {
			fix.Summary += " Raise the server's limit (max_connections / max_client_conn) to what the server can carry, or lower the clients' pool sizes, or put a pooler (PgBouncer, RDS Proxy) in front."
		}
		fix.Steps = []string{"Compare the server's current limit (SHOW max_connections) with the sum of the clients' pools", "Restore or raise the limit, or shrink the pools", "Alert on connections in use against the limit"}
	case c.Signature == "rate-limited" && rc.File != "":
		fix.Summary = fmt.Sprintf("Requests through %s are refused with 429 by a rate limit whose setting changed at %s:%d. Check what the limiter counts by: behind a CDN or load balancer every client shares a few edge addresses, so a per-IP limit throttles everyone at once. Count by the real client (a consumer, an API key, the forwarded client address the proxy trusts) or raise the limit, and roll the plugin change back until then.", c.Service, rc.File, rc.Line)
		fix.Steps = []string{"Compare the limiter's key (ip, consumer, header) with where requests come from", "Roll back or correct the limit and its key", "Alert on the 429 rate per route"}
	case c.Signature == "body-too-large":
		fix.Summary = fmt.Sprintf("Requests to %s are larger than a size limit on their path (%s): a proxy, ingress or server limit (nginx proxy-body-size / client_max_body_size, the framework's request or upload limit, gRPC's max receive message size) rejects them.", c.Service, Quote(bestQuote(c), 120))
		if m != nil {
			fix.Summary += fmt.Sprintf(" The limit is %s = %s (%s:%d): raise it to the largest legitimate payload, and keep it bounded.", m.Path, m.Value, m.File, m.Line)
		} else {
			fix.Summary += " Raise the limit at the layer that rejects (the status comes from it) to the largest legitimate payload, keeping it bounded, and align the limits of every hop."
		}
		fix.Steps = []string{"Find which hop rejects (ingress, gateway, app) from the response's server", "Raise that limit to the largest legitimate payload", "Tell clients the limit (or upload large files directly to object storage)"}
	case c.Signature == "consumer-rebalance":
		fix.Summary = fmt.Sprintf("The consumers of %s leave their group because processing one poll takes longer than the poll interval (%s): each departure rebalances the group, partitions stop while it settles, and commits fail so records are processed again.", c.Service, Quote(bestQuote(c), 120))
		if m != nil {
			fix.Summary += fmt.Sprintf(" %s = %s (%s:%d) is below the time a batch takes:", m.Path, m.Value, m.File, m.Line)
		}
		fix.Summary += " raise max.poll.interval.ms above the worst batch time or lower max.poll.records so a batch fits, and keep slow calls out of the poll loop."
		fix.Steps = []string{"Compare the batch processing time with max.poll.interval.ms", "Raise max.poll.interval.ms or lower max.poll.records", "Watch the group's rebalance rate and consumer lag"}
	case c.Signature == "queue-redelivery":
		fix.Summary = fmt.Sprintf("The consumers of %s take longer on a message than the queue keeps it invisible (its visibility timeout or ack deadline) (%s): the queue hands the message to another consumer while the first still works, both finish, the late acknowledgement or delete is refused, and the work is done more than once until the message reaches the dead-letter queue.", c.Service, Quote(bestQuote(c), 120))
		if m != nil {
			fix.Summary += fmt.Sprintf(" %s = %s (%s:%d) is below the time one message takes:", m.Path, m.Value, m.File, m.Line)
		}
		fix.Summary += " raise the visibility timeout / ack deadline above the worst processing time (or extend it while processing: ChangeMessageVisibility, modifyAckDeadline), make the handler idempotent on the message's business key, then redrive the dead-letter queue."
		fix.Steps = []string{"Compare the slowest processing time with the queue's visibility timeout / ack deadline", "Raise the timeout or extend visibility while processing", "Deduplicate on the message's business key and redrive the dead-letter queue"}
	case c.Signature == "tls-hostname":
		fix.Summary = fmt.Sprintf("The certificate presented to %s's clients does not name the host they connect to (%s): it was issued or rotated without that subject alternative name. Reissue it with every DNS name clients use (the Service's cluster DNS names included), or point clients at a name the certificate carries; do not disable hostname verification.", c.Service, Quote(bestQuote(c), 120))
		fix.Steps = []string{"Compare the certificate's SANs (openssl s_client -connect … | openssl x509 -noout -ext subjectAltName) with the host clients dial", "Reissue the certificate with the missing names (cert-manager Certificate dnsNames)", "Restart or reload the servers and clients that cache it"}
	case c.Signature == "conntrack-full":
		fix.Summary = fmt.Sprintf("The node's connection-tracking table is full (%s): new connections of %s are dropped at random. Raise net.netfilter.nf_conntrack_max on the nodes (node pool sysctl / kube-proxy conntrack settings), and find the workload opening connections without reuse (no keep-alive, a DNS or HTTP client per request).", Quote(bestQuote(c), 100), c.Service)
		fix.Steps = []string{"Check conntrack -S / nf_conntrack_count against nf_conntrack_max on the node", "Raise nf_conntrack_max (kube-proxy --conntrack-min / node sysctl)", "Reuse connections in the workload that opens the most"}
	case c.Signature == "port-in-use":
		fix.Summary = fmt.Sprintf("%s cannot bind its port because something else already holds it (%s): two processes (or two parallel test workers) use the same fixed port. Give each its own port (bind port 0 and read the chosen port in tests; distinct ports per container), or make sure the previous process has exited.", c.Service, Quote(bestQuote(c), 100))
	case c.Signature == "php-memory" || c.Signature == "php-timeout":
		fix.Summary = fmt.Sprintf("%s hits a PHP runtime limit (%s): raise memory_limit / max_execution_time only to what the largest legitimate request needs, and find what grew (a query without a limit, a collection loaded whole).", c.Service, Quote(bestQuote(c), 120))
	case c.ErrorType == ErrConfig:
		fix.Summary = fmt.Sprintf("%s is misconfigured: %s. Provide the missing or correct setting (environment variable, Secret/ConfigMap key or credential) in its deployment and restart it.", c.Service, Quote(bestQuote(c), 140))
		if m != nil {
			fix.Summary += fmt.Sprintf(" See %s (%s:%d).", m.Path, m.File, m.Line)
		}
		fix.Steps = []string{"Fix the setting in the manifest / Secret", "Roll the deployment", "Add a startup check that fails fast with a clear message"}
	case c.ErrorType == ErrTLS:
		fix.Summary = fmt.Sprintf("A TLS certificate used by %s is expired or not trusted: renew/rotate it (or fix the CA bundle) and restart the clients that cache it.", c.Service)
	case c.ErrorType == ErrResourceExhaustion && m != nil && m.Kind == FieldMaxReplicas:
		if to := nextReplicas(m.Value); to != "" {
			fix.ManifestEdit = &ManifestEdit{File: m.File, Line: m.Line, Path: m.Path, OldValue: m.Value, NewValue: to,
				Reason: fmt.Sprintf("the HorizontalPodAutoscaler of %s is held at maxReplicas %s while it wants more", c.Service, m.Value)}
		}
		fix.Summary = fmt.Sprintf("The HorizontalPodAutoscaler of %s is capped at maxReplicas %s (%s:%d) while load needs more pods: raise maxReplicas (and check the nodes have room), and pre-scale ahead of known peaks. This is capacity, not a code change.", c.Service, m.Value, m.File, m.Line)
		fix.Steps = []string{"Raise spec.maxReplicas (kubectl patch hpa for immediate relief)", "Check node capacity or the cluster autoscaler for the extra pods", "Watch the HPA's desired vs current replicas and the error rate"}
	case c.ErrorType == ErrResourceExhaustion && m != nil && m.Kind == FieldCPULimit:
		if to := nextCPU(m.Value); to != "" {
			fix.ManifestEdit = &ManifestEdit{File: m.File, Line: m.Line, Path: m.Path, OldValue: m.Value, NewValue: to,
				Reason: fmt.Sprintf("%s is CFS-throttled at its %s CPU limit", c.Service, m.Value)}
		}
		fix.Summary = fmt.Sprintf("%s is CPU-throttled at its %s CPU limit (%s:%d): bursts of parallel work exceed the limit even when average usage is below it. Raise resources.limits.cpu (or remove the CPU limit and keep the request), and size limits from peak, not average, usage.", c.Service, m.Value, m.File, m.Line)
		fix.Steps = []string{"Raise or remove resources.limits.cpu", "Roll out and watch container_cpu_cfs_throttled_periods_total and p99 latency", "Size CPU limits from burst usage, not p95 averages"}
	case c.ErrorType == ErrResourceExhaustion:
		fix.Summary = fmt.Sprintf("%s runs out of a bounded resource (%s): raise the limit/pool size to match load, or reduce load per instance, and find what holds the resources.", c.Service, Quote(bestQuote(c), 100))
	case c.ErrorType == ErrNetwork || c.ErrorType == ErrTimeout || c.ErrorType == ErrDependency:
		fix.Summary = fmt.Sprintf("%s is unreachable or too slow for its callers (%s). Restore the dependency (check its pods, endpoints, DNS and network policy), then tune client timeouts/retries.", c.Service, Quote(bestQuote(c), 100))
	default:
		fix.Summary = fmt.Sprintf("Fix the platform issue affecting %s: %s.", c.Service, Quote(bestQuote(c), 140))
	}
	return fix
}

// leakProse explains the leak at loc from what the leaking line does.
func leakProse(loc string, window []string, line, from int) string {
	text := lineAt(window, line, from)
	if blockingCallRE.MatchString(text) {
		return fmt.Sprintf("A blocking wait on asynchronous work at %s (introduced by a recent change): each call holds a thread-pool thread until the awaited call completes, so under load the pool starves and every request, timer and client library stalls (timeouts everywhere while dependencies are healthy). Await the call instead (async all the way), or fetch the values in one batched asynchronous call before the loop.", loc)
	}
	if retryLine(text) {
		return fmt.Sprintf("Retries at %s (introduced by a recent change) multiply the load on a dependency that is already struggling: every timeout becomes several more requests. Back off exponentially with jitter, cap retries with a retry budget (a small share of normal traffic), stop retrying through a circuit breaker while the dependency fails, and do not retry timeouts of a saturated dependency immediately.", loc)
	}
	switch {
	case strings.Contains(text, "make(chan") || strings.Contains(text, "go func("):
		return fmt.Sprintf("A goroutine leak at %s (introduced by a recent change): each call starts a goroutine whose send on an unbuffered channel blocks forever once the caller has stopped waiting (timeout), so goroutines and their stacks pile up until the container is OOM-killed. Buffer the channel (make(chan T, 1)) or select on the context in the goroutine, and pass a context with the deadline to the request.", loc)
	case regexp.MustCompile(`(?i)thread|executor|Task\.Run|create_task`).MatchString(text):
		return fmt.Sprintf("Threads or tasks leak at %s (introduced by a recent change): they are started per call and never finish or are never shut down. Use a bounded pool, cancel them on timeout, and shut them down on every path.", loc)
	case regexp.MustCompile(`(?i)cache|map|dict|append|\.put\(|\.add\(|\.push\(`).MatchString(text):
		return fmt.Sprintf("An unbounded collection grows at %s (introduced by a recent change): entries are added and never evicted, so memory grows with uptime. Bound it (LRU/TTL) or stop retaining entries.", loc)
	}
	return fmt.Sprintf("Resources are not released at %s (a leak introduced by a recent change); release them on every path (defer/finally/using/close).", loc)
}

// lineAt is the source line numbered line in a window starting at from.
func lineAt(window []string, line, from int) string {
	if i := line - from; i >= 0 && i < len(window) {
		return window[i]
	}
	return ""
}

// retryLine reports whether a source line retries (a retry loop or count).
func retryLine(text string) bool {
	for _, re := range retryLineREs {
		if re.MatchString(text) {
			return true
		}
	}
	return false
}

// slowProse explains a timeout that follows a change to data access.
func slowProse(loc, text, service string) string {
	switch {
	case indexDropRE.MatchString(text):
		return fmt.Sprintf("The schema change at %s removed an index that %s's queries still need, so they fall back to scanning the table and run into the statement timeout. Recreate the index concurrently (or one whose leading columns match the query's filter) and confirm with EXPLAIN that the query uses it.", loc, service)
	case queryCodeRE.MatchString(text):
		return fmt.Sprintf("The change at %s made %s's data access slower (more queries or a costlier query per request) so requests run into their timeouts. Batch or eager-load the queries (no query per item), add the index the query needs, or revert the change.", loc, service)
	}
	return fmt.Sprintf("The change at %s made %s slower than its callers' timeouts. Revert or optimise it, and profile the request path it touches.", loc, service)
}

// windowLine is the code of line n in a source window ("> 20  code" rows).
func windowLine(window []string, n int) string {
	for _, row := range window {
		t := strings.TrimLeft(row, "> ")
		var k int
		if _, err := fmt.Sscanf(t, "%d", &k); err == nil && k == n {
			if i := strings.Index(t, "  "); i >= 0 {
				return t[i+2:]
			}
		}
	}
	return ""
}

// diskFullProse: what fills a full volume decides the fix. A database's
// write-ahead log that is never recycled is held by a replication slot no
// consumer reads any more, or by a failing archiver.
func diskFullProse(c *candidate) string {
	var text strings.Builder
	for _, f := range c.Support {
		text.WriteString(f.Quote)
		text.WriteString(" ")
	}
	all := strings.ToLower(text.String())
	quote := Quote(bestQuote(c), 120)
	if sig := SignatureByID("disk-full"); sig != nil {
		for _, f := range c.Support {
			if f.Kind == KindLogPattern && sig.Pattern.MatchString(f.Quote) {
				quote = Quote(errorLine(f.Quote, sig), 120)
				break
			}
		}
	}
	switch {
	case strings.Contains(all, "pg_wal") || strings.Contains(all, "pg_xlog"):
		return fmt.Sprintf("%s's volume is full of write-ahead log (%s). WAL that is never recycled is almost always retained by a replication slot whose consumer is gone (check pg_replication_slots for inactive slots and their retained bytes) or by a failing archive_command. Grow the volume (PVC) enough to start, drop the abandoned slot with pg_drop_replication_slot, and set max_slot_wal_keep_size so one dead consumer cannot fill the disk again.", c.Service, quote)
	case strings.Contains(all, "binlog") || strings.Contains(all, "binary log"):
		return fmt.Sprintf("%s's volume is full (%s) and the binary logs are involved: purge old binary logs (PURGE BINARY LOGS), set binlog_expire_logs_seconds, and grow the volume.", c.Service, quote)
	}
	return fmt.Sprintf("%s has no space left on its volume (%s): free space or grow the volume to restore service, then find what grows (logs, temp files, retained data) and bound it with retention.", c.Service, quote)
}

// pdbProse explains a disruption budget that protects nothing.
func pdbProse(c *candidate, m *ManifestField) string {
	var sel, labels string
	for _, f := range c.Support {
		if f.Signature == "pdb-selects-nothing" {
			sel, labels = f.Attrs["selector"], f.Attrs["pod_labels"]
			break
		}
	}
	out := fmt.Sprintf("The PodDisruptionBudget of %s selects none of its pods", c.Service)
	if sel != "" {
		out += fmt.Sprintf(" (selector %s, pods labelled %s)", sel, labels)
	}
	out += ", so it protects nothing: a node drain (upgrade, scale-down) evicted the replicas together and the service had no ready pod."
	if m != nil && m.Kind == FieldPDBSelector {
		out += fmt.Sprintf(" Fix the selector at %s:%d (%s = %s) to match the pod labels, preferably by including the same selector-labels helper the Deployment uses, and spread replicas across nodes.", m.File, m.Line, m.Path, m.Value)
	} else {
		out += " Make its selector match the pod labels and spread replicas across nodes."
	}
	return out
}

// fireAndForgetProse explains a failure thrown in an asynchronous function
// (the anchor) that escapes through a caller at rc that does not await it.
func fireAndForgetProse(h *hypothesis, rc RootCause, text, what string) string {
	if h.anchor == nil || rc.File == "" || path.Base(rc.File) == path.Base(h.anchor.File) || h.anchor.Function == "" {
		return ""
	}
	fn := h.anchor.Function
	if i := strings.LastIndexAny(fn, ".:"); i >= 0 {
		fn = fn[i+1:]
	}
	if fn == "" || !strings.Contains(text, fn+"(") || awaitedRE.MatchString(text) {
		return ""
	}
	return fmt.Sprintf("%s:%d calls %s without awaiting it or handling its failure (fire and forget): when it rejects (%s), nothing catches the error, so it surfaces as an unhandled rejection, which crashes a Node process (and is silently lost elsewhere). Await the call inside a try/catch, or attach a .catch() that logs and counts the failure if it must stay best-effort; then fix the rejected input at %s:%d.", rc.File, rc.Line, fn, Quote(what, 90), PathHint(*h.anchor), h.anchor.Line)
}

// hazardProse explains a hazard (see hazards) at rc's line.
func hazardProse(rc RootCause, text string) string {
	if rc.File != "" && surrogateCut.re.MatchString(text) {
		return fmt.Sprintf("The string is cut at a fixed length at %s:%d (%s). JavaScript strings count UTF-16 code units, so the cut can fall between the two halves of an emoji or other astral character; the lone surrogate left at the end is invalid Unicode, which JSON columns, databases and other services reject. Cut on code points or grapheme clusters instead (Array.from(text).slice(0, n).join(''), or Intl.Segmenter), and add a test with an emoji at the boundary.", rc.File, rc.Line, strings.TrimSpace(text))
	}
	if rc.File != "" && catchAllCancellation.re.MatchString(text) {
		return fmt.Sprintf("The catch-all at %s:%d (%s) also catches the cancellation a timeout or a cancelled caller uses to stop the coroutine (CancellationException / OperationCanceledException), so the loop keeps retrying after the deadline: work piles up, threads and connections stay busy and health checks fail. Rethrow cancellation before handling other errors (catch (e: CancellationException) { throw e }, or ensureActive() in the loop), catch only the transient errors you mean to retry, and bound the attempts.", rc.File, rc.Line, strings.TrimSpace(text))
	}
	if rc.File != "" && mapParseInt.re.MatchString(text) {
		return fmt.Sprintf("At %s:%d (%s) parseInt is passed to map directly. map calls it with (value, index), and parseInt takes the index as its radix: the first element parses in base 10, the second with radix 1 (NaN) and the next ones in base 2, 3, ... (NaN or a wrong small number). Pass the radix explicitly (.map((s) => parseInt(s, 10))) or use Number, reject NaN, and add a test with several elements.", rc.File, rc.Line, strings.TrimSpace(text))
	}
	if rc.File == "" || !mutableDefault.re.MatchString(text) {
		return ""
	}
	return fmt.Sprintf("The default argument at %s:%d (%s) is evaluated once, when the function is defined: every call that omits the argument shares the same list/dict and appends to it, so it grows across requests (longer queries, wrong results, eventually errors like this one). Default to None and create a new list inside the function (`seen = [] if seen is None else seen`), or build the result without mutating the argument.", rc.File, rc.Line, strings.TrimSpace(text))
}

// noTimeout reports whether a source line creates an HTTP client or
// request without a timeout.
func noTimeout(text string) bool {
	for _, h := range noTimeoutHazards {
		if h.re.MatchString(text) && (h.unless == nil || !h.unless.MatchString(text)) {
			return true
		}
	}
	return false
}
