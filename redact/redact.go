// Package redact is the one path every secret and piece of personal data
// passes through before it reaches a log line, a Slack message, a prompt, a
// receipt or a pull request. It replaces known secret values (registered by
// whoever loads them) and anything shaped like a credential; optionally it
// masks PII (emails, card numbers, IP addresses).
package redact

import (
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Mask replaces a redacted secret.
const Mask = "[REDACTED]"

// Options choose what besides credentials is masked.
type Options struct {
	Emails bool
	Cards  bool
	IPs    bool
}

// Redactor masks secrets. The zero value masks credential-shaped strings
// only; Register adds exact values (configured tokens, keys).
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

// credentialPatterns match well-known token formats and key=value secrets.
var credentialPatterns = []*regexp.Regexp{
	regexp.MustCompile(`xox[abposr]-[A-Za-z0-9-]{10,}`),                                  // Slack bot/user tokens
	regexp.MustCompile(`xapp-[A-Za-z0-9-]{10,}`),                                         // Slack app-level tokens
	regexp.MustCompile(`\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}\b`),                   // GitHub tokens
	regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{20,}\b`),                               // GitHub fine-grained PATs
	regexp.MustCompile(`\bsk-(?:proj-|or-v1-|ant-)?[A-Za-z0-9_-]{16,}\b`),                // OpenAI / OpenRouter / Anthropic style keys
	regexp.MustCompile(`\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`),                                  // AWS access key ids
	regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b`), // JWTs
	regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----`),
	regexp.MustCompile(`(?i)\b(?:bearer|token|basic)\s+[A-Za-z0-9._~+/=-]{16,}`), // Authorization values
}

// keyValueSecret masks the value of key=value / key: value / "key":"value"
// pairs whose key names a secret.
var keyValueSecret = regexp.MustCompile(`(?i)((?:password|passwd|pwd|secret|api[_-]?key|access[_-]?key|private[_-]?key|token|auth|credential|client[_-]?secret)[A-Za-z0-9_-]*["']?\s*[:=]\s*["']?)([^\s"',;&}]{4,})`)

// referenceLike values name a secret rather than hold it: an env var or
// Secret key name (DB_PASSWORD, connection-string), a template reference.
var referenceLike = regexp.MustCompile(`^(?:[A-Z][A-Z0-9_]*|[a-z][a-z.-]*|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\{\{.*\}\}|\[?REDACTED\]?)$`)

// urlUserinfo masks passwords in URLs (scheme://user:pass@host).
var urlUserinfo = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]+:)([^/\s@]+)(@)`)

var (
	emailRE = regexp.MustCompile(`\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b`)
	cardRE  = regexp.MustCompile(`\b(?:\d[ -]?){13,19}\b`)
	ipv4RE  = regexp.MustCompile(`\b(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}\b`)
)

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
	for _, re := range credentialPatterns {
		s = re.ReplaceAllString(s, Mask)
	}
	s = keyValueSecret.ReplaceAllStringFunc(s, func(m string) string {
		sub := keyValueSecret.FindStringSubmatch(m)
		if referenceLike.MatchString(sub[2]) {
			return m // a key name or a reference to where the secret lives, not the secret
		}
		return sub[1] + Mask
	})
	s = urlUserinfo.ReplaceAllString(s, "${1}"+Mask+"${3}")
	if r == nil {
		return s
	}
	if r.opts.Emails {
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

// Value redacts strings inside JSON-like values (maps, slices) recursively,
// returning a copy. Map values under secret-looking keys are masked whole.
func (r *Redactor) Value(v any) any {
	switch t := v.(type) {
	case string:
		return r.String(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			if SecretKey(k) {
				if s, ok := x.(string); ok && s != "" {
					out[k] = Mask
					continue
				}
			}
			out[k] = r.Value(x)
		}
		return out
	case map[string]string:
		out := make(map[string]string, len(t))
		for k, x := range t {
			if SecretKey(k) && x != "" {
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

var secretKeyRE = regexp.MustCompile(`(?i)(password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|authorization|credential|cookie)`)

// SecretKey reports whether a field name suggests its value is a secret.
func SecretKey(name string) bool { return secretKeyRE.MatchString(name) }

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
