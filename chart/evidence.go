package chart

import (
	"errors"
	"math"
	"strings"

	"github.com/autoheal/autoheal/investigate"
)

// ErrNoChart: the result has no metric that supports its conclusion.
var ErrNoChart = errors.New("chart: no metric of the blamed service moved at the onset")

// maxTitle keeps the title on one line of the image.
const maxTitle = 90

// FromEvidence is the chart of a result's evidence series.
func FromEvidence(ec *investigate.EvidenceChart) (Spec, error) {
	if ec == nil {
		return Spec{}, ErrNoChart
	}
	s := Spec{Title: title(ec), Unit: ec.Unit, Onset: ec.Onset, Limit: ec.Limit, LimitLabel: ec.LimitLabel}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range ec.Points {
		s.Points = append(s.Points, Point{T: p.T, V: p.V})
		if !math.IsNaN(p.V) && !math.IsInf(p.V, 0) {
			lo, hi = min(lo, p.V), max(hi, p.V)
		}
	}
	if ec.Baseline && hi > lo {
		s.BaselineLow, s.BaselineHigh = ec.BaselineLow, ec.BaselineHigh
		// A flat baseline (no errors at all before) is still drawn: a thin
		// band at its level, 2% of the axis.
		if pad := (hi - lo) * 0.01; s.BaselineHigh-s.BaselineLow < 2*pad {
			mid := (s.BaselineLow + s.BaselineHigh) / 2
			s.BaselineLow, s.BaselineHigh = max(mid-pad, min(lo, mid)), mid+pad
			if s.BaselineLow >= s.BaselineHigh {
				s.BaselineHigh = s.BaselineLow + 2*pad
			}
		}
	}
	if ec.Change != nil && !ec.Change.At.IsZero() {
		label := ec.Change.SHA
		if label == "" {
			label = "change"
		}
		s.Change = &Marker{At: ec.Change.At, Label: label + " " + ec.Change.At.UTC().Format("15:04")}
	}
	return s, nil
}

// Evidence draws a result's evidence chart (ErrNoChart when it has none).
func Evidence(ec *investigate.EvidenceChart) ([]byte, error) {
	s, err := FromEvidence(ec)
	if err != nil {
		return nil, err
	}
	return PNG(s)
}

func title(ec *investigate.EvidenceChart) string {
	t := strings.TrimSpace(ec.Service + ": " + ec.What)
	if r := []rune(t); len(r) > maxTitle {
		t = string(r[:maxTitle-1]) + "…"
	}
	return t
}
