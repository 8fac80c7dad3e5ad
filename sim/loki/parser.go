package loki

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Limits of the parser.
const (
	maxQueryBytes = 64 << 10
	maxDepth      = 64
)

// Expressions.
type (
	// Expr is a parsed LogQL query: *LogSelector or a metric expression.
	Expr interface{ isExpr() }

	// LogSelector is a stream selector followed by a pipeline.
	LogSelector struct {
		Matchers []*Matcher
		Stages   []Stage
	}

	// RangeAggregation is count_over_time, rate, bytes_over_time or
	// bytes_rate over a log range.
	RangeAggregation struct {
		Op     string
		Sel    *LogSelector
		Range  time.Duration
		Offset time.Duration
	}

	// VectorAggregation is sum, avg, min, max, count, stddev, stdvar, topk
	// or bottomk, optionally by/without labels.
	VectorAggregation struct {
		Op       string
		Param    float64 // k of topk/bottomk
		Grouping *Grouping
		Inner    Expr
	}

	// BinaryExpr combines two metric expressions or scalars.
	BinaryExpr struct {
		Op         string
		LHS, RHS   Expr
		ReturnBool bool
		Matching   *Grouping // on(...) / ignoring(...); nil matches all labels
	}

	// NumberLiteral is a scalar.
	NumberLiteral struct{ Value float64 }

	// Grouping is by(...)/without(...) for aggregations, on(...)/ignoring(...)
	// for binary operations (Without means ignoring).
	Grouping struct {
		Without bool
		Labels  []string
	}
)

func (*LogSelector) isExpr()       {}
func (*RangeAggregation) isExpr()  {}
func (*VectorAggregation) isExpr() {}
func (*BinaryExpr) isExpr()        {}
func (*NumberLiteral) isExpr()     {}

// MatchType is a label matcher operator.
type MatchType string

// Matcher operators.
const (
	MatchEqual     MatchType = "="
	MatchNotEqual  MatchType = "!="
	MatchRegexp    MatchType = "=~"
	MatchNotRegexp MatchType = "!~"
)

// Matcher is one label matcher; regexps are fully anchored like Loki's.
type Matcher struct {
	Name  string
	Type  MatchType
	Value string
	re    *regexp.Regexp
}

func newMatcher(name string, t MatchType, value string) (*Matcher, error) {
	m := &Matcher{Name: name, Type: t, Value: value}
	if t == MatchRegexp || t == MatchNotRegexp {
		re, err := regexp.Compile("^(?:" + value + ")$")
		if err != nil {
			return nil, err
		}
		m.re = re
	}
	return m, nil
}

// Matches reports whether the value satisfies the matcher.
func (m *Matcher) Matches(v string) bool {
	switch m.Type {
	case MatchEqual:
		return v == m.Value
	case MatchNotEqual:
		return v != m.Value
	case MatchRegexp:
		return m.re.MatchString(v)
	default:
		return !m.re.MatchString(v)
	}
}

var rangeOps = map[string]bool{"count_over_time": true, "rate": true, "bytes_over_time": true, "bytes_rate": true, "absent_over_time": true}

var unwrapOps = map[string]bool{
	"sum_over_time": true, "avg_over_time": true, "max_over_time": true, "min_over_time": true,
	"first_over_time": true, "last_over_time": true, "stdvar_over_time": true, "stddev_over_time": true,
	"quantile_over_time": true, "rate_counter": true,
}

var vectorOps = map[string]bool{
	"sum": true, "avg": true, "min": true, "max": true, "count": true, "stddev": true, "stdvar": true,
	"topk": true, "bottomk": true, "sort": true, "sort_desc": true,
}

// Parse parses a LogQL query.
func Parse(q string) (Expr, error) {
	if len(q) > maxQueryBytes {
		return nil, &ParseError{Msg: fmt.Sprintf("query of %d bytes exceeds the %d bytes this simulator accepts", len(q), maxQueryBytes)}
	}
	toks, err := lex(q)
	if err != nil {
		return nil, err
	}
	p := &parser{q: q, toks: toks}
	e, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.unexpected(t)
	}
	if err := validate(e); err != nil {
		return nil, err
	}
	return e, nil
}

// validate enforces Loki's rule that every selector has a matcher that
// cannot match the empty string.
func validate(e Expr) error {
	switch x := e.(type) {
	case *LogSelector:
		for _, m := range x.Matchers {
			if !m.Matches("") {
				return nil
			}
		}
		return &ParseError{Msg: `queries require at least one regexp or equality matcher that does not have an empty-compatible value. For instance, app=~".*" does not meet this requirement, but app=~".+" will`}
	case *RangeAggregation:
		return validate(x.Sel)
	case *VectorAggregation:
		return validate(x.Inner)
	case *BinaryExpr:
		if err := validate(x.LHS); err != nil {
			return err
		}
		return validate(x.RHS)
	}
	return nil
}

type parser struct {
	q     string
	toks  []token
	i     int
	depth int
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) unexpected(t token, expecting ...string) error {
	msg := "syntax error: unexpected " + t.String()
	if len(expecting) > 0 {
		msg += ", expecting " + strings.Join(expecting, " or ")
	}
	return errorAt(p.q, t.pos, "%s", msg)
}

func (p *parser) expect(k tokenKind) (token, error) {
	t := p.next()
	if t.kind != k {
		return t, p.unexpected(t, tokenNames[k])
	}
	return t, nil
}

func (p *parser) isIdent(name string) bool {
	t := p.peek()
	return t.kind == tIdent && t.text == name
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return errorAt(p.q, p.peek().pos, "expression nested deeper than %d levels", maxDepth)
	}
	return nil
}

// Binary operator precedence, lowest first (as in PromQL).
func precedence(t token) (string, int) {
	switch t.kind {
	case tIdent:
		switch t.text {
		case "or":
			return "or", 1
		case "and", "unless":
			return t.text, 2
		}
	case tEqEq, tNeq, tGt, tGte, tLt, tLte:
		return tokenNames[t.kind], 3
	case tAdd, tSub:
		return tokenNames[t.kind], 4
	case tMul, tDiv, tMod:
		return tokenNames[t.kind], 5
	case tPow:
		return "^", 6
	}
	return "", 0
}

func (p *parser) expr(minPrec int) (Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	lhs, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		op, prec := precedence(p.peek())
		if prec == 0 || prec <= minPrec && !(op == "^" && prec == minPrec) {
			return lhs, nil
		}
		if _, isSel := lhs.(*LogSelector); isSel {
			return nil, p.unexpected(p.peek())
		}
		p.next()
		be := &BinaryExpr{Op: op, LHS: lhs}
		if p.isIdent("bool") {
			p.next()
			be.ReturnBool = true
		}
		if p.isIdent("on") || p.isIdent("ignoring") {
			g, err := p.grouping()
			if err != nil {
				return nil, err
			}
			be.Matching = g
		}
		nextMin := prec
		if op == "^" {
			nextMin = prec - 1 // right associative
		}
		if be.RHS, err = p.expr(nextMin); err != nil {
			return nil, err
		}
		if _, isSel := be.RHS.(*LogSelector); isSel {
			return nil, errorAt(p.q, p.peek().pos, "syntax error: unexpected log selector in binary operation")
		}
		if be.ReturnBool && !isComparison(op) {
			return nil, errorAt(p.q, p.peek().pos, "bool modifier can only be used on comparison operators")
		}
		lhs = be
	}
}

func isComparison(op string) bool {
	switch op {
	case "==", "!=", ">", ">=", "<", "<=":
		return true
	}
	return false
}

func (p *parser) unary() (Expr, error) {
	if t := p.peek(); t.kind == tSub || t.kind == tAdd {
		p.next()
		e, err := p.unary()
		if err != nil {
			return nil, err
		}
		if n, ok := e.(*NumberLiteral); ok {
			if t.kind == tSub {
				n.Value = -n.Value
			}
			return n, nil
		}
		if t.kind == tAdd {
			return e, nil
		}
		return &BinaryExpr{Op: "*", LHS: e, RHS: &NumberLiteral{Value: -1}}, nil
	}
	return p.primary()
}

func (p *parser) primary() (Expr, error) {
	t := p.peek()
	switch t.kind {
	case tNumber:
		p.next()
		v, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			return nil, errorAt(p.q, t.pos, "invalid number %q", t.text)
		}
		return &NumberLiteral{Value: v}, nil
	case tLBrace:
		return p.logSelector()
	case tLParen:
		p.next()
		e, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		if _, err := p.expect(tRParen); err != nil {
			return nil, err
		}
		return e, nil
	case tIdent:
		switch {
		case rangeOps[t.text]:
			return p.rangeAggregation()
		case vectorOps[t.text]:
			return p.vectorAggregation()
		case unwrapOps[t.text]:
			return nil, errorAt(p.q, t.pos, "%s needs | unwrap, which this simulator does not support", t.text)
		case t.text == "label_replace" || t.text == "vector" || t.text == "absent":
			return nil, errorAt(p.q, t.pos, "%s is not supported by this simulator", t.text)
		}
	}
	return nil, p.unexpected(t)
}

func (p *parser) logSelector() (*LogSelector, error) {
	if _, err := p.expect(tLBrace); err != nil {
		return nil, err
	}
	sel := &LogSelector{}
	for p.peek().kind != tRBrace {
		name := p.next()
		if name.kind != tIdent {
			return nil, p.unexpected(name, "IDENTIFIER")
		}
		opTok := p.next()
		var op MatchType
		switch opTok.kind {
		case tEq:
			op = MatchEqual
		case tNeq:
			op = MatchNotEqual
		case tRe:
			op = MatchRegexp
		case tNre:
			op = MatchNotRegexp
		default:
			return nil, p.unexpected(opTok, "=", "!=", "=~", "!~")
		}
		val := p.next()
		if val.kind != tString {
			return nil, p.unexpected(val, "STRING")
		}
		m, err := newMatcher(name.text, op, val.text)
		if err != nil {
			return nil, errorAt(p.q, val.pos, "invalid regexp %q: %v", val.text, err)
		}
		sel.Matchers = append(sel.Matchers, m)
		if p.peek().kind == tComma {
			p.next()
			continue
		}
		if p.peek().kind != tRBrace {
			return nil, p.unexpected(p.peek(), ",", "}")
		}
	}
	p.next()
	if len(sel.Matchers) == 0 {
		return nil, &ParseError{Msg: `queries require at least one regexp or equality matcher that does not have an empty-compatible value. For instance, app=~".*" does not meet this requirement, but app=~".+" will`}
	}
	if err := p.pipeline(sel); err != nil {
		return nil, err
	}
	return sel, nil
}

// pipeline parses line filters and | stages until something else comes.
func (p *parser) pipeline(sel *LogSelector) error {
	for {
		t := p.peek()
		switch t.kind {
		case tPipeExact, tNeq, tPipeMatch, tNre:
			st, err := p.lineFilter()
			if err != nil {
				return err
			}
			sel.Stages = append(sel.Stages, st)
		case tPipe:
			p.next()
			st, err := p.stage()
			if err != nil {
				return err
			}
			sel.Stages = append(sel.Stages, st)
		default:
			return nil
		}
	}
}

func (p *parser) lineFilter() (Stage, error) {
	opTok := p.next()
	f := &lineFilter{op: tokenNames[opTok.kind]}
	for {
		v := p.next()
		if v.kind != tString {
			if v.kind == tIdent && (v.text == "ip" || v.text == "pattern") {
				return nil, errorAt(p.q, v.pos, "%s line filters are not supported by this simulator", v.text)
			}
			return nil, p.unexpected(v, "STRING")
		}
		f.values = append(f.values, v.text)
		if f.op == "|~" || f.op == "!~" {
			re, err := regexp.Compile(v.text)
			if err != nil {
				return nil, errorAt(p.q, v.pos, "invalid regexp %q: %v", v.text, err)
			}
			f.res = append(f.res, re)
		}
		if !p.isIdent("or") {
			break
		}
		// "or" joins alternatives of the same filter only when a string
		// follows; otherwise it is a binary operator.
		if p.toks[p.i+1].kind != tString {
			break
		}
		p.next()
	}
	return f, nil
}

func (p *parser) stage() (Stage, error) {
	t := p.peek()
	if t.kind != tIdent && t.kind != tLParen {
		return nil, p.unexpected(t, "IDENTIFIER")
	}
	if t.kind == tIdent {
		switch t.text {
		case "json":
			p.next()
			if p.peek().kind == tIdent && p.toks[p.i+1].kind == tEq {
				return nil, errorAt(p.q, p.peek().pos, "json with parameters is not supported by this simulator")
			}
			return jsonStage{}, nil
		case "logfmt":
			p.next()
			if p.peek().kind == tSub { // --strict, --keep-empty
				return nil, errorAt(p.q, p.peek().pos, "logfmt flags are not supported by this simulator")
			}
			if p.peek().kind == tIdent && p.toks[p.i+1].kind == tEq {
				return nil, errorAt(p.q, p.peek().pos, "logfmt with parameters is not supported by this simulator")
			}
			return logfmtStage{}, nil
		case "regexp":
			p.next()
			s, err := p.expect(tString)
			if err != nil {
				return nil, err
			}
			re, err := regexp.Compile(s.text)
			if err != nil {
				return nil, errorAt(p.q, s.pos, "invalid regexp %q: %v", s.text, err)
			}
			if len(re.SubexpNames()) < 2 || !hasNamedGroup(re) {
				return nil, errorAt(p.q, s.pos, "at least one named capture must be supplied")
			}
			return &regexpStage{re: re}, nil
		case "line_format":
			p.next()
			s, err := p.expect(tString)
			if err != nil {
				return nil, err
			}
			st, err := newLineFormatStage(s.text)
			if err != nil {
				return nil, errorAt(p.q, s.pos, "invalid line template: %v", err)
			}
			return st, nil
		case "drop", "keep":
			p.next()
			var names []string
			for {
				n, err := p.expect(tIdent)
				if err != nil {
					return nil, err
				}
				names = append(names, n.text)
				if p.peek().kind != tComma {
					break
				}
				p.next()
			}
			return &dropKeepStage{keep: t.text == "keep", names: names}, nil
		case "pattern", "unpack", "label_format", "unwrap", "decolorize", "distinct":
			return nil, errorAt(p.q, t.pos, "| %s is not supported by this simulator", t.text)
		}
	}
	f, err := p.labelFilterOr()
	if err != nil {
		return nil, err
	}
	return &labelFilterStage{f: f}, nil
}

func hasNamedGroup(re *regexp.Regexp) bool {
	for _, n := range re.SubexpNames()[1:] {
		if n != "" {
			return true
		}
	}
	return false
}

func (p *parser) labelFilterOr() (labelFilter, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	lhs, err := p.labelFilterAnd()
	if err != nil {
		return nil, err
	}
	for p.isIdent("or") {
		p.next()
		rhs, err := p.labelFilterAnd()
		if err != nil {
			return nil, err
		}
		lhs = &binaryLabelFilter{and: false, lhs: lhs, rhs: rhs}
	}
	return lhs, nil
}

func (p *parser) labelFilterAnd() (labelFilter, error) {
	lhs, err := p.labelFilterPrimary()
	if err != nil {
		return nil, err
	}
	for p.isIdent("and") || p.peek().kind == tComma {
		p.next()
		rhs, err := p.labelFilterPrimary()
		if err != nil {
			return nil, err
		}
		lhs = &binaryLabelFilter{and: true, lhs: lhs, rhs: rhs}
	}
	return lhs, nil
}

func (p *parser) labelFilterPrimary() (labelFilter, error) {
	if p.peek().kind == tLParen {
		p.next()
		f, err := p.labelFilterOr()
		if err != nil {
			return nil, err
		}
		if _, err := p.expect(tRParen); err != nil {
			return nil, err
		}
		return f, nil
	}
	name := p.next()
	if name.kind != tIdent {
		return nil, p.unexpected(name, "IDENTIFIER")
	}
	opTok := p.next()
	val := p.next()
	switch {
	case val.kind == tString:
		var op MatchType
		switch opTok.kind {
		case tEq, tEqEq:
			op = MatchEqual
		case tNeq:
			op = MatchNotEqual
		case tRe:
			op = MatchRegexp
		case tNre:
			op = MatchNotRegexp
		default:
			return nil, p.unexpected(opTok, "=", "!=", "=~", "!~")
		}
		m, err := newMatcher(name.text, op, val.text)
		if err != nil {
			return nil, errorAt(p.q, val.pos, "invalid regexp %q: %v", val.text, err)
		}
		return &stringLabelFilter{m: m}, nil
	case val.kind == tNumber || val.kind == tDuration:
		switch opTok.kind {
		case tEq, tEqEq, tNeq, tGt, tGte, tLt, tLte:
		default:
			return nil, p.unexpected(opTok, "==", "!=", ">", ">=", "<", "<=")
		}
		f := &numericLabelFilter{name: name.text, op: tokenNames[opTok.kind]}
		if f.op == "=" {
			f.op = "=="
		}
		if val.kind == tDuration {
			d, err := parseDuration(val.text)
			if err != nil {
				return nil, errorAt(p.q, val.pos, "invalid duration %q: %v", val.text, err)
			}
			f.duration, f.value = true, d.Seconds()
		} else {
			v, err := strconv.ParseFloat(val.text, 64)
			if err != nil {
				return nil, errorAt(p.q, val.pos, "invalid number %q", val.text)
			}
			f.value = v
		}
		return f, nil
	}
	return nil, p.unexpected(val, "STRING", "NUMBER", "DURATION")
}

func (p *parser) rangeAggregation() (Expr, error) {
	op := p.next()
	if _, err := p.expect(tLParen); err != nil {
		return nil, err
	}
	ra := &RangeAggregation{Op: op.text}
	// The selector may be parenthesised and the range may come before or
	// after the pipeline: {a="b"} |= "x" [5m] and {a="b"}[5m] |= "x".
	paren := p.peek().kind == tLParen
	if paren {
		p.next()
	}
	// logSelector also parses a pipeline that precedes the range.
	sel, err := p.logSelector()
	if err != nil {
		return nil, err
	}
	ra.Sel = sel
	if p.peek().kind == tLBracket {
		if err := p.rangeSpec(ra); err != nil {
			return nil, err
		}
		if err := p.pipeline(sel); err != nil {
			return nil, err
		}
		if paren {
			if _, err := p.expect(tRParen); err != nil {
				return nil, err
			}
		}
	} else {
		if err := p.pipeline(sel); err != nil {
			return nil, err
		}
		if paren {
			if _, err := p.expect(tRParen); err != nil {
				return nil, err
			}
		}
		if p.peek().kind != tLBracket {
			return nil, p.unexpected(p.peek(), "[")
		}
		if err := p.rangeSpec(ra); err != nil {
			return nil, err
		}
	}
	if _, err := p.expect(tRParen); err != nil {
		return nil, err
	}
	if p.isIdent("by") || p.isIdent("without") {
		return nil, errorAt(p.q, p.peek().pos, "grouping not allowed for %s aggregation", op.text)
	}
	return ra, nil
}

func (p *parser) rangeSpec(ra *RangeAggregation) error {
	p.next() // [
	d, err := p.expect(tDuration)
	if err != nil {
		return err
	}
	if ra.Range, err = parseDuration(d.text); err != nil || ra.Range <= 0 {
		return errorAt(p.q, d.pos, "invalid range %q", d.text)
	}
	if _, err := p.expect(tRBracket); err != nil {
		return err
	}
	if p.isIdent("offset") {
		p.next()
		neg := false
		if p.peek().kind == tSub {
			p.next()
			neg = true
		}
		o, err := p.expect(tDuration)
		if err != nil {
			return err
		}
		if ra.Offset, err = parseDuration(o.text); err != nil {
			return errorAt(p.q, o.pos, "invalid offset %q", o.text)
		}
		if neg {
			ra.Offset = -ra.Offset
		}
	}
	return nil
}

func (p *parser) grouping() (*Grouping, error) {
	kw := p.next()
	g := &Grouping{Without: kw.text == "without" || kw.text == "ignoring"}
	if _, err := p.expect(tLParen); err != nil {
		return nil, err
	}
	for p.peek().kind != tRParen {
		n, err := p.expect(tIdent)
		if err != nil {
			return nil, err
		}
		g.Labels = append(g.Labels, n.text)
		if p.peek().kind == tComma {
			p.next()
		}
	}
	p.next()
	return g, nil
}

func (p *parser) vectorAggregation() (Expr, error) {
	op := p.next()
	va := &VectorAggregation{Op: op.text}
	if p.isIdent("by") || p.isIdent("without") {
		g, err := p.grouping()
		if err != nil {
			return nil, err
		}
		va.Grouping = g
	}
	if _, err := p.expect(tLParen); err != nil {
		return nil, err
	}
	if op.text == "topk" || op.text == "bottomk" {
		n, err := p.expect(tNumber)
		if err != nil {
			return nil, err
		}
		k, err := strconv.ParseFloat(n.text, 64)
		if err != nil || k < 1 || k != math.Trunc(k) {
			return nil, errorAt(p.q, n.pos, "invalid parameter for %s: %q", op.text, n.text)
		}
		va.Param = k
		if _, err := p.expect(tComma); err != nil {
			return nil, err
		}
	}
	inner, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	if _, ok := inner.(*LogSelector); ok {
		return nil, errorAt(p.q, p.peek().pos, "syntax error: unexpected log selector, expecting a range aggregation")
	}
	va.Inner = inner
	if _, err := p.expect(tRParen); err != nil {
		return nil, err
	}
	if p.isIdent("by") || p.isIdent("without") {
		if va.Grouping != nil {
			return nil, errorAt(p.q, p.peek().pos, "syntax error: unexpected %s", p.peek().text)
		}
		g, err := p.grouping()
		if err != nil {
			return nil, err
		}
		va.Grouping = g
	}
	return va, nil
}

// parseDuration parses Prometheus-style durations (1h30m, 5m, 2d, 1w, 250ms).
func parseDuration(s string) (time.Duration, error) {
	var total time.Duration
	rest := s
	if rest == "" {
		return 0, fmt.Errorf("empty duration")
	}
	for rest != "" {
		j := 0
		for j < len(rest) && (rest[j] >= '0' && rest[j] <= '9' || rest[j] == '.') {
			j++
		}
		if j == 0 {
			return 0, fmt.Errorf("invalid duration %q", s)
		}
		n, err := strconv.ParseFloat(rest[:j], 64)
		if err != nil {
			return 0, fmt.Errorf("invalid duration %q", s)
		}
		u := unitLen(rest[j:])
		if u == 0 {
			return 0, fmt.Errorf("missing unit in duration %q", s)
		}
		var unit time.Duration
		switch rest[j : j+u] {
		case "ns":
			unit = time.Nanosecond
		case "us", "µs":
			unit = time.Microsecond
		case "ms":
			unit = time.Millisecond
		case "s":
			unit = time.Second
		case "m":
			unit = time.Minute
		case "h":
			unit = time.Hour
		case "d":
			unit = 24 * time.Hour
		case "w":
			unit = 7 * 24 * time.Hour
		case "y":
			unit = 365 * 24 * time.Hour
		}
		total += time.Duration(n * float64(unit))
		rest = rest[j+u:]
	}
	return total, nil
}
