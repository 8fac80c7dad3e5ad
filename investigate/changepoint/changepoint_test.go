package changepoint

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func noisy(r *rand.Rand, n int, level, noise float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = level + noise*r.NormFloat64()
	}
	return out
}

func TestDetectsStepAtItsOnset(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	xs := append(noisy(r, 40, 0.002, 0.0005), noisy(r, 20, 0.12, 0.01)...)
	c, ok := Detect(xs, Options{})
	require.True(t, ok)
	assert.Equal(t, Level, c.Kind)
	assert.Equal(t, 40, c.Index)
	assert.True(t, c.Up())
	assert.InDelta(t, 0.002, c.Before, 0.001)
	assert.InDelta(t, 0.12, c.After, 0.01)
	assert.Less(t, c.P, 0.001)
}

func TestDetectsDrop(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	xs := append(noisy(r, 30, 8.4e6, 2e4), noisy(r, 30, 2.1e5, 1e4)...)
	c, ok := Detect(xs, Options{})
	require.True(t, ok)
	assert.False(t, c.Up())
	assert.InDelta(t, 30, c.Index, 1)
	assert.Less(t, c.Effect, -0.9)
}

func TestIgnoresSpikesAndNoise(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	xs := noisy(r, 60, 100, 5)
	xs[20], xs[41] = 900, 1200 // two scrapes of a GC pause
	_, ok := Detect(xs, Options{})
	assert.False(t, ok, "spikes in a stable series are not a change point")

	_, ok = Detect(noisy(r, 120, 50, 10), Options{})
	assert.False(t, ok, "pure noise")
}

func TestMinimumEffect(t *testing.T) {
	// A clean but small shift: 100 -> 110 is +10%, below the default 50%.
	xs := make([]float64, 40)
	for i := range xs {
		xs[i] = 100
		if i >= 20 {
			xs[i] = 110
		}
	}
	_, ok := Detect(xs, Options{})
	assert.False(t, ok)
	c, ok := Detect(xs, Options{MinEffect: 0.05})
	require.True(t, ok)
	assert.Equal(t, 20, c.Index)
	assert.InDelta(t, 0.1, c.Effect, 1e-9)
}

func TestFromZero(t *testing.T) {
	xs := make([]float64, 30)
	for i := 18; i < 30; i++ {
		xs[i] = 5
	}
	c, ok := Detect(xs, Options{})
	require.True(t, ok)
	assert.Equal(t, 18, c.Index)
	assert.Equal(t, 0.0, c.Before)
	assert.Equal(t, 5.0, c.After)
	_, ok = Detect(make([]float64, 30), Options{})
	assert.False(t, ok, "a flat zero series")
}

func TestRampIsFoundWithinIt(t *testing.T) {
	xs := make([]float64, 60)
	for i := range xs {
		switch {
		case i < 30:
			xs[i] = 10
		case i < 40:
			xs[i] = 10 + float64(i-30)*9
		default:
			xs[i] = 100
		}
	}
	c, ok := Detect(xs, Options{})
	require.True(t, ok)
	assert.GreaterOrEqual(t, c.Index, 30)
	assert.LessOrEqual(t, c.Index, 40)
}

func TestSpreadChange(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	xs := append(noisy(r, 40, 200, 2), noisy(r, 40, 200, 60)...)
	c, ok := Detect(xs, Options{})
	require.True(t, ok)
	assert.Equal(t, Spread, c.Kind)
	assert.InDelta(t, 40, c.Index, 3)
	// Calmer is not an incident.
	_, ok = Detect(append(noisy(r, 40, 200, 60), noisy(r, 40, 200, 2)...), Options{})
	assert.False(t, ok)
}

func TestTooShort(t *testing.T) {
	_, ok := Detect([]float64{1, 1, 9, 9, 9}, Options{})
	assert.False(t, ok)
}

func TestRanksShareTies(t *testing.T) {
	assert.Equal(t, []float64{1.5, 1.5, 3, 4.5, 4.5}, ranks([]float64{0, 0, 1, 7, 7}))
	assert.Equal(t, 2.0, Median([]float64{3, 1, 2}))
	assert.True(t, math.Abs(Median([]float64{4, 1, 2, 3})-2.5) < 1e-12)
}
