package remediate

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/autoheal/autoheal/investigate/httpc"
)

// GitHubOptions configure the GitHub client.
type GitHubOptions struct {
	// APIURL is the REST API base (default https://api.github.com/; GitHub
	// Enterprise: https://HOST/api/v3/).
	APIURL string
	// Token is a personal or fine-grained access token (contents:write,
	// pull_requests:write; issues:write for reports). Ignored when App is set.
	Token string
	// App authenticates as a GitHub App installation instead of a token.
	App *AppCredentials
	// MaxBody caps response bodies (default 8 MiB).
	MaxBody int64
	// Transport is the base RoundTripper (default: a bounded transport that
	// retries idempotent requests on 5xx and connection errors).
	Transport http.RoundTripper
}

// op names a GitHub step for messages: what was attempted and the token
// permission it needs.
type op struct {
	what string // "create the branch"
	perm string // "contents:write"
}

var (
	opGetRepo           = op{"read the repository", "metadata:read"}
	opGetBase           = op{"read the base branch", "contents:read"}
	opReadFile          = op{"read the file", "contents:read"}
	opReadBranch        = op{"read the fix branch", "contents:read"}
	opReadTree          = op{"read the repository tree", "contents:read"}
	opCreateCommit      = op{"create the commit", "contents:write"}
	opCreateBranch      = op{"create the branch", "contents:write"}
	opUpdateBranch      = op{"update the branch", "contents:write"}
	opFindPR            = op{"look up existing pull requests", "pull_requests:read"}
	opCreatePR          = op{"create the pull request", "pull_requests:write"}
	opUpdatePR          = op{"update the pull request's title and description", "pull_requests:write"}
	opListPRCommits     = op{"read the pull request's commits", "pull_requests:read"}
	opCompare           = op{"compare the pull request's branch with its base", "contents:read"}
	opComment           = op{"comment on the pull request", "pull_requests:write"}
	opFindIssue         = op{"look up existing issues", "issues:read"}
	opCreateIssue       = op{"create the issue", "issues:write"}
	opInstallationToken = op{"issue an installation token for the GitHub App", "the app's private key and installation id"}
)

// ErrorKind classifies a GitHub failure.
type ErrorKind string

// GitHub failure kinds.
const (
	ErrorUnauthorized       ErrorKind = "unauthorized"         // 401
	ErrorForbidden          ErrorKind = "forbidden"            // 403 (not a rate limit)
	ErrorNotFound           ErrorKind = "not_found"            // 404
	ErrorValidation         ErrorKind = "validation"           // 422
	ErrorServer             ErrorKind = "server_error"         // 5xx
	ErrorRateLimited        ErrorKind = "rate_limited"         // primary rate limit
	ErrorSecondaryRateLimit ErrorKind = "secondary_rate_limit" // abuse / secondary limit
	ErrorTimeout            ErrorKind = "timeout"
	ErrorUnreachable        ErrorKind = "unreachable"
	ErrorBadResponse        ErrorKind = "bad_response"
)

// GitHubError is a failed GitHub call, with a message fit for the Slack
// thread. It never contains credentials.
type GitHubError struct {
	Op      op
	Kind    ErrorKind
	Status  int
	RetryAt time.Time // rate limits: when a retry may succeed
	Detail  string    // GitHub's message
	Err     error
}

func (e *GitHubError) Error() string {
	s := fmt.Sprintf("github: %s: %s", e.Op.what, e.Kind)
	if e.Status != 0 {
		s += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

func (e *GitHubError) Unwrap() error { return e.Err }

// Retryable reports whether the same call may succeed later unchanged.
func (e *GitHubError) Retryable() bool {
	switch e.Kind {
	case ErrorServer, ErrorRateLimited, ErrorSecondaryRateLimit, ErrorTimeout, ErrorUnreachable:
		return true
	}
	return false
}

// Message is the human sentence for the thread.
func (e *GitHubError) Message() string {
	switch e.Kind {
	case ErrorUnauthorized:
		if e.Op == opInstallationToken {
			return fmt.Sprintf("GitHub refused the GitHub App credentials (401): check the app id, installation id and private key (%s).", e.Detail)
		}
		return "GitHub rejected the credentials (401): the token is invalid, expired or revoked."
	case ErrorForbidden:
		if strings.Contains(strings.ToLower(e.Detail), "saml") {
			return fmt.Sprintf("GitHub refused to %s: the token is not authorized for the organization's SAML single sign-on (403).", e.Op.what)
		}
		if strings.Contains(strings.ToLower(e.Detail), "protected branch") {
			return fmt.Sprintf("GitHub refused to %s: a branch protection rule forbids it (403).", e.Op.what)
		}
		return fmt.Sprintf("GitHub refused to %s: the token lacks %s (403).", e.Op.what, e.Op.perm)
	case ErrorNotFound:
		return fmt.Sprintf("GitHub could not %s (404): the repository or ref does not exist, or the token cannot see it (it needs %s).", e.Op.what, e.Op.perm)
	case ErrorValidation:
		d := e.Detail
		if d == "" {
			d = "Validation Failed"
		}
		return fmt.Sprintf("GitHub rejected the request to %s (422): %s.", e.Op.what, strings.TrimSuffix(d, "."))
	case ErrorServer:
		return fmt.Sprintf("GitHub failed to %s (HTTP %d, a GitHub-side error). Nothing half-done blocks a retry: click Approve again to resume.", e.Op.what, e.Status)
	case ErrorRateLimited:
		return fmt.Sprintf("GitHub rate limit reached while trying to %s; retry after %s.", e.Op.what, retryAt(e.RetryAt))
	case ErrorSecondaryRateLimit:
		return fmt.Sprintf("GitHub secondary rate limit reached (too many requests in a short time) while trying to %s; retry after %s.", e.Op.what, retryAt(e.RetryAt))
	case ErrorTimeout:
		return fmt.Sprintf("GitHub did not answer in time while trying to %s; click Approve again to resume.", e.Op.what)
	case ErrorUnreachable:
		return fmt.Sprintf("GitHub is unreachable (trying to %s): %s.", e.Op.what, e.Detail)
	}
	return fmt.Sprintf("GitHub gave an unexpected answer while trying to %s: %s.", e.Op.what, e.Detail)
}

func retryAt(t time.Time) string {
	if t.IsZero() {
		return "a few minutes"
	}
	t = t.UTC()
	if t.Second() == 0 {
		return t.Format("15:04 UTC")
	}
	return t.Format("15:04:05 UTC")
}

// classify turns a go-github error into a *GitHubError.
func classify(o op, err error) error {
	if err == nil {
		return nil
	}
	var ge *GitHubError
	if errors.As(err, &ge) {
		if ge.Op == opInstallationToken {
			return ge
		}
		cp := *ge
		cp.Op = o
		return &cp
	}
	var rl *github.RateLimitError
	var ab *github.AbuseRateLimitError
	var er *github.ErrorResponse
	var tl *httpc.ErrBodyTooLarge
	var ne net.Error
	switch {
	case errors.As(err, &rl):
		return &GitHubError{Op: o, Kind: ErrorRateLimited, Status: statusOf(rl.Response), RetryAt: rl.Rate.Reset.Time, Detail: rl.Message, Err: err}
	case errors.As(err, &ab):
		at := time.Now().Add(time.Minute)
		if ab.RetryAfter != nil {
			at = time.Now().Add(*ab.RetryAfter)
		}
		return &GitHubError{Op: o, Kind: ErrorSecondaryRateLimit, Status: statusOf(ab.Response), RetryAt: at.Truncate(time.Second).Add(time.Second), Detail: ab.Message, Err: err}
	case errors.As(err, &er):
		code := statusOf(er.Response)
		ge := &GitHubError{Op: o, Status: code, Detail: errorDetail(er), Err: err}
		if code == http.StatusTooManyRequests || code == http.StatusForbidden {
			// go-github only recognises rate limits answered with 403.
			if rl := rateLimitFromHeaders(er.Response); rl != nil {
				rl.Op, rl.Status, rl.Detail, rl.Err = o, code, er.Message, err
				return rl
			}
		}
		switch {
		case code == http.StatusUnauthorized:
			ge.Kind = ErrorUnauthorized
		case code == http.StatusForbidden:
			ge.Kind = ErrorForbidden
		case code == http.StatusNotFound:
			ge.Kind = ErrorNotFound
		case code == http.StatusUnprocessableEntity:
			ge.Kind = ErrorValidation
		case code >= 500:
			ge.Kind = ErrorServer
		default:
			ge.Kind = ErrorBadResponse
		}
		return ge
	case errors.Is(err, context.DeadlineExceeded):
		return &GitHubError{Op: o, Kind: ErrorTimeout, Err: err}
	case errors.Is(err, context.Canceled):
		return &GitHubError{Op: o, Kind: ErrorTimeout, Detail: "cancelled", Err: err}
	case errors.As(err, &tl):
		return &GitHubError{Op: o, Kind: ErrorBadResponse, Detail: tl.Error(), Err: err}
	case errors.As(err, &ne) && ne.Timeout():
		return &GitHubError{Op: o, Kind: ErrorTimeout, Err: err}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return &GitHubError{Op: o, Kind: ErrorUnreachable, Detail: ue.Err.Error(), Err: err}
	}
	return &GitHubError{Op: o, Kind: ErrorBadResponse, Detail: err.Error(), Err: err}
}

// rateLimitFromHeaders reads a rate limit from Retry-After (secondary) or
// X-RateLimit-Remaining: 0 with X-RateLimit-Reset (primary).
func rateLimitFromHeaders(r *http.Response) *GitHubError {
	if r == nil {
		return nil
	}
	if ra := r.Header.Get("Retry-After"); ra != "" {
		if secs, err := strconv.Atoi(ra); err == nil && secs >= 0 {
			return &GitHubError{Kind: ErrorSecondaryRateLimit, RetryAt: time.Now().Add(time.Duration(secs) * time.Second).Truncate(time.Second).Add(time.Second)}
		}
	}
	if r.Header.Get("X-RateLimit-Remaining") == "0" {
		if reset, err := strconv.ParseInt(r.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			return &GitHubError{Kind: ErrorRateLimited, RetryAt: time.Unix(reset, 0)}
		}
		return &GitHubError{Kind: ErrorRateLimited}
	}
	return nil
}

func statusOf(r *http.Response) int {
	if r == nil {
		return 0
	}
	return r.StatusCode
}

// errorDetail joins GitHub's message and its validation errors.
func errorDetail(er *github.ErrorResponse) string {
	parts := []string{er.Message}
	for _, e := range er.Errors {
		switch {
		case e.Message != "":
			parts = append(parts, e.Message)
		case e.Field != "":
			parts = append(parts, fmt.Sprintf("%s %s", e.Field, e.Code))
		}
	}
	return clip(strings.Join(parts, ": "), 300)
}

func isStatus(err error, code int) bool {
	var ge *GitHubError
	return errors.As(err, &ge) && ge.Status == code
}

func detailContains(err error, sub string) bool {
	var ge *GitHubError
	return errors.As(err, &ge) && strings.Contains(strings.ToLower(ge.Detail), strings.ToLower(sub))
}

// newGitHubClient builds a go-github client for the options.
func newGitHubClient(o GitHubOptions, now func() time.Time) (*github.Client, error) {
	base := o.Transport
	if base == nil {
		base = httpc.NewTransport(httpc.TransportOptions{MaxBody: o.MaxBody})
	}
	apiURL := strings.TrimSpace(o.APIURL)
	if apiURL == "" {
		apiURL = "https://api.github.com/"
	}
	u, err := url.Parse(apiURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("remediate: github api url %q must be an absolute http(s) URL", httpc.SafeURL(apiURL))
	}
	u.User = nil
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	plain := &http.Client{Transport: base}
	var c *github.Client
	switch {
	case o.App != nil:
		if o.App.AppID <= 0 || o.App.InstallationID <= 0 {
			return nil, errors.New("remediate: github app needs an app id and an installation id")
		}
		key, err := parseAppKey(o.App.PrivateKeyPEM)
		if err != nil {
			return nil, fmt.Errorf("remediate: %w", err)
		}
		src := &appTokenSource{appID: o.App.AppID, installationID: o.App.InstallationID, key: key, baseURL: u, hc: plain, now: now}
		c = github.NewClient(&http.Client{Transport: &appTransport{base: base, src: src}})
	default:
		c = github.NewClient(plain)
		if o.Token != "" {
			c = c.WithAuthToken(o.Token)
		}
	}
	c.BaseURL = u
	c.UserAgent = "autoheal"
	return c, nil
}
