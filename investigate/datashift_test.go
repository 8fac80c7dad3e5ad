package investigate

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reloadLines is a periodic reload line of two pods every 5 minutes for
// two hours from nt0, whose value for key "X" becomes after from minute at.
func reloadLines(svc string, before, after string, at int) []LogLine {
	var out []LogLine
	for m := 0; m < 120; m += 5 {
		v := before
		if m >= at {
			v = after
		}
		for pod := range 2 {
			t := nt0.Add(time.Duration(m)*time.Minute + time.Duration(pod)*time.Second)
			out = append(out, LogLine{Service: svc, Time: t,
				Line: fmt.Sprintf("INFO [sched-1] RateCache - rates reloaded: 31 rates, X=%s Y=0.1900 Z=0.2200", v)})
		}
	}
	return out
}

func templateOf(t *testing.T, fs []Finding, svc string) Finding {
	t.Helper()
	for _, f := range fs {
		if f.Service == svc {
			return f
		}
	}
	t.Fatalf("no template of %s in %v", svc, fs)
	return Finding{}
}

func TestSummarizeTemplatesFindsAValueShiftInASteadyLine(t *testing.T) {
	end := nt0.Add(2 * time.Hour)
	fs := SummarizeTemplates(reloadLines("rates", "0.2000", "20.0000", 60), nt0, end, TemplateOptions{})
	f := templateOf(t, fs, "rates")
	vs, ok := decodeValueShift(f.Attrs["value_shift"])
	require.True(t, ok, "%v", f.Attrs)
	assert.Equal(t, "X", vs.key)
	assert.Equal(t, "0.2000", vs.old)
	assert.Equal(t, "20.0000", vs.new)
	assert.Equal(t, nt0.Add(60*time.Minute), vs.at)
	assert.Equal(t, 2, vs.steady, "Y and Z kept their values")
	assert.Equal(t, 1, vs.shifted)

	// A modest change is the data's ordinary movement, not a shift.
	fs = SummarizeTemplates(reloadLines("rates", "0.2000", "0.2100", 60), nt0, end, TemplateOptions{})
	assert.Empty(t, templateOf(t, fs, "rates").Attrs["value_shift"])
	// A value that changes on every line is a measurement.
	var varying []LogLine
	for m := range 60 {
		varying = append(varying, LogLine{Service: "q", Time: nt0.Add(time.Duration(m) * time.Minute), Line: fmt.Sprintf("queue depth=%d", 1+m*m)})
	}
	fs = SummarizeTemplates(varying, nt0, end, TemplateOptions{})
	assert.Empty(t, templateOf(t, fs, "q").Attrs["value_shift"])
}

func TestSummarizeTemplatesKeepsTheWorstRejectionAndTheDominantEntity(t *testing.T) {
	var lines []LogLine
	at := nt0.Add(10 * time.Minute)
	for i, s := range []struct {
		name          string
		imported, rej int
	}{{"alpha", 8139, 1}, {"beta", 2060, 3170}, {"gamma", 2206, 4}} {
		lines = append(lines, LogLine{Service: "import", Time: at.Add(time.Duration(i) * time.Minute),
			Line: fmt.Sprintf("INFO importer: source=%s imported=%d rejected=%d delisted=0", s.name, s.imported, s.rej)})
	}
	for i := range 40 {
		src := "beta"
		if i%20 == 0 {
			src = "alpha"
		}
		lines = append(lines, LogLine{Service: "import", Time: at.Add(time.Duration(i) * time.Second),
			Line: fmt.Sprintf("WARNING importer: source=%s line=%d row rejected: invalid code '%d'", src, i+2, i)})
	}
	fs := SummarizeTemplates(lines, nt0, nt0.Add(time.Hour), TemplateOptions{})
	var summary, warn Finding
	for _, f := range fs {
		if f.Attrs["level"] == "warn" {
			if f.Count > warn.Count {
				warn = f
			}
		} else if strings.HasPrefix(f.Attrs["rejection"], "source=beta") {
			summary = f
		}
	}
	assert.Equal(t, "source=beta\trejected=3170\timported=2060\t0.61\t"+fmt.Sprint(at.Add(time.Minute).Unix()), summary.Attrs["rejection"])
	assert.Equal(t, "source=beta\t1.00\t1", warn.Attrs["param_top"], "the warnings are about one source")
}

func shiftEvidence(extra ...Finding) *evidence {
	end := nt0.Add(2 * time.Hour)
	fs := SummarizeTemplates(reloadLines("rates", "0.2000", "20.0000", 60), nt0, end, TemplateOptions{})
	edit := Finding{Kind: KindLogTemplate, Family: FamilyLogs, Service: "rates-admin", Time: nt0.Add(58 * time.Minute), Count: 1,
		Attrs: map[string]string{"template": "rate updated", "sample": "rate updated", "level": "info",
			"raw": `{"msg":"rate updated","key":"X","old_rate":"0.2000","new_rate":"20.0000","user":"someone"}`}}
	cp := Finding{Kind: KindChangePoint, Family: FamilyMetrics, Service: "orders", Time: nt0.Add(60 * time.Minute),
		Quote: `orders: order_total_avg{region="X"} level 216 → 3.67e+03 since 14:00 (1 of 3 series)`,
		Attrs: map[string]string{"labels": `{region="X"}`}}
	failing := Finding{Kind: KindLogPattern, Family: FamilyLogs, Service: "payments", ErrorType: ErrConfig, Count: 200,
		Time: nt0.Add(61 * time.Minute), Quote: "authorisation refused: amount exceeds maximum allowed"}
	ev := &evidence{issue: Issue{Text: "payments from region X refused", Start: nt0, End: end},
		findings: append(append(fs, edit, cp, failing), extra...), hinted: map[string]bool{"payments": true},
		calls: map[string]map[string]int{}, restarts: map[string]int{}, rate: map[string]Finding{}, okFamily: map[Family]bool{}}
	ev.impact = cp.Time
	return ev
}

func TestValueShiftAtTheOnsetMakesItsServiceTheBadDataCandidate(t *testing.T) {
	ev := shiftEvidence()
	cs := ev.candidates()
	require.NotEmpty(t, cs)
	top := cs[0]
	assert.Equal(t, "rates", top.Service)
	assert.Equal(t, ErrDataValidation, top.ErrorType)
	var kinds []FindingKind
	for _, f := range top.Support {
		kinds = append(kinds, f.Kind)
	}
	assert.Contains(t, kinds, KindValueShift)
	assert.Contains(t, kinds, KindLogTemplate, "the edit naming both values")
	assert.Contains(t, kinds, KindChangePoint, "the series labelled with the key")
	assert.Equal(t, BucketBadData, ev.classify(&hypothesis{c: top}, "", 0))
}

func TestValueShiftIsNotDataWhenACommitSetTheValueOrItIsFarFromTheOnset(t *testing.T) {
	commit := Finding{Kind: KindChangeCorrelation, Family: FamilyChanges, Service: "rates", Time: nt0.Add(50 * time.Minute),
		Attrs: map[string]string{"added": "3: X = 20"}}
	assert.Empty(t, shiftEvidence(commit).valueShifts(), "a deployed value is configuration")

	ev := shiftEvidence()
	ev.impact = nt0.Add(110 * time.Minute)
	var kept []Finding
	for _, f := range ev.findings {
		if f.Kind != KindChangePoint {
			kept = append(kept, f)
		}
	}
	ev.findings = kept
	assert.Empty(t, ev.valueShifts(), "a shift 50 minutes before anything the impact is dated by")
}

func TestLastRunOfASilentJobReportsRejectedInput(t *testing.T) {
	run := nt0.Add(-6 * time.Hour)
	var lines []LogLine
	for i := range 60 {
		lines = append(lines, LogLine{Service: "import", Time: run.Add(time.Duration(i) * time.Second),
			Line: fmt.Sprintf("WARNING importer: source=beta line=%d row rejected: invalid code '%d.1E+12'", i+2, i)})
	}
	lines = append(lines, LogLine{Service: "import", Time: run.Add(2 * time.Minute), Line: "INFO importer: source=beta imported=2060 rejected=3170"},
		LogLine{Service: "import", Time: run.Add(3 * time.Minute), Line: "INFO importer: source=alpha imported=8139 rejected=1"})
	issue := Issue{Service: "import", Start: nt0, End: nt0.Add(time.Hour), Text: "half of the beta products are gone"}
	earlier := SummarizeTemplates(lines, nt0.Add(-23*time.Hour), nt0, TemplateOptions{})
	noise := Finding{Kind: KindLogPattern, Family: FamilyLogs, Service: "indexer", ErrorType: ErrRace, Count: 10, Time: nt0.Add(5 * time.Minute),
		Quote: "3 of 2000 documents failed: version conflict"}
	ev := newEvidence(issue, []Receipt{{OK: true, Family: FamilyLogs, Findings: append([]Finding{noise}, earlier...)}})
	require.Len(t, ev.earlier, len(earlier), "templates read before the window are kept apart")

	lr := ev.lastRun()
	require.Len(t, lr, 1)
	assert.Equal(t, "import", lr[0].Service)
	assert.Equal(t, "source=beta", lr[0].Attrs["entity"])
	assert.Equal(t, "source=beta rejected=3170 imported=2060", lr[0].Attrs["summary"])
	cs := ev.candidates()
	require.NotEmpty(t, cs)
	assert.Equal(t, "import", cs[0].Service)
	assert.Equal(t, ErrDataValidation, cs[0].ErrorType)

	// Before the lookback: the job is silent and the lead is weak.
	ev0 := newEvidence(issue, []Receipt{{OK: true, Family: FamilyLogs, Findings: []Finding{noise}}})
	assert.Equal(t, "import", ev0.silentNamed())
	assert.True(t, weakLead(ev0.best()))
}
