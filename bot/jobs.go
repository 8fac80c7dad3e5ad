package bot

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"time"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/render"
	"github.com/autoheal/autoheal/sessions"
)

// JobKindInvestigate is the kind of an investigation job.
const JobKindInvestigate = "investigate"

// InvestigationJob is the payload of an investigation job: what to
// investigate and the thread to answer in. Mentions, the Re-investigate
// button and alerts enqueue it; the worker runs every one the same way.
type InvestigationJob struct {
	Issue    investigate.Issue `json:"issue"`
	Channel  string            `json:"channel"`
	ThreadTS string            `json:"thread_ts"`
	// MessageTS is the message to show progress and the result in. Empty:
	// the worker posts one in the thread (once, even if the job runs again).
	MessageTS string `json:"message_ts,omitempty"`
	// PostedAt is when MessageTS was posted; the first progress update
	// waits the update interval after it.
	PostedAt time.Time `json:"posted_at,omitzero"`
	// User asked for the investigation (empty for alerts).
	User string `json:"user,omitempty"`
}

var (
	channelIDRE = regexp.MustCompile(`^[CDG][A-Z0-9]{2,24}$`)
	slackTSRE   = regexp.MustCompile(`^[0-9]{1,12}\.[0-9]{1,9}$`)
	jobIDRE     = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)
)

// Validate checks the thread coordinates (they are used in keys and buttons).
func (p InvestigationJob) Validate() error {
	switch {
	case !channelIDRE.MatchString(p.Channel):
		return fmt.Errorf("investigation job: channel %q is not a Slack conversation id", truncateRunes(p.Channel, 40))
	case !slackTSRE.MatchString(p.ThreadTS):
		return fmt.Errorf("investigation job: thread_ts %q is not a Slack timestamp", truncateRunes(p.ThreadTS, 40))
	case p.MessageTS != "" && !slackTSRE.MatchString(p.MessageTS):
		return fmt.Errorf("investigation job: message_ts %q is not a Slack timestamp", truncateRunes(p.MessageTS, 40))
	}
	return nil
}

// NewInvestigationJob builds the queue job for p. id must be stable for
// the event that caused it (1-128 of [A-Za-z0-9._:-]): it keys the
// idempotent result post and the buttons.
func NewInvestigationJob(id string, p InvestigationJob) (sessions.Job, error) {
	if !jobIDRE.MatchString(id) {
		return sessions.Job{}, fmt.Errorf("investigation job id %q: want 1-128 of [A-Za-z0-9._:-]", truncateRunes(id, 40))
	}
	if err := p.Validate(); err != nil {
		return sessions.Job{}, err
	}
	b, err := json.Marshal(p)
	if err != nil {
		return sessions.Job{}, fmt.Errorf("encode investigation job %s: %w", id, err)
	}
	return sessions.Job{ID: id, Kind: JobKindInvestigate, Key: p.Issue.Key, Payload: b}, nil
}

// MentionJobID is the job id of the investigation a mention (Slack event
// id) starts.
func MentionJobID(eventID string) string { return "m-" + sanitizeID(eventID) }

func newJobID(prefix string) string {
	var b [10]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// sanitizeID keeps an id within the job id alphabet and length.
func sanitizeID(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s) && len(out) < 120; i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-' {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return "x"
	}
	return string(out)
}

// resultDoc is what is kept per job after the investigation: the job (to
// investigate again), the result and the approval state of its fix.
type resultDoc struct {
	Job      InvestigationJob        `json:"job"`
	Result   *investigate.HealResult `json:"result"`
	Approval render.ApprovalView     `json:"approval"`
	// GitHubAPI is the session's github_api_url, for links to the source.
	GitHubAPI string `json:"github_api_url,omitempty"`
	// IssueURL is the GitHub issue "Create issue" opened for the report.
	IssueURL string `json:"issue_url,omitempty"`
	// PR is the pull request the approval opened or linked.
	PR *render.PullRequestLink `json:"pr,omitempty"`
	// SeenBefore are similar past incidents the memory recalled.
	SeenBefore []render.PastIncident `json:"seen_before,omitempty"`
}

// encodeResultDoc marshals d within sessions.MaxResultDocBytes, dropping
// the bulkiest parts (receipt findings, then the timeline, then evidence
// quotes) when it does not fit.
func encodeResultDoc(d resultDoc) ([]byte, error) {
	b, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("encode result: %w", err)
	}
	if len(b) <= sessions.MaxResultDocBytes || d.Result == nil {
		return b, nil
	}
	r := *d.Result
	steps := []func(){
		func() {
			tl := make([]investigate.Receipt, len(r.Timeline))
			for i, rc := range r.Timeline {
				rc.Findings, rc.Args = nil, nil
				tl[i] = rc
			}
			r.Timeline = tl
		},
		func() { r.Timeline = nil },
		func() {
			ev := make([]investigate.Finding, len(r.Evidence))
			for i, f := range r.Evidence {
				f.Quote, f.Frames, f.Attrs = truncateRunes(f.Quote, 200), nil, nil
				ev[i] = f
			}
			r.Evidence = ev
		},
		func() {
			if r.Fix.Patch != nil {
				p := *r.Fix.Patch
				p.Diff = truncateBytes(p.Diff, sessions.MaxResultDocBytes/2)
				r.Fix.Patch = &p
			}
			r.Fix.RegressionTest = truncateBytes(r.Fix.RegressionTest, 16<<10)
		},
	}
	for _, step := range steps {
		step()
		d.Result = &r
		if b, err = json.Marshal(d); err != nil {
			return nil, fmt.Errorf("encode result: %w", err)
		}
		if len(b) <= sessions.MaxResultDocBytes {
			return b, nil
		}
	}
	return nil, fmt.Errorf("encode result: %d bytes after trimming: %w", len(b), sessions.ErrResultTooLarge)
}
