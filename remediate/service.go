package remediate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/redact"
	"github.com/autoheal/autoheal/sessions"
)

// ApprovalStore keeps who is opening which pull request and the audit log
// of decisions (Redis approval records); *sessions.Store implements it.
type ApprovalStore interface {
	BeginApproval(ctx context.Context, key string, by sessions.Actor) (sessions.Approval, bool, error)
	RecordStep(ctx context.Context, key, lease string, step sessions.Step, upd sessions.StepUpdate) (sessions.Approval, error)
	CompleteApproval(ctx context.Context, key, lease string, done sessions.Completion) (sessions.Approval, error)
	FailApproval(ctx context.Context, key, lease, errMsg string) (sessions.Approval, error)
	GetApproval(ctx context.Context, key string) (sessions.Approval, error)
	Reject(ctx context.Context, key string, by sessions.Actor, reason string) (sessions.Approval, error)
	RecordAudit(ctx context.Context, rec sessions.AuditRecord) error
}

// CommitAuthor names the author of AutoHeal's commits (default: whoever the
// token or app acts as).
type CommitAuthor struct {
	Name, Email string
}

// Credentials replace the service's GitHub credentials for one request (a
// thread's or channel's github_token / github_api_url settings, bound by
// the settings resolution): Token, possibly empty, is the only credential
// sent, to APIURL (empty: the service's API URL). Nil uses the service's
// own credentials.
type Credentials struct {
	APIURL string
	Token  string
	// Transport, when set, carries the requests (the bot's address guard
	// for a user-set URL).
	Transport http.RoundTripper
}

// Options configure a Service.
type Options struct {
	GitHub GitHubOptions
	// Repo and Ref are used when a result names none.
	Repo, Ref string
	// BaseBranch is the pull requests' base (default: the investigated ref
	// when it is a branch, else the repository's default branch).
	BaseBranch string
	// Store keeps approval records; required for Approve, Reject and CreateIssue.
	Store ApprovalStore
	// Approvers may approve (AUTOHEAL_APPROVERS); nobody may when empty.
	Approvers Approvers
	// Groups resolves user groups listed in Approvers.
	Groups GroupResolver
	// Redactor masks secrets in everything published (default redact.Default).
	Redactor *redact.Redactor
	Logger   *slog.Logger
	Now      func() time.Time
	// BranchPrefix starts branch names (default "autoheal/").
	BranchPrefix string
	// CallTimeout bounds each GitHub call (default 20 s).
	CallTimeout time.Duration
	// MaxFileBytes bounds the files proposals read and write (default 1 MiB).
	MaxFileBytes int
	// Author of commits (default: the token's user or the app's bot).
	Author *CommitAuthor
	// Draft opens pull requests as drafts.
	Draft bool
	// IssueLabels label issues created for reports (default ["autoheal"]).
	IssueLabels []string
}

// Service proposes fixes and runs the approval-gated pull-request flow. It
// is safe for concurrent use, and several replicas may share one Redis and
// one repository: every GitHub step is idempotent and resumable.
type Service struct {
	opts  Options
	gh    *github.Client
	store ApprovalStore
	red   *redact.Redactor
	log   *slog.Logger
	now   func() time.Time
}

// New builds a Service.
func New(opts Options) (*Service, error) {
	if opts.Redactor == nil {
		opts.Redactor = redact.Default
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.BranchPrefix == "" {
		opts.BranchPrefix = DefaultBranchPrefix
	}
	if !validBranchPrefix(opts.BranchPrefix) {
		return nil, fmt.Errorf("remediate: branch prefix %q must be letters, digits, '-', '_', '.' and '/' ending in '/'", opts.BranchPrefix)
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = 20 * time.Second
	}
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = maxFileBytes
	}
	if opts.IssueLabels == nil {
		opts.IssueLabels = []string{"autoheal"}
	}
	if opts.Repo != "" {
		if _, _, err := splitRepo(opts.Repo); err != nil {
			return nil, fmt.Errorf("remediate: %w", err)
		}
	}
	gh, err := newGitHubClient(opts.GitHub, opts.Now)
	if err != nil {
		return nil, err
	}
	return &Service{opts: opts, gh: gh, store: opts.Store, red: opts.Redactor, log: opts.Logger.With("component", "remediate"), now: opts.Now}, nil
}

var branchPrefixRE = regexp.MustCompile(`^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*/$`)

func validBranchPrefix(p string) bool {
	return branchPrefixRE.MatchString(p) && !strings.Contains(p, "..")
}

// repo returns a client for owner/name, with per-request credentials when given.
func (s *Service) repo(full string, creds *Credentials) (*repoClient, error) {
	owner, name, err := splitRepo(full)
	if err != nil {
		return nil, fmt.Errorf("remediate: %w", err)
	}
	c := s.gh
	if creds != nil {
		// The request's credentials replace the service's entirely: the
		// service's token or GitHub App never goes to a URL a user set.
		o := s.opts.GitHub
		o.App, o.Token = nil, creds.Token
		if creds.APIURL != "" {
			o.APIURL = creds.APIURL
		}
		if creds.Transport != nil {
			o.Transport = creds.Transport
		}
		if c, err = newGitHubClient(o, s.now); err != nil {
			return nil, err
		}
	}
	return &repoClient{c: c, owner: owner, name: name, timeout: s.opts.CallTimeout}, nil
}

// Branch is the branch name the service uses for an issue key.
func (s *Service) Branch(issueKey string) string {
	return s.opts.BranchPrefix + slugWith(issueKey, s.red)
}

// Propose builds the proposal for a result, reading files through the
// GitHub Contents API (see the package-level Propose for the rules).
func (s *Service) Propose(ctx context.Context, res *investigate.HealResult) (*Proposal, error) {
	return s.ProposeWith(ctx, res, nil)
}

// ProposeWith is Propose with per-request credentials.
func (s *Service) ProposeWith(ctx context.Context, res *investigate.HealResult, creds *Credentials) (*Proposal, error) {
	p, err := Propose(ctx, res, githubReader{s: s, creds: creds}, ProposeOptions{Repo: s.opts.Repo, Ref: s.opts.Ref, MaxFileBytes: s.opts.MaxFileBytes})
	if err != nil {
		return nil, fmt.Errorf("remediate: propose: %s", messageFor(err))
	}
	return p, nil
}

// ViewPatch returns the diff to show in the thread (secrets masked), or
// the reason no change is offered.
func (s *Service) ViewPatch(p *Proposal) string {
	switch {
	case p == nil:
		return ReasonNilResult
	case p.Diff != "":
		return s.red.String(p.Diff)
	case p.Ineligible != "":
		return s.red.String(p.Ineligible)
	}
	return "No change is proposed."
}

// IssueReport is the Markdown report (title, body) for a result that gets
// no pull request, secrets masked with the service's redactor.
func (s *Service) IssueReport(res *investigate.HealResult) (title, body string) {
	return issueReport(res, s.red)
}

// Status says how a request ended.
type Status string

// Statuses of an Outcome.
const (
	StatusCreated       Status = "created"        // the pull request (or issue) was opened now
	StatusExisting      Status = "existing"       // it already existed (approved earlier, double click)
	StatusUpdated       Status = "updated"        // the key's open pull request got the approved new change
	StatusInProgress    Status = "in_progress"    // another click or replica is opening it right now
	StatusUnauthorized  Status = "unauthorized"   // the user may not approve; audited
	StatusRejected      Status = "rejected"       // the fix was rejected (now or earlier)
	StatusIneligible    Status = "ineligible"     // no pull request can be offered; Message says why
	StatusFailed        Status = "failed"         // GitHub or Redis failed; Message says what, a retry resumes
	StatusConverged     Status = "converged"      // re-fire: commented on the open PR (the same fix, or nothing new)
	StatusUpdateOffered Status = "update_offered" // re-fire: a different fix for the open PR, pushed only when approved
	StatusPRClosed      Status = "pr_closed"      // re-fire: the key's PR was merged or closed; approving opens a new one
	StatusNoPR          Status = "no_pr"          // re-fire: no PR for the key; nothing done
)

// Convergence says what a re-fire or an approval did to an open pull
// request.
type Convergence string

// Convergence actions.
const (
	ConvergedNone      Convergence = "none"
	ConvergedCommented Convergence = "commented"
	ConvergedCommitted Convergence = "committed"
)

// Outcome is the result of Approve, Reject, Refire or CreateIssue. Message
// is for the thread and Ephemeral for the clicking user only; both are
// already redacted and safe to post.
type Outcome struct {
	Status   Status
	PRURL    string
	PRNumber int
	// PRTitle is the pull request's title (redacted), when known.
	PRTitle string
	// SameFix is true when the pull request was opened for another issue
	// key with the same change, and is linked instead of a duplicate.
	SameFix bool
	// Previous is the key's earlier pull request, merged or closed, that
	// a new one follows (a regression).
	Previous  *PRRef
	Branch    string
	CommitSHA string
	Created   bool
	Converged Convergence
	IssueURL  string
	Message   string
	Ephemeral string
	// Retryable: the same click may succeed later (RetryAt, when known).
	Retryable bool
	RetryAt   time.Time
	// Audit is what this request recorded in the audit log ("" nothing).
	Audit sessions.AuditAction
}

// ApproveRequest is an Approve click.
type ApproveRequest struct {
	IssueKey string
	User     string // Slack user id of the clicker
	// ProposalID names the proposed change (the job id of the investigation
	// that proposed it): a key whose earlier proposal was approved or
	// rejected can approve another one (its open pull request is then
	// updated, or a new one opened when it was merged or closed). Empty:
	// the key's decision is final.
	ProposalID string
	// Channel and ThreadTS are where the click came from (the audit log).
	Channel, ThreadTS string
	Result            *investigate.HealResult
	// Proposal shown with the button; computed from Result when nil.
	Proposal    *Proposal
	ThreadURL   string
	FireCount   int
	Credentials *Credentials
}

func (r ApproveRequest) actor() sessions.Actor {
	return sessions.Actor{User: r.User, Proposal: r.ProposalID, Channel: r.Channel, ThreadTS: r.ThreadTS}
}

// PRRef names a pull request and what became of it.
type PRRef struct {
	Number int
	URL    string
	// State is "open", "merged" or "closed" (closed without merging).
	State string
}

// flowError is a failure with a message for the thread.
type flowError struct {
	msg       string
	err       error
	retryable bool
}

func (e *flowError) Error() string {
	if e.err != nil {
		return e.msg + ": " + e.err.Error()
	}
	return e.msg
}
func (e *flowError) Unwrap() error   { return e.err }
func (e *flowError) Message() string { return e.msg }

// ErrSecretInOutput is returned when something about to be published still
// contains a secret after redaction; nothing is written.
var ErrSecretInOutput = errors.New("refusing to publish text that contains a secret")

// ErrLeaseLost is returned when another replica took over an approval.
var ErrLeaseLost = sessions.ErrLeaseLost

// messageFor renders any error of the flow for the thread.
func messageFor(err error) string {
	var m interface{ Message() string }
	if errors.As(err, &m) {
		return m.Message()
	}
	return "Something went wrong while talking to GitHub; click again to retry."
}

func retryInfo(err error) (bool, time.Time) {
	var ge *GitHubError
	if errors.As(err, &ge) {
		return ge.Retryable(), ge.RetryAt
	}
	var fe *flowError
	if errors.As(err, &fe) {
		return fe.retryable, time.Time{}
	}
	return true, time.Time{}
}

// Authorize reports whether a Slack user may approve fixes.
func (s *Service) Authorize(ctx context.Context, userID string) (bool, error) {
	return authorize(ctx, s.opts.Approvers, s.opts.Groups, userID)
}

// refuse audits an unauthorized click and returns the texts to show.
func (s *Service) refuse(ctx context.Context, key string, by sessions.Actor, action string) Outcome {
	user := by.User
	rec := sessions.AuditRecord{Action: sessions.AuditRefused, IssueKey: key, User: user, Proposal: by.Proposal,
		Channel: by.Channel, ThreadTS: by.ThreadTS, Detail: action}
	if err := s.store.RecordAudit(ctx, rec); err != nil {
		s.log.Warn("audit unauthorized click", "issue_key", s.red.String(key), "user", user, "err", s.errText(err))
	}
	who := "Ask one of the approvers"
	if m := s.opts.Approvers.Mentions(); m != "" {
		who += ": " + m
	} else {
		who = "Nobody is configured yet: set " + ApproversEnv + " to Slack user or user group ids"
	}
	return Outcome{
		Status:    StatusUnauthorized,
		Audit:     sessions.AuditRefused,
		Ephemeral: fmt.Sprintf("Only approvers can %s AutoHeal fixes, and you are not one (directly or through a user group in %s). %s.", action, ApproversEnv, who),
		Message:   fmt.Sprintf("<@%s> tried to %s the fix but is not an approver; the click was refused and recorded in the audit log.", user, action),
	}
}

func (s *Service) checkRequest(key, user string) error {
	if s.store == nil {
		return errors.New("remediate: no approval store configured")
	}
	if strings.TrimSpace(key) == "" {
		return errors.New("remediate: empty issue key")
	}
	if strings.TrimSpace(user) == "" {
		return errors.New("remediate: empty user")
	}
	return nil
}

// Approve handles an Approve click: it checks the clicker is an approver
// (auditing refusals), takes the approval record (double clicks and other
// replicas get StatusInProgress or the existing PR), then opens exactly one
// pull request for the issue key — resuming whatever a failed or crashed
// attempt left behind. err is non-nil only with StatusFailed; the Outcome's
// Message is then the text for the thread, and the next click resumes.
func (s *Service) Approve(ctx context.Context, req ApproveRequest) (Outcome, error) {
	if err := s.checkRequest(req.IssueKey, req.User); err != nil {
		return Outcome{Status: StatusFailed, Message: "This approval is incomplete and cannot be processed."}, err
	}
	key := req.IssueKey
	log := s.log.With("issue_key", s.red.String(key), "user", req.User)
	ok, err := s.Authorize(ctx, req.User)
	if err != nil {
		log.Warn("authorize approver", "err", s.errText(err))
		return s.finish(Outcome{Status: StatusFailed, Retryable: true,
			Message: "Could not check whether you may approve (Slack user groups unavailable); try again."}), err
	}
	if !ok {
		log.Info("unauthorized approve click")
		return s.finish(s.refuse(ctx, key, req.actor(), "approve")), nil
	}
	if req.Result == nil {
		return Outcome{Status: StatusFailed, Message: "The investigation result is no longer available; re-run the investigation."}, errors.New("remediate: approve without a result")
	}
	prop := req.Proposal
	if prop == nil {
		if prop, err = s.ProposeWith(ctx, req.Result, req.Credentials); err != nil {
			return s.finish(Outcome{Status: StatusFailed, Retryable: true, Message: "Could not prepare the change: " + strings.TrimPrefix(err.Error(), "remediate: propose: ")}), err
		}
	}
	if !prop.Eligible() {
		return s.finish(Outcome{Status: StatusIneligible, Message: firstNonEmpty(prop.Ineligible, "No change is proposed.")}), nil
	}
	a, started, err := s.store.BeginApproval(ctx, key, req.actor())
	if err != nil {
		return s.finish(Outcome{Status: StatusFailed, Retryable: true, Message: "Could not record the approval (state store unavailable); try again."}), fmt.Errorf("remediate: begin approval %q: %w", key, err)
	}
	if !started {
		return s.finish(notStarted(a)), nil
	}
	log.Info("approval started", "resume_after_step", a.Step, "branch", a.Branch)
	out, err := s.openPR(ctx, a, prop, req)
	if err != nil {
		msg := messageFor(err)
		retry, at := retryInfo(err)
		if errors.Is(err, sessions.ErrLeaseLost) {
			log.Warn("approval lease lost", "err", s.errText(err))
			return s.finish(Outcome{Status: StatusInProgress, Message: "Another AutoHeal replica took over opening this pull request."}), nil
		}
		log.Warn("approval failed", "err", s.errText(err), "retryable", retry)
		bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if _, ferr := s.store.FailApproval(bctx, key, a.Lease, s.red.String(msg)); ferr != nil {
			log.Warn("record approval failure", "err", s.errText(ferr))
		}
		return s.finish(Outcome{Status: StatusFailed, Branch: out.Branch, Message: msg, Retryable: retry, RetryAt: at, Audit: sessions.AuditFailed}), err
	}
	bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	done := sessions.Completion{PRNumber: out.PRNumber, PRURL: out.PRURL, Action: sessions.AuditApproved}
	if out.Status == StatusUpdated {
		done.Action = sessions.AuditUpdated
	}
	out.Audit = done.Action
	if _, err := s.store.CompleteApproval(bctx, key, a.Lease, done); err != nil {
		// The pull request exists; the next click finds it by its branch.
		log.Warn("complete approval", "err", s.errText(err), "pr", out.PRNumber)
	}
	log.Info("pull request ready", "pr", out.PRNumber, "created", out.Created, "branch", out.Branch)
	return s.finish(out), nil
}

// notStarted explains a click that found the approval busy or settled.
func notStarted(a sessions.Approval) Outcome {
	switch a.State {
	case sessions.ApprovalApproved:
		msg := fmt.Sprintf("This fix was already approved by <@%s>", a.By)
		if a.PRNumber > 0 {
			msg += fmt.Sprintf(": pull request #%d %s", a.PRNumber, a.PRURL)
		}
		return Outcome{Status: StatusExisting, PRURL: a.PRURL, PRNumber: a.PRNumber, Branch: a.Branch, Message: msg + "."}
	case sessions.ApprovalRejected:
		msg := fmt.Sprintf("This fix was rejected by <@%s>", a.By)
		if a.Reason != "" {
			msg += ": " + a.Reason
		}
		return Outcome{Status: StatusRejected, Message: msg + "."}
	default:
		return Outcome{Status: StatusInProgress, Branch: a.Branch,
			Ephemeral: fmt.Sprintf("<@%s> already approved this fix; the pull request is being opened.", a.By)}
	}
}

// finish masks secrets in the texts of an outcome.
func (s *Service) finish(o Outcome) Outcome {
	o.Message = s.red.String(o.Message)
	o.Ephemeral = s.red.String(o.Ephemeral)
	return o
}

// RejectRequest is a Reject click (with the reason the approver gave).
type RejectRequest struct {
	IssueKey, User, Reason string
	// ProposalID names the rejected proposal (see ApproveRequest): another
	// proposal of the key can still be approved.
	ProposalID        string
	Channel, ThreadTS string
}

// Reject handles a Reject click by an approver.
func (s *Service) Reject(ctx context.Context, req RejectRequest) (Outcome, error) {
	key, user := req.IssueKey, req.User
	if err := s.checkRequest(key, user); err != nil {
		return Outcome{Status: StatusFailed, Message: "This rejection is incomplete and cannot be processed."}, err
	}
	by := sessions.Actor{User: user, Proposal: req.ProposalID, Channel: req.Channel, ThreadTS: req.ThreadTS}
	ok, err := s.Authorize(ctx, user)
	if err != nil {
		return s.finish(Outcome{Status: StatusFailed, Retryable: true, Message: "Could not check whether you may reject (Slack user groups unavailable); try again."}), err
	}
	if !ok {
		return s.finish(s.refuse(ctx, key, by, "reject")), nil
	}
	reason := oneLine(req.Reason)
	a, err := s.store.Reject(ctx, key, by, s.red.String(reason))
	switch {
	case errors.Is(err, sessions.ErrInvalidTransition):
		switch a.State {
		case sessions.ApprovalApproved:
			return s.finish(Outcome{Status: StatusExisting, PRURL: a.PRURL, PRNumber: a.PRNumber,
				Message: fmt.Sprintf("This fix was already approved by <@%s> (pull request #%d); close the pull request on GitHub to drop it.", a.By, a.PRNumber)}), nil
		case sessions.ApprovalRejected:
			return s.finish(Outcome{Status: StatusRejected, Message: fmt.Sprintf("This fix was already rejected by <@%s>.", a.By)}), nil
		default:
			return s.finish(Outcome{Status: StatusInProgress, Message: fmt.Sprintf("<@%s> approved this fix and the pull request is being opened; it can no longer be rejected here.", a.By)}), nil
		}
	case err != nil:
		return s.finish(Outcome{Status: StatusFailed, Retryable: true, Message: "Could not record the rejection (state store unavailable); try again."}), fmt.Errorf("remediate: reject %q: %w", key, err)
	}
	msg := fmt.Sprintf("<@%s> rejected the fix", user)
	if reason != "" {
		msg += ": " + reason
	}
	s.log.Info("fix rejected", "issue_key", s.red.String(key), "user", user)
	what := " No pull request will be opened."
	if a.PRNumber > 0 {
		what = fmt.Sprintf(" Pull request #%d is left as it is.", a.PRNumber)
	}
	return s.finish(Outcome{Status: StatusRejected, Message: msg + "." + what, Audit: sessions.AuditRejected}), nil
}

// baseBranch picks the pull request's base branch.
func (s *Service) baseBranch(ctx context.Context, rc *repoClient, p *Proposal) (string, string, error) {
	if s.opts.BaseBranch != "" {
		sha, found, err := rc.branchSHA(ctx, opGetBase, s.opts.BaseBranch)
		if err != nil {
			return "", "", err
		}
		if !found {
			return "", "", &GitHubError{Op: opGetBase, Kind: ErrorNotFound, Status: 404, Detail: "branch " + s.opts.BaseBranch}
		}
		return s.opts.BaseBranch, sha, nil
	}
	if p.Ref != "" && !commitish.MatchString(p.Ref) {
		sha, found, err := rc.branchSHA(ctx, opGetBase, strings.TrimPrefix(p.Ref, "refs/heads/"))
		if err != nil {
			return "", "", err
		}
		if found {
			return strings.TrimPrefix(p.Ref, "refs/heads/"), sha, nil
		}
	}
	def, err := rc.defaultBranch(ctx)
	if err != nil {
		return "", "", err
	}
	sha, found, err := rc.branchSHA(ctx, opGetBase, def)
	if err != nil {
		return "", "", err
	}
	if !found {
		return "", "", &GitHubError{Op: opGetBase, Kind: ErrorNotFound, Status: 404, Detail: "branch " + def}
	}
	return def, sha, nil
}

var commitish = regexp.MustCompile(`^[0-9a-f]{7,40}$`)

// filesAt re-validates a proposal against the base head: files unchanged
// since the investigation are used as proposed, changed ones get the
// change re-applied (or a clear refusal).
func (s *Service) filesAt(ctx context.Context, rc *repoClient, base, baseSHA string, p *Proposal) ([]FileChange, map[string][]byte, string, error) {
	out := make([]FileChange, 0, len(p.Files))
	orig := map[string][]byte{}
	note := ""
	for _, f := range p.Files {
		cur, sha, found, err := rc.readFile(ctx, baseSHA, f.Path)
		if err != nil {
			return nil, nil, "", err
		}
		if !found {
			if f.BaseSHA == blobSHA(nil) {
				out = append(out, f) // a new file, still new
				continue
			}
			return nil, nil, "", &flowError{msg: fmt.Sprintf("%s no longer exists on %s; the change cannot be applied.", f.Path, base)}
		}
		orig[f.Path] = cur
		if sha == f.BaseSHA {
			out = append(out, f)
			continue
		}
		next, err := p.reapply(f.Path, cur)
		if errors.Is(err, ErrAlreadyApplied) || (err == nil && string(next) == string(cur)) {
			return nil, nil, "", &flowError{msg: fmt.Sprintf("%s on %s already contains this change; no pull request is needed.", f.Path, base)}
		}
		if err != nil {
			return nil, nil, "", &flowError{msg: fmt.Sprintf("%s changed on %s since the investigation and the change no longer applies: %s. Re-run the investigation.", f.Path, base, trimErr(err))}
		}
		out = append(out, FileChange{Path: f.Path, BaseSHA: sha, Content: next})
		note = fmt.Sprintf("%s moved since the investigation; the change was re-applied on top of it.", base)
	}
	return out, orig, note, nil
}

// openPR runs the idempotent GitHub steps under the approval lease: the
// key's open pull request gets the approved change (updatePR), or one is
// opened, on a new branch when the key's earlier one was merged or closed.
func (s *Service) openPR(ctx context.Context, a sessions.Approval, prop *Proposal, req ApproveRequest) (Outcome, error) {
	key := req.IssueKey
	branch := s.Branch(key)
	if a.Branch != "" && strings.HasPrefix(a.Branch, s.opts.BranchPrefix) {
		branch = a.Branch // resume on the branch an earlier attempt recorded
	}
	out := Outcome{Branch: branch, Converged: ConvergedNone}
	rc, err := s.repo(prop.Repo, req.Credentials)
	if err != nil {
		return out, &flowError{msg: "The repository " + prop.Repo + " cannot be used.", err: err}
	}
	var fix fixLock // held from the duplicate check on; renewed with each step
	step := func(st sessions.Step, upd sessions.StepUpdate) error {
		_, err := s.store.RecordStep(ctx, key, a.Lease, st, upd)
		fix.renew(ctx)
		return err
	}
	// The base first: its read says clearly when the token cannot see the repository.
	base, baseSHA, err := s.baseBranch(ctx, rc, prop)
	if err != nil {
		return out, err
	}
	pr, prev, branch, err := s.currentPR(ctx, rc, key, branch)
	if err != nil {
		return out, err
	}
	if pr != nil {
		return s.updatePR(ctx, rc, pr, prop, req, step)
	}
	out.Branch, out.Previous = branch, prev
	pc := prContext{ThreadURL: req.ThreadURL, ApprovedBy: req.User, FireCount: req.FireCount, IssueKey: key, Proposal: req.ProposalID, Previous: prev}
	title := s.red.String(prop.Title)
	if strings.TrimSpace(title) == "" {
		title = "AutoHeal fix"
	}
	body := prBody(req.Result, prop, pc, s.red)
	msg := commitMessage("autoheal: "+title, firstNonEmpty(req.Result.RootCause.Description, req.Result.Summary), pc, s.red)
	for _, t := range []struct{ field, text string }{{"branch name", branch}, {"pull request title", title}, {"pull request body", body}, {"commit message", msg}} {
		if err := s.scanText(t.field, t.text); err != nil {
			return out, err
		}
	}
	// Nothing is written before this point.
	files, orig, note, err := s.filesAt(ctx, rc, base, baseSHA, prop)
	if err != nil {
		return out, err
	}
	if err := s.scanFiles(files, orig); err != nil {
		return out, err
	}
	// Another incident's open pull request with the same change is linked
	// instead of opening a duplicate; the look-up and the opening below
	// hold the fix's lock so that two approvals cannot both open one.
	hash := fixHash(rc.full(), files, orig)
	fix, err = s.lockFix(ctx, rc.full(), hash)
	if err != nil {
		return out, err
	}
	defer fix.release(ctx)
	same, err := s.findSameFix(ctx, rc, branch, hash, files)
	if err != nil {
		return out, err
	}
	if same != nil {
		return s.linkSameFix(ctx, rc, same, pc, step, out)
	}
	body += FixMarker(hash) + "\n"
	// The branch: created pointing at our commit, or reused when it exists.
	headSHA, exists, err := rc.branchSHA(ctx, opReadBranch, branch)
	if err != nil {
		return out, err
	}
	if !exists {
		commit, err := rc.createCommit(ctx, baseSHA, files, msg, s.opts.Author)
		if err != nil {
			return out, err
		}
		switch err := rc.createBranch(ctx, branch, commit); {
		case err == nil:
			headSHA = commit
		case errors.Is(err, errRefExists):
			// Another attempt created it meanwhile: use what is there.
			if headSHA, _, err = rc.branchSHA(ctx, opReadBranch, branch); err != nil {
				return out, err
			}
			exists = true
		default:
			return out, err
		}
	}
	if err := step(sessions.StepBranch, sessions.StepUpdate{Branch: branch}); err != nil {
		return out, err
	}
	if exists {
		if headSHA, _, err = s.ensureContent(ctx, rc, branch, headSHA, files, msg); err != nil {
			return out, err
		}
	}
	out.CommitSHA = headSHA
	if err := step(sessions.StepCommit, sessions.StepUpdate{Branch: branch}); err != nil {
		return out, err
	}
	// The pull request, unless one appeared meanwhile.
	if pr, err = rc.findOpenPR(ctx, branch); err != nil {
		return out, err
	}
	created := false
	if pr == nil {
		pr, err = rc.createPR(ctx, &github.NewPullRequest{
			Title: github.String(title), Head: github.String(branch), Base: github.String(base),
			Body: github.String(body), Draft: github.Bool(s.opts.Draft), MaintainerCanModify: github.Bool(true),
		})
		switch {
		case err == nil:
			created = true
		case errors.Is(err, errPRExists):
			if pr, err = rc.findOpenPR(ctx, branch); err != nil {
				return out, err
			}
			if pr == nil {
				return out, &flowError{msg: "GitHub says a pull request exists for " + branch + " but does not list it; try again.", retryable: true}
			}
		case errors.Is(err, errNoCommits):
			return out, &flowError{msg: fmt.Sprintf("%s already contains this change; no pull request is needed.", base)}
		default:
			return out, err
		}
	}
	if err := step(sessions.StepPR, sessions.StepUpdate{Branch: branch, PRNumber: pr.GetNumber(), PRURL: pr.GetHTMLURL()}); err != nil {
		return out, err
	}
	out.PRNumber, out.PRURL, out.Created = pr.GetNumber(), pr.GetHTMLURL(), created
	out.PRTitle = s.red.String(pr.GetTitle())
	out.Status = StatusExisting
	verb := "is open"
	if created {
		out.Status, verb = StatusCreated, "opened"
	}
	out.Message = fmt.Sprintf("<@%s> approved the fix: pull request #%d %s %s", req.User, pr.GetNumber(), verb, pr.GetHTMLURL())
	if prev != nil {
		out.Message += fmt.Sprintf("\nIt follows pull request #%d (%s), after which the incident came back.", prev.Number, prev.State)
	}
	if note != "" {
		out.Message += "\n" + note
	}
	return out, nil
}

// linkSameFix records another issue key's open pull request with the same
// change as this approval's, and tells its reviewers in a comment.
func (s *Service) linkSameFix(ctx context.Context, rc *repoClient, pr *github.PullRequest, pc prContext, step func(sessions.Step, sessions.StepUpdate) error, out Outcome) (Outcome, error) {
	body := sameFixComment(pc, s.red)
	if err := s.scanText("comment", body); err != nil {
		return out, err
	}
	if _, err := rc.comment(ctx, pr.GetNumber(), body); err != nil {
		return out, err
	}
	head := pr.GetHead().GetRef()
	if err := step(sessions.StepPR, sessions.StepUpdate{Branch: head, PRNumber: pr.GetNumber(), PRURL: pr.GetHTMLURL()}); err != nil {
		return out, err
	}
	out.Status, out.SameFix, out.Branch = StatusExisting, true, head
	out.PRNumber, out.PRURL, out.CommitSHA = pr.GetNumber(), pr.GetHTMLURL(), pr.GetHead().GetSHA()
	out.PRTitle = s.red.String(pr.GetTitle())
	other := "another incident"
	if k := markedIssueKey(pr.GetBody()); k != "" {
		other = "incident `" + s.red.String(k) + "`"
	}
	out.Message = fmt.Sprintf("<@%s> approved the fix: the same change is already proposed in pull request #%d %s (opened for %s), so it is linked here instead of opening a duplicate.",
		pc.ApprovedBy, pr.GetNumber(), pr.GetHTMLURL(), other)
	s.log.Info("same fix already proposed; linked", "issue_key", s.red.String(pc.IssueKey), "pr", pr.GetNumber())
	return out, nil
}

// ensureContent makes the branch (at head) carry files: nothing when it
// already does, else one commit on top, fast-forwarded. It returns the
// branch's head and whether a commit was added.
func (s *Service) ensureContent(ctx context.Context, rc *repoClient, branch, head string, files []FileChange, msg string) (string, bool, error) {
	return s.commitOnBranch(ctx, rc, branch, head, msg, "click Approve again", func(head string) ([]FileChange, error) {
		has, err := rc.hasFiles(ctx, head, files)
		if err != nil || has {
			return nil, err
		}
		return files, nil
	})
}

// commitOnBranch adds one commit on top of the branch's head, with the
// files change(head) returns (none: head already has the change), and
// fast-forwards the branch to it. A branch that moves meanwhile (a
// reviewer's push, another replica) is read again and change asked again,
// three times at most; again says what the user does when the branch was
// deleted. It returns the branch's head and whether a commit was added.
func (s *Service) commitOnBranch(ctx context.Context, rc *repoClient, branch, head, msg, again string, change func(head string) ([]FileChange, error)) (string, bool, error) {
	for range 3 {
		files, err := change(head)
		if err != nil {
			return "", false, err
		}
		if len(files) == 0 {
			return head, false, nil
		}
		commit, err := rc.createCommit(ctx, head, files, msg, s.opts.Author)
		if err != nil {
			return "", false, err
		}
		err = rc.fastForward(ctx, branch, commit)
		if err == nil {
			return commit, true, nil
		}
		if !errors.Is(err, errNotFastForward) {
			return "", false, err
		}
		var found bool
		if head, found, err = rc.branchSHA(ctx, opReadBranch, branch); err != nil {
			return "", false, err
		}
		if !found {
			return "", false, &flowError{msg: "The branch " + branch + " was deleted while AutoHeal was updating it; " + again + ".", retryable: true}
		}
	}
	return "", false, &flowError{msg: "The branch " + branch + " keeps moving; try again later.", retryable: true}
}

func shortSHA(s string) string {
	if len(s) > 7 {
		return s[:7]
	}
	return s
}

// errText renders an error for a log line, secrets masked.
func (s *Service) errText(err error) string {
	if err == nil {
		return ""
	}
	return s.red.String(err.Error())
}
