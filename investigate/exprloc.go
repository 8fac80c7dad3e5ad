package investigate

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Locating a defect by what the runtime's error message names. Many runtime
// errors quote the expression that failed: V8's "fee.toFixed is not a
// function" and "Cannot read properties of undefined (reading 'id')",
// CPython's "'NoneType' object has no attribute 'items'" and "KeyError:
// 'sku'", the JVM's helpful NullPointerException ("Cannot invoke
// \"Foo.bar()\" because \"<local1>.baz\" is null"), Ruby's "undefined method
// 'x' for nil", PHP's "Call to a member function x() on null". When the
// stack gives no line of the repository — a frame of compiled output
// (dist/quote.js for src/quote.ts), or no frame at all — the source line
// that holds the expression is where the error is raised.

// exprPattern is one source construct an error message names, as a regexp
// over a source line, with how telling a match is.
type exprPattern struct {
	re     *regexp.Regexp
	weight int
	what   string
}

var (
	// V8: "fee.toFixed is not a function", "rows.map is not a function",
	// "body.items is not iterable", "x.y is undefined" (SpiderMonkey).
	jsNotFunctionRE = regexp.MustCompile(`([A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)*) is not (?:a function|iterable|a constructor)`)
	jsIsUndefinedRE = regexp.MustCompile(`([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+) is (?:undefined|null)\b`)
	// V8: "Cannot read properties of undefined (reading 'id')", the older
	// "Cannot read property 'id' of undefined", and the setter forms.
	jsReadingRE = regexp.MustCompile(`Cannot (read|set) propert(?:y|ies) of (?:undefined|null) \((?:reading|setting) ['"]([^'"]+)['"]\)|Cannot (read|set) property ['"]([^'"]+)['"] of (?:undefined|null)`)
	// V8: "Cannot destructure property 'a' of 'req.body' as it is undefined."
	jsDestructureRE = regexp.MustCompile(`Cannot destructure property ['"]([\w$]+)['"] of ['"]([^'"]+)['"]`)
	// CPython: "'NoneType' object has no attribute 'items'".
	pyAttrRE = regexp.MustCompile(`object has no attribute ['"](\w+)['"]`)
	// CPython: "KeyError: 'sku'" (the key is quoted as its repr).
	pyKeyErrorRE = regexp.MustCompile(`KeyError: ['"]([^'"]{1,60})['"]`)
	// JVM helpful NPE (JEP 358): the member used and the expression that was null.
	javaInvokeRE   = regexp.MustCompile(`Cannot (?:invoke|read field|assign field|read the array length|load from \w+ array|store to \w+ array) "(?:[\w.$]+\.)?([\w$]+)(?:\([^"]*\))?"`)
	javaBecauseRE  = regexp.MustCompile(`because "(?:<local\d+>|this)?\.?([\w$.]+?)(\(\))?" is null`)
	javaReturnedRE = regexp.MustCompile(`because the return value of "(?:[\w.$]+\.)?([\w$]+)\([^"]*\)" is null`)
	// Ruby: "undefined method `total' for nil" / "undefined method 'total' for nil:NilClass".
	rubyMethodRE = regexp.MustCompile("undefined method [`'\"]([\\w?!]+)['\"] for nil")
	// PHP: "Call to a member function total() on null", "Undefined array key \"sku\"".
	phpMemberRE = regexp.MustCompile(`Call to a member function (\w+)\(\) on (?:null|bool|array|string|int)`)
	phpKeyRE    = regexp.MustCompile(`Undefined (?:array key|index):? ["']?([\w-]{1,60})["']?`)
)

// errorExpressions lists the source constructs the error messages in text
// name, most telling first.
func errorExpressions(text string) []exprPattern {
	var out []exprPattern
	seen := map[string]bool{}
	add := func(weight int, what, re string) {
		if seen[re] {
			return
		}
		seen[re] = true
		out = append(out, exprPattern{re: regexp.MustCompile(re), weight: weight, what: what})
	}
	// member: a property or method access ".name" (not optional chaining,
	// which cannot throw), or a subscript by the quoted name.
	member := func(weight int, name string) {
		q := regexp.QuoteMeta(name)
		add(weight, "."+name, `(?:^|[^?])\.`+q+`\b|\[\s*['"]`+q+`['"]\s*\]`)
	}
	for _, m := range jsNotFunctionRE.FindAllStringSubmatch(text, 8) {
		expr := strings.ReplaceAll(m[1], "?.", ".")
		parts := strings.Split(expr, ".")
		if len(parts) == 1 {
			add(3, expr, `\b`+regexp.QuoteMeta(expr)+`\s*\(`)
			continue
		}
		// The whole expression as written (optional chaining allowed
		// between parts), then its last member alone.
		var b strings.Builder
		for i, p := range parts {
			if i > 0 {
				b.WriteString(`\??\.`)
			}
			b.WriteString(regexp.QuoteMeta(p))
		}
		add(5, expr, `(?:^|[^\w$.])`+b.String()+`\b`)
		member(2, parts[len(parts)-1])
	}
	for _, m := range jsIsUndefinedRE.FindAllStringSubmatch(text, 8) {
		add(4, m[1], regexp.QuoteMeta(m[1])+`\b`)
	}
	for _, m := range jsReadingRE.FindAllStringSubmatch(text, 8) {
		name, set := m[2], m[1] == "set"
		if name == "" {
			name, set = m[4], m[3] == "set"
		}
		if name == "" {
			continue
		}
		if set {
			q := regexp.QuoteMeta(name)
			add(3, "."+name+" =", `(?:^|[^?])\.`+q+`\s*=[^=]|\[\s*['"]`+q+`['"]\s*\]\s*=[^=]`)
		} else {
			member(3, name)
		}
	}
	for _, m := range jsDestructureRE.FindAllStringSubmatch(text, 8) {
		add(4, m[2], `\{[^}]*\b`+regexp.QuoteMeta(m[1])+`\b[^}]*\}\s*=\s*`+regexp.QuoteMeta(m[2])+`\b`)
		add(2, m[2], `=\s*`+regexp.QuoteMeta(m[2])+`\s*;?\s*$`)
	}
	for _, m := range pyAttrRE.FindAllStringSubmatch(text, 8) {
		member(3, m[1])
	}
	for _, m := range pyKeyErrorRE.FindAllStringSubmatch(text, 8) {
		q := regexp.QuoteMeta(m[1])
		add(3, "["+m[1]+"]", `\[\s*['"]`+q+`['"]\s*\]`)
	}
	for _, m := range javaInvokeRE.FindAllStringSubmatch(text, 8) {
		member(2, m[1])
	}
	for _, m := range javaReturnedRE.FindAllStringSubmatch(text, 8) {
		add(3, m[1]+"()", `\b`+regexp.QuoteMeta(m[1])+`\s*\(`)
	}
	for _, m := range javaBecauseRE.FindAllStringSubmatch(text, 8) {
		parts := strings.Split(m[1], ".")
		last := parts[len(parts)-1]
		if last == "" {
			continue
		}
		if m[2] != "" {
			add(3, last+"()", `\b`+regexp.QuoteMeta(last)+`\s*\(`)
		} else {
			add(3, last, `\b`+regexp.QuoteMeta(last)+`\b`)
		}
	}
	for _, m := range rubyMethodRE.FindAllStringSubmatch(text, 8) {
		member(3, m[1])
	}
	for _, m := range phpMemberRE.FindAllStringSubmatch(text, 8) {
		add(3, "->"+m[1]+"()", `->\s*`+regexp.QuoteMeta(m[1])+`\s*\(`)
	}
	for _, m := range phpKeyRE.FindAllStringSubmatch(text, 8) {
		q := regexp.QuoteMeta(m[1])
		add(3, "["+m[1]+"]", `\[\s*['"]`+q+`['"]\s*\]`)
	}
	return out
}

// exprScore is how strongly a source line holds the expressions (0: none).
// Comments never count: they name things without evaluating them.
func exprScore(line string, exprs []exprPattern) int {
	t := strings.TrimSpace(line)
	if t == "" || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "*") || strings.HasPrefix(t, "/*") {
		return 0
	}
	s := 0
	for _, e := range exprs {
		if e.re.MatchString(line) {
			s += e.weight
		}
	}
	return s
}

// windowRows parses a source window ("> 29  text" / "  30  text").
func windowRows(window []string) []numberedLine {
	var out []numberedLine
	for _, row := range window {
		t := strings.TrimLeft(row, "> ")
		i := strings.IndexFunc(t, func(r rune) bool { return r < '0' || r > '9' })
		if i <= 0 {
			continue
		}
		n, err := strconv.Atoi(t[:i])
		if err != nil {
			continue
		}
		text := t[i:]
		// The window prints two spaces between the number and the line.
		text = strings.TrimPrefix(text, "  ")
		out = append(out, numberedLine{n: n, text: text})
	}
	return out
}

// exprLine picks the line holding the expressions best; among equals, the
// one nearest to near (0: the first). ok is false when no line holds any.
func exprLine(rows []numberedLine, exprs []exprPattern, near int) (numberedLine, bool) {
	var best numberedLine
	bestScore := 0
	for _, r := range rows {
		s := exprScore(r.text, exprs)
		if s == 0 {
			continue
		}
		if s > bestScore || (s == bestScore && near > 0 && abs(r.n-near) < abs(best.n-near)) {
			best, bestScore = r, s
		}
	}
	return best, bestScore > 0
}

// candidateExpressions are the expressions the candidate's own failures name.
func candidateExpressions(c *candidate) []exprPattern {
	var b strings.Builder
	for _, f := range c.Support {
		if f.Attrs["relayed_by"] != "" || f.Attrs["blame"] == "callee" {
			continue
		}
		b.WriteString(f.Quote)
		b.WriteByte('\n')
		for _, k := range []string{"detail", "message", "exception.message", "sample"} {
			if v := f.Attrs[k]; v != "" {
				b.WriteString(v)
				b.WriteByte('\n')
			}
		}
	}
	return errorExpressions(b.String())
}

// exprChange finds, in the recent code changes of the candidate's service,
// the line holding the expression the error names: a changed line, or an
// unchanged line the diff shows around one (a hunk's context is code the
// change made reachable with new values). Changed lines win ties.
func (ev *evidence) exprChange(c *candidate, exprs []exprPattern) (changeLine, bool) {
	if len(exprs) == 0 {
		return changeLine{}, false
	}
	var best changeLine
	bestScore := 0
	for _, f := range ev.findings {
		if f.Kind != KindChangeCorrelation || f.File == "" || IsConfigPath(f.File) || !changedBefore(f.Time, ev.onset, recentLookback) || !ev.relatedCode(f, c) {
			continue
		}
		for _, attr := range []string{"added", "context"} {
			for _, row := range diffRows(f.Attrs[attr]) {
				s := exprScore(row.text, exprs) * 2
				if s == 0 {
					continue
				}
				if attr == "added" {
					s++
				}
				if s > bestScore || (s == bestScore && f.Time.After(best.change.Time)) {
					best, bestScore = changeLine{change: f, line: row.n, text: row.text}, s
				}
			}
		}
	}
	return best, bestScore > 0
}

func describeExprs(exprs []exprPattern) string {
	var names []string
	for _, e := range exprs {
		names = append(names, fmt.Sprintf("%q", e.what))
	}
	return strings.Join(firstN(names, 3), ", ")
}
