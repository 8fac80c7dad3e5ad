package investigate

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestErrorExpressionsPlaceTheLine(t *testing.T) {
	rows := func(lines ...string) []numberedLine {
		var out []numberedLine
		for i, l := range lines {
			out = append(out, numberedLine{n: 20 + i, text: l})
		}
		return out
	}
	cases := []struct {
		name, msg string
		src       []string
		want      int // 0: no line holds it
	}{
		{"v8 not a function", "TypeError: fee.toFixed is not a function",
			[]string{"  const fee = pct < p.min_fee ? p.min_fee : pct;", "  // fee.toFixed(2) below", "    rate: rate.toFixed(6),", "    fee: fee.toFixed(2),"}, 23},
		{"v8 reading", "TypeError: Cannot read properties of undefined (reading 'sku')",
			[]string{"  const line = lines[i];", "  const s = line?.sku;", "  const sku = line.sku.trim();"}, 22},
		{"v8 old reading", "TypeError: Cannot read property 'length' of undefined",
			[]string{"  if (!items) return;", "  for (let i = 0; i < items.length; i++) {"}, 21},
		{"python attribute", "AttributeError: 'NoneType' object has no attribute 'items'",
			[]string{"    prefs = user.preferences", "    for k, v in prefs.items():"}, 21},
		{"python key", "KeyError: 'currency'",
			[]string{"    amount = row['amount']", "    cur = row[\"currency\"]"}, 21},
		{"java helpful npe", `java.lang.NullPointerException: Cannot invoke "String.trim()" because the return value of "com.acme.Order.getCoupon()" is null`,
			[]string{"        String id = order.getId();", "        String code = order.getCoupon().trim();"}, 21},
		{"ruby nil", "NoMethodError: undefined method `total' for nil:NilClass",
			[]string{"    cart = find_cart", "    cart.total * rate"}, 21},
		{"php member", "Error: Call to a member function format() on null",
			[]string{"        $d = $order->shippedAt;", "        return $d->format('Y-m-d');"}, 21},
		{"nothing named", "panic: runtime error: invalid memory address or nil pointer dereference",
			[]string{"	return s.cache.Get(k)"}, 0},
	}
	for _, c := range cases {
		exprs := errorExpressions(c.msg)
		l, ok := exprLine(rows(c.src...), exprs, 0)
		if c.want == 0 {
			assert.False(t, ok, c.name)
			continue
		}
		require.True(t, ok, c.name)
		assert.Equal(t, c.want, l.n, c.name)
	}
}

func TestExprChangeFindsTheContextLineTheChangeReaches(t *testing.T) {
	onset := time.Date(2026, 11, 3, 8, 9, 0, 0, time.UTC)
	const file = "services/fx-quote/src/quote.ts"
	ev := &evidence{onset: onset, known: []string{"fx-quote", "rate-feed"}, findings: []Finding{
		{Kind: KindChangeCorrelation, File: file, Time: onset.Add(-28 * time.Minute), Attrs: map[string]string{
			"added":   "24:  const fee = pct < p.min_fee ? p.min_fee : pct;\n26:  logger.debug({ fee }, 'priced quote');",
			"context": "27:  return {\n28:    rate: rate.toFixed(6),\n29:    fee: fee.toFixed(2),"}},
		{Kind: KindChangeCorrelation, File: "services/rate-feed/src/poller.ts", Time: onset.Add(-4 * time.Minute), Attrs: map[string]string{
			"added": "5:const fee = x; fee.toFixed(2)"}},
	}}
	c := &candidate{Service: "fx-quote", Support: []Finding{{Quote: "TypeError: fee.toFixed is not a function"}}}
	l, ok := ev.exprChange(c, candidateExpressions(c))
	require.True(t, ok)
	assert.Equal(t, file, l.change.File, "only the failing service's changes")
	assert.Equal(t, 29, l.line)

	other := &candidate{Service: "fx-quote", Support: []Finding{{Quote: "Error: connect ECONNREFUSED 10.0.0.7:5432"}}}
	_, ok = ev.exprChange(other, candidateExpressions(other))
	assert.False(t, ok, "an error that names no expression places nothing")
}

func TestCompiledFramesMapToTheirSource(t *testing.T) {
	paths := []string{"services/fx-quote/src/quote.ts", "services/fx-quote/src/db.ts", "services/order-intake/src/routes/quickOrder.ts", "services/web/src/routes/order.tsx"}
	p, _, ok := ResolveRepoPath(paths, "/app/dist/quote.js", "fx-quote")
	assert.False(t, ok, "no file of that name: the plain lookup finds nothing")
	p, _, ok = ResolveCompiledSource(paths, "/app/dist/quote.js", "fx-quote")
	require.True(t, ok)
	assert.Equal(t, "services/fx-quote/src/quote.ts", p)
	p, _, ok = ResolveCompiledSource(paths, "/usr/src/app/build/routes/quickOrder.js", "order-intake")
	require.True(t, ok)
	assert.Equal(t, "services/order-intake/src/routes/quickOrder.ts", p)
	p, _, ok = ResolveCompiledSource(paths, "/app/dist/routes/order.js", "web")
	require.True(t, ok)
	assert.Equal(t, "services/web/src/routes/order.tsx", p)
	_, _, ok = ResolveCompiledSource(paths, "/app/dist/other.js", "fx-quote")
	assert.False(t, ok)
	_, _, ok = ResolveCompiledSource(paths, "/app/quote.py", "fx-quote")
	assert.False(t, ok, "only compiled JavaScript")
}

func TestMapParseIntIsAHazard(t *testing.T) {
	onset := time.Date(2026, 11, 18, 9, 33, 0, 0, time.UTC)
	const file = "services/order-intake/src/routes/quickOrder.ts"
	ev := &evidence{onset: onset, findings: []Finding{{Kind: KindChangeCorrelation, File: file, Time: onset.Add(-99 * time.Minute),
		Attrs: map[string]string{"added": "20:  const skus = body.skus.split(\",\").map((s) => s.trim());\n21:  const quantities = body.quantities.split(\",\").map(parseInt);"}}}}
	l, what, ok := ev.hazardChange(&candidate{Service: "order-intake"}, "")
	require.True(t, ok)
	assert.Equal(t, 21, l.line)
	assert.Contains(t, what, "radix")
	for line, want := range map[string]bool{
		`xs.map(parseInt)`:               true,
		`xs.map( Number.parseInt )`:      true,
		`xs.map((s) => parseInt(s, 10))`: false,
		`xs.map(Number)`:                 false,
		`xs.map(parseFloat)`:             false,
	} {
		assert.Equal(t, want, mapParseInt.re.MatchString(line), line)
	}
	assert.Contains(t, hazardProse(RootCause{File: file, Line: 21}, `const q = s.split(",").map(parseInt);`), "radix")
}
