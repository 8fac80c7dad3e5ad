package render

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
)

// helpBandsText is the confidence section of a rendered help message.
func helpBandsText(t *testing.T, o HelpOptions) string {
	t.Helper()
	m := Help(o)
	require.NoError(t, Validate(m))
	var found []string
	for _, s := range strings.Split(blockTexts(m), "\n") {
		if strings.Contains(s, "Approve") || strings.Contains(s, "Pull requests are not enabled") || strings.HasPrefix(s, "*Confidence*") {
			found = append(found, s)
		}
	}
	return strings.Join(found, "\n")
}

// Help explains the minimum band it is given: which bands offer Approve
// and which get a report, and says when pull requests are off.
func TestHelpExplainsTheMinimumBand(t *testing.T) {
	cases := []struct {
		name    string
		opts    HelpOptions
		want    string
		notWant []string
	}{
		{"LOW offers everything", HelpOptions{MinBand: investigate.BandLow, PullRequests: true},
			"Every band offers *Approve* (a pull request) when the fix is a change to a repository.",
			[]string{"no pull request", "gets a report"}},
		{"MEDIUM", HelpOptions{MinBand: investigate.BandMedium, PullRequests: true},
			"*HIGH* and *MEDIUM* offer *Approve* (a pull request) when the fix is a change to a repository; *LOW* gets a report, no pull request.",
			[]string{"Every band"}},
		{"HIGH", HelpOptions{MinBand: investigate.BandHigh, PullRequests: true},
			"*HIGH* offers *Approve* (a pull request) when the fix is a change to a repository; *MEDIUM* and *LOW* get a report, no pull request.",
			[]string{"Every band", "*HIGH* and *MEDIUM* offer"}},
		{"unset is the bot's default, MEDIUM", HelpOptions{PullRequests: true},
			"*HIGH* and *MEDIUM* offer *Approve*", nil},
		{"unknown band is MEDIUM", HelpOptions{MinBand: "BOGUS", PullRequests: true},
			"*HIGH* and *MEDIUM* offer *Approve*", nil},
		{"pull requests off", HelpOptions{MinBand: investigate.BandLow},
			"Pull requests are not enabled on this AutoHeal (no approvers are configured): every result is a report, with the fix to apply by hand.",
			[]string{"offers *Approve*", "offer *Approve*"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := helpBandsText(t, tc.opts)
			assert.Contains(t, got, "*Confidence* is earned from evidence")
			assert.Contains(t, got, tc.want)
			for _, n := range tc.notWant {
				assert.NotContains(t, got, n)
			}
			all := blockTexts(Help(tc.opts))
			assert.Contains(t, all, "/autoheal status", "the usage is still there")
			assert.Contains(t, all, "`repo`", "and the settings")
			assert.Equal(t, 1, strings.Count(all, "*Confidence* is earned"), "one confidence section")
		})
	}
	// The two extremes differ.
	assert.NotEqual(t, helpBandsText(t, HelpOptions{MinBand: investigate.BandLow, PullRequests: true}),
		helpBandsText(t, HelpOptions{MinBand: investigate.BandHigh, PullRequests: true}))
}
