package remediate

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Limits on diffs accepted from a result.
const (
	maxDiffBytes = 1 << 20
	maxHunks     = 500
)

// HunkLine is one line of a hunk: Op is ' ' (context), '-' (removed) or
// '+' (added); Text has no line terminator.
type HunkLine struct {
	Op   byte
	Text string
}

// Hunk is one @@ section of a unified diff.
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	Section            string // text after the second @@, if any
	Lines              []HunkLine
	// OldNoEOL / NewNoEOL: the last old (new) line has no final newline
	// ("\ No newline at end of file").
	OldNoEOL, NewNoEOL bool
}

// Header renders the hunk's @@ line.
func (h Hunk) Header() string {
	return fmt.Sprintf("@@ -%s +%s @@", rangeStr(h.OldStart, h.OldLines), rangeStr(h.NewStart, h.NewLines))
}

func rangeStr(start, n int) string {
	if n == 1 {
		return strconv.Itoa(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// FileDiff is the diff of one file.
type FileDiff struct {
	OldName, NewName string // without a/ b/ prefixes; "/dev/null" for creations and deletions
	Hunks            []Hunk
}

// Path is the file the diff changes (the new name, or the old one for a deletion).
func (f FileDiff) Path() string {
	if f.NewName != "" && f.NewName != devNull {
		return f.NewName
	}
	return f.OldName
}

const devNull = "/dev/null"

// ErrMalformedDiff is returned for text that is not a well-formed unified diff.
var ErrMalformedDiff = errors.New("malformed unified diff")

// ParseUnifiedDiff parses a unified diff (optionally with git headers) into
// one FileDiff per file. It is strict: hunk line counts must match their
// headers, and anything but headers, hunks and blank lines is an error.
func ParseUnifiedDiff(diff string) ([]FileDiff, error) {
	if len(diff) > maxDiffBytes {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrMalformedDiff, maxDiffBytes)
	}
	lines := strings.Split(diff, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var files []FileDiff
	var cur *FileDiff
	hunks := 0
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSuffix(lines[i], "\r")
		switch {
		case strings.HasPrefix(line, "diff "), strings.HasPrefix(line, "index "),
			strings.HasPrefix(line, "new file mode"), strings.HasPrefix(line, "deleted file mode"),
			strings.HasPrefix(line, "old mode"), strings.HasPrefix(line, "new mode"),
			strings.HasPrefix(line, "similarity index"), strings.HasPrefix(line, "rename "):
			// git extended headers carry nothing the applier needs
		case strings.HasPrefix(line, "--- "):
			if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "+++ ") {
				return nil, fmt.Errorf("%w: line %d: '---' header without a '+++' header", ErrMalformedDiff, i+1)
			}
			files = append(files, FileDiff{
				OldName: headerName(line[4:], "a/"),
				NewName: headerName(strings.TrimSuffix(lines[i+1], "\r")[4:], "b/"),
			})
			cur = &files[len(files)-1]
			i++
		case strings.HasPrefix(line, "@@"):
			if cur == nil { // a bare hunk list: the caller knows the file
				files = append(files, FileDiff{})
				cur = &files[len(files)-1]
			}
			h, next, err := parseHunk(lines, i)
			if err != nil {
				return nil, err
			}
			hunks++
			if hunks > maxHunks {
				return nil, fmt.Errorf("%w: more than %d hunks", ErrMalformedDiff, maxHunks)
			}
			cur.Hunks = append(cur.Hunks, h)
			i = next - 1
		case strings.TrimSpace(line) == "":
		default:
			if cur == nil && len(files) == 0 {
				continue // leading prose (a commit message, "Index:" lines)
			}
			return nil, fmt.Errorf("%w: line %d: unexpected %q", ErrMalformedDiff, i+1, clip(line, 60))
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%w: no hunks", ErrMalformedDiff)
	}
	for _, f := range files {
		if len(f.Hunks) == 0 {
			return nil, fmt.Errorf("%w: %s has no hunks", ErrMalformedDiff, f.Path())
		}
	}
	return files, nil
}

// headerName strips the timestamp and the a/ or b/ prefix of a ---/+++ name.
func headerName(s, prefix string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if s == devNull {
		return s
	}
	return strings.TrimPrefix(s, prefix)
}

// parseHunk parses the hunk starting at lines[at] and returns the index of
// the first line after it.
func parseHunk(lines []string, at int) (Hunk, int, error) {
	hdr := strings.TrimSuffix(lines[at], "\r")
	h, err := parseHunkHeader(hdr)
	if err != nil {
		return Hunk{}, 0, fmt.Errorf("%w: line %d: %v", ErrMalformedDiff, at+1, err)
	}
	oldLeft, newLeft := h.OldLines, h.NewLines
	i := at + 1
	var last byte
	for ; i < len(lines) && (oldLeft > 0 || newLeft > 0); i++ {
		raw := strings.TrimSuffix(lines[i], "\r")
		if raw == "" {
			// Tools that strip trailing whitespace turn a blank context line
			// into an empty line; GNU patch reads it as context.
			raw = " "
		}
		op, text := raw[0], raw[1:]
		switch op {
		case ' ':
			oldLeft--
			newLeft--
		case '-':
			oldLeft--
		case '+':
			newLeft--
		case '\\':
			if err := markNoEOL(&h, last); err != nil {
				return Hunk{}, 0, fmt.Errorf("%w: line %d: %v", ErrMalformedDiff, i+1, err)
			}
			continue
		default:
			return Hunk{}, 0, fmt.Errorf("%w: line %d: hunk %s ends early (%d old and %d new lines missing)",
				ErrMalformedDiff, i+1, h.Header(), max(oldLeft, 0), max(newLeft, 0))
		}
		if oldLeft < 0 || newLeft < 0 {
			return Hunk{}, 0, fmt.Errorf("%w: line %d: hunk %s has more lines than its header says", ErrMalformedDiff, i+1, h.Header())
		}
		h.Lines = append(h.Lines, HunkLine{Op: op, Text: text})
		last = op
	}
	if oldLeft > 0 || newLeft > 0 {
		return Hunk{}, 0, fmt.Errorf("%w: hunk %s is truncated (%d old and %d new lines missing)",
			ErrMalformedDiff, h.Header(), oldLeft, newLeft)
	}
	if i < len(lines) && strings.HasPrefix(lines[i], `\`) {
		if err := markNoEOL(&h, last); err != nil {
			return Hunk{}, 0, fmt.Errorf("%w: line %d: %v", ErrMalformedDiff, i+1, err)
		}
		i++
	}
	if len(h.Lines) == 0 {
		return Hunk{}, 0, fmt.Errorf("%w: hunk %s is empty", ErrMalformedDiff, h.Header())
	}
	return h, i, nil
}

func markNoEOL(h *Hunk, last byte) error {
	switch last {
	case ' ':
		h.OldNoEOL, h.NewNoEOL = true, true
	case '-':
		h.OldNoEOL = true
	case '+':
		h.NewNoEOL = true
	default:
		return errors.New(`"\ No newline at end of file" without a preceding line`)
	}
	return nil
}

func parseHunkHeader(s string) (Hunk, error) {
	rest, ok := strings.CutPrefix(s, "@@ -")
	if !ok {
		return Hunk{}, fmt.Errorf("bad hunk header %q", clip(s, 60))
	}
	end := strings.Index(rest, " @@")
	if end < 0 {
		return Hunk{}, fmt.Errorf("bad hunk header %q", clip(s, 60))
	}
	oldR, newR, ok := strings.Cut(rest[:end], " +")
	if !ok {
		return Hunk{}, fmt.Errorf("bad hunk header %q", clip(s, 60))
	}
	var h Hunk
	var err error
	if h.OldStart, h.OldLines, err = parseRange(oldR); err != nil {
		return Hunk{}, fmt.Errorf("bad hunk header %q: %v", clip(s, 60), err)
	}
	if h.NewStart, h.NewLines, err = parseRange(newR); err != nil {
		return Hunk{}, fmt.Errorf("bad hunk header %q: %v", clip(s, 60), err)
	}
	h.Section = strings.TrimSpace(rest[end+3:])
	return h, nil
}

func parseRange(r string) (start, n int, err error) {
	a, b, hasCount := strings.Cut(r, ",")
	start, err = strconv.Atoi(a)
	if err != nil || start < 0 {
		return 0, 0, fmt.Errorf("bad range %q", r)
	}
	n = 1
	if hasCount {
		if n, err = strconv.Atoi(b); err != nil || n < 0 {
			return 0, 0, fmt.Errorf("bad range %q", r)
		}
	}
	if n > 0 && start == 0 {
		return 0, 0, fmt.Errorf("range %q starts at line 0", r)
	}
	return start, n, nil
}

// ApplyError says why a hunk does not apply.
type ApplyError struct {
	Hunk   int    // 1-based
	Header string // the hunk's @@ line
	Reason string
}

func (e *ApplyError) Error() string {
	return fmt.Sprintf("hunk %d (%s) %s", e.Hunk, e.Header, e.Reason)
}

// fileLines is a file split into lines, each with its own terminator.
type fileLines struct {
	text []string // without terminator
	eol  []string // "\n", "\r\n" or "" (last line without newline)
}

func splitLines(b []byte) fileLines {
	var fl fileLines
	s := string(b)
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			fl.text = append(fl.text, s)
			fl.eol = append(fl.eol, "")
			break
		}
		line, eol := s[:i], "\n"
		if strings.HasSuffix(line, "\r") {
			line, eol = line[:len(line)-1], "\r\n"
		}
		fl.text = append(fl.text, line)
		fl.eol = append(fl.eol, eol)
		s = s[i+1:]
	}
	return fl
}

// dominantEOL is the line terminator most lines of the file use ("\n" by default).
func (fl fileLines) dominantEOL() string {
	crlf, lf := 0, 0
	for _, e := range fl.eol {
		switch e {
		case "\r\n":
			crlf++
		case "\n":
			lf++
		}
	}
	if crlf > lf {
		return "\r\n"
	}
	return "\n"
}

// ApplyHunks applies a file's hunks to content the way GNU patch does with
// fuzz 0: every context and removed line must match exactly (a CR before
// the newline is part of the terminator, not of the line); a hunk may apply
// at an offset from the line its header names, searched outwards from
// there, and hunks apply in order without overlapping. As in GNU patch, a
// hunk of line 1 with less leading than trailing context must apply at the
// start of the file, and one with less trailing than leading context at
// its end. Added lines take the
// file's dominant line terminator.
func ApplyHunks(content []byte, hunks []Hunk) ([]byte, error) {
	fl := splitLines(content)
	eol := fl.dominantEOL()
	var outText, outEOL []string
	next := 0 // first line of fl not yet copied
	offset := 0
	for k, h := range hunks {
		var old []string
		for _, l := range h.Lines {
			if l.Op != '+' {
				old = append(old, l.Text)
			}
		}
		want := h.OldStart - 1 + offset
		if h.OldLines == 0 {
			want = h.OldStart + offset
		}
		lead, trail := contextCounts(h)
		atStart := lead < trail && h.OldStart <= 1
		atEnd := trail < lead
		pos := locate(fl.text, old, want, next, atStart, atEnd)
		if pos < 0 {
			return nil, &ApplyError{Hunk: k + 1, Header: h.Header(), Reason: mismatch(fl.text, old, want, next, atStart, atEnd)}
		}
		if h.OldNoEOL && (pos+len(old) != len(fl.text) || fl.eol[len(fl.text)-1] != "") {
			return nil, &ApplyError{Hunk: k + 1, Header: h.Header(), Reason: "expects the file to end without a newline, but it does not"}
		}
		offset = pos - (want - offset)
		// Copy untouched lines, then the hunk's new side.
		outText = append(outText, fl.text[next:pos]...)
		outEOL = append(outEOL, fl.eol[next:pos]...)
		j := pos
		for _, l := range h.Lines {
			switch l.Op {
			case ' ':
				outText = append(outText, fl.text[j])
				outEOL = append(outEOL, fl.eol[j])
				j++
			case '-':
				j++
			case '+':
				outText = append(outText, l.Text)
				outEOL = append(outEOL, eol)
			}
		}
		next = j
		if h.NewNoEOL && len(outEOL) > 0 {
			if next != len(fl.text) {
				return nil, &ApplyError{Hunk: k + 1, Header: h.Header(), Reason: "removes the final newline but does not end at the end of the file"}
			}
			outEOL[len(outEOL)-1] = ""
		} else if h.OldNoEOL && next == len(fl.text) && len(outEOL) > 0 {
			outEOL[len(outEOL)-1] = eol // the new side ends with a newline
		}
	}
	outText = append(outText, fl.text[next:]...)
	outEOL = append(outEOL, fl.eol[next:]...)
	var b strings.Builder
	for i, t := range outText {
		b.WriteString(t)
		e := outEOL[i]
		if e == "" && i < len(outText)-1 {
			e = eol // a line that was last is no longer last
		}
		b.WriteString(e)
	}
	return []byte(b.String()), nil
}

// Reversed returns the hunk that undoes h: what h adds is removed and
// what it removes is added back.
func (h Hunk) Reversed() Hunk {
	r := Hunk{OldStart: h.NewStart, OldLines: h.NewLines, NewStart: h.OldStart, NewLines: h.OldLines,
		Section: h.Section, OldNoEOL: h.NewNoEOL, NewNoEOL: h.OldNoEOL, Lines: make([]HunkLine, len(h.Lines))}
	for i, l := range h.Lines {
		switch l.Op {
		case '+':
			l.Op = '-'
		case '-':
			l.Op = '+'
		}
		r.Lines[i] = l
	}
	return r
}

// AlreadyApplied reports whether content already carries the hunks'
// change: their reverse applies (GNU patch's "previously applied patch
// detected").
func AlreadyApplied(content []byte, hunks []Hunk) bool {
	rev := make([]Hunk, len(hunks))
	for i, h := range hunks {
		rev[i] = h.Reversed()
	}
	_, err := ApplyHunks(content, rev)
	return err == nil
}

// contextCounts returns the numbers of leading and trailing context lines.
func contextCounts(h Hunk) (lead, trail int) {
	for _, l := range h.Lines {
		if l.Op != ' ' {
			break
		}
		lead++
	}
	if lead == len(h.Lines) {
		return lead, lead
	}
	for i := len(h.Lines) - 1; i >= 0 && h.Lines[i].Op == ' '; i-- {
		trail++
	}
	return lead, trail
}

func matchAt(text, old []string, p int) bool {
	if p < 0 || p+len(old) > len(text) {
		return false
	}
	for i, o := range old {
		if text[p+i] != o {
			return false
		}
	}
	return true
}

// locate finds where old matches in text, trying want first and then
// alternately after and before it, never before min. It returns -1 when
// there is no match.
func locate(text, old []string, want, min int, atStart, atEnd bool) int {
	if atStart {
		if min == 0 && matchAt(text, old, 0) {
			return 0
		}
		return -1
	}
	if atEnd {
		p := len(text) - len(old)
		if p >= min && matchAt(text, old, p) {
			return p
		}
		return -1
	}
	last := len(text) - len(old)
	if want > last {
		want = last
	}
	if want < min {
		want = min
	}
	for d := 0; want-d >= min || want+d <= last; d++ {
		if p := want + d; p <= last && matchAt(text, old, p) {
			return p
		}
		if d > 0 {
			if p := want - d; p >= min && matchAt(text, old, p) {
				return p
			}
		}
	}
	return -1
}

// mismatch explains why old does not match at the position the header names.
func mismatch(text, old []string, want, min int, atStart, atEnd bool) string {
	switch {
	case atStart:
		want = 0
	case atEnd:
		want = max(len(text)-len(old), 0)
	}
	want = max(want, 0)
	where := ""
	switch {
	case atStart:
		where = " (it has less leading than trailing context, so it must apply at the start of the file)"
	case atEnd:
		where = " (it has less trailing than leading context, so it must apply at the end of the file)"
	}
	if want < min {
		return fmt.Sprintf("overlaps the previous hunk%s", where)
	}
	for i, o := range old {
		n := want + i
		if n >= len(text) {
			return fmt.Sprintf("does not match anywhere: it expects line %d to be %q, but the file has only %d lines%s",
				n+1, clip(o, 80), len(text), where)
		}
		if text[n] != o {
			return fmt.Sprintf("does not match anywhere: it expects line %d to be %q, but the file has %q%s",
				n+1, clip(o, 80), clip(text[n], 80), where)
		}
	}
	return "does not match anywhere" + where
}

// clip shortens s to at most n runes, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
