package prom

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

type tokKind int

const (
	tkEOF tokKind = iota
	tkIdent
	tkNumber
	tkDuration
	tkString
	tkLBrace
	tkRBrace
	tkLParen
	tkRParen
	tkLBracket
	tkRBracket
	tkComma
	tkColon
	tkAt
	tkAssign // =
	tkEqlRe  // =~
	tkNeq    // !=
	tkNeqRe  // !~
	tkEql    // ==
	tkGtr
	tkGte
	tkLss
	tkLte
	tkAdd
	tkSub
	tkMul
	tkDiv
	tkMod
	tkPow
)

var tokText = map[tokKind]string{
	tkEOF: "end of input", tkLBrace: "{", tkRBrace: "}", tkLParen: "(", tkRParen: ")", tkLBracket: "[",
	tkRBracket: "]", tkComma: ",", tkColon: ":", tkAt: "@", tkAssign: "=", tkEqlRe: "=~", tkNeq: "!=",
	tkNeqRe: "!~", tkEql: "==", tkGtr: ">", tkGte: ">=", tkLss: "<", tkLte: "<=", tkAdd: "+", tkSub: "-",
	tkMul: "*", tkDiv: "/", tkMod: "%", tkPow: "^",
}

type tok struct {
	kind tokKind
	val  string
	pos  int
}

func (t tok) String() string {
	switch t.kind {
	case tkIdent:
		return "identifier " + strconv.Quote(t.val)
	case tkNumber:
		return "number " + strconv.Quote(t.val)
	case tkDuration:
		return "duration " + strconv.Quote(t.val)
	case tkString:
		return "string " + strconv.Quote(t.val)
	case tkEOF:
		return "end of input"
	}
	return strconv.Quote(tokText[t.kind])
}

// ParseError is Prometheus' "line:col: parse error: msg".
type ParseError struct {
	Line, Col int
	Msg       string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%d:%d: parse error: %s", e.Line, e.Col, e.Msg)
}

func errAt(q string, pos int, format string, args ...any) *ParseError {
	line, col := 1, 1
	for i := 0; i < pos && i < len(q); i++ {
		if q[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &ParseError{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

func isAlpha(c byte) bool    { return c == '_' || (c|0x20) >= 'a' && (c|0x20) <= 'z' }
func isDigit(c byte) bool    { return c >= '0' && c <= '9' }
func isAlphaNum(c byte) bool { return isAlpha(c) || isDigit(c) }

func lexPromQL(q string) ([]tok, error) {
	var out []tok
	i := 0
	brackets := 0 // inside [...], ':' separates a subquery's range and step
	for i < len(q) {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case c == '#':
			for i < len(q) && q[i] != '\n' {
				i++
			}
			continue
		case c == '"' || c == '\'' || c == '`':
			s, n, err := lexQuoted(q[i:])
			if err != nil {
				return nil, errAt(q, i, "%s", err)
			}
			out = append(out, tok{tkString, s, i})
			i += n
			continue
		case isDigit(c) || c == '.' && i+1 < len(q) && isDigit(q[i+1]):
			kind, n := scanNumber(q[i:])
			if n == 0 {
				return nil, errAt(q, i, "bad number or duration syntax: %q", q[i:i+1])
			}
			// A number glued to letters ("5mx", "1e") is an error.
			if i+n < len(q) && isAlpha(q[i+n]) {
				j := i + n
				for j < len(q) && isAlphaNum(q[j]) {
					j++
				}
				return nil, errAt(q, i, "bad number or duration syntax: %q", q[i:j])
			}
			out = append(out, tok{kind, q[i : i+n], i})
			i += n
			continue
		case c == ':' && brackets > 0:
			out = append(out, tok{tkColon, "", i})
			i++
			continue
		case isAlpha(c) || c == ':':
			j := i + 1
			for j < len(q) && (isAlphaNum(q[j]) || q[j] == ':') {
				j++
			}
			out = append(out, tok{tkIdent, q[i:j], i})
			i = j
			continue
		}
		kind, n := tkEOF, 1
		two := ""
		if i+1 < len(q) {
			two = q[i : i+2]
		}
		switch two {
		case "=~":
			kind, n = tkEqlRe, 2
		case "!=":
			kind, n = tkNeq, 2
		case "!~":
			kind, n = tkNeqRe, 2
		case "==":
			kind, n = tkEql, 2
		case ">=":
			kind, n = tkGte, 2
		case "<=":
			kind, n = tkLte, 2
		}
		if n == 1 {
			switch c {
			case '{':
				kind = tkLBrace
			case '}':
				kind = tkRBrace
			case '(':
				kind = tkLParen
			case ')':
				kind = tkRParen
			case '[':
				kind = tkLBracket
				brackets++
			case ']':
				kind = tkRBracket
				brackets--
			case ',':
				kind = tkComma
			case '@':
				kind = tkAt
			case '=':
				kind = tkAssign
			case '>':
				kind = tkGtr
			case '<':
				kind = tkLss
			case '+':
				kind = tkAdd
			case '-':
				kind = tkSub
			case '*':
				kind = tkMul
			case '/':
				kind = tkDiv
			case '%':
				kind = tkMod
			case '^':
				kind = tkPow
			default:
				r, _ := utf8.DecodeRuneInString(q[i:])
				return nil, errAt(q, i, "unexpected character: %q", r)
			}
		}
		out = append(out, tok{kind: kind, pos: i})
		i += n
	}
	return append(out, tok{kind: tkEOF, pos: len(q)}), nil
}

// lexQuoted reads a '...', "..." (Go escapes) or `...` (raw) string.
func lexQuoted(s string) (string, int, error) {
	quote := s[0]
	if quote == '`' {
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
			return "", 0, fmt.Errorf("unterminated quoted string")
		case quote:
			body := s[1:j]
			if quote == '\'' {
				// Go cannot unquote single-quoted strings of several runes.
				body = strings.ReplaceAll(body, `\'`, `'`)
				body = strings.ReplaceAll(body, `"`, `\"`)
			}
			v, err := strconv.Unquote(`"` + body + `"`)
			if err != nil {
				return "", 0, fmt.Errorf("invalid string %s: %v", s[:j+1], err)
			}
			return v, j + 1, nil
		}
	}
	return "", 0, fmt.Errorf("unterminated quoted string")
}

// scanNumber reads a float, hex integer or duration (5m, 1h30m, 250ms).
func scanNumber(s string) (tokKind, int) {
	if len(s) > 2 && s[0] == '0' && (s[1]|0x20) == 'x' {
		j := 2
		for j < len(s) && (isDigit(s[j]) || (s[j]|0x20) >= 'a' && (s[j]|0x20) <= 'f') {
			j++
		}
		return tkNumber, j
	}
	j := 0
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	// Duration: digits followed by a unit, repeated.
	if j > 0 && j < len(s) {
		if n := scanDuration(s); n > 0 {
			return tkDuration, n
		}
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && isDigit(s[j]) {
			j++
		}
	}
	if j < len(s) && (s[j]|0x20) == 'e' {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			j = k
		}
	}
	return tkNumber, j
}

var durationUnits = []string{"ms", "s", "m", "h", "d", "w", "y"}

func scanDuration(s string) int {
	i := 0
	groups := 0
	for i < len(s) {
		j := i
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j == i {
			break
		}
		u := ""
		for _, unit := range durationUnits {
			if strings.HasPrefix(s[j:], unit) {
				u = unit
				break
			}
		}
		if u == "" {
			break
		}
		i = j + len(u)
		groups++
	}
	if groups == 0 {
		return 0
	}
	return i
}
