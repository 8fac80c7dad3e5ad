// Package benchstat holds the measurements the benchmarks share: latency
// percentiles and a process's memory from /proc. Benchmarks report with it;
// no production code uses it.
package benchstat

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Percentile returns the nearest-rank p-th percentile (p in 0..1) of ds,
// 0 for none; ds is left unsorted.
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(p*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// Millis expresses a duration in milliseconds, for ReportMetric.
func Millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// ProcStatusKB reads a field (VmRSS, VmHWM) of /proc/PID/status in KiB;
// pid 0 is this process. 0 when it cannot be read.
func ProcStatusKB(pid int, field string) float64 {
	name := "/proc/self/status"
	if pid != 0 {
		name = fmt.Sprintf("/proc/%d/status", pid)
	}
	f, err := os.Open(name)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			v, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return v
		}
	}
	return 0
}
