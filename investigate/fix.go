package investigate

import (
	"fmt"
	"math"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// UnifiedDiff renders a one-hunk unified diff replacing lines [from,to]
// (1-based, inclusive) of old with repl, with three lines of context.
func UnifiedDiff(file string, old []string, from, to int, repl []string) string {
	const ctx = 3
	start := max(1, from-ctx)
	end := min(len(old), to+ctx)
	var b strings.Builder
	fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", file, file)
	oldCount := end - start + 1
	newCount := oldCount - (to - from + 1) + len(repl)
	fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", start, oldCount, start, newCount)
	for i := start; i < from; i++ {
		b.WriteString(" " + old[i-1] + "\n")
	}
	for i := from; i <= to; i++ {
		b.WriteString("-" + old[i-1] + "\n")
	}
	for _, l := range repl {
		b.WriteString("+" + l + "\n")
	}
	for i := to + 1; i <= end; i++ {
		b.WriteString(" " + old[i-1] + "\n")
	}
	return b.String()
}

func indentOf(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

// insideLoop reports whether line i (0-based) sits in a loop body, judged by
// the nearest enclosing block opener above it.
func insideLoop(lines []string, i int) bool {
	depth := 0
	for j := i - 1; j >= 0 && j >= i-40; j-- {
		l := lines[j]
		depth += strings.Count(l, "}") - strings.Count(l, "{")
		if depth < 0 {
			t := strings.TrimSpace(l)
			if strings.HasPrefix(t, "for ") || strings.HasPrefix(t, "for(") || strings.HasPrefix(t, "while ") || strings.HasPrefix(t, "while(") || strings.Contains(t, ".forEach(") {
				return true
			}
			depth = 0 // keep looking outwards: nested ifs inside a loop
		}
	}
	return false
}

var (
	javaMapGetChainRE = regexp.MustCompile(`^(\s*)([\w<>\[\],.? ]+?)\s+(\w+)\s*=\s*(.+?)\.get\((.+?)\)\.(\w+\(.*\))\s*;\s*$`)
	helpfulNPERE      = regexp.MustCompile(`because (?:the return value of )?"([^"]+)" is null`)
	jsReadPropRE      = regexp.MustCompile(`Cannot read propert(?:y|ies) of (?:undefined|null) \(reading '([^']+)'\)|Cannot read property '([^']+)' of (?:undefined|null)`)
	pyNoneAttrRE      = regexp.MustCompile(`'NoneType' object has no attribute '(\w+)'`)
	aliasTableRE      = regexp.MustCompile(`(?i)alias|synonym|rename|canonical|normali[sz]`)
)

// codeFix proposes a patch for a code bug at file:line given the source
// window and the evidence. It returns nil when no safe mechanical change is
// known; the prose fix still applies.
func codeFix(file string, lines []string, line int, et ErrorType, quote, exception string, col int) (*Patch, string) {
	if line < 1 || line > len(lines) {
		return nil, ""
	}
	src := lines[line-1]
	ext := path.Ext(file)
	switch {
	case et == ErrNullPointer && (ext == ".java" || ext == ".kt"):
		if m := javaMapGetChainRE.FindStringSubmatch(src); m != nil && ext == ".java" {
			ind, typ, v, mapExpr, key, call := m[1], strings.TrimSpace(m[2]), m[3], m[4], m[5], m[6]
			tmp := "mapped" + strings.ToUpper(v[:1]) + v[1:]
			// A String-to-String lookup table named as one (aliases, synonyms,
			// renames) falls back to the key itself: canonical keys have no entry.
			if typ == "String" && aliasTableRE.MatchString(mapExpr) {
				fixed := fmt.Sprintf("%s%s %s = %s.getOrDefault(%s, %s).%s;", ind, typ, v, mapExpr, key, key, call)
				return &Patch{File: file, Diff: UnifiedDiff(file, lines, line, line, []string{fixed}),
						Explanation: fmt.Sprintf("%s only lists alternative spellings; keys without an entry are already canonical, so fall back to the key instead of dereferencing null.", mapExpr)},
					fmt.Sprintf("`%s.get(%s)` returns null for keys that have no entry (canonical names are not in the table), and `.%s` is then called on null. Fall back to the key: `%s.getOrDefault(%s, %s)` (or check `containsKey`).", mapExpr, key, call, mapExpr, key, key)
			}
			if insideLoop(lines, line-1) {
				repl := []string{
					fmt.Sprintf("%s%s %s = %s.get(%s);", ind, typ, tmp, mapExpr, key),
					fmt.Sprintf("%sif (%s == null) {", ind, tmp),
					fmt.Sprintf("%s  continue; // no mapping for this key: skip it instead of failing the request", ind),
					fmt.Sprintf("%s}", ind),
					fmt.Sprintf("%s%s %s = %s.%s;", ind, typ, v, tmp, call),
				}
				return &Patch{File: file, Diff: UnifiedDiff(file, lines, line, line, repl),
						Explanation: fmt.Sprintf("%s.get(...) returns null for keys without an entry; check for null (or use getOrDefault/containsKey) before calling %s.", mapExpr, strings.SplitN(call, "(", 2)[0])},
					fmt.Sprintf("`%s.get(%s)` returns null when the key has no entry, and `.%s` is then called on null. Handle the missing entry (null check, `getOrDefault` or `containsKey`) instead of dereferencing it.", mapExpr, key, call)
			}
		}
		if m := helpfulNPERE.FindStringSubmatch(quote); m != nil {
			return nil, fmt.Sprintf("`%s` is null at %s:%d. Add a null check (or a safe default) before dereferencing it, and decide what the request should get when the value is missing.", m[1], path.Base(file), line)
		}
	case et == ErrNullPointer && (ext == ".js" || ext == ".ts" || ext == ".mjs" || ext == ".cjs" || ext == ".tsx" || ext == ".jsx"):
		m := jsReadPropRE.FindStringSubmatch(quote)
		if m == nil {
			break
		}
		prop := m[1] + m[2]
		obj := jsObjectBefore(src, prop, col)
		if obj == "" {
			return nil, fmt.Sprintf("A value is undefined when `.%s` is read at %s:%d. Guard it (optional chaining `?.` with a default) or validate the request before using it.", prop, path.Base(file), line)
		}
		t := strings.TrimSpace(src)
		if strings.HasSuffix(t, ";") && strings.Count(src, "(") == strings.Count(src, ")") && !strings.HasPrefix(t, "return") && !strings.HasPrefix(t, "const ") && !strings.HasPrefix(t, "let ") && !strings.HasPrefix(t, "var ") {
			ind := indentOf(src)
			repl := []string{ind + "if (" + obj + ") {", "  " + src, ind + "}"}
			return &Patch{File: file, Diff: UnifiedDiff(file, lines, line, line, repl),
					Explanation: fmt.Sprintf("%s is optional (undefined for some requests); only use it when it is set.", obj)},
				fmt.Sprintf("`%s` is undefined for some requests, so reading `.%s` throws. Treat it as optional: guard the statement (or use optional chaining `%s?.%s` with a default).", obj, prop, obj, prop)
		}
		fixed := strings.Replace(src, obj+"."+prop, obj+"?."+prop, 1)
		if fixed != src {
			return &Patch{File: file, Diff: UnifiedDiff(file, lines, line, line, []string{fixed}),
					Explanation: fmt.Sprintf("Use optional chaining: %s may be undefined.", obj)},
				fmt.Sprintf("`%s` is undefined for some requests, so reading `.%s` throws. Use optional chaining (`%s?.%s`) with a sensible default, or validate the request earlier.", obj, prop, obj, prop)
		}
	case et == ErrNullPointer && ext == ".py":
		m := pyNoneAttrRE.FindStringSubmatch(quote)
		if m == nil {
			break
		}
		return nil, fmt.Sprintf("A value is None when `.%s` is accessed at %s:%d. Check for None (or return early) before using it.", m[1], path.Base(file), line)
	}
	return nil, ""
}

// jsObjectBefore finds the member expression whose property prop is read at
// (or near) column col: for "request.shippingCost.units" and prop "units"
// it returns "request.shippingCost".
func jsObjectBefore(src, prop string, col int) string {
	re := regexp.MustCompile(`([A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*|\[[^\]]+\])*)\.` + regexp.QuoteMeta(prop) + `\b`)
	ms := re.FindAllStringSubmatchIndex(src, -1)
	if len(ms) == 0 {
		return ""
	}
	best := ms[0]
	if col > 0 {
		bestDist := math.MaxInt
		for _, m := range ms {
			d := abs(m[1] - col)
			if d < bestDist {
				best, bestDist = m, d
			}
		}
	}
	return src[best[2]:best[3]]
}

// nextMemory proposes a larger memory quantity: at least 1.5x the observed
// peak (or 2x the limit when the peak is unknown), rounded up to a power of
// two in Mi.
func nextMemory(limit string, peakBytes float64) string {
	cur := parseQuantity(limit)
	if cur <= 0 {
		return ""
	}
	target := cur * 2
	if peakBytes > 0 {
		target = math.Max(peakBytes*1.5, cur*1.5)
	}
	mi := math.Ceil(target / (1 << 20))
	p := math.Pow(2, math.Ceil(math.Log2(mi)))
	if p >= 1024 && math.Mod(p, 1024) == 0 {
		return fmt.Sprintf("%.0fGi", p/1024)
	}
	return fmt.Sprintf("%.0fMi", p)
}

// nextCPU proposes twice the CPU limit ("500m" -> "1", "2" -> "4"): a
// throttled burst needs headroom, not the average.
func nextCPU(limit string) string {
	v := strings.Trim(strings.TrimSpace(limit), `"'`)
	cores := 0.0
	if strings.HasSuffix(v, "m") {
		m, err := strconv.ParseFloat(strings.TrimSuffix(v, "m"), 64)
		if err != nil || m <= 0 {
			return ""
		}
		cores = m / 1000
	} else {
		c, err := strconv.ParseFloat(v, 64)
		if err != nil || c <= 0 {
			return ""
		}
		cores = c
	}
	next := cores * 2
	if next < 1 || next != math.Trunc(next) {
		return fmt.Sprintf("%.0fm", next*1000)
	}
	return fmt.Sprintf("%.0f", next)
}

// nextReplicas proposes a larger replica ceiling: twice the current one.
func nextReplicas(max string) string {
	n, err := strconv.Atoi(strings.Trim(strings.TrimSpace(max), `"'`))
	if err != nil || n <= 0 {
		return ""
	}
	return strconv.Itoa(n * 2)
}

var quantityRE = regexp.MustCompile(`^(\d+(?:\.\d+)?)([KMGT]i?|[kmgt]|e\d+)?$`)

// parseQuantity parses a Kubernetes memory quantity into bytes.
func parseQuantity(q string) float64 {
	m := quantityRE.FindStringSubmatch(strings.Trim(strings.TrimSpace(q), `"'`))
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	mult := map[string]float64{"": 1, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "K": 1e3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
	if f, ok := mult[m[2]]; ok {
		return v * f
	}
	return v
}
