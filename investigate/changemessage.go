package investigate

import (
	"regexp"
	"strings"
	"time"
)

// A change that adds the very message the failures log (the text of a
// raised exception, a "rejected: …" warning) is where those failures come
// from: before the change, the statement that fails did not exist. An SRE
// greps the code for the error text; the change that added it explains it,
// whatever else changed around the same time.

// testPathRE: a test file by the conventions of the common languages.
var testPathRE = regexp.MustCompile(`(?:^|/)(?:tests?|spec|__tests__)/|_test\.\w+$|\.(?:test|spec)\.\w+$|Tests?\.(?:java|kt|cs|scala)$|(?:^|/)test_[^/]+\.py$`)

// literalRE finds string literals in a changed line.
var literalRE = regexp.MustCompile(`"((?:[^"\\]|\\.){12,})"|'((?:[^'\\]|\\.){12,})'|` + "`([^`]{12,})`")

// placeholderRE splits a literal at its format placeholders: {}, {0},
// %s, %d, %v, ${x}, #{x}, {name}.
var placeholderRE = regexp.MustCompile(`\$?\{[^}]*\}|#\{[^}]*\}|%[-+ #0-9.]*[a-zA-Z]`)

// messageFragments are the constant runs of a literal long enough to
// identify a message (at least two words, 12 characters); nil when the
// literal is not a message (a path, an identifier, a URL).
func messageFragments(lit string) []string {
	var out []string
	for _, p := range placeholderRE.Split(lit, -1) {
		p = strings.TrimSpace(strings.Trim(p, " :=,.;\t\n"))
		if len(p) >= 12 && strings.Contains(p, " ") {
			out = append(out, strings.ToLower(p))
		}
	}
	return out
}

// failureMessage is a text in which failures are reported, and when it
// was first seen.
type failureMessage struct {
	text  string
	first time.Time
}

// failureMessages are the texts in which the candidate's failures are
// reported: its evidence, and the warnings and errors its own service
// logged.
func (ev *evidence) failureMessages(c *candidate) []failureMessage {
	var out []failureMessage
	for _, f := range c.Support {
		out = append(out, failureMessage{strings.ToLower(f.Quote + "\n" + f.Exception + "\n" + f.Attrs["detail"] + "\n" + f.Attrs["sample"]), f.Time})
	}
	for _, t := range ev.findings {
		if t.Kind != KindLogTemplate || t.Service != c.Service {
			continue
		}
		if lvl := t.Attrs["level"]; lvl != "warn" && lvl != "error" && lvl != "warning" {
			continue
		}
		out = append(out, failureMessage{strings.ToLower(t.Attrs["sample"]), t.Time})
	}
	return out
}

// addedMessage returns the line number and text of an added line whose
// string literal is a message the failures log, logged only since the
// change (a message logged before it is not the change's); ok false when
// none is.
func addedMessage(change Finding, messages []failureMessage) (int, string, bool) {
	if len(messages) == 0 || testPathRE.MatchString(change.File) {
		return 0, "", false // a test that asserts the message is not where it is raised
	}
	for _, row := range diffRows(change.Attrs["added"]) {
		for _, m := range literalRE.FindAllStringSubmatch(row.text, -1) {
			frags := messageFragments(m[1] + m[2] + m[3])
			if len(frags) == 0 {
				continue
			}
			for _, msg := range messages {
				if msg.first.IsZero() || msg.first.Before(change.Time) {
					continue
				}
				all := true
				for _, fr := range frags {
					if !strings.Contains(msg.text, fr) {
						all = false
						break
					}
				}
				if all && row.n > 0 {
					return row.n, row.text, true
				}
			}
		}
	}
	return 0, "", false
}
