package prom

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/value"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb/chunkenc"
	"github.com/prometheus/prometheus/tsdb/chunks"
	"github.com/prometheus/prometheus/util/annotations"

	"github.com/autoheal/autoheal/scenario"
)

// samplesPerChunk is where the TSDB head cuts a chunk.
const samplesPerChunk = 120

// memStorage is an immutable storage.Queryable over a scenario's samples,
// held in Prometheus' own XOR chunks. It stands in for the TSDB head: the
// tsdb package imports Prometheus' configuration and with it the cloud
// service-discovery SDKs, which a simulator has no use for.
type memStorage struct {
	series []*memSeries // sorted by labels
}

type memSeries struct {
	lset   labels.Labels
	ts     []int64 // sample timestamps, to tell whether the series has samples in a range
	chunks []chunks.Meta
}

// newMemStorage loads the samples: unix-seconds timestamps and string
// values; an empty label value is the same as no label; of two samples at
// one timestamp the later one in the file wins. With stale, every run of
// samples ends with a staleness marker (withStaleMarkers).
func newMemStorage(metrics *scenario.Metrics, stale bool) (*memStorage, error) {
	type raw struct {
		lset labels.Labels
		t    []int64
		f    []float64
	}
	byKey := map[string]*raw{}
	var all []*raw
	if metrics != nil {
		for i, s := range metrics.Series {
			b := labels.NewScratchBuilder(len(s.Metric))
			for k, v := range s.Metric {
				if v != "" {
					b.Add(k, v)
				}
			}
			b.Sort()
			lset := b.Labels()
			if lset.IsEmpty() {
				return nil, fmt.Errorf("series %d: no labels", i)
			}
			r, ok := byKey[lset.String()]
			if !ok {
				r = &raw{lset: lset}
				byKey[lset.String()] = r
				all = append(all, r)
			}
			for j, pair := range s.Values {
				t, err := sampleTime(pair[0])
				if err != nil {
					return nil, fmt.Errorf("series %s sample %d: %w", lset, j, err)
				}
				f, err := sampleValue(pair[1])
				if err != nil {
					return nil, fmt.Errorf("series %s sample %d: %w", lset, j, err)
				}
				r.t = append(r.t, t)
				r.f = append(r.f, f)
			}
		}
	}
	st := &memStorage{series: make([]*memSeries, 0, len(all))}
	for _, r := range all {
		ms, err := encodeSeries(r.lset, r.t, r.f, stale)
		if err != nil {
			return nil, err
		}
		if len(ms.ts) > 0 {
			st.series = append(st.series, ms)
		}
	}
	slices.SortFunc(st.series, func(a, b *memSeries) int { return labels.Compare(a.lset, b.lset) })
	return st, nil
}

// encodeSeries orders the samples by time (optionally adds staleness
// markers) and appends them to XOR chunks.
func encodeSeries(lset labels.Labels, t []int64, f []float64, stale bool) (*memSeries, error) {
	idx := make([]int, len(t))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return t[idx[a]] < t[idx[b]] })
	ms := &memSeries{lset: lset}
	var vals []float64
	for _, i := range idx {
		if n := len(ms.ts); n > 0 && ms.ts[n-1] == t[i] {
			vals[n-1] = f[i]
			continue
		}
		ms.ts = append(ms.ts, t[i])
		vals = append(vals, f[i])
	}
	if stale {
		ms.ts, vals = withStaleMarkers(ms.ts, vals)
	}
	for lo := 0; lo < len(ms.ts); lo += samplesPerChunk {
		hi := min(lo+samplesPerChunk, len(ms.ts))
		chk := chunkenc.NewXORChunk()
		app, err := chk.Appender()
		if err != nil {
			return nil, fmt.Errorf("series %s: %w", lset, err)
		}
		for i := lo; i < hi; i++ {
			app.Append(0, ms.ts[i], vals[i])
		}
		ms.chunks = append(ms.chunks, chunks.Meta{Chunk: chk, MinTime: ms.ts[lo], MaxTime: ms.ts[hi-1]})
	}
	return ms, nil
}

// sampleTime reads unix seconds (a JSON number or string) as milliseconds.
func sampleTime(x any) (int64, error) {
	var f float64
	switch v := x.(type) {
	case float64:
		f = v
	case json.Number:
		var err error
		if f, err = v.Float64(); err != nil {
			return 0, fmt.Errorf("timestamp %q: %w", v, err)
		}
	case string:
		var err error
		if f, err = strconv.ParseFloat(v, 64); err != nil {
			return 0, fmt.Errorf("timestamp %q is not unix seconds", v)
		}
	default:
		return 0, fmt.Errorf("timestamp %v is not unix seconds", x)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("timestamp %v is not finite", f)
	}
	return int64(math.Round(f * 1000)), nil
}

func sampleValue(x any) (float64, error) {
	switch v := x.(type) {
	case string:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, fmt.Errorf("value %q is not a float", v)
		}
		return f, nil
	case float64:
		return v, nil
	case json.Number:
		return v.Float64()
	}
	return 0, fmt.Errorf("value %v is not a float", x)
}

// Querier implements storage.Queryable.
func (s *memStorage) Querier(mint, maxt int64) (storage.Querier, error) {
	return &memQuerier{st: s, mint: mint, maxt: maxt}, nil
}

// memQuerier sees the series with samples in [mint, maxt], like a TSDB
// querier with trimming on.
type memQuerier struct {
	st         *memStorage
	mint, maxt int64
}

func (q *memQuerier) matching(ms []*labels.Matcher) []*memSeries {
	var out []*memSeries
	for _, s := range q.st.series {
		lo := sort.Search(len(s.ts), func(i int) bool { return s.ts[i] >= q.mint })
		if lo == len(s.ts) || s.ts[lo] > q.maxt {
			continue
		}
		if matchesAll(s.lset, ms) {
			out = append(out, s)
		}
	}
	return out
}

func matchesAll(lset labels.Labels, ms []*labels.Matcher) bool {
	for _, m := range ms {
		if !m.Matches(lset.Get(m.Name)) {
			return false
		}
	}
	return true
}

// Select implements storage.Querier; series come sorted whether asked or not.
func (q *memQuerier) Select(_ context.Context, _ bool, hints *storage.SelectHints, ms ...*labels.Matcher) storage.SeriesSet {
	mint, maxt := q.mint, q.maxt
	if hints != nil {
		mint, maxt = max(mint, hints.Start), min(maxt, hints.End)
	}
	var out []storage.ChunkSeries
	for _, s := range q.matching(ms) {
		var chks []chunks.Meta
		for _, c := range s.chunks {
			if c.MaxTime >= mint && c.MinTime <= maxt {
				chks = append(chks, c)
			}
		}
		if len(chks) == 0 {
			continue
		}
		out = append(out, &storage.ChunkSeriesEntry{
			Lset:            s.lset,
			ChunkIteratorFn: func(chunks.Iterator) chunks.Iterator { return storage.NewListChunkSeriesIterator(chks...) },
		})
		if hints != nil && hints.Limit > 0 && len(out) == hints.Limit {
			break
		}
	}
	return storage.NewSeriesSetFromChunkSeriesSet(&chunkSeriesSlice{series: out, i: -1})
}

// LabelValues implements storage.LabelQuerier.
func (q *memQuerier) LabelValues(_ context.Context, name string, hints *storage.LabelHints, ms ...*labels.Matcher) ([]string, annotations.Annotations, error) {
	set := map[string]struct{}{}
	for _, s := range q.matching(ms) {
		if v := s.lset.Get(name); v != "" {
			set[v] = struct{}{}
		}
	}
	return sortedLimited(set, hints), nil, nil
}

// LabelNames implements storage.LabelQuerier.
func (q *memQuerier) LabelNames(_ context.Context, hints *storage.LabelHints, ms ...*labels.Matcher) ([]string, annotations.Annotations, error) {
	set := map[string]struct{}{}
	for _, s := range q.matching(ms) {
		s.lset.Range(func(l labels.Label) { set[l.Name] = struct{}{} })
	}
	return sortedLimited(set, hints), nil, nil
}

// Close implements storage.LabelQuerier.
func (q *memQuerier) Close() error { return nil }

func sortedLimited(set map[string]struct{}, hints *storage.LabelHints) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	if hints != nil && hints.Limit > 0 && len(out) > hints.Limit {
		out = out[:hints.Limit]
	}
	return out
}

// chunkSeriesSlice is a storage.ChunkSeriesSet over a slice.
type chunkSeriesSlice struct {
	series []storage.ChunkSeries
	i      int
}

func (c *chunkSeriesSlice) Next() bool                        { c.i++; return c.i < len(c.series) }
func (c *chunkSeriesSlice) At() storage.ChunkSeries           { return c.series[c.i] }
func (c *chunkSeriesSlice) Err() error                        { return nil }
func (c *chunkSeriesSlice) Warnings() annotations.Annotations { return nil }

// withStaleMarkers adds the staleness markers a scraping Prometheus writes
// when a series stops being exposed: one scrape interval (the series'
// median spacing) after a sample that no other follows within 1.5
// intervals, the last one included.
func withStaleMarkers(ts []int64, vals []float64) ([]int64, []float64) {
	if len(ts) < 2 {
		return ts, vals
	}
	gaps := make([]int64, 0, len(ts)-1)
	for i := 1; i < len(ts); i++ {
		gaps = append(gaps, ts[i]-ts[i-1])
	}
	slices.Sort(gaps)
	interval := gaps[len(gaps)/2]
	var ot []int64
	var ov []float64
	for i := range ts {
		ot, ov = append(ot, ts[i]), append(ov, vals[i])
		if i == len(ts)-1 || ts[i+1]-ts[i] > interval*3/2 {
			ot, ov = append(ot, ts[i]+interval), append(ov, math.Float64frombits(value.StaleNaN))
		}
	}
	return ot, ov
}
