package investigate

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The values a template's lines carry, keyed by the name written next to
// them ("AT=0.2000", "supplier=acme", "rejected=12"). Drain turns them
// into <*>; these statistics keep what the wildcard hides:
//
//   - a value shift: a key whose value was the same on every line of a
//     steady, periodic template, then changed once by an order of magnitude
//     and stayed (a reloaded rate, a limit, a price read from data);
//   - the value most lines carry for each non-numeric key (which entity a
//     burst of warnings is about);
//   - the worst rejection ratio of summary lines that count accepted and
//     rejected items ("imported=2060 rejected=3170").

// paramSeriesCap bounds the lines whose values are kept per template: a
// periodic summary is a few lines a minute at most; a busier template is
// traffic, whose values vary anyway.
const paramSeriesCap = 400

// paramValuesCap bounds the distinct values counted per key.
const paramValuesCap = 16

type paramObs struct {
	t time.Time
	v string
}

type paramTracker struct {
	lines  int
	series map[string][]paramObs // numeric values per key, while lines <= paramSeriesCap
	counts map[string]map[string]float64
	full   map[string]bool // keys with more distinct values than paramValuesCap
	total  float64
	worst  rejection
}

// rejection is a summary line's share of rejected items.
type rejection struct {
	ratio              float64
	rejected, accepted float64
	rejKey, accKey     string
	entity             string
	at                 time.Time
}

func newParamTracker() *paramTracker {
	return &paramTracker{series: map[string][]paramObs{}, counts: map[string]map[string]float64{}, full: map[string]bool{}}
}

// keyedValue is one key=value (or key:value) token of a line.
type keyedValue struct {
	key, val string
	num      float64
	numeric  bool
}

// keyedValues reads the key=value tokens of a line.
func keyedValues(line string) []keyedValue {
	var out []keyedValue
	for _, tok := range strings.Fields(line) {
		i := strings.IndexByte(tok, '=')
		if i <= 0 || i == len(tok)-1 {
			continue
		}
		key := strings.Trim(tok[:i], `"'{[(,;`)
		val := strings.Trim(tok[i+1:], `"'}]),;`)
		if !paramKey(key) || val == "" || len(val) > 64 {
			continue
		}
		kv := keyedValue{key: key, val: val}
		if f, err := strconv.ParseFloat(val, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			kv.num, kv.numeric = f, true
		}
		out = append(out, kv)
	}
	return out
}

// paramKey: a name, not a fragment of a URL, a path or an expression.
func paramKey(k string) bool {
	if len(k) == 0 || len(k) > 40 {
		return false
	}
	c := k[0]
	if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// add records one line.
func (p *paramTracker) add(t time.Time, line string, w float64) {
	p.lines++
	p.total += w
	kvs := keyedValues(line)
	if len(kvs) == 0 {
		return
	}
	var entity []string
	for _, kv := range kvs {
		if kv.numeric {
			if p.lines <= paramSeriesCap {
				p.series[kv.key] = append(p.series[kv.key], paramObs{t, kv.val})
			}
			continue
		}
		entity = append(entity, kv.key+"="+kv.val)
		if p.full[kv.key] {
			continue
		}
		m := p.counts[kv.key]
		if m == nil {
			m = map[string]float64{}
			p.counts[kv.key] = m
		}
		if _, ok := m[kv.val]; !ok && len(m) >= paramValuesCap {
			p.full[kv.key] = true
			delete(p.counts, kv.key)
			continue
		}
		m[kv.val] += w
	}
	if p.lines > paramSeriesCap {
		p.series = nil
	}
	// A summary line counting rejected and accepted items.
	var rej, acc *keyedValue
	for i := range kvs {
		kv := &kvs[i]
		if !kv.numeric || kv.num < 0 {
			continue
		}
		switch {
		case rejectKeyRE.MatchString(kv.key) && rej == nil:
			rej = kv
		case acceptKeyRE.MatchString(kv.key) && acc == nil:
			acc = kv
		}
	}
	if rej != nil && acc != nil && rej.num+acc.num > 0 {
		r := rej.num / (rej.num + acc.num)
		if r > p.worst.ratio {
			p.worst = rejection{ratio: r, rejected: rej.num, accepted: acc.num, rejKey: rej.key, accKey: acc.key, entity: strings.Join(entity, " "), at: t}
		}
	}
}

// attrs renders the statistics as template attributes.
func (p *paramTracker) attrs(into map[string]string) {
	if s, ok := p.shift(); ok {
		into["value_shift"] = s
	}
	if k, v, share, n := p.top(); k != "" {
		into["param_top"] = fmt.Sprintf("%s=%s\t%.2f\t%d", k, v, share, n)
	}
	if w := p.worst; w.rejected > 0 {
		into["rejection"] = fmt.Sprintf("%s\t%s=%s\t%s=%s\t%.2f\t%d", w.entity, w.rejKey, plainNum(w.rejected), w.accKey, plainNum(w.accepted), w.ratio, w.at.Unix())
	}
}

func plainNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// shift finds the one key whose value changed once, by at least tenfold,
// after at least three lines with the old value and two with the new:
// "key\told\tnew\tunix\tsteady" (steady: keys of the line whose values
// did not change at all).
func (p *paramTracker) shift() (string, bool) {
	if p.series == nil {
		return "", false
	}
	keys := make([]string, 0, len(p.series))
	for k := range p.series {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	type cand struct {
		key, old, new string
		at            time.Time
		mag           float64
	}
	var best *cand
	steady, shifted := 0, 0
	for _, k := range keys {
		obs := p.series[k]
		sort.SliceStable(obs, func(i, j int) bool { return obs[i].t.Before(obs[j].t) })
		runs := 1
		split := -1
		for i := 1; i < len(obs); i++ {
			if obs[i].v != obs[i-1].v {
				runs++
				split = i
			}
		}
		if runs == 1 {
			if len(obs) >= 3 {
				steady++
			}
			continue
		}
		if runs != 2 || split < 3 || len(obs)-split < 2 {
			continue
		}
		a, _ := strconv.ParseFloat(obs[0].v, 64)
		b, _ := strconv.ParseFloat(obs[split].v, 64)
		if a == 0 || b == 0 {
			continue
		}
		mag := math.Abs(math.Log10(math.Abs(b / a)))
		if mag < 1 {
			continue
		}
		shifted++
		if best == nil || mag > best.mag {
			best = &cand{key: k, old: obs[0].v, new: obs[split].v, at: obs[split].t, mag: mag}
		}
	}
	if best == nil {
		return "", false
	}
	return fmt.Sprintf("%s\t%s\t%s\t%d\t%d\t%d", best.key, best.old, best.new, best.at.Unix(), steady, shifted), true
}

// top is the non-numeric key whose most frequent value holds the largest
// share of the lines that carry the key (n: how many distinct values).
func (p *paramTracker) top() (key, val string, share float64, n int) {
	keys := make([]string, 0, len(p.counts))
	for k := range p.counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		m := p.counts[k]
		tot, bv, bn := 0.0, "", -1.0
		vs := make([]string, 0, len(m))
		for v := range m {
			vs = append(vs, v)
		}
		sort.Strings(vs)
		for _, v := range vs {
			tot += m[v]
			if m[v] > bn {
				bv, bn = v, m[v]
			}
		}
		if tot == 0 {
			continue
		}
		if s := bn / tot; key == "" || s > share || (s == share && len(m) > n) {
			key, val, share, n = k, bv, s, len(m)
		}
	}
	return
}

// valueShift is a decoded "value_shift" attribute.
type valueShift struct {
	key, old, new   string
	at              time.Time
	steady, shifted int
}

func decodeValueShift(s string) (valueShift, bool) {
	p := strings.Split(s, "\t")
	if len(p) != 6 {
		return valueShift{}, false
	}
	sec, err := strconv.ParseInt(p[3], 10, 64)
	if err != nil {
		return valueShift{}, false
	}
	st, _ := strconv.Atoi(p[4])
	sh, _ := strconv.Atoi(p[5])
	return valueShift{key: p[0], old: p[1], new: p[2], at: time.Unix(sec, 0).UTC(), steady: st, shifted: sh}, true
}

// rejectKeyRE and acceptKeyRE name the counters of a summary line.
var (
	rejectKeyRE = regexp.MustCompile(`(?i)^(?:rejected|invalid|failed|failures|errors|skipped|dropped|discarded|bad|quarantined)(?:_?(?:rows|records|items|lines|count|total))?$`)
	acceptKeyRE = regexp.MustCompile(`(?i)^(?:imported|accepted|ok|succeeded|success|loaded|inserted|processed|valid|good|written|upserted)(?:_?(?:rows|records|items|lines|count|total))?$`)
)
