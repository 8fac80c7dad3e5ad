package loki

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"
)

// stream is one indexed log stream.
type stream struct {
	labels  map[string]string
	key     string
	entries []entry // ascending by ts
}

type entry struct {
	ts   int64 // ns
	line string
}

// resultStream is a stream of a log query result.
type resultStream struct {
	labels  map[string]string
	key     string
	entries []entry
}

// execStats are the figures reported in the response "stats".
type execStats struct {
	linesProcessed int
	bytesProcessed int
	entriesOut     int
	started        time.Time
}

func labelsKey(m map[string]string) string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	buf := make([]byte, 0, 64)
	buf = append(buf, '{')
	for i, k := range names {
		if i > 0 {
			buf = append(buf, ", "...)
		}
		buf = append(buf, k...)
		buf = append(buf, '=')
		buf = strconv.AppendQuote(buf, m[k])
	}
	return string(append(buf, '}'))
}

func matchesAll(ms []*Matcher, lbls map[string]string) bool {
	for _, m := range ms {
		if !m.Matches(lbls[m.Name]) {
			return false
		}
	}
	return true
}

// window returns the entries with from <= ts < to.
func window(es []entry, from, to int64) []entry {
	lo := sort.Search(len(es), func(i int) bool { return es[i].ts >= from })
	hi := sort.Search(len(es), func(i int) bool { return es[i].ts >= to })
	if lo >= hi {
		return nil
	}
	return es[lo:hi]
}

// selectLogs runs a log query over [from, to) and keeps the newest (backward)
// or oldest (forward) limit entries, grouped by their final label sets.
func (h *Handler) selectLogs(sel *LogSelector, from, to int64, forward bool, limit int, st *execStats) []resultStream {
	type hit struct {
		e   entry
		out *resultStream
	}
	var hits []hit
	groups := map[string]*resultStream{}
	for _, s := range h.streams {
		if !matchesAll(sel.Matchers, s.labels) {
			continue
		}
		for _, e := range window(s.entries, from, to) {
			st.linesProcessed++
			st.bytesProcessed += len(e.line)
			line, lbls, ok := runPipeline(sel.Stages, e.ts, e.line, s.labels)
			if !ok {
				continue
			}
			key := s.key
			if len(sel.Stages) > 0 {
				key = labelsKey(lbls)
			}
			g, ok := groups[key]
			if !ok {
				g = &resultStream{labels: lbls, key: key}
				groups[key] = g
			}
			hits = append(hits, hit{entry{ts: e.ts, line: line}, g})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].e.ts != hits[j].e.ts {
			if forward {
				return hits[i].e.ts < hits[j].e.ts
			}
			return hits[i].e.ts > hits[j].e.ts
		}
		return hits[i].out.key < hits[j].out.key
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	for _, x := range hits {
		x.out.entries = append(x.out.entries, x.e)
	}
	out := make([]resultStream, 0, len(groups))
	for _, g := range groups {
		if len(g.entries) > 0 {
			out = append(out, *g)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	st.entriesOut = len(hits)
	return out
}

// Metric evaluation.

type sample struct {
	labels map[string]string
	key    string
	v      float64
}

// value is the result of evaluating a metric expression at one instant.
type value struct {
	scalar   float64
	isScalar bool
	vec      []sample
}

// series is a labelled list of (ts, value) points of a matrix result.
type series struct {
	labels map[string]string
	key    string
	points []point
}

type point struct {
	ts int64 // ns
	v  float64
}

// windowed holds, per output label set, the timestamps and byte sizes of
// the entries that passed a range aggregation's pipeline.
type windowed struct {
	labels map[string]string
	key    string
	ts     []int64
	bytes  []int64 // cumulative, bytes[i] = sum of sizes of entries [0, i]
}

type evaluator struct {
	h     *Handler
	from  int64 // first evaluation instant, ns
	to    int64 // last evaluation instant, ns
	st    *execStats
	cache map[*RangeAggregation][]*windowed
}

func (ev *evaluator) eval(e Expr, t int64) (value, error) {
	switch x := e.(type) {
	case *NumberLiteral:
		return value{scalar: x.Value, isScalar: true}, nil
	case *RangeAggregation:
		return ev.rangeAgg(x, t), nil
	case *VectorAggregation:
		in, err := ev.eval(x.Inner, t)
		if err != nil {
			return value{}, err
		}
		if in.isScalar {
			return value{}, fmt.Errorf("unexpected scalar in %s aggregation", x.Op)
		}
		return value{vec: aggregate(x, in.vec)}, nil
	case *BinaryExpr:
		l, err := ev.eval(x.LHS, t)
		if err != nil {
			return value{}, err
		}
		r, err := ev.eval(x.RHS, t)
		if err != nil {
			return value{}, err
		}
		return binary(x, l, r)
	case *LogSelector:
		return value{}, fmt.Errorf("log selector is not a metric expression")
	}
	return value{}, fmt.Errorf("unknown expression %T", e)
}

// prepare runs a range aggregation's pipeline once over every entry any
// evaluation instant can see.
func (ev *evaluator) prepare(ra *RangeAggregation) []*windowed {
	if w, ok := ev.cache[ra]; ok {
		return w
	}
	from := ev.from - int64(ra.Offset) - int64(ra.Range)
	to := ev.to - int64(ra.Offset) + 1 // windows are (t-range, t]
	groups := map[string]*windowed{}
	var order []*windowed
	for _, s := range ev.h.streams {
		if !matchesAll(ra.Sel.Matchers, s.labels) {
			continue
		}
		for _, e := range window(s.entries, from, to) {
			ev.st.linesProcessed++
			ev.st.bytesProcessed += len(e.line)
			line, lbls, ok := runPipeline(ra.Sel.Stages, e.ts, e.line, s.labels)
			if !ok {
				continue
			}
			key := s.key
			if len(ra.Sel.Stages) > 0 {
				key = labelsKey(lbls)
			}
			g, ok := groups[key]
			if !ok {
				g = &windowed{labels: lbls, key: key}
				groups[key] = g
				order = append(order, g)
			}
			g.ts = append(g.ts, e.ts)
			g.bytes = append(g.bytes, int64(len(line)))
		}
	}
	for _, g := range order {
		// Entries of different streams may interleave after relabelling.
		idx := make([]int, len(g.ts))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return g.ts[idx[a]] < g.ts[idx[b]] })
		ts := make([]int64, len(idx))
		cum := make([]int64, len(idx))
		var sum int64
		for i, j := range idx {
			ts[i] = g.ts[j]
			sum += g.bytes[j]
			cum[i] = sum
		}
		g.ts, g.bytes = ts, cum
	}
	sort.Slice(order, func(i, j int) bool { return order[i].key < order[j].key })
	ev.cache[ra] = order
	return order
}

func (ev *evaluator) rangeAgg(ra *RangeAggregation, t int64) value {
	end := t - int64(ra.Offset)
	start := end - int64(ra.Range)
	secs := ra.Range.Seconds()
	var out []sample
	for _, g := range ev.prepare(ra) {
		lo := sort.Search(len(g.ts), func(i int) bool { return g.ts[i] > start })
		hi := sort.Search(len(g.ts), func(i int) bool { return g.ts[i] > end })
		n := hi - lo
		if n <= 0 {
			continue
		}
		var bytes int64 = g.bytes[hi-1]
		if lo > 0 {
			bytes -= g.bytes[lo-1]
		}
		var v float64
		switch ra.Op {
		case "count_over_time":
			v = float64(n)
		case "rate":
			v = float64(n) / secs
		case "bytes_over_time":
			v = float64(bytes)
		case "bytes_rate":
			v = float64(bytes) / secs
		case "absent_over_time":
			return value{}
		}
		out = append(out, sample{labels: g.labels, key: g.key, v: v})
	}
	if ra.Op == "absent_over_time" {
		lbls := map[string]string{}
		for _, m := range ra.Sel.Matchers {
			if m.Type == MatchEqual {
				lbls[m.Name] = m.Value
			}
		}
		return value{vec: []sample{{labels: lbls, key: labelsKey(lbls), v: 1}}}
	}
	return value{vec: out}
}

func groupLabels(g *Grouping, lbls map[string]string) map[string]string {
	out := map[string]string{}
	if g == nil {
		return out
	}
	if !g.Without {
		for _, n := range g.Labels {
			if v, ok := lbls[n]; ok && v != "" {
				out[n] = v
			}
		}
		return out
	}
	for k, v := range lbls {
		drop := false
		for _, n := range g.Labels {
			if n == k {
				drop = true
				break
			}
		}
		if !drop {
			out[k] = v
		}
	}
	return out
}

func aggregate(va *VectorAggregation, in []sample) []sample {
	switch va.Op {
	case "sort", "sort_desc":
		out := append([]sample(nil), in...)
		sort.SliceStable(out, func(i, j int) bool {
			if va.Op == "sort" {
				return out[i].v < out[j].v
			}
			return out[i].v > out[j].v
		})
		return out
	}
	type group struct {
		labels  map[string]string
		key     string
		members []sample
	}
	groups := map[string]*group{}
	var order []*group
	for _, s := range in {
		gl := groupLabels(va.Grouping, s.labels)
		k := labelsKey(gl)
		g, ok := groups[k]
		if !ok {
			g = &group{labels: gl, key: k}
			groups[k] = g
			order = append(order, g)
		}
		g.members = append(g.members, s)
	}
	var out []sample
	for _, g := range order {
		vals := make([]float64, len(g.members))
		for i, m := range g.members {
			vals[i] = m.v
		}
		switch va.Op {
		case "topk", "bottomk":
			ms := append([]sample(nil), g.members...)
			sort.SliceStable(ms, func(i, j int) bool {
				if va.Op == "topk" {
					return ms[i].v > ms[j].v
				}
				return ms[i].v < ms[j].v
			})
			k := int(va.Param)
			if k < len(ms) {
				ms = ms[:k]
			}
			out = append(out, ms...)
			continue
		}
		var v float64
		switch va.Op {
		case "sum":
			for _, x := range vals {
				v += x
			}
		case "avg":
			for _, x := range vals {
				v += x
			}
			v /= float64(len(vals))
		case "min":
			v = math.Inf(1)
			for _, x := range vals {
				v = math.Min(v, x)
			}
		case "max":
			v = math.Inf(-1)
			for _, x := range vals {
				v = math.Max(v, x)
			}
		case "count":
			v = float64(len(vals))
		case "stddev", "stdvar":
			var mean float64
			for _, x := range vals {
				mean += x
			}
			mean /= float64(len(vals))
			for _, x := range vals {
				v += (x - mean) * (x - mean)
			}
			v /= float64(len(vals))
			if va.Op == "stddev" {
				v = math.Sqrt(v)
			}
		}
		out = append(out, sample{labels: g.labels, key: g.key, v: v})
	}
	return out
}

func arith(op string, l, r float64) (float64, bool) {
	switch op {
	case "+":
		return l + r, true
	case "-":
		return l - r, true
	case "*":
		return l * r, true
	case "/":
		return l / r, true
	case "%":
		return math.Mod(l, r), true
	case "^":
		return math.Pow(l, r), true
	case "==":
		return l, l == r
	case "!=":
		return l, l != r
	case ">":
		return l, l > r
	case ">=":
		return l, l >= r
	case "<":
		return l, l < r
	case "<=":
		return l, l <= r
	}
	return 0, false
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// binary evaluates an operation. Vector-vector operations match samples on
// their full label sets, or on/ignoring the given labels, one-to-one.
func binary(be *BinaryExpr, l, r value) (value, error) {
	cmp := isComparison(be.Op)
	if l.isScalar && r.isScalar {
		v, keep := arith(be.Op, l.scalar, r.scalar)
		if cmp {
			if !be.ReturnBool {
				return value{}, fmt.Errorf("comparisons between scalars must use bool modifier")
			}
			v = boolValue(keep)
		}
		return value{scalar: v, isScalar: true}, nil
	}
	switch be.Op {
	case "and", "or", "unless":
		if l.isScalar || r.isScalar {
			return value{}, fmt.Errorf("set operator %q not allowed in binary scalar expression", be.Op)
		}
		return value{vec: setOp(be, l.vec, r.vec)}, nil
	}
	if l.isScalar || r.isScalar {
		vec, scalar, scalarLeft := l.vec, r.scalar, false
		if l.isScalar {
			vec, scalar, scalarLeft = r.vec, l.scalar, true
		}
		var out []sample
		for _, s := range vec {
			a, b := s.v, scalar
			if scalarLeft {
				a, b = scalar, s.v
			}
			v, keep := arith(be.Op, a, b)
			if cmp {
				if be.ReturnBool {
					v, keep = boolValue(keep), true
				} else {
					v = s.v
				}
			}
			if keep {
				out = append(out, sample{labels: s.labels, key: s.key, v: v})
			}
		}
		return value{vec: out}, nil
	}
	right := map[string]sample{}
	for _, s := range r.vec {
		k := matchKey(be.Matching, s.labels)
		if _, dup := right[k]; dup {
			return value{}, fmt.Errorf("found duplicate series for the match group %s on the right hand-side of the operation", k)
		}
		right[k] = s
	}
	var out []sample
	seen := map[string]bool{}
	for _, s := range l.vec {
		k := matchKey(be.Matching, s.labels)
		o, ok := right[k]
		if !ok {
			continue
		}
		if seen[k] {
			return value{}, fmt.Errorf("multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)")
		}
		seen[k] = true
		v, keep := arith(be.Op, s.v, o.v)
		if cmp {
			if be.ReturnBool {
				v, keep = boolValue(keep), true
			} else {
				v = s.v
			}
		}
		if keep {
			lbls := s.labels
			if be.Matching != nil && !be.Matching.Without {
				lbls = groupLabels(be.Matching, s.labels)
			}
			out = append(out, sample{labels: lbls, key: labelsKey(lbls), v: v})
		}
	}
	return value{vec: out}, nil
}

func matchKey(g *Grouping, lbls map[string]string) string {
	if g == nil {
		return labelsKey(lbls)
	}
	return labelsKey(groupLabels(g, lbls))
}

func setOp(be *BinaryExpr, l, r []sample) []sample {
	rightKeys := map[string]bool{}
	for _, s := range r {
		rightKeys[matchKey(be.Matching, s.labels)] = true
	}
	var out []sample
	switch be.Op {
	case "and":
		for _, s := range l {
			if rightKeys[matchKey(be.Matching, s.labels)] {
				out = append(out, s)
			}
		}
	case "unless":
		for _, s := range l {
			if !rightKeys[matchKey(be.Matching, s.labels)] {
				out = append(out, s)
			}
		}
	case "or":
		leftKeys := map[string]bool{}
		for _, s := range l {
			leftKeys[matchKey(be.Matching, s.labels)] = true
			out = append(out, s)
		}
		for _, s := range r {
			if !leftKeys[matchKey(be.Matching, s.labels)] {
				out = append(out, s)
			}
		}
	}
	return out
}
