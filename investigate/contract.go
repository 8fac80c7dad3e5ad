package investigate

import (
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Contract breaks: a producer changes a message or API schema shared with
// its consumers (a protobuf field renumbered or retyped, an Avro/JSON
// schema field renamed), and the consumers — built against the old schema —
// start failing on data that now decodes wrong. The failures show in the
// consumers; the defect is the schema change.

// schemaFileRE: files that define a wire contract between services.
var schemaFileRE = regexp.MustCompile(`(?i)\.(proto|avsc|avdl|thrift|graphqls?)$|(^|/)(openapi|swagger)[\w.-]*\.(ya?ml|json)$|\.schema\.json$|(^|/)schemas?/[\w./-]+\.json$`)

// protoFieldRE: a field declaration with its number ("string currency = 4;").
var protoFieldRE = regexp.MustCompile(`^\s*(?:(?:repeated|optional|required)\s+)?[\w.<>, ]+?\s+(\w+)\s*=\s*(\d+)\s*[;\[]`)

// contractBreak reports a recent change to a shared schema that explains
// failures in its consumers: the changed line (a renumbered field first),
// the service that owns the schema, and the consumers seen failing.
func (ev *evidence) contractBreak(c *candidate) (changeLine, string, []string, bool) {
	switch c.ErrorType {
	case ErrDataValidation, ErrRuntime, ErrNullPointer, ErrUnknown:
	default:
		return changeLine{}, "", nil, false
	}
	var best changeLine
	bestScore := 0
	for _, f := range ev.findings {
		if f.Kind != KindChangeCorrelation || !schemaFileRE.MatchString(f.File) || !changedBefore(f.Time, ev.onset, recentLookback) {
			continue
		}
		removed := map[string]string{} // field -> number before the change
		for _, row := range strings.Split(f.Attrs["removed"], "\n") {
			if i := strings.IndexByte(row, ':'); i > 0 {
				if m := protoFieldRE.FindStringSubmatch(row[i+1:]); m != nil {
					removed[m[1]] = m[2]
				}
			}
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
			l := changeLine{change: f, line: n, text: row[i+1:]}
			score := 1
			if m := protoFieldRE.FindStringSubmatch(l.text); m != nil {
				score = 2
				if was, ok := removed[m[1]]; ok && was != m[2] {
					score = 4 // the same field under a new number: old readers misread it
				}
			}
			if score > bestScore {
				best, bestScore = l, score
			}
		}
	}
	if bestScore == 0 {
		return changeLine{}, "", nil, false
	}
	owner := ev.schemaOwner(best.change)
	// The consumers: services failing on data since the change, other than
	// the owner. Two of them, or one whose failures name a changed field.
	var consumers []string
	seen := map[string]bool{}
	for _, o := range ev.candidates() {
		switch o.ErrorType {
		case ErrDataValidation, ErrRuntime, ErrNullPointer:
		default:
			continue
		}
		if o.traceOrigins+o.logCause == 0 || o.First.Before(best.change.Time) || NormalizeServiceName(o.Service) == NormalizeServiceName(owner) || seen[o.Service] {
			continue
		}
		seen[o.Service] = true
		consumers = append(consumers, o.Service)
	}
	sort.Strings(consumers)
	if len(consumers) == 0 || owner == "" {
		return changeLine{}, "", nil, false
	}
	if len(consumers) < 2 && !namesChangedField(c, best.change) {
		return changeLine{}, "", nil, false
	}
	return best, owner, consumers, true
}

// schemaOwner is the service a schema change belongs to: a known service
// named in its path, else the one its commit message is prefixed with
// ("orders: add subtotal ...").
func (ev *evidence) schemaOwner(f Finding) string {
	for _, seg := range strings.Split(path.Dir(f.File), "/") {
		for _, k := range ev.known {
			if NormalizeServiceName(seg) == NormalizeServiceName(k) {
				return k
			}
		}
	}
	msg := f.Quote
	if i := strings.IndexByte(msg, ' '); i >= 0 {
		msg = msg[i+1:] // drop the short sha
	}
	if i := strings.IndexByte(msg, ':'); i > 0 {
		prefix := NormalizeServiceName(msg[:i])
		for _, k := range ev.known {
			if NormalizeServiceName(k) == prefix {
				return k
			}
		}
	}
	return ""
}

// namesChangedField reports whether the failures quote a field the schema
// change touched ("Invalid currency code" after currency was renumbered).
func namesChangedField(c *candidate, f Finding) bool {
	text := strings.ToLower(joinQuotes(c.Support))
	for _, attr := range []string{"added", "removed"} {
		for _, row := range strings.Split(f.Attrs[attr], "\n") {
			if i := strings.IndexByte(row, ':'); i > 0 {
				if m := protoFieldRE.FindStringSubmatch(row[i+1:]); m != nil {
					for _, part := range strings.Split(strings.ToLower(m[1]), "_") {
						if len(part) >= 5 && strings.Contains(text, part) {
							return true
						}
					}
				}
			}
		}
	}
	return false
}
