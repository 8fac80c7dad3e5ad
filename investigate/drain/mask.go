package drain

import "strings"

// Tokenize splits a line on white space and masks variable tokens: numbers
// (with units: 300ms, 1.5s, 42%), hex ids, UUIDs, addresses, timestamps,
// pod-hash suffixes. Punctuation around a token and the key of key=value
// are kept ("user_id=<*>,"), so templates stay readable.
func Tokenize(line string) []string {
	fields := strings.Fields(line)
	for i, f := range fields {
		fields[i] = maskToken(f)
	}
	return fields
}

// Mask returns the line with its variable tokens masked, tokens joined by
// single spaces.
func Mask(line string) string { return strings.Join(Tokenize(line), " ") }

const (
	leadPunct  = "\"'([{<`"
	trailPunct = "\"')]}>,;:.!?`"
)

func maskToken(tok string) string {
	if !hasDigit(tok) {
		return tok
	}
	start, end := 0, len(tok)
	for start < end && strings.IndexByte(leadPunct, tok[start]) >= 0 {
		start++
	}
	for end > start && strings.IndexByte(trailPunct, tok[end-1]) >= 0 {
		end--
	}
	core := tok[start:end]
	// key=value and key:value keep their key.
	if i := strings.IndexAny(core, "=:"); i > 0 && i < len(core)-1 && isIdent(core[:i]) && !variable(core[:i]) {
		if variable(core[i+1:]) {
			return tok[:start] + core[:i+1] + Wildcard + tok[end:]
		}
		if core[i] == '=' {
			return tok
		}
	}
	if variable(core) {
		return tok[:start] + Wildcard + tok[end:]
	}
	return tok
}

// variable reports whether a token (punctuation stripped) is a value
// rather than a word: any of its segments (split on - _ . : / @ # , +) is
// a number, a number with a unit, a hex id or digit-heavy.
func variable(s string) bool {
	if s == "" || !hasDigit(s) {
		return false
	}
	seg := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && !isSep(s[i]) {
			continue
		}
		if i > seg && variableSegment(s[seg:i]) {
			return true
		}
		seg = i + 1
	}
	return false
}

func isSep(b byte) bool {
	switch b {
	case '-', '_', '.', ':', '/', '@', '#', ',', '+', '=', '%', '\\', '|', '&', '?':
		return true
	}
	return false
}

func variableSegment(s string) bool {
	digits, hex := 0, true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
		default:
			hex = false
		}
	}
	switch {
	case digits == 0:
		return false
	case digits == len(s):
		return true
	case numberWithUnit(s):
		return true
	case hex && len(s) >= 6:
		return true
	}
	return len(s) >= 5 && digits*2 >= len(s)
}

// numberWithUnit: digits then at most three letters (300ms, 5s, 12KB, 3x).
func numberWithUnit(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || len(s)-i > 3 {
		return false
	}
	for _, c := range s[i:] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// isIdent: a key of key=value (a letter first).
func isIdent(s string) bool {
	if s == "" || !(s[0] == '_' || s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '-' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// levelWords are log levels as loggers print them in a line's header.
var levelWords = map[string]bool{"TRACE": true, "DEBUG": true, "INFO": true, "NOTICE": true, "WARN": true, "WARNING": true, "ERROR": true,
	"ERR": true, "CRIT": true, "CRITICAL": true, "FATAL": true, "SEVERE": true, "E": true, "W": true, "I": true, "D": true, "F": true}

// TrimHeader drops a line's header from masked tokens: leading
// timestamps, ids, levels and separators ("<*> <*> - INFO - ..."), so
// that the message routes the line. At most 8 tokens go, and at least two
// stay.
func TrimHeader(tokens []string) []string {
	i := 0
	for i < len(tokens)-2 && i < 8 {
		t := strings.Trim(tokens[i], "[]():,|")
		if t == "" || strings.Contains(tokens[i], Wildcard) || levelWords[strings.ToUpper(t)] || t == "-" || t == "--" || t == "—" {
			i++
			continue
		}
		break
	}
	return tokens[i:]
}
