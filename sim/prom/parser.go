package prom

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ValueType is the static type of a PromQL expression.
type ValueType string

// Expression types, named as in Prometheus' error messages.
const (
	TypeScalar ValueType = "scalar"
	TypeVector ValueType = "instant vector"
	TypeMatrix ValueType = "range vector"
	TypeString ValueType = "string"
)

// Limits of the parser.
const (
	maxQueryBytes = 64 << 10
	maxNesting    = 128
)

// Node is a PromQL expression.
type Node interface{ Type() ValueType }

type (
	// NumberLiteral is a float constant.
	NumberLiteral struct{ Val float64 }
	// StringLiteral is a string constant.
	StringLiteral struct{ Val string }
	// ParenExpr is (expr).
	ParenExpr struct{ Expr Node }
	// UnaryExpr is -expr or +expr.
	UnaryExpr struct {
		Op   string
		Expr Node
	}
	// VectorSelector selects series by matchers; Offset and At shift the
	// evaluation time.
	VectorSelector struct {
		Name     string
		Matchers []*Matcher
		Offset   time.Duration
		At       *atModifier
	}
	// MatrixSelector is a vector selector over a range.
	MatrixSelector struct {
		VS    *VectorSelector
		Range time.Duration
	}
	// SubqueryExpr evaluates Expr at Step intervals over Range.
	SubqueryExpr struct {
		Expr   Node
		Range  time.Duration
		Step   time.Duration // 0: the default evaluation interval
		Offset time.Duration
		At     *atModifier
	}
	// Call is a function call.
	Call struct {
		Func *function
		Args []Node
	}
	// AggregateExpr is sum/avg/... by/without.
	AggregateExpr struct {
		Op       string
		Expr     Node
		Param    Node
		Grouping []string
		Without  bool
	}
	// BinaryExpr is an arithmetic, comparison or set operation.
	BinaryExpr struct {
		Op         string
		LHS, RHS   Node
		ReturnBool bool
		Matching   *VectorMatching
	}
)

// atModifier is "@ <ts>", "@ start()" or "@ end()".
type atModifier struct {
	ts    int64 // ms, when fixed
	start bool
	end   bool
}

// Cardinality of a vector matching.
type Cardinality int

// Cardinalities.
const (
	CardOneToOne Cardinality = iota
	CardManyToOne
	CardOneToMany
	CardManyToMany
)

// VectorMatching describes on/ignoring and group_left/group_right.
type VectorMatching struct {
	Card           Cardinality
	On             bool
	MatchingLabels []string
	Include        []string
}

func (*NumberLiteral) Type() ValueType  { return TypeScalar }
func (*StringLiteral) Type() ValueType  { return TypeString }
func (e *ParenExpr) Type() ValueType    { return e.Expr.Type() }
func (e *UnaryExpr) Type() ValueType    { return e.Expr.Type() }
func (*VectorSelector) Type() ValueType { return TypeVector }
func (*MatrixSelector) Type() ValueType { return TypeMatrix }
func (*SubqueryExpr) Type() ValueType   { return TypeMatrix }
func (e *Call) Type() ValueType         { return e.Func.ret }
func (*AggregateExpr) Type() ValueType  { return TypeVector }
func (e *BinaryExpr) Type() ValueType {
	if e.LHS.Type() == TypeScalar && e.RHS.Type() == TypeScalar {
		return TypeScalar
	}
	return TypeVector
}

// MatchType is a label matcher operator.
type MatchType string

// Matcher operators.
const (
	MatchEqual     MatchType = "="
	MatchNotEqual  MatchType = "!="
	MatchRegexp    MatchType = "=~"
	MatchNotRegexp MatchType = "!~"
)

// Matcher is a label matcher; regexps are fully anchored.
type Matcher struct {
	Name  string
	Type  MatchType
	Value string
	re    *regexp.Regexp
}

// NewMatcher compiles a matcher.
func NewMatcher(t MatchType, name, value string) (*Matcher, error) {
	m := &Matcher{Name: name, Type: t, Value: value}
	if t == MatchRegexp || t == MatchNotRegexp {
		re, err := regexp.Compile("^(?s:" + value + ")$")
		if err != nil {
			return nil, err
		}
		m.re = re
	}
	return m, nil
}

// Matches reports whether v satisfies the matcher.
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

var aggregators = map[string]bool{
	"sum": true, "avg": true, "count": true, "min": true, "max": true, "group": true, "stddev": true,
	"stdvar": true, "topk": true, "bottomk": true, "quantile": true, "count_values": true, "limitk": true,
	"limit_ratio": true,
}

var unsupportedAggregators = map[string]bool{"count_values": true, "limitk": true, "limit_ratio": true}

// ParseExpr parses a PromQL expression and checks its types.
func ParseExpr(q string) (Node, error) {
	if len(q) > maxQueryBytes {
		return nil, &ParseError{Line: 1, Col: 1, Msg: fmt.Sprintf("query of %d bytes exceeds the %d bytes this simulator accepts", len(q), maxQueryBytes)}
	}
	toks, err := lexPromQL(q)
	if err != nil {
		return nil, err
	}
	p := &pparser{q: q, toks: toks}
	if p.peek().kind == tkEOF {
		return nil, errAt(q, 0, "no expression found in input")
	}
	n, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tkEOF {
		return nil, p.unexpected(t, "")
	}
	return n, nil
}

type pparser struct {
	q     string
	toks  []tok
	i     int
	depth int
}

func (p *pparser) peek() tok { return p.toks[p.i] }
func (p *pparser) peekAt(k int) tok {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return p.toks[len(p.toks)-1]
}
func (p *pparser) next() tok {
	t := p.toks[p.i]
	if t.kind != tkEOF {
		p.i++
	}
	return t
}

func (p *pparser) unexpected(t tok, context string) error {
	msg := "unexpected " + t.String()
	if context != "" {
		msg += " " + context
	}
	return errAt(p.q, t.pos, "%s", msg)
}

func (p *pparser) expect(k tokKind, context string) (tok, error) {
	t := p.next()
	if t.kind != k {
		return t, p.unexpected(t, context)
	}
	return t, nil
}

func (p *pparser) keyword(t tok, kw string) bool {
	return t.kind == tkIdent && strings.EqualFold(t.val, kw)
}

func binaryPrec(t tok) (string, int) {
	switch t.kind {
	case tkIdent:
		switch strings.ToLower(t.val) {
		case "or":
			return "or", 1
		case "and", "unless":
			return strings.ToLower(t.val), 2
		case "atan2":
			return "atan2", 5
		}
	case tkEql, tkNeq, tkGtr, tkGte, tkLss, tkLte:
		return tokText[t.kind], 3
	case tkAdd, tkSub:
		return tokText[t.kind], 4
	case tkMul, tkDiv, tkMod:
		return tokText[t.kind], 5
	case tkPow:
		return "^", 6
	}
	return "", 0
}

func isComparison(op string) bool {
	switch op {
	case "==", "!=", ">", "<", ">=", "<=":
		return true
	}
	return false
}

func isSetOp(op string) bool { return op == "and" || op == "or" || op == "unless" }

func (p *pparser) enter() error {
	p.depth++
	if p.depth > maxNesting {
		return errAt(p.q, p.peek().pos, "expression nested deeper than %d levels", maxNesting)
	}
	return nil
}

func (p *pparser) expr(minPrec int) (Node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	lhs, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		opTok := p.peek()
		op, prec := binaryPrec(opTok)
		if prec == 0 || prec < minPrec {
			return lhs, nil
		}
		p.next()
		be := &BinaryExpr{Op: op, LHS: lhs}
		if p.keyword(p.peek(), "bool") {
			p.next()
			be.ReturnBool = true
		}
		if err := p.matching(be); err != nil {
			return nil, err
		}
		next := prec + 1 // left-associative
		if op == "^" {
			next = prec // right-associative
		}
		if be.RHS, err = p.expr(next); err != nil {
			return nil, err
		}
		if err := p.checkBinary(be, opTok); err != nil {
			return nil, err
		}
		lhs = be
	}
}

func (p *pparser) matching(be *BinaryExpr) error {
	t := p.peek()
	if !p.keyword(t, "on") && !p.keyword(t, "ignoring") {
		if isSetOp(be.Op) {
			be.Matching = &VectorMatching{Card: CardManyToMany}
		}
		return nil
	}
	p.next()
	vm := &VectorMatching{Card: CardOneToOne, On: strings.EqualFold(t.val, "on")}
	labels, err := p.labelList()
	if err != nil {
		return err
	}
	vm.MatchingLabels = labels
	if g := p.peek(); p.keyword(g, "group_left") || p.keyword(g, "group_right") {
		p.next()
		if isSetOp(be.Op) {
			return errAt(p.q, g.pos, "no grouping allowed for %q operation", be.Op)
		}
		vm.Card = CardManyToOne
		if strings.EqualFold(g.val, "group_right") {
			vm.Card = CardOneToMany
		}
		if p.peek().kind == tkLParen {
			if vm.Include, err = p.labelList(); err != nil {
				return err
			}
		}
	}
	if isSetOp(be.Op) {
		vm.Card = CardManyToMany
	}
	be.Matching = vm
	return nil
}

func (p *pparser) labelList() ([]string, error) {
	if _, err := p.expect(tkLParen, "in grouping opts, expected \"(\""); err != nil {
		return nil, err
	}
	labels := []string{}
	for p.peek().kind != tkRParen {
		t := p.next()
		switch t.kind {
		case tkIdent:
			if strings.Contains(t.val, ":") {
				return nil, errAt(p.q, t.pos, "unexpected %s in grouping opts, expected label", t)
			}
			labels = append(labels, t.val)
		case tkString:
			labels = append(labels, t.val)
		default:
			return nil, p.unexpected(t, "in grouping opts, expected label")
		}
		if p.peek().kind == tkComma {
			p.next()
		} else if p.peek().kind != tkRParen {
			return nil, p.unexpected(p.peek(), "in grouping opts, expected \")\" or \",\"")
		}
	}
	p.next()
	return labels, nil
}

func (p *pparser) checkBinary(be *BinaryExpr, opTok tok) error {
	lt, rt := be.LHS.Type(), be.RHS.Type()
	for _, t := range []ValueType{lt, rt} {
		if t != TypeScalar && t != TypeVector {
			return errAt(p.q, opTok.pos, "binary expression must contain only scalar and instant vector types")
		}
	}
	if be.ReturnBool && !isComparison(be.Op) {
		return errAt(p.q, opTok.pos, "bool modifier can only be used on comparison operators")
	}
	if isComparison(be.Op) && !be.ReturnBool && lt == TypeScalar && rt == TypeScalar {
		return errAt(p.q, opTok.pos, "comparisons between scalars must use BOOL modifier")
	}
	if isSetOp(be.Op) && (lt == TypeScalar || rt == TypeScalar) {
		return errAt(p.q, opTok.pos, "set operator %q not allowed in binary scalar expression", be.Op)
	}
	if be.Matching != nil && (lt != TypeVector || rt != TypeVector) && !isSetOp(be.Op) {
		return errAt(p.q, opTok.pos, "vector matching only allowed between instant vectors")
	}
	return nil
}

func (p *pparser) unary() (Node, error) {
	t := p.peek()
	if t.kind == tkSub || t.kind == tkAdd {
		p.next()
		// Unary minus binds looser than ^ : -2^2 is -(2^2).
		e, err := p.expr(6)
		if err != nil {
			return nil, err
		}
		if e.Type() != TypeScalar && e.Type() != TypeVector {
			return nil, errAt(p.q, t.pos, "unary expression only allowed on expressions of type scalar or instant vector, got %q", e.Type())
		}
		if n, ok := e.(*NumberLiteral); ok {
			if t.kind == tkSub {
				n.Val = -n.Val
			}
			return n, nil
		}
		if t.kind == tkAdd {
			return e, nil
		}
		return &UnaryExpr{Op: "-", Expr: e}, nil
	}
	return p.postfix()
}

// postfix parses a primary expression and its [range], [range:step],
// offset and @ modifiers.
func (p *pparser) postfix() (Node, error) {
	n, err := p.primary()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		switch {
		case t.kind == tkLBracket:
			if n, err = p.rangeOrSubquery(n); err != nil {
				return nil, err
			}
		case p.keyword(t, "offset"):
			p.next()
			d, err := p.signedDuration()
			if err != nil {
				return nil, err
			}
			if err := setOffset(n, d); err != nil {
				return nil, errAt(p.q, t.pos, "%s", err)
			}
		case t.kind == tkAt:
			p.next()
			at, err := p.atModifier()
			if err != nil {
				return nil, err
			}
			if err := setAt(n, at); err != nil {
				return nil, errAt(p.q, t.pos, "%s", err)
			}
		default:
			return n, nil
		}
	}
}

func (p *pparser) signedDuration() (time.Duration, error) {
	neg := false
	if p.peek().kind == tkSub {
		p.next()
		neg = true
	}
	t := p.next()
	if t.kind != tkDuration {
		return 0, p.unexpected(t, "in offset, expected duration")
	}
	d, err := parseDurationLit(t.val)
	if err != nil {
		return 0, errAt(p.q, t.pos, "%s", err)
	}
	if neg {
		d = -d
	}
	return d, nil
}

func (p *pparser) atModifier() (*atModifier, error) {
	t := p.next()
	switch {
	case t.kind == tkNumber || t.kind == tkSub || t.kind == tkAdd:
		sign := 1.0
		if t.kind != tkNumber {
			if t.kind == tkSub {
				sign = -1
			}
			t = p.next()
			if t.kind != tkNumber {
				return nil, p.unexpected(t, "in @, expected timestamp")
			}
		}
		f, err := strconv.ParseFloat(t.val, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, errAt(p.q, t.pos, "invalid timestamp for @ modifier: %q", t.val)
		}
		return &atModifier{ts: int64(math.Round(sign * f * 1000))}, nil
	case p.keyword(t, "start") || p.keyword(t, "end"):
		if _, err := p.expect(tkLParen, ""); err != nil {
			return nil, err
		}
		if _, err := p.expect(tkRParen, ""); err != nil {
			return nil, err
		}
		return &atModifier{start: strings.EqualFold(t.val, "start"), end: strings.EqualFold(t.val, "end")}, nil
	}
	return nil, p.unexpected(t, "in @, expected timestamp, start() or end()")
}

func setOffset(n Node, d time.Duration) error {
	switch x := n.(type) {
	case *VectorSelector:
		if x.Offset != 0 {
			return fmt.Errorf("offset may not be set multiple times")
		}
		x.Offset = d
	case *MatrixSelector:
		return setOffset(x.VS, d)
	case *SubqueryExpr:
		if x.Offset != 0 {
			return fmt.Errorf("offset may not be set multiple times")
		}
		x.Offset = d
	default:
		return fmt.Errorf("offset modifier must be preceded by an instant vector selector or range vector selector or a subquery")
	}
	return nil
}

func setAt(n Node, at *atModifier) error {
	switch x := n.(type) {
	case *VectorSelector:
		if x.At != nil {
			return fmt.Errorf("@ <timestamp> may not be set multiple times")
		}
		x.At = at
	case *MatrixSelector:
		return setAt(x.VS, at)
	case *SubqueryExpr:
		if x.At != nil {
			return fmt.Errorf("@ <timestamp> may not be set multiple times")
		}
		x.At = at
	default:
		return fmt.Errorf("@ modifier must be preceded by an instant vector selector or range vector selector or a subquery")
	}
	return nil
}

func (p *pparser) rangeOrSubquery(n Node) (Node, error) {
	open := p.next()
	rt := p.next()
	if rt.kind != tkDuration {
		return nil, p.unexpected(rt, "in subquery or range selector, expected duration")
	}
	rng, err := parseDurationLit(rt.val)
	if err != nil || rng <= 0 {
		return nil, errAt(p.q, rt.pos, "invalid range %q", rt.val)
	}
	if p.peek().kind == tkColon {
		p.next()
		sq := &SubqueryExpr{Expr: n, Range: rng}
		if p.peek().kind == tkDuration {
			st := p.next()
			if sq.Step, err = parseDurationLit(st.val); err != nil || sq.Step <= 0 {
				return nil, errAt(p.q, st.pos, "invalid subquery step %q", st.val)
			}
		}
		if _, err := p.expect(tkRBracket, "in subquery, expected \"]\""); err != nil {
			return nil, err
		}
		if t := n.Type(); t != TypeVector {
			return nil, errAt(p.q, open.pos, "subquery is only allowed on instant vector, got %s instead", t)
		}
		return sq, nil
	}
	if _, err := p.expect(tkRBracket, "in range selector, expected \"]\""); err != nil {
		return nil, err
	}
	vs, ok := n.(*VectorSelector)
	if !ok {
		return nil, errAt(p.q, open.pos, "ranges only allowed for vector selectors")
	}
	if vs.Offset != 0 || vs.At != nil {
		return nil, errAt(p.q, open.pos, "unexpected \"[\": offset and @ must follow the range")
	}
	return &MatrixSelector{VS: vs, Range: rng}, nil
}

func (p *pparser) primary() (Node, error) {
	t := p.peek()
	switch t.kind {
	case tkNumber:
		p.next()
		v, err := parseNumber(t.val)
		if err != nil {
			return nil, errAt(p.q, t.pos, "%s", err)
		}
		return &NumberLiteral{Val: v}, nil
	case tkString:
		p.next()
		return &StringLiteral{Val: t.val}, nil
	case tkLParen:
		p.next()
		e, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		if _, err := p.expect(tkRParen, "in paren expression"); err != nil {
			return nil, err
		}
		return &ParenExpr{Expr: e}, nil
	case tkLBrace:
		return p.selector("")
	case tkDuration:
		return nil, errAt(p.q, t.pos, "unexpected duration %q: durations are only allowed in range selectors, subqueries and offsets", t.val)
	case tkIdent:
		lower := strings.ToLower(t.val)
		switch {
		case lower == "inf" || lower == "nan":
			p.next()
			v, _ := parseNumber(t.val)
			return &NumberLiteral{Val: v}, nil
		case aggregators[lower] && (p.peekAt(1).kind == tkLParen || p.keyword(p.peekAt(1), "by") || p.keyword(p.peekAt(1), "without")):
			return p.aggregate()
		case p.peekAt(1).kind == tkLParen:
			return p.call()
		}
		p.next()
		return p.selector(t.val)
	}
	return nil, p.unexpected(t, "")
}

func (p *pparser) selector(name string) (Node, error) {
	vs := &VectorSelector{Name: name}
	if name != "" {
		m, _ := NewMatcher(MatchEqual, "__name__", name)
		vs.Matchers = append(vs.Matchers, m)
	}
	if p.peek().kind == tkLBrace {
		openPos := p.next().pos
		for p.peek().kind != tkRBrace {
			lt := p.next()
			var label string
			switch lt.kind {
			case tkIdent:
				label = lt.val
			case tkString:
				// A lone quoted name is the metric name (UTF-8 names).
				if k := p.peek().kind; k == tkComma || k == tkRBrace {
					if vs.Name != "" {
						return nil, errAt(p.q, lt.pos, "metric name must not be set twice: %q or %q", vs.Name, lt.val)
					}
					vs.Name = lt.val
					m, _ := NewMatcher(MatchEqual, "__name__", lt.val)
					vs.Matchers = append(vs.Matchers, m)
					if p.peek().kind == tkComma {
						p.next()
					}
					continue
				}
				label = lt.val
			default:
				return nil, p.unexpected(lt, "in label matching, expected label")
			}
			opTok := p.next()
			var mt MatchType
			switch opTok.kind {
			case tkAssign:
				mt = MatchEqual
			case tkNeq:
				mt = MatchNotEqual
			case tkEqlRe:
				mt = MatchRegexp
			case tkNeqRe:
				mt = MatchNotRegexp
			default:
				return nil, p.unexpected(opTok, "in label matching, expected one of \"=\", \"!=\", \"=~\" or \"!~\"")
			}
			vt := p.next()
			if vt.kind != tkString {
				return nil, p.unexpected(vt, "in label matching, expected string")
			}
			m, err := NewMatcher(mt, label, vt.val)
			if err != nil {
				return nil, errAt(p.q, vt.pos, "invalid regular expression in label matcher: %v", err)
			}
			if label == "__name__" && vs.Name != "" {
				return nil, errAt(p.q, lt.pos, "metric name must not be set twice: %q or %q", vs.Name, vt.val)
			}
			vs.Matchers = append(vs.Matchers, m)
			if p.peek().kind == tkComma {
				p.next()
			} else if p.peek().kind != tkRBrace {
				return nil, p.unexpected(p.peek(), "in label matching, expected \",\" or \"}\"")
			}
		}
		p.next()
		// At least one matcher must not match the empty string.
		ok := false
		for _, m := range vs.Matchers {
			if !m.Matches("") {
				ok = true
				break
			}
		}
		if !ok {
			return nil, errAt(p.q, openPos, "vector selector must contain at least one non-empty matcher")
		}
	}
	return vs, nil
}

func (p *pparser) aggregate() (Node, error) {
	opTok := p.next()
	op := strings.ToLower(opTok.val)
	if unsupportedAggregators[op] {
		return nil, errAt(p.q, opTok.pos, "aggregation %q is not supported by this simulator", op)
	}
	ae := &AggregateExpr{Op: op}
	grouping := func() error {
		kw := p.next()
		ae.Without = strings.EqualFold(kw.val, "without")
		labels, err := p.labelList()
		ae.Grouping = labels
		return err
	}
	modifierFirst := false
	if p.keyword(p.peek(), "by") || p.keyword(p.peek(), "without") {
		if err := grouping(); err != nil {
			return nil, err
		}
		modifierFirst = true
	}
	if _, err := p.expect(tkLParen, "in aggregation"); err != nil {
		return nil, err
	}
	var args []Node
	for p.peek().kind != tkRParen {
		a, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		args = append(args, a)
		if p.peek().kind == tkComma {
			p.next()
		} else if p.peek().kind != tkRParen {
			return nil, p.unexpected(p.peek(), "in aggregation, expected \",\" or \")\"")
		}
	}
	p.next()
	if !modifierFirst && (p.keyword(p.peek(), "by") || p.keyword(p.peek(), "without")) {
		if err := grouping(); err != nil {
			return nil, err
		}
	}
	needsParam := op == "topk" || op == "bottomk" || op == "quantile"
	want := 1
	if needsParam {
		want = 2
	}
	if len(args) != want {
		return nil, errAt(p.q, opTok.pos, "wrong number of arguments for aggregate expression provided, expected %d, got %d", want, len(args))
	}
	if needsParam {
		ae.Param = args[0]
		if ae.Param.Type() != TypeScalar {
			return nil, errAt(p.q, opTok.pos, "expected type scalar in aggregation parameter, got %s", ae.Param.Type())
		}
	}
	ae.Expr = args[len(args)-1]
	if ae.Expr.Type() != TypeVector {
		return nil, errAt(p.q, opTok.pos, "expected type instant vector in aggregation expression, got %s", ae.Expr.Type())
	}
	return ae, nil
}

func (p *pparser) call() (Node, error) {
	nameTok := p.next()
	fn, ok := functions[nameTok.val]
	if !ok {
		if unsupportedFunctions[nameTok.val] {
			return nil, errAt(p.q, nameTok.pos, "function %q is not supported by this simulator", nameTok.val)
		}
		return nil, errAt(p.q, nameTok.pos, "unknown function with name %q", nameTok.val)
	}
	p.next() // (
	c := &Call{Func: fn}
	for p.peek().kind != tkRParen {
		a, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		c.Args = append(c.Args, a)
		if p.peek().kind == tkComma {
			p.next()
		} else if p.peek().kind != tkRParen {
			return nil, p.unexpected(p.peek(), "in call, expected \",\" or \")\"")
		}
	}
	p.next()
	min, max := len(fn.args), len(fn.args)+fn.optional
	if fn.variadic {
		max = math.MaxInt
	}
	if len(c.Args) < min || len(c.Args) > max {
		exp := strconv.Itoa(min)
		if max != min {
			exp = fmt.Sprintf("at least %d", min)
		}
		return nil, errAt(p.q, nameTok.pos, "expected %s argument(s) in call to %q, got %d", exp, fn.name, len(c.Args))
	}
	for i, a := range c.Args {
		want := fn.argType(i)
		if got := a.Type(); got != want {
			return nil, errAt(p.q, nameTok.pos, "expected type %s in call to function %q, got %s", want, fn.name, got)
		}
	}
	return c, nil
}

func parseNumber(s string) (float64, error) {
	switch strings.ToLower(s) {
	case "inf", "+inf":
		return math.Inf(1), nil
	case "nan":
		return math.NaN(), nil
	}
	if len(s) > 2 && s[0] == '0' && (s[1]|0x20) == 'x' {
		n, err := strconv.ParseUint(s[2:], 16, 64)
		if err != nil {
			return 0, fmt.Errorf("bad number syntax: %q", s)
		}
		return float64(n), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("bad number syntax: %q", s)
	}
	return v, nil
}

// parseDurationLit parses a Prometheus duration: 1h30m, 5m, 2d, 1w, 1y, 250ms.
func parseDurationLit(s string) (time.Duration, error) {
	if s == "0" {
		return 0, nil
	}
	var total time.Duration
	rest := s
	for rest != "" {
		j := 0
		for j < len(rest) && isDigit(rest[j]) {
			j++
		}
		if j == 0 {
			return 0, fmt.Errorf("not a valid duration string: %q", s)
		}
		n, err := strconv.ParseInt(rest[:j], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("not a valid duration string: %q", s)
		}
		unit := ""
		for _, u := range durationUnits {
			if strings.HasPrefix(rest[j:], u) {
				unit = u
				break
			}
		}
		var mult time.Duration
		switch unit {
		case "ms":
			mult = time.Millisecond
		case "s":
			mult = time.Second
		case "m":
			mult = time.Minute
		case "h":
			mult = time.Hour
		case "d":
			mult = 24 * time.Hour
		case "w":
			mult = 7 * 24 * time.Hour
		case "y":
			mult = 365 * 24 * time.Hour
		default:
			return 0, fmt.Errorf("not a valid duration string: %q", s)
		}
		if n > int64(math.MaxInt64/mult) {
			return 0, fmt.Errorf("duration out of range: %q", s)
		}
		total += time.Duration(n) * mult
		rest = rest[j+len(unit):]
	}
	return total, nil
}
