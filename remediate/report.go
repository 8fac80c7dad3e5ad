package remediate

import (
	"fmt"
	"net/url"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/redact"
)

// Bounds on what goes into pull requests, issues and comments.
const (
	maxEvidence      = 5
	maxQuoteRunes    = 300
	maxBodyRunes     = 60000 // GitHub allows 65536
	maxRecords       = 50
	markerPrefix     = "<!-- autoheal:issue-key="
	markerSuffix     = " -->"
	proposalPrefix   = "<!-- autoheal:proposal="
	trailerIssueKey  = "AutoHeal-Issue-Key: "
	trailerFireCount = "AutoHeal-Fire: "
)

// Marker is the hidden HTML comment naming an issue key in PR, issue and
// comment bodies.
func Marker(issueKey string) string {
	return markerPrefix + markerEscape(issueKey) + markerSuffix
}

// markerEscape keeps a key from ending the HTML comment early.
func markerEscape(s string) string {
	s = url.QueryEscape(s)
	return strings.ReplaceAll(s, "--", "-%2D")
}

// IssueReport builds the Markdown report for results that never get a pull
// request (bad data, flakes, or any result without an eligible change),
// usable as a GitHub issue title and body. Secrets are masked with the
// default redactor.
func IssueReport(res *investigate.HealResult) (title, body string) {
	return issueReport(res, redact.Default)
}

func issueReport(res *investigate.HealResult, red *redact.Redactor) (string, string) {
	if res == nil {
		return "AutoHeal report", "No investigation result.\n"
	}
	r := func(s string) string { return red.String(s) }
	rc := res.RootCause
	kind := map[investigate.Bucket]string{
		investigate.BucketFlake:          "Flake",
		investigate.BucketBadData:        "Bad data",
		investigate.BucketCodeBug:        "Code bug",
		investigate.BucketInfrastructure: "Infrastructure",
	}[rc.Bucket]
	if kind == "" {
		kind = "Incident"
	}
	svc := firstNonEmpty(rc.Service, "unknown service")
	title := clip(r(fmt.Sprintf("%s in %s: %s", kind, svc, firstNonEmpty(oneLine(res.Summary), oneLine(rc.Description), string(rc.ErrorType)))), maxTitleRunes)

	var b strings.Builder
	fmt.Fprintf(&b, "## %s report: %s\n\n", kind, mdText(r(svc)))
	if s := firstNonEmpty(res.Summary, rc.Description); s != "" {
		fmt.Fprintf(&b, "%s\n\n", mdText(r(s)))
	}
	b.WriteString("| | |\n|---|---|\n")
	row(&b, "Bucket", bucketLabel(rc.Bucket))
	row(&b, "Service", r(svc))
	if rc.ErrorType != "" {
		row(&b, "Error type", string(rc.ErrorType))
	}
	if loc := location(rc); loc != "" {
		row(&b, "Location", r(loc))
	}
	row(&b, "Confidence", confidence(rc))
	if f := res.Fix.Flake; f != nil {
		if f.Frequency != "" {
			row(&b, "Frequency", r(f.Frequency))
		}
		if f.Conditions != "" {
			row(&b, "Conditions", r(f.Conditions))
		}
		if !f.FirstSeen.IsZero() {
			row(&b, "Seen", fmt.Sprintf("%s – %s", f.FirstSeen.UTC().Format(time.RFC3339), f.LastSeen.UTC().Format(time.RFC3339)))
		}
	}
	b.WriteString("\n")
	if res.ConfidenceNote != "" {
		fmt.Fprintf(&b, "_%s_\n\n", mdText(r(res.ConfidenceNote)))
	}
	writeEvidence(&b, res, red)
	if res.Fix.Summary != "" || len(res.Fix.Steps) > 0 || res.Fix.Remediation != "" {
		b.WriteString("### What to do\n\n")
		if res.Fix.Summary != "" {
			fmt.Fprintf(&b, "%s\n\n", mdText(r(res.Fix.Summary)))
		}
		if res.Fix.Remediation != "" {
			fmt.Fprintf(&b, "%s\n\n", mdText(r(res.Fix.Remediation)))
		}
		for i, s := range res.Fix.Steps {
			fmt.Fprintf(&b, "%d. %s\n", i+1, mdText(r(s)))
		}
		if len(res.Fix.Steps) > 0 {
			b.WriteString("\n")
		}
	}
	if recs := res.Fix.AffectedRecords; len(recs) > 0 {
		fmt.Fprintf(&b, "### Affected records (%d)\n\n", len(recs))
		for i, rec := range recs {
			if i == maxRecords {
				fmt.Fprintf(&b, "- … and %d more\n", len(recs)-maxRecords)
				break
			}
			fmt.Fprintf(&b, "- %s\n", inlineCode(r(rec)))
		}
		b.WriteString("\n")
	}
	switch rc.Bucket {
	case investigate.BucketFlake:
		b.WriteString("### Why no pull request\n\nFlakes get a report, not a PR: nothing in the repository changed to cause it, and a retry or a race fix needs a human's design.\n\n")
	case investigate.BucketBadData:
		b.WriteString("### Why no pull request\n\nBad data gets a remediation report, not a PR: the code handles valid records correctly; the records need fixing.\n\n")
	}
	b.WriteString("---\n_Reported by AutoHeal._\n")
	if res.IssueKey != "" {
		b.WriteString(Marker(r(res.IssueKey)) + "\n")
	}
	return title, clipBody(b.String(), res.IssueKey, red)
}

// prContext is what a pull request body says besides the result.
type prContext struct {
	ThreadURL  string
	ApprovedBy string
	FireCount  int
	IssueKey   string
	// Proposal names the approved proposal (hidden marker): a retry finds
	// that the pull request already carries it.
	Proposal string
	// Updated: the body replaces an open pull request's after an approved
	// update; Previous: the merged or closed pull request this one follows.
	Updated  bool
	Previous *PRRef
}

// proposalMarker is the hidden HTML comment naming the approved proposal.
func proposalMarker(id string) string { return proposalPrefix + markerEscape(id) + markerSuffix }

// markedProposal reads the proposal a body's marker names ("" when none).
func markedProposal(body string) string {
	i := strings.LastIndex(body, proposalPrefix)
	if i < 0 {
		return ""
	}
	rest := body[i+len(proposalPrefix):]
	j := strings.Index(rest, markerSuffix)
	if j < 0 {
		return ""
	}
	id, err := url.QueryUnescape(rest[:j])
	if err != nil {
		return ""
	}
	return id
}

// prBody renders a pull request body: the diagnosis, top evidence,
// confidence, the change, the regression test, the Slack thread and the
// hidden issue-key marker. Every variable part passes the redactor.
func prBody(res *investigate.HealResult, p *Proposal, c prContext, red *redact.Redactor) string {
	r := func(s string) string { return red.String(s) }
	rc := res.RootCause
	var b strings.Builder
	b.WriteString("## AutoHeal fix\n\n")
	if s := firstNonEmpty(rc.Description, res.Summary); s != "" {
		fmt.Fprintf(&b, "**Root cause:** %s\n\n", mdText(r(s)))
	}
	b.WriteString("| | |\n|---|---|\n")
	row(&b, "Service", r(firstNonEmpty(rc.Service, "unknown")))
	if loc := location(rc); loc != "" {
		row(&b, "Location", r(loc))
	}
	row(&b, "Bucket", bucketLabel(rc.Bucket))
	if rc.ErrorType != "" {
		row(&b, "Error type", string(rc.ErrorType))
	}
	row(&b, "Confidence", confidence(rc))
	if c.IssueKey != "" {
		row(&b, "Issue key", r(c.IssueKey))
	}
	b.WriteString("\n")
	if res.ConfidenceNote != "" {
		fmt.Fprintf(&b, "_%s_\n\n", mdText(r(res.ConfidenceNote)))
	}
	writeEvidence(&b, res, red)

	b.WriteString("### Change\n\n")
	if res.Fix.Summary != "" {
		fmt.Fprintf(&b, "%s\n\n", mdText(r(res.Fix.Summary)))
	}
	if p.Explanation != "" && p.Explanation != res.Fix.Summary {
		fmt.Fprintf(&b, "%s\n\n", mdText(r(p.Explanation)))
	}
	for _, f := range p.Files {
		fmt.Fprintf(&b, "- %s", inlineCode(r(f.Path)))
		if p.Edit != nil {
			fmt.Fprintf(&b, ": %s: %s → %s", inlineCode(r(p.Edit.Path)), inlineCode(r(p.Edit.OldValue)), inlineCode(r(p.Edit.NewValue)))
		}
		b.WriteString("\n")
	}
	for _, n := range p.Notes {
		fmt.Fprintf(&b, "- %s\n", mdText(r(n)))
	}
	b.WriteString("\n")
	if p.RegressionTest != "" {
		fmt.Fprintf(&b, "### Suggested regression test\n\n%s\n\n", mdText(r(p.RegressionTest)))
	}
	if prev := c.Previous; prev != nil {
		what := "was merged"
		if prev.State != "merged" {
			what = "was closed without merging"
		}
		fmt.Fprintf(&b, "### Earlier pull request\n\nThis incident was addressed before by #%d (%s), which %s; the incident fired again, so this pull request proposes a new fix.\n\n", prev.Number, r(prev.URL), what)
	}
	if c.ThreadURL != "" {
		fmt.Fprintf(&b, "### Slack thread\n\n%s\n\n", r(c.ThreadURL))
	}
	b.WriteString("---\n")
	who := "a human"
	if c.ApprovedBy != "" {
		who = "Slack user " + inlineCode(r(c.ApprovedBy))
	}
	verb := "Opened"
	if c.Updated {
		verb = "Updated with a new root cause and fix"
	}
	fmt.Fprintf(&b, "_%s by AutoHeal after approval by %s. Review before merging: nothing merges without a reviewer._\n", verb, who)
	b.WriteString(Marker(r(c.IssueKey)) + "\n")
	if c.Proposal != "" {
		b.WriteString(proposalMarker(r(c.Proposal)) + "\n")
	}
	return clipBody(b.String(), c.IssueKey, red)
}

// refireComment says the incident fired again and what that means for the
// PR: with a new investigation, whether it proposes the same change (same);
// without one (investigated false), that there is no new evidence.
func refireComment(c prContext, at time.Time, investigated, same bool, note string, red *redact.Redactor) string {
	r := func(s string) string { return red.String(s) }
	var b strings.Builder
	fire := "again"
	if c.FireCount > 0 {
		fire = fmt.Sprintf("again (fire #%d)", c.FireCount)
	}
	fmt.Fprintf(&b, "🔁 This incident fired %s at %s.", fire, at.UTC().Format("2006-01-02 15:04 UTC"))
	switch {
	case !investigated:
		b.WriteString(" " + notReinvestigated + " This pull request is unchanged.")
	case same:
		b.WriteString(" The new investigation proposes the same change: this pull request still applies. No new commit.")
	}
	b.WriteString("\n\n")
	if note != "" {
		fmt.Fprintf(&b, "%s\n\n", strings.TrimSpace(r(note)))
	}
	if c.ThreadURL != "" {
		fmt.Fprintf(&b, "Slack thread: %s\n", r(c.ThreadURL))
	}
	b.WriteString(Marker(r(c.IssueKey)) + "\n")
	return clipBody(b.String(), c.IssueKey, red)
}

// notReinvestigated says that a re-fire brought nothing new.
const notReinvestigated = "No new investigation ran for this fire, so there is no new evidence."

// commitMessage is the message of AutoHeal's commits, with trailers naming
// the issue key (how convergence recognises its own commits).
func commitMessage(subject, detail string, c prContext, red *redact.Redactor) string {
	r := func(s string) string { return red.String(s) }
	var b strings.Builder
	b.WriteString(clip(oneLine(r(subject)), 100))
	b.WriteString("\n\n")
	if d := strings.TrimSpace(r(detail)); d != "" {
		b.WriteString(clip(d, 2000))
		b.WriteString("\n\n")
	}
	b.WriteString(trailerIssueKey + oneLine(r(c.IssueKey)) + "\n")
	if c.FireCount > 0 {
		fmt.Fprintf(&b, "%s%d\n", trailerFireCount, c.FireCount)
	}
	if c.ApprovedBy != "" {
		fmt.Fprintf(&b, "Approved-by: %s (Slack)\n", oneLine(r(c.ApprovedBy)))
	}
	return b.String()
}

func writeEvidence(b *strings.Builder, res *investigate.HealResult, red *redact.Redactor) {
	var ev []investigate.Finding
	for _, f := range res.Evidence {
		if f.Kind == investigate.KindCallEdge {
			continue
		}
		ev = append(ev, f)
	}
	if len(ev) == 0 {
		return
	}
	b.WriteString("### Evidence\n\n")
	for i, f := range ev {
		if i == maxEvidence {
			fmt.Fprintf(b, "- … and %d more in the Slack thread\n", len(ev)-maxEvidence)
			break
		}
		var meta []string
		if f.Family != "" {
			meta = append(meta, string(f.Family))
		}
		if f.Service != "" {
			meta = append(meta, red.String(f.Service))
		}
		if f.File != "" {
			loc := path.Base(f.File)
			if f.Line > 0 {
				loc = fmt.Sprintf("%s:%d", loc, f.Line)
			}
			meta = append(meta, red.String(loc))
		}
		if f.Count > 1 {
			meta = append(meta, fmt.Sprintf("×%d", f.Count))
		}
		fmt.Fprintf(b, "- **%s**", strings.ReplaceAll(string(f.Kind), "_", " "))
		if len(meta) > 0 {
			fmt.Fprintf(b, " (%s)", mdText(strings.Join(meta, ", ")))
		}
		if q := oneLine(f.Quote); q != "" {
			fmt.Fprintf(b, ": %s", inlineCode(clip(red.String(q), maxQuoteRunes)))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

func row(b *strings.Builder, k, v string) {
	fmt.Fprintf(b, "| %s | %s |\n", k, strings.ReplaceAll(mdText(oneLine(v)), "|", `\|`))
}

func bucketLabel(bk investigate.Bucket) string {
	switch bk {
	case investigate.BucketCodeBug:
		return "code bug"
	case investigate.BucketInfrastructure:
		return "infrastructure"
	case investigate.BucketBadData:
		return "bad data"
	case investigate.BucketFlake:
		return "flake"
	}
	return "unclassified"
}

func confidence(rc investigate.RootCause) string {
	band := rc.Band
	if band == "" {
		band = investigate.BandLow
	}
	return "**" + string(band) + "**"
}

func location(rc investigate.RootCause) string {
	if rc.File == "" {
		return ""
	}
	loc := rc.File
	if rc.Line > 0 {
		loc = fmt.Sprintf("%s:%d", loc, rc.Line)
	}
	if rc.Function != "" {
		loc += " (" + rc.Function + ")"
	}
	return loc
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// mdText keeps user text from opening HTML comments or mentioning people
// and teams on GitHub.
func mdText(s string) string {
	s = strings.ReplaceAll(s, "<!--", "&lt;!--")
	s = strings.ReplaceAll(s, "-->", "--&gt;")
	return strings.ReplaceAll(s, "@", "@\u200b")
}

// inlineCode renders s as a Markdown code span on one line.
func inlineCode(s string) string {
	s = oneLine(s)
	run, longest := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// clipBody bounds a body to GitHub's limit, keeping the marker at the end.
func clipBody(s, issueKey string, red *redact.Redactor) string {
	if utf8.RuneCountInString(s) <= maxBodyRunes {
		return s
	}
	return clip(s, maxBodyRunes-200) + "\n\n_(truncated)_\n" + Marker(red.String(issueKey)) + "\n"
}
