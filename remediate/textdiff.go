package remediate

import (
	"fmt"
	"strings"
)

// diffContext is the number of context lines around each change.
const diffContext = 3

// maxDiffEdits bounds the Myers search; past it the changed middle is shown
// as one replacement.
const maxDiffEdits = 4000

// UnifiedDiff renders the line diff from old to new content of path as a
// unified diff with three lines of context ("" when they are equal). Lines
// are compared without their terminators; a missing final newline is marked
// as git does.
func UnifiedDiff(path string, old, new []byte) string {
	if string(old) == string(new) {
		return ""
	}
	a, b := splitLines(old), splitLines(new)
	ops := lineOps(compareKeys(a), compareKeys(b))
	if !hasEdits(ops) {
		return "" // only terminators (CRLF vs LF) differ; not shown
	}
	var sb strings.Builder
	oldName, newName := "a/"+path, "b/"+path
	if len(old) == 0 {
		oldName = devNull
	}
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", oldName, newName)
	for _, h := range groupHunks(ops) {
		oldStart, newStart, oldN, newN := -1, -1, 0, 0
		for _, op := range h {
			if op.kind != '+' {
				if oldStart < 0 {
					oldStart = op.ai
				}
				oldN++
			}
			if op.kind != '-' {
				if newStart < 0 {
					newStart = op.bi
				}
				newN++
			}
		}
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(oldStart, oldN, h, true), hunkRange(newStart, newN, h, false))
		for _, op := range h {
			var text string
			var noEOL bool
			switch op.kind {
			case ' ', '-':
				text, noEOL = a.text[op.ai], a.eol[op.ai] == ""
			case '+':
				text, noEOL = b.text[op.bi], b.eol[op.bi] == ""
			}
			sb.WriteByte(op.kind)
			sb.WriteString(text)
			sb.WriteByte('\n')
			if noEOL {
				sb.WriteString("\\ No newline at end of file\n")
			}
		}
	}
	return sb.String()
}

// compareKeys are the lines as the diff compares them: a last line without
// a newline differs from the same text with one.
func compareKeys(fl fileLines) []string {
	keys := append([]string(nil), fl.text...)
	if n := len(keys); n > 0 && fl.eol[n-1] == "" {
		keys[n-1] += "\x00"
	}
	return keys
}

// hunkRange renders a hunk side's range; an empty side names the line
// before it, as diff does.
func hunkRange(start, n int, h []diffOp, old bool) string {
	if n == 0 {
		// the line before the hunk on this side
		for _, op := range h {
			if old && op.kind == '+' {
				return fmt.Sprintf("%d,0", op.ai)
			}
			if !old && op.kind == '-' {
				return fmt.Sprintf("%d,0", op.bi)
			}
		}
		return "0,0"
	}
	return rangeStr(start+1, n)
}

// diffOp is one line of an edit script: ai/bi index the old/new line; for
// '+' ai is the number of old lines before it, for '-' bi likewise.
type diffOp struct {
	kind   byte
	ai, bi int
}

func hasEdits(ops []diffOp) bool {
	for _, op := range ops {
		if op.kind != ' ' {
			return true
		}
	}
	return false
}

// lineOps returns an edit script from a to b: common prefix and suffix are
// trimmed, the middle is diffed with Myers' algorithm.
func lineOps(a, b []string) []diffOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []diffOp
	for i := 0; i < pre; i++ {
		ops = append(ops, diffOp{' ', i, i})
	}
	ops = append(ops, myers(a[pre:len(a)-suf], b[pre:len(b)-suf], pre, pre)...)
	for i := 0; i < suf; i++ {
		ai, bi := len(a)-suf+i, len(b)-suf+i
		ops = append(ops, diffOp{' ', ai, bi})
	}
	return ops
}

// myers diffs a and b (offsets ao, bo into the full files).
func myers(a, b []string, ao, bo int) []diffOp {
	n, m := len(a), len(b)
	replace := func() []diffOp {
		ops := make([]diffOp, 0, n+m)
		for i := range a {
			ops = append(ops, diffOp{'-', ao + i, bo})
		}
		for j := range b {
			ops = append(ops, diffOp{'+', ao + n, bo + j})
		}
		return ops
	}
	if n == 0 || m == 0 {
		return replace()
	}
	limit := min(n+m, maxDiffEdits)
	off := limit + 1
	v := make([]int, 2*limit+3)
	var trace [][]int
	found := false
	for d := 0; d <= limit && !found; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = true
				break
			}
		}
		trace = append(trace, append([]int(nil), v...))
	}
	if !found {
		return replace()
	}
	// Backtrack from (n, m).
	var rev []diffOp
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		pv := trace[d-1]
		k := x - y
		var pk int
		if k == -d || (k != d && pv[off+k-1] < pv[off+k+1]) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := pv[off+pk]
		py := px - pk
		for x > px && y > py {
			x--
			y--
			rev = append(rev, diffOp{' ', ao + x, bo + y})
		}
		if x == px {
			y--
			rev = append(rev, diffOp{'+', ao + x, bo + y})
		} else {
			x--
			rev = append(rev, diffOp{'-', ao + x, bo + y})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, diffOp{' ', ao + x, bo + y})
	}
	ops := make([]diffOp, len(rev))
	for i := range rev {
		ops[i] = rev[len(rev)-1-i]
	}
	return ops
}

// groupHunks cuts an edit script into hunks with diffContext lines of
// context, merging changes that are close together.
func groupHunks(ops []diffOp) [][]diffOp {
	var hunks [][]diffOp
	i := 0
	for i < len(ops) {
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i == len(ops) {
			break
		}
		start := max(i-diffContext, 0)
		end := i
		for {
			for end < len(ops) && ops[end].kind != ' ' {
				end++
			}
			run := 0
			for end+run < len(ops) && ops[end+run].kind == ' ' {
				run++
			}
			if end+run < len(ops) && run <= 2*diffContext {
				end += run
				continue
			}
			end += min(run, diffContext)
			break
		}
		hunks = append(hunks, ops[start:end])
		i = end
	}
	return hunks
}
