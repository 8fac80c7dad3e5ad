package main

import (
	"fmt"
	"strings"
	"time"
)

// maxCLIWindow bounds an explicit --since/--until window: backends refuse
// or crawl through longer ranges (Loki's max_query_length is 30 days, and
// trace searches return the newest traces of the range only).
const maxCLIWindow = 7 * 24 * time.Hour

// parseWindow reads `bot investigate --since/--until`. Each is an RFC 3339
// time or a Go duration: --until 1h ends the window an hour before now,
// --since 2h starts it two hours before its end. Unset, the end is now and
// the start is left to the engine (from the issue text, 1 to 24 hours back).
func parseWindow(since, until string, now time.Time) (start, end time.Time, err error) {
	end = now
	if strings.TrimSpace(until) != "" {
		if end, err = windowTime("--until", until, now); err != nil {
			return time.Time{}, time.Time{}, err
		}
		if end.After(now) {
			return time.Time{}, time.Time{}, fmt.Errorf("--until %s is in the future (now is %s)", end.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
		}
	}
	if strings.TrimSpace(since) == "" {
		return time.Time{}, end, nil
	}
	if start, err = windowTime("--since", since, end); err != nil {
		return time.Time{}, time.Time{}, err
	}
	if !start.Before(end) {
		return time.Time{}, time.Time{}, fmt.Errorf("--since %s must be before the end of the window (%s)", start.UTC().Format(time.RFC3339), end.UTC().Format(time.RFC3339))
	}
	if end.Sub(start) > maxCLIWindow {
		return time.Time{}, time.Time{}, fmt.Errorf("the window from --since to --until is %s; at most %s (7 days) can be investigated at once", end.Sub(start).Round(time.Minute), maxCLIWindow)
	}
	return start, end, nil
}

// windowTime parses an RFC 3339 time, or a positive Go duration counted
// back from ref.
func windowTime(flag, v string, ref time.Time) (time.Time, error) {
	v = strings.TrimSpace(v)
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s %q: want an RFC 3339 time (2026-11-29T14:00:00Z, 2026-11-29T15:00:00+01:00) or a duration back from %s (90m, 2h, 36h)",
			flag, v, map[string]string{"--since": "the window's end", "--until": "now"}[flag])
	}
	if d <= 0 {
		return time.Time{}, fmt.Errorf("%s %q: the duration must be positive (it counts back)", flag, v)
	}
	return ref.Add(-d), nil
}
