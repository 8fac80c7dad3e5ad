package prom

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
)

func ramp(name string, labels map[string]string, t0 time.Time, vals ...float64) Series {
	m := map[string]string{"__name__": name}
	for k, v := range labels {
		m[k] = v
	}
	s := Series{Metric: m}
	for i, v := range vals {
		s.Points = append(s.Points, Point{T: t0.Add(time.Duration(i) * time.Minute), V: v})
	}
	return s
}

func TestUsageAtItsLimitByName(t *testing.T) {
	t0 := time.Date(2026, 6, 15, 12, 30, 0, 0, time.UTC)
	inst := map[string]string{"job": "signal", "instance": "signal-1:8443"}
	byName := map[string][]Series{
		"process_open_fds": {ramp("process_open_fds", inst, t0, 1010, 1017, 1020, 1024, 1024)},
		"process_max_fds":  {ramp("process_max_fds", inst, t0, 1024, 1024, 1024, 1024, 1024)},
	}
	fs := usageAtLimit(byName)
	require.Len(t, fs, 1, "the window opens near the ceiling and touches it")
	assert.Equal(t, "signal", fs[0].Service)
	assert.Equal(t, "go-fd", fs[0].Signature)
	assert.Equal(t, investigate.ErrResourceExhaustion, fs[0].ErrorType)
	assert.Equal(t, t0.Add(3*time.Minute), fs[0].Time)

	// Always at the ceiling is how it runs, not a change.
	byName["process_open_fds"] = []Series{ramp("process_open_fds", inst, t0, 1024, 1024, 1024, 1024)}
	assert.Empty(t, usageAtLimit(byName))
	// Far from it: nothing.
	byName["process_open_fds"] = []Series{ramp("process_open_fds", inst, t0, 200, 260, 300, 310)}
	assert.Empty(t, usageAtLimit(byName))

	// Headroom series breach by falling to their limit; labels pair them.
	pod0 := map[string]string{"job": "broker", "pod": "broker-0", "instance": "broker-0:15692"}
	pod1 := map[string]string{"job": "broker", "pod": "broker-1", "instance": "broker-1:15692"}
	byName = map[string][]Series{
		"broker_disk_space_available_bytes": {ramp("broker_disk_space_available_bytes", pod0, t0, 9e9, 5e9, 2.5e9, 1.9e9), ramp("broker_disk_space_available_bytes", pod1, t0, 9e9, 8e9, 7.5e9, 7e9)},
		"broker_disk_space_available_limit_bytes": {ramp("broker_disk_space_available_limit_bytes", map[string]string{"job": "broker", "pod": "broker-0"}, t0, 2e9, 2e9, 2e9, 2e9),
			ramp("broker_disk_space_available_limit_bytes", map[string]string{"job": "broker", "pod": "broker-1"}, t0, 2e9, 2e9, 2e9, 2e9)},
	}
	fs = usageAtLimit(byName)
	require.Len(t, fs, 1)
	assert.Equal(t, "disk-full", fs[0].Signature)
	assert.Equal(t, "broker", fs[0].Service)
}

func TestAlarmGaugeRaised(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 22, 40, 0, 0, time.UTC)
	byName := map[string][]Series{"broker_alarms_free_disk_space_watermark": {
		ramp("broker_alarms_free_disk_space_watermark", map[string]string{"job": "broker", "pod": "broker-0"}, t0, 0, 0, 1, 1),
		ramp("broker_alarms_free_disk_space_watermark", map[string]string{"job": "broker", "pod": "broker-1"}, t0, 0, 0, 0, 0),
	}}
	fs := alarmsRaised(byName)
	require.Len(t, fs, 1)
	assert.Equal(t, "disk-full", fs[0].Signature)
	assert.Equal(t, t0.Add(2*time.Minute), fs[0].Time)
	// An alarm on all along is not news.
	byName["broker_alarms_free_disk_space_watermark"] = []Series{ramp("broker_alarms_free_disk_space_watermark", map[string]string{"job": "broker"}, t0, 1, 1, 1)}
	assert.Empty(t, alarmsRaised(byName))
}
