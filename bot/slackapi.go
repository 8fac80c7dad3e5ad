package bot

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"time"

	"github.com/slack-go/slack"

	"github.com/autoheal/autoheal/render"
)

// SlackAPI is the part of the Slack Web API the bot calls; *slack.Client
// implements it.
type SlackAPI interface {
	MessageUpdater
	PostMessageContext(ctx context.Context, channelID string, options ...slack.MsgOption) (string, string, error)
	PostEphemeralContext(ctx context.Context, channelID, userID string, options ...slack.MsgOption) (string, error)
	DeleteMessageContext(ctx context.Context, channel, messageTimestamp string) (string, string, error)
	OpenViewContext(ctx context.Context, triggerID string, view slack.ModalViewRequest) (*slack.ViewResponse, error)
	UploadFileContext(ctx context.Context, params slack.UploadFileParameters) (*slack.FileSummary, error)
	// The three steps of an upload, for a file that must be shared once.
	GetUploadURLExternalContext(ctx context.Context, params slack.GetUploadURLExternalParameters) (*slack.GetUploadURLExternalResponse, error)
	UploadToURL(ctx context.Context, params slack.UploadToURLParameters) error
	CompleteUploadExternalContext(ctx context.Context, params slack.CompleteUploadExternalParameters) (*slack.CompleteUploadExternalResponse, error)
	AuthTestContext(ctx context.Context) (*slack.AuthTestResponse, error)
	GetUserGroupMembersContext(ctx context.Context, userGroup string, options ...slack.GetUserGroupMembersOption) ([]string, error)
	GetConversationRepliesContext(ctx context.Context, params *slack.GetConversationRepliesParameters) ([]slack.Message, bool, string, error)
	GetConversationHistoryContext(ctx context.Context, params *slack.GetConversationHistoryParameters) (*slack.GetConversationHistoryResponse, error)
}

// MessageUpdater edits a posted message (chat.update).
type MessageUpdater interface {
	UpdateMessageContext(ctx context.Context, channelID, timestamp string, options ...slack.MsgOption) (string, string, string, error)
}

var _ SlackAPI = (*slack.Client)(nil)

// Slack error codes the bot reacts to.
const (
	errRateLimited     = "ratelimited"
	errMessageNotFound = "message_not_found"
	errCantUpdate      = "cant_update_message"
)

// authErrorCodes end the Socket Mode loop: retrying cannot fix them.
var authErrorCodes = map[string]bool{
	"invalid_auth":            true,
	"not_authed":              true,
	"token_revoked":           true,
	"token_expired":           true,
	"account_inactive":        true,
	"not_allowed_token_type":  true,
	"invalid_token":           true,
	"missing_scope":           true,
	"team_access_not_granted": true,
}

// slackCode returns the Slack error code of err ("" when it is not a Slack
// error answer).
func slackCode(err error) string {
	var se slack.SlackErrorResponse
	if errors.As(err, &se) {
		return se.Err
	}
	var sp *slack.SlackErrorResponse
	if errors.As(err, &sp) && sp != nil {
		return sp.Err
	}
	return ""
}

// IsAuthError reports whether err says the Slack tokens are not (or no
// longer) usable: the bot stops instead of retrying.
func IsAuthError(err error) bool {
	if err == nil {
		return false
	}
	if c := slackCode(err); c != "" {
		return authErrorCodes[c]
	}
	// socketmode returns connect failures as plain errors whose text is the code.
	return authErrorCodes[err.Error()]
}

// rateLimitWait reports whether err is a rate limit and how long to wait:
// the Retry-After of an HTTP 429, or fallback for a `ratelimited` error in
// an HTTP 200 body (which carries no delay).
func rateLimitWait(err error, fallback time.Duration) (time.Duration, bool) {
	var rl *slack.RateLimitedError
	if errors.As(err, &rl) {
		return max(rl.RetryAfter, time.Second), true
	}
	if slackCode(err) == errRateLimited {
		return fallback, true
	}
	return 0, false
}

// retryPolicy bounds retries of one Web API call.
type retryPolicy struct {
	Attempts int           // total attempts (default 4)
	Backoff  time.Duration // first delay for transient failures and body rate limits (default 1 s)
	MaxWait  time.Duration // longest single wait, Retry-After included (default 30 s)
}

func (p retryPolicy) withDefaults() retryPolicy {
	if p.Attempts <= 0 {
		p.Attempts = 4
	}
	if p.Backoff <= 0 {
		p.Backoff = time.Second
	}
	if p.MaxWait <= 0 {
		p.MaxWait = 30 * time.Second
	}
	return p
}

// finalError ends withRetry at once, whatever the error it wraps.
type finalError struct{ err error }

func (e finalError) Error() string { return e.err.Error() }
func (e finalError) Unwrap() error { return e.err }

// retryable reports whether a failed call may succeed when repeated.
func retryable(err error) bool {
	if errors.As(err, new(finalError)) {
		return false
	}
	if _, ok := rateLimitWait(err, 0); ok {
		return true
	}
	switch slackCode(err) {
	case "":
		// Transport failures (connection reset, 5xx status) are transient;
		// our own context ending is not.
		return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
	case "internal_error", "fatal_error", "service_unavailable", "request_timeout":
		return true
	}
	return false
}

// withRetry runs call until it succeeds, fails for good, or the attempts
// run out, honouring Retry-After.
func withRetry(ctx context.Context, p retryPolicy, call func(context.Context) error) error {
	p = p.withDefaults()
	backoff := p.Backoff
	var err error
	for attempt := 1; ; attempt++ {
		if err = call(ctx); err == nil {
			return nil
		}
		if attempt >= p.Attempts || !retryable(err) {
			return err
		}
		wait, limited := rateLimitWait(err, backoff)
		if !limited {
			wait = jitter(backoff)
		}
		backoff = min(2*backoff, p.MaxWait)
		if wait > p.MaxWait {
			return fmt.Errorf("slack asks to wait %s, longer than %s: %w", wait, p.MaxWait, err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(err, ctx.Err())
		case <-t.C:
		}
	}
}

// jitter spreads d by ±20%.
func jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return d - d/5 + rand.N(2*d/5+1)
}

// safeMessage returns m when Slack accepts it, else a text-only stand-in:
// a payload Slack would reject is never sent.
func safeMessage(m render.Message, what string) (render.Message, error) {
	err := render.Validate(m)
	if err == nil {
		return m, nil
	}
	fallback := render.Message{Text: "AutoHeal could not display this " + what + " within Slack's limits; see the logs for details."}
	return fallback, fmt.Errorf("%s payload rejected by validation: %w", what, err)
}

// mayHaveTakenEffect reports whether a failed call may nevertheless have
// been carried out by Slack: the request may have arrived and only the
// answer was lost (a reset or timeout after sending, a 5xx, Slack's own
// internal errors). A rate limit, a refused connection or an error answer
// about the request itself mean it was not.
func mayHaveTakenEffect(err error) bool {
	if err == nil {
		return false
	}
	if _, limited := rateLimitWait(err, 0); limited {
		return false
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return false
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return false
	}
	var sc slack.StatusCodeError
	if errors.As(err, &sc) {
		return sc.Code >= 500
	}
	switch slackCode(err) {
	case "":
		return !errors.Is(err, context.Canceled)
	case "internal_error", "fatal_error", "service_unavailable", "request_timeout":
		return true
	}
	return false
}
