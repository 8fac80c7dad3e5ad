package investigate

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNamesLooselyToleratesPluralsAndOrder(t *testing.T) {
	cases := []struct {
		text, service string
		want          bool
	}{
		{`"system:serviceaccount:listings:listings-photo-worker"`, "listing-photos-worker", true},
		{"role for photo-worker-listing", "listing-photos-worker", true},
		{"role for search-indexer", "listing-photos-worker", false},
		{"worker pool", "listing-photos-worker", false}, // one shared word is not a name
		{"anything", "api", false},                      // too short to match loosely
	}
	for _, c := range cases {
		assert.Equal(t, c.want, namesLoosely(c.text, c.service), "%q vs %q", c.text, c.service)
	}
}

func TestErrorLineStartsNearALateMatch(t *testing.T) {
	sig := SignatureByID("cloud-access-denied")
	require.NotNil(t, sig)
	prefix := strings.Repeat(`{"level":"error","ts":"2026-11-30T10:00:00Z","logger":"photos.worker", `, 3)
	text := prefix + `"msg":"upload failed", "error":"An error occurred (AccessDenied) when calling the PutObject operation"}`
	got := errorLine(text, sig)
	assert.True(t, strings.HasPrefix(got, "…"), got)
	assert.Contains(t, got, "An error occurred (AccessDenied)")
	assert.Less(t, len(got), len(text)-100)

	short := "ClientError: An error occurred (AccessDenied) when calling the PutObject operation"
	assert.Equal(t, short, errorLine(short, sig))
}

func TestPoolRunningDryBehindAFailingDatabaseIsAVictim(t *testing.T) {
	t0 := time.Date(2026, 9, 8, 2, 46, 0, 0, time.UTC)
	pool := func() *candidate {
		return &candidate{Service: "stock-api", Signature: "java-hikari", ErrorType: ErrResourceExhaustion, First: t0.Add(10 * time.Second), Score: 7.8, logCause: 90}
	}
	db := &candidate{Service: "inventory-postgresql", Signature: "disk-full", ErrorType: ErrResourceExhaustion, First: t0, Score: 7.7, infra: 4, logCause: 18}

	p := pool()
	demotePoolVictims([]*candidate{p, db})
	assert.Less(t, p.Score, db.Score, "the database failed first on a cause of its own")

	late := &candidate{Service: db.Service, Signature: "disk-full", ErrorType: ErrResourceExhaustion, First: t0.Add(30 * time.Minute), infra: 4, logCause: 18}
	p = pool()
	demotePoolVictims([]*candidate{p, late})
	assert.Equal(t, 7.8, p.Score, "a server failing half an hour after the pool ran dry did not cause it")

	healthy := &candidate{Service: "audit", Signature: "py-nonetype", ErrorType: ErrNullPointer, First: t0, logCause: 3}
	p = pool()
	demotePoolVictims([]*candidate{p, healthy})
	assert.Equal(t, 7.8, p.Score, "an application error elsewhere is no platform failure")
}

func TestLimitsImplyTheirSettings(t *testing.T) {
	c := &candidate{Service: "media-upload", Signature: "body-too-large",
		Support: []Finding{{Quote: "client intended to send too large body: 15728640 bytes"}}}
	names := namedSettings(c)
	assert.Contains(t, names, "proxy-body-size", "nginx names no setting; the limit behind the error is known")
	assert.Contains(t, names, "client_max_body_size")
	assert.True(t, containsSetting(`    nginx.ingress.kubernetes.io/proxy-body-size: "8m"`, names))

	redelivered := &candidate{Service: "mailer", Signature: "queue-redelivery",
		Support: []Finding{{Quote: "Failed to delete message: ReceiptHandleIsInvalid: The receipt handle has expired."}}}
	names = namedSettings(redelivered)
	assert.True(t, containsSetting(`  visibility_timeout_seconds = 30`, names), "Terraform's SQS queue")
	assert.True(t, containsSetting(`      VisibilityTimeout: 30`, names), "CloudFormation")
	assert.True(t, containsSetting(`  ackDeadlineSeconds: 10`, names), "Pub/Sub subscription")
	assert.False(t, containsSetting(`  message_retention_seconds = 345600`, names))

	other := &candidate{Service: "media-upload", Signature: "conn-refused", Support: []Finding{{Quote: "connect ECONNREFUSED 10.0.0.1:80"}}}
	assert.NotContains(t, namedSettings(other), "proxy-body-size")
}

func TestHazardChangeFindsAddedMutableDefaults(t *testing.T) {
	onset := time.Date(2026, 2, 12, 11, 32, 0, 0, time.UTC)
	ev := &evidence{onset: onset, findings: []Finding{{Kind: KindChangeCorrelation, File: "recs_api/candidates.py", Time: onset.Add(-87 * time.Minute),
		Attrs: map[string]string{"added": "12: def exclusion_ids(profile: UserProfile, seen: list[str] = []) -> list[str]:\n20:     excluded = exclusion_ids(profile)"}}}}
	l, what, ok := ev.hazardChange(&candidate{Service: "recs-api"}, "recs_api/candidates.py")
	require.True(t, ok)
	assert.Equal(t, 12, l.line)
	assert.Equal(t, "mutable default argument", what)
	_, _, ok = ev.hazardChange(&candidate{Service: "recs-api"}, "recs_api/ranker.py")
	assert.False(t, ok, "only the failing file's changes")

	for line, want := range map[string]bool{
		"def f(a, b={}):":                     true,
		"async def g(x, tags=set()) -> None:": true,
		"def h(items=None):":                  false,
		"def k(n=0, name='x'):":               false,
		"    return f(items=[])":              false,
	} {
		assert.Equal(t, want, mutableDefault.re.MatchString(line), line)
	}
	assert.Contains(t, hazardProse(RootCause{File: "recs_api/candidates.py", Line: 12}, "def exclusion_ids(profile, seen=[]):"), "Default to None")
}

func TestRouteLimitsMoveToTheNamedService(t *testing.T) {
	ev := &evidence{issue: Issue{Text: "uploads fail with Request Entity Too Large since 14:10 CET. claims-portal"}, known: []string{"claims-portal", "ingress-nginx", "claims-ocr-worker"}}
	proxy := &candidate{Service: "ingress-nginx", Signature: "body-too-large", Support: []Finding{{Quote: "client intended to send too large body: 3011604 bytes"}}}
	other := &candidate{Service: "ingress-nginx", Signature: "upstream-5xx"}
	ev.routeLimitsToOwners([]*candidate{proxy, other})
	assert.Equal(t, "claims-portal", proxy.Service, "the limit is set on the service's own Ingress")
	assert.Equal(t, "ingress-nginx", proxy.Support[0].Attrs["relayed_by"])
	assert.Equal(t, "ingress-nginx", other.Service, "only per-route limits move")

	unnamed := &candidate{Service: "ingress-nginx", Signature: "body-too-large"}
	(&evidence{issue: Issue{Text: "uploads are failing"}, known: ev.known}).routeLimitsToOwners([]*candidate{unnamed})
	assert.Equal(t, "ingress-nginx", unnamed.Service, "nobody named: it stays where it was seen")
}

func TestCatchAllSwallowingCancellationNeedsTheEvidence(t *testing.T) {
	onset := time.Date(2026, 6, 13, 10, 0, 0, 0, time.UTC)
	const file = "services/seat-hold/src/main/kotlin/com/encore/seathold/hold/HoldService.kt"
	ev := &evidence{onset: onset, findings: []Finding{{Kind: KindChangeCorrelation, File: file, Time: onset.Add(-17 * time.Hour),
		Attrs: map[string]string{"added": "32:             } catch (e: Exception) {"}}}}
	retried := &candidate{Service: "seat-hold", Support: []Finding{{Quote: "hold attempt 2 for event EVT-1 failed, retrying: kotlinx.coroutines.TimeoutCancellationException: Timed out waiting for 1500 ms"}}}
	l, what, ok := ev.hazardChange(retried, "")
	require.True(t, ok, "found among the service's changes when no frame names the file")
	assert.Equal(t, 32, l.line)
	assert.Equal(t, "catch-all that swallows cancellation", what)
	assert.Contains(t, hazardProse(RootCause{File: file, Line: 32}, "} catch (e: Exception) {"), "Rethrow cancellation")

	plain := &candidate{Service: "seat-hold", Support: []Finding{{Quote: "org.postgresql.util.PSQLException: ERROR: canceling statement due to lock timeout"}}}
	_, _, ok = ev.hazardChange(plain, "")
	assert.False(t, ok, "a catch-all is only the defect when the failure shows cancellation being retried")
}

func TestQuotaChangeDaysBeforeThePeak(t *testing.T) {
	onset := time.Date(2026, 2, 16, 7, 32, 0, 0, time.UTC)
	quota := Finding{Kind: KindChangeCorrelation, File: "deploy/namespaces/rail/resourcequota.yaml", Time: onset.Add(-64 * time.Hour),
		Attrs: map[string]string{"added": "8:     requests.cpu: \"16\"\n10:     limits.cpu: \"24\""}}
	other := Finding{Kind: KindChangeCorrelation, File: "deploy/namespaces/bus/resourcequota.yaml", Time: onset.Add(-64 * time.Hour),
		Attrs: map[string]string{"added": "10:     limits.cpu: \"8\""}}
	ev := &evidence{onset: onset, issue: Issue{Namespace: "rail"}, findings: []Finding{other, quota}}
	c := &candidate{Service: "ticket-pricing", ErrorType: ErrResourceExhaustion, Signature: "quota-exceeded",
		Support: []Finding{{Signature: "quota-exceeded", Quote: "pods \"ticket-pricing-x\" is forbidden: exceeded quota: rail-compute, requested: limits.cpu=2, used: limits.cpu=24, limited: limit…"}}}
	l, ok := ev.configChange(c)
	require.True(t, ok, "a lowered ceiling bites at the next peak, days later")
	assert.Equal(t, quota.File, l.change.File, "the namespace's own quota")
	assert.Equal(t, 10, l.line, "the hard limit the admission error names")
}

func TestSurrogateSplittingNeedsTheEvidence(t *testing.T) {
	onset := time.Date(2026, 6, 17, 16, 36, 0, 0, time.UTC)
	ev := &evidence{onset: onset, findings: []Finding{
		{Kind: KindChangeCorrelation, File: "src/activity/preview.ts", Time: onset.Add(-3 * time.Hour),
			Attrs: map[string]string{"added": "9:   return flat.slice(0, MAX_PREVIEW - 1) + '…';"}},
		{Kind: KindLogPattern, Service: "community-db", Time: onset, Quote: "DETAIL:  Unicode low surrogate must follow a high surrogate."},
	}}
	c := &candidate{Service: "community-api", First: onset, Support: []Finding{{Quote: "invalid input syntax for type json"}}}
	l, _, ok := ev.hazardChange(c, "src/comments/createComment.ts")
	require.True(t, ok, "the database's log of the same failure shows the lone surrogate")
	assert.Equal(t, "src/activity/preview.ts", l.change.File)
	assert.Equal(t, 9, l.line)

	assert.Contains(t, hazardProse(RootCause{File: l.change.File, Line: 9}, l.text), "code points")

	ev.findings = ev.findings[:1]
	_, _, ok = ev.hazardChange(c, "src/comments/createComment.ts")
	assert.False(t, ok, "a slice is only suspect when the failure shows a split surrogate")
}

func TestSQLStateIsNotARecord(t *testing.T) {
	var r Records
	for i := 0; i < 6; i++ {
		r.Add(`{"msg":"request errored","code":"22P02","comment":"c-` + string(rune('a'+i)) + `"}`)
	}
	k, _ := r.Recurring()
	assert.Empty(t, k)
}

func TestLeakyReturnBeforeTheDeferredClose(t *testing.T) {
	onset := time.Date(2026, 10, 14, 8, 49, 0, 0, time.UTC)
	change := func(added, context string) Finding {
		return Finding{Kind: KindChangeCorrelation, File: "internal/carriers/parcelnet/client.go", Time: onset.Add(-17 * time.Hour),
			Attrs: map[string]string{"added": added, "context": context}}
	}
	leaky := change("47:\tif resp.StatusCode == http.StatusTooManyRequests {\n48:\t\tsecs, _ := strconv.Atoi(resp.Header.Get(\"Retry-After\"))\n49:\t\treturn nil, &RateLimitedError{RetryAfter: time.Duration(secs) * time.Second}\n50:\t}",
		"44:\tif err != nil {\n45:\t\treturn nil, fmt.Errorf(\"parcelnet: %w\", err)\n46:\t}\n51:\tdefer resp.Body.Close()\n52:\tif resp.StatusCode != http.StatusOK {")
	ev := &evidence{onset: onset, findings: []Finding{leaky}}
	l, ok := ev.leakyReturnChange(&candidate{Service: "shipping-quotes"})
	require.True(t, ok)
	assert.Equal(t, 49, l.line)

	fine := change("36:\tresp, err := c.http.Do(req)\n37:\tif err != nil {\n38:\t\treturn nil, err\n39:\t}\n40:\tdefer resp.Body.Close()", "")
	_, ok = (&evidence{onset: onset, findings: []Finding{fine}}).leakyReturnChange(&candidate{Service: "fare-aggregator"})
	assert.False(t, ok, "returning on the call's own error leaks nothing")
}

// The very limit that fires, set in values shared by the namespace's
// workloads (a chart-wide PGOPTIONS), is the change behind the failures of
// a workload the file never names; a setting of another namespace is not.
func TestImpliedSettingChangedForTheNamespace(t *testing.T) {
	onset := time.Date(2026, 8, 21, 12, 6, 0, 0, time.UTC)
	change := func(file string) Finding {
		return Finding{Kind: KindChangeCorrelation, File: file, Time: onset.Add(-2 * time.Hour),
			Attrs: map[string]string{"added": `12:     options: "-c statement_timeout=5s -c idle_in_transaction_session_timeout=30s"`}}
	}
	c := &candidate{Service: "statement-exporter", Signature: "db-statement-timeout", ErrorType: ErrTimeout,
		Support: []Finding{{Quote: "psycopg.errors.QueryCanceled: canceling statement due to statement timeout"}}}

	ev := &evidence{onset: onset, issue: Issue{Namespace: "core-banking"}, findings: []Finding{change("deploy/helm/core-banking/values-prod.yaml")}}
	l, ok := ev.namedConfigChange(c)
	require.True(t, ok)
	assert.Equal(t, 12, l.line)
	_, ok = ev.configChange(c)
	assert.True(t, ok, "the change explains the timeout: not a flake")

	ev = &evidence{onset: onset, issue: Issue{Namespace: "payments"}, findings: []Finding{change("deploy/helm/core-banking/values-prod.yaml")}}
	_, ok = ev.namedConfigChange(c)
	assert.False(t, ok, "another namespace's values")

	ev = &evidence{onset: onset, issue: Issue{Namespace: "core-banking"}, findings: []Finding{change("deploy/helm/core-banking/values-prod.yaml")}}
	other := &candidate{Service: "statement-exporter", Signature: "conn-refused", ErrorType: ErrNetwork, Support: []Finding{{Quote: "connection refused"}}}
	_, ok = ev.namedConfigChange(other)
	assert.False(t, ok, "a failure that is not that limit firing")
}
