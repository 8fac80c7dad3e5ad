// Package changepoint finds where a series changes level (or spread), the
// way an SRE reads a dashboard: "error ratio flat at 0.2% until 14:02,
// 12% since". It is robust to spikes and to the heavy tails of operational
// data: the change is located with Pettitt's rank test (a CUSUM of ranks,
// so one outlier cannot place it) and accepted only when the medians of
// the two segments differ by a minimum effect, measured against their
// median absolute deviations.
package changepoint

import (
	"math"
	"sort"
)

// Options tune Detect. Zero values take the defaults.
type Options struct {
	// MinSegment is the least number of points on each side (default 3).
	MinSegment int
	// MaxP is the largest p-value of Pettitt's test accepted (default 0.01).
	MaxP float64
	// MinScore is the least robust z: the medians' difference over the
	// pooled MAD scale (default 3).
	MinScore float64
	// MinEffect is the least relative change of the median,
	// |after-before| / max(|before|, Floor) (default 0.5: ±50%).
	MinEffect float64
	// Floor keeps the relative effect finite for series that start at 0;
	// a change from 0 must reach at least this much (default 1e-9, i.e.
	// any non-zero level).
	Floor float64
}

func (o Options) withDefaults() Options {
	if o.MinSegment <= 0 {
		o.MinSegment = 3
	}
	if o.MaxP <= 0 {
		o.MaxP = 0.01
	}
	if o.MinScore <= 0 {
		o.MinScore = 3
	}
	if o.MinEffect <= 0 {
		o.MinEffect = 0.5
	}
	if o.Floor <= 0 {
		o.Floor = 1e-9
	}
	return o
}

// Kind says what changed.
type Kind string

const (
	Level  Kind = "level"  // the median moved
	Spread Kind = "spread" // the median stayed, the variability changed
)

// Change is a detected change point.
type Change struct {
	Kind Kind
	// Index is the first point of the new regime.
	Index int
	// Before and After are the medians of the two segments (for a spread
	// change, their median absolute deviations).
	Before, After float64
	// Score is the robust z of the difference; Effect the relative change
	// (after-before)/max(|before|, Floor), signed.
	Score, Effect float64
	// P is the approximate p-value of Pettitt's test.
	P float64
}

// Up reports whether the level (or spread) rose.
func (c Change) Up() bool { return c.After > c.Before }

// Detect returns the strongest change point of xs, if one passes the
// options' tests. NaN values are not allowed (callers drop missing points).
func Detect(xs []float64, o Options) (Change, bool) {
	o = o.withDefaults()
	if c, ok := detectLevel(xs, o); ok {
		return c, true
	}
	return detectSpread(xs, o)
}

func detectLevel(xs []float64, o Options) (Change, bool) {
	k, p, ok := pettitt(xs, o.MinSegment)
	if !ok || p > o.MaxP {
		return Change{}, false
	}
	k = refine(xs, k, o.MinSegment)
	before, after := xs[:k], xs[k:]
	mb, ma := median(before), median(after)
	scale := pooledScale(before, after, mb, ma)
	diff := math.Abs(ma - mb)
	if scale == 0 {
		// Both segments are flat: any difference is a clean step.
		scale = math.Max(1e-12, 1e-6*math.Max(math.Abs(mb), math.Abs(ma)))
	}
	score := diff / scale
	effect := (ma - mb) / math.Max(math.Abs(mb), o.Floor)
	if score < o.MinScore || math.Abs(effect) < o.MinEffect || diff <= 0 {
		return Change{}, false
	}
	return Change{Kind: Level, Index: k, Before: mb, After: ma, Score: score, Effect: effect, P: p}, true
}

// detectSpread looks for a change in variability: Pettitt's test on the
// absolute deviations from the median, measured against the deviations of
// the baseline (a spread that widens is judged by how calm it was).
func detectSpread(xs []float64, o Options) (Change, bool) {
	if len(xs) < 2*o.MinSegment {
		return Change{}, false
	}
	m := median(xs)
	dev := make([]float64, len(xs))
	for i, x := range xs {
		dev[i] = math.Abs(x - m)
	}
	k, p, ok := pettitt(dev, o.MinSegment)
	if !ok || p > o.MaxP {
		return Change{}, false
	}
	k = refine(dev, k, o.MinSegment)
	mb, ma := median(dev[:k]), median(dev[k:])
	if ma <= mb {
		return Change{}, false // calmer is not an incident
	}
	scale := 1.4826 * mad(dev[:k], mb)
	if scale == 0 {
		scale = math.Max(1e-12, 1e-6*ma)
	}
	score := (ma - mb) / scale
	effect := (ma - mb) / math.Max(mb, o.Floor)
	if score < o.MinScore || effect < math.Max(o.MinEffect, 2) {
		return Change{}, false
	}
	return Change{Kind: Spread, Index: k, Before: mb, After: ma, Score: score, Effect: effect, P: p}, true
}

// refine moves a split found by ranks to the nearby split that best
// separates the two means (ranks place a clean step within a point or two
// of it, not always on it).
func refine(xs []float64, k, minSeg int) int {
	n := len(xs)
	w := max(2, n/20)
	prefix := make([]float64, n+1)
	for i, x := range xs {
		prefix[i+1] = prefix[i] + x
	}
	best, bestK := -1.0, k
	for j := max(minSeg, k-w); j <= min(n-minSeg, k+w); j++ {
		a := prefix[j] / float64(j)
		b := (prefix[n] - prefix[j]) / float64(n-j)
		s := math.Abs(b-a) * math.Sqrt(float64(j)*float64(n-j)/float64(n))
		if s > best {
			best, bestK = s, j
		}
	}
	return bestK
}

// pettitt returns the split index maximising |U_k| (the first index of the
// second segment) and the test's approximate p-value. U_k = 2·Σ_{i<k} r_i
// − k(n+1) with r the (mid-)ranks of xs.
func pettitt(xs []float64, minSeg int) (int, float64, bool) {
	n := len(xs)
	if n < 2*minSeg || n < 4 {
		return 0, 1, false
	}
	r := ranks(xs)
	best, bestK := -1.0, 0
	sum := 0.0
	for k := 1; k < n; k++ {
		sum += r[k-1]
		if k < minSeg || n-k < minSeg {
			continue
		}
		u := math.Abs(2*sum - float64(k)*float64(n+1))
		if u > best {
			best, bestK = u, k
		}
	}
	if bestK == 0 || best <= 0 {
		return 0, 1, false
	}
	fn := float64(n)
	p := 2 * math.Exp(-6*best*best/(fn*fn*fn+fn*fn))
	return bestK, math.Min(p, 1), true
}

// ranks are 1-based mid-ranks (ties share their average rank).
func ranks(xs []float64) []float64 {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return xs[idx[a]] < xs[idx[b]] })
	r := make([]float64, len(xs))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && xs[idx[j+1]] == xs[idx[i]] {
			j++
		}
		avg := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = avg
		}
		i = j + 1
	}
	return r
}

// pooledScale is the normal-consistent MAD pooled over both segments.
func pooledScale(a, b []float64, ma, mb float64) float64 {
	da, db := mad(a, ma), mad(b, mb)
	na, nb := float64(len(a)), float64(len(b))
	return 1.4826 * math.Sqrt((da*da*na+db*db*nb)/(na+nb))
}

// Median of xs (xs is not modified).
func Median(xs []float64) float64 { return median(xs) }

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func mad(xs []float64, m float64) float64 {
	d := make([]float64, len(xs))
	for i, x := range xs {
		d[i] = math.Abs(x - m)
	}
	return median(d)
}
