package render

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
)

// Once the investigation has finished, the alert's root message shows its
// outcome in one line (headline and badge, or the failure) instead of
// saying AutoHeal is investigating.
func TestAlertRootShowsTheOutcome(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 16, 0, 0, 0, time.UTC)
	base := Alert{Name: "CheckoutErrorRateHigh", Severity: "page", Service: "checkout", StartsAt: t0}
	res := &investigate.HealResult{RootCause: investigate.RootCause{
		ErrorType: investigate.ErrorType("TypeError"), Service: "payment", File: "src/payment/charge.js", Line: 42,
		Band: investigate.BandHigh, Description: "shippingCost is undefined <b>",
	}}

	running := blockTexts(AlertRoot(base))
	assert.Contains(t, running, "AutoHeal is investigating in the thread")

	done := base
	o := OutcomeOf(res)
	done.Outcome = &o
	m := AlertRoot(done)
	require.NoError(t, Validate(m))
	txt := blockTexts(m)
	assert.NotContains(t, txt, "investigating")
	assert.Contains(t, txt, ":mag: "+resultHeadline(res)+" · "+Badge(investigate.BandHigh)+" — details in the thread")
	assert.Contains(t, txt, "charge.js:42")
	assert.Contains(t, m.Text, "[FIRING] CheckoutErrorRateHigh")
	assert.Contains(t, m.Text, "(HIGH)", "the fallback says how it ended too")
	lines := 0
	for _, l := range strings.Split(txt, "\n") {
		if strings.Contains(l, ":mag:") {
			lines++
		}
	}
	assert.Equal(t, 1, lines, "one outcome line")

	low := OutcomeOf(&investigate.HealResult{})
	assert.Equal(t, ":mag: No root cause found yet · "+Badge(investigate.BandLow)+" — details in the thread", low.Line())

	failed := base
	f := FailedOutcome("loki: <timeout> after 30s")
	failed.Outcome = &f
	m = AlertRoot(failed)
	require.NoError(t, Validate(m))
	txt = blockTexts(m)
	assert.NotContains(t, txt, "investigating")
	assert.Contains(t, txt, ":x: The investigation failed: loki: &lt;timeout&gt; after 30s — see the thread")
	assert.Contains(t, m.Text, "investigation failed")

	// Resolved: the outcome stays next to how long it lasted.
	resolved := done
	resolved.Resolved, resolved.EndsAt = true, t0.Add(20*time.Minute)
	txt = blockTexts(AlertRoot(resolved))
	assert.Contains(t, txt, "Lasted 20m")
	assert.Contains(t, txt, Badge(investigate.BandHigh))
	assert.NotContains(t, txt, "investigating")

	// The outcome survives the JSON the alert job payload carries.
	raw, err := json.Marshal(done)
	require.NoError(t, err)
	var back Alert
	require.NoError(t, json.Unmarshal(raw, &back))
	require.NotNil(t, back.Outcome)
	assert.Equal(t, o, *back.Outcome)
	raw, err = json.Marshal(base)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), "Outcome", "no outcome, no field")
}

func TestPullRequestLinkReply(t *testing.T) {
	m := PullRequestLinkReply(PullRequestLink{URL: "http://127.0.0.1:8080/acme/shop/pull/7", Number: 7, Title: "fix(payment): <null> at charge.js:58"})
	require.NoError(t, Validate(m))
	assert.Equal(t, "Pull request opened: <http://127.0.0.1:8080/acme/shop/pull/7|#7 fix(payment): &lt;null&gt; at charge.js:58>\n", blockTexts(m))
	assert.Equal(t, "Pull request opened: #7 fix(payment): &lt;null&gt; at charge.js:58", m.Text)

	m = PullRequestLinkReply(PullRequestLink{URL: "https://github.com/acme/shop/pull/7", Number: 7, SameFix: true})
	assert.Equal(t, "Pull request already open for the same change (opened for another incident): <https://github.com/acme/shop/pull/7|#7>\n", blockTexts(m))

	m = PullRequestLinkReply(PullRequestLink{URL: "javascript:alert(1)", Number: 3, Title: "t"})
	assert.NotContains(t, blockTexts(m), "javascript:", "an unusable URL is not linked")
}
