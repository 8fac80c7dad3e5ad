package redact

import (
	"regexp"
	"strings"
)

// A key names a secret when it ends with one of secretWords ("DB_PASSWORD",
// "clientSecret", "x-api-key", "aws_secret_access_key", "PGPASSWORD"); when
// one of boundedWords is its last word ("auth", "X-Amz-Signature"), since
// they also end innocent words (oauth, design); or when one of suffixWords
// ends it after a separator ("db_pass", "SMTP_PWD": alone, "pass: 12" counts
// tests and PWD is the working directory). A key that merely contains such a
// word names something else: "tokens_used", "token_type", "secretName",
// "password_changed_at". Compound words are written with a space and match
// with "_", "-", "." or nothing between.
var (
	secretWords = []string{"password", "passwd", "passphrase", "secret", "token", "api key", "app key", "application key",
		"private key", "secret key", "access key", "account key", "signing key", "encryption key", "master key",
		"session key", "credential", "credentials", "authorization", "cookie", "cookies", "session id", "sessid"}
	boundedWords = []string{"auth", "signature", "jwt", "psk"}
	suffixWords  = []string{"pass", "pwd"}
	// notSecretKeys end with a secret word but name where a secret lives.
	notSecretKeys = map[string]bool{"existingsecret": true}
)

// wordPattern turns "api key" into api[_.-]?key.
func wordPattern(w string) string {
	return strings.ReplaceAll(regexp.QuoteMeta(w), " ", `[_.-]?`)
}

// wordSpellings are the spellings of w in keys.
func wordSpellings(w string) []string {
	if !strings.Contains(w, " ") {
		return []string{w}
	}
	var out []string
	for _, sep := range []string{"", "_", "-", "."} {
		out = append(out, strings.ReplaceAll(w, " ", sep))
	}
	return out
}

var secretKeyRE = func() *regexp.Regexp {
	alt := func(words []string) string {
		ps := make([]string, len(words))
		for i, w := range words {
			ps[i] = wordPattern(w)
		}
		return "(?:" + strings.Join(ps, "|") + ")"
	}
	return regexp.MustCompile(`(?i)^["']?(?:[A-Za-z0-9_.-]*` + alt(secretWords) + `|(?:[A-Za-z0-9_.-]*[_.-])?` + alt(boundedWords) +
		`|[A-Za-z0-9_.-]*[_.-]` + alt(suffixWords) + `)["']?$`)
}()

// SecretKey reports whether a field name says its value is a secret.
func SecretKey(name string) bool {
	return secretKeyRE.MatchString(name) && !notSecretKeys[strings.ToLower(name)]
}

// How a secret word may start within its key.
type wordKind int

const (
	freeWord    wordKind = iota // anywhere: PGPASSWORD, clientSecret
	boundedWord                 // at the key's start or after a separator: auth, X-Amz-Signature
	suffixWord                  // only after a separator: db_pass
)

// keyWord is one lower-case spelling of a secret word.
type keyWord struct {
	text string
	kind wordKind
}

var keyWords = func() []keyWord {
	var out []keyWord
	add := func(kind wordKind, words []string) {
		for _, w := range words {
			for _, sp := range wordSpellings(w) {
				out = append(out, keyWord{sp, kind})
			}
		}
	}
	add(freeWord, secretWords)
	add(boundedWord, boundedWords)
	add(suffixWord, suffixWords)
	return out
}()

// keyHit is a secret word found in a text.
type keyHit struct{ pos, word int }

func isKeyChar(c byte) bool {
	return isAlnum(c) || c == '_' || c == '.' || c == '-'
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// keyAt returns the start of the secret-named key that the word w found at
// pos ends, or -1 when the word does not end a key that names a secret.
func keyAt(s, lower string, pos int, w keyWord) int {
	end := pos + len(w.text)
	if end < len(s) && isKeyChar(s[end]) {
		return -1 // the key goes on: tokens_used, secretName
	}
	switch w.kind {
	case boundedWord:
		if pos > 0 && isAlnum(s[pos-1]) {
			return -1 // oauth
		}
	case suffixWord:
		if pos < 2 || !strings.ContainsRune("_.-", rune(s[pos-1])) || !isKeyChar(s[pos-2]) {
			return -1 // pass, PWD
		}
	}
	k := pos
	for k > 0 && isKeyChar(s[k-1]) {
		k--
	}
	if notSecretKeys[strings.TrimLeft(lower[k:end], "-")] {
		return -1
	}
	return k
}

// Values after a secret-named key, in the order they are tried: escaped
// quotes (JSON inside a JSON string), quotes, then a bare word up to a
// delimiter (a reference such as ${DB_PASSWORD} is one word). The bare word
// is the last group.
const (
	escQuoted = `\\"((?:[^"\\\n]|\\[^"\n])*)\\"`
	dblQuoted = `"((?:[^"\\\n]|\\.)*)"`
	sglQuoted = `'([^'\n]*)'`
	bareWord  = `(\$\{[^}\n]*\}|\{\{[^\n]*?\}\}|[^\s"'<>,;|}\]]+)`
	anyValue  = `(?:` + escQuoted + `|` + dblQuoted + `|` + sglQuoted + `|` + bareWord + `)`
)

// What follows a secret-named key, anchored at the key's end; the value is
// the first group that took part.
var (
	// key=value, key: value, "key": "value", key => 'value', ?key=v&,
	// KEY=value, \"key\":\"value\".
	afterKey = regexp.MustCompile(`^(?:\\?["'])?[ \t]*(?:=>|:=|[:=])[ \t]*` + anyValue)
	// A YAML line or an HTTP header ("password: correct horse battery",
	// "Authorization: Bearer …"): the value runs to the end of the line.
	afterLineKey = regexp.MustCompile(`^["']?[ \t]*:[ \t]+([^\s"'{\[|>&*!][^\n]*)`)
	// A command-line flag: --password hunter2.
	afterFlag = regexp.MustCompile(`^[ \t]+([^\s-][^\s]*)`)
	// An XML element: <password>hunter2</password>.
	afterElement = regexp.MustCompile(`^(?:\s[^>]*)?>([^<\n]+)</`)
	// A name/value pair whose name is the key: Kubernetes env ("- name:
	// DB_PASSWORD\n  value: x"), span attributes as Jaeger prints them
	// ({"key": "db.password", "type": "string", "value": "x"}).
	afterPairName = regexp.MustCompile(`^["']?[ \t]*,?\s*(?:["']?type["']?[ \t]*[:=][ \t]*["']?\w+["']?[ \t]*,?\s*)?["']?value["']?[ \t]*[:=][ \t]*` + anyValue)
	// What precedes a key that is the name of such a pair.
	pairNameBefore = regexp.MustCompile(`(?i)\b(?:name|key)["']?[ \t]*[:=][ \t]*["']?$`)
)

// keyValueSpans returns the byte ranges of the values that follow
// secret-named keys in s, given where secret words were found (in order).
func keyValueSpans(s, lower string, hits []keyHit) [][2]int {
	var spans [][2]int
	lastEnd := -1
	for _, h := range hits {
		w := keyWords[h.word]
		k := keyAt(s, lower, h.pos, w)
		end := h.pos + len(w.text)
		if k < 0 || end == lastEnd {
			continue
		}
		lastEnd = end
		if v, ok := valueAfterKey(s, k, end); ok {
			spans = append(spans, v)
		}
	}
	return spans
}

// valueAfterKey finds the value of the key s[k:end] by the form it takes.
func valueAfterKey(s string, k, end int) ([2]int, bool) {
	tail := s[end:]
	m := func() []int {
		switch {
		case pairNameBefore.MatchString(s[max(0, k-24):k]):
			return afterPairName.FindStringSubmatchIndex(tail)
		case k > 0 && s[k-1] == '<':
			return afterElement.FindStringSubmatchIndex(tail)
		case s[k] == '-' && (k == 0 || s[k-1] == ' ' || s[k-1] == '\t'):
			if m := afterFlag.FindStringSubmatchIndex(tail); m != nil {
				return m
			}
		case atLineStart(s, k):
			if m := afterLineKey.FindStringSubmatchIndex(tail); m != nil {
				m[3] = m[2] + len(strings.TrimRight(tail[m[2]:m[3]], " \t\r"))
				return m
			}
		}
		return afterKey.FindStringSubmatchIndex(tail)
	}()
	if m == nil {
		return [2]int{}, false
	}
	for g := 1; g < len(m)/2; g++ {
		if m[2*g] < 0 {
			continue
		}
		v := tail[m[2*g]:m[2*g+1]]
		if keepValue(v) {
			return [2]int{}, false
		}
		n := len(v)
		if g == len(m)/2-1 && strings.HasPrefix(tail, "=") {
			n = untilNextParam(v) // a bare word in a query string
		}
		return [2]int{end + m[2*g], end + m[2*g] + n}, true
	}
	return [2]int{}, false
}

// atLineStart reports whether only indentation, a YAML list dash or a
// quote precede position k on its line.
func atLineStart(s string, k int) bool {
	i := k
	for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t' || s[i-1] == '"' || s[i-1] == '\'' || s[i-1] == '-') {
		i--
	}
	return i == 0 || s[i-1] == '\n'
}

// statusWords after a secret-named key describe it rather than hold it
// ("token: expired", "password=null", "auth: required").
var statusWords = map[string]bool{
	"true": true, "false": true, "null": true, "nil": true, "none": true, "empty": true, "undefined": true, "unset": true,
	"missing": true, "invalid": true, "expired": true, "required": true, "optional": true, "provided": true, "present": true,
	"set": true, "redacted": true, "hidden": true, "masked": true, "omitted": true, "ok": true, "failed": true, "denied": true,
	"rejected": true, "revoked": true, "malformed": true, "n/a": true,
}

// authSchemes start an Authorization value; the credential follows them.
var authSchemes = map[string]bool{"bearer": true, "basic": true, "token": true, "digest": true}

// referenceRE matches values that name where a secret lives, or stand in
// for it: ${DB_PASSWORD}, $DB_PASSWORD, {{ .Values.token }}, %(password)s,
// <password>, ***, $1, ? and :name (SQL parameters), DB_PASSWORD (an
// environment variable or Secret key name).
var referenceRE = regexp.MustCompile(`^(?:\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\$\d+|\{\{.*\}\}|%\([A-Za-z_]+\)s|%s|<[A-Za-z_ -]+>|[*xX.…?]+|:[A-Za-z_]+|@[A-Za-z_]+|[A-Z]+(?:_[A-Z]+)+)$`)

// keepValue reports whether a value after a secret-named key is harmless:
// already masked, a nested object, a reference, a word describing the
// secret's state, or an auth scheme whose credential is masked already.
func keepValue(v string) bool {
	v = strings.TrimSpace(v)
	if v == "" || strings.HasPrefix(v, "[REDACTED") || strings.HasPrefix(v, "{") || strings.HasPrefix(v, "[") {
		return true
	}
	first, rest, _ := strings.Cut(v, " ")
	first = strings.ToLower(strings.Trim(first, ".,;:!()"))
	if authSchemes[first] {
		rest = strings.TrimSpace(rest)
		return rest == "" || strings.HasPrefix(rest, Mask)
	}
	return statusWords[first] || referenceRE.MatchString(v)
}

// nextParamRE finds the next parameter of a query string inside a bare
// value: "abc&user=bob" holds the secret "abc", while a password may hold
// "&" itself ("Tr0ub4dor&3").
var nextParamRE = regexp.MustCompile(`&[A-Za-z0-9_.\[\]-]+=`)

func untilNextParam(v string) int {
	if i := nextParamRE.FindStringIndex(v); i != nil {
		return i[0]
	}
	return len(v)
}
