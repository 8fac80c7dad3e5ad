// Package redact is the one path every secret and piece of personal data
// passes through before it reaches a log line, a Slack message, a prompt, a
// receipt or a pull request. It replaces known secret values (registered by
// whoever loads them) and anything shaped like a credential; optionally it
// masks PII (emails, card numbers, IP addresses).
//
// Credentials are recognised two ways: well-known token formats (rules.go:
// Stripe, Google, GitLab, npm, Hugging Face, GitHub, Slack, OpenAI,
// Anthropic, AWS, Azure, SendGrid, Twilio, Datadog, JWTs, private keys,
// passwords in URLs, bearer and basic credentials), and any value after a
// key that names a secret, whatever its shape (keys.go: password=…,
// "client_secret": "…", X-Api-Key: …, ?token=…, DB_PASSWORD=…, Kubernetes
// env name/value pairs). One pass over the text finds every literal the
// rules and key words need; only the rules whose literals occur run their
// expressions, which keeps masking cheap on log volumes (bench_test.go).
//
// Text is masked before it is cut (Clip): a credential cut in two no longer
// looks like one, and its prefix would pass every later check.
package redact

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// Mask replaces a redacted secret.
const Mask = "[REDACTED]"

// Options choose what besides credentials is masked.
type Options struct {
	Emails bool
	Cards  bool
	IPs    bool
}

// Redactor masks secrets. The zero value (and a nil *Redactor) masks
// credential-shaped strings only; Register adds exact values (configured
// tokens, keys).
type Redactor struct {
	opts Options

	mu      sync.RWMutex
	secrets []string // longest first, so overlapping secrets mask fully
	repl    *strings.Replacer
}

// New returns a Redactor with the given options.
func New(opts Options) *Redactor { return &Redactor{opts: opts} }

// minSecretLen avoids masking every "a" because somebody set a one-letter value.
const minSecretLen = 6

// Register adds exact secret values to mask. Short values are ignored.
func (r *Redactor) Register(values ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[string]bool{}
	for _, s := range r.secrets {
		seen[s] = true
	}
	for _, v := range values {
		v = strings.TrimSpace(v)
		if len(v) < minSecretLen || seen[v] {
			continue
		}
		seen[v] = true
		r.secrets = append(r.secrets, v)
	}
	sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
	pairs := make([]string, 0, 2*len(r.secrets))
	for _, s := range r.secrets {
		pairs = append(pairs, s, Mask)
	}
	r.repl = strings.NewReplacer(pairs...)
}

var (
	emailRE = regexp.MustCompile(`\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b`)
	cardRE  = regexp.MustCompile(`\b(?:\d[ -]?){13,19}\b`)
	ipv4RE  = regexp.MustCompile(`\b(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}\b`)
)

// index finds every token rule's literals and every spelling of a secret
// word in one pass; litOwner says whose each literal is (a token rule's
// index, or -1-i for keyWords[i]).
var index, litOwner = func() (*litIndex, []int) {
	if len(tokenRules) > 64 {
		panic("redact: more token rules than the hit set holds")
	}
	var lits []string
	var owner []int
	for i, rl := range tokenRules {
		for _, l := range rl.lits {
			lits, owner = append(lits, l), append(owner, i)
		}
	}
	for i, w := range keyWords {
		lits, owner = append(lits, w.text), append(owner, -1-i)
	}
	return newLitIndex(lits), owner
}()

// maskCredentials masks credential formats (token rules, first, so that a
// key's value they masked is seen as masked) and the values of
// secret-named keys.
func maskCredentials(s string) string {
	lower := asciiLower(s)
	var hit uint64
	var keys []keyHit
	index.scan(lower, func(pos, li int) {
		if o := litOwner[li]; o >= 0 {
			hit |= 1 << o
		} else {
			keys = append(keys, keyHit{pos, -1 - o})
		}
	})
	changed := false
	for i, rl := range tokenRules {
		if hit&(1<<i) != 0 || rl.pre != nil && rl.pre(s) {
			if t := rl.apply(s); t != s {
				s, changed = t, true
			}
		}
	}
	if len(keys) == 0 {
		return s
	}
	if changed { // positions moved: find the words again
		lower, keys = asciiLower(s), keys[:0]
		index.scan(lower, func(pos, li int) {
			if o := litOwner[li]; o < 0 {
				keys = append(keys, keyHit{pos, -1 - o})
			}
		})
	}
	return maskSpans(s, keyValueSpans(s, lower, keys))
}

// maskSpans replaces byte ranges of s (in any order, maybe overlapping)
// by Mask.
func maskSpans(s string, spans [][2]int) string {
	if len(spans) == 0 {
		return s
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i][0] < spans[j][0] })
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, sp := range spans {
		if sp[1] <= last {
			continue
		}
		if sp[0] >= last {
			b.WriteString(s[last:sp[0]])
			b.WriteString(Mask)
		}
		last = sp[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// String masks secrets (and PII per the options) in s.
func (r *Redactor) String(s string) string {
	if s == "" {
		return s
	}
	if r != nil {
		r.mu.RLock()
		repl := r.repl
		r.mu.RUnlock()
		if repl != nil {
			s = repl.Replace(s)
		}
	}
	s = maskCredentials(s)
	if r == nil {
		return s
	}
	if r.opts.Emails && strings.Contains(s, "@") {
		s = emailRE.ReplaceAllString(s, "[EMAIL]")
	}
	if r.opts.Cards {
		s = cardRE.ReplaceAllStringFunc(s, func(m string) string {
			if luhn(m) {
				return "[CARD]"
			}
			return m
		})
	}
	if r.opts.IPs {
		s = ipv4RE.ReplaceAllString(s, "[IP]")
	}
	return s
}

// Clip masks s, then cuts it to at most n runes, marking the cut with "…".
// Masking comes first: a credential cut in two no longer looks like one,
// and its prefix would pass every later check.
func (r *Redactor) Clip(s string, n int) string {
	s = r.String(s)
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:max(n-1, 0)]) + "…"
}

// Value redacts strings inside JSON-like values (maps, slices) recursively,
// returning a copy. Map values under secret-named keys are masked whole, and
// so is the value of a {"name"/"key": <secret name>, "value": …} pair (a
// Kubernetes env var, a span attribute).
func (r *Redactor) Value(v any) any {
	switch t := v.(type) {
	case string:
		return r.String(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		pair := namesSecret(t["name"]) || namesSecret(t["key"]) || namesSecret(t["Name"]) || namesSecret(t["Key"])
		for k, x := range t {
			if SecretKey(k) || pair && strings.EqualFold(k, "value") {
				if m, ok := maskScalar(x); ok {
					out[k] = m
					continue
				}
			}
			out[k] = r.Value(x)
		}
		return out
	case map[string]string:
		out := make(map[string]string, len(t))
		pair := SecretKey(t["name"]) || SecretKey(t["key"])
		for k, x := range t {
			if (SecretKey(k) || pair && k == "value") && !keepValue(x) {
				out[k] = Mask
				continue
			}
			out[k] = r.String(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = r.Value(x)
		}
		return out
	case []string:
		out := make([]string, len(t))
		for i, x := range t {
			out[i] = r.String(x)
		}
		return out
	default:
		return v
	}
}

func namesSecret(v any) bool {
	s, ok := v.(string)
	return ok && SecretKey(s)
}

// maskScalar masks a string or number under a secret-named key; nested
// objects are walked instead (false).
func maskScalar(x any) (any, bool) {
	switch t := x.(type) {
	case string:
		if keepValue(t) {
			return t, true
		}
		return Mask, true
	case json.Number, float64, float32, int, int64, int32, uint, uint64, uint32:
		return Mask, true
	}
	return nil, false
}

func luhn(s string) bool {
	sum, n, double := 0, 0, false
	for i := len(s) - 1; i >= 0; i-- {
		c := s[i]
		if c == ' ' || c == '-' {
			continue
		}
		d := int(c - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		n++
		double = !double
	}
	return n >= 13 && sum%10 == 0
}

// Default is the process-wide redactor: configured secrets are registered
// into it at start-up and whenever a session stores one.
var Default = New(Options{})

// String masks secrets with the Default redactor.
func String(s string) string { return Default.String(s) }

// Register adds secrets to the Default redactor.
func Register(values ...string) { Default.Register(values...) }

// ContainsRegistered reports whether s contains a registered secret value
// verbatim (before any masking): a last check before text is published.
func (r *Redactor) ContainsRegistered(s string) bool {
	if r == nil || s == "" {
		return false
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, secret := range r.secrets {
		if strings.Contains(s, secret) {
			return true
		}
	}
	return false
}
