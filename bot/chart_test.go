package bot

import (
	"bytes"
	"image/png"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
	slacksim "github.com/autoheal/autoheal/sim/slack"
)

func chartResult() *investigate.HealResult {
	t0 := time.Date(2026, 12, 1, 15, 24, 0, 0, time.UTC)
	onset := t0.Add(48 * time.Minute)
	var pts []investigate.Sample
	for i := 0; i < 60; i++ {
		at := t0.Add(time.Duration(i) * time.Minute)
		v := 0.0
		if !at.Before(onset) {
			v = 0.21
		}
		pts = append(pts, investigate.Sample{T: at, V: v})
	}
	return &investigate.HealResult{
		RootCause: investigate.RootCause{Service: "payment", ErrorType: investigate.ErrNullPointer},
		Chart: &investigate.EvidenceChart{Service: "payment", What: "error ratio", Unit: "ratio", Points: pts, Baseline: true, Onset: onset,
			Change: &investigate.ChartChange{At: t0.Add(25 * time.Minute), SHA: "0cb5b9c", Title: "payment: line items"}},
	}
}

// chartFiles are the files shared in a thread under a job's chart name.
func (e *testEnv) chartFiles(threadTS, jobID string) []slacksim.File {
	var out []slacksim.File
	for _, m := range e.botMessages(incidentChannel, threadTS) {
		for _, f := range m.Files {
			if f.Name == chartFileName(jobID) {
				out = append(out, f)
			}
		}
	}
	return out
}

// The evidence chart goes to the result's thread once: an upload that
// failed before sharing is retried, a completion whose answer was lost is
// found in the thread (by its file id) instead of being shared twice, and
// a retried job finds the chart it already posted.
func TestChartPostedOnce(t *testing.T) {
	e := newEnv(t, envOptions{})
	rb := e.startBot(t, func(o *Options) { o.NoWorker = true })
	ctx := testCtx(t)
	res := chartResult()
	thread := func() string {
		ts, err := rb.post(ctx, incidentChannel, "", text("incident thread"), "root")
		require.NoError(t, err)
		return ts
	}
	searches := func() int { return len(e.sim.Calls("conversations.replies")) }
	uploads := func() int { return len(e.sim.Calls("files.getUploadURLExternal")) }

	t.Run("in the thread, a PNG with alt text and a caption", func(t *testing.T) {
		root := thread()
		before := searches()
		rb.postChart(ctx, "job-1", incidentChannel, root, res, false, rb.log)
		files := e.chartFiles(root, "job-1")
		require.Len(t, files, 1)
		f := files[0]
		assert.Equal(t, root, f.ThreadTS)
		assert.Equal(t, "payment: error ratio", f.Title)
		assert.Contains(t, f.AltText, "payment error ratio")
		assert.Contains(t, f.AltText, "0cb5b9c")
		img, err := png.Decode(bytes.NewReader(f.Content))
		require.NoError(t, err)
		assert.Equal(t, 800, img.Bounds().Dx())
		msgs := e.botMessages(incidentChannel, root)
		assert.Contains(t, msgs[len(msgs)-1].Text, "onset 16:12")
		assert.Equal(t, before, searches(), "a first attempt does not search")
	})
	t.Run("answer of the completion lost", func(t *testing.T) {
		root := thread()
		e.sim.InjectFault("files.completeUploadExternal", 1, slacksim.Fault{Status: http.StatusInternalServerError, AfterEffect: true})
		before := searches()
		rb.postChart(ctx, "job-2", incidentChannel, root, res, false, rb.log)
		assert.Len(t, e.chartFiles(root, "job-2"), 1, "shared once")
		assert.Equal(t, before+1, searches(), "the retry looked for the file first")
	})
	t.Run("failed before sharing", func(t *testing.T) {
		root := thread()
		e.sim.InjectFault("files.getUploadURLExternal", 1, slacksim.Fault{Status: http.StatusServiceUnavailable})
		rb.postChart(ctx, "job-3", incidentChannel, root, res, false, rb.log)
		assert.Len(t, e.chartFiles(root, "job-3"), 1)
	})
	t.Run("a retried job finds its chart", func(t *testing.T) {
		root := thread()
		rb.postChart(ctx, "job-4", incidentChannel, root, res, false, rb.log)
		n := uploads()
		rb.postChart(ctx, "job-4", incidentChannel, root, res, true, rb.log)
		assert.Len(t, e.chartFiles(root, "job-4"), 1)
		assert.Equal(t, n, uploads(), "nothing uploaded again")
	})
	t.Run("no chart: nothing sent", func(t *testing.T) {
		root := thread()
		n := uploads()
		noChart := chartResult()
		noChart.Chart = nil
		rb.postChart(ctx, "job-5", incidentChannel, root, noChart, false, rb.log)
		assert.Equal(t, n, uploads())
		assert.Len(t, e.botMessages(incidentChannel, root), 1, "only the root")
	})
}
