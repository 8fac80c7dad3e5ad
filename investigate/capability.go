package investigate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
