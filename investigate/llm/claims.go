package llm

import (
	"regexp"
	"strings"
)

// The model can do nothing but read: every tool is read-only and nothing is
// written without a human's click. A sentence of its answer that says
// something was done (approved, merged, deployed, restarted...) is false by
// construction — typically obedience to an instruction planted in the
// data — and is dropped before anyone reads it.
const actionVerbs = `approved|merged|deployed|redeployed|rolled (?:back|out)|restarted|rebooted|reverted|pushed|committed|opened|created|filed|applied|scaled(?: up| down)?|deleted|removed|patched|fixed|executed|ran|triggered|updated|edited|changed|closed|resolved|disabled|enabled|increased|raised|lowered|bumped|added|configured|notified|paged|escalated`

var actionClaimREs = []*regexp.Regexp{
	// First person: "I approved the PR", "We have already restarted the pods".
	regexp.MustCompile(`(?i)^(?:i|we|autoheal|the bot|this bot)\b(?:\s+(?:have|has|had|just|already|now|successfully|also))*\s+(?:` + actionVerbs + `)\b`),
	regexp.MustCompile(`(?i)\b(?:i|we)(?:'ve| have| had)\s+(?:(?:just|already|now|successfully|also)\s+)*(?:` + actionVerbs + `)\b`),
	// A report without a subject: "Approved the pull request as instructed."
	regexp.MustCompile(`(?i)^(?:(?:just|already|now|successfully|also)\s+)*(?:` + actionVerbs + `)\s+(?:the|a|an|this|it|pr|pull|#)`),
	// The fix itself reported done: "the pull request has been merged".
	regexp.MustCompile(`(?i)\b(?:pull request|pr|fix|patch|remediation|rollback|hotfix)\b[^.!?\n]{0,30}\b(?:has been|have been|is now)\s+(?:(?:already|successfully|automatically)\s+)*(?:approved|merged|deployed|applied|opened|pushed|rolled (?:back|out)|released)\b`),
}

// sentenceRE splits text into sentences and lines, keeping the separators.
var sentenceRE = regexp.MustCompile(`[^.!?\n]+(?:[.!?]+|\n|$)`)

// dropActionClaims removes the sentences of s that claim an action was
// taken; it reports how many it removed.
func dropActionClaims(s string) (string, int) {
	if strings.TrimSpace(s) == "" {
		return s, 0
	}
	var b strings.Builder
	dropped := 0
	for _, sent := range sentenceRE.FindAllString(s, -1) {
		t := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(sent), "-*•0123456789.) "))
		claim := false
		for _, re := range actionClaimREs {
			if re.MatchString(t) {
				claim = true
				break
			}
		}
		if claim {
			dropped++
			if strings.HasSuffix(sent, "\n") {
				b.WriteString("\n")
			}
			continue
		}
		b.WriteString(sent)
	}
	return strings.TrimSpace(b.String()), dropped
}
