package bot

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/sessions"
)

// An alert job (an Issue and the thread the alert opened, no progress
// message yet) runs through the same worker as a mention: the worker posts
// the progress reply once and turns it into the result.
func TestAlertJobRunsThroughTheWorker(t *testing.T) {
	e := newEnv(t, envOptions{})
	s, _ := e.scenarioEnv(t, "cart-oomkilled-low-limit")
	require.True(t, s.Trigger.IsAlert())
	rb := e.startBot(t, func(o *Options) { o.Now = func() time.Time { return s.Now } })

	issue, err := harness.Issue(s)
	require.NoError(t, err)
	require.NotEmpty(t, issue.Key)
	root := e.sim.PostUserMessage(incidentChannel, "U0ALERTMANAGER", ":rotating_light: KubePodCrashLooping", "")
	job, err := NewInvestigationJob("a-"+sanitizeID(issue.Key), InvestigationJob{Issue: issue, Channel: incidentChannel, ThreadTS: root})
	require.NoError(t, err)
	_, err = rb.queue.Enqueue(testCtx(t), job)
	require.NoError(t, err)

	rec := e.waitResult(t, job.ID)
	replies := e.botMessages(incidentChannel, root)
	require.NotEmpty(t, replies)
	assert.Equal(t, rec.MessageTS, replies[0].TS, "the worker's progress reply became the result")
	assert.True(t, strings.HasPrefix(replies[0].Text, "Root cause"), replies[0].Text)
	assert.Contains(t, replies[0].Text, "cart")
	_, ts, err := e.store.JobMessage(testCtx(t), job.ID)
	require.NoError(t, err)
	assert.Equal(t, rec.MessageTS, ts)
	assert.Contains(t, blocksText(replies[0]), "key `", "the issue key is in the footer")
}

// A run that died after Slack took its progress reply, before recording
// it: the next delivery finds that reply in the thread by its post key and
// turns it into the result, instead of leaving it behind "Investigating…".
func TestRerunAdoptsTheProgressReplyADeadRunPosted(t *testing.T) {
	e := newEnv(t, envOptions{})
	s, _ := e.scenarioEnv(t, "cart-oomkilled-low-limit")
	rb := e.startBot(t, func(o *Options) { o.Now = func() time.Time { return s.Now } })
	ctx := testCtx(t)

	issue, err := harness.Issue(s)
	require.NoError(t, err)
	root := e.sim.PostUserMessage(incidentChannel, "U0ALERTMANAGER", ":rotating_light: KubePodCrashLooping", "")
	job, err := NewInvestigationJob("a-"+sanitizeID(issue.Key), InvestigationJob{Issue: issue, Channel: incidentChannel, ThreadTS: root})
	require.NoError(t, err)
	// The first run's last act: the reply is in the thread, the store
	// knows nothing of it.
	orphan, err := rb.postKeyed(ctx, incidentChannel, root, text("Investigating: (first run)"), "progress", progressPostKey(job.ID))
	require.NoError(t, err)
	_, _, err = e.store.JobMessage(ctx, job.ID)
	require.ErrorIs(t, err, sessions.ErrNotFound)

	job.Attempt = 2
	require.NoError(t, rb.HandleJob(ctx, job))
	replies := e.botMessages(incidentChannel, root)
	assert.Equal(t, 0, countPrefix(replies, "Investigating"), "no progress reply left behind")
	require.Equal(t, 1, countPrefix(replies, "Root cause"))
	got, ok := e.sim.Message(incidentChannel, orphan)
	require.True(t, ok)
	assert.True(t, strings.HasPrefix(got.Text, "Root cause"), "the first run's reply became the result")
	_, ts, err := e.store.JobMessage(ctx, job.ID)
	require.NoError(t, err)
	assert.Equal(t, orphan, ts, "the adopted reply is recorded for later runs")
}
