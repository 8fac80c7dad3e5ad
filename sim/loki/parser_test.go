package loki

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseValid(t *testing.T) {
	tests := []struct {
		q     string
		check func(t *testing.T, e Expr)
	}{
		{`{app="shop", env!="dev", pod=~"cart-.+", level!~"debug|trace"}`, func(t *testing.T, e Expr) {
			sel := e.(*LogSelector)
			require.Len(t, sel.Matchers, 4)
			assert.Equal(t, MatchNotRegexp, sel.Matchers[3].Type)
			assert.True(t, sel.Matchers[2].Matches("cart-1"))
			assert.False(t, sel.Matchers[2].Matches("xcart-1"), "regexps are anchored")
		}},
		{"{app=`raw\\d`} |= `a\\b` != \"c\\\"d\" |~ `(?i)error` !~ \"x+\"", func(t *testing.T, e Expr) {
			sel := e.(*LogSelector)
			assert.Equal(t, `raw\d`, sel.Matchers[0].Value)
			require.Len(t, sel.Stages, 4)
			assert.Equal(t, []string{`a\b`}, sel.Stages[0].(*lineFilter).values)
			assert.Equal(t, []string{`c"d`}, sel.Stages[1].(*lineFilter).values)
		}},
		{`{app="a"} |= "x" or "y" | json | status >= 500 and method="GET", duration > 1.5s or (a="b")`, func(t *testing.T, e Expr) {
			sel := e.(*LogSelector)
			require.Len(t, sel.Stages, 3)
			assert.Equal(t, []string{"x", "y"}, sel.Stages[0].(*lineFilter).values)
			_, ok := sel.Stages[2].(*labelFilterStage).f.(*binaryLabelFilter)
			assert.True(t, ok)
		}},
		{`{app="a"} | logfmt | regexp "(?P<code>\\d{3})" | line_format "{{.code}}" | drop pod, node | keep code`, func(t *testing.T, e Expr) {
			assert.Len(t, e.(*LogSelector).Stages, 5)
		}},
		{`count_over_time({app="a"} |= "err" [5m])`, func(t *testing.T, e Expr) {
			ra := e.(*RangeAggregation)
			assert.Equal(t, 5*time.Minute, ra.Range)
			assert.Len(t, ra.Sel.Stages, 1)
		}},
		{`rate({app="a"}[1h30m] |= "err") `, func(t *testing.T, e Expr) {
			ra := e.(*RangeAggregation)
			assert.Equal(t, 90*time.Minute, ra.Range)
			assert.Len(t, ra.Sel.Stages, 1)
		}},
		{`sum by (level) (count_over_time({app="a"}[5m] offset 1h))`, func(t *testing.T, e Expr) {
			va := e.(*VectorAggregation)
			assert.Equal(t, []string{"level"}, va.Grouping.Labels)
			assert.Equal(t, time.Hour, va.Inner.(*RangeAggregation).Offset)
		}},
		{`sum(rate({app="a"}[5m])) without (pod) / 2 > bool 1`, func(t *testing.T, e Expr) {
			be := e.(*BinaryExpr)
			assert.Equal(t, ">", be.Op)
			assert.True(t, be.ReturnBool)
			assert.Equal(t, "/", be.LHS.(*BinaryExpr).Op, "/ binds tighter than >")
		}},
		{`topk(3, sum by (pod) (count_over_time({app="a"}[5m])))`, func(t *testing.T, e Expr) {
			assert.Equal(t, 3.0, e.(*VectorAggregation).Param)
		}},
		{"# a comment\n{app=\"a\"}", func(t *testing.T, e Expr) { assert.IsType(t, &LogSelector{}, e) }},
	}
	for _, tc := range tests {
		t.Run(tc.q, func(t *testing.T) {
			e, err := Parse(tc.q)
			require.NoError(t, err)
			tc.check(t, e)
		})
	}
}

func TestParseErrors(t *testing.T) {
	const emptyMatcher = `parse error : queries require at least one regexp or equality matcher that does not have an empty-compatible value. For instance, app=~".*" does not meet this requirement, but app=~".+" will`
	tests := []struct{ q, want string }{
		{`{}`, emptyMatcher},
		{`{app=~".*"}`, emptyMatcher},
		{`{app!="x"}`, emptyMatcher},
		{`count_over_time({app=""}[5m])`, emptyMatcher},
		{``, "parse error at line 1, col 1: syntax error: unexpected $end"},
		{`{app="a"`, "parse error at line 1, col 9: syntax error: unexpected $end, expecting , or }"},
		{`{app="a}`, "parse error at line 1, col 6: unterminated string"},
		{`{app=~"("}`, `parse error at line 1, col 7: invalid regexp "("`},
		{`{app="a"} |~ "[z-a]"`, `invalid regexp "[z-a]"`},
		{`{app="a"} |= 12`, "syntax error: unexpected 12, expecting STRING"},
		{`{app="a"} | pattern "<ip> <_>"`, "| pattern is not supported by this simulator"},
		{`{app="a"} | unwrap latency`, "| unwrap is not supported by this simulator"},
		{`sum_over_time({app="a"} | unwrap x [5m])`, "sum_over_time needs | unwrap"},
		{`count_over_time({app="a"})`, "syntax error: unexpected ), expecting ["},
		{`count_over_time({app="a"}[5m]) by (x)`, "grouping not allowed for count_over_time aggregation"},
		{`sum({app="a"})`, "unexpected log selector"},
		{`{app="a"} + 1`, "syntax error: unexpected +"},
		{`{app="a"} | regexp "(\\d+)"`, "at least one named capture must be supplied"},
		{"{app=\"a\"}\n| json |", "parse error at line 2, col 9: syntax error: unexpected $end, expecting IDENTIFIER"},
		{`{app="a"} @`, "unexpected character '@'"},
		{strings.Repeat("(", 100) + `1`, "nested deeper than 64"},
		{`{app="a"} | level > "x" `, "syntax error: unexpected >"},
	}
	for _, tc := range tests {
		t.Run(tc.q, func(t *testing.T) {
			_, err := Parse(tc.q)
			require.Error(t, err)
			var pe *ParseError
			require.ErrorAs(t, err, &pe)
			assert.Contains(t, err.Error(), tc.want)
			assert.True(t, strings.HasPrefix(err.Error(), "parse error"), err.Error())
		})
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"5m": 5 * time.Minute, "1h30m": 90 * time.Minute, "250ms": 250 * time.Millisecond,
		"2d": 48 * time.Hour, "1w": 7 * 24 * time.Hour, "1.5s": 1500 * time.Millisecond,
	} {
		got, err := parseDuration(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "5", "m", "5x"} {
		_, err := parseDuration(bad)
		assert.Error(t, err, bad)
	}
}

func TestLogfmtAndJSONExtraction(t *testing.T) {
	pairs, err := parseLogfmt(`level=error msg="user \"bob\" failed" duration=1.2s bare  code=500`)
	require.NoError(t, err)
	assert.Equal(t, [][2]string{{"level", "error"}, {"msg", `user "bob" failed`}, {"duration", "1.2s"}, {"code", "500"}}, pairs)
	_, err = parseLogfmt(`msg="unterminated`)
	assert.Error(t, err)

	lbls := newLabelsBuilder(map[string]string{"level": "info", "app": "shop"})
	_, keep := jsonStage{}.process(0, `{"level":"error","err":{"type":"TypeError","code":7},"tags":["a"],"http.status":503,"ok":true,"1st":"x"}`, lbls)
	require.True(t, keep)
	assert.Equal(t, map[string]string{
		"level": "info", "app": "shop", "level_extracted": "error", "err_type": "TypeError", "err_code": "7",
		"http_status": "503", "ok": "true", "_1st": "x",
	}, lbls.current)

	base := map[string]string{"app": "shop"}
	lbls = newLabelsBuilder(base)
	jsonStage{}.process(0, "not json", lbls)
	assert.Equal(t, errJSON, lbls.current[errorLabel])
	assert.NotEmpty(t, lbls.current[errorDetailsLabel])
	assert.Equal(t, map[string]string{"app": "shop"}, base, "the stream's labels are never modified")
}
