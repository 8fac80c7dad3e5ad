package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode"
)

// Action IDs of the buttons AutoHeal renders; the bot dispatches on them.
const (
	ActionApprove       = "autoheal_approve"
	ActionReject        = "autoheal_reject"
	ActionViewPatch     = "autoheal_view_patch"
	ActionConfigure     = "autoheal_configure"
	ActionReinvestigate = "autoheal_reinvestigate"
	ActionCreateIssue   = "autoheal_create_issue"
)

// Callback IDs of the modals AutoHeal opens.
const (
	CallbackConfig       = "autoheal_config"
	CallbackRejectReason = "autoheal_reject_reason"
)

// Field limits for values that travel through Slack and come back.
const (
	maxIssueKey = 512
	maxJobID    = 128
)

var (
	channelRE = regexp.MustCompile(`^[CDG][A-Z0-9]{2,24}$`)
	tsRE      = regexp.MustCompile(`^[0-9]{1,12}\.[0-9]{1,9}$`)
	jobIDRE   = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)
	userIDRE  = regexp.MustCompile(`^[UW][A-Z0-9]{2,24}$`)
)

// ActionValue is what a button carries: enough to find the session and the
// job again when Slack sends the click back.
type ActionValue struct {
	IssueKey string
	JobID    string
	Channel  string
	ThreadTS string
}

// ErrInvalidValue is wrapped by every decoding and validation error of
// values that come back from Slack.
var ErrInvalidValue = errors.New("invalid interaction value")

const actionValuePrefix = "v1:"

// Validate checks every field; the error names the field but never echoes an
// oversized value.
func (v ActionValue) Validate() error {
	return validateRefs(v.Channel, v.ThreadTS, "", v.JobID, v.IssueKey)
}

func validateRefs(channel, threadTS, messageTS, jobID, issueKey string) error {
	switch {
	case !channelRE.MatchString(channel):
		return fmt.Errorf("%w: channel %s is not a Slack conversation ID", ErrInvalidValue, quoteShort(channel))
	case !tsRE.MatchString(threadTS):
		return fmt.Errorf("%w: thread_ts %s is not a Slack timestamp", ErrInvalidValue, quoteShort(threadTS))
	case messageTS != "" && !tsRE.MatchString(messageTS):
		return fmt.Errorf("%w: message_ts %s is not a Slack timestamp", ErrInvalidValue, quoteShort(messageTS))
	case jobID != "" && !jobIDRE.MatchString(jobID):
		return fmt.Errorf("%w: job id %s must be 1-%d of [A-Za-z0-9._:-]", ErrInvalidValue, quoteShort(jobID), maxJobID)
	case len(issueKey) > maxIssueKey:
		return fmt.Errorf("%w: issue key is %d bytes, limit %d", ErrInvalidValue, len(issueKey), maxIssueKey)
	case strings.IndexFunc(issueKey, unicode.IsControl) >= 0:
		return fmt.Errorf("%w: issue key contains control characters", ErrInvalidValue)
	}
	return nil
}

// quoteShort quotes a value for an error message, cut so that garbage from
// the wire cannot flood logs.
func quoteShort(s string) string {
	return fmt.Sprintf("%q", truncate(s, 40))
}

// Encode returns the compact button value ("v1:c=C123&t=1700000000.000100&…").
func (v ActionValue) Encode() (string, error) {
	if err := v.Validate(); err != nil {
		return "", err
	}
	q := url.Values{}
	q.Set("c", v.Channel)
	q.Set("t", v.ThreadTS)
	if v.JobID != "" {
		q.Set("j", v.JobID)
	}
	if v.IssueKey != "" {
		q.Set("k", v.IssueKey)
	}
	s := actionValuePrefix + q.Encode()
	if len(s) > MaxButtonValue {
		return "", fmt.Errorf("%w: encoded value is %d bytes, limit %d", ErrInvalidValue, len(s), MaxButtonValue)
	}
	return s, nil
}

// DecodeActionValue parses and validates a button value from an interaction
// payload. It rejects unknown versions, unknown or repeated fields and
// anything Encode would not have produced.
func DecodeActionValue(s string) (ActionValue, error) {
	if len(s) > MaxButtonValue {
		return ActionValue{}, fmt.Errorf("%w: value is %d bytes, limit %d", ErrInvalidValue, len(s), MaxButtonValue)
	}
	rest, ok := strings.CutPrefix(s, actionValuePrefix)
	if !ok {
		return ActionValue{}, fmt.Errorf("%w: unknown value format", ErrInvalidValue)
	}
	q, err := url.ParseQuery(rest)
	if err != nil {
		return ActionValue{}, fmt.Errorf("%w: %v", ErrInvalidValue, err)
	}
	for k, vs := range q {
		switch k {
		case "c", "t", "j", "k":
		default:
			return ActionValue{}, fmt.Errorf("%w: unknown field %s", ErrInvalidValue, quoteShort(k))
		}
		if len(vs) != 1 {
			return ActionValue{}, fmt.Errorf("%w: field %s repeated", ErrInvalidValue, k)
		}
	}
	v := ActionValue{Channel: q.Get("c"), ThreadTS: q.Get("t"), JobID: q.Get("j"), IssueKey: q.Get("k")}
	if err := v.Validate(); err != nil {
		return ActionValue{}, err
	}
	return v, nil
}

// Meta is a modal's private_metadata: where the modal was opened from, so
// the submission can be applied to the right thread and message.
type Meta struct {
	Channel   string `json:"channel"`
	ThreadTS  string `json:"thread_ts"`
	MessageTS string `json:"message_ts,omitempty"` // the message to update after submit
	JobID     string `json:"job_id,omitempty"`
	IssueKey  string `json:"issue_key,omitempty"`
}

// Meta returns the modal metadata matching a button value.
func (v ActionValue) Meta() Meta {
	return Meta{Channel: v.Channel, ThreadTS: v.ThreadTS, JobID: v.JobID, IssueKey: v.IssueKey}
}

// Validate checks every field of m.
func (m Meta) Validate() error {
	return validateRefs(m.Channel, m.ThreadTS, m.MessageTS, m.JobID, m.IssueKey)
}

// EncodeMeta serialises m as private_metadata (JSON, at most 3000 characters).
func EncodeMeta(m Meta) (string, error) {
	if err := m.Validate(); err != nil {
		return "", err
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("encode private_metadata: %w", err)
	}
	if len(b) > MaxPrivateMetadata {
		return "", fmt.Errorf("%w: private_metadata is %d bytes, limit %d", ErrInvalidValue, len(b), MaxPrivateMetadata)
	}
	return string(b), nil
}

// DecodeMeta parses and validates private_metadata from a view submission.
func DecodeMeta(s string) (Meta, error) {
	if len(s) > MaxPrivateMetadata {
		return Meta{}, fmt.Errorf("%w: private_metadata is %d bytes, limit %d", ErrInvalidValue, len(s), MaxPrivateMetadata)
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.DisallowUnknownFields()
	var m Meta
	if err := dec.Decode(&m); err != nil {
		return Meta{}, fmt.Errorf("%w: private_metadata: %v", ErrInvalidValue, err)
	}
	if dec.More() {
		return Meta{}, fmt.Errorf("%w: private_metadata has trailing data", ErrInvalidValue)
	}
	if err := m.Validate(); err != nil {
		return Meta{}, err
	}
	return m, nil
}
