package render

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// ellipsis marks every truncation so readers know text was cut.
const ellipsis = "…"

// textLen counts s in UTF-16 code units: at least as many as Slack counts.
func textLen(s string) int {
	n := 0
	for _, r := range s {
		if l := utf16.RuneLen(r); l > 0 {
			n += l
		} else {
			n++
		}
	}
	return n
}

var mrkdwnEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// Escape makes user-provided text safe for mrkdwn: &, < and > are Slack's
// control characters (links, mentions, @channel), so they are sent as HTML
// entities. Only these three are escaped, as Slack's formatting guide asks.
func Escape(s string) string { return mrkdwnEscaper.Replace(s) }

// clean drops characters that have no business in a chat message: C0/C1
// control characters other than newline and tab, and bidirectional overrides
// that could make displayed text differ from what it says.
func clean(s string) string {
	if s == "" {
		return s
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r == '\r':
			return -1
		case unicode.IsControl(r):
			return -1
		case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F:
			return -1
		}
		return r
	}, s)
}

// bound cuts s to its first n runes, marking the cut with an ellipsis, so
// that helpers whose output is short anyway never process megabytes.
func bound(s string, n int) string {
	if len(s) <= n {
		return s // n bytes hold at most n runes
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + ellipsis
		}
		i++
	}
	return s
}

// boundTail keeps the last n runes of s, marking the cut, for text whose end
// matters (file paths).
func boundTail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	rs := 0
	for i := len(s); i > 0; {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
		rs++
		if rs == n {
			return ellipsis + s[i:]
		}
	}
	return s
}

// boundFor is the input size worth looking at for an output of max units:
// generous enough for collapsed whitespace and dropped control characters.
func boundFor(max int) int { return 2*max + 64 }

// oneLine cleans s and collapses all whitespace runs (newlines included) into
// single spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(clean(s)), " ")
}

// truncate cuts raw (unescaped) text to at most max UTF-16 units, ending with
// an ellipsis when anything was removed. Use it for plain_text objects.
func truncate(s string, max int) string {
	if max <= 0 {
		return ""
	}
	if textLen(s) <= max {
		return s
	}
	limit := max - textLen(ellipsis)
	var b strings.Builder
	n := 0
	for _, r := range s {
		l := utf16.RuneLen(r)
		if l < 0 {
			l = 1
		}
		if n+l > limit {
			break
		}
		b.WriteRune(r)
		n += l
	}
	return strings.TrimRightFunc(b.String(), unicode.IsSpace) + ellipsis
}

// esc cleans, escapes and truncates user text for mrkdwn so that the result
// is at most max UTF-16 units and never ends inside an HTML entity.
func esc(s string, max int) string {
	return escRaw(clean(bound(s, boundFor(max))), max)
}

// escLine is esc on a single line.
func escLine(s string, max int) string {
	return escRaw(oneLine(bound(s, boundFor(max))), max)
}

func escRaw(s string, max int) string {
	if max <= 0 {
		return ""
	}
	full := Escape(s)
	if textLen(full) <= max {
		return full
	}
	limit := max - textLen(ellipsis)
	var b strings.Builder
	n := 0
	for _, r := range s {
		piece := string(r)
		switch r {
		case '&':
			piece = "&amp;"
		case '<':
			piece = "&lt;"
		case '>':
			piece = "&gt;"
		}
		l := textLen(piece)
		if n+l > limit {
			break
		}
		b.WriteString(piece)
		n += l
	}
	return strings.TrimRightFunc(b.String(), unicode.IsSpace) + ellipsis
}

// plain prepares user text for a plain_text object: cleaned, one line,
// truncated. plain_text is not parsed for mrkdwn, so it is not escaped.
func plain(s string, max int) string {
	return truncate(oneLine(bound(s, boundFor(max))), max)
}

// inlineCode renders s as `code` on one line within max units (backticks
// included). Backticks inside would end the span, so they become ˋ.
func inlineCode(s string, max int) string {
	s = strings.ReplaceAll(oneLine(bound(s, boundFor(max))), "`", "ˋ")
	if s == "" || max < 3 {
		return ""
	}
	return "`" + escRaw(s, max-2) + "`"
}

// codeFence opens and closes a preformatted block.
const codeFence = "```"

// codeBody prepares multi-line text for a code block: cleaned, escaped, and
// with triple backticks broken up so the fence cannot be closed early.
func codeBody(s string) string {
	s = strings.ReplaceAll(clean(s), codeFence, "`\u200b`\u200b`")
	return Escape(s)
}

// codeBlock renders s as a preformatted block within max units, truncated
// with a marker line when it does not fit.
func codeBlock(s string, max int) string {
	s = bound(s, boundFor(max))
	chunks := splitCode(s, max)
	if len(chunks) == 0 {
		return ""
	}
	if len(chunks) == 1 {
		return chunks[0]
	}
	// Re-cut the first chunk to leave room for the marker.
	first := splitCode(s, max-textLen("\n"+ellipsis+" (truncated)"))
	if len(first) == 0 {
		return ""
	}
	body := strings.TrimSuffix(first[0], "\n"+codeFence)
	return body + "\n" + ellipsis + " (truncated)\n" + codeFence
}

// splitCode splits multi-line text into code blocks of at most max units
// each (fences included), breaking between lines where possible and inside
// over-long lines only at entity boundaries.
func splitCode(s string, max int) []string {
	overhead := textLen(codeFence+"\n") + textLen("\n"+codeFence)
	room := max - overhead
	if room < 8 || strings.TrimSpace(s) == "" {
		return nil
	}
	var chunks []string
	var cur []string
	curLen := 0
	flush := func() {
		if len(cur) == 0 {
			return
		}
		chunks = append(chunks, codeFence+"\n"+strings.Join(cur, "\n")+"\n"+codeFence)
		cur, curLen = nil, 0
	}
	for _, line := range strings.Split(strings.TrimRight(clean(s), "\n"), "\n") {
		for _, piece := range splitEscaped(line, room) {
			l := textLen(piece)
			sep := 0
			if len(cur) > 0 {
				sep = 1
			}
			if curLen+sep+l > room {
				flush()
				sep = 0
			}
			cur = append(cur, piece)
			curLen += sep + l
		}
	}
	flush()
	return chunks
}

// splitEscaped escapes one line for a code block and splits it into pieces of
// at most room units without cutting an entity in half.
func splitEscaped(line string, room int) []string {
	body := codeBody(line)
	if textLen(body) <= room {
		return []string{body}
	}
	var out []string
	var b strings.Builder
	n := 0
	for i := 0; i < len(body); {
		tok, size := nextToken(body[i:])
		l := textLen(tok)
		if n+l > room && n > 0 {
			out = append(out, b.String())
			b.Reset()
			n = 0
		}
		b.WriteString(tok)
		n += l
		i += size
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}

// nextToken returns the first rune of s, or a whole HTML entity or <…>
// control sequence (link, mention) when s starts with one, so that cutting
// between tokens never leaves half an escape behind.
func nextToken(s string) (string, int) {
	for _, ent := range [...]string{"&amp;", "&lt;", "&gt;"} {
		if strings.HasPrefix(s, ent) {
			return ent, len(ent)
		}
	}
	if strings.HasPrefix(s, "<") {
		if end := strings.IndexByte(s, '>'); end > 0 {
			return s[:end+1], end + 1
		}
	}
	_, size := utf8.DecodeRuneInString(s)
	return s[:size], size
}

// packLines joins mrkdwn lines into texts of at most max units each, never
// splitting a line (lines must already fit max).
func packLines(lines []string, max int) []string {
	var out []string
	var b strings.Builder
	n := 0
	for _, line := range lines {
		l := textLen(line)
		if l > max {
			line = truncateMrkdwn(line, max)
			l = textLen(line)
		}
		sep := 0
		if n > 0 {
			sep = 1
		}
		if n+sep+l > max {
			out = append(out, b.String())
			b.Reset()
			n, sep = 0, 0
		}
		if sep == 1 {
			b.WriteByte('\n')
		}
		b.WriteString(line)
		n += sep + l
	}
	if n > 0 {
		out = append(out, b.String())
	}
	return out
}

// truncateMrkdwn cuts already-escaped mrkdwn at an entity boundary. It is a
// safety net for lines built from several escaped parts.
func truncateMrkdwn(s string, max int) string {
	if textLen(s) <= max {
		return s
	}
	limit := max - textLen(ellipsis)
	var b strings.Builder
	n := 0
	for i := 0; i < len(s); {
		tok, size := nextToken(s[i:])
		l := textLen(tok)
		if n+l > limit {
			break
		}
		b.WriteString(tok)
		n += l
		i += size
	}
	return b.String() + ellipsis
}

// plural returns "1 thing" or "n things".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
