package investigate

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var nt0 = time.Date(2026, 6, 1, 13, 0, 0, 0, time.UTC)

// tplFinding is a template finding with per-minute counts over an hour
// from nt0.
func tplFinding(svc, template, level, sample string, counts func(minute int) float64) Finding {
	cs := make([]float64, 60)
	total := 0.0
	for i := range cs {
		cs[i] = counts(i)
		total += cs[i]
	}
	if sample == "" {
		sample = template
	}
	return Finding{Kind: KindLogTemplate, Family: FamilyLogs, Service: svc, Quote: template, Count: int(total),
		Time: nt0, LastTime: nt0.Add(time.Hour),
		Attrs: map[string]string{"template": template, "level": level, "sample": sample, "buckets": EncodeBuckets(nt0, time.Minute, cs)}}
}

func TestSummarizeTemplatesCountsPerServiceAndBucket(t *testing.T) {
	var lines []LogLine
	for i := range 30 {
		at := nt0.Add(time.Duration(i) * 2 * time.Minute)
		lines = append(lines,
			LogLine{Service: "cart", Time: at, Line: fmt.Sprintf("2026-06-01 13:%02d:00 INFO cart %d loaded in %dms", i*2%60, i, i*3)},
			LogLine{Service: "orders", Time: at, Line: fmt.Sprintf("cart %d loaded in %dms", i, i), Weight: 3})
	}
	lines = append(lines,
		LogLine{Service: "cart", Time: nt0.Add(50 * time.Minute), Line: `{"level":"error","msg":"checkout failed","error":"TypeError: x is undefined\n    at pay (/app/pay.js:12:3)"}`},
		LogLine{Service: "cart", Time: nt0.Add(-time.Minute), Line: "outside the window"})
	fs := SummarizeTemplates(lines, nt0, nt0.Add(time.Hour), TemplateOptions{})
	by := map[string]Finding{}
	for _, f := range fs {
		by[f.Service+"|"+f.Attrs["template"]] = f
	}
	require.Len(t, fs, 3, "%v", by)
	cart := by["cart|cart <*> loaded in <*>"]
	assert.Equal(t, 30, cart.Count, "the header (time, level) is not part of the template")
	assert.Equal(t, "info", cart.Attrs["level"])
	orders := by["orders|cart <*> loaded in <*>"]
	assert.Equal(t, 90, orders.Count, "weights stand for sampled-out lines")
	failed := by["cart|checkout failed"]
	assert.Equal(t, "error", failed.Attrs["level"])
	assert.Contains(t, failed.Attrs["sample"], "/app/pay.js:12", "the sample keeps the whole entry")
	b, err := DecodeBuckets(failed.Attrs["buckets"])
	require.NoError(t, err)
	n, _ := b.Between(nt0.Add(50*time.Minute), nt0.Add(51*time.Minute))
	assert.Equal(t, 1.0, n)
	// The template whose rate rose comes first.
	assert.Equal(t, "checkout failed", fs[0].Attrs["template"])
}

func TestBucketsRoundTripAndErrors(t *testing.T) {
	b, err := DecodeBuckets(EncodeBuckets(nt0, time.Minute, []float64{0, 1.5, 3}))
	require.NoError(t, err)
	assert.Equal(t, nt0, b.Start)
	assert.Equal(t, time.Minute, b.Step)
	assert.Equal(t, []float64{0, 1.5, 3}, b.Counts)
	assert.Equal(t, nt0.Add(3*time.Minute), b.End())
	for _, bad := range []string{"", "1 2", "x 60 1,2", "1 0 1", "1 60 1,a"} {
		_, err := DecodeBuckets(bad)
		assert.Error(t, err, bad)
	}
}

func TestTemplateChange(t *testing.T) {
	decode := func(f Finding) Buckets {
		b, err := DecodeBuckets(f.Attrs["buckets"])
		require.NoError(t, err)
		return b
	}
	// New at 13:42 after 42 quiet minutes.
	since, before, after, baseline, lines, surge, ok := templateChange(decode(tplFinding("s", "t", "warn", "", func(m int) float64 {
		if m >= 42 {
			return 5
		}
		return 0
	})))
	require.True(t, ok)
	assert.False(t, surge)
	assert.Equal(t, nt0.Add(42*time.Minute), since)
	assert.Equal(t, 0.0, before)
	assert.InDelta(t, 5, after, 1e-9)
	assert.Equal(t, 42*time.Minute, baseline)
	assert.Equal(t, 90.0, lines)

	// Surge: 2/min to 20/min at 13:30.
	since, before, after, _, _, surge, ok = templateChange(decode(tplFinding("s", "t", "error", "", func(m int) float64 {
		if m >= 30 {
			return 20
		}
		return 2
	})))
	require.True(t, ok)
	assert.True(t, surge)
	assert.Equal(t, nt0.Add(30*time.Minute), since)
	assert.InDelta(t, 2, before, 0.01)
	assert.InDelta(t, 20, after, 0.01)

	// Steady, however loud; and too little to say.
	_, _, _, _, _, _, ok = templateChange(decode(tplFinding("s", "t", "error", "", func(m int) float64 { return 300 + float64(m%7) })))
	assert.False(t, ok)
	_, _, _, _, _, _, ok = templateChange(decode(tplFinding("s", "t", "error", "", func(m int) float64 {
		if m == 59 {
			return 1
		}
		return 0
	})))
	assert.False(t, ok)
	// Rare but regular from the window's start: not new.
	_, _, _, _, _, _, ok = templateChange(decode(tplFinding("s", "t", "error", "", func(m int) float64 {
		if m%10 == 0 {
			return 1
		}
		return 0
	})))
	assert.False(t, ok)
}

func evidenceOf(issue Issue, fs ...Finding) *evidence {
	issue.Start, issue.End = nt0, nt0.Add(time.Hour)
	return newEvidence(issue, []Receipt{{OK: true, Findings: fs}})
}

func TestNoveltiesNearTheOnsetOnly(t *testing.T) {
	newAt := func(m0 int) func(int) float64 {
		return func(m int) float64 {
			if m >= m0 {
				return 4
			}
			return 0
		}
	}
	lease := tplFinding("scheduler", "lease renewal failed for <*>", "warn", "", newAt(40))
	early := tplFinding("scheduler", "cache warmed for <*> tenants", "warn", "cache warmup slow for 3 tenants", newAt(12)) // long before
	traffic := tplFinding("web", "served <*> in <*>", "info", "", newAt(41))                                               // names no failure
	loud := tplFinding("web", "deprecated API <*> called", "error", "", func(int) float64 { return 50 })                   // steady
	// The alert dates the impact at 13:42.
	ev := evidenceOf(Issue{Text: "jobs stuck", FiredAt: nt0.Add(42 * time.Minute)}, lease, early, traffic, loud)
	require.Equal(t, nt0.Add(42*time.Minute), ev.impact)
	require.Len(t, ev.novel, 1)
	n := ev.novel[0]
	assert.Equal(t, "scheduler", n.tpl.Service)
	assert.Equal(t, ErrRace, n.typed.ErrorType, "typed by its words: a lease lost")
	f := n.finding()
	assert.Equal(t, "new since 13:40: `lease renewal failed for <*>` ×4.0/min (80 lines) in scheduler; 0 in the 40 minutes before", f.Quote)
	assert.Equal(t, KindLogTemplate, f.Kind)
}

// A loud error as frequent before the onset as after it is noise when
// something else is new at the onset; the new warning's service leads.
func TestSteadyLoudErrorsLoseToANewWarning(t *testing.T) {
	lease := tplFinding("scheduler", "lease renewal failed for <*>", "warn", "lease renewal failed for node-3", func(m int) float64 {
		if m >= 40 {
			return 6
		}
		return 0
	})
	loud := tplFinding("billing", "payment provider returned <*> for <*>", "error", "payment provider returned 502 for card", func(int) float64 { return 40 })
	loudLog := Finding{Kind: KindLogPattern, Family: FamilyLogs, Service: "billing", ErrorType: ErrDependency, Signature: "upstream-5xx",
		Quote: "payment provider returned 502 for card", Count: 2400, Time: nt0, LastTime: nt0.Add(time.Hour), Attrs: map[string]string{"level": "error"}}
	ev := evidenceOf(Issue{Text: "invoices are not generated", FiredAt: nt0.Add(42 * time.Minute)}, lease, loud, loudLog)
	assert.True(t, ev.steadyTemplate(loudLog))
	cs := ev.candidates()
	require.NotEmpty(t, cs)
	assert.Equal(t, "scheduler", cs[0].Service, "%s %.2f", cs[0].Service, cs[0].Score)
	assert.Equal(t, ErrRace, cs[0].ErrorType)
	require.NotEmpty(t, cs[0].novelties)
	assert.Contains(t, cs[0].novelties[0].Quote, "new since 13:40")
}

func TestTemplateCovers(t *testing.T) {
	tpl := Finding{Attrs: map[string]string{"template": "[ActiveJob] Failed enqueuing <*> to Sidekiq(default): Redis::CommandError (OOM command not allowed",
		"sample": "[ActiveJob] Failed enqueuing OrderJob to Sidekiq(default): Redis::CommandError (OOM command not allowed when used memory > 'maxmemory'.)"}}
	assert.True(t, templateCovers(tpl, "[ActiveJob] Failed enqueuing MailJob to Sidekiq(default): Redis::CommandError (OOM command not allowed"))
	assert.True(t, templateCovers(tpl, "to Sidekiq(default): Redis::CommandError (OOM command not allowed when used memory > 'maxmemory'.)"), "a fragment")
	assert.False(t, templateCovers(tpl, "connection refused by redis"))
}

func TestGuessErrorType(t *testing.T) {
	cases := map[string]ErrorType{
		"lease renewal failed for scheduler-2":                ErrRace,
		"upstream request timed out after 30s":                ErrTimeout,
		"dial tcp 10.1.2.3:6379: connect: connection refused": ErrNetwork,
		"queue is full, dropping message":                     ErrResourceExhaustion,
		"AccessDenied: permission denied on bucket":           ErrConfig,
		"cannot parse '12,5' as a number":                     ErrDataValidation,
		"x509: certificate signed by unknown authority":       ErrTLS,
		"something went wrong: unhandled failure":             ErrRuntime,
		"served product 42":                                   ErrUnknown,
	}
	for text, want := range cases {
		assert.Equal(t, want, GuessErrorType(text), text)
	}
}

func TestTellingTemplates(t *testing.T) {
	assert.True(t, telling("lease renewal failed for <*>"))
	assert.False(t, telling(": [<*>]"), "a header alone")
	assert.False(t, telling("at com.acme.Foo.bar(Foo.java:<*>)"), "a stack frame")
	assert.False(t, telling("actionpack (<*>) <*> `write_session'"), "a Ruby frame")
}
