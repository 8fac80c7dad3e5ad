package redact

import (
	"regexp"
	"strings"
)

// A rule masks one credential format. Every match contains one of lits
// (lower-case); the lower-cased text is searched for all rules' literals
// in one pass first (litIndex), and a rule's expression runs only when one
// of its literals is there, so a log line that holds no credential costs
// one scan. pre, when set, replaces lits as that cheap condition.
type rule struct {
	name string
	lits []string
	pre  func(string) bool
	re   *regexp.Regexp
	// group is the submatch holding the secret (0: the whole match; when
	// alternatives each capture, the first of group, group+1, … that took
	// part); the rest of the match (a key name, a scheme) stays as evidence.
	group int
	// keep reports whether a matched value is harmless after all.
	keep func(string) bool
	// span, when set, says how much of a matched value is the secret; the
	// search goes on right after it (a query's next parameter).
	span func(string) int
}

// litIndex finds, in one pass over a lower-cased text, where any of many
// literals (two bytes or longer) occur: a bitset of their first two bytes
// rules out almost every position at once.
type litIndex struct {
	lits   []string
	byPair map[uint16][]int
	pairs  [1 << 16 / 64]uint64
}

func newLitIndex(lits []string) *litIndex {
	x := &litIndex{lits: lits, byPair: map[uint16][]int{}}
	for i, l := range lits {
		if len(l) < 2 {
			panic("redact: literal shorter than two bytes: " + l)
		}
		p := uint16(l[0])<<8 | uint16(l[1])
		x.byPair[p] = append(x.byPair[p], i)
		x.pairs[p>>6] |= 1 << (p & 63)
	}
	return x
}

// scan calls fn with the position and index of every literal occurrence.
func (x *litIndex) scan(lower string, fn func(pos, lit int)) {
	for i := 0; i+1 < len(lower); i++ {
		p := uint16(lower[i])<<8 | uint16(lower[i+1])
		if x.pairs[p>>6]&(1<<(p&63)) == 0 {
			continue
		}
		for _, li := range x.byPair[p] {
			if strings.HasPrefix(lower[i:], x.lits[li]) {
				fn(i, li)
			}
		}
	}
}

// asciiLower lower-cases ASCII letters only, so that byte offsets in the
// result are offsets in s.
func asciiLower(s string) string {
	i := 0
	for i < len(s) && (s[i] < 'A' || s[i] > 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if c := b[i]; c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// apply masks every match of the rule in s.
func (r *rule) apply(s string) string {
	var b strings.Builder
	last, pos := 0, 0
	for pos <= len(s) {
		m := r.re.FindStringSubmatchIndex(s[pos:])
		if m == nil {
			break
		}
		next := pos + max(m[1], 1)
		start, end := -1, -1
		for g := r.group; g < len(m)/2 && start < 0; g++ {
			start, end = m[2*g], m[2*g+1]
		}
		if start >= 0 {
			start, end = pos+start, pos+end
			if r.span != nil {
				end = start + r.span(s[start:end])
				next = max(end, pos+1)
			}
		}
		pos = next
		if start < last || start >= end || r.keep != nil && r.keep(s[start:end]) {
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[last:start])
		b.WriteString(Mask)
		last = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func tokenRule(name string, lits []string, pattern string) *rule {
	return &rule{name: name, lits: lits, re: regexp.MustCompile(pattern)}
}

// tokenRules are well-known credential formats, written after the formats
// gitleaks' rule set documents (github.com/gitleaks/gitleaks,
// cmd/generate/config/rules). Prefixes that are distinctive need no
// boundary before them: a token glued to an identifier is masked too.
var tokenRules = []*rule{
	tokenRule("slack", []string{"xox", "xapp-"}, `xox[abposrce]-[A-Za-z0-9-]{10,}|xoxe\.xox[bp]-[A-Za-z0-9-]{10,}|xapp-[0-9]-[A-Za-z0-9-]{10,}`),
	tokenRule("slack-webhook", []string{"hooks.slack.com"}, `hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,}`),
	tokenRule("github", []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, `(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}`),
	tokenRule("gitlab", []string{"glpat-", "gldt-", "glptt-", "glrt-", "glcbt-", "glft-", "glsoat-", "gloas-", "glimt-", "glagent-", "glffct-", "gr1348941"},
		`gl(?:pat|dt|ptt|rt|cbt|ft|soat|oas|imt|agent|ffct)-[0-9A-Za-z_.-]{20,}|GR1348941[0-9A-Za-z_-]{20,}`),
	tokenRule("stripe", []string{"sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_", "whsec_"}, `[sr]k_(?:live|test|prod)_[0-9A-Za-z]{10,}|whsec_[0-9A-Za-z+/=]{20,}`),
	tokenRule("google", []string{"aiza", "gocspx-", "ya29."}, `AIza[0-9A-Za-z_-]{35}|GOCSPX-[0-9A-Za-z_-]{20,}|ya29\.[0-9A-Za-z_-]{20,}`),
	tokenRule("npm", []string{"npm_"}, `npm_[A-Za-z0-9]{36}`),
	tokenRule("huggingface", []string{"hf_", "api_org_"}, `(?:hf|api_org)_[A-Za-z0-9]{30,}`),
	// OpenAI (sk-, sk-proj-, sk-svcacct-, sk-admin-), Anthropic (sk-ant-api03-),
	// OpenRouter (sk-or-v1-) and the many APIs that copied the shape.
	tokenRule("sk-keys", []string{"sk-"}, `\bsk-[A-Za-z0-9_-]{20,}`),
	tokenRule("aws-key-id", []string{"akia", "asia", "abia", "acca", "a3t"}, `\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b`),
	// A bare secret access key (40 characters) shortly after its name, as
	// `aws configure list`, credential files and prose print it.
	{name: "aws-secret", lits: append(wordSpellings("secret access"), "secret access"), group: 1,
		re: regexp.MustCompile(`(?i)secret[ _-]?access[ _-]?key[^\n]{0,60}?(?:^|[^A-Za-z0-9/+])([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`)},
	// Datadog API (32 hex) and application (40 hex) keys after their name.
	{name: "datadog", lits: []string{"datadog", "dd_", "dd-"}, group: 1,
		re: regexp.MustCompile(`(?i)(?:datadog|\bdd)[ _-]?(?:api|app|application)[ _-]?key[^\n]{0,40}?\b([a-f0-9]{40}|[a-f0-9]{32})\b`)},
	// Azure: AD client secrets, and storage account keys (86 base64
	// characters and "==") wherever they stand; AccountKey=, SharedAccessKey=
	// and SAS sig= are secret-named keys (keys.go).
	tokenRule("azure-client-secret", []string{"q~"}, `\b[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}`),
	{name: "azure-storage-key", lits: []string{"=="}, group: 1, re: regexp.MustCompile(`(?:^|[^A-Za-z0-9+/])([A-Za-z0-9+/]{86}==)`)},
	tokenRule("sendgrid", []string{"sg."}, `\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}`),
	{name: "twilio", pre: func(s string) bool { return strings.Contains(s, "SK") }, re: regexp.MustCompile(`\bSK[0-9a-fA-F]{32}\b`)},
	tokenRule("jwt", []string{"eyj"}, `\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`),
	// A private key block; without its END line (a cut log line) everything
	// after BEGIN is masked. Certificates are public and stay.
	tokenRule("private-key", []string{"private key"}, `-----BEGIN[A-Z0-9 _-]{0,40}PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END[A-Z0-9 _-]{0,40}PRIVATE KEY(?: BLOCK)?-----|\z)`),
	// The body of such a block seen without its BEGIN line (a window of a
	// source file, numbered or not): lines that are nothing but a long
	// random base64 run, maybe quoted and concatenated.
	{name: "key-block-line", pre: hasBase64Run, group: 1, keep: notRandom,
		re: regexp.MustCompile(`(?m)^[ \t>]*(?:\d+[ \t|:]+)?[ \t"'+]*([A-Za-z0-9+/]{60,}={0,2})(?:\\n)?["', \t+;]*$`)},
	tokenRule("prefixed", []string{"shpat_", "shpca_", "shppa_", "shpss_", "dop_v1_", "doo_v1_", "dor_v1_", "hvs.", "hvb.", "hvr.", "dp.st.", "dp.ct.", "dp.sa.", "pypi-",
		"age-secret-key-1", "lin_api_", "glsa_", "glc_", "pmak-", "nrak-", "sntrys_", "sntryu_", "atatt3", "dapi", "hrku-", "sq0atp-", "sq0csp-", "pul-"},
		`shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}|do[opr]_v1_[a-f0-9]{64}|hv[sbr]\.[A-Za-z0-9_-]{24,}|dp\.(?:st|ct|sa)\.[A-Za-z0-9_.-]{40,}|pypi-AgE[A-Za-z0-9_-]{50,}|`+
			`AGE-SECRET-KEY-1[0-9A-Z]{58}|lin_api_[A-Za-z0-9]{40}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2}|PMAK-[a-f0-9]{24}-[a-f0-9]{34}|`+
			`NRAK-[A-Z0-9]{27}|sntr[yu]s?_[A-Za-z0-9+/=_-]{40,}|ATATT3[A-Za-z0-9_=-]{30,}|\bdapi[a-f0-9]{32}\b|HRKU-[A-Za-z0-9_-]{30,}|sq0(?:atp|csp)-[0-9A-Za-z_-]{22,43}|\bpul-[a-f0-9]{40}\b`),
	// Credentials after an HTTP auth scheme: long ones always, shorter ones
	// when they look encoded ("Basic authentication" is prose).
	{name: "auth-scheme", lits: []string{"bearer", "basic"}, group: 2, keep: notCredentialAfterScheme,
		re: regexp.MustCompile(`(?i)\b(bearer|basic)[ \t]+([A-Za-z0-9._~+/-]+=*)`)},
	// The signature of an Azure SAS (or any signed URL): ?…&sig=….
	{name: "url-sig", lits: []string{"sig="}, group: 1, keep: keepValue,
		re: regexp.MustCompile(`[?&;]sig=([^&\s"'#]+)`)},
	// A password in a Go MySQL DSN: user:password@tcp(host:3306)/db.
	{name: "dsn-password", lits: []string{"@tcp(", "@unix("}, group: 1, keep: isMasked,
		re: regexp.MustCompile(`[A-Za-z0-9_.-]+:([^@\s/:]+)@(?:tcp|unix)\(`)},
	// A password in a URL: scheme://user:password@host (the user may be empty).
	{name: "url-password", pre: func(s string) bool { return strings.Contains(s, "://") && strings.Contains(s, "@") }, group: 2, keep: isMasked,
		re: regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]*:)([^/\s@]+)@`)},
}

// hasBase64Run reports whether s holds 60 base64 characters in a row.
func hasBase64Run(s string) bool {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' {
			n++
			if n >= 60 {
				return true
			}
			continue
		}
		n = 0
	}
	return false
}

// notRandom is true for runs that are not random base64: those without
// upper case, lower case and digits all present (hex digests, paths).
func notRandom(s string) bool {
	var upper, lower, digit bool
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= '0' && c <= '9':
			digit = true
		}
	}
	return !(upper && lower && digit)
}

// notCredentialAfterScheme keeps words after "Bearer"/"Basic" that are too
// short or too plain to be a credential.
func notCredentialAfterScheme(s string) bool {
	if len(s) >= 20 {
		return false
	}
	if len(s) < 8 {
		return true
	}
	if strings.ContainsAny(s, "0123456789+/=") {
		return false
	}
	// Mixed case after the first letter ("dXNlcjpwYXNz") is encoded;
	// "authentication" and "Authentication" are words.
	return strings.ToLower(s[1:]) == s[1:] || strings.ToUpper(s[1:]) == s[1:]
}

func isMasked(s string) bool { return strings.HasPrefix(s, Mask) }
