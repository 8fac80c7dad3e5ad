package render

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/autoheal/autoheal/investigate"
)

func TestChartCaption(t *testing.T) {
	onset := time.Date(2026, 12, 1, 16, 12, 53, 0, time.UTC)
	ec := &investigate.EvidenceChart{Service: "payment", What: "error ratio", Onset: onset, Baseline: true,
		Change: &investigate.ChartChange{At: onset.Add(-23 * time.Minute), SHA: "0cb5b9c", Title: "payment: send Level 2 line items"}}
	comment, alt := ChartCaption(ec)
	assert.Equal(t, "*Evidence:* payment error ratio · onset 16:12 · change `0cb5b9c 15:49`", comment)
	assert.Contains(t, alt, "Line chart of payment error ratio")
	assert.Contains(t, alt, "0cb5b9c payment: send Level 2 line items at 15:49 UTC")

	ec.What = strings.Repeat("<x>", 600)
	comment, alt = ChartCaption(ec)
	assert.NotContains(t, comment, "<x>", "escaped for mrkdwn")
	assert.LessOrEqual(t, len([]rune(alt)), 1000, "Slack's alt_txt limit")

	comment, alt = ChartCaption(nil)
	assert.Empty(t, comment)
	assert.Empty(t, alt)
}
