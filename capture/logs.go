package capture

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/autoheal/autoheal/investigate/tap"
	"github.com/autoheal/autoheal/scenario"
)

// logEntry is one log line with its stream labels.
type logEntry struct {
	labels map[string]string
	key    string // labelKey(labels)
	ts     int64  // nanoseconds
	line   string
}

// logSet accumulates log lines, each once, in the order they were seen.
type logSet struct {
	entries []logEntry
	seen    map[string]bool
	bytes   int64
}

func newLogSet() *logSet { return &logSet{seen: map[string]bool{}} }

// add keeps an entry unless it is already there; it reports whether it
// was new.
func (s *logSet) add(labels map[string]string, ts int64, line string) bool {
	key := labelKey(labels)
	id := key + "\x01" + strconv.FormatInt(ts, 10) + "\x01" + line
	if s.seen[id] {
		return false
	}
	s.seen[id] = true
	s.entries = append(s.entries, logEntry{labels: labels, key: key, ts: ts, line: line})
	s.bytes += int64(len(line) + 40)
	return true
}

// lokiQuery is one recorded log query: what it asked and how many lines
// came back, to know whether the investigation saw all of them.
type lokiQuery struct {
	Query      string
	Start, End int64 // nanoseconds
	Limit      int
	Lines      int
	Oldest     int64 // the oldest line returned (backward queries)
}

// Full reports whether the query hit its limit: more lines may exist in
// its range than the investigation read.
func (q lokiQuery) Full() bool { return q.Limit > 0 && q.Lines >= q.Limit }

type lokiStreams struct {
	Status string `json:"status"`
	Data   struct {
		ResultType string `json:"resultType"`
		Result     []struct {
			Stream map[string]string `json:"stream"`
			Values [][2]string       `json:"values"`
		} `json:"result"`
	} `json:"data"`
}

// addLokiAnswers adds the lines of log queries (resultType streams); metric
// queries (line counts) are recomputed from the lines at replay. It
// returns the queries read, with how many lines each returned.
func (s *logSet) addLokiAnswers(answers []tap.HTTP) []lokiQuery {
	var qs []lokiQuery
	for _, a := range answers {
		if !strings.HasSuffix(a.URL.Path, "/query_range") && !strings.HasSuffix(a.URL.Path, "/query") {
			continue
		}
		var body lokiStreams
		if json.Unmarshal(a.Body, &body) != nil || body.Data.ResultType != "streams" {
			continue
		}
		p := a.URL.Query()
		q := lokiQuery{Query: p.Get("query"), Start: lokiTime(p.Get("start")), End: lokiTime(p.Get("end"))}
		q.Limit, _ = strconv.Atoi(p.Get("limit"))
		for _, st := range body.Data.Result {
			for _, v := range st.Values {
				ts, err := strconv.ParseInt(v[0], 10, 64)
				if err != nil {
					continue
				}
				q.Lines++
				if q.Oldest == 0 || ts < q.Oldest {
					q.Oldest = ts
				}
				s.add(st.Stream, ts, v[1])
			}
		}
		qs = append(qs, q)
	}
	return qs
}

// lokiTime reads Loki's time parameters: unix nanoseconds (or seconds) or
// RFC 3339.
func lokiTime(v string) int64 {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 1e12 {
			return n * int64(time.Second)
		}
		return n
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return int64(f * 1e9)
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return 0
	}
	return t.UnixNano()
}

// streams renders entries in the Loki push shape: one stream per label
// set (in first-seen order), values in time order.
func logStreams(entries []logEntry) []scenario.LogStream {
	var order []string
	by := map[string]*scenario.LogStream{}
	type tv struct {
		ts   int64
		line string
	}
	vals := map[string][]tv{}
	for _, e := range entries {
		if _, ok := by[e.key]; !ok {
			by[e.key] = &scenario.LogStream{Stream: e.labels}
			order = append(order, e.key)
		}
		vals[e.key] = append(vals[e.key], tv{e.ts, e.line})
	}
	out := make([]scenario.LogStream, 0, len(order))
	for _, k := range order {
		vs := vals[k]
		sort.SliceStable(vs, func(i, j int) bool { return vs[i].ts < vs[j].ts })
		st := by[k]
		for _, v := range vs {
			st.Values = append(st.Values, []string{strconv.FormatInt(v.ts, 10), v.line})
		}
		out = append(out, *st)
	}
	return out
}
