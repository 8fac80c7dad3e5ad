package render

import (
	"fmt"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/slack-go/slack"

	"github.com/autoheal/autoheal/investigate"
)

// ApprovalState is where a proposed fix stands.
type ApprovalState string

const (
	ApprovalPending  ApprovalState = ""         // waiting for a human
	ApprovalOpening  ApprovalState = "opening"  // approved; the pull request is being opened
	ApprovalApproved ApprovalState = "approved" // approved; PRURL is set
	ApprovalRejected ApprovalState = "rejected" // rejected; RejectReason may be set
	ApprovalFailed   ApprovalState = "failed"   // approved but opening the PR failed; Error says why
)

// ApprovalView says what the approval part of a result shows.
type ApprovalView struct {
	// Eligible is true when a PR may be proposed (band at or above the
	// configured minimum, a patch or manifest edit that applies, a bucket
	// that allows it). Approve / Reject / View patch appear only then.
	Eligible bool
	// Note is the one-line reason shown when not eligible, e.g.
	// "No PR: band LOW is below MEDIUM".
	Note         string
	State        ApprovalState
	By           string // Slack user ID (or name) who decided
	PRURL        string
	RejectReason string
	Error        string // why opening the PR failed (already redacted)
	// UpdatePR is the incident's open pull request when this fix differs
	// from it: the button is "Update pull request #N", and approving adds
	// the change to that pull request instead of opening one. Updated says
	// the approval did that.
	UpdatePR int
	Updated  bool
	// Previous is the incident's merged or closed pull request that the
	// new one will follow (a regression); PreviousState is "merged" or
	// "closed".
	Previous      int
	PreviousState string
}

// ResultOptions tunes the result message.
type ResultOptions struct {
	// RepoWebURL is the web root of the Git host: https://github.com, or
	// https://ghe.example.com for GitHub Enterprise (see WebURLFromAPI).
	// Empty renders file:line without links.
	RepoWebURL string
	// Ref overrides the result's ref for links; both empty means main.
	Ref      string
	Approval ApprovalView
	// ThreadLink is a permalink to the investigation thread, shown in the
	// footer (useful when the result is shared elsewhere).
	ThreadLink string
	// Action is carried by every button. The zero value renders no buttons
	// (previews, CLI output); a non-zero invalid value is an error.
	Action ActionValue
	// CreateIssue offers a "Create issue" button while no decision is made,
	// for results that get a report rather than a PR.
	CreateIssue bool
	// ColorBar moves the confidence note into an attachment whose bar has
	// the band's colour.
	ColorBar bool
	// OmitTimeline leaves the full tool-call timeline out of the follow-ups.
	OmitTimeline bool
	// SeenBefore are similar past incidents from the incident memory,
	// newest first; Now dates them ("3 days ago").
	SeenBefore []PastIncident
	Now        time.Time
}

// ResultMessages is a result as Slack receives it: the main message and the
// follow-ups to post in the same thread, in order.
type ResultMessages struct {
	Main      Message   `json:"main"`
	FollowUps []Message `json:"follow_ups,omitempty"`
}

// Main-message budgets. Their sum stays below MaxBlocksText.
const (
	summaryMax       = 300
	descriptionMax   = 500
	fieldMax         = 160
	linkFieldMax     = 500 // a link's URL does not show, so it gets more room
	noteMax          = 500
	evidenceShown    = 5
	evidenceHeadMax  = 180
	evidenceQuoteMax = 200
	fixMax           = 1200
	fixSummaryMax    = 400
	fixSteps         = 6
	fixStepMax       = 120
	proposalMax      = 1800
	inlineDiffMax    = 1000
	inlineDiffLines  = 25
	toolsMax         = 600
	approvalMax      = 400
	footerMax        = 300
	alternativesMax  = 1200 // within the total with every other section full
)

// Follow-up caps, per kind.
const (
	followUpEvidence       = 100 // findings listed in full
	followUpEvidenceMsgs   = 3
	followUpTimeline       = 150 // receipts listed
	followUpTimelineMsgs   = 3
	followUpPatchMsgs      = 5
	followUpTestMsgs       = 1
	followUpQuoteMax       = 1200
	followUpFrames         = 5
	regressionTestInline   = 500
	timelineLineMax        = 400
	affectedRecordsShown   = 5
	toolsListed            = 12
	unavailableListed      = 8
	unavailableReasonMax   = 160
	manifestValueMax       = 120
	flakeFieldMax          = 300
	remediationMax         = 600
	patchExplanationMax    = 250
	regressionTestFollowUp = 20000
	alternativesShown      = 3
)

// Result renders a HealResult: the main message (root cause, badge,
// evidence, fix, tools, approval and buttons, footer) and the follow-ups
// (full evidence, timeline, patch). It fails only on an invalid o.Action.
func Result(r *investigate.HealResult, o ResultOptions) (ResultMessages, error) {
	if r == nil {
		r = &investigate.HealResult{}
	}
	var buttons []slack.BlockElement
	if o.Action != (ActionValue{}) {
		v, err := o.Action.Encode()
		if err != nil {
			return ResultMessages{}, fmt.Errorf("result message: %w", err)
		}
		buttons = resultButtons(r, o, v)
	}
	rc := r.RootCause
	var blocks []slack.Block
	blocks = append(blocks, header(resultHeadline(r)))
	if s := summaryText(r); s != "" {
		blocks = append(blocks, section(s))
	}
	blocks = append(blocks, slack.NewSectionBlock(nil, resultFields(r, o), nil))
	note := confidenceNote(r)
	if note != "" && !o.ColorBar {
		blocks = append(blocks, contextBlock(note))
	}
	if a := alternativesText(r); a != "" {
		blocks = append(blocks, section(a))
	}
	if rb := runbooksText(r); rb != "" {
		blocks = append(blocks, contextBlock(rb))
	}
	blocks = append(blocks, slack.NewDividerBlock())
	blocks = append(blocks, section(evidenceText(r)))
	for _, s := range fixSections(r) {
		blocks = append(blocks, section(s))
	}
	if t := toolsText(r); t != "" {
		blocks = append(blocks, section(t))
	}
	if p := pastIncidentsText(o.SeenBefore, o.Now); p != "" {
		blocks = append(blocks, section(p))
	}
	if a := approvalText(o.Approval); a != "" {
		blocks = append(blocks, section(a))
	}
	if len(buttons) > 0 {
		blocks = append(blocks, slack.NewActionBlock("", buttons...))
	}
	blocks = append(blocks, contextBlock(footerText(r, o)))

	main := Message{Text: resultFallback(r), Blocks: blocks}
	if o.ColorBar {
		badge := "Confidence " + Badge(rc.Band)
		main.Attachments = []slack.Attachment{{
			Color:    BandColor(rc.Band),
			Fallback: "Confidence " + bandWord(rc.Band),
			Blocks:   slack.Blocks{BlockSet: []slack.Block{contextBlock(joinNonEmpty(" — ", badge, note))}},
		}}
	}

	// The most actionable first: the fix, then the evidence, then the log of
	// tool calls. Per-kind caps keep the total within MaxFollowUps.
	var follow []Message
	follow = append(follow, PatchMessages(r, false)...)
	follow = append(follow, EvidenceMessages(r)...)
	if !o.OmitTimeline {
		follow = append(follow, TimelineMessages(r)...)
	}
	if len(follow) > MaxFollowUps {
		follow = follow[:MaxFollowUps]
	}
	return ResultMessages{Main: main, FollowUps: follow}, nil
}

// inconclusive is true when the investigation found nothing to name.
func inconclusive(r *investigate.HealResult) bool {
	rc := r.RootCause
	return strings.TrimSpace(rc.Description) == "" && rc.File == "" &&
		(rc.ErrorType == "" || rc.ErrorType == investigate.ErrUnknown)
}

func resultHeadline(r *investigate.HealResult) string {
	rc := r.RootCause
	if inconclusive(r) {
		return "No root cause found yet"
	}
	h := "Root cause: " + ErrorTypeLabel(rc.ErrorType)
	if s := oneLine(bound(rc.Service, 200)); s != "" {
		h += " in " + s
	}
	if rc.File != "" {
		h += " (" + location(path.Base(rc.File), rc.Line) + ")"
	}
	return h
}

func summaryText(r *investigate.HealResult) string {
	sum := escLine(r.Summary, summaryMax)
	desc := esc(strings.TrimSpace(r.RootCause.Description), descriptionMax)
	if strings.TrimSpace(r.Summary) == strings.TrimSpace(r.RootCause.Description) {
		desc = ""
	}
	if sum != "" {
		sum = "*" + sum + "*"
	}
	if sum == "" && desc == "" && inconclusive(r) {
		return "The evidence gathered so far does not point at a cause. See what was checked and what was unavailable below."
	}
	return joinNonEmpty("\n", sum, desc)
}

func resultFields(r *investigate.HealResult, o ResultOptions) []*slack.TextBlockObject {
	rc := r.RootCause
	field := func(name, value string) *slack.TextBlockObject {
		return mrkdwn(truncateMrkdwn("*"+name+"*\n"+value, fieldMax))
	}
	var fs []*slack.TextBlockObject
	if s := escLine(rc.Service, 80); s != "" {
		fs = append(fs, field("Service", s))
	}
	if rc.File != "" {
		fs = append(fs, mrkdwn("*Location*\n"+sourceLink(r, o, rc.File, rc.Line, linkFieldMax-20)))
	}
	if d := r.Deploy; d != nil {
		fs = append(fs, field("Deployed by", deployText(d)))
	}
	if rc.Function != "" {
		fs = append(fs, field("Function", inlineCode(rc.Function, 100)))
	}
	fs = append(fs, field("Bucket", BucketLabel(rc.Bucket)))
	if !inconclusive(r) {
		fs = append(fs, field("Error type", ErrorTypeLabel(rc.ErrorType)))
	}
	conf := Badge(rc.Band)
	if rc.ClaimedBand != "" && rc.ClaimedBand.Rank() > rc.Band.Rank() {
		conf += " _(claimed " + bandWord(rc.ClaimedBand) + ")_"
	}
	if r.NeedsHuman {
		conf += " · " + NeedsHumanBadge
	}
	fs = append(fs, field("Confidence", conf))
	return fs
}

// sourceLink renders file:line, linked to the repository when possible. Long
// paths keep their tail, which is the informative part.
func sourceLink(r *investigate.HealResult, o ResultOptions, file string, line int, max int) string {
	ref := o.Ref
	if ref == "" {
		ref = r.Ref
	}
	label := tailTrunc(location(oneLine(boundTail(file, 256)), line), 90)
	if u := SourceURL(o.RepoWebURL, r.Repo, ref, file, line); u != "" {
		if l := "<" + strings.ReplaceAll(u, "&", "&amp;") + "|" + Escape(label) + ">"; textLen(l) <= max {
			return l
		}
	}
	return inlineCode(label, 100)
}

// tailTrunc keeps the end of s: "…/oteldemo/AdService.java:137".
func tailTrunc(s string, max int) string {
	if textLen(s) <= max {
		return s
	}
	rs := []rune(s)
	n := textLen(ellipsis)
	i := len(rs)
	for i > 0 {
		l := textLen(string(rs[i-1]))
		if n+l > max {
			break
		}
		n += l
		i--
	}
	return ellipsis + string(rs[i:])
}

func confidenceNote(r *investigate.HealResult) string {
	note := escLine(r.ConfidenceNote, noteMax-20)
	if note == "" {
		return ""
	}
	return ":information_source: " + note
}

// alternativesText shows the conclusions the result does not lead with
// (the other planner's reading of the same calls).
func alternativesText(r *investigate.HealResult) string {
	if len(r.Alternatives) == 0 {
		return ""
	}
	lines := []string{"*Also possible*"}
	if r.Contested() {
		lines[0] = "*Also possible* — as well supported as the root cause above: confirm which before acting"
	}
	if r.NeedsHuman {
		lines[0] = NeedsHumanBadge + " — " + escLine(r.NeedsHumanReason, 250) + ". *Also possible*, as well supported:"
	}
	for i, a := range r.Alternatives {
		if i == alternativesShown {
			lines = append(lines, fmt.Sprintf("_…and %d more_", len(r.Alternatives)-i))
			break
		}
		who := "rules"
		if a.Planner == investigate.ModeLLM {
			who = "model"
		}
		rc := a.RootCause
		head := BucketLabel(rc.Bucket) + ": " + ErrorTypeLabel(rc.ErrorType) + " in " + escLine(rc.Service, 80)
		if rc.File != "" {
			head += " (" + inlineCode(tailTrunc(location(oneLine(boundTail(rc.File, 256)), rc.Line), 70), 74) + ")"
		}
		line := fmt.Sprintf("• %s — %s (%s)", head, Badge(rc.Band), who)
		if n := escLine(a.Note, 300); n != "" {
			line += "\n      _" + n + "_"
		}
		if len(a.Evidence) > 0 {
			line += "\n      " + inlineCode(a.Evidence[0].Quote, 160)
		}
		lines = append(lines, line)
	}
	return truncateMrkdwn(strings.Join(lines, "\n"), alternativesMax)
}

// runbooksText names the runbooks of the library that applied.
func runbooksText(r *investigate.HealResult) string {
	if len(r.Runbooks) == 0 {
		return ""
	}
	names := make([]string, 0, len(r.Runbooks))
	for _, n := range r.Runbooks {
		names = append(names, inlineCode(n, 80))
	}
	return truncateMrkdwn(":blue_book: Runbook: "+strings.Join(names, ", "), noteMax)
}

// evidenceLine renders one finding: a bold kind, where it was seen, and a
// short quote in code formatting.
func evidenceLine(f investigate.Finding, quoteMax int) string {
	parts := []string{"*" + kindLabel(f.Kind) + "*", FamilyLabel(f.Family)}
	if s := escLine(f.Service, 60); s != "" {
		parts = append(parts, s)
	}
	if loc := location(oneLine(boundTail(f.File, 256)), f.Line); loc != "" {
		parts = append(parts, inlineCode(tailTrunc(loc, 70), 74))
	}
	if f.Count > 1 {
		parts = append(parts, fmt.Sprintf("×%d", f.Count))
	}
	head := truncateMrkdwn(strings.Join(parts, " · "), evidenceHeadMax)
	quote := f.Quote
	if strings.TrimSpace(quote) == "" {
		quote = joinNonEmpty(": ", f.Exception, f.Function)
	}
	if q := inlineCode(quote, quoteMax); q != "" {
		return "• " + head + "\n      " + q
	}
	return "• " + head
}

func evidenceText(r *investigate.HealResult) string {
	n := len(r.Evidence)
	if n == 0 {
		return "*Evidence*\n_No evidence found._"
	}
	shown := min(n, evidenceShown)
	title := "*Evidence*"
	if n > shown {
		title = fmt.Sprintf("*Evidence* (top %d of %d — all in the thread)", shown, n)
	}
	lines := []string{title}
	for _, f := range r.Evidence[:shown] {
		lines = append(lines, evidenceLine(f, evidenceQuoteMax))
	}
	return truncateMrkdwn(strings.Join(lines, "\n"), sectionBudget)
}

// fixSections renders the recommended fix: the summary and steps, then the
// bucket-specific proposal (patch, manifest edit, regression test,
// remediation, flake report). Proposal pieces are kept whole: one that does
// not fit the budget is left to the thread rather than cut mid-code-block.
func fixSections(r *investigate.HealResult) []string {
	fx := r.Fix
	first := []string{"*Recommended fix*"}
	if s := esc(strings.TrimSpace(fx.Summary), fixSummaryMax); s != "" {
		first = append(first, s)
	} else {
		first = append(first, "_No fix proposed._")
	}
	for i, st := range fx.Steps {
		if i == fixSteps {
			first = append(first, fmt.Sprintf("_… %s more_", plural(len(fx.Steps)-i, "step", "steps")))
			break
		}
		first = append(first, fmt.Sprintf("%d. %s", i+1, escLine(st, fixStepMax)))
	}
	out := []string{truncateMrkdwn(strings.Join(first, "\n"), fixMax)}

	var pieces []string
	used, skipped := 0, 0
	add := func(p string) {
		if p == "" {
			return
		}
		if used+textLen(p)+1 > proposalMax {
			skipped++
			return
		}
		pieces = append(pieces, p)
		used += textLen(p) + 1
	}
	add(patchPiece(fx.Patch))
	if testInline(r) {
		add(testPiece(fx.RegressionTest))
	} else if strings.TrimSpace(fx.RegressionTest) != "" {
		add("*Regression test* _in the thread._")
	}
	if m := fx.ManifestEdit; m != nil {
		add(manifestText(m))
	}
	if rem := esc(strings.TrimSpace(fx.Remediation), remediationMax); rem != "" {
		add("*Remediation*\n" + rem)
	}
	if recs := fx.AffectedRecords; len(recs) > 0 {
		shown := min(len(recs), affectedRecordsShown)
		codes := make([]string, 0, shown)
		for _, rec := range recs[:shown] {
			codes = append(codes, inlineCode(rec, 80))
		}
		line := "*Affected records* " + strings.Join(codes, ", ")
		if len(recs) > shown {
			line += fmt.Sprintf(" _and %d more_", len(recs)-shown)
		}
		add(line)
	}
	if fl := fx.Flake; fl != nil {
		add(flakeText(fl))
	}
	if skipped > 0 {
		pieces = append(pieces, fmt.Sprintf("_… %s of the proposal did not fit here._", plural(skipped, "part", "parts")))
	}
	if len(pieces) > 0 {
		out = append(out, strings.Join(pieces, "\n"))
	}
	return out
}

// patchPiece summarises a patch, with the diff inline when it is small.
func patchPiece(p *investigate.Patch) string {
	if p == nil {
		return ""
	}
	added, removed, hunks := diffStats(p.Diff)
	lines := []string{fmt.Sprintf("*Patch* %s · +%d −%d in %s", inlineCode(tailTrunc(oneLine(boundTail(p.File, 256)), 90), 94), added, removed, plural(hunks, "hunk", "hunks"))}
	if e := escLine(p.Explanation, patchExplanationMax); e != "" {
		lines = append(lines, e)
	}
	switch {
	case patchFitsInline(p):
		lines = append(lines, codeBlock(strings.TrimRight(p.Diff, "\n"), inlineDiffMax+20))
	case len(p.Diff) > UploadThreshold:
		lines = append(lines, "_The diff is large: it is attached as a file in the thread._")
	default:
		lines = append(lines, "_Full diff in the thread._")
	}
	return strings.Join(lines, "\n")
}

func testPiece(test string) string {
	return "*Regression test*\n" + codeBlock(strings.TrimSpace(test), regressionTestInline+20)
}

// testInline decides, for both the main message and PatchMessages, whether
// the regression test is shown inline: it must be short and fit beside the
// patch summary.
func testInline(r *investigate.HealResult) bool {
	t := strings.TrimSpace(r.Fix.RegressionTest)
	if t == "" {
		return true
	}
	if utf8.RuneCountInString(t) > regressionTestInline || textLen(codeBody(t)) > regressionTestInline {
		return false
	}
	return textLen(patchPiece(r.Fix.Patch))+textLen(testPiece(t))+2 <= proposalMax
}

func manifestText(m *investigate.ManifestEdit) string {
	loc := inlineCode(tailTrunc(location(oneLine(boundTail(m.File, 256)), m.Line), 90), 94)
	change := fmt.Sprintf("%s: %s → %s", inlineCode(m.Path, 160), inlineCode(m.OldValue, manifestValueMax), inlineCode(m.NewValue, manifestValueMax))
	switch m.Op {
	case investigate.EditAppend:
		change = fmt.Sprintf("%s: add %s", inlineCode(m.Path, 160), inlineCode(m.NewValue, manifestValueMax))
	case investigate.EditAdd:
		change = fmt.Sprintf("%s: set %s (new)", inlineCode(m.Path, 160), inlineCode(m.NewValue, manifestValueMax))
	}
	if m.Repo != "" {
		change += " in " + inlineCode(m.Repo, 100)
	}
	s := "*Manifest change* " + loc + "\n" + change
	if why := escLine(m.Reason, 300); why != "" {
		s += "\n_" + why + "_"
	}
	return s
}

func flakeText(f *investigate.FlakeReport) string {
	lines := []string{"*Flake report*"}
	if s := escLine(f.Frequency, flakeFieldMax); s != "" {
		lines = append(lines, "Frequency: "+s)
	}
	if s := escLine(f.Conditions, flakeFieldMax); s != "" {
		lines = append(lines, "Conditions: "+s)
	}
	if !f.FirstSeen.IsZero() {
		lines = append(lines, "Seen "+slackDate(f.FirstSeen)+" – "+slackDate(f.LastSeen))
	}
	return strings.Join(lines, "\n")
}

// diffStats counts added and removed lines and hunks of a unified diff.
func diffStats(diff string) (added, removed, hunks int) {
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "@@"):
			hunks++
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed, hunks
}

// patchFitsInline reports whether a diff is small enough to show in the main
// message; no patch at all also "fits".
func patchFitsInline(p *investigate.Patch) bool {
	if p == nil {
		return true
	}
	d := strings.TrimRight(p.Diff, "\n")
	if utf8.RuneCountInString(d) > inlineDiffMax {
		return false // escaping only makes it longer
	}
	return strings.Count(d, "\n") < inlineDiffLines && textLen(codeBody(d)) <= inlineDiffMax
}

func toolsText(r *investigate.HealResult) string {
	var lines []string
	if len(r.ToolsUsed) > 0 {
		shown := min(len(r.ToolsUsed), toolsListed)
		names := make([]string, 0, shown)
		for _, t := range r.ToolsUsed[:shown] {
			names = append(names, escLine(t, 40))
		}
		line := "*Tools used:* " + strings.Join(names, ", ")
		if len(r.ToolsUsed) > shown {
			line += fmt.Sprintf(" and %d more", len(r.ToolsUsed)-shown)
		}
		lines = append(lines, line)
	}
	if n := len(r.ToolsUnavailable); n > 0 {
		lines = append(lines, "*Unavailable:*")
		for i, u := range r.ToolsUnavailable {
			if i == unavailableListed {
				lines = append(lines, fmt.Sprintf("_… and %d more_", n-i))
				break
			}
			line := "• " + FamilyLabel(u.Family) + " — " + ErrorKindLabel(u.Kind)
			if why := escLine(u.Reason, unavailableReasonMax); why != "" {
				line += ": " + why
			}
			lines = append(lines, line)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return truncateMrkdwn(strings.Join(lines, "\n"), toolsMax)
}

func approvalText(a ApprovalView) string {
	by := userRef(a.By)
	var s string
	switch a.State {
	case ApprovalOpening:
		s = ":hourglass_flowing_sand: Approved by " + by + " — opening a pull request…"
		if a.UpdatePR > 0 {
			s = fmt.Sprintf(":hourglass_flowing_sand: Approved by %s — updating pull request #%d…", by, a.UpdatePR)
		}
	case ApprovalApproved:
		s = ":white_check_mark: Approved by " + by
		if u := safeURL(a.PRURL); u != "" {
			what := " — pull request: "
			if a.Updated {
				what = " — pull request updated: "
			}
			s += what + link(u, shortPR(u), 80)
		}
	case ApprovalRejected:
		s = ":x: Rejected by " + by
		if why := escLine(a.RejectReason, 300); why != "" {
			s += ": " + why
		}
	case ApprovalFailed:
		s = ":warning: Approved by " + by + ", but the pull request could not be opened"
		if why := escLine(a.Error, 300); why != "" {
			s += ": " + why
		}
	default:
		switch {
		case a.Eligible && a.UpdatePR > 0:
			s = fmt.Sprintf(":raised_hand: This fix differs from the one in pull request #%d. Review it, then *Update pull request #%d* to add it there as one commit. Nothing is pushed without approval.", a.UpdatePR, a.UpdatePR)
		case a.Eligible && a.Previous > 0:
			s = fmt.Sprintf(":raised_hand: Pull request #%d was %s and the incident came back. Review the fix, then *Approve* to open a new pull request. Nothing is pushed without approval.", a.Previous, previousState(a.PreviousState))
		case a.Eligible:
			s = ":raised_hand: Review the fix, then *Approve* to open a pull request. Nothing is pushed without approval."
		default:
			if n := escLine(a.Note, 300); n != "" {
				s = ":no_entry_sign: " + n
			}
		}
	}
	return truncateMrkdwn(s, approvalMax)
}

func previousState(st string) string {
	if st == "merged" {
		return "merged"
	}
	return "closed without merging"
}

// shortPR turns https://github.com/acme/shop/pull/42 into acme/shop#42.
func shortPR(u string) string {
	parts := strings.Split(strings.TrimRight(u, "/"), "/")
	if n := len(parts); n >= 4 && parts[n-2] == "pull" {
		return parts[n-4] + "/" + parts[n-3] + "#" + parts[n-1]
	}
	return u
}

func resultButtons(r *investigate.HealResult, o ResultOptions, value string) []slack.BlockElement {
	a := o.Approval
	var els []slack.BlockElement
	hasChange := r.Fix.Patch != nil || r.Fix.ManifestEdit != nil
	switch {
	case a.State == ApprovalPending && a.Eligible:
		label := "Approve"
		if a.UpdatePR > 0 {
			label = fmt.Sprintf("Update pull request #%d", a.UpdatePR)
		}
		approve := button(ActionApprove, label, value).WithStyle(slack.StylePrimary)
		approve.Confirm = approveConfirm(r, a.UpdatePR)
		els = append(els, approve, button(ActionReject, "Reject", value).WithStyle(slack.StyleDanger))
		if hasChange {
			els = append(els, button(ActionViewPatch, "View patch", value))
		}
	case a.State == ApprovalFailed && a.Eligible:
		label := "Retry pull request"
		if a.UpdatePR > 0 {
			label = fmt.Sprintf("Retry update of #%d", a.UpdatePR)
		}
		retry := button(ActionApprove, label, value).WithStyle(slack.StylePrimary)
		retry.Confirm = approveConfirm(r, a.UpdatePR)
		els = append(els, retry)
	}
	if o.CreateIssue && a.State == ApprovalPending {
		els = append(els, button(ActionCreateIssue, "Create issue", value))
	}
	els = append(els, button(ActionReinvestigate, "Re-investigate", value), button(ActionConfigure, "Configure", value))
	return els
}

// approveConfirm is the confirmation dialog of Approve: opening a pull
// request, or (updatePR > 0) pushing to an open one.
func approveConfirm(r *investigate.HealResult, updatePR int) *slack.ConfirmationBlockObject {
	target := "the repository"
	if repoRE.MatchString(r.Repo) {
		target = r.Repo
	}
	title, text, confirm := "Open a pull request?", "AutoHeal will push a branch to "+target+" and open a pull request. Nothing is merged without review.", "Open PR"
	if updatePR > 0 {
		title = fmt.Sprintf("Update pull request #%d?", updatePR)
		text = fmt.Sprintf("AutoHeal will push one commit with this change to the branch of pull request #%d in %s and rewrite its title and description for the new root cause. Nothing is merged without review.", updatePR, target)
		confirm = "Update PR"
	}
	return slack.NewConfirmationBlockObject(
		plainText(title),
		plainText(truncate(text, MaxConfirmText)),
		plainText(confirm),
		plainText("Cancel"),
	)
}

func footerText(r *investigate.HealResult, o ResultOptions) string {
	parts := []string{
		plural(r.ToolCalls(), "tool call", "tool calls"),
		FormatDuration(r.Wall),
		ModeLabel(r.Mode),
	}
	if u := r.Usage; u != nil {
		tok := thousands(u.PromptTokens+u.CompletionTokens) + " tokens"
		if m := escLine(u.Model, 40); m != "" {
			tok += " (" + m + ")"
		}
		parts = append(parts, tok)
		if u.CostUSD > 0 {
			parts = append(parts, formatCost(u.CostUSD))
		}
	}
	if n := escLine(r.ModeNote, 160); n != "" {
		parts = append(parts, n)
	}
	if k := inlineCode(r.IssueKey, 60); k != "" {
		parts = append(parts, "key "+k)
	}
	if u := safeURL(o.ThreadLink); u != "" {
		parts = append(parts, link(u, "thread", 20))
	}
	return truncateMrkdwn(strings.Join(parts, " · "), footerMax)
}

func formatCost(usd float64) string {
	if usd < 0.01 {
		return fmt.Sprintf("$%.4f", usd)
	}
	return fmt.Sprintf("$%.2f", usd)
}

func thousands(n int) string {
	s := fmt.Sprintf("%d", n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// NeedsHumanBadge marks a result whose evidence does not separate two
// explanations: a person decides, no pull request is offered.
const NeedsHumanBadge = ":raising_hand: *needs a human*"

func resultFallback(r *investigate.HealResult) string {
	rc := r.RootCause
	if inconclusive(r) {
		return "No root cause found yet (confidence " + bandWord(rc.Band) + "). " + escLine(r.Summary, 500)
	}
	prefix := ""
	if r.NeedsHuman {
		prefix = "Needs a human — "
	}
	s := prefix + fmt.Sprintf("Root cause (%s, %s): %s", bandWord(rc.Band), strings.ToLower(BucketLabel(rc.Bucket)),
		escLine(joinNonEmpty(" — ", r.Summary, rc.Description), 800))
	if loc := location(oneLine(boundTail(rc.File, 256)), rc.Line); loc != "" {
		s += " · " + Escape(tailTrunc(loc, 200))
	}
	return s
}

// deployText names where the workload is deployed from: the GitOps object
// and its repository, or the configured repository with the reason.
func deployText(d *investigate.DeployTarget) string {
	s := escLine(d.String(), 160)
	if d.Source == "configured" || d.Note != "" {
		note := d.Note
		if note == "" {
			note = "no GitOps object resolved: the configured repository"
		}
		s += "\n_" + escLine(note, 200) + "_"
	}
	return s
}
