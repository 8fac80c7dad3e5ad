package bot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/slack-go/slack"

	"github.com/autoheal/autoheal/chart"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/render"
)

// chartCalls is the Web API calls of the evidence chart:
// files.getUploadURLExternal and files.completeUploadExternal (the bytes
// go to the upload URL, which is not a Web API method).
const chartCalls = 2

// chartFileName names a job's chart; a retried job finds it in the thread
// by this name.
func chartFileName(jobID string) string { return "autoheal-evidence-" + jobID + ".png" }

// postChart uploads the result's evidence chart into the thread, once per
// job. Slack's external upload takes three steps; only the last one
// (files.completeUploadExternal) shares the file, so the first two are
// simply retried, and a completion whose answer was lost is looked for in
// the thread (by its file id) before it is sent again. retried says an
// earlier attempt of the job may have uploaded it already: the thread is
// searched for the job's file name first. A chart that cannot be drawn or
// sent is logged, never fails the result.
func (b *Bot) postChart(ctx context.Context, jobID, channel, threadTS string, res *investigate.HealResult, retried bool, log *slog.Logger) {
	if res == nil || res.Chart == nil {
		return
	}
	png, err := chart.Evidence(res.Chart)
	if err != nil {
		if !errors.Is(err, chart.ErrNoChart) {
			log.Warn("evidence chart not drawn", "err", err)
		}
		return
	}
	name := chartFileName(jobID)
	if retried {
		found, err := b.findFile(ctx, channel, threadTS, func(f slack.File) bool { return f.Name == name }, time.Time{})
		if err != nil {
			log.Warn("evidence chart not posted: an earlier attempt may have, and looking for it failed", "err", err)
			return
		}
		if found {
			return
		}
	}
	comment, alt := render.ChartCaption(res.Chart)
	var up *slack.GetUploadURLExternalResponse
	err = withRetry(ctx, retryPolicy{Attempts: 3}, func(ctx context.Context) error {
		u, err := b.api.GetUploadURLExternalContext(ctx, slack.GetUploadURLExternalParameters{FileName: name, FileSize: len(png), AltTxt: alt})
		if err != nil {
			return err
		}
		if err := b.api.UploadToURL(ctx, slack.UploadToURLParameters{UploadURL: u.UploadURL, Filename: name, Reader: bytes.NewReader(png)}); err != nil {
			return err
		}
		up = u
		return nil
	})
	if err != nil {
		log.Warn("evidence chart not uploaded", "err", err)
		return
	}
	since := time.Now()
	uncertain := false
	err = withRetry(ctx, retryPolicy{Attempts: 3}, func(ctx context.Context) error {
		if uncertain {
			found, err := b.findFile(ctx, channel, threadTS, func(f slack.File) bool { return f.ID == up.FileID }, since)
			if err != nil {
				return finalError{fmt.Errorf("an earlier attempt may have shared the chart, and looking for it failed (%v); not sharing again", err)}
			}
			if found {
				return nil
			}
		}
		_, err := b.api.CompleteUploadExternalContext(ctx, slack.CompleteUploadExternalParameters{
			Files:   []slack.FileSummary{{ID: up.FileID, Title: res.Chart.Service + ": " + res.Chart.What}},
			Channel: channel, ThreadTimestamp: threadTS, InitialComment: comment,
		})
		uncertain = uncertain || mayHaveTakenEffect(err)
		return err
	})
	if err != nil {
		log.Warn("evidence chart not shared", "err", err)
		return
	}
	log.Info("evidence chart posted", "file_id", up.FileID, "bytes", len(png), "series", res.Chart.What)
}

// findFile looks for a file among the thread's messages (since a time,
// when given).
func (b *Bot) findFile(ctx context.Context, channel, threadTS string, match func(slack.File) bool, since time.Time) (bool, error) {
	params := &slack.GetConversationRepliesParameters{ChannelID: channel, Timestamp: threadTS, Limit: 200}
	if !since.IsZero() {
		params.Oldest = strconv.FormatInt(since.Add(-time.Minute).Unix(), 10) + ".000000"
	}
	for page := 0; page < maxChartSearchPages; page++ {
		msgs, more, next, err := b.api.GetConversationRepliesContext(ctx, params)
		if err != nil {
			return false, err
		}
		for _, m := range msgs {
			for _, f := range m.Files {
				if match(f) {
					return true, nil
				}
			}
		}
		if !more || next == "" {
			return false, nil
		}
		params.Cursor = next
	}
	return false, fmt.Errorf("thread longer than %d messages", maxChartSearchPages*200)
}

// maxChartSearchPages bounds the search of a long thread (200 a page).
const maxChartSearchPages = 5
