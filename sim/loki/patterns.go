package loki

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"time"
)

// patternStep is the pattern ingester's sample resolution: samples are
// counted in 10 s chunks, and a query step is a multiple of it.
const patternStep = 10 * time.Second

// The patterns endpoint (GET /loki/api/v1/patterns, Loki 3): the patterns
// detected in the lines of the streams a selector matches, with their level
// and per-step counts:
//
//	{"status":"success","data":[{"pattern":"<_> level=error msg=<_>","level":"error","samples":[[1711839260,1],...]}]}
//
// Loki serves it only with `pattern_ingester: enabled: true`; without it
// (the default) the route answers 404, and so does this simulator unless
// Options.Patterns is set. Patterns come from a simple tokenizer, not
// Loki's Drain: words holding a digit (ids, numbers, durations, addresses)
// become <_>, and runs of them one <_>.
func (h *Handler) patterns(w http.ResponseWriter, r *http.Request) {
	if !h.opts.Patterns {
		h.fail(w, r, http.StatusNotFound, errors.New("404 page not found"))
		return
	}
	if err := r.ParseForm(); err != nil {
		h.fail(w, r, http.StatusBadRequest, err)
		return
	}
	expr, err := Parse(r.Form.Get("query"))
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, err)
		return
	}
	sel, ok := expr.(*LogSelector)
	if !ok || len(sel.Stages) > 0 {
		h.fail(w, r, http.StatusBadRequest, errors.New("only stream selectors are supported: the query must be label matchers, e.g. {app=\"foo\"}"))
		return
	}
	now := h.now()
	end, err := parseTime(r.Form.Get("end"), now)
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, fmt.Errorf("invalid parameter \"end\": %w", err))
		return
	}
	start, err := parseTime(r.Form.Get("start"), end.Add(-defaultQueryRange))
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, fmt.Errorf("invalid parameter \"start\": %w", err))
		return
	}
	if end.Before(start) {
		h.fail(w, r, http.StatusBadRequest, errors.New("end timestamp must not be before or equal to start time"))
		return
	}
	step := time.Duration(math.Max(math.Floor(end.Sub(start).Seconds()/250), 1)) * time.Second
	if v := r.Form.Get("step"); v != "" {
		if step, err = parseStep(v); err != nil || step <= 0 {
			h.fail(w, r, http.StatusBadRequest, fmt.Errorf("invalid parameter \"step\": %q", v))
			return
		}
	}
	step = max(step.Round(patternStep), patternStep)

	type series struct {
		pattern, level string
		counts         map[int64]int64 // bucket start (s) -> lines
	}
	all := map[string]*series{}
	for _, s := range h.streams {
		if !matchesAll(sel.Matchers, s.labels) {
			continue
		}
		for _, e := range window(s.entries, start.UnixNano(), end.UnixNano()+1) {
			p, lvl := patternOf(e.line), levelOf(s.labels, e.line)
			key := lvl + "\x00" + p
			ser, ok := all[key]
			if !ok {
				ser = &series{pattern: p, level: lvl, counts: map[int64]int64{}}
				all[key] = ser
			}
			bucket := e.ts / int64(step) * int64(step)
			ser.counts[bucket/int64(time.Second)]++
		}
	}
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	data := make([]map[string]any, 0, len(keys))
	for _, k := range keys {
		ser := all[k]
		ts := make([]int64, 0, len(ser.counts))
		for t := range ser.counts {
			ts = append(ts, t)
		}
		sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
		samples := make([][2]int64, len(ts))
		for i, t := range ts {
			samples[i] = [2]int64{t, ser.counts[t]}
		}
		data = append(data, map[string]any{"pattern": ser.pattern, "level": ser.level, "samples": samples})
	}
	writeJSON(w, map[string]any{"status": "success", "data": data})
	h.record(r, http.StatusOK, map[string]any{"patterns": len(data)})
}

var (
	// variableRE is a word of identifier, path or address characters that
	// holds a digit: an id, a number, a duration, an address.
	variableRE = regexp.MustCompile(`[A-Za-z0-9_.:/+-]*[0-9][A-Za-z0-9_.:/+-]*`)
	repeatedRE = regexp.MustCompile(`<_>(?:[\s,]*<_>)+`)
	levelRE    = regexp.MustCompile(`(?i)\b(?:level|lvl|severity)[=:]\s*"?([a-z]+)`)
	levelWords = map[string]string{"error": "error", "err": "error", "fatal": "fatal", "critical": "critical", "crit": "critical",
		"warn": "warn", "warning": "warn", "info": "info", "debug": "debug", "trace": "trace", "panic": "critical"}
)

// patternOf replaces the variable parts of a line with <_>.
func patternOf(line string) string {
	p := variableRE.ReplaceAllString(strings.Join(strings.Fields(line), " "), "<_>")
	return repeatedRE.ReplaceAllString(p, "<_>")
}

// levelOf detects a line's level as Loki's detected_level does: a level
// label, a level=... field, a leading level word, else unknown.
func levelOf(labels map[string]string, line string) string {
	for _, k := range []string{"detected_level", "level", "severity"} {
		if v := levelWords[strings.ToLower(labels[k])]; v != "" {
			return v
		}
	}
	if m := levelRE.FindStringSubmatch(line); m != nil {
		if v := levelWords[strings.ToLower(m[1])]; v != "" {
			return v
		}
	}
	for _, f := range strings.Fields(line) {
		if v := levelWords[strings.ToLower(strings.Trim(f, "[]:"))]; v != "" {
			return v
		}
		break
	}
	return "unknown"
}
