package investigate

import (
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// A prefilter is a cheap necessary condition for a regular expression to
// match: at least one of its literals occurs in the lower-cased text. Log
// lines are matched against the whole signature catalogue, and Go's regexp
// engine is slow on long multi-line texts; most lines contain none of a
// signature's literals, and a substring search rules them out at once.
// A nil prefilter means "no cheap condition": always run the expression.
type prefilter []string

// newPrefilter derives the prefilter of a pattern from its syntax tree. It is
// conservative: whenever the expression can match, one literal is present.
func newPrefilter(pattern string) prefilter {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	lits, ok := required(re.Simplify())
	if !ok {
		return nil
	}
	for _, l := range lits {
		if utf8.RuneCountInString(l) < 3 {
			return nil // too short to rule anything out
		}
	}
	return lits
}

// required returns literals one of which must occur in any match (lower-
// cased), and false when the expression has no such condition.
func required(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}, true
	case syntax.OpCapture:
		return required(re.Sub[0])
	case syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
		return nil, false
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			lits, ok := required(sub)
			if !ok {
				return nil, false // one branch can match without a literal
			}
			out = append(out, lits...)
		}
		return out, true
	case syntax.OpConcat:
		// Any required child is a necessary condition; the one whose
		// shortest literal is longest is the most selective. Adjacent
		// literals are joined first ("exit code " + "137").
		var best []string
		bestLen := 0
		var run strings.Builder
		consider := func(lits []string) {
			shortest := -1
			for _, l := range lits {
				if n := utf8.RuneCountInString(l); shortest < 0 || n < shortest {
					shortest = n
				}
			}
			if shortest > bestLen {
				best, bestLen = lits, shortest
			}
		}
		flush := func() {
			if run.Len() > 0 {
				consider([]string{run.String()})
				run.Reset()
			}
		}
		for _, sub := range re.Sub {
			if sub.Op == syntax.OpLiteral {
				run.WriteString(strings.ToLower(string(sub.Rune)))
				continue
			}
			flush()
			if lits, ok := required(sub); ok {
				consider(lits)
			}
		}
		flush()
		return best, best != nil
	}
	return nil, false
}

// mayMatch reports whether the lower-cased text can match.
func (p prefilter) mayMatch(lower string) bool {
	if p == nil {
		return true
	}
	for _, l := range p {
		if strings.Contains(lower, l) {
			return true
		}
	}
	return false
}
