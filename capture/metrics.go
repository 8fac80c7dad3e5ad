package capture

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/prometheus/promql/parser"

	"github.com/autoheal/autoheal/investigate/tap"
	"github.com/autoheal/autoheal/scenario"
)

// lookback is Prometheus' default staleness lookback: an evaluation at t
// reads the last sample in (t-5m, t].
const lookback = 5 * time.Minute

// seriesSet accumulates samples per label set.
type seriesSet struct {
	order []string
	by    map[string]*seriesAcc
}

type seriesAcc struct {
	metric map[string]string
	points map[float64]string // unix seconds → value
}

func newSeriesSet() *seriesSet { return &seriesSet{by: map[string]*seriesAcc{}} }

func labelKey(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(m[k])
		b.WriteByte(0)
	}
	return b.String()
}

func (s *seriesSet) add(metric map[string]string, ts float64, v string) {
	k := labelKey(metric)
	acc, ok := s.by[k]
	if !ok {
		acc = &seriesAcc{metric: metric, points: map[float64]string{}}
		s.by[k] = acc
		s.order = append(s.order, k)
	}
	acc.points[ts] = v
}

func (s *seriesSet) series() []scenario.Series {
	out := make([]scenario.Series, 0, len(s.order))
	for _, k := range s.order {
		acc := s.by[k]
		ts := make([]float64, 0, len(acc.points))
		for t := range acc.points {
			ts = append(ts, t)
		}
		sort.Float64s(ts)
		sr := scenario.Series{Metric: acc.metric, Values: make([][2]any, len(ts))}
		for i, t := range ts {
			sr.Values[i] = [2]any{json.Number(strconv.FormatFloat(t, 'f', -1, 64)), acc.points[t]}
		}
		out = append(out, sr)
	}
	return out
}

// promAnswer is a Prometheus query API body.
type promAnswer struct {
	Status string `json:"status"`
	Data   struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	} `json:"data"`
}

type promSeries struct {
	Metric map[string]string `json:"metric"`
	Values [][2]any          `json:"values"`
	Value  [2]any            `json:"value"`
}

// addAnswer adds the samples of a matrix or vector answer.
func (s *seriesSet) addAnswer(body []byte) (int, error) {
	var a promAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return 0, err
	}
	if a.Status != "success" || (a.Data.ResultType != "matrix" && a.Data.ResultType != "vector") {
		return 0, nil
	}
	var rs []promSeries
	if err := json.Unmarshal(a.Data.Result, &rs); err != nil {
		return 0, err
	}
	n := 0
	for _, r := range rs {
		pts := r.Values
		if a.Data.ResultType == "vector" {
			pts = [][2]any{r.Value}
		}
		for _, p := range pts {
			ts, ok := p[0].(float64)
			v, ok2 := p[1].(string)
			if ok && ok2 {
				s.add(r.Metric, ts, v)
				n++
			}
		}
	}
	return n, nil
}

// rawQuery is a follow-up that reads the raw samples a PromQL expression
// used: an instant query of a range selector.
type rawQuery struct {
	Query string // {…}[Ns]
	At    time.Time
}

// metricsPlan splits the recorded Prometheus answers into samples that can
// be kept as they are and the raw reads still needed.
//
// An answer to a bare selector (the health check's {__name__=~"…"}, the
// namespace scope) holds the series at the query's steps; kept as samples
// at those instants, the same query over them answers the same values, so
// the replay sees what the investigation saw. Any other expression
// (rate(…), sums, ratios) computed its answer from raw samples the answer
// does not hold: those are read again, raw, over the same window.
func metricsPlan(answers []tap.HTTP) (*seriesSet, []rawQuery, []string) {
	set := newSeriesSet()
	var raws []rawQuery
	seen := map[string]bool{}
	var notes []string
	p := parser.NewParser(parser.Options{})
	unreadable := 0
	for _, a := range answers {
		path := a.URL.Path
		instant := strings.HasSuffix(path, "/api/v1/query")
		if !instant && !strings.HasSuffix(path, "/api/v1/query_range") {
			continue // series and label listings come from the samples at replay
		}
		q := a.URL.Query()
		expr, err := p.ParseExpr(q.Get("query"))
		if err != nil {
			unreadable++
			continue
		}
		if _, bare := expr.(*parser.VectorSelector); bare {
			if _, err := set.addAnswer(a.Body); err != nil {
				unreadable++
			}
			continue
		}
		var at time.Time
		var span time.Duration
		if instant {
			at = promTime(q.Get("time"))
		} else {
			at, span = promTime(q.Get("end")), promTime(q.Get("end")).Sub(promTime(q.Get("start")))
		}
		if at.IsZero() {
			unreadable++
			continue
		}
		parser.Inspect(expr, func(n parser.Node, path []parser.Node) error {
			vs, ok := n.(*parser.VectorSelector)
			if !ok {
				return nil
			}
			reach := lookback + vs.OriginalOffset
			for _, anc := range path {
				switch t := anc.(type) {
				case *parser.MatrixSelector:
					reach += t.Range
				case *parser.SubqueryExpr:
					reach += t.Range + t.OriginalOffset
				}
			}
			sel := &parser.VectorSelector{Name: vs.Name, LabelMatchers: vs.LabelMatchers}
			secs := int64((span + reach + time.Second - 1) / time.Second)
			rq := rawQuery{Query: fmt.Sprintf("%s[%ds]", sel.String(), secs), At: at}
			if k := rq.Query + "@" + at.String(); !seen[k] {
				seen[k] = true
				raws = append(raws, rq)
			}
			return nil
		})
	}
	if unreadable > 0 {
		notes = append(notes, fmt.Sprintf("%d Prometheus answers could not be read and were left out", unreadable))
	}
	return set, raws, notes
}

// promTime reads Prometheus' time parameters: unix seconds (with a
// fraction) or RFC 3339.
func promTime(s string) time.Time {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		sec := int64(f)
		return time.Unix(sec, int64((f-float64(sec))*1e9)).UTC()
	}
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}
