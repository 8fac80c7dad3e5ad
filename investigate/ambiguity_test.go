package investigate

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Two services fail alike, each with its own exceptions and stack frames:
// nothing separates them. The result names both, stays below HIGH, and
// needs a human.
func TestTwoEqualHypothesesNeedAHuman(t *testing.T) {
	onset := nt0.Add(30 * time.Minute)
	exc := func(svc, file string) Finding {
		return Finding{Kind: KindException, Family: FamilyTraces, Service: svc, ErrorType: ErrNullPointer, Signature: "java-npe",
			Exception: "java.lang.NullPointerException", Count: 8, Time: onset, LastTime: onset.Add(20 * time.Minute),
			Quote: "java.lang.NullPointerException: Cannot invoke \"String.length()\"", File: file, Line: 42,
			Frames: []Frame{{File: file, Line: 42, Function: "com.acme.X.run", Module: "com.acme"}}}
	}
	log := func(svc string) Finding {
		return Finding{Kind: KindLogPattern, Family: FamilyLogs, Service: svc, ErrorType: ErrNullPointer, Signature: "java-npe",
			Count: 8, Time: onset, LastTime: onset.Add(20 * time.Minute), Quote: "java.lang.NullPointerException: Cannot invoke \"String.length()\""}
	}
	issue := Issue{Text: "orders and invoices are failing", Start: nt0, End: nt0.Add(time.Hour)}
	receipts := []Receipt{{OK: true, Family: FamilyTraces, Findings: []Finding{exc("orders", "Orders.java"), exc("invoices", "Invoices.java")}},
		{OK: true, Family: FamilyLogs, Findings: []Finding{log("orders"), log("invoices")}}}
	e := New(Options{})
	res := e.ConcludeReceipts(issue, receipts)
	require.True(t, res.NeedsHuman, res.ConfidenceNote)
	assert.NotEqual(t, BandHigh, res.RootCause.Band)
	require.NotEmpty(t, res.Alternatives)
	names := []string{res.RootCause.Service, res.Alternatives[0].RootCause.Service}
	assert.ElementsMatch(t, []string{"orders", "invoices"}, names)
	assert.Equal(t, BucketCodeBug, res.Alternatives[0].RootCause.Bucket)
	assert.Equal(t, res.RootCause.Band, res.Alternatives[0].RootCause.Band, "as well supported")
	assert.NotEmpty(t, res.Alternatives[0].Evidence)
	assert.True(t, res.Contested(), "no Approve")
	assert.Contains(t, res.NeedsHumanReason, "scores almost as high")
	assert.Contains(t, res.ConfidenceNote, "Needs a human")
	assert.Contains(t, FormatText(res), "Needs a human")
}

// A clear leader does not need a human.
func TestAClearLeaderDoesNotNeedAHuman(t *testing.T) {
	onset := nt0.Add(30 * time.Minute)
	f := Finding{Kind: KindException, Family: FamilyTraces, Service: "orders", ErrorType: ErrNullPointer, Signature: "java-npe",
		Count: 12, Time: onset, Quote: "java.lang.NullPointerException", File: "Orders.java", Line: 42,
		Frames: []Frame{{File: "Orders.java", Line: 42, Function: "com.acme.Orders.run", Module: "com.acme"}}}
	noise := Finding{Kind: KindLogPattern, Family: FamilyLogs, Service: "mailer", ErrorType: ErrTimeout, Count: 2, Time: nt0, Quote: "smtp timeout"}
	res := New(Options{}).ConcludeReceipts(Issue{Text: "orders fail", Start: nt0, End: nt0.Add(time.Hour)},
		[]Receipt{{OK: true, Family: FamilyTraces, Findings: []Finding{f}}, {OK: true, Family: FamilyLogs, Findings: []Finding{noise}}})
	assert.False(t, res.NeedsHuman, res.NeedsHumanReason)
	assert.Empty(t, res.Alternatives)
	assert.Equal(t, "orders", res.RootCause.Service)
}

// Failures that follow a few records in code that did not change: the
// evidence supports bad data as well as a code bug.
func TestRecordsAgainstACodeBugIsAConflict(t *testing.T) {
	c := &candidate{Service: "billing", ErrorType: ErrRuntime, Families: map[Family]bool{FamilyLogs: true},
		Support: []Finding{{Kind: KindLogPattern, Family: FamilyLogs, Service: "billing", Count: 30, Quote: "KeyError: 'EUR'",
			Attrs: map[string]string{"records": "tenant=t-881:28,t-902:2"}}}}
	ev := evidenceOf(Issue{Text: "invoices fail"})
	other, why, evidence := ev.bucketConflict(&hypothesis{c: c}, BucketCodeBug, "", 0)
	assert.Equal(t, BucketBadData, other)
	assert.Contains(t, why, "t-881")
	require.Len(t, evidence, 1)
	other, _, _ = ev.bucketConflict(&hypothesis{c: c}, BucketBadData, "", 0)
	assert.Equal(t, Bucket(""), other, "bad data with records and no change is not in conflict")
}

func TestVerifierOnlyLowers(t *testing.T) {
	onset := nt0.Add(30 * time.Minute)
	window := "  40  func total(o *Order) int {\n> 41  \treturn o.Items[0].Price\n  42  }\n"
	src := Finding{Kind: KindSourceAnchor, Family: FamilySource, File: "orders/total.go", Line: 41, Attrs: map[string]string{"window": window}}
	late := Finding{Kind: KindChangeCorrelation, Family: FamilyChanges, File: "orders/total.go", Time: onset.Add(time.Hour), Quote: "abc1234 orders: total"}
	ev := evidenceOf(Issue{Text: "x", FiredAt: onset}, src, late)
	base := func() *HealResult {
		return &HealResult{RootCause: RootCause{Service: "orders", File: "orders/total.go", Line: 41, Band: BandHigh, Bucket: BucketCodeBug, ErrorType: ErrRuntime},
			Fix: Fix{Patch: &Patch{File: "orders/total.go", Diff: "--- a\n+++ b\n@@ -41 +41 @@\n-\treturn o.Items[0].Price\n+\treturn first(o.Items).Price\n"}}}
	}
	// Everything holds: untouched.
	r := base()
	verifyWith(ev, r)
	assert.Equal(t, BandHigh, r.RootCause.Band)
	assert.NotContains(t, r.ConfidenceNote, "Verifier")

	// The patch removes a line that is not there.
	r = base()
	r.Fix.Patch.Diff = "--- a\n+++ b\n@@ -41 +41 @@\n-\treturn o.Total\n+\treturn 0\n"
	verifyWith(ev, r)
	assert.Equal(t, BandMedium, r.RootCause.Band)
	assert.Contains(t, r.ConfidenceNote, "Verifier: lowered to MEDIUM: the lines the patch removes are not at orders/total.go:41")

	// The change named as the cause landed after the impact; and at LOW it
	// stays LOW (never raised, never below LOW).
	r = base()
	r.RootCause.Band = BandLow
	r.Evidence = []Finding{late}
	verifyWith(ev, r)
	assert.Equal(t, BandLow, r.RootCause.Band)
	r = base()
	r.Evidence = []Finding{late}
	verifyWith(ev, r)
	assert.Equal(t, BandMedium, r.RootCause.Band)
	assert.Contains(t, r.ConfidenceNote, "landed after the impact began")

	// A manifest edit whose old value is not at its line.
	man := Finding{Kind: KindManifest, Family: FamilySource, File: "deploy/cart.yaml", Line: 12,
		Attrs: map[string]string{"path": "spec.containers[cart].resources.limits.memory", "value": "512Mi"}}
	ev = evidenceOf(Issue{Text: "x"}, man)
	r = &HealResult{RootCause: RootCause{File: "deploy/cart.yaml", Line: 12, Band: BandHigh},
		Fix: Fix{ManifestEdit: &ManifestEdit{File: "deploy/cart.yaml", Line: 12, Path: "spec.containers[cart].resources.limits.memory", OldValue: "256Mi", NewValue: "512Mi"}}}
	verifyWith(ev, r)
	assert.Equal(t, BandMedium, r.RootCause.Band)
	assert.Contains(t, r.ConfidenceNote, "does not hold the value 256Mi")
	r.Fix.ManifestEdit.OldValue, r.RootCause.Band, r.ConfidenceNote = "512Mi", BandHigh, ""
	verifyWith(ev, r)
	assert.Equal(t, BandHigh, r.RootCause.Band, "the value and the setting are there")
}
