package investigate

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A warning that repeated at the same rate since before a new exception
// began does not absorb it: the exception, new at its onset and raised in
// the application's code, is its own candidate and leads.
func TestSteadyWarningDoesNotAbsorbANewException(t *testing.T) {
	const refused = "failed to send metrics: java.net.PortUnreachableException: recvAddress(..) failed: Connection refused"
	noiseTpl := tplFinding("exporter", "failed to send metrics: <*> failed: Connection refused", "warn", refused, func(int) float64 { return 3 })
	noise := Finding{Kind: KindLogPattern, Family: FamilyLogs, Service: "exporter", ErrorType: ErrNetwork, Signature: "conn-refused",
		Quote: refused, Count: 180, Time: nt0, LastTime: nt0.Add(time.Hour), Attrs: map[string]string{"level": "warn"}}
	frames := []Frame{{File: "com/acme/export/ExportService.java", Line: 45, Function: "com.acme.export.ExportService.buildPack"}}
	exc := Finding{Kind: KindException, Family: FamilyTraces, Service: "exporter", ErrorType: ErrUnknown, Count: 10,
		Quote: "org.hibernate.LazyInitializationException: failed to lazily initialize a collection", File: "ExportService.java", Line: 45,
		Frames: frames, Time: nt0.Add(25 * time.Minute), LastTime: nt0.Add(55 * time.Minute)}
	ev := evidenceOf(Issue{Text: "exports fail"}, noiseTpl, noise, exc)
	require.True(t, ev.steadyAt(noise, exc.Time, minBaseline))
	cs := ev.candidates()
	require.NotEmpty(t, cs)
	assert.Equal(t, ErrUnknown, cs[0].ErrorType, "the new exception leads, not the steady warning")
	assert.Equal(t, 10, cs[0].exceptions)
	for _, c := range cs {
		if c.Signature == "conn-refused" {
			assert.Zero(t, c.exceptions, "the steady warning took no exception")
		}
	}

	// The same warning starting with the exception is one failure.
	burst := tplFinding("exporter", "failed to send metrics: <*> failed: Connection refused", "warn", refused, func(m int) float64 {
		if m >= 25 {
			return 3
		}
		return 0
	})
	noise.Time = nt0.Add(25 * time.Minute)
	ev = evidenceOf(Issue{Text: "exports fail"}, burst, noise, exc)
	cs = ev.candidates()
	require.NotEmpty(t, cs)
	assert.Equal(t, "conn-refused", cs[0].Signature)
	assert.Equal(t, 10, cs[0].exceptions, "a warning that began with the exception absorbs it")
}

func TestSendOnClosedChannelIsAnOrderingRace(t *testing.T) {
	s := Best("panic: send on closed channel\n\ngoroutine 640191 [running]:")
	require.NotNil(t, s)
	assert.Equal(t, "go-closed-channel", s.ID)
	assert.Equal(t, ErrRace, s.ErrorType)
	assert.Equal(t, BucketFlake, s.Bucket)
}

func TestProjectOfPath(t *testing.T) {
	for p, want := range map[string]string{
		"search-suggest/tests/reindex.rs":             "search-suggest",
		"services/billing/src/main/java/Billing.java": "billing",
		"tests/reindex.rs":                            "",
		".github/workflows/ci.yml":                    "",
		"README.md":                                   "",
		"packages/web-app/__tests__/cart.test.ts":     "web-app",
	} {
		assert.Equal(t, want, projectOfPath(p), p)
	}
}

// A client timeout of another call changed the day before, and the
// reporter says the failures are random: the setting matched only by its
// kind, so the failures are a flake; a changed line that names the failing
// peer keeps them infrastructure.
func TestConfigChangeOfAnotherCallDoesNotOutweighIntermittence(t *testing.T) {
	onset := time.Date(2026, 7, 9, 2, 5, 0, 0, time.UTC)
	change := func(added string) Finding {
		return Finding{Kind: KindChangeCorrelation, File: "order-service/src/main/resources/application.yaml", Time: onset.Add(-10 * time.Hour),
			Quote: "d871deb order-service: raise a timeout", Attrs: map[string]string{"added": added, "hunks": "9-9"}}
	}
	exc := Finding{Kind: KindException, Family: FamilyTraces, Service: "order-service", ErrorType: ErrTimeout, Count: 20,
		Quote: "java.net.SocketTimeoutException: api.taxbridge.example.com:443 read timed out", Time: onset, LastTime: onset.Add(4 * time.Hour)}
	c := &candidate{Service: "order-service", ErrorType: ErrTimeout, Support: []Finding{exc}, Families: map[Family]bool{FamilyTraces: true}, traceOrigins: 20}
	h := &hypothesis{c: c}
	for _, tc := range []struct {
		text, added string
		want        Bucket
	}{
		{"random tax errors on orders, can't reproduce", "9:    reserve-stock-timeout: 3s", BucketFlake},
		{"random tax errors on orders, can't reproduce", "9:    taxbridge-read-timeout: 1s", BucketInfrastructure},
		{"tax errors on every order since last night", "9:    reserve-stock-timeout: 3s", BucketInfrastructure},
	} {
		ev := &evidence{issue: Issue{Text: tc.text}, findings: []Finding{change(tc.added), exc}, onset: onset, impact: onset,
			rate: map[string]Finding{}, restarts: map[string]int{}}
		_, cfg := ev.configChange(c)
		require.True(t, cfg, tc.added)
		assert.Equal(t, tc.want, ev.classify(h, "", 0), "%s / %s", tc.text, tc.added)
	}
}
