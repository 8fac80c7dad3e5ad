package investigate

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Records counts the identifier-like values failing lines carry (sku=..,
// tenant 4471, "order_id":"..."), to tell failures that follow specific
// records (bad data) from failures that hit every request. Bounded: at most
// maxRecordKeys keys and maxRecordValues values per key are tracked.
type Records struct {
	lines  int
	counts map[string]map[string]int
}

const (
	maxRecordKeys   = 40
	maxRecordValues = 60
)

var (
	kvPairRE = regexp.MustCompile(`"?([A-Za-z][A-Za-z0-9_.]{1,40})"?\s*[=:]\s*"?([A-Za-z0-9][A-Za-z0-9_.:/-]{1,60})"?`)
	wordIDRE = regexp.MustCompile(`(?i)\b(tenant|account|customer|merchant|order|invoice|sku|product|record|item|user|row|message|event|batch|file|shipment|subscription|store|partner|vendor|supplier|provider|client|listing|device|member|document|feed|site|shop|carrier|campaign)\s+#?([A-Za-z0-9][A-Za-z0-9_-]{2,40})\b`)
	// A record in a REST path: /v1/products/88123/price, /tenants/t-4471.
	pathIDRE  = regexp.MustCompile(`(?i)/(tenant|account|customer|merchant|order|invoice|sku|product|record|item|user|shipment|subscription|store|partner|vendor|supplier|listing|device|member|document|feed|site|shop|carrier|campaign)s?/([A-Za-z0-9][A-Za-z0-9_-]{2,40})\b`)
	idKeyRE   = regexp.MustCompile(`(?i)(^|[_.-])(id|ids|sku|skus|key|record|tenant|account|customer|product|order|user|merchant|invoice|item|code|uuid|ref|partner|vendor|supplier|provider|member|batch|file|row|offset|shipment|subscription|store|listing|device|message|feed|site|campaign)([_.-]|$)|Id$|ID$`)
	notIDKeys = map[string]bool{"level": true, "lvl": true, "status": true, "method": true, "path": true, "url": true, "route": true, "trace_id": true, "traceid": true, "span_id": true, "spanid": true, "trace_flags": true, "pid": true, "thread": true, "host": true, "hostname": true, "pod": true, "service": true, "logger": true, "time": true, "timestamp": true, "ts": true, "msg": true, "message": true, "caller": true, "env": true, "version": true, "code": false}
	// Attributes that describe the transport, the runtime or the
	// platform, never a business record (user_agent.original=Go-http-client/1.1).
	platformKeyRE = regexp.MustCompile(`(?i)user_?agent|^(http|net|network|url|server|peer|otel|telemetry|process|host|k8s|container|service|thread|code|exception|span|trace)\.|^client\.(address|port)|^db\.(system|name|statement|operation|user)|^rpc\.(system|service|method)|^messaging\.(system|operation|destination)`)
	tsLikeRE      = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}|^\d{1,2}:\d{2}`)
	hasDigitRE    = regexp.MustCompile(`\d`)
	uniqueishRE   = regexp.MustCompile(`^[0-9a-f]{16,}$`)
	sqlStateRE    = regexp.MustCompile(`^\d{2}[0-9A-Z]{3}$`)
)

// Add records one failing line.
func (r *Records) Add(text string) {
	if r.counts == nil {
		r.counts = map[string]map[string]int{}
	}
	r.lines++
	seen := map[string]bool{}
	add := func(k, v string) {
		k = strings.ToLower(k)
		// Record identifiers carry digits (SKU 4004217, tenant 4471,
		// MCH-0099121); constant tags (message_id=send_otp) do not.
		if notIDKeys[k] || !idKeyRE.MatchString(k) || platformKeyRE.MatchString(k) || tsLikeRE.MatchString(v) || uniqueishRE.MatchString(strings.ToLower(v)) || !hasDigitRE.MatchString(v) {
			return
		}
		if k == "code" && sqlStateRE.MatchString(v) {
			return // an SQLSTATE (22P02) is the error's code, not a record
		}
		if seen[k+"="+v] {
			return
		}
		seen[k+"="+v] = true
		m := r.counts[k]
		if m == nil {
			if len(r.counts) >= maxRecordKeys {
				return
			}
			m = map[string]int{}
			r.counts[k] = m
		}
		if _, ok := m[v]; !ok && len(m) >= maxRecordValues {
			m["…"]++
			return
		}
		m[v]++
	}
	for _, m := range kvPairRE.FindAllStringSubmatch(text, 20) {
		add(m[1], m[2])
	}
	for _, m := range pathIDRE.FindAllStringSubmatch(text, 10) {
		if hasDigitRE.MatchString(m[2]) {
			add(m[1], m[2])
		}
	}
	for _, m := range wordIDRE.FindAllStringSubmatch(text, 10) {
		if hasDigitRE.MatchString(m[2]) {
			add(m[1], m[2])
		}
	}
}

// Recurring returns the values of the key that concentrates failures on a
// few records: seen in most failing lines, with few distinct values each
// repeating. Empty when failures do not follow specific records.
func (r *Records) Recurring() (key string, values []string) {
	if r == nil || r.lines < 4 {
		return "", nil
	}
	bestShare := 0.0
	for k, m := range r.counts {
		total, distinct := 0, 0
		for v, n := range m {
			if v == "…" {
				distinct += n
				total += n
				continue
			}
			total += n
			distinct++
		}
		if total < r.lines/2 || total < 4 {
			continue // the key is not on most failing lines
		}
		if distinct > 5 || distinct*2 > total {
			continue // values vary from failure to failure: not specific records
		}
		share := float64(total) / float64(r.lines)
		if share > bestShare {
			bestShare, key = share, k
		}
	}
	if key == "" {
		return "", nil
	}
	m := r.counts[key]
	for v := range m {
		if v != "…" {
			values = append(values, v)
		}
	}
	sort.Slice(values, func(i, j int) bool {
		return m[values[i]] > m[values[j]] || (m[values[i]] == m[values[j]] && values[i] < values[j])
	})
	return key, values
}

// Attr renders the recurring records for a finding attribute ("" when none).
func (r *Records) Attr() string {
	k, vs := r.Recurring()
	if k == "" {
		return ""
	}
	parts := make([]string, 0, len(vs))
	for _, v := range vs {
		parts = append(parts, fmt.Sprintf("%s:%d", v, r.counts[k][v]))
	}
	return k + "=" + strings.Join(parts, ",")
}
