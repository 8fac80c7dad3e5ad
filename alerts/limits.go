package alerts

import (
	"fmt"
	"sort"
	"strings"

	"github.com/prometheus/alertmanager/template"
)

// Limits on what one incident carries from a notification into its queue
// job (documented in the README). Alertmanager passes annotations through
// untouched, so a templated description can be megabytes; cut here, one
// oversized alert never makes its incident's job too large to queue.
const (
	// MaxLabelValue and MaxAnnotationValue bound one value, in bytes.
	MaxLabelValue      = 1 << 10
	MaxAnnotationValue = 4 << 10
	// MaxLabelBytes and MaxAnnotationBytes bound the names and values an
	// incident carries in all; past them, values are left out (the ones a
	// person reads first are kept first: summary, description, message).
	MaxLabelBytes      = 16 << 10
	MaxAnnotationBytes = 32 << 10
	// MaxGeneratorURL bounds the link back to the alert's source.
	MaxGeneratorURL = 2 << 10
)

// truncatedMark ends a value that was cut.
const truncatedMark = " …[truncated]"

// cutValue cuts s to at most n bytes (whole UTF-8 characters), marking the
// cut.
func cutValue(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return truncate(s, n-len(truncatedMark)) + truncatedMark
}

// annotationOrder puts the annotations a person reads first ahead of the
// rest (then by name), so that a budget drops the least useful ones.
var annotationOrder = map[string]int{"summary": 0, "description": 1, "message": 2, "runbook_url": 3}

// boundKV returns kv with every value cut to perValue and the whole kept
// within total bytes (names plus values); it reports how many entries were
// left out.
func boundKV(kv map[string]string, perValue, total int, first map[string]int) (map[string]string, int) {
	names := make([]string, 0, len(kv))
	for k := range kv {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		ri, iok := first[names[i]]
		rj, jok := first[names[j]]
		switch {
		case iok && jok:
			return ri < rj
		case iok != jok:
			return iok
		}
		return names[i] < names[j]
	})
	out := make(map[string]string, len(kv))
	used, dropped := 0, 0
	for _, k := range names {
		if len(k) > perValue {
			dropped++
			continue
		}
		v := cutValue(kv[k], perValue)
		if used+len(k)+len(v) > total {
			dropped++
			continue
		}
		used += len(k) + len(v)
		out[k] = v
	}
	return out, dropped
}

// BoundAlerts applies the limits to every alert of a notification in
// place and returns how many values were cut or left out (0: nothing was
// too large).
func BoundAlerts(alerts []template.Alert) int {
	changed := 0
	for i := range alerts {
		a := &alerts[i]
		labels, dl := boundKV(a.Labels, MaxLabelValue, MaxLabelBytes, nil)
		annotations, da := boundKV(a.Annotations, MaxAnnotationValue, MaxAnnotationBytes, annotationOrder)
		changed += dl + da + countCut(labels) + countCut(annotations)
		a.Labels, a.Annotations = labels, annotations
		if len(a.GeneratorURL) > MaxGeneratorURL {
			a.GeneratorURL = "" // a cut URL leads nowhere
			changed++
		}
	}
	return changed
}

func countCut(kv map[string]string) int {
	n := 0
	for _, v := range kv {
		if strings.HasSuffix(v, truncatedMark) {
			n++
		}
	}
	return n
}

// boundedMerge adds the entries of src that dst lacks while dst stays
// within total bytes (the incident's merged labels or annotations).
func boundedMerge(dst map[string]string, src template.KV, total int) {
	used := 0
	for k, v := range dst {
		used += len(k) + len(v)
	}
	for _, p := range src.SortedPairs() {
		if _, ok := dst[p.Name]; ok {
			continue
		}
		if used+len(p.Name)+len(p.Value) > total {
			continue
		}
		used += len(p.Name) + len(p.Value)
		dst[p.Name] = p.Value
	}
}

// describeBound is the log text of a notification whose alerts were cut.
func describeBound(n int) string {
	return fmt.Sprintf("%d label or annotation values over the limits (value %d/%d bytes, incident %d/%d bytes) were cut or left out",
		n, MaxLabelValue, MaxAnnotationValue, MaxLabelBytes, MaxAnnotationBytes)
}
