package bot

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/render"
	"github.com/autoheal/autoheal/sessions"
	slacksim "github.com/autoheal/autoheal/sim/slack"
)

// A second investigation of the same incident shows the first under its
// result (with a link to its thread); once the first's fix is rejected,
// the same proposal comes back one band lower, with the reason.
func TestIncidentMemoryRecallsThePastIncident(t *testing.T) {
	e := newEnv(t, envOptions{})
	s, _ := e.scenarioEnv(t, "ad-npe-missing-context")
	rem := &fakeRemediator{}
	rb := e.startBot(t, func(o *Options) {
		o.Now = func() time.Time { return s.Now }
		o.Remediator = rem
		o.Approvers = onlyUser(approver)
	})
	ctx := testCtx(t)
	investigateOnce := func() (slacksim.Mentioned, string) {
		m, err := e.sim.MentionEvent(slacksim.MentionOptions{Channel: incidentChannel, User: oncall, Text: s.Trigger.Mention})
		require.NoError(t, err)
		job := MentionJobID(m.EventID)
		e.waitResult(t, job)
		return m, job
	}

	// The result is marked posted before it is remembered: wait for both.
	recall := func(job string) sessions.MemoryRecord {
		var rec sessions.MemoryRecord
		eventually(t, "the memory of "+job, func() bool {
			r, err := rb.store.Recall(ctx, job)
			rec = r
			return err == nil
		})
		return rec
	}
	first, firstJob := investigateOnce()
	rec1 := recall(firstJob)
	assert.Equal(t, "ad", rec1.Service)
	assert.Equal(t, "code_bug", rec1.Bucket)
	assert.NotEmpty(t, rec1.Template)
	assert.NotEmpty(t, rec1.Proposal)
	firstMsg, _ := e.sim.Message(incidentChannel, e.waitResult(t, firstJob).MessageTS)
	assert.NotContains(t, blocksText(firstMsg), "Seen before", "nothing to recall the first time")

	second, secondJob := investigateOnce()
	secondMsg, _ := e.sim.Message(incidentChannel, e.waitResult(t, secondJob).MessageTS)
	text := blocksText(secondMsg)
	assert.Contains(t, text, "Seen before")
	assert.Contains(t, text, "<#"+incidentChannel+">")
	assert.Contains(t, text, "/archives/"+incidentChannel+"/p"+strings.ReplaceAll(first.ThreadTS, ".", ""), "a link to the first thread")
	rec2 := recall(secondJob)
	assert.Equal(t, rec1.Fingerprint, rec2.Fingerprint, "the same incident, the same fingerprint")
	assert.Contains(t, text, "HIGH")

	// The approver rejects the second one's fix.
	rec := e.waitResult(t, secondJob)
	_, err := e.sim.BlockAction(slacksim.BlockActionOptions{Channel: incidentChannel, MessageTS: rec.MessageTS, User: approver, ActionID: render.ActionReject})
	require.NoError(t, err)
	eventually(t, "the reject form", func() bool { return len(e.sim.Views()) == 1 })
	sub, err := e.sim.ViewSubmission(slacksim.ViewSubmissionOptions{ViewID: e.sim.Views()[0].ID, User: approver,
		Values: map[string]string{rejectBlockID: "guarding hides the missing alias"}})
	require.NoError(t, err)
	_, err = e.sim.WaitAck(ctx, sub.EnvelopeID)
	require.NoError(t, err)
	eventually(t, "the rejection remembered", func() bool {
		r, err := rb.store.Recall(ctx, secondJob)
		return err == nil && r.Decision == "rejected"
	})
	_ = second

	_, thirdJob := investigateOnce()
	thirdMsg, _ := e.sim.Message(incidentChannel, e.waitResult(t, thirdJob).MessageTS)
	text = blocksText(thirdMsg)
	assert.Contains(t, text, "the proposed fix was rejected: _guarding hides the missing alias_")
	assert.Contains(t, text, "MEDIUM", "the rejected proposal comes back one band lower")
	assert.Contains(t, text, "the same fix was rejected")

	recent, err := rb.store.RecentIncidents(ctx, sessions.MemoryIndex{}, 10)
	require.NoError(t, err)
	assert.Len(t, recent, 3)
}
