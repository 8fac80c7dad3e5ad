package investigate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Availability says whether a capability can be used and, if not, why.
type Availability struct {
	Configured bool      `json:"configured"`
	Kind       ErrorKind `json:"kind,omitempty"`
	Reason     string    `json:"reason,omitempty"`
}

// ToolResult is what a tool call returns.
type ToolResult struct {
	// Summary is one line for the timeline ("12 error traces, 9 with exceptions").
	Summary string
	// Findings are the structured conclusions drawn from the response.
	Findings []Finding
	// Warning, when set, says why the answer cannot be trusted although the
	// backend answered (see Receipt.Warning).
	Warning string
	// Data is a compact structured view of the response for an LLM planner.
	// It is redacted and truncated before it reaches a prompt.
	Data any
}

// Capability is a backend family exposing tools. The deterministic planner and
// the LLM planner call the very same tools by name with JSON arguments.
type Capability interface {
	Family() Family
	// Availability checks configuration only (no network).
	Availability() Availability
	Tools() []ToolSpec
	Call(ctx context.Context, tool string, args json.RawMessage) (*ToolResult, error)
}

// ToolError is a classified tool failure. Capabilities return it so that
// receipts say precisely what went wrong (401, timeout, unreachable...).
type ToolError struct {
	Kind ErrorKind
	Msg  string
	Err  error
}

func (e *ToolError) Error() string {
	if e.Err != nil && e.Msg == "" {
		return fmt.Sprintf("%s: %v", e.Kind, e.Err)
	}
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Kind, e.Msg, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Kind, e.Msg)
}

func (e *ToolError) Unwrap() error { return e.Err }

// NewToolError builds a ToolError.
func NewToolError(kind ErrorKind, msg string, err error) *ToolError {
	return &ToolError{Kind: kind, Msg: msg, Err: err}
}

// KindOf extracts the ErrorKind of err (tool_error when it is not a ToolError,
// timeout for context deadlines).
func KindOf(err error) ErrorKind {
	var te *ToolError
	if errors.As(err, &te) {
		return te.Kind
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return ErrKindTimeout
	}
	return ErrKindToolError
}

// ErrUnknownTool is returned by Call for a tool name the capability does not own.
var ErrUnknownTool = errors.New("unknown tool")

// Schema builds a JSON schema for a tool's arguments object.
func Schema(props map[string]any, required ...string) json.RawMessage {
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tool schema: %v", err)) // schemas are literals; a failure is a programming error
	}
	return b
}

// DecodeArgs decodes a tool's JSON arguments strictly: unknown fields and
// malformed JSON become invalid_args errors naming the problem.
func DecodeArgs(args json.RawMessage, v any) error {
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return NewToolError(ErrKindInvalidArgs, "arguments", err)
	}
	return nil
}

// ParseTime accepts RFC 3339 or unix seconds/milliseconds/microseconds/nanoseconds.
func ParseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("time %q: want RFC 3339 or a unix timestamp", s)
	}
	switch {
	case n > 1e17:
		return time.Unix(0, n), nil
	case n > 1e14:
		return time.UnixMicro(n), nil
	case n > 1e11:
		return time.UnixMilli(n), nil
	default:
		return time.Unix(n, 0), nil
	}
}
