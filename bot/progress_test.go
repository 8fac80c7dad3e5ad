package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/config"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/sessions"
	slacksim "github.com/autoheal/autoheal/sim/slack"
)

// slowProbe is a capability whose one tool takes a while, so that an
// investigation produces a long stream of progress events.
type slowProbe struct {
	delay time.Duration
	n     atomic.Int32
}

func (p *slowProbe) Family() investigate.Family { return investigate.FamilyMCP }
func (p *slowProbe) Availability() investigate.Availability {
	return investigate.Availability{Configured: true}
}
func (p *slowProbe) Tools() []investigate.ToolSpec {
	return []investigate.ToolSpec{{Name: "mcp_probe", Family: investigate.FamilyMCP, Description: "probe", Parameters: investigate.Schema(map[string]any{})}}
}
func (p *slowProbe) Call(ctx context.Context, _ string, _ json.RawMessage) (*investigate.ToolResult, error) {
	select {
	case <-time.After(p.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &investigate.ToolResult{Summary: fmt.Sprintf("probe %d answered", p.n.Add(1))}, nil
}

// probeInvestigator calls the slow tool n times, one after another.
func probeInvestigator(n int) Investigator {
	return InvestigatorFunc(func(ctx context.Context, e *investigate.Engine, issue investigate.Issue) (*investigate.HealResult, error) {
		led := &investigate.Ledger{}
		for i := 0; i < n; i++ {
			e.Call(ctx, led, "deterministic", investigate.ToolCall{Tool: "mcp_probe", Args: map[string]any{}})
		}
		return &investigate.HealResult{
			Summary: "the probe service flakes under load",
			RootCause: investigate.RootCause{Description: "intermittent probe failures", Service: "probe",
				ErrorType: investigate.ErrRace, Bucket: investigate.BucketFlake, Band: investigate.BandLow},
			Timeline: led.Receipts(), ToolsUsed: []string{"mcp_probe"}, Mode: investigate.ModeDeterministic,
		}, nil
	})
}

// Many tool calls produce many progress events; the message is edited at
// most once per 3 s, rate limits (HTTP 429 with Retry-After, then a
// `ratelimited` body) are honoured, and the final state always lands.
func TestProgressCoalescedAndRateLimitsHonoured(t *testing.T) {
	e := newEnv(t, envOptions{})
	probe := &slowProbe{delay: 150 * time.Millisecond}
	var events atomic.Int32
	e.startBot(t, func(o *Options) {
		o.UpdateInterval = DefaultUpdateInterval
		o.Investigator = probeInvestigator(60)
		o.Extra = func(context.Context, config.Settings) ([]investigate.Capability, func(), error) {
			return []investigate.Capability{countingCapability{probe, &events}}, nil, nil
		}
	})
	ctx := testCtx(t)
	require.NoError(t, e.store.Set(ctx, sessions.ChannelScope(incidentChannel), map[string]string{"loki_url": "http://127.0.0.1:9"}))
	e.sim.RateLimit("chat.update", 1, time.Second)
	e.sim.FailMethod("chat.update", 1, "ratelimited")

	m, err := e.sim.MentionEvent(slacksim.MentionOptions{Channel: incidentChannel, User: oncall, Text: "probe is flaky"})
	require.NoError(t, err)
	rec := e.waitResult(t, MentionJobID(m.EventID))

	assert.Equal(t, int32(60), events.Load(), "the observer saw every tool call")
	ups := e.sim.Updates(incidentChannel, rec.MessageTS)
	require.GreaterOrEqual(t, len(ups), 2, "progress was shown before the result")
	assert.GreaterOrEqual(t, e.sim.MinUpdateInterval(incidentChannel, rec.MessageTS), DefaultUpdateInterval)
	assert.Contains(t, ups[0].Text, "Investigating")
	assert.Contains(t, string(ups[0].Blocks), "probe")
	last := ups[len(ups)-1]
	assert.True(t, strings.HasPrefix(last.Text, "No root cause") || strings.HasPrefix(last.Text, "Root cause"), "the final state is the result: %q", last.Text)
	assert.Contains(t, string(last.Blocks), "60 tool calls")

	var limited, bodyLimited int
	updates := e.sim.Calls("chat.update")
	for _, c := range updates {
		switch {
		case c.Status == 429:
			limited++
		case c.Error == "ratelimited":
			bodyLimited++
		}
	}
	assert.Equal(t, 1, limited)
	assert.Equal(t, 1, bodyLimited)
	assert.LessOrEqual(t, len(updates), 7, "60 tool calls, a handful of edits")
}

// countingCapability counts the tool calls that reached the capability.
type countingCapability struct {
	*slowProbe
	n *atomic.Int32
}

func (c countingCapability) Call(ctx context.Context, tool string, args json.RawMessage) (*investigate.ToolResult, error) {
	c.n.Add(1)
	return c.slowProbe.Call(ctx, tool, args)
}
