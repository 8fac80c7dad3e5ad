package investigate

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFailedCallTakesTheHandlersException(t *testing.T) {
	t0 := time.Date(2026, 8, 18, 11, 14, 7, 0, time.UTC)
	server := Span{TraceID: "t1", SpanID: "a", Service: "customs-gateway", Name: "POST /v1/declarations", Kind: "server", Start: t0, Error: true,
		Attrs:  map[string]string{"http.response.status_code": "502"},
		Events: []SpanEvent{{Name: "exception", Time: t0, Attrs: map[string]string{"exception.message": `customs hub: HTTP 401: {"error":"invalid_token","error_description":"The access token expired"}`}}}}
	call := Span{TraceID: "t1", SpanID: "b", ParentID: "a", Service: "customs-gateway", Name: "POST", Kind: "client", Start: t0, Error: true,
		Attrs: map[string]string{"http.response.status_code": "401", "url.full": "https://api.cdshub.eu/v2/declarations"}}

	an := AnalyzeTraces([]Span{server, call})
	require.Len(t, an.Findings, 1)
	f := an.Findings[0]
	assert.Equal(t, "customs-gateway", f.Service)
	assert.Equal(t, KindException, f.Kind, "the handler recorded why its call failed")
	assert.Equal(t, "token-expired", f.Signature)
	assert.Contains(t, f.Quote, "The access token expired")

	// A call in another service's span tree says nothing about its parent's exception.
	call.ParentID, call.Service = "", "customs-gateway"
	an = AnalyzeTraces([]Span{call})
	require.Len(t, an.Findings, 1)
	assert.Equal(t, KindErrorSpan, an.Findings[0].Kind)
	assert.Empty(t, an.Findings[0].Signature)
}

func TestTokenExpiryRaceNeedsRareFailures(t *testing.T) {
	c := &candidate{Service: "customs-gateway", ErrorType: ErrConfig, Signature: "token-expired", traceOrigins: 6,
		Support: []Finding{{Signature: "token-expired", Count: 6}}}
	rare := &evidence{issue: Issue{Text: "a trickle of 502s, a few every hour, retries always go through"}}
	assert.True(t, rare.tokenExpiryRace(c))
	outage := &evidence{issue: Issue{Text: "every customs submission fails with 401 since 9:00"}}
	assert.False(t, outage.tokenExpiryRace(c), "a token that stays expired is a credential problem")
	platform := *c
	platform.infra = 1
	assert.False(t, rare.tokenExpiryRace(&platform))
}

func TestHungCallOutlivesTheCallersTimeout(t *testing.T) {
	t0 := time.Date(2026, 8, 14, 8, 41, 32, 0, time.UTC)
	gw := Span{TraceID: "t", SpanID: "g", Service: "trip-gateway", Name: "ingress", Kind: "server", Start: t0, Duration: 10 * time.Second, Error: true,
		Attrs: map[string]string{"http.status_code": "504", "upstream_cluster": "fare-aggregator"}}
	srv := Span{TraceID: "t", SpanID: "s", ParentID: "g", Service: "fare-aggregator", Name: "GET /v1/fares/search", Kind: "server", Start: t0, Duration: 224 * time.Second,
		Attrs: map[string]string{"http.response.status_code": "200"}}
	fast := Span{TraceID: "t", SpanID: "r", ParentID: "s", Service: "fare-aggregator", Name: "POST", Kind: "client", Start: t0, Duration: 700 * time.Millisecond,
		Attrs: map[string]string{"url.full": "http://rail-connector.search.svc:8080/v3/offers"}}
	hung := Span{TraceID: "t", SpanID: "b", ParentID: "s", Service: "fare-aggregator", Name: "GET", Kind: "client", Start: t0, Duration: 223 * time.Second,
		Attrs: map[string]string{"url.full": "https://api.blueferries.example/v2/sailings", "server.address": "api.blueferries.example"}}

	f, ok := hungCall([]*Span{&gw, &srv, &fast, &hung})
	require.True(t, ok)
	assert.Equal(t, "fare-aggregator", f.Service, "the service that made the call")
	assert.Equal(t, "hung-call", f.Signature)
	assert.Equal(t, "api.blueferries.example", f.Attrs["peer"])
	assert.Contains(t, f.Quote, "took 223.0 s while the caller gave up after 10.0 s")
	assert.Equal(t, "hung-call", Best(f.Quote).ID)

	short := hung
	short.Duration = 12 * time.Second
	_, ok = hungCall([]*Span{&gw, &srv, &fast, &short})
	assert.False(t, ok, "a slow answer inside the floor is latency, not a call nothing bounds")
}

func TestNoTimeoutLines(t *testing.T) {
	for line, want := range map[string]bool{
		"return &Client{http: &http.Client{}, apiKey: apiKey}":       true,
		"resp, err := http.Get(u)":                                   true,
		"r = requests.get(url, headers=h)":                           true,
		"r = requests.get(url, headers=h, timeout=5)":                false,
		"var DefaultClient = &http.Client{Timeout: 4 * time.Second}": false,
	} {
		assert.Equal(t, want, noTimeout(line), line)
	}
}

func TestRejectedWith429SaysSo(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 19, 2, 49, 0, time.UTC)
	gw := Span{TraceID: "t", SpanID: "k", Service: "kong", Name: "kong", Kind: "server", Start: t0, Error: true,
		Attrs: map[string]string{"http.status_code": "429"}}
	an := AnalyzeTraces([]Span{gw})
	require.Len(t, an.Findings, 1)
	assert.Equal(t, "rate-limited", an.Findings[0].Signature)
	assert.Equal(t, "429 Too Many Requests", an.Findings[0].Quote)
}

func TestFastErrorsAreNotATimeoutForHungCalls(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 21, 0, 0, time.UTC)
	job := Span{TraceID: "t", SpanID: "j", Service: "invoice-scheduler", Name: "tick", Kind: "internal", Start: t0, Duration: 20 * time.Millisecond, Error: true}
	render := Span{TraceID: "t", SpanID: "r", ParentID: "j", Service: "invoice-scheduler", Name: "POST", Kind: "client", Start: t0, Duration: 37 * time.Second,
		Attrs: map[string]string{"url.full": "http://pdf-renderer.billing.svc:3000/render"}}
	_, ok := hungCall([]*Span{&job, &render})
	assert.False(t, ok, "a failure after 20 ms is no caller timing out")
}
