package bot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/autoheal/autoheal/config"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/drain"
	"github.com/autoheal/autoheal/render"
	"github.com/autoheal/autoheal/sessions"
)

// The incident memory: every posted result is remembered (redacted) with a
// fingerprint; a new investigation recalls similar past incidents, shows
// up to three under its result, flags a regression of a failure whose fix
// was merged, and lowers the band of a proposal people rejected before.

// recallCandidates is how many recent incidents of the fingerprint and of
// the service are compared with a new result.
const recallCandidates = 50

// similarTemplate is the least token overlap (Jaccard) of two error
// templates of one service for their incidents to count as similar.
const similarTemplate = 0.6

// memoryOf builds what the memory keeps of a result (redacted).
func (b *Bot) memoryOf(jobID string, p InvestigationJob, res *investigate.HealResult, at time.Time) sessions.MemoryRecord {
	rc := res.RootCause
	rec := sessions.MemoryRecord{
		ID: jobID, IssueKey: res.IssueKey, Channel: p.Channel, ThreadTS: p.ThreadTS, At: at.UTC(),
		Service: rc.Service, Bucket: string(rc.Bucket), ErrorType: string(rc.ErrorType),
		Template: b.o.Redactor.String(errorTemplate(res)), File: rc.File, Line: rc.Line,
		Changes: blamedChanges(res), Band: string(rc.Band),
		Summary:  truncateRunes(b.o.Redactor.String(res.Summary), 300),
		Proposal: proposalHash(res.Fix),
	}
	rec.Fingerprint = fingerprintOf(rec)
	return rec
}

// errorTemplate is the root cause's error as a template: the quote of the
// first evidence in its service, with ids and numbers masked.
func errorTemplate(res *investigate.HealResult) string {
	for _, f := range res.Evidence {
		if f.Quote == "" || (f.Service != "" && f.Service != res.RootCause.Service) {
			continue
		}
		switch f.Kind {
		case investigate.KindSourceAnchor, investigate.KindChangeCorrelation:
			continue
		}
		return truncateRunes(drain.Mask(f.Quote), 300)
	}
	return ""
}

var shortSHA = regexp.MustCompile(`\b[0-9a-f]{7,12}\b`)

// blamedChanges are the short SHAs of the changes the result blames.
func blamedChanges(res *investigate.HealResult) []string {
	var out []string
	for _, f := range res.Evidence {
		if f.Kind != investigate.KindChangeCorrelation {
			continue
		}
		if sha := shortSHA.FindString(f.Quote); sha != "" && !slices.Contains(out, sha) {
			out = append(out, sha)
		}
	}
	return out
}

// proposalHash identifies the change a result proposes ("" for none).
func proposalHash(fix investigate.Fix) string {
	var s string
	switch {
	case fix.Patch != nil:
		s = "patch\x00" + fix.Patch.File + "\x00" + fix.Patch.Diff
	case fix.ManifestEdit != nil:
		e := fix.ManifestEdit
		s = "manifest\x00" + e.File + "\x00" + e.Path + "\x00" + e.NewValue
	default:
		return ""
	}
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}

// fingerprintOf groups incidents with the same findings.
func fingerprintOf(r sessions.MemoryRecord) string {
	sum := sha256.Sum256([]byte(strings.Join([]string{r.Service, r.Bucket, r.ErrorType, r.Template, r.File}, "\x00")))
	return hex.EncodeToString(sum[:10])
}

// recollection is what the memory says about a new result.
type recollection struct {
	Past []render.PastIncident
	// Rejected is an earlier rejection of the same proposal (nil: none).
	Rejected *sessions.MemoryRecord
}

// recall finds past incidents like rec (newest first, not rec itself):
// the same fingerprint, else a close template in the same service. The
// pull requests of those shown are read again from GitHub (cfg: the
// thread's settings).
func (b *Bot) recall(ctx context.Context, rec sessions.MemoryRecord, cfg config.Settings, log *slog.Logger) (recollection, error) {
	same, err := b.o.Store.RecentIncidents(ctx, sessions.MemoryIndex{Fingerprint: rec.Fingerprint}, recallCandidates)
	if err != nil {
		return recollection{}, err
	}
	var near []sessions.MemoryRecord
	if rec.Service != "" {
		if near, err = b.o.Store.RecentIncidents(ctx, sessions.MemoryIndex{Service: rec.Service}, recallCandidates); err != nil {
			return recollection{}, err
		}
	}
	var out recollection
	var shown []sessions.MemoryRecord
	var shownSame []bool
	seen := map[string]bool{rec.ID: true}
	add := func(r sessions.MemoryRecord, isSame bool) {
		if seen[r.ID] {
			return
		}
		seen[r.ID] = true
		if isSame && out.Rejected == nil && r.Decision == "rejected" && r.Proposal != "" && r.Proposal == rec.Proposal {
			rr := r
			out.Rejected = &rr
		}
		if len(shown) < render.MaxPastIncidents {
			shown, shownSame = append(shown, r), append(shownSame, isSame)
		}
	}
	for _, r := range same {
		add(r, true)
	}
	for _, r := range near {
		if r.Bucket == rec.Bucket && templateSimilarity(r.Template, rec.Template) >= similarTemplate {
			add(r, false)
		}
	}
	b.refreshPRStates(ctx, shown, cfg, log)
	for i, r := range shown {
		out.Past = append(out.Past, b.pastIncident(r, shownSame[i]))
	}
	slices.SortStableFunc(out.Past, func(a, c render.PastIncident) int { return c.At.Compare(a.At) })
	return out, nil
}

func (b *Bot) pastIncident(r sessions.MemoryRecord, same bool) render.PastIncident {
	return render.PastIncident{At: r.At, Channel: r.Channel, ThreadURL: b.permalink(r.Channel, r.ThreadTS),
		PRURL: r.PRURL, PRNumber: r.PRNumber, PRState: r.PRState, Decision: r.Decision, Reason: r.Reason, Same: same}
}

// permalink of a thread, from the workspace URL auth.test gave ("" when
// unknown): https://acme.slack.com/archives/C0123/p1700000000123456.
func (b *Bot) permalink(channel, ts string) string {
	base, _ := b.teamURL.Load().(string)
	if base == "" || channel == "" || ts == "" {
		return ""
	}
	return strings.TrimSuffix(base, "/") + "/archives/" + channel + "/p" + strings.ReplaceAll(ts, ".", "")
}

// templateSimilarity is the Jaccard overlap of two templates' tokens,
// wildcards left out.
func templateSimilarity(a, c string) float64 {
	ta, tc := templateTokens(a), templateTokens(c)
	if len(ta) == 0 || len(tc) == 0 {
		return 0
	}
	inter := 0
	for t := range ta {
		if tc[t] {
			inter++
		}
	}
	return float64(inter) / float64(len(ta)+len(tc)-inter)
}

func templateTokens(s string) map[string]bool {
	out := map[string]bool{}
	for _, t := range drain.Tokenize(s) {
		if t != drain.Wildcard {
			out[t] = true
		}
	}
	return out
}

// applyMemory recalls past incidents for a fresh result and applies what
// they say: the rejected proposal lowers the band (never raises it).
func (b *Bot) applyMemory(ctx context.Context, jobID string, doc *resultDoc, cfg config.Settings, log *slog.Logger) {
	rec := b.memoryOf(jobID, doc.Job, doc.Result, b.o.Now())
	got, err := b.recall(ctx, rec, cfg, log)
	if err != nil {
		log.Warn("incident memory not read", "err", err)
		return
	}
	doc.SeenBefore = got.Past
	if got.Rejected != nil {
		rc := &doc.Result.RootCause
		if lower := lowerBand(rc.Band); lower != rc.Band {
			why := fmt.Sprintf("%s → %s: the same fix was rejected %s", rc.Band, lower, agoText(got.Rejected.At, b.o.Now()))
			if got.Rejected.Reason != "" {
				why += " (" + truncateRunes(got.Rejected.Reason, 200) + ")"
			}
			rc.Band = lower
			doc.Result.ConfidenceNote = strings.TrimSpace(doc.Result.ConfidenceNote + " " + why + ".")
		}
	}
}

func lowerBand(b investigate.Band) investigate.Band {
	switch b {
	case investigate.BandHigh:
		return investigate.BandMedium
	default:
		return investigate.BandLow
	}
}

func agoText(t, now time.Time) string {
	d := now.Sub(t)
	if d < 48*time.Hour {
		return strconv.Itoa(int(d.Hours())) + " h ago"
	}
	return strconv.Itoa(int(d.Hours()/24)) + " days ago"
}

// remember keeps a posted result in the memory.
func (b *Bot) remember(ctx context.Context, jobID string, doc *resultDoc, resultTS string, log *slog.Logger) {
	rec := b.memoryOf(jobID, doc.Job, doc.Result, b.o.Now())
	rec.MessageTS = resultTS
	if err := b.o.Store.Remember(ctx, rec); err != nil {
		log.Warn("result not remembered", "err", err)
	}
}

// rememberDecision records what people did with a result's proposal.
func (b *Bot) rememberDecision(ctx context.Context, jobID string, doc *resultDoc, log *slog.Logger) {
	a := doc.Approval
	var decision string
	switch a.State {
	case render.ApprovalApproved:
		decision = "approved"
	case render.ApprovalRejected:
		decision = "rejected"
	default:
		return
	}
	err := b.o.Store.Amend(ctx, jobID, func(r *sessions.MemoryRecord) {
		r.Decision, r.By = decision, a.By
		r.Reason = truncateRunes(b.o.Redactor.String(a.RejectReason), 300)
		if doc.PR != nil {
			r.PRURL, r.PRNumber = doc.PR.URL, doc.PR.Number
		} else if a.PRURL != "" {
			r.PRURL = a.PRURL
		}
		if r.PRURL != "" && r.PRState == "" {
			r.PRState = "open"
		}
	})
	if err != nil && !errors.Is(err, sessions.ErrNotFound) {
		log.Warn("decision not remembered", "err", err)
	}
}
