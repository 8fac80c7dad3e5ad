package prom

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"
)

const (
	// lookbackDelta is how far back an instant selector looks for a sample.
	lookbackDelta = 5 * time.Minute
	// defaultSubqueryStep is the global evaluation interval subqueries use
	// without an explicit step.
	defaultSubqueryStep = time.Minute
	// maxSamples bounds the samples one query may touch (Prometheus'
	// --query.max-samples default).
	maxSamples = 50_000_000
)

var errTooManySamples = errors.New("query processing would load too many samples into memory in query execution")

// Labels is a label set. It is never mutated once built: helpers copy.
type Labels map[string]string

func (l Labels) key() string {
	names := make([]string, 0, len(l))
	for k := range l {
		names = append(names, k)
	}
	sort.Strings(names)
	buf := make([]byte, 0, 64)
	buf = append(buf, '{')
	for i, k := range names {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, k...)
		buf = append(buf, '=')
		buf = strconv.AppendQuote(buf, l[k])
	}
	return string(append(buf, '}'))
}

func (l Labels) without(names ...string) Labels {
	out := make(Labels, len(l))
	for k, v := range l {
		out[k] = v
	}
	for _, n := range names {
		delete(out, n)
	}
	return out
}

func (l Labels) only(names ...string) Labels {
	out := Labels{}
	for _, n := range names {
		if v, ok := l[n]; ok && v != "" {
			out[n] = v
		}
	}
	return out
}

func (l Labels) dropName() Labels {
	if _, ok := l["__name__"]; !ok {
		return l
	}
	return l.without("__name__")
}

// Sample is one element of an instant vector.
type Sample struct {
	Metric Labels
	T      int64 // ms
	F      float64
}

// Vector is an instant vector.
type Vector []Sample

// Point is a sample of a range vector.
type Point struct {
	T int64
	F float64
}

// Series is one series of a range vector.
type Series struct {
	Metric Labels
	Points []Point
}

// Matrix is a range vector.
type Matrix []Series

// Scalar is a scalar value.
type Scalar struct {
	T int64
	V float64
}

// String is a string value.
type String struct {
	T int64
	V string
}

// storedSeries is one indexed series of the scenario.
type storedSeries struct {
	metric Labels
	t      []int64 // ms, ascending
	v      []float64
}

// evaluator evaluates one query, instant or range.
type evaluator struct {
	db         *Handler
	start, end int64 // ms, for @ start() / end()
	samples    int
	selected   map[*VectorSelector][]*storedSeries
}

func (ev *evaluator) count(n int) error {
	ev.samples += n
	if ev.samples > maxSamples {
		return errTooManySamples
	}
	return nil
}

// selectSeries returns the series a selector matches, computed once.
func (ev *evaluator) selectSeries(vs *VectorSelector) []*storedSeries {
	if s, ok := ev.selected[vs]; ok {
		return s
	}
	candidates := ev.db.series
	if vs.Name != "" {
		candidates = ev.db.byName[vs.Name]
	}
	var out []*storedSeries
	for _, s := range candidates {
		ok := true
		for _, m := range vs.Matchers {
			if !m.Matches(s.metric[m.Name]) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, s)
		}
	}
	ev.selected[vs] = out
	return out
}

func (ev *evaluator) atTime(at *atModifier, ts int64) int64 {
	switch {
	case at == nil:
		return ts
	case at.start:
		return ev.start
	case at.end:
		return ev.end
	default:
		return at.ts
	}
}

// vectorAt evaluates an instant selector: the newest sample of each series
// in (t - lookback, t].
func (ev *evaluator) vectorAt(vs *VectorSelector, ts int64) (Vector, error) {
	t := ev.atTime(vs.At, ts) - vs.Offset.Milliseconds()
	from := t - lookbackDelta.Milliseconds()
	var out Vector
	for _, s := range ev.selectSeries(vs) {
		i := sort.Search(len(s.t), func(i int) bool { return s.t[i] > t }) - 1
		if i < 0 || s.t[i] <= from {
			continue
		}
		out = append(out, Sample{Metric: s.metric, T: s.t[i], F: s.v[i]})
	}
	return out, ev.count(len(out))
}

// matrixAt evaluates a range selector: samples in (t - range, t].
func (ev *evaluator) matrixAt(ms *MatrixSelector, ts int64) (Matrix, error) {
	t := ev.atTime(ms.VS.At, ts) - ms.VS.Offset.Milliseconds()
	from := t - ms.Range.Milliseconds()
	var out Matrix
	total := 0
	for _, s := range ev.selectSeries(ms.VS) {
		lo := sort.Search(len(s.t), func(i int) bool { return s.t[i] > from })
		hi := sort.Search(len(s.t), func(i int) bool { return s.t[i] > t })
		if lo >= hi {
			continue
		}
		pts := make([]Point, hi-lo)
		for i := lo; i < hi; i++ {
			pts[i-lo] = Point{T: s.t[i], F: s.v[i]}
		}
		total += len(pts)
		out = append(out, Series{Metric: s.metric, Points: pts})
	}
	return out, ev.count(total)
}

// subqueryAt evaluates the inner expression at step-aligned instants in
// (t - offset - range, t - offset], as Prometheus does.
func (ev *evaluator) subqueryAt(sq *SubqueryExpr, ts int64) (Matrix, error) {
	step := sq.Step
	if step == 0 {
		step = defaultSubqueryStep
	}
	stepMs := step.Milliseconds()
	end := ev.atTime(sq.At, ts) - sq.Offset.Milliseconds()
	lower := end - sq.Range.Milliseconds()
	start := stepMs * (lower / stepMs)
	if start <= lower {
		start += stepMs
	}
	byKey := map[string]*Series{}
	var order []string
	for t := start; t <= end; t += stepMs {
		v, err := ev.eval(sq.Expr, t)
		if err != nil {
			return nil, err
		}
		for _, s := range v.(Vector) {
			k := s.Metric.key()
			ser, ok := byKey[k]
			if !ok {
				ser = &Series{Metric: s.Metric}
				byKey[k] = ser
				order = append(order, k)
			}
			ser.Points = append(ser.Points, Point{T: t, F: s.F})
		}
	}
	out := make(Matrix, 0, len(order))
	for _, k := range order {
		out = append(out, *byKey[k])
	}
	return out, nil
}

// eval evaluates n at ts (ms). The result is Scalar, Vector, Matrix or String.
func (ev *evaluator) eval(n Node, ts int64) (any, error) {
	switch x := n.(type) {
	case *NumberLiteral:
		return Scalar{T: ts, V: x.Val}, nil
	case *StringLiteral:
		return String{T: ts, V: x.Val}, nil
	case *ParenExpr:
		return ev.eval(x.Expr, ts)
	case *UnaryExpr:
		v, err := ev.eval(x.Expr, ts)
		if err != nil {
			return nil, err
		}
		switch y := v.(type) {
		case Scalar:
			return Scalar{T: ts, V: -y.V}, nil
		case Vector:
			out := make(Vector, len(y))
			for i, s := range y {
				out[i] = Sample{Metric: s.Metric.dropName(), T: ts, F: -s.F}
			}
			return out, checkDuplicates(out)
		}
	case *VectorSelector:
		return ev.vectorAt(x, ts)
	case *MatrixSelector:
		return ev.matrixAt(x, ts)
	case *SubqueryExpr:
		return ev.subqueryAt(x, ts)
	case *Call:
		return ev.call(x, ts)
	case *AggregateExpr:
		return ev.aggregate(x, ts)
	case *BinaryExpr:
		return ev.binary(x, ts)
	}
	return nil, fmt.Errorf("unexpected expression %T", n)
}

// checkDuplicates enforces that a vector never holds two samples with the
// same labels (after a function or operator dropped the metric name).
func checkDuplicates(v Vector) error {
	if len(v) < 2 {
		return nil
	}
	seen := make(map[string]bool, len(v))
	for _, s := range v {
		k := s.Metric.key()
		if seen[k] {
			return errors.New("vector cannot contain metrics with the same labelset")
		}
		seen[k] = true
	}
	return nil
}

func (ev *evaluator) aggregate(ae *AggregateExpr, ts int64) (any, error) {
	in, err := ev.eval(ae.Expr, ts)
	if err != nil {
		return nil, err
	}
	vec := in.(Vector)
	var param float64
	if ae.Param != nil {
		pv, err := ev.eval(ae.Param, ts)
		if err != nil {
			return nil, err
		}
		param = pv.(Scalar).V
	}
	groupOf := func(m Labels) Labels {
		if ae.Without {
			return m.without(append([]string{"__name__"}, ae.Grouping...)...)
		}
		return m.only(ae.Grouping...)
	}
	type group struct {
		labels  Labels
		members []Sample
	}
	groups := map[string]*group{}
	var order []string
	for _, s := range vec {
		gl := groupOf(s.Metric)
		k := gl.key()
		g, ok := groups[k]
		if !ok {
			g = &group{labels: gl}
			groups[k] = g
			order = append(order, k)
		}
		g.members = append(g.members, s)
	}
	var out Vector
	for _, k := range order {
		g := groups[k]
		switch ae.Op {
		case "topk", "bottomk":
			kk := int(param)
			if kk < 1 || math.IsNaN(param) {
				continue
			}
			ms := append([]Sample(nil), g.members...)
			sort.SliceStable(ms, func(i, j int) bool {
				a, b := ms[i].F, ms[j].F
				if math.IsNaN(a) != math.IsNaN(b) {
					return !math.IsNaN(a) // NaN sorts last
				}
				if ae.Op == "topk" {
					return a > b
				}
				return a < b
			})
			if kk < len(ms) {
				ms = ms[:kk]
			}
			for _, s := range ms {
				out = append(out, Sample{Metric: s.Metric, T: ts, F: s.F})
			}
			continue
		}
		vals := make([]float64, len(g.members))
		for i, m := range g.members {
			vals[i] = m.F
		}
		var v float64
		switch ae.Op {
		case "sum":
			v = kahanSum(vals)
		case "avg":
			v = kahanSum(vals) / float64(len(vals))
		case "count":
			v = float64(len(vals))
		case "group":
			v = 1
		case "min":
			v = vals[0]
			for _, x := range vals[1:] {
				if x < v || math.IsNaN(v) {
					v = x
				}
			}
		case "max":
			v = vals[0]
			for _, x := range vals[1:] {
				if x > v || math.IsNaN(v) {
					v = x
				}
			}
		case "stddev", "stdvar":
			v = variance(vals)
			if ae.Op == "stddev" {
				v = math.Sqrt(v)
			}
		case "quantile":
			v = quantile(param, vals)
		default:
			return nil, fmt.Errorf("aggregation %q is not supported by this simulator", ae.Op)
		}
		out = append(out, Sample{Metric: g.labels, T: ts, F: v})
	}
	return out, nil
}

func kahanSum(vals []float64) float64 {
	var sum, c float64
	for _, x := range vals {
		if math.IsInf(x, 0) {
			sum += x
			continue
		}
		t := sum + x
		if math.Abs(sum) >= math.Abs(x) {
			c += (sum - t) + x
		} else {
			c += (x - t) + sum
		}
		sum = t
	}
	if math.IsInf(sum, 0) {
		return sum
	}
	return sum + c
}

func variance(vals []float64) float64 {
	if len(vals) == 0 {
		return math.NaN()
	}
	mean := kahanSum(vals) / float64(len(vals))
	var acc float64
	for _, x := range vals {
		acc += (x - mean) * (x - mean)
	}
	return acc / float64(len(vals))
}

// quantile follows Prometheus: linear interpolation between the closest
// ranks; phi outside [0,1] gives -Inf/+Inf.
func quantile(phi float64, vals []float64) float64 {
	if len(vals) == 0 || math.IsNaN(phi) {
		return math.NaN()
	}
	if phi < 0 {
		return math.Inf(-1)
	}
	if phi > 1 {
		return math.Inf(1)
	}
	s := append([]float64(nil), vals...)
	sort.Float64s(s)
	n := float64(len(s))
	rank := phi * (n - 1)
	lower := math.Max(0, math.Floor(rank))
	upper := math.Min(n-1, lower+1)
	weight := rank - math.Floor(rank)
	return s[int(lower)]*(1-weight) + s[int(upper)]*weight
}

// Binary operations.

func (ev *evaluator) binary(be *BinaryExpr, ts int64) (any, error) {
	lv, err := ev.eval(be.LHS, ts)
	if err != nil {
		return nil, err
	}
	rv, err := ev.eval(be.RHS, ts)
	if err != nil {
		return nil, err
	}
	ls, lScalar := lv.(Scalar)
	rs, rScalar := rv.(Scalar)
	switch {
	case lScalar && rScalar:
		v, keep := binop(be.Op, ls.V, rs.V)
		if isComparison(be.Op) {
			v = boolF(keep)
		}
		return Scalar{T: ts, V: v}, nil
	case lScalar:
		return vectorScalar(be, rv.(Vector), ls.V, true, ts)
	case rScalar:
		return vectorScalar(be, lv.(Vector), rs.V, false, ts)
	}
	l, r := lv.(Vector), rv.(Vector)
	switch be.Op {
	case "and", "or", "unless":
		return setOperation(be, l, r), nil
	}
	return vectorVector(be, l, r, ts)
}

func boolF(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// binop applies an operator; for comparisons keep says whether it holds.
func binop(op string, l, r float64) (float64, bool) {
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
	case "atan2":
		return math.Atan2(l, r), true
	case "==":
		return l, l == r
	case "!=":
		return l, l != r
	case ">":
		return l, l > r
	case "<":
		return l, l < r
	case ">=":
		return l, l >= r
	case "<=":
		return l, l <= r
	}
	return math.NaN(), false
}

func vectorScalar(be *BinaryExpr, vec Vector, scalar float64, scalarLeft bool, ts int64) (any, error) {
	cmp := isComparison(be.Op)
	out := make(Vector, 0, len(vec))
	for _, s := range vec {
		l, r := s.F, scalar
		if scalarLeft {
			l, r = scalar, s.F
		}
		v, keep := binop(be.Op, l, r)
		if cmp && scalarLeft {
			v = r // a comparison keeps the vector's value
		}
		if cmp && be.ReturnBool {
			v, keep = boolF(keep), true
		}
		if !keep {
			continue
		}
		m := s.Metric
		if !cmp || be.ReturnBool {
			m = m.dropName()
		}
		out = append(out, Sample{Metric: m, T: ts, F: v})
	}
	return out, checkDuplicates(out)
}

// signature returns the matching key of a sample's labels.
func signature(m Labels, vm *VectorMatching) string {
	if vm != nil && vm.On {
		return m.only(vm.MatchingLabels...).key()
	}
	var ignore []string
	if vm != nil {
		ignore = vm.MatchingLabels
	}
	return m.without(append([]string{"__name__"}, ignore...)...).key()
}

func setOperation(be *BinaryExpr, l, r Vector) Vector {
	vm := be.Matching
	rightSigs := map[string]bool{}
	for _, s := range r {
		rightSigs[signature(s.Metric, vm)] = true
	}
	var out Vector
	switch be.Op {
	case "and":
		for _, s := range l {
			if rightSigs[signature(s.Metric, vm)] {
				out = append(out, s)
			}
		}
	case "unless":
		for _, s := range l {
			if !rightSigs[signature(s.Metric, vm)] {
				out = append(out, s)
			}
		}
	case "or":
		leftSigs := map[string]bool{}
		for _, s := range l {
			leftSigs[signature(s.Metric, vm)] = true
			out = append(out, s)
		}
		for _, s := range r {
			if !leftSigs[signature(s.Metric, vm)] {
				out = append(out, s)
			}
		}
	}
	return out
}

func vectorVector(be *BinaryExpr, lhs, rhs Vector, ts int64) (any, error) {
	vm := be.Matching
	if vm == nil {
		vm = &VectorMatching{Card: CardOneToOne}
	}
	// group_right: the right side is the "many" side; swap and swap back.
	swapped := vm.Card == CardOneToMany
	many, one := lhs, rhs
	if swapped {
		many, one = rhs, lhs
	}
	ones := map[string]Sample{}
	for _, s := range one {
		sig := signature(s.Metric, vm)
		if prev, dup := ones[sig]; dup {
			side := "right"
			if swapped {
				side = "left"
			}
			return nil, fmt.Errorf("found duplicate series for the match group %s on the %s hand-side of the operation: [%s, %s];many-to-many matching not allowed: matching labels must be unique on one side",
				sig, side, prev.Metric.key(), s.Metric.key())
		}
		ones[sig] = s
	}
	cmp := isComparison(be.Op)
	matchedOne := map[string]bool{}
	out := Vector{}
	seenOut := map[string]bool{}
	for _, s := range many {
		sig := signature(s.Metric, vm)
		o, ok := ones[sig]
		if !ok {
			continue
		}
		if vm.Card == CardOneToOne {
			if matchedOne[sig] {
				return nil, errors.New("multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)")
			}
			matchedOne[sig] = true
		}
		l, r := s.F, o.F
		if swapped {
			l, r = o.F, s.F
		}
		v, keep := binop(be.Op, l, r)
		if cmp && be.ReturnBool {
			v, keep = boolF(keep), true
		}
		if !keep {
			continue
		}
		if cmp && !be.ReturnBool && swapped {
			v = s.F // keep the "many" side's value, as Prometheus does
		}
		m := resultMetric(s.Metric, o.Metric, be, vm)
		k := m.key()
		if seenOut[k] {
			return nil, errors.New("multiple matches for labels: grouping labels must ensure unique matches")
		}
		seenOut[k] = true
		out = append(out, Sample{Metric: m, T: ts, F: v})
	}
	return out, nil
}

func resultMetric(many, one Labels, be *BinaryExpr, vm *VectorMatching) Labels {
	m := many
	if !isComparison(be.Op) || be.ReturnBool {
		m = m.dropName()
	}
	if vm.Card == CardOneToOne {
		if vm.On {
			m = m.only(vm.MatchingLabels...)
		} else if len(vm.MatchingLabels) > 0 {
			m = m.without(vm.MatchingLabels...)
		}
	}
	if len(vm.Include) > 0 {
		m = m.without()
		for _, ln := range vm.Include {
			if v := one[ln]; v != "" {
				m[ln] = v
			} else {
				delete(m, ln)
			}
		}
	}
	return m
}
