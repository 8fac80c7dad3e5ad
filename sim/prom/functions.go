package prom

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// function describes a PromQL function.
type function struct {
	name     string
	args     []ValueType
	optional int       // trailing optional arguments of type optType
	optType  ValueType // type of optional / variadic arguments
	variadic bool
	ret      ValueType
	keepName bool
	// exactly one of the implementations is set
	matrixFn func(c rangeCtx, s Series, args []float64) (float64, bool)
	vectorFn func(ev *evaluator, c *Call, vals []any, ts int64) (any, error)
}

func (f *function) argType(i int) ValueType {
	if i < len(f.args) {
		return f.args[i]
	}
	return f.optType
}

// rangeCtx is the window a range function works on.
type rangeCtx struct {
	start, end int64 // ms, (start, end]
	rng        time.Duration
}

var functions = map[string]*function{}

// unsupportedFunctions are real PromQL functions this simulator rejects by
// name, so the error says what is missing rather than "unknown function".
var unsupportedFunctions = map[string]bool{
	"holt_winters": true, "double_exponential_smoothing": true, "histogram_count": true, "histogram_sum": true,
	"histogram_avg": true, "histogram_fraction": true, "histogram_stddev": true, "histogram_stdvar": true,
	"sort_by_label": true, "sort_by_label_desc": true, "mad_over_time": true, "info": true,
	"first_over_time": true, "ts_of_max_over_time": true, "ts_of_min_over_time": true, "ts_of_last_over_time": true,
}

func init() {
	matrix := func(name string, fn func(rangeCtx, Series, []float64) (float64, bool), scalarsFirst int, keep bool, extra ...ValueType) {
		args := make([]ValueType, 0, scalarsFirst+1+len(extra))
		for range scalarsFirst {
			args = append(args, TypeScalar)
		}
		args = append(args, TypeMatrix)
		args = append(args, extra...)
		functions[name] = &function{name: name, args: args, ret: TypeVector, matrixFn: fn, keepName: keep}
	}
	matrix("rate", func(c rangeCtx, s Series, _ []float64) (float64, bool) {
		return extrapolatedRate(c, s.Points, true, true)
	}, 0, false)
	matrix("increase", func(c rangeCtx, s Series, _ []float64) (float64, bool) {
		return extrapolatedRate(c, s.Points, true, false)
	}, 0, false)
	matrix("delta", func(c rangeCtx, s Series, _ []float64) (float64, bool) {
		return extrapolatedRate(c, s.Points, false, false)
	}, 0, false)
	matrix("irate", func(_ rangeCtx, s Series, _ []float64) (float64, bool) { return instantValue(s.Points, true) }, 0, false)
	matrix("idelta", func(_ rangeCtx, s Series, _ []float64) (float64, bool) { return instantValue(s.Points, false) }, 0, false)
	matrix("changes", func(_ rangeCtx, s Series, _ []float64) (float64, bool) {
		n := 0
		for i := 1; i < len(s.Points); i++ {
			a, b := s.Points[i-1].F, s.Points[i].F
			if a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
				n++
			}
		}
		return float64(n), true
	}, 0, false)
	matrix("resets", func(_ rangeCtx, s Series, _ []float64) (float64, bool) {
		n := 0
		for i := 1; i < len(s.Points); i++ {
			if s.Points[i].F < s.Points[i-1].F {
				n++
			}
		}
		return float64(n), true
	}, 0, false)
	matrix("deriv", func(_ rangeCtx, s Series, _ []float64) (float64, bool) {
		if len(s.Points) < 2 {
			return 0, false
		}
		slope, _ := linearRegression(s.Points, s.Points[0].T)
		return slope, true
	}, 0, false)
	matrix("predict_linear", func(c rangeCtx, s Series, args []float64) (float64, bool) {
		if len(s.Points) < 2 {
			return 0, false
		}
		slope, intercept := linearRegression(s.Points, c.end)
		return slope*args[0] + intercept, true
	}, 0, false, TypeScalar)
	over := func(name string, keep bool, fn func([]float64) float64) {
		matrix(name, func(_ rangeCtx, s Series, _ []float64) (float64, bool) {
			vals := make([]float64, len(s.Points))
			for i, p := range s.Points {
				vals[i] = p.F
			}
			return fn(vals), true
		}, 0, keep)
	}
	over("avg_over_time", false, func(v []float64) float64 { return kahanSum(v) / float64(len(v)) })
	over("sum_over_time", false, kahanSum)
	over("count_over_time", false, func(v []float64) float64 { return float64(len(v)) })
	over("last_over_time", true, func(v []float64) float64 { return v[len(v)-1] })
	over("present_over_time", false, func([]float64) float64 { return 1 })
	over("stddev_over_time", false, func(v []float64) float64 { return math.Sqrt(variance(v)) })
	over("stdvar_over_time", false, variance)
	over("min_over_time", false, func(v []float64) float64 {
		m := v[0]
		for _, x := range v[1:] {
			if x < m || math.IsNaN(m) {
				m = x
			}
		}
		return m
	})
	over("max_over_time", false, func(v []float64) float64 {
		m := v[0]
		for _, x := range v[1:] {
			if x > m || math.IsNaN(m) {
				m = x
			}
		}
		return m
	})
	matrix("quantile_over_time", func(_ rangeCtx, s Series, args []float64) (float64, bool) {
		vals := make([]float64, len(s.Points))
		for i, p := range s.Points {
			vals[i] = p.F
		}
		return quantile(args[0], vals), true
	}, 1, false)

	functions["absent_over_time"] = &function{name: "absent_over_time", args: []ValueType{TypeMatrix}, ret: TypeVector, vectorFn: absentFn}
	functions["absent"] = &function{name: "absent", args: []ValueType{TypeVector}, ret: TypeVector, vectorFn: absentFn}

	simple := func(name string, fn func(float64) float64) {
		functions[name] = &function{name: name, args: []ValueType{TypeVector}, ret: TypeVector,
			vectorFn: func(_ *evaluator, _ *Call, vals []any, ts int64) (any, error) {
				return mapVector(vals[0].(Vector), ts, false, fn)
			}}
	}
	simple("abs", math.Abs)
	simple("ceil", math.Ceil)
	simple("floor", math.Floor)
	simple("sqrt", math.Sqrt)
	simple("exp", math.Exp)
	simple("ln", math.Log)
	simple("log2", math.Log2)
	simple("log10", math.Log10)
	simple("sin", math.Sin)
	simple("cos", math.Cos)
	simple("tan", math.Tan)
	simple("asin", math.Asin)
	simple("acos", math.Acos)
	simple("atan", math.Atan)
	simple("sinh", math.Sinh)
	simple("cosh", math.Cosh)
	simple("tanh", math.Tanh)
	simple("deg", func(v float64) float64 { return v * 180 / math.Pi })
	simple("rad", func(v float64) float64 { return v * math.Pi / 180 })
	simple("sgn", func(v float64) float64 {
		switch {
		case v < 0:
			return -1
		case v > 0:
			return 1
		}
		return v
	})

	functions["round"] = &function{name: "round", args: []ValueType{TypeVector}, optional: 1, optType: TypeScalar, ret: TypeVector,
		vectorFn: func(_ *evaluator, _ *Call, vals []any, ts int64) (any, error) {
			nearest := 1.0
			if len(vals) > 1 {
				nearest = vals[1].(Scalar).V
			}
			inv := 1 / nearest
			return mapVector(vals[0].(Vector), ts, false, func(v float64) float64 { return math.Floor(v*inv+0.5) / inv })
		}}
	clamp := func(name string, bounds int) {
		args := []ValueType{TypeVector}
		for range bounds {
			args = append(args, TypeScalar)
		}
		functions[name] = &function{name: name, args: args, ret: TypeVector,
			vectorFn: func(_ *evaluator, _ *Call, vals []any, ts int64) (any, error) {
				lo, hi := math.Inf(-1), math.Inf(1)
				switch name {
				case "clamp":
					lo, hi = vals[1].(Scalar).V, vals[2].(Scalar).V
					if hi < lo {
						return Vector{}, nil
					}
				case "clamp_min":
					lo = vals[1].(Scalar).V
				case "clamp_max":
					hi = vals[1].(Scalar).V
				}
				return mapVector(vals[0].(Vector), ts, false, func(v float64) float64 { return math.Max(lo, math.Min(hi, v)) })
			}}
	}
	clamp("clamp", 2)
	clamp("clamp_min", 1)
	clamp("clamp_max", 1)

	functions["histogram_quantile"] = &function{name: "histogram_quantile", args: []ValueType{TypeScalar, TypeVector}, ret: TypeVector, vectorFn: histogramQuantile}
	for _, name := range []string{"sort", "sort_desc"} {
		desc := name == "sort_desc"
		functions[name] = &function{name: name, args: []ValueType{TypeVector}, ret: TypeVector, keepName: true,
			vectorFn: func(_ *evaluator, _ *Call, vals []any, _ int64) (any, error) {
				out := append(Vector(nil), vals[0].(Vector)...)
				sort.SliceStable(out, func(i, j int) bool {
					a, b := out[i].F, out[j].F
					if math.IsNaN(a) != math.IsNaN(b) {
						return !math.IsNaN(a)
					}
					if desc {
						return a > b
					}
					return a < b
				})
				return out, nil
			}}
	}
	functions["label_replace"] = &function{name: "label_replace", args: []ValueType{TypeVector, TypeString, TypeString, TypeString, TypeString}, ret: TypeVector, keepName: true, vectorFn: labelReplace}
	functions["label_join"] = &function{name: "label_join", args: []ValueType{TypeVector, TypeString, TypeString}, optType: TypeString, variadic: true, ret: TypeVector, keepName: true, vectorFn: labelJoin}
	functions["timestamp"] = &function{name: "timestamp", args: []ValueType{TypeVector}, ret: TypeVector,
		vectorFn: func(_ *evaluator, _ *Call, vals []any, ts int64) (any, error) {
			var out Vector
			for _, s := range vals[0].(Vector) {
				out = append(out, Sample{Metric: s.Metric.dropName(), T: ts, F: float64(s.T) / 1000})
			}
			return out, checkDuplicates(out)
		}}
	functions["scalar"] = &function{name: "scalar", args: []ValueType{TypeVector}, ret: TypeScalar,
		vectorFn: func(_ *evaluator, _ *Call, vals []any, ts int64) (any, error) {
			v := vals[0].(Vector)
			if len(v) != 1 {
				return Scalar{T: ts, V: math.NaN()}, nil
			}
			return Scalar{T: ts, V: v[0].F}, nil
		}}
	functions["vector"] = &function{name: "vector", args: []ValueType{TypeScalar}, ret: TypeVector,
		vectorFn: func(_ *evaluator, _ *Call, vals []any, ts int64) (any, error) {
			return Vector{{Metric: Labels{}, T: ts, F: vals[0].(Scalar).V}}, nil
		}}
	functions["time"] = &function{name: "time", ret: TypeScalar,
		vectorFn: func(_ *evaluator, _ *Call, _ []any, ts int64) (any, error) {
			return Scalar{T: ts, V: float64(ts) / 1000}, nil
		}}
	date := func(name string, fn func(time.Time) float64) {
		functions[name] = &function{name: name, optional: 1, optType: TypeVector, ret: TypeVector,
			vectorFn: func(_ *evaluator, _ *Call, vals []any, ts int64) (any, error) {
				if len(vals) == 0 {
					return Vector{{Metric: Labels{}, T: ts, F: fn(time.UnixMilli(ts).UTC())}}, nil
				}
				return mapVector(vals[0].(Vector), ts, false, func(v float64) float64 {
					sec, frac := math.Modf(v)
					return fn(time.Unix(int64(sec), int64(frac*1e9)).UTC())
				})
			}}
	}
	date("minute", func(t time.Time) float64 { return float64(t.Minute()) })
	date("hour", func(t time.Time) float64 { return float64(t.Hour()) })
	date("day_of_week", func(t time.Time) float64 { return float64(t.Weekday()) })
	date("day_of_month", func(t time.Time) float64 { return float64(t.Day()) })
	date("day_of_year", func(t time.Time) float64 { return float64(t.YearDay()) })
	date("month", func(t time.Time) float64 { return float64(t.Month()) })
	date("year", func(t time.Time) float64 { return float64(t.Year()) })
	date("days_in_month", func(t time.Time) float64 {
		return float64(time.Date(t.Year(), t.Month()+1, 0, 0, 0, 0, 0, time.UTC).Day())
	})
}

func mapVector(in Vector, ts int64, keepName bool, fn func(float64) float64) (any, error) {
	out := make(Vector, 0, len(in))
	for _, s := range in {
		m := s.Metric
		if !keepName {
			m = m.dropName()
		}
		out = append(out, Sample{Metric: m, T: ts, F: fn(s.F)})
	}
	return out, checkDuplicates(out)
}

// call evaluates a function call.
func (ev *evaluator) call(c *Call, ts int64) (any, error) {
	fn := c.Func
	if fn.matrixFn != nil {
		return ev.callMatrix(c, ts)
	}
	vals := make([]any, len(c.Args))
	for i, a := range c.Args {
		if a.Type() == TypeMatrix {
			continue // absent_over_time looks at its argument itself
		}
		v, err := ev.eval(a, ts)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return fn.vectorFn(ev, c, vals, ts)
}

// rangeArg evaluates a matrix argument and the window it covers.
func (ev *evaluator) rangeArg(n Node, ts int64) (Matrix, rangeCtx, error) {
	for {
		p, ok := n.(*ParenExpr)
		if !ok {
			break
		}
		n = p.Expr
	}
	switch x := n.(type) {
	case *MatrixSelector:
		end := ev.atTime(x.VS.At, ts) - x.VS.Offset.Milliseconds()
		m, err := ev.matrixAt(x, ts)
		return m, rangeCtx{start: end - x.Range.Milliseconds(), end: end, rng: x.Range}, err
	case *SubqueryExpr:
		end := ev.atTime(x.At, ts) - x.Offset.Milliseconds()
		m, err := ev.subqueryAt(x, ts)
		return m, rangeCtx{start: end - x.Range.Milliseconds(), end: end, rng: x.Range}, err
	}
	return nil, rangeCtx{}, fmt.Errorf("expected a range vector, got %T", n)
}

func (ev *evaluator) callMatrix(c *Call, ts int64) (any, error) {
	fn := c.Func
	var (
		m        Matrix
		rc       rangeCtx
		scalars  []float64
		err      error
		matrixAt = -1
	)
	for i, a := range c.Args {
		if fn.argType(i) == TypeMatrix {
			matrixAt = i
			continue
		}
		v, err := ev.eval(a, ts)
		if err != nil {
			return nil, err
		}
		scalars = append(scalars, v.(Scalar).V)
	}
	if m, rc, err = ev.rangeArg(c.Args[matrixAt], ts); err != nil {
		return nil, err
	}
	out := Vector{}
	for _, s := range m {
		if len(s.Points) == 0 {
			continue
		}
		v, ok := fn.matrixFn(rc, s, scalars)
		if !ok {
			continue
		}
		metric := s.Metric
		if !fn.keepName {
			metric = metric.dropName()
		}
		out = append(out, Sample{Metric: metric, T: ts, F: v})
	}
	return out, checkDuplicates(out)
}

// extrapolatedRate is Prometheus' rate/increase/delta: the difference over
// the window (with counter resets added back), extrapolated towards the
// window's edges when the first/last samples are within 110% of the
// average sample spacing (else by half a spacing), never below zero for
// counters.
func extrapolatedRate(c rangeCtx, pts []Point, isCounter, isRate bool) (float64, bool) {
	if len(pts) < 2 {
		return 0, false
	}
	first, last := pts[0], pts[len(pts)-1]
	result := last.F - first.F
	if isCounter {
		prev := first.F
		for _, p := range pts[1:] {
			if p.F < prev {
				result += prev
			}
			prev = p.F
		}
	}
	durationToStart := float64(first.T-c.start) / 1000
	durationToEnd := float64(c.end-last.T) / 1000
	sampled := float64(last.T-first.T) / 1000
	avg := sampled / float64(len(pts)-1)
	threshold := avg * 1.1
	interval := sampled
	if durationToStart >= threshold {
		durationToStart = avg / 2
	}
	if isCounter && result > 0 && first.F >= 0 {
		if toZero := sampled * (first.F / result); toZero < durationToStart {
			durationToStart = toZero
		}
	}
	interval += durationToStart
	if durationToEnd >= threshold {
		durationToEnd = avg / 2
	}
	interval += durationToEnd
	factor := interval / sampled
	if isRate {
		factor /= c.rng.Seconds()
	}
	return result * factor, true
}

// instantValue is irate/idelta over the last two samples.
func instantValue(pts []Point, isRate bool) (float64, bool) {
	if len(pts) < 2 {
		return 0, false
	}
	last, prev := pts[len(pts)-1], pts[len(pts)-2]
	v := last.F - prev.F
	if isRate && last.F < prev.F {
		v = last.F // counter reset
	}
	dt := last.T - prev.T
	if dt == 0 {
		return 0, false
	}
	if isRate {
		v /= float64(dt) / 1000
	}
	return v, true
}

func linearRegression(pts []Point, interceptTime int64) (slope, intercept float64) {
	var n, sumX, sumY, sumXY, sumX2 float64
	constY := true
	for i, p := range pts {
		if i > 0 && p.F != pts[0].F {
			constY = false
		}
		n++
		x := float64(p.T-interceptTime) / 1000
		sumX += x
		sumY += p.F
		sumXY += x * p.F
		sumX2 += x * x
	}
	if constY {
		if math.IsInf(pts[0].F, 0) {
			return math.NaN(), math.NaN()
		}
		return 0, pts[0].F
	}
	cov := sumXY - sumX*sumY/n
	varX := sumX2 - sumX*sumX/n
	slope = cov / varX
	intercept = sumY/n - slope*sumX/n
	return slope, intercept
}

// absentFn returns 1 with the selector's equality labels when its argument
// has no samples, nothing otherwise.
func absentFn(ev *evaluator, c *Call, vals []any, ts int64) (any, error) {
	arg := c.Args[0]
	for {
		p, ok := arg.(*ParenExpr)
		if !ok {
			break
		}
		arg = p.Expr
	}
	var vs *VectorSelector
	if c.Func.name == "absent_over_time" {
		m, _, err := ev.rangeArg(arg, ts)
		if err != nil {
			return nil, err
		}
		for _, s := range m {
			if len(s.Points) > 0 {
				return Vector{}, nil
			}
		}
		if ms, ok := arg.(*MatrixSelector); ok {
			vs = ms.VS
		}
	} else {
		if len(vals[0].(Vector)) > 0 {
			return Vector{}, nil
		}
		vs, _ = arg.(*VectorSelector)
	}
	lbls := Labels{}
	if vs != nil {
		seen := map[string]int{}
		for _, m := range vs.Matchers {
			if m.Name == "__name__" {
				continue
			}
			seen[m.Name]++
			if m.Type == MatchEqual {
				lbls[m.Name] = m.Value
			}
		}
		for name, n := range seen {
			if n > 1 {
				delete(lbls, name)
			}
		}
	}
	return Vector{{Metric: lbls, T: ts, F: 1}}, nil
}

type bucket struct {
	upper float64
	count float64
}

// histogramQuantile computes quantiles over classic histograms: series
// named *_bucket with an "le" label, grouped by their other labels.
func histogramQuantile(_ *evaluator, _ *Call, vals []any, ts int64) (any, error) {
	q := vals[0].(Scalar).V
	type group struct {
		labels  Labels
		buckets []bucket
	}
	groups := map[string]*group{}
	var order []string
	for _, s := range vals[1].(Vector) {
		le, ok := s.Metric["le"]
		if !ok {
			continue
		}
		upper, err := strconv.ParseFloat(le, 64)
		if err != nil {
			continue // Prometheus ignores the series with an annotation
		}
		gl := s.Metric.without("le", "__name__")
		k := gl.key()
		g, ok := groups[k]
		if !ok {
			g = &group{labels: gl}
			groups[k] = g
			order = append(order, k)
		}
		g.buckets = append(g.buckets, bucket{upper: upper, count: s.F})
	}
	out := Vector{}
	for _, k := range order {
		g := groups[k]
		out = append(out, Sample{Metric: g.labels, T: ts, F: bucketQuantile(q, g.buckets)})
	}
	return out, nil
}

func bucketQuantile(q float64, buckets []bucket) float64 {
	if math.IsNaN(q) {
		return math.NaN()
	}
	if q < 0 {
		return math.Inf(-1)
	}
	if q > 1 {
		return math.Inf(1)
	}
	sort.Slice(buckets, func(i, j int) bool { return buckets[i].upper < buckets[j].upper })
	if len(buckets) == 0 || !math.IsInf(buckets[len(buckets)-1].upper, 1) {
		return math.NaN()
	}
	// Merge buckets with the same bound, then force monotonic counts.
	merged := buckets[:0:0]
	for _, b := range buckets {
		if n := len(merged); n > 0 && merged[n-1].upper == b.upper {
			merged[n-1].count += b.count
			continue
		}
		merged = append(merged, b)
	}
	buckets = merged
	for i := 1; i < len(buckets); i++ {
		if buckets[i].count < buckets[i-1].count {
			buckets[i].count = buckets[i-1].count
		}
	}
	if len(buckets) < 2 {
		return math.NaN()
	}
	observations := buckets[len(buckets)-1].count
	if observations == 0 {
		return math.NaN()
	}
	rank := q * observations
	b := sort.Search(len(buckets)-1, func(i int) bool { return buckets[i].count >= rank })
	if b == len(buckets)-1 {
		return buckets[len(buckets)-2].upper
	}
	if b == 0 && buckets[0].upper <= 0 {
		return buckets[0].upper
	}
	var start float64
	end := buckets[b].upper
	count := buckets[b].count
	if b > 0 {
		start = buckets[b-1].upper
		count -= buckets[b-1].count
		rank -= buckets[b-1].count
	}
	return start + (end-start)*(rank/count)
}

var labelNameRE = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

func labelReplace(_ *evaluator, _ *Call, vals []any, _ int64) (any, error) {
	dst, repl, src, reStr := vals[1].(String).V, vals[2].(String).V, vals[3].(String).V, vals[4].(String).V
	re, err := regexp.Compile("^(?s:" + reStr + ")$")
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression in label_replace(): %s", reStr)
	}
	if !labelNameRE.MatchString(dst) {
		return nil, fmt.Errorf("invalid destination label name in label_replace(): %s", dst)
	}
	var out Vector
	for _, s := range vals[0].(Vector) {
		m := s.Metric
		srcVal := m[src]
		if idx := re.FindStringSubmatchIndex(srcVal); idx != nil {
			res := string(re.ExpandString(nil, repl, srcVal, idx))
			m = m.without()
			if res == "" {
				delete(m, dst)
			} else {
				m[dst] = res
			}
		}
		out = append(out, Sample{Metric: m, T: s.T, F: s.F})
	}
	return out, checkDuplicates(out)
}

func labelJoin(_ *evaluator, _ *Call, vals []any, _ int64) (any, error) {
	dst, sep := vals[1].(String).V, vals[2].(String).V
	if !labelNameRE.MatchString(dst) {
		return nil, fmt.Errorf("invalid destination label name in label_join(): %s", dst)
	}
	var srcs []string
	for _, v := range vals[3:] {
		src := v.(String).V
		if !labelNameRE.MatchString(src) {
			return nil, fmt.Errorf("invalid source label name in label_join(): %s", src)
		}
		srcs = append(srcs, src)
	}
	var out Vector
	for _, s := range vals[0].(Vector) {
		parts := make([]string, len(srcs))
		for i, src := range srcs {
			parts[i] = s.Metric[src]
		}
		m := s.Metric.without()
		if joined := strings.Join(parts, sep); joined == "" {
			delete(m, dst)
		} else {
			m[dst] = joined
		}
		out = append(out, Sample{Metric: m, T: s.T, F: s.F})
	}
	return out, checkDuplicates(out)
}
