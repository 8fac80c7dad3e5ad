package investigate

import (
	"fmt"
	"math"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// What changed just before: every recent change (code, manifest, values,
// config) is scored against a candidate by how long before the onset it
// landed and by what it shares with the failure: the files in its stack
// frames, the service's directory, and the words the evidence uses (a
// setting, a host, a bucket, a limit). Recency alone scores nothing: the
// last commit is not evidence unless it explains something.

// changeMatch is one change scored against a candidate.
type changeMatch struct {
	line  changeLine // the changed line that shares the most with the failure
	score float64
	why   []string
}

// explainThreshold is the least score of a change that explains a failure.
const explainThreshold = 1.5

// explainingChanges scores the recent changes against c, best first; only
// changes that share something with the failure are returned.
func (ev *evidence) explainingChanges(c *candidate) []changeMatch {
	ref := ev.impact
	if ref.IsZero() {
		ref = c.First
	}
	if ref.IsZero() {
		ref = ev.issue.End
	}
	var changes []Finding
	for _, f := range ev.findings {
		if f.Kind == KindChangeCorrelation && f.File != "" {
			changes = append(changes, f)
		}
	}
	if len(changes) == 0 {
		return nil
	}
	// How many changes hold each word: a word every change holds says
	// nothing about any of them.
	df := map[string]int{}
	changeWords := make([]map[string]bool, len(changes))
	for i, f := range changes {
		changeWords[i] = wordsOf(f.File + "\n" + changedText(f, "added") + "\n" + changedText(f, "removed"))
		for w := range changeWords[i] {
			df[w]++
		}
	}
	failure := failureWords(ev, c)
	files := failureFiles(c)
	messages := ev.failureMessages(c)
	var out []changeMatch
	for i, f := range changes {
		if f.Time.After(ref.Add(5 * time.Minute)) {
			continue // landed after the impact began
		}
		gap := ref.Sub(f.Time)
		if gap > leakLookback {
			continue
		}
		var m changeMatch
		raw := 0.0
		if fl := touchesFile(f.File, files); fl != "" {
			raw += 3
			m.why = append(m.why, "changes "+path.Base(f.File)+", where the failure is raised")
		} else if sameDir(f.File, files) {
			raw += 1
			m.why = append(m.why, "changes the directory of the failing code")
		}
		if ev.relatedTo(f, c.Service) {
			raw += 1
			m.why = append(m.why, "in "+c.Service+"'s files")
		}
		_, _, addsMessage := addedMessage(f, messages)
		if addsMessage {
			raw += 3
			m.why = append(m.why, "adds the message the failures log")
		}
		var shared []string
		words := 0.0
		for w := range changeWords[i] {
			if !failure[w] {
				continue
			}
			idf := math.Log(1+float64(len(changes))/float64(df[w])) / math.Log(1+float64(len(changes)))
			words += idf
			shared = append(shared, w)
		}
		sort.Strings(shared)
		if len(shared) > 0 {
			raw += math.Min(words, 3)
			m.why = append(m.why, "names "+strings.Join(firstN(shared, 4), ", "))
		}
		if raw == 0 {
			continue
		}
		if IsConfigPath(f.File) && (infraType(c.ErrorType) || c.infra > 0) {
			raw += 0.5
		}
		if !IsConfigPath(f.File) && c.hasAppFrame {
			raw += 0.5
		}
		m.score = raw * recencyWeight(gap)
		m.line = bestChangedLine(f, failure)
		out = append(out, m)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].line.change.Time.After(out[j].line.change.Time)
	})
	return out
}

// explainingChange is the best change when it explains the failure.
func (ev *evidence) explainingChange(c *candidate) (changeMatch, bool) {
	ms := ev.explainingChanges(c)
	if len(ms) == 0 || ms[0].score < explainThreshold {
		return changeMatch{}, false
	}
	return ms[0], true
}

func infraType(et ErrorType) bool {
	switch et {
	case ErrOOM, ErrTLS, ErrNetwork, ErrConfig, ErrResourceExhaustion, ErrTimeout:
		return true
	}
	return false
}

// recencyWeight: a change hours before the onset is the usual suspect, a
// change days before is one only if it explains a lot.
func recencyWeight(gap time.Duration) float64 {
	switch {
	case gap <= 3*time.Hour:
		return 1
	case gap <= 24*time.Hour:
		return 0.85
	case gap <= 72*time.Hour:
		return 0.7
	}
	return 0.5
}

// changedText is the text of a change's added or removed lines.
func changedText(f Finding, attr string) string {
	var b strings.Builder
	for _, row := range strings.Split(f.Attrs[attr], "\n") {
		if i := strings.IndexByte(row, ':'); i > 0 {
			b.WriteString(row[i+1:])
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// bestChangedLine picks the added line sharing the most words with the
// failure; without any, the first added line (or, for a deletion, where
// the hunk starts).
func bestChangedLine(f Finding, failure map[string]bool) changeLine {
	var best changeLine
	bestN := -1
	for _, row := range strings.Split(f.Attrs["added"], "\n") {
		i := strings.IndexByte(row, ':')
		if i <= 0 {
			continue
		}
		n, err := strconv.Atoi(row[:i])
		if err != nil || strings.TrimSpace(row[i+1:]) == "" {
			continue
		}
		k := 0
		for w := range wordsOf(row[i+1:]) {
			if failure[w] {
				k++
			}
		}
		if k > bestN {
			best, bestN = changeLine{change: f, line: n, text: row[i+1:]}, k
		}
	}
	if bestN >= 0 {
		return best
	}
	var a int
	if _, err := fmt.Sscanf(f.Attrs["hunks"], "%d-", &a); err == nil {
		return changeLine{change: f, line: a}
	}
	return changeLine{change: f, line: 1}
}

var changeWordRE = regexp.MustCompile(`[A-Za-z][A-Za-z0-9_./-]{2,}`)

// changeStopWords say nothing about which change explains a failure.
var changeStopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`the and for with from this that into when then than else not are was were has have had will would should
		could can cannot but all any one two via its it's our your their true false null nil none undefined return returns string int
		func function class def const let var import package public private static void new self this error errors failed failure fail
		exception warn warning info debug level message msg value values name names type key keys data default config service services
		server client request response http https get post put delete status code line file path time date prod production staging
		test tests main master version image spec metadata labels kind apiversion container containers deployment namespace true
		info log logs logger info while after before more less some only also just over under each every still yet other others`) {
		changeStopWords[w] = true
	}
}

// wordsOf splits a text into the words a change and a failure can share:
// identifiers, setting names, hosts and paths, and their parts
// (s3_attachments -> attachments), lower-cased, without stop words.
func wordsOf(text string) map[string]bool {
	out := map[string]bool{}
	addWord := func(w string) {
		w = strings.ToLower(strings.Trim(w, "./-_"))
		if len(w) >= 4 && !changeStopWords[w] && !allDigitsOrHex(w) {
			out[w] = true
		}
	}
	for _, tok := range changeWordRE.FindAllString(text, 400) {
		addWord(tok)
		parts := strings.FieldsFunc(tok, func(r rune) bool { return r == '.' || r == '/' || r == '-' || r == '_' })
		if len(parts) > 1 {
			for _, p := range parts {
				addWord(p)
			}
		}
	}
	return out
}

func allDigitsOrHex(w string) bool {
	digits := 0
	for _, r := range w {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r >= 'a' && r <= 'f':
		default:
			return false
		}
	}
	return digits > 0
}

// failureWords are the words of a candidate's evidence: its quotes and
// details, its new templates' samples, its service's change points.
func failureWords(ev *evidence, c *candidate) map[string]bool {
	var b strings.Builder
	for _, f := range c.Support {
		b.WriteString(f.Quote)
		b.WriteByte('\n')
		for _, k := range []string{"causes", "detail", "sample", "template", "upstream", "target", "reason", "value", "name"} {
			b.WriteString(f.Attrs[k])
			b.WriteByte('\n')
		}
	}
	for _, f := range c.novelties {
		b.WriteString(f.Attrs["sample"])
		b.WriteByte('\n')
	}
	for _, f := range ev.changePoints() {
		if f.Service == c.Service || f.Service == "" {
			b.WriteString(f.Attrs["metric"] + " " + f.Attrs["labels"] + "\n")
		}
	}
	// The reporter's words too: what users see names the feature that broke.
	b.WriteString(ev.issue.Text)
	words := wordsOf(b.String())
	// The service's own name is in every path of its code: it says which
	// service, not which change.
	for _, w := range []string{strings.ToLower(c.Service)} {
		delete(words, w)
		for _, p := range strings.FieldsFunc(w, func(r rune) bool { return r == '-' || r == '_' }) {
			delete(words, p)
		}
	}
	// Adjacent words are the parts of the setting the failure describes
	// ("canceling statement due to statement timeout": statement_timeout),
	// even when one of them is also part of the service's name: the
	// compound names a setting, not the service.
	svc := NormalizeServiceName(c.Service)
	own := map[string]bool{}
	for _, p := range strings.FieldsFunc(strings.ToLower(c.Service), func(r rune) bool { return r == '-' || r == '_' }) {
		own[p] = true
	}
	for _, bg := range phraseBigrams(b.String()) {
		parts := strings.FieldsFunc(bg, func(r rune) bool { return r == '-' || r == '_' })
		if len(parts) == 2 && (own[parts[0]] || own[parts[1]]) && NormalizeServiceName(bg) != svc {
			words[bg] = true
		}
	}
	return words
}

// failureFiles are the source files the candidate's frames name.
func failureFiles(c *candidate) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range c.Support {
		if f.Attrs["relayed_by"] != "" || f.Attrs["blame"] == "callee" {
			continue
		}
		fs := f.Frames
		if f.File != "" {
			fs = append([]Frame{{File: f.File, Line: f.Line}}, fs...)
		}
		for _, fr := range fs {
			p := strings.TrimPrefix(PathHint(fr), "/")
			if p != "" && !seen[p] && !isLibraryPath(p) {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

func isLibraryPath(p string) bool {
	return strings.Contains(p, "node_modules/") || strings.Contains(p, "site-packages/") || strings.Contains(p, "/gems/") || strings.Contains(p, "vendor/")
}

// touchesFile returns the frame file the change path ends with ("" if none).
func touchesFile(change string, files []string) string {
	for _, f := range files {
		if samePath(change, f) {
			return f
		}
	}
	return ""
}

func sameDir(change string, files []string) bool {
	d := path.Dir(change)
	for _, f := range files {
		if fd := path.Dir(f); fd != "." && fd != "/" && len(fd) > 3 && (strings.HasSuffix(d, fd) || strings.HasSuffix(fd, d) && d != ".") {
			return true
		}
	}
	return false
}

func firstN(xs []string, n int) []string {
	if len(xs) > n {
		return xs[:n]
	}
	return xs
}

// decideBucket classifies what the catalogue's rules leave open, from
// generic evidence: a change that explains the failure (configuration or
// code), the error type (the catalogue's or the words'), a stack frame in
// the application. Never unknown.
func (ev *evidence) decideBucket(c *candidate, m changeMatch, explained bool) Bucket {
	if explained {
		if IsConfigPath(m.line.change.File) {
			return BucketInfrastructure
		}
		return BucketCodeBug
	}
	switch ev.decideErrorType(c, m, explained) {
	case ErrOOM, ErrTLS, ErrNetwork, ErrConfig, ErrResourceExhaustion, ErrTimeout, ErrDependency:
		if c.hasAppFrame && c.infra == 0 && c.ErrorType != ErrOOM {
			return BucketCodeBug
		}
		return BucketInfrastructure
	case ErrDataValidation:
		return BucketBadData
	case ErrRace:
		return BucketFlake
	case ErrNullPointer, ErrRuntime:
		return BucketCodeBug
	}
	if ev.intermittent(c) || ev.saysIntermittent() {
		return BucketFlake
	}
	if c.hasAppFrame {
		return BucketCodeBug
	}
	return BucketInfrastructure
}

// decideErrorType names the mechanism when no signature did: the words of
// the failure, else what the explaining change is (a setting: config).
func (ev *evidence) decideErrorType(c *candidate, m changeMatch, explained bool) ErrorType {
	if c.ErrorType != ErrUnknown && c.ErrorType != "" {
		return c.ErrorType
	}
	var b strings.Builder
	for _, f := range c.Support {
		b.WriteString(f.Quote + "\n" + f.Exception + "\n" + f.Attrs["causes"] + "\n")
	}
	if et := GuessErrorType(b.String()); et != ErrUnknown && et != ErrRuntime {
		return et
	}
	if explained && IsConfigPath(m.line.change.File) {
		return ErrConfig
	}
	if et := GuessErrorType(b.String()); et != ErrUnknown {
		return et
	}
	if c.hasAppFrame {
		return ErrRuntime
	}
	return ErrUnknown
}
