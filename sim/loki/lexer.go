package loki

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

type tokenKind int

const (
	tEOF tokenKind = iota
	tIdent
	tString
	tNumber
	tDuration
	tLBrace   // {
	tRBrace   // }
	tLParen   // (
	tRParen   // )
	tLBracket // [
	tRBracket // ]
	tComma
	tPipe      // |
	tPipeExact // |=
	tPipeMatch // |~
	tNeq       // !=
	tNre       // !~
	tEq        // =
	tRe        // =~
	tEqEq      // ==
	tGt
	tGte
	tLt
	tLte
	tAdd
	tSub
	tMul
	tDiv
	tMod
	tPow
)

var tokenNames = map[tokenKind]string{
	tEOF: "$end", tLBrace: "{", tRBrace: "}", tLParen: "(", tRParen: ")", tLBracket: "[", tRBracket: "]",
	tComma: ",", tPipe: "|", tPipeExact: "|=", tPipeMatch: "|~", tNeq: "!=", tNre: "!~", tEq: "=", tRe: "=~",
	tEqEq: "==", tGt: ">", tGte: ">=", tLt: "<", tLte: "<=", tAdd: "+", tSub: "-", tMul: "*", tDiv: "/",
	tMod: "%", tPow: "^",
}

type token struct {
	kind tokenKind
	text string // identifier name, unquoted string, number or duration text
	pos  int    // byte offset in the query
}

func (t token) String() string {
	switch t.kind {
	case tIdent, tNumber, tDuration:
		return t.text
	case tString:
		return strconv.Quote(t.text)
	default:
		return tokenNames[t.kind]
	}
}

// ParseError mirrors Loki's: "parse error at line L, col C: msg", or
// "parse error : msg" when there is no position.
type ParseError struct {
	Msg       string
	Line, Col int
}

func (e *ParseError) Error() string {
	if e.Line == 0 && e.Col == 0 {
		return "parse error : " + e.Msg
	}
	return fmt.Sprintf("parse error at line %d, col %d: %s", e.Line, e.Col, e.Msg)
}

func errorAt(query string, pos int, format string, args ...any) *ParseError {
	line, col := 1, 1
	for i, r := range query {
		if i >= pos {
			break
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &ParseError{Msg: fmt.Sprintf(format, args...), Line: line, Col: col}
}

// lex splits a LogQL query into tokens.
func lex(q string) ([]token, error) {
	var out []token
	i := 0
	for i < len(q) {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case c == '#': // comment to end of line
			for i < len(q) && q[i] != '\n' {
				i++
			}
			continue
		case c == '"' || c == '`':
			s, n, err := lexString(q[i:])
			if err != nil {
				return nil, errorAt(q, i, "%s", err.Error())
			}
			out = append(out, token{kind: tString, text: s, pos: i})
			i += n
			continue
		case c >= '0' && c <= '9' || (c == '.' && i+1 < len(q) && q[i+1] >= '0' && q[i+1] <= '9'):
			kind, n := lexNumber(q[i:])
			out = append(out, token{kind: kind, text: q[i : i+n], pos: i})
			i += n
			continue
		case isIdentStart(c):
			j := i + 1
			for j < len(q) && isIdentChar(q[j]) {
				j++
			}
			out = append(out, token{kind: tIdent, text: q[i:j], pos: i})
			i = j
			continue
		}
		two := ""
		if i+1 < len(q) {
			two = q[i : i+2]
		}
		kind, n := tEOF, 0
		switch two {
		case "|=":
			kind, n = tPipeExact, 2
		case "|~":
			kind, n = tPipeMatch, 2
		case "!=":
			kind, n = tNeq, 2
		case "!~":
			kind, n = tNre, 2
		case "=~":
			kind, n = tRe, 2
		case "==":
			kind, n = tEqEq, 2
		case ">=":
			kind, n = tGte, 2
		case "<=":
			kind, n = tLte, 2
		}
		if n == 0 {
			n = 1
			switch c {
			case '{':
				kind = tLBrace
			case '}':
				kind = tRBrace
			case '(':
				kind = tLParen
			case ')':
				kind = tRParen
			case '[':
				kind = tLBracket
			case ']':
				kind = tRBracket
			case ',':
				kind = tComma
			case '|':
				kind = tPipe
			case '=':
				kind = tEq
			case '>':
				kind = tGt
			case '<':
				kind = tLt
			case '+':
				kind = tAdd
			case '-':
				kind = tSub
			case '*':
				kind = tMul
			case '/':
				kind = tDiv
			case '%':
				kind = tMod
			case '^':
				kind = tPow
			default:
				r, _ := utf8.DecodeRuneInString(q[i:])
				return nil, errorAt(q, i, "syntax error: unexpected character %q", r)
			}
		}
		out = append(out, token{kind: kind, pos: i})
		i += n
	}
	out = append(out, token{kind: tEOF, pos: len(q)})
	return out, nil
}

func isIdentStart(c byte) bool { return c == '_' || (c|0x20) >= 'a' && (c|0x20) <= 'z' }
func isIdentChar(c byte) bool  { return isIdentStart(c) || c >= '0' && c <= '9' }

// lexString reads a double-quoted (Go escapes) or backtick (raw) string.
func lexString(s string) (string, int, error) {
	if s[0] == '`' {
		end := strings.IndexByte(s[1:], '`')
		if end < 0 {
			return "", 0, fmt.Errorf("unterminated raw string")
		}
		return s[1 : 1+end], end + 2, nil
	}
	for j := 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '\n':
			return "", 0, fmt.Errorf("newline in string")
		case '"':
			v, err := strconv.Unquote(s[:j+1])
			if err != nil {
				return "", 0, fmt.Errorf("invalid string %s: %v", s[:j+1], err)
			}
			return v, j + 1, nil
		}
	}
	return "", 0, fmt.Errorf("unterminated string")
}

// lexNumber reads a number or a duration such as 5m, 1h30m, 250ms.
func lexNumber(s string) (tokenKind, int) {
	j := 0
	for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
		j++
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && s[k] >= '0' && s[k] <= '9' {
			for k < len(s) && s[k] >= '0' && s[k] <= '9' {
				k++
			}
			return tNumber, k
		}
	}
	// A unit right after the digits makes it a duration; keep reading
	// number+unit groups (1h30m).
	end := j
	isDur := false
	for end < len(s) {
		u := unitLen(s[end:])
		if u == 0 {
			break
		}
		isDur = true
		end += u
		k := end
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k == end || unitLen(s[k:]) == 0 {
			break
		}
		end = k
	}
	if isDur {
		return tDuration, end
	}
	return tNumber, j
}

func unitLen(s string) int {
	for _, u := range []string{"ms", "us", "µs", "ns", "s", "m", "h", "d", "w", "y"} {
		if strings.HasPrefix(s, u) {
			// "m" must not swallow an identifier such as "min".
			rest := s[len(u):]
			if rest != "" {
				r, _ := utf8.DecodeRuneInString(rest)
				if unicode.IsLetter(r) || r == '_' {
					continue
				}
			}
			return len(u)
		}
	}
	return 0
}
