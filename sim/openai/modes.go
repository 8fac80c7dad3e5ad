package openai

import (
	"fmt"
	"net/http"
	"strings"
)

// Mode makes the simulator answer as one kind of real server does.
type Mode string

// Modes. Each reproduces the documented (or observed) behaviour of that
// server where it differs from OpenAI's:
//
//   - ModeOpenAI (default): /v1/models says owned_by "system"; the
//     completion limit is max_completion_tokens (else max_tokens); a prompt
//     past ContextTokens is refused with code context_length_exceeded.
//   - ModeAzure: deployments under /openai/deployments/{name}/chat/completions
//     with an api-version query and an api-key header; errors carry a
//     string code and no type ({"error":{"code":"429","message":...}}); a
//     prompt the content filter blocks is a 400 with code content_filter
//     and an innererror.
//   - ModeVLLM: /v1/models says owned_by "vllm" with max_model_len;
//     response_format together with tools constrains decoding to the
//     schema, so the model never calls a tool; errors are vLLM's flat
//     object ({"object":"error","message":...,"code":400}, as releases
//     before the nested form answer), but a wrong key is a 401
//     {"error":"Unauthorized"}; max_completion_tokens wins over
//     max_tokens.
//   - ModeOllama: /v1/models says owned_by "library"; max_completion_tokens
//     is ignored (only max_tokens limits the answer); response_format with
//     tools suppresses tool calls as on vLLM; a prompt past the context
//     window (num_ctx) is cut silently from the oldest messages, never
//     refused.
//   - ModeLiteLLM: every answer carries x-litellm-* headers; fronting
//     Anthropic, a conversation holding tool calls must define tools.
const (
	ModeOpenAI  Mode = ""
	ModeAzure   Mode = "azure"
	ModeVLLM    Mode = "vllm"
	ModeOllama  Mode = "ollama"
	ModeLiteLLM Mode = "litellm"
)

// ownedBy is what /v1/models says of a model.
func (m Mode) ownedBy() string {
	switch m {
	case ModeVLLM:
		return "vllm"
	case ModeOllama:
		return "library"
	case ModeLiteLLM:
		return "openai"
	}
	return "system"
}

// completionLimit is the limit the server applies to an answer (0: none).
func (m Mode) completionLimit(req *ChatRequest) int {
	if m == ModeOllama {
		return req.MaxTokens
	}
	if req.MaxCompletionTokens > 0 {
		return req.MaxCompletionTokens
	}
	return req.MaxTokens
}

// constrainsTools: structured output and tools in one request leave the
// model no way to call a tool.
func (m Mode) constrainsTools(req *ChatRequest) bool {
	return (m == ModeVLLM || m == ModeOllama) && len(req.Tools) > 0 && len(req.ResponseFormat) > 0 &&
		!strings.Contains(string(req.ResponseFormat), `"text"`) && !req.ToolChoiceNone()
}

// azurePath reads /openai/deployments/{name}/chat/completions.
func azurePath(p string) (deployment string, ok bool) {
	rest, found := strings.CutPrefix(p, "/openai/deployments/")
	if !found {
		return "", false
	}
	name, tail, found := strings.Cut(rest, "/")
	return name, found && tail == "chat/completions" && name != ""
}

// errorBody is the error a server of this mode answers.
func (m Mode) errorBody(status int, typ, param, code, msg string) any {
	switch m {
	case ModeAzure:
		if code == "" {
			code = fmt.Sprint(status)
		}
		e := map[string]any{"code": code, "message": msg}
		if code == "content_filter" {
			e["param"], e["status"], e["type"] = "prompt", status, nil
			e["innererror"] = map[string]any{"code": "ResponsibleAIPolicyViolation", "content_filter_result": map[string]any{
				"hate": map[string]any{"filtered": false, "severity": "safe"}, "jailbreak": map[string]any{"filtered": true, "detected": true},
				"self_harm": map[string]any{"filtered": false, "severity": "safe"}, "sexual": map[string]any{"filtered": false, "severity": "safe"},
				"violence": map[string]any{"filtered": false, "severity": "safe"}}}
		}
		if code == "context_length_exceeded" {
			e["type"], e["param"] = typ, param
		}
		return map[string]any{"error": e}
	case ModeVLLM:
		if status == http.StatusUnauthorized {
			// vLLM's --api-key check answers before any OpenAI handling,
			// with a bare string error.
			return map[string]any{"error": "Unauthorized"}
		}
		if typ == "invalid_request_error" {
			typ = "BadRequestError"
		}
		var p any
		if param != "" {
			p = param
		}
		return map[string]any{"object": "error", "message": msg, "type": typ, "param": p, "code": status}
	case ModeLiteLLM:
		e := APIError{Message: "litellm.BadRequestError: " + msg, Type: typ}
		if status != http.StatusBadRequest {
			e.Message = msg
		}
		c := fmt.Sprint(status)
		e.Code = &c
		if param != "" {
			e.Param = &param
		}
		return ErrorBody{Error: e}
	}
	e := APIError{Message: msg, Type: typ}
	if param != "" {
		e.Param = &param
	}
	if code != "" {
		e.Code = &code
	}
	return ErrorBody{Error: e}
}

// contextError is the refusal of a prompt past the context window, in
// the words of OpenAI (and Azure, LiteLLM) or vLLM.
func (m Mode) contextError(window, prompt, completion int) (msg string) {
	if m == ModeVLLM || completion > 0 && prompt <= window {
		return fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.",
			window, prompt+completion, prompt, completion)
	}
	return fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", window, prompt)
}

// truncateToWindow drops the oldest messages after the system ones until
// the prompt fits, as Ollama does with num_ctx.
func truncateToWindow(req *ChatRequest, window int) {
	for PromptTokens(req) > window {
		i := 0
		for i < len(req.Messages) && (req.Messages[i].Role == "system" || req.Messages[i].Role == "developer") {
			i++
		}
		if i >= len(req.Messages)-1 {
			return
		}
		req.Messages = append(req.Messages[:i], req.Messages[i+1:]...)
		// A tool answer without its call is dropped with it.
		for i < len(req.Messages)-1 && req.Messages[i].Role == "tool" {
			req.Messages = append(req.Messages[:i], req.Messages[i+1:]...)
		}
	}
}

// applyLimit cuts an answer at the completion limit, as servers do: the
// reasoning tokens count first, then the content; finish_reason "length".
func applyLimit(msg *ResponseMessage, reasoning, limit int) (finish string, cut bool) {
	if limit <= 0 {
		return "", false
	}
	if reasoning >= limit {
		empty := ""
		msg.Content, msg.ToolCalls = &empty, nil
		return "length", true
	}
	room := (limit - reasoning) * 4
	if msg.Content != nil && len(*msg.Content) > room {
		c := (*msg.Content)[:room]
		msg.Content = &c
		return "length", true
	}
	for i := range msg.ToolCalls {
		if a := msg.ToolCalls[i].Function.Arguments; len(a) > room {
			msg.ToolCalls[i].Function.Arguments = a[:room]
			return "length", true
		}
	}
	return "", false
}
