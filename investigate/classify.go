package investigate

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"time"
)

// quietAfterChange: a change followed by this long without failures has
// been exercised; failures that start later come from something else.
const quietAfterChange = 6 * time.Hour

// classify puts the hypothesis into one of the four buckets. The rules are
// the product's hard rules: what is proposed follows from the bucket (only
// code bugs get code patches, only infrastructure gets manifest edits).
func (ev *evidence) classify(h *hypothesis, anchoredPath string, anchoredLine int) Bucket {
	c := h.c
	sig := SignatureByID(c.Signature)
	if c.hasFieldFault() {
		return BucketInfrastructure // a field of the cluster's configuration is at fault
	}
	if _, _, _, ok := ev.contractBreak(c); ok {
		return BucketCodeBug // consumers misread data since a producer changed the shared schema
	}
	et := c.ErrorType
	if ev.inputDoesNotFit(c, anchoredPath, anchoredLine) {
		et = ErrDataValidation
	}
	if (et == ErrRuntime || et == ErrUnknown || et == "") && c.answeredByRemote() {
		if _, ok := ev.configChangeBefore(c); ok {
			return BucketInfrastructure // a cloud service refuses or lost something since our configuration of it changed
		}
	}
	switch et {
	case ErrRace:
		return BucketFlake
	case ErrTLS, ErrConfig:
		if ev.tokenExpiryRace(c) || ev.portRace(c) {
			return BucketFlake
		}
		return BucketInfrastructure
	case ErrOOM, ErrResourceExhaustion:
		if c.hasRole("no_memory_limit_on_pressured_node") {
			return BucketInfrastructure // a workload without a memory limit starves its node
		}
		// Memory or a pool exhausted right after a change in the service's
		// code that acquires or accumulates resources (a connection never
		// closed, an unbounded cache) is a code bug; otherwise capacity or
		// configuration. A configuration change of the same service wins.
		if c.hasSignature("threadpool-starvation") {
			if _, ok := ev.blockingChange(c); ok {
				return BucketCodeBug // a blocking wait added to async code starves the pool
			}
		}
		if _, cfg := ev.configChange(c); !cfg {
			if _, _, storm := ev.retryStormChange(c); storm && c.ErrorType == ErrResourceExhaustion {
				return BucketCodeBug // a caller's new retries multiply its load
			}
			if _, leak := ev.leakChange(c); leak {
				return BucketCodeBug
			}
		}
		if _, exact, ok := ev.deployed(anchoredPath, anchoredLine, ev.onset); ok && exact && c.infra == 0 && c.ErrorType == ErrResourceExhaustion {
			return BucketCodeBug
		}
		return BucketInfrastructure
	case ErrDataValidation:
		if _, _, ok := ev.hazardChange(c, anchoredPath); ok {
			return BucketCodeBug // the input is fine: a recent change mangles it
		}
		if ev.checkThenInsertRace(c, anchoredPath, anchoredLine) {
			return BucketFlake // two writers of the same key: the loser hits the unique index
		}
		if ev.readBeforeCommit(c) {
			return BucketFlake // the reader ran before the writer's transaction committed
		}
		for sig := range inputDefects {
			if c.hasSignature(sig) {
				return BucketBadData // the input carries bytes it should not, whatever changed in the code
			}
		}
		if change, exact, ok := ev.deployed(anchoredPath, anchoredLine, ev.onset); ok && exact {
			// The parser/validator changed just before: the code is wrong,
			// not the data. Unless the failures follow a few records and
			// began hours after the change, while the changed code kept
			// running fine: then the input changed.
			_, vals := c.recurringRecords()
			if len(vals) == 0 || ev.onset.IsZero() || ev.onset.Sub(change.Time) < quietAfterChange {
				return BucketCodeBug
			}
		}
		if _, _, ok := ev.validationChange(c); ok {
			return BucketCodeBug // a change to a constraint or a field name made valid data fail
		}
		return BucketBadData
	case ErrNullPointer, ErrRuntime:
		// A test that fails and passes on the same code, or only at one
		// hour of the day, is a flaky test whatever changed it last.
		if c.hasSignature("test-failure") && (ev.saysIntermittent() || c.sameHourDaily() != "") {
			return BucketFlake
		}
		// Failures that follow a few specific records while the failing code
		// did not change: the data is wrong, not the code.
		if _, vals := c.recurringRecords(); len(vals) > 0 {
			if _, exact, ok := ev.deployed(anchoredPath, anchoredLine, ev.onset); !(ok && exact) {
				return BucketBadData
			}
		}
		if c.infra > 0 && !c.hasAppFrame {
			return BucketInfrastructure
		}
		if c.infra == 0 {
			_, exact, ok := ev.deployed(anchoredPath, anchoredLine, ev.onset)
			switch {
			case ev.saysIntermittent() && !(ok && exact) && !ev.crashLoops(c):
				return BucketFlake // rare, self-healing, and the failing code did not change
			case ev.intermittent(c) && !ok && !c.hasAppFrame:
				return BucketFlake
			}
		}
		return BucketCodeBug
	case ErrTimeout, ErrNetwork, ErrDependency:
		if _, ok := ev.leakyReturnChange(c); ok && c.infra == 0 {
			return BucketCodeBug // connections leak on a new early return until the pool runs dry
		}
		if c.hasSignature("hung-call") && c.infra == 0 {
			return BucketCodeBug // an outgoing call nothing bounds: the client lacks a timeout
		}
		if c.ErrorType == ErrDependency {
			if _, ok := ev.dependencyChange(c); ok {
				return BucketCodeBug // a dependency bump the runtime cannot load
			}
		}
		if c.infra > 0 {
			return BucketInfrastructure
		}
		if l, cfg := ev.configChange(c); cfg {
			// A setting changed before failures the reporter calls rare
			// and the rates do not contradict, while the changed line
			// shares nothing with what the failures name (another
			// client's timeout, another host): it matched only by the
			// kind of setting, and timing explains the failures better.
			if !(ev.saysIntermittent() && !ev.sustained(c) && !ev.lineNamesFailure(l, c)) {
				return BucketInfrastructure
			}
		}
		if c.ErrorType == ErrTimeout {
			if _, slow := ev.slowChange(c); slow {
				return BucketCodeBug // a change to the service's data access made it too slow
			}
		}
		if _, vals := c.recurringRecords(); len(vals) > 0 {
			return BucketBadData // only requests about a few records fail: their data makes them fail
		}
		if ev.intermittent(c) || (ev.saysIntermittent() && !ev.sustained(c)) {
			return BucketFlake
		}
		if m, ok := ev.explainingChange(c); ok && !IsConfigPath(m.line.change.File) && c.infra == 0 && c.ErrorType != ErrDependency {
			// Nothing in the platform failed and a code change of the
			// service explains it (a third party failing is not explained
			// by our code, whatever changed in it).
			return BucketCodeBug
		}
		return BucketInfrastructure
	}
	if sig != nil {
		return sig.Bucket
	}
	if c.infra > 0 {
		return BucketInfrastructure
	}
	if c.hasAppFrame && !c.answeredByRemote() {
		return BucketCodeBug
	}
	return BucketUnknown
}

// lineNamesFailure: a changed line shares a word with the failure's own
// evidence (quotes, details, peers), the reporter's words left out.
func (ev *evidence) lineNamesFailure(l changeLine, c *candidate) bool {
	var b strings.Builder
	for _, f := range c.Support {
		b.WriteString(f.Quote + "\n" + f.Exception + "\n" + f.Peer + "\n" + f.Attrs["detail"] + "\n" + f.Attrs["dependency"] + "\n")
	}
	failure := wordsOf(b.String())
	for w := range wordsOf(l.text) {
		if failure[w] && !timeoutWords[w] {
			return true
		}
	}
	return false
}

// timeoutWords name a kind of setting, not which one.
var timeoutWords = map[string]bool{"timeout": true, "timeouts": true, "deadline": true, "retries": true, "retry": true, "limit": true, "limits": true}

// recurringRecords returns the records most of the candidate's failures
// carry, when failures follow a few specific records.
func (c *candidate) recurringRecords() (string, []string) {
	for _, f := range c.Support {
		rec := f.Attrs["records"]
		if rec == "" || f.Count < 4 {
			continue
		}
		i := strings.IndexByte(rec, '=')
		if i < 0 {
			continue
		}
		var vals []string
		for _, p := range strings.Split(rec[i+1:], ",") {
			vals = append(vals, strings.SplitN(p, ":", 2)[0])
		}
		return rec[:i], vals
	}
	return "", nil
}

var intermittentWordsRE = regexp.MustCompile(`(?i)\b(random(?:ly)?|intermittent(?:ly)?|flak(?:y|e|iness)|sporadic(?:ally)?|now and then|once in a while|from time to time|occasional(?:ly)?|couple (?:of )?times|goes away|went away|transient|blips?|sometimes|every so often|hit or miss|passes (?:on|after|when I) re-?(?:run|try)|re-?run(?:ning)? (?:it )?passes|green on (?:re-?run|retry)|red again|trickle|retr(?:y|ies) (?:always |usually |mostly )?(?:go(?:es)? through|succeed|work|pass)|(?:go(?:es)?|went|get|gets|got) through on (?:a )?re-?try|(?:succeed(?:s|ed)?|work(?:s|ed)?) (?:on|after) (?:a )?re-?try)\b`)

// saysIntermittent: the reporter describes rare, self-healing failures.
func (ev *evidence) saysIntermittent() bool { return intermittentWordsRE.MatchString(ev.issue.Text) }

// sustained: the failure rate is high (a real outage, not a flake).
func (ev *evidence) sustained(c *candidate) bool {
	if r, ok := ev.rate[c.Service]; ok {
		var after float64
		fmt.Sscan(r.Attrs["ratio_after"], &after)
		return after >= 0.2
	}
	return false
}

// hasRole reports whether a finding marks the candidate with a role.
// hasSignature reports whether any supporting finding carries the signature.
func (c *candidate) hasSignature(id string) bool {
	for _, f := range c.Support {
		if f.Signature == id {
			return true
		}
	}
	return false
}

func (c *candidate) hasRole(role string) bool {
	for _, f := range c.Support {
		if f.Attrs["role"] == role {
			return true
		}
	}
	return false
}

// bucketDoubt names the other bucket the evidence does not rule out, ""
// when the classification is clear. A classification that rests on a
// judgement call is never worth a HIGH: a wrong HIGH is the worst outcome.
func (ev *evidence) bucketDoubt(h *hypothesis, bucket Bucket, anchoredPath string, anchoredLine int) string {
	c := h.c
	_, exact, changed := ev.deployed(anchoredPath, anchoredLine, ev.onset)
	_, recs := c.recurringRecords()
	switch bucket {
	case BucketCodeBug:
		if len(recs) > 0 {
			return "bad data (the failures follow a few records)"
		}
		if c.ErrorType == ErrDataValidation && !(changed && exact) {
			return "bad data (input failing validation)"
		}
		if (c.ErrorType == ErrOOM || c.ErrorType == ErrResourceExhaustion) && c.infra > 0 {
			return "infrastructure (a limit or capacity)"
		}
		if !(changed && exact) && ev.saysIntermittent() {
			return "a flake (failures are intermittent and the code did not change)"
		}
		if !changed && anchoredPath != "" {
			// Code that worked until now and did not change fails: new input
			// reaching it is as likely as the code being wrong.
			return "bad data (the failing code did not change recently; new input may reach it)"
		}
	case BucketInfrastructure:
		if c.ErrorType == ErrOOM || c.ErrorType == ErrResourceExhaustion {
			if c.hasSignature("growth-with-uptime") {
				return "a leak (usage grows with uptime, not load)"
			}
			if _, ok := ev.leakChange(c); ok {
				return "a leak in the service's recent code change"
			}
			if c.hasSignature("hpa-at-max") || c.hasSignature("cpu-throttled") {
				// A capacity ceiling binds under load; whether that load is
				// real demand or amplified (retries, a runaway client) is
				// not something the ceiling shows.
				return "amplified load rather than real demand (request volume by caller was not compared)"
			}
		}
		if (c.ErrorType == ErrTimeout || c.ErrorType == ErrNetwork) && ev.intermittent(c) {
			return "a flake (intermittent failures)"
		}
	case BucketBadData:
		if changed && exact {
			return "a code bug (the failing line changed just before)"
		}
		if _, _, ok := ev.validationChange(c); ok {
			return "a code bug (the validation changed just before)"
		}
		if len(recs) == 0 && c.ErrorType != ErrDataValidation {
			// A runtime error blamed on the input without the records that
			// carry it: the code not handling that input is as likely.
			return "a code bug (no recurring records show which input fails)"
		}
	case BucketFlake:
		if changed {
			return "a code bug (the failing code changed recently)"
		}
		if ev.crashLoops(c) {
			return "a code bug (the service keeps crashing on it)"
		}
		if c.infra > 0 {
			return "infrastructure"
		}
		if _, cfg := ev.configChange(c); cfg {
			return "infrastructure (a setting of the kind that bounds these failures changed before them)"
		}
	}
	return ""
}

// sameHourDaily returns the UTC hour ("23") when the candidate's failures,
// spread over several days, all happened in that one hour of the day: a
// clock- or date-dependent failure. "" otherwise.
func (c *candidate) sameHourDaily() string {
	hour := ""
	days := false
	for _, f := range c.Support {
		h := f.Attrs["hours_utc"]
		if h == "" {
			continue
		}
		if strings.Contains(h, ",") || (hour != "" && h != hour) {
			return ""
		}
		hour = h
		if f.LastTime.Sub(f.Time) >= 20*time.Hour {
			days = true
		}
	}
	if !days {
		return ""
	}
	return hour
}

var (
	// uniqueViolationRE: an insert refused because the key already exists.
	uniqueViolationRE = regexp.MustCompile(`(?i)RecordNotUnique|UniqueViolation|duplicate key value violates unique|Duplicate entry .* for key|UNIQUE constraint failed|E11000 duplicate key|IntegrityError: .*(?:unique|duplicate)|DuplicateKeyException|SQLIntegrityConstraintViolationException: Duplicate|ConstraintViolationException.*unique`)
	// checkThenInsertRE: a lookup followed by an insert that is not atomic.
	checkThenInsertRE = regexp.MustCompile(`find_or_create_by!?|first_or_create!?|get_or_create|FirstOrCreate|findOrCreate|getOrCreate|findOrNew|firstOrCreate|create_if_not_exists|createIfNotExists|GetOrAdd|\.exists\?\(|if\s+not\s+\w+\.(?:exists|filter)`)
)

// checkThenInsertRace: a unique-index violation raised at a find-or-create
// (lookup, then insert) is two concurrent writers of the same key, not bad
// input: the loser's retry finds the row and succeeds.
func (ev *evidence) checkThenInsertRace(c *candidate, path string, line int) bool {
	if path == "" || !uniqueViolationRE.MatchString(joinQuotes(c.Support)) {
		return false
	}
	for _, f := range ev.findings {
		if f.Kind == KindSourceAnchor && f.File == path && abs(f.Line-line) <= 3 && checkThenInsertRE.MatchString(f.Quote) {
			return true
		}
	}
	return false
}

// tokenExpiryRace: a cached access token rejected as expired now and then,
// while requests around it succeed, is used up to its expiry instant: the
// request in flight at that moment fails, the next refresh heals it. A
// token that stays expired fails everything and is a credential problem.
func (ev *evidence) tokenExpiryRace(c *candidate) bool {
	if !c.hasSignature("token-expired") || c.infra > 0 {
		return false
	}
	return ev.intermittent(c) || (ev.saysIntermittent() && !ev.sustained(c))
}

// conversionRE: a line that converts a value into a narrower or unsigned
// type (C# checked casts and Convert, Java Math.toIntExact, Rust try_into
// and as-casts, Go integer conversions, parseInt-style calls).
var conversionRE = regexp.MustCompile(`checked\s*\(\s*\((?:u?int|u?long|u?short|s?byte|decimal)\)|Convert\.To(?:U?Int\d+|Decimal|Byte)|Math\.toIntExact|\.try_into\(\)|\bas (?:u|i)(?:8|16|32|64|size)\b|\b(?:u?int(?:8|16|32|64)?)\(\w+[.\w]*\)|\b(?:parseInt|Integer\.parseInt|Long\.parseLong|int\.Parse|Int32\.Parse|UInt32\.Parse)\(`)

// inputDoesNotFit: an overflow raised where a value is converted to a
// narrower type says the value does not fit, not that arithmetic went
// wrong: the input is what is unexpected (a negative quantity cast to an
// unsigned count).
func (ev *evidence) inputDoesNotFit(c *candidate, path string, line int) bool {
	if !c.hasSignature("int-overflow") || path == "" {
		return false
	}
	for _, f := range ev.findings {
		if f.Kind == KindSourceAnchor && f.File == path && f.Line == line && conversionRE.MatchString(f.Quote) {
			return true
		}
	}
	return false
}

// crashLoops: the service's processes die on the failure again and again
// (restarts, a crash loop, logs of crashed containers): whatever the
// reporter calls it, that is not a rare, self-healing flake.
func (ev *evidence) crashLoops(c *candidate) bool {
	if ev.restarts[c.Service] >= 3 {
		return true
	}
	n := 0
	for _, f := range c.Support {
		if f.Signature == "k8s-crashloop" || strings.Contains(f.Quote, "previous container log") {
			n += max(f.Count, 1)
		}
	}
	return n >= 3
}

// portRace: "address already in use" now and then, in tests or between
// processes started in parallel: two of them bind the same fixed port and
// whichever comes second fails.
func (ev *evidence) portRace(c *candidate) bool {
	if !c.hasSignature("port-in-use") || c.infra > 0 {
		return false
	}
	return ev.saysIntermittent() || ev.intermittent(c)
}

// readBeforeCommit: a record that cannot be found now and then, found on
// retry: whoever hands its id over (a job enqueued, an event published)
// does so before the transaction that writes it commits.
func (ev *evidence) readBeforeCommit(c *candidate) bool {
	if !c.hasSignature("record-not-found") || c.infra > 0 {
		return false
	}
	return ev.saysIntermittent() || ev.intermittent(c)
}

var (
	// missingRecordClassRE names the record class an ORM could not find.
	missingRecordClassRE = regexp.MustCompile(`Couldn't find (\w+)|(\w+) matching query does not exist|Unable to find (?:[\w.]+\.)?(\w+) with id`)
	// commitUnsafeEnqueueRE: a model callback that runs inside the
	// transaction (Rails after_save / after_create rather than the
	// after_commit family).
	commitUnsafeEnqueueRE = regexp.MustCompile(`^\s*after_(?:save|create|update)\b`)
)

// missingRecordFile is the file of the record class the failures could
// not find, by the convention of its framework (InspectionReport ->
// inspection_report.rb); "" when no class is named.
func missingRecordFile(c *candidate) string {
	for _, f := range c.Support {
		m := missingRecordClassRE.FindStringSubmatch(f.Quote)
		if m == nil {
			continue
		}
		class := firstNonEmpty(m[1], m[2], m[3])
		var b strings.Builder
		for i, r := range class {
			if r >= 'A' && r <= 'Z' {
				if i > 0 {
					b.WriteByte('_')
				}
				r += 'a' - 'A'
			}
			b.WriteRune(r)
		}
		return b.String() + ".rb"
	}
	return ""
}

// enqueueBeforeCommit finds, in a source window of the record's model, the
// callback that hands the record over inside the transaction.
func (ev *evidence) enqueueBeforeCommit(c *candidate) (Finding, int, bool) {
	want := missingRecordFile(c)
	if want == "" {
		return Finding{}, 0, false
	}
	for _, f := range ev.findings {
		if f.Kind != KindSourceAnchor || path.Base(f.File) != want {
			continue
		}
		for _, l := range windowLines(f.Attrs["window"]) {
			t := strings.TrimLeft(l, "> ")
			var n int
			if _, err := fmt.Sscanf(t, "%d", &n); err != nil {
				continue
			}
			code := t
			if i := strings.Index(t, "  "); i >= 0 {
				code = t[i+2:]
			}
			if commitUnsafeEnqueueRE.MatchString(code) {
				return f, n, true
			}
		}
	}
	return Finding{}, 0, false
}

// cloudResponseErrorRE: the error classes a cloud or storage SDK raises
// for what the remote service answered (a missing object, a denied call,
// a throttled request), as opposed to a defect of the caller's code.
var cloudResponseErrorRE = regexp.MustCompile(`Aws::[\w:]*Errors::|botocore\.exceptions\.ClientError|\bClientError\b.*\bAn error occurred\b|AmazonS3Exception|AmazonServiceException|S3Exception|software\.amazon\.awssdk\.[\w.]*Exception|google\.api_core\.exceptions\.|googleapiclient\.errors\.HttpError|Azure\.RequestFailedException|azure\.core\.exceptions\.|StorageException`)

// answeredByRemote: the failure is raised inside a client library on what
// a cloud service answered (its error class says so and the innermost
// frame is the library's), so the caller's code only relays it; the cause
// is the remote's state or our configuration of it, unless a code change
// touches the calling path.
func (c *candidate) answeredByRemote() bool {
	for _, f := range c.Support {
		text := f.Exception + " " + f.Quote
		if !cloudResponseErrorRE.MatchString(text) {
			continue
		}
		if len(f.Frames) == 0 || IsLibraryFrame(f.Frames[0]) {
			return true
		}
	}
	return false
}

// configChangeBefore is the best-scoring recent change to a configuration
// file (Terraform, values, app config) that shares anything with the
// failure, even below the explaining threshold, when no code change
// scores higher.
func (ev *evidence) configChangeBefore(c *candidate) (changeMatch, bool) {
	for _, m := range ev.explainingChanges(c) {
		if !IsConfigPath(m.line.change.File) {
			return changeMatch{}, false
		}
		return m, true
	}
	return changeMatch{}, false
}
