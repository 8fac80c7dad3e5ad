package benchstat

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	assert.Equal(t, 50*time.Millisecond, Percentile(ds, 0.5))
	assert.Equal(t, 99*time.Millisecond, Percentile(ds, 0.99))
	assert.Equal(t, 100*time.Millisecond, Percentile(ds, 1))
	assert.Equal(t, 100*time.Millisecond, ds[0], "the input is not reordered")
	assert.Zero(t, Percentile(nil, 0.99))
	assert.Equal(t, 1.5, Millis(1500*time.Microsecond))
}

func TestProcStatusKB(t *testing.T) {
	assert.Greater(t, ProcStatusKB(0, "VmRSS"), 0.0, "this process has resident memory")
	assert.Zero(t, ProcStatusKB(0, "NoSuchField"))
	assert.Zero(t, ProcStatusKB(1<<30, "VmRSS"), "no such process")
}
