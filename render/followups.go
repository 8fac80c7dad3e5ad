package render

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/slack-go/slack"

	"github.com/autoheal/autoheal/investigate"
)

// pages packs mrkdwn entries (each within sectionBudget) into at most
// maxMsgs thread messages, the first starting with heading. Entries that do
// not fit are counted in a closing note rather than silently dropped.
func pages(heading, fallback string, entries []string, maxMsgs int) []Message {
	if len(entries) == 0 || maxMsgs <= 0 {
		return nil
	}
	sections := packLines(append([]string{heading}, entries...), sectionBudget)
	var msgs []Message
	var cur []slack.Block
	curText := 0
	flush := func() {
		if len(cur) > 0 {
			msgs = append(msgs, Message{Blocks: cur})
			cur, curText = nil, 0
		}
	}
	dropped := 0
	for i, s := range sections {
		l := textLen(s)
		if curText+l > followUpBlocksText || len(cur) >= MaxMessageBlocks-1 {
			flush()
		}
		if len(msgs) == maxMsgs {
			dropped = len(sections) - i
			break
		}
		cur = append(cur, section(s))
		curText += l
	}
	flush()
	if dropped > 0 && len(msgs) > 0 {
		last := &msgs[len(msgs)-1]
		last.Blocks = append(last.Blocks, contextBlock(fmt.Sprintf("_… %s not shown: Slack messages have limits._", plural(dropped, "more section", "more sections"))))
	}
	for i := range msgs {
		msgs[i].Text = fallback
		if len(msgs) > 1 {
			msgs[i].Text = fmt.Sprintf("%s (%d/%d)", fallback, i+1, len(msgs))
		}
	}
	return msgs
}

// EvidenceMessages lists every finding in full (up to a cap) when the main
// message shows only the top ones; nil otherwise.
func EvidenceMessages(r *investigate.HealResult) []Message {
	if r == nil || len(r.Evidence) <= evidenceShown {
		return nil
	}
	n := len(r.Evidence)
	shown := min(n, followUpEvidence)
	entries := make([]string, 0, shown+1)
	for i, f := range r.Evidence[:shown] {
		entries = append(entries, evidenceEntry(i+1, f))
	}
	if n > shown {
		entries = append(entries, fmt.Sprintf("_… and %d more findings not listed._", n-shown))
	}
	heading := fmt.Sprintf("*All evidence* (%s)", plural(n, "finding", "findings"))
	return pages(heading, fmt.Sprintf("All evidence: %s", plural(n, "finding", "findings")), entries, followUpEvidenceMsgs)
}

func evidenceEntry(i int, f investigate.Finding) string {
	head := fmt.Sprintf("*%d.* %s", i, strings.TrimPrefix(evidenceLine(investigate.Finding{
		Kind: f.Kind, Family: f.Family, Service: f.Service, File: f.File, Line: f.Line, Count: f.Count,
	}, 0), "• "))
	var extra []string
	if fn := inlineCode(f.Function, 120); fn != "" {
		extra = append(extra, "in "+fn)
	}
	if ex := inlineCode(f.Exception, 120); ex != "" {
		extra = append(extra, ex)
	}
	if p := inlineCode(f.Peer, 80); p != "" {
		extra = append(extra, "peer "+p)
	}
	if !f.Time.IsZero() {
		when := "first seen " + slackDate(f.Time)
		if !f.LastTime.IsZero() && !f.LastTime.Equal(f.Time) {
			when += ", last " + slackDate(f.LastTime)
		}
		extra = append(extra, when)
	}
	lines := []string{head}
	if len(extra) > 0 {
		lines = append(lines, strings.Join(extra, " · "))
	}
	if q := strings.TrimSpace(f.Quote); q != "" {
		lines = append(lines, codeBlock(q, followUpQuoteMax))
	}
	if len(f.Frames) > 0 {
		var fr []string
		for j, fm := range f.Frames {
			if j == followUpFrames {
				fr = append(fr, fmt.Sprintf("… %d more frames", len(f.Frames)-j))
				break
			}
			fr = append(fr, "at "+joinNonEmpty(" ", fm.Function, "("+location(fm.File, fm.Line)+")"))
		}
		lines = append(lines, codeBlock(strings.Join(fr, "\n"), 800))
	}
	return truncateMrkdwn(strings.Join(lines, "\n"), sectionBudget)
}

// sensitiveArg matches argument names whose values must never be shown,
// even though receipts are redacted upstream.
var sensitiveArg = regexp.MustCompile(`(?i)(token|secret|password|passwd|authorization|api[_-]?key|cookie|credential)`)

// TimelineMessages lists every tool call of the investigation (up to a cap).
func TimelineMessages(r *investigate.HealResult) []Message {
	if r == nil || len(r.Timeline) == 0 {
		return nil
	}
	rs := append([]investigate.Receipt(nil), r.Timeline...)
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].Seq < rs[j].Seq })
	n := len(rs)
	shown := min(n, followUpTimeline)
	entries := make([]string, 0, shown+1)
	for _, rc := range rs[:shown] {
		entries = append(entries, timelineLine(rc))
	}
	if n > shown {
		entries = append(entries, fmt.Sprintf("_… and %d more tool calls not listed._", n-shown))
	}
	heading := fmt.Sprintf("*Timeline* (%s)", plural(n, "tool call", "tool calls"))
	return pages(heading, fmt.Sprintf("Timeline: %s", plural(n, "tool call", "tool calls")), entries, followUpTimelineMsgs)
}

func timelineLine(rc investigate.Receipt) string {
	st := stepFromReceipt(rc)
	parts := []string{fmt.Sprintf("`#%d` %s *%s*", rc.Seq, stepIcon(st.Status), FamilyLabel(rc.Family))}
	if t := inlineCode(rc.Tool, 60); t != "" {
		parts = append(parts, t)
	}
	if a := argsText(rc.Args); a != "" {
		parts = append(parts, a)
	}
	if s := escLine(rc.Summary, 160); s != "" {
		parts = append(parts, "— "+s)
	}
	if rc.OK {
		parts = append(parts, "· "+FormatDuration(rc.Duration))
		if rc.Warning != "" {
			parts = append(parts, "— ⚠ "+escRaw(rc.Warning, 160))
		}
	} else {
		parts = append(parts, "— "+escRaw(st.Detail, 160))
	}
	if rc.Planner == string(investigate.ModeLLM) {
		parts = append(parts, "_(LLM)_")
	}
	if rc.Runbook != "" {
		parts = append(parts, "_(runbook "+escLine(rc.Runbook, 80)+")_")
	}
	return truncateMrkdwn(strings.Join(parts, " "), timelineLineMax)
}

// argsText renders tool arguments compactly, sorted, with sensitive-looking
// names masked as a second line of defence.
func argsText(args map[string]any) string {
	if len(args) == 0 {
		return ""
	}
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i == 6 {
			b.WriteString(" …")
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		v := bound(fmt.Sprint(args[k]), 200)
		if sensitiveArg.MatchString(k) {
			v = "••••"
		}
		b.WriteString(truncate(oneLine(bound(k, 100)), 30) + "=" + truncate(oneLine(v), 40))
	}
	return inlineCode(b.String(), 200)
}

// PatchMessages renders what of the fix does not fit the main message: the
// diff, as code blocks split across messages or as a file upload when it is
// larger than UploadThreshold, and a long regression test. A diff small
// enough to be inline in the main message is not repeated unless full is set
// (the bot sets it to answer "View patch").
func PatchMessages(r *investigate.HealResult, full bool) []Message {
	if r == nil {
		return nil
	}
	p := r.Fix.Patch
	if p != nil && patchFitsInline(p) && !full {
		p = nil
	}
	test := strings.TrimSpace(r.Fix.RegressionTest)
	var out []Message
	if p != nil && strings.TrimSpace(p.Diff) != "" {
		file := oneLine(boundTail(p.File, 256))
		added, removed, _ := diffStats(p.Diff)
		title := fmt.Sprintf("Patch for %s (+%d −%d)", tailTrunc(file, 120), added, removed)
		if len(p.Diff) > UploadThreshold {
			out = append(out, patchUpload(p, title))
		} else {
			heading := "*" + Escape(title) + "*"
			if e := escLine(p.Explanation, patchExplanationMax); e != "" {
				heading += "\n" + e
			}
			out = append(out, pages(heading, Escape(title), splitCode(p.Diff, sectionBudget), followUpPatchMsgs)...)
		}
	}
	if test != "" && (full || !testInline(r)) {
		if len(test) > regressionTestFollowUp {
			test = test[:regressionTestFollowUp]
			test = strings.ToValidUTF8(test, "") + "\n… truncated"
		}
		out = append(out, pages("*Regression test*", "Regression test", splitCode(test, sectionBudget), followUpTestMsgs)...)
	}
	return out
}

var unsafeFilename = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func patchUpload(p *investigate.Patch, title string) Message {
	base := unsafeFilename.ReplaceAllString(path.Base(oneLine(boundTail(p.File, 256))), "_")
	if base == "" || base == "." || base == "_" {
		base = "fix"
	}
	content := p.Diff
	truncated := false
	if len(content) > MaxUploadBytes {
		marker := fmt.Sprintf("\n… truncated: the diff is %d bytes, limit %d\n", len(p.Diff), MaxUploadBytes)
		content = strings.ToValidUTF8(content[:MaxUploadBytes-len(marker)], "") + marker
		truncated = true
	}
	kb := (len(p.Diff) + 1023) / 1024
	text := fmt.Sprintf("%s — %d KB, attached as a file.", Escape(title), kb)
	if truncated {
		text += " The file is truncated."
	}
	return Message{
		Text:   text,
		Blocks: []slack.Block{section(":page_facing_up: " + text)},
		Upload: &Upload{
			Filename:    "autoheal-" + base[:min(len(base), 100)] + ".diff",
			Title:       truncate(title, 250),
			SnippetType: "diff",
			Content:     content,
			Size:        len(content),
			Truncated:   truncated,
		},
	}
}
