package bot

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/autoheal/autoheal/config"
)

// Limits on what is read from a message.
const (
	maxMessageBytes = 8 << 10 // text of one mention or command read at all
	maxIssueText    = 2000    // characters of issue text kept
	maxSettingLines = 32      // settings read from one message
)

// Parsed is a mention or command split into settings and issue text.
type Parsed struct {
	// Settings are the valid key: value lines, by normalized key name.
	Settings map[string]string
	// Problems are the rejected settings, one line each (config.Check
	// messages: they never contain the value).
	Problems []string
	// Text is what remains: the issue to investigate (bot mention and
	// setting lines removed).
	Text string
}

var (
	// A setting line: "key: value", "key = value".
	settingLineRE = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_.-]{0,63})\s*[:=]\s*(\S.*)$`)
	// A user mention: <@U123> or <@U123|name>.
	userMentionRE = regexp.MustCompile(`<@([A-Z0-9]+)(?:\|[^>]*)?>`)
	// Slack's link markup: <https://x|label>, <mailto:a@b|a@b>, <#C123|name>, <@U123>, <!here>.
	slackLinkRE = regexp.MustCompile(`<([^<>|]*)(?:\|([^<>]*))?>`)
)

// ParseMention splits an app_mention's text into settings and issue text.
// botUserID's mentions are removed; Slack's escaping and link markup are
// undone so that URLs arrive as typed. A line that looks like a setting
// (a known key, or a snake_case key such as loki_url) is read as one, and an
// unknown snake_case key is reported with the list of known keys; anything
// else is issue text ("error: checkout fails" stays text).
func ParseMention(text, botUserID string) Parsed {
	p := Parsed{Settings: map[string]string{}}
	text = truncateBytes(text, maxMessageBytes)
	if botUserID != "" {
		text = userMentionRE.ReplaceAllStringFunc(text, func(m string) string {
			if userMentionRE.FindStringSubmatch(m)[1] == botUserID {
				return " "
			}
			return m
		})
	}
	var rest []string
	for _, line := range strings.Split(unslack(text), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if settings, ok := assignmentsLine(line); ok {
			for _, kv := range settings {
				p.add(kv[0], kv[1])
			}
			continue
		}
		rest = append(rest, line)
	}
	p.Text = truncateRunes(strings.Join(strings.Fields(strings.Join(rest, "\n")), " "), maxIssueText)
	return p
}

// ParseAssignments reads "key=value key2=value2" (values may be quoted) or a
// single "key: value", as `/autoheal config …` receives them.
func ParseAssignments(s string) Parsed {
	p := Parsed{Settings: map[string]string{}}
	s = strings.TrimSpace(unslack(truncateBytes(s, maxMessageBytes)))
	if s == "" {
		return p
	}
	if !strings.Contains(s, "=") {
		if m := settingLineRE.FindStringSubmatch(s); m != nil {
			p.add(m[1], m[2])
			return p
		}
	}
	rest := 0
	for _, tok := range tokens(s) {
		k, v, ok := strings.Cut(tok, "=")
		if !ok || k == "" {
			rest++
			continue
		}
		p.add(k, v)
	}
	if rest > 0 {
		// The words are not echoed: they may be a secret typed without its key.
		p.Problems = append(p.Problems, fmt.Sprintf("expected key=value pairs; %d word(s) without '=' were ignored", rest))
	}
	return p
}

// assignmentsLine reads one line as settings: "key: value", or a line made
// only of key=value tokens. ok is false for ordinary text.
func assignmentsLine(line string) ([][2]string, bool) {
	if toks := tokens(line); len(toks) > 1 {
		var out [][2]string
		for _, t := range toks {
			k, v, ok := strings.Cut(t, "=")
			if !ok || !settingLike(k) {
				out = nil
				break
			}
			out = append(out, [2]string{k, v})
		}
		if out != nil {
			return out, true
		}
	}
	m := settingLineRE.FindStringSubmatch(line)
	if m == nil || !settingLike(m[1]) {
		return nil, false
	}
	return [][2]string{{m[1], m[2]}}, true
}

// settingLike reports whether a word is meant as a setting name: a known
// key, or snake_case / kebab-case such as loki_url.
func settingLike(k string) bool {
	if _, ok := config.Lookup(k); ok {
		return true
	}
	return strings.ContainsAny(k, "_-") && !strings.HasPrefix(k, "-") && settingNameRE.MatchString(k)
}

var settingNameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)

func (p *Parsed) add(k, v string) {
	if len(p.Settings)+len(p.Problems) >= maxSettingLines {
		if len(p.Problems) == 0 || p.Problems[len(p.Problems)-1] != "too many settings in one message" {
			p.Problems = append(p.Problems, "too many settings in one message")
		}
		return
	}
	v = unquote(strings.TrimSpace(v))
	name, err := config.Check(k, v)
	if err != nil {
		p.Problems = append(p.Problems, err.Error())
		return
	}
	p.Settings[name] = v
}

// tokens splits on whitespace, keeping "quoted values" (single, double or
// back quotes) together.
func tokens(s string) []string {
	var out []string
	var b strings.Builder
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
				continue
			}
			b.WriteRune(r)
		case r == '"' || r == '\'' || r == '`' || r == '“' || r == '”':
			if r == '“' {
				r = '”'
			}
			quote = r
		case r == ' ' || r == '\t' || r == '\n':
			if b.Len() > 0 {
				out = append(out, b.String())
				b.Reset()
			}
		default:
			b.WriteRune(r)
		}
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}

// unquote strips one pair of surrounding quotes or backticks.
func unquote(v string) string {
	for _, q := range []string{"`", `"`, "'"} {
		if len(v) >= 2 && strings.HasPrefix(v, q) && strings.HasSuffix(v, q) {
			return strings.TrimSpace(v[1 : len(v)-1])
		}
	}
	if len(v) >= 2 && strings.HasPrefix(v, "“") && strings.HasSuffix(v, "”") {
		return strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(v, "“"), "”"))
	}
	return v
}

// unslack undoes Slack's message formatting: link markup becomes the URL
// (or the label for channels and users), and &amp; &lt; &gt; are decoded.
func unslack(s string) string {
	s = slackLinkRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := slackLinkRE.FindStringSubmatch(m)
		target, label := sub[1], sub[2]
		switch {
		case strings.HasPrefix(target, "#"):
			if label != "" {
				return "#" + label
			}
			return target
		case strings.HasPrefix(target, "@"):
			return m // another user: keep the mention as typed
		case strings.HasPrefix(target, "!"):
			return "@" + strings.TrimPrefix(strings.SplitN(target, "^", 2)[0], "!")
		case strings.HasPrefix(target, "mailto:"):
			return strings.TrimPrefix(target, "mailto:")
		}
		return target
	})
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(s)
}

func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
