package github

import (
	"bytes"
	"fmt"
	"strings"
)

const (
	// diffContext is the number of unchanged lines around each hunk, as git uses.
	diffContext = 3
	// maxDiffCells bounds the LCS table; larger changes are shown as a whole
	// replacement, which is still a valid patch.
	maxDiffCells = 4_000_000
	// maxPatchBytes mirrors GitHub dropping the patch of very large diffs.
	maxPatchBytes = 1 << 20
)

// noEOLMark tags a last line that lacks its newline; binary content (the
// only content that may hold NUL) never reaches the line diff.
const noEOLMark = "\x00noeol"

type diffOp struct {
	kind byte // ' ', '-', '+'
	line string
}

// splitLines splits text into lines without their terminators and reports
// whether the last line lacked a newline.
func splitLines(b []byte) (lines []string, noEOL bool) {
	if len(b) == 0 {
		return nil, false
	}
	s := string(b)
	noEOL = !strings.HasSuffix(s, "\n")
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n"), noEOL
}

func isBinary(b []byte) bool {
	n := len(b)
	if n > 8000 {
		n = 8000
	}
	return bytes.IndexByte(b[:n], 0) >= 0
}

// lineOps returns the edit script turning a into b.
func lineOps(a, b []string) []diffOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ops := make([]diffOp, 0, len(a)+len(b))
	for _, l := range a[:pre] {
		ops = append(ops, diffOp{' ', l})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(ma)*len(mb) > maxDiffCells {
		for _, l := range ma {
			ops = append(ops, diffOp{'-', l})
		}
		for _, l := range mb {
			ops = append(ops, diffOp{'+', l})
		}
	} else {
		ops = append(ops, lcsOps(ma, mb)...)
	}
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, diffOp{' ', l})
	}
	return ops
}

// lcsOps is the textbook longest-common-subsequence diff; inputs are small
// after prefix and suffix trimming.
func lcsOps(a, b []string) []diffOp {
	n, m := len(a), len(b)
	// dp[i][j] = LCS length of a[i:] and b[j:]
	dp := make([][]int32, n+1)
	for i := range dp {
		dp[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	ops := make([]diffOp, 0, n+m)
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i]})
			i++
			j++
		case dp[i+1][j] >= dp[i][j+1]:
			ops = append(ops, diffOp{'-', a[i]})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		ops = append(ops, diffOp{'-', a[i]})
	}
	for ; j < m; j++ {
		ops = append(ops, diffOp{'+', b[j]})
	}
	return ops
}

// hunkRange formats one side of a hunk header the way git does.
func hunkRange(start, count int) string {
	if count == 1 {
		return fmt.Sprintf("%d", start)
	}
	if count == 0 {
		// An empty range names the line before it.
		return fmt.Sprintf("%d,0", start-1)
	}
	return fmt.Sprintf("%d,%d", start, count)
}

// funcContext is git's default hunk-header context: the nearest line before
// the hunk (0-based index before) that starts with a letter, '_' or '$',
// cut to 80 bytes and right-trimmed.
func funcContext(lines []string, before int) string {
	for i := min(before, len(lines)) - 1; i >= 0; i-- {
		l := strings.TrimSuffix(lines[i], noEOLMark)
		if l == "" {
			continue
		}
		c := l[0]
		if (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' {
			if len(l) > 80 {
				l = l[:80]
			}
			return strings.TrimRight(l, " \t\r")
		}
	}
	return ""
}

// unifiedDiff returns the hunks of a unified diff between two file versions
// (the content of GitHub's files[].patch, without file headers), and the
// number of added and deleted lines. Binary content yields an empty patch.
func unifiedDiff(oldB, newB []byte) (patch string, additions, deletions int) {
	if isBinary(oldB) || isBinary(newB) {
		return "", 0, 0
	}
	a, aNoEOL := splitLines(oldB)
	b, bNoEOL := splitLines(newB)
	// A last line without newline differs from the same text with one, as in git.
	if aNoEOL {
		a[len(a)-1] += noEOLMark
	}
	if bNoEOL {
		b[len(b)-1] += noEOLMark
	}
	ops := lineOps(a, b)
	for _, op := range ops {
		switch op.kind {
		case '+':
			additions++
		case '-':
			deletions++
		}
	}
	if additions == 0 && deletions == 0 {
		return "", 0, 0
	}

	var buf strings.Builder
	// Line numbers (1-based) of each op on both sides.
	oldNo, newNo := make([]int, len(ops)), make([]int, len(ops))
	on, nn := 1, 1
	for k, op := range ops {
		oldNo[k], newNo[k] = on, nn
		if op.kind != '+' {
			on++
		}
		if op.kind != '-' {
			nn++
		}
	}
	k := 0
	for k < len(ops) {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		start := max(k-diffContext, 0)
		end := k
		// Extend the hunk while the next change is within 2*context lines.
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*diffContext {
				end = min(end+diffContext, len(ops))
				break
			}
			end = run
		}
		oldCount, newCount := 0, 0
		for _, op := range ops[start:end] {
			if op.kind != '+' {
				oldCount++
			}
			if op.kind != '-' {
				newCount++
			}
		}
		oldStart, newStart := oldNo[start], newNo[start]
		fmt.Fprintf(&buf, "@@ -%s +%s @@", hunkRange(oldStart, oldCount), hunkRange(newStart, newCount))
		if fn := funcContext(a, oldStart-1); fn != "" {
			buf.WriteString(" " + fn)
		}
		buf.WriteByte('\n')
		for idx := start; idx < end; idx++ {
			op := ops[idx]
			line, noEOL := strings.CutSuffix(op.line, noEOLMark)
			buf.WriteByte(op.kind)
			buf.WriteString(line)
			buf.WriteByte('\n')
			if noEOL {
				buf.WriteString("\\ No newline at end of file\n")
			}
		}
		k = end
	}
	patch = strings.TrimSuffix(buf.String(), "\n")
	if len(patch) > maxPatchBytes {
		patch = ""
	}
	return patch, additions, deletions
}
