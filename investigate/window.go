package investigate

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // zones named in messages ("since 9:45 ET") resolve in minimal images too
)

var (
	sinceClockRE = regexp.MustCompile(`(?i)\b(?:since|from|starting|started(?: at)?|after|around|about|at)\s*(?:about|around|approx\.?|approximately|roughly|like|maybe|~|≈)?\s*~?\s*(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.|h|utc|z)?\b(?:\s*\(?([A-Za-z]{2,5})\b)?`)
	lastDurRE    = regexp.MustCompile(`(?i)\b(?:for|in|over|during)?\s*(?:the\s+)?(?:last|past)\s+(\d+|an?|one|few|couple(?: of)?)?\s*(s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?)\b`)
	agoRE        = regexp.MustCompile(`(?i)\b(\d+|an?|one|few|couple(?: of)?)\s*(m|mins?|minutes?|h|hrs?|hours?)\s+ago\b`)
)

func unitDur(u string) time.Duration {
	u = strings.ToLower(u)
	switch {
	case strings.HasPrefix(u, "s"):
		return time.Second
	case strings.HasPrefix(u, "m"):
		return time.Minute
	case strings.HasPrefix(u, "h"):
		return time.Hour
	case strings.HasPrefix(u, "d"):
		return 24 * time.Hour
	}
	return 0
}

func countWord(s string) int {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "a", "an", "one":
		return 1
	case "few":
		return 3
	case "couple", "couple of":
		return 2
	}
	n, _ := strconv.Atoi(s)
	return n
}

// ParseSince finds when a human says the problem started ("since 10am",
// "since ~10:05", "for the last 20 min", "2h ago") relative to now (in now's
// location). ok is false when the text names no time.
func ParseSince(text string, now time.Time) (time.Time, bool) {
	if m := lastDurRE.FindStringSubmatch(text); m != nil {
		if d := unitDur(m[2]); d > 0 {
			return now.Add(-time.Duration(countWord(m[1])) * d), true
		}
	}
	if m := agoRE.FindStringSubmatch(text); m != nil {
		if d := unitDur(m[2]); d > 0 {
			return now.Add(-time.Duration(countWord(m[1])) * d), true
		}
	}
	for _, m := range sinceClockRE.FindAllStringSubmatch(text, -1) {
		h, _ := strconv.Atoi(m[1])
		mins := 0
		if m[2] != "" {
			mins, _ = strconv.Atoi(m[2])
		}
		suffix := strings.ToLower(strings.ReplaceAll(m[3], ".", ""))
		if h > 23 || mins > 59 || (m[2] == "" && suffix == "" && !strings.Contains(strings.ToLower(m[0]), "since")) {
			continue // "at 5" without a clock context is too ambiguous
		}
		hours := []int{h}
		switch suffix {
		case "pm":
			if h < 12 {
				hours = []int{h + 12}
			}
		case "am":
			if h == 12 {
				hours = []int{0}
			}
		default:
			if h < 12 {
				hours = append(hours, h+12)
			}
		}
		loc := now.Location()
		if strings.EqualFold(suffix, "utc") || strings.EqualFold(suffix, "z") {
			loc = time.UTC
		} else if z, ok := zoneOf(m[4]); ok {
			loc = z
		}
		local := now.In(loc)
		var best time.Time
		for _, hh := range hours {
			t := time.Date(local.Year(), local.Month(), local.Day(), hh, mins, 0, 0, loc)
			if t.After(now) {
				t = t.Add(-24 * time.Hour)
			}
			if t.After(best) {
				best = t
			}
		}
		if !best.IsZero() && now.Sub(best) <= 36*time.Hour {
			return best.In(now.Location()), true
		}
	}
	return time.Time{}, false
}

var wordRE = regexp.MustCompile(`[A-Za-z][A-Za-z0-9_.-]*`)

// stopWords never name a service on their own.
var stopWords = map[string]bool{
	"the": true, "a": true, "an": true, "is": true, "are": true, "and": true, "or": true, "of": true, "to": true,
	"in": true, "on": true, "for": true, "since": true, "errors": true, "error": true, "service": true, "svc": true,
	"throwing": true, "failing": true, "fails": true, "failed": true, "down": true, "slow": true, "it": true, "we": true,
	"from": true, "with": true, "at": true, "last": true, "min": true, "mins": true, "minutes": true, "am": true, "pm": true,
	"our": true, "all": true, "some": true, "api": true, "app": true, "stopped": true, "showing": true, "high": true,
	"rate": true, "latency": true, "pods": true, "pod": true, "prod": true, "production": true, "users": true, "see": true,
	"seeing": true, "getting": true, "lots": true, "lot": true, "hi": true, "hey": true, "please": true, "look": true, "can": true,
	"you": true, "this": true, "that": true, "there": true, "be": true, "been": true, "has": true, "have": true, "was": true,
}

// Words returns candidate service-name words from free text: single words
// and adjacent pairs ("product catalog" -> "product-catalog").
func Words(text string) []string {
	raw := wordRE.FindAllString(text, 64)
	var out []string
	seen := map[string]bool{}
	add := func(w string) {
		w = strings.Trim(strings.ToLower(w), ".-_")
		if len(w) < 2 || stopWords[w] || seen[w] {
			return
		}
		seen[w] = true
		out = append(out, w)
	}
	for i, w := range raw {
		add(w)
		if i+1 < len(raw) {
			add(w + "-" + raw[i+1])
		}
	}
	return out
}

// MatchServices returns the known services a text names: exact name matches
// after normalization (CartService, cart-svc, "the cart svc"), plurals, and
// one-letter typos for longer names.
func MatchServices(text string, known []string) []string {
	words := Words(text)
	var out []string
	seen := map[string]bool{}
	for _, svc := range known {
		ns := NormalizeServiceName(svc)
		if ns == "" || seen[svc] {
			continue
		}
		for _, w := range words {
			nw := NormalizeServiceName(w)
			if nw == "" {
				continue
			}
			if nw == ns || strings.TrimSuffix(nw, "s") == ns || (len(ns) >= 5 && editDistance(nw, ns) <= 1) {
				out = append(out, svc)
				seen[svc] = true
				break
			}
		}
	}
	return out
}

func editDistance(a, b string) int {
	if a == b {
		return 0
	}
	if abs(len(a)-len(b)) > 1 {
		return 2
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

var dayWordsRE = regexp.MustCompile(`(?i)\b(?:since|from|starting|started|began|begun|as of|over)\s+(?:the\s+)?(yesterday(?:\s+(?:morning|afternoon|evening|night))?|last night|this morning|this afternoon|(?:mon|tues|wednes|thurs|fri|satur|sun)day|the weekend|last week|the last (?:couple of |few )?days)\b`)

// ParseSinceCoarse is ParseSince plus coarse day words ("since yesterday
// evening", "this morning"): good enough to size a window, too vague to date
// an onset.
func ParseSinceCoarse(text string, now time.Time) (time.Time, bool) {
	if t, ok := ParseSince(text, now); ok {
		return t, true
	}
	if m := overDurRE.FindStringSubmatch(text); m != nil {
		n, _ := strconv.Atoi(m[1])
		if d := unitDur(m[2]); d > 0 && n > 0 {
			return now.Add(-time.Duration(n) * d), true
		}
	}
	if m := forDaysRE.FindStringSubmatch(text); m != nil {
		day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())
		if strings.HasPrefix(strings.ToLower(m[1]), "week") {
			return day.Add(-7 * 24 * time.Hour), true
		}
		return day.Add(-3 * 24 * time.Hour), true
	}
	return parseDayWords(text, now)
}

// forDaysRE: failures going on for an unstated number of days ("for days
// at least", "over the past few days", "for a couple of weeks").
var forDaysRE = regexp.MustCompile(`(?i)\b(?:for|over|during|in|all)\s+(?:the\s+)?(?:past\s+|last\s+)?(?:a\s+few\s+|several\s+|a\s+couple\s+(?:of\s+)?|many\s+)?(days|weeks?)\b`)

// overDurRE: SLO-style windows in alert text ("availability 99.4% over 3d",
// "error budget burn in the last 6h").
var overDurRE = regexp.MustCompile(`(?i)\b(?:over|across|during|within)\s+(?:the\s+)?(?:last\s+|past\s+)?(\d+)\s*(d|days?|h|hrs?|hours?)\b`)

// parseDayWords understands coarse times: "since yesterday evening",
// "since last night", "this morning", "since Monday".
func parseDayWords(text string, now time.Time) (time.Time, bool) {
	m := dayWordsRE.FindStringSubmatch(text)
	if m == nil {
		return time.Time{}, false
	}
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())
	w := strings.ToLower(m[1])
	switch {
	case strings.HasPrefix(w, "yesterday"):
		t := day.Add(-24 * time.Hour)
		switch {
		case strings.HasSuffix(w, "morning"):
			t = t.Add(6 * time.Hour)
		case strings.HasSuffix(w, "afternoon"):
			t = t.Add(12 * time.Hour)
		case strings.HasSuffix(w, "evening"), strings.HasSuffix(w, "night"):
			t = t.Add(17 * time.Hour)
		}
		return t, true
	case w == "last night":
		return day.Add(-24 * time.Hour).Add(20 * time.Hour), true
	case w == "this morning":
		return day.Add(6 * time.Hour), true
	case w == "this afternoon":
		return day.Add(12 * time.Hour), true
	case w == "the weekend", w == "last week", strings.HasPrefix(w, "the last"):
		return day.Add(-3 * 24 * time.Hour), true
	}
	for i := 1; i <= 7; i++ {
		d := day.Add(-time.Duration(i) * 24 * time.Hour)
		if strings.HasPrefix(strings.ToLower(d.Weekday().String()), w[:3]) {
			return d, true
		}
	}
	return time.Time{}, false
}

// zoneNames maps the time-zone abbreviations people write after a clock
// time ("since 9:45 ET") to their zones; daylight saving follows the date.
var zoneNames = map[string]string{
	"UTC": "UTC", "GMT": "Europe/London", "Z": "UTC",
	"ET": "America/New_York", "EST": "America/New_York", "EDT": "America/New_York",
	"CT": "America/Chicago", "CST": "America/Chicago", "CDT": "America/Chicago",
	"MT": "America/Denver", "MST": "America/Denver", "MDT": "America/Denver",
	"PT": "America/Los_Angeles", "PST": "America/Los_Angeles", "PDT": "America/Los_Angeles",
	"BST": "Europe/London", "WET": "Europe/Lisbon", "WEST": "Europe/Lisbon",
	"CET": "Europe/Paris", "CEST": "Europe/Paris", "EET": "Europe/Athens", "EEST": "Europe/Athens",
	"IST": "Asia/Kolkata", "SGT": "Asia/Singapore", "JST": "Asia/Tokyo", "KST": "Asia/Seoul",
	"AEST": "Australia/Sydney", "AEDT": "Australia/Sydney", "NZST": "Pacific/Auckland", "NZDT": "Pacific/Auckland",
}

func zoneOf(abbr string) (*time.Location, bool) {
	name, ok := zoneNames[strings.ToUpper(abbr)]
	if !ok {
		return nil, false
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, false
	}
	return loc, true
}
