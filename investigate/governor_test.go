package investigate

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestGovernorBands(t *testing.T) {
	two := []Family{FamilyTraces, FamilyLogs}
	one := []Family{FamilyTraces}
	cases := []struct {
		name    string
		claimed Band
		in      GovernorInput
		want    Band
		note    string
	}{
		{"everything", BandHigh, GovernorInput{ErrorTypeKnown: true, FileAnchored: true, SourceRead: true, Corroborating: two, Failures: 9}, BandHigh, "HIGH"},
		{"no second family", BandHigh, GovernorInput{ErrorTypeKnown: true, FileAnchored: true, SourceRead: true, Corroborating: one, Failures: 9}, BandMedium, "two independent families"},
		{"source not read", BandHigh, GovernorInput{ErrorTypeKnown: true, FileAnchored: true, Corroborating: two, Failures: 9}, BandMedium, "reading the source"},
		{"reproduced", BandHigh, GovernorInput{ErrorTypeKnown: true, FileAnchored: true, SourceRead: true, Reproduced: true, Corroborating: one, Failures: 9}, BandHigh, ""},
		{"contested", BandHigh, GovernorInput{ErrorTypeKnown: true, FileAnchored: true, SourceRead: true, Corroborating: two, Failures: 9, Contested: "oom in cart"}, BandMedium, "ruling out oom in cart"},
		{"one-off", BandHigh, GovernorInput{ErrorTypeKnown: true, FileAnchored: true, SourceRead: true, Corroborating: two, Failures: 2}, BandMedium, "one-off"},
		{"heuristic line", BandHigh, GovernorInput{ErrorTypeKnown: true, FileAnchored: true, SourceRead: true, Corroborating: two, Failures: 9, HeuristicLine: true}, BandMedium, "exact setting"},
		{"two families, no anchor", BandHigh, GovernorInput{ErrorTypeKnown: true, Corroborating: two, Failures: 9}, BandMedium, "file:line"},
		{"anchored only", BandMedium, GovernorInput{ErrorTypeKnown: true, FileAnchored: true, SourceRead: true, Corroborating: one}, BandMedium, ""},
		{"unknown type", BandHigh, GovernorInput{FileAnchored: true, SourceRead: true, Corroborating: two}, BandLow, "error type"},
		{"nothing", BandMedium, GovernorInput{}, BandLow, "MEDIUM would need"},
		{"claim below earned stays", BandLow, GovernorInput{ErrorTypeKnown: true, FileAnchored: true, SourceRead: true, Corroborating: two, Failures: 9}, BandLow, "LOW"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, note := Govern(tc.claimed, tc.in)
			assert.Equal(t, tc.want, got)
			assert.Contains(t, note, tc.note)
			if tc.claimed.Rank() > got.Rank() {
				assert.Contains(t, note, "clamped")
			}
		})
	}
}

func TestWarningsAreNamedInTheNote(t *testing.T) {
	receipts := []Receipt{
		{Family: FamilyTraces, Tool: "traces_search_errors", OK: true, Warning: "Jaeger lists no service but its own"},
		{Family: FamilyLogs, Tool: "logs_search_errors", OK: true},
		{Family: FamilyTraces, Tool: "traces_search_errors", OK: true, Warning: "Jaeger lists no service but its own"},
		{Family: FamilyMetrics, Tool: "metrics_health", OK: false, ErrorKind: ErrKindTimeout, Warning: "ignored on failed calls"},
	}
	assert.Equal(t, StatusWarning, receipts[0].Status())
	assert.Equal(t, StatusOK, receipts[1].Status())
	assert.Equal(t, StatusError, receipts[3].Status())
	warnings := ReceiptWarnings(receipts)
	assert.Equal(t, []string{"traces: Jaeger lists no service but its own"}, warnings)

	band, note := Govern(BandHigh, GovernorInput{ErrorTypeKnown: true, FileAnchored: true, SourceRead: true,
		Corroborating: []Family{FamilyLogs, FamilyTraces}, Failures: 10, Warnings: warnings})
	assert.Equal(t, BandHigh, band, "a warning names what may be missing; it does not lower the band by itself")
	assert.Contains(t, note, "Not trustworthy: traces: Jaeger lists no service but its own.")
	_, note = Govern(BandHigh, GovernorInput{ErrorTypeKnown: true})
	assert.NotContains(t, note, "Not trustworthy")
}
