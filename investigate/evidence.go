package investigate

import (
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/autoheal/autoheal/redact"
)

// exceptionTypeRE finds a runtime's error type name in a message:
// java.lang.NullPointerException, TypeError, System.NullReferenceException...
var exceptionTypeRE = regexp.MustCompile(`\b((?:[a-z][\w]*\.)*[A-Z][\w$]*(?:Exception|Error|Fault))\b`)

// ExceptionType extracts the first error type name of a message.
func ExceptionType(text string) string {
	if m := exceptionTypeRE.FindStringSubmatch(text); m != nil {
		return m[1]
	}
	return ""
}

// Quote shortens evidence to at most n runes on one line. Evidence that
// must be cut is masked first (redact.Clip): a credential cut in two would
// no longer look like one to the redaction every receipt gets.
func Quote(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return redact.Default.Clip(s, n)
}

// TextFinding turns an error text (a log line, an exception message plus
// stack trace, a Kubernetes event message) into a finding when it matches
// the fingerprint catalogue. ok is false for texts that match nothing.
func TextFinding(kind FindingKind, family Family, service, text string, at time.Time) (Finding, bool) {
	s := Best(text)
	if s == nil {
		return Finding{}, false
	}
	f := Finding{
		Kind:      kind,
		Family:    family,
		Service:   service,
		ErrorType: s.ErrorType,
		Signature: s.ID,
		Time:      at,
		LastTime:  at,
		Count:     1,
		Exception: ExceptionType(text),
		Quote:     Quote(errorLine(text, s), 200),
	}
	if causes := causeLines(text); causes != "" {
		f.Attrs = map[string]string{"causes": causes}
	}
	f.Frames = ParseStack(text)
	if top, ok := TopAppFrame(f.Frames); ok {
		f.File, f.Line, f.Function = top.File, top.Line, top.Function
	}
	f.Frames = raceSiteFirst(&f, f.Frames)
	if len(f.Frames) > 12 {
		f.Frames = f.Frames[:12]
	}
	return f, true
}

// errorLine picks the line of a multi-line text where the signature matched,
// so quotes show the error rather than a preamble.
func errorLine(text string, s *Signature) string {
	text = strings.ReplaceAll(text, `\n`, "\n")
	m := s.Pattern.FindStringSubmatchIndex(text)
	if m == nil {
		return text
	}
	loc := m[:2]
	if q := s.Pattern.SubexpIndex("q"); q > 0 && m[2*q] >= 0 {
		loc = m[2*q : 2*q+2] // the pattern says where the error itself starts
	}
	start := strings.LastIndex(text[:loc[0]], "\n") + 1
	end := loc[0] + strings.Index(text[loc[0]:], "\n")
	if end < loc[0] {
		end = len(text)
	}
	line := text[start:end]
	// JSON-encoded and framework-prefixed lines carry the interesting part
	// after a long prefix: start shortly before the match, at a word.
	if loc[0]-start > 100 {
		from := loc[0] - 60
		if sp := strings.IndexAny(text[from:loc[0]], " ,;(["); sp >= 0 {
			from += sp + 1
		}
		line = "…" + text[from:end]
	}
	return line
}

var (
	uuidRE   = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)
	hexRE    = regexp.MustCompile(`\b(?:0x)?[0-9a-fA-F]{8,}\b`)
	ipPortRE = regexp.MustCompile(`\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b`)
	numRE    = regexp.MustCompile(`\b\d+(?:\.\d+)?\b`)
	tsRE     = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?`)
)

// Template normalizes a message for grouping: ids, numbers, addresses and
// timestamps become placeholders so that one error repeated with different
// request ids forms one pattern.
func Template(s string) string {
	s = Quote(s, 300)
	s = tsRE.ReplaceAllString(s, "<ts>")
	s = uuidRE.ReplaceAllString(s, "<uuid>")
	s = ipPortRE.ReplaceAllString(s, "<addr>")
	s = hexRE.ReplaceAllString(s, "<hex>")
	s = numRE.ReplaceAllString(s, "<n>")
	return s
}

var causedByRE = regexp.MustCompile(`(?m)^\s*(?:Caused by:|---> |\[CIRCULAR REFERENCE|During handling of the above exception)\s*(.{4,800})$`)

// causeLines keeps the "Caused by:" chain of a stack trace: the innermost
// cause often names the field or record that failed.
func causeLines(text string) string {
	text = strings.ReplaceAll(text, `\n`, "\n")
	var out []string
	for _, m := range causedByRE.FindAllStringSubmatch(text, 4) {
		out = append(out, strings.TrimSpace(m[1]))
	}
	return strings.Join(out, "\n")
}

// raceSiteFirst anchors a race on the code that uses the shared object: the
// application frame calling into it goes first (and becomes the location).
func raceSiteFirst(f *Finding, frames []Frame) []Frame {
	if f.ErrorType != ErrRace {
		return frames
	}
	site, ok := RaceSite(frames)
	if !ok {
		return frames
	}
	f.File, f.Line, f.Function = site.File, site.Line, site.Function
	return append([]Frame{site}, frames...)
}
