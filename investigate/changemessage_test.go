package investigate

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestChangeThatAddsTheLoggedMessageExplainsIt(t *testing.T) {
	at := time.Date(2026, 9, 3, 12, 18, 0, 0, time.UTC)
	code := Finding{Kind: KindChangeCorrelation, File: "services/refunds/src/main/java/acme/RefundService.java", Time: at,
		Quote: "e9f0924 refunds: check the merchant",
		Attrs: map[string]string{"added": "43:        if (order.getMerchantId() != request.getMerchantId()) {\n" +
			"44:            log.warn(\"refund rejected: order {} belongs to merchant {}, request for merchant {}\", a, b, c);\n" +
			"47:            throw new ForbiddenException(\"order does not belong to merchant\");"}}
	test := code
	test.File = "services/refunds/src/test/java/acme/RefundServiceTest.java"
	cfg := Finding{Kind: KindChangeCorrelation, File: "infra/idp/realms/support.json", Time: at.Add(-3 * time.Hour), Quote: "2f4e5c8 idp: split the refund role",
		Attrs: map[string]string{"added": "5:      {\"name\": \"refunds:create\", \"description\": \"Create refunds up to the agent limit\"},"}}
	warn := Finding{Kind: KindLogTemplate, Family: FamilyLogs, Service: "refunds", Time: at.Add(50 * time.Minute),
		Attrs: map[string]string{"level": "warn", "sample": "WARN RefundService : refund rejected: order 93002009 belongs to merchant 2014, request for merchant 2014"}}
	callee := Finding{Kind: KindErrorSpan, Family: FamilyTraces, Service: "refunds", Count: 20, Quote: "POST failed", Time: at.Add(90 * time.Minute),
		Attrs: map[string]string{"blame": "callee"}}

	ev := &evidence{findings: []Finding{code, test, cfg, warn, callee}, impact: at.Add(90 * time.Minute), issue: Issue{Text: "agents can't issue refunds, the idp roles changed this morning"}}
	c := &candidate{Service: "refunds", ErrorType: ErrUnknown, Support: []Finding{callee}, Families: map[Family]bool{FamilyTraces: true}}
	msgs := ev.failureMessages(c)
	n, _, ok := addedMessage(code, msgs)
	require.True(t, ok)
	assert.Equal(t, 44, n)
	_, _, ok = addedMessage(test, msgs)
	assert.False(t, ok, "a test asserting the message does not raise it")
	_, _, ok = addedMessage(cfg, msgs)
	assert.False(t, ok)
	ms := ev.explainingChanges(c)
	require.NotEmpty(t, ms)
	assert.Equal(t, code.File, ms[0].line.change.File)
	assert.Contains(t, ms[0].why, "adds the message the failures log")

	// A message logged before the change was made is not the change's.
	warn.Time = at.Add(-time.Hour)
	ev.findings[3] = warn
	_, _, ok = addedMessage(code, ev.failureMessages(c))
	assert.False(t, ok)
}

func TestMessageFragments(t *testing.T) {
	assert.Equal(t, []string{"refund rejected: order", "belongs to merchant", "request for merchant"},
		messageFragments("refund rejected: order {} belongs to merchant {}, request for merchant {}"))
	assert.Empty(t, messageFragments("/api/v1/refunds/{id}"), "a path is not a message")
	assert.Empty(t, messageFragments("SPRING_DATASOURCE_URL"))
}
