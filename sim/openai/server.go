// Package openai simulates an OpenAI-compatible chat completions API for
// tests, the evaluation and offline replay. It is a test fixture: no
// production path uses it.
//
// Endpoints (with or without the /v1 prefix):
//   - POST /v1/chat/completions: non-streaming chat completions with tools;
//   - GET /v1/models: the served model names.
//
// Authentication is a Bearer key (or Azure's api-key header); with
// Options.Keys set only those keys are accepted, and 401 answers never echo
// the key. Requests are validated like a strict server: a tool message must
// answer a tool call of the preceding assistant message, and every tool call
// must be answered before the conversation goes on.
//
// A Model decides each answer: scripted conversations (Script), a generic
// investigation policy (Investigator), misbehaving models (Forever,
// Obedient) and recorded sessions (Replay). Replies may be tool calls
// (several at once), final answers, refusals, malformed bodies, errors with
// Retry-After, and slow responses.
//
// Every request is recorded (Requests) so that tests can assert what the
// model was shown. Token usage is approximated from the request: one token
// per 4 bytes of message text (role, content, names, tool-call ids and
// arguments), plus the JSON of the tool definitions and of the
// response_format, plus 3 tokens of overhead per message and 3 per request;
// completion tokens count the answer's content and tool calls the same way.
package openai

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/autoheal/autoheal/sim"
)

// Model answers chat completion requests.
type Model interface {
	Reply(req *ChatRequest) Reply
}

// ModelFunc adapts a function to Model.
type ModelFunc func(req *ChatRequest) Reply

// Reply implements Model.
func (f ModelFunc) Reply(req *ChatRequest) Reply { return f(req) }

// Options configure a Server.
type Options struct {
	// Model answers the requests (required).
	Model Model
	// Keys are the accepted API keys; empty accepts any non-empty key.
	Keys []string
	// Models are listed by /v1/models (default "sim-model").
	Models []string
	// RejectResponseFormat answers 400 to a json_schema response_format,
	// like servers without structured output.
	RejectResponseFormat bool
	// Mode answers as one kind of real server (see Mode); empty is OpenAI.
	Mode Mode
	// ContextTokens is the model's context window (0: unlimited). A prompt
	// (with the completion limit) past it is refused as the server of the
	// mode refuses it, or, in ModeOllama, cut silently.
	ContextTokens int
	// MaxBody bounds a request body (default 8 MiB).
	MaxBody int64
	// Transcript records a summary of every call (service "openai").
	Transcript *sim.Transcript
	Logger     *slog.Logger
}

// Recorded is one request as the server received it.
type Recorded struct {
	Time   time.Time
	Method string
	Path   string
	// Header is the request header without credentials.
	Header http.Header
	// Body is the raw request body.
	Body []byte
	// Request is the decoded chat request (nil when it did not decode).
	Request *ChatRequest
	// Status is the status answered.
	Status           int
	PromptTokens     int
	CompletionTokens int
}

// Server is the simulator; it is an http.Handler.
type Server struct {
	opts Options
	mu   sync.Mutex
	reqs []Recorded
	seq  atomic.Int64
}

// New returns a simulator.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if len(opts.Models) == 0 {
		opts.Models = []string{"sim-model"}
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = 8 << 20
	}
	return &Server{opts: opts}
}

// Requests returns a copy of every recorded request.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recorded(nil), s.reqs...)
}

// PromptTokens sums the prompt tokens of the successful chat requests.
func (s *Server) PromptTokens() int {
	n := 0
	for _, r := range s.Requests() {
		if r.Status == http.StatusOK {
			n += r.PromptTokens
		}
	}
	return n
}

// ChatRequests returns the decoded chat requests that were answered 200.
func (s *Server) ChatRequests() []*ChatRequest {
	var out []*ChatRequest
	for _, r := range s.Requests() {
		if r.Request != nil && r.Status == http.StatusOK {
			out = append(out, r.Request)
		}
	}
	return out
}

func (s *Server) record(r Recorded) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, r)
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := strings.TrimPrefix(r.URL.Path, "/v1")
	if s.opts.Mode == ModeLiteLLM {
		w.Header().Set("x-litellm-version", "1.74.0")
		w.Header().Set("x-litellm-call-id", fmt.Sprintf("sim-%d", s.seq.Load()))
	}
	if s.opts.Mode == ModeAzure {
		if _, ok := azurePath(r.URL.Path); ok && r.Method == http.MethodPost && r.URL.Query().Get("api-version") != "" {
			s.chat(w, r)
			return
		}
		s.writeError(w, http.StatusNotFound, "", "", "404", "Resource not found")
		return
	}
	switch {
	case p == "/models" && r.Method == http.MethodGet:
		if !s.authorized(r) {
			s.writeError(w, http.StatusUnauthorized, "invalid_request_error", "", "invalid_api_key", "Incorrect API key provided.")
			return
		}
		var data []map[string]any
		for _, m := range s.opts.Models {
			model := map[string]any{"id": m, "object": "model", "created": 0, "owned_by": s.opts.Mode.ownedBy()}
			if s.opts.Mode == ModeVLLM {
				model["max_model_len"] = max(s.opts.ContextTokens, 0)
				if s.opts.ContextTokens == 0 {
					model["max_model_len"] = 32768
				}
			}
			data = append(data, model)
		}
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
	case p == "/chat/completions" && r.Method == http.MethodPost:
		s.chat(w, r)
	case p == "/chat/completions" || p == "/models":
		s.writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "", "", "method not allowed")
	default:
		s.writeError(w, http.StatusNotFound, "invalid_request_error", "", "unknown_url", fmt.Sprintf("Unknown request URL: %s %s.", r.Method, r.URL.Path))
	}
}

func (s *Server) authorized(r *http.Request) bool {
	key := strings.TrimSpace(r.Header.Get("api-key"))
	if auth := r.Header.Get("Authorization"); strings.HasPrefix(auth, "Bearer ") && s.opts.Mode != ModeAzure {
		key = strings.TrimSpace(strings.TrimPrefix(auth, "Bearer "))
	}
	if key == "" {
		return false
	}
	if len(s.opts.Keys) == 0 {
		return true
	}
	for _, k := range s.opts.Keys {
		if k == key {
			return true
		}
	}
	return false
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	rec := Recorded{Time: time.Now().UTC(), Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone()}
	rec.Header.Del("Authorization")
	rec.Header.Del("api-key")
	defer func() { s.record(rec) }()
	fail := func(status int, typ, param, code, msg string) {
		rec.Status = status
		s.writeError(w, status, typ, param, code, msg)
		s.opts.Transcript.Record("openai", "POST /v1/chat/completions", map[string]any{"model": modelOf(rec.Request)}, map[string]any{"status": status, "error": msg})
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, s.opts.MaxBody+1))
	if err != nil {
		fail(http.StatusBadRequest, "invalid_request_error", "", "", "could not read the request body")
		return
	}
	rec.Body = body
	if !s.authorized(r) {
		if s.opts.Mode == ModeAzure {
			fail(http.StatusUnauthorized, "", "", "401", "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.")
			return
		}
		fail(http.StatusUnauthorized, "invalid_request_error", "", "invalid_api_key", "Incorrect API key provided.")
		return
	}
	if int64(len(body)) > s.opts.MaxBody {
		fail(http.StatusRequestEntityTooLarge, "invalid_request_error", "", "", "request body too large")
		return
	}
	var req ChatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		fail(http.StatusBadRequest, "invalid_request_error", "", "", "We could not parse the JSON body of your request: "+err.Error())
		return
	}
	rec.Request = &req
	rec.PromptTokens = PromptTokens(&req)
	if msg, param := validate(&req); msg != "" {
		fail(http.StatusBadRequest, "invalid_request_error", param, "", msg)
		return
	}
	if s.opts.RejectResponseFormat && len(req.ResponseFormat) > 0 && strings.Contains(string(req.ResponseFormat), "json_schema") {
		fail(http.StatusBadRequest, "invalid_request_error", "response_format", "", "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.")
		return
	}
	if dep, ok := azurePath(r.URL.Path); ok && s.opts.Mode == ModeAzure && req.Model == "" {
		req.Model = dep
	}
	if s.opts.Mode == ModeLiteLLM && len(req.Tools) == 0 && holdsToolCalls(&req) {
		fail(http.StatusBadRequest, "", "", "", `AnthropicException - {"type":"error","error":{"type":"invalid_request_error","message":"Requests which include `+"`tool_use` or `tool_result`"+` blocks must define tools."}}`)
		return
	}
	if window := s.opts.ContextTokens; window > 0 {
		limit := s.opts.Mode.completionLimit(&req)
		if s.opts.Mode == ModeOllama {
			truncateToWindow(&req, window)
			rec.PromptTokens = PromptTokens(&req)
		} else if rec.PromptTokens > window || rec.PromptTokens+limit > window {
			fail(http.StatusBadRequest, "invalid_request_error", "messages", "context_length_exceeded", s.opts.Mode.contextError(window, rec.PromptTokens, limit))
			return
		}
	}
	reply := s.opts.Model.Reply(&req)
	if s.opts.Mode.constrainsTools(&req) && len(reply.ToolCalls) > 0 {
		// Decoding is held to the schema: no tool call can come out.
		reply = Answer(unknownAnswer())
	}
	if reply.Delay > 0 {
		t := time.NewTimer(reply.Delay)
		select {
		case <-r.Context().Done():
			t.Stop()
			rec.Status = 499 // the client went away
			return
		case <-t.C:
		}
	}
	for k, v := range reply.Header {
		w.Header().Set(k, v)
	}
	switch {
	case reply.RawBody != "":
		rec.Status = reply.Status
		if rec.Status == 0 {
			rec.Status = http.StatusOK
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(rec.Status)
		_, _ = io.WriteString(w, reply.RawBody)
		s.opts.Transcript.Record("openai", "POST /v1/chat/completions", map[string]any{"model": req.Model, "messages": len(req.Messages)}, map[string]any{"status": rec.Status, "raw_bytes": len(reply.RawBody)})
		return
	case reply.Status >= 400:
		typ := "server_error"
		code := reply.Code
		if reply.Status == http.StatusTooManyRequests {
			typ, code = "requests", "rate_limit_exceeded"
			if s.opts.Mode == ModeAzure {
				code = "429"
			}
		}
		if reply.Status < 500 && reply.Status != http.StatusTooManyRequests {
			typ = "invalid_request_error"
		}
		msg := reply.Error
		if msg == "" {
			msg = http.StatusText(reply.Status)
		}
		fail(reply.Status, typ, "", code, msg)
		return
	}
	resp := s.response(&req, reply)
	rec.Status = http.StatusOK
	rec.CompletionTokens = resp.Usage.CompletionTokens
	writeJSON(w, http.StatusOK, resp)
	var names []string
	for _, tc := range resp.Choices[0].Message.ToolCalls {
		names = append(names, tc.Function.Name)
	}
	s.opts.Transcript.Record("openai", "POST /v1/chat/completions",
		map[string]any{"model": req.Model, "messages": len(req.Messages), "tools": len(req.Tools), "prompt_tokens": rec.PromptTokens},
		map[string]any{"status": 200, "tool_calls": names, "content_bytes": len(reply.Content), "finish_reason": resp.Choices[0].FinishReason})
}

func (s *Server) response(req *ChatRequest, reply Reply) ChatResponse {
	n := s.seq.Add(1)
	msg := ResponseMessage{Role: "assistant"}
	if reply.Content != "" || len(reply.ToolCalls) == 0 {
		c := reply.Content
		msg.Content = &c
	}
	if reply.Refusal != "" {
		rf := reply.Refusal
		msg.Refusal = &rf
	}
	for i, tc := range reply.ToolCalls {
		if tc.ID == "" {
			tc.ID = fmt.Sprintf("call_%d_%d", n, i)
		}
		if tc.Type == "" {
			tc.Type = "function"
		}
		msg.ToolCalls = append(msg.ToolCalls, tc)
	}
	finish := reply.FinishReason
	if finish == "" {
		finish = "stop"
		if len(msg.ToolCalls) > 0 {
			finish = "tool_calls"
		}
	}
	if f, cut := applyLimit(&msg, reply.ReasoningTokens, s.opts.Mode.completionLimit(req)); cut {
		finish = f
	}
	usage := Usage{PromptTokens: PromptTokens(req), CompletionTokens: completionTokens(msg) + reply.ReasoningTokens}
	if reply.ReasoningTokens > 0 {
		usage.Details = &CompletionDetails{ReasoningTokens: reply.ReasoningTokens}
	}
	if reply.Usage != nil {
		usage = *reply.Usage
	}
	usage.TotalTokens = usage.PromptTokens + usage.CompletionTokens
	model := req.Model
	if model == "" {
		model = s.opts.Models[0]
	}
	return ChatResponse{ID: fmt.Sprintf("chatcmpl-sim-%d", n), Object: "chat.completion", Created: time.Now().Unix(),
		Model: model, Choices: []Choice{{Index: 0, Message: msg, FinishReason: finish}}, Usage: usage, SystemFingerprint: "fp_autoheal_sim"}
}

// validate checks a request like a strict server; it returns the error
// message and the offending parameter.
func validate(req *ChatRequest) (string, string) {
	if req.Model == "" {
		return "you must provide a model parameter", "model"
	}
	if len(req.Messages) == 0 {
		return "'messages' must contain at least one message", "messages"
	}
	if req.Stream {
		return "the simulator does not stream; send stream=false", "stream"
	}
	if t := req.Temperature; t != nil && (*t < 0 || *t > 2) {
		return "temperature must be between 0 and 2", "temperature"
	}
	names := map[string]bool{}
	for _, t := range req.Tools {
		if t.Type != "function" || t.Function.Name == "" {
			return "every tool must be a function with a name", "tools"
		}
		if names[t.Function.Name] {
			return "tool names must be unique: " + t.Function.Name, "tools"
		}
		names[t.Function.Name] = true
		if len(t.Function.Parameters) > 0 {
			var schema any
			if json.Unmarshal(t.Function.Parameters, &schema) != nil {
				return fmt.Sprintf("Invalid schema for function '%s': not a JSON object.", t.Function.Name), "tools"
			}
			if ctx := missingItems(schema, nil); ctx != nil {
				return fmt.Sprintf("Invalid schema for function '%s': In context=(%s), array schema missing items.", t.Function.Name, strings.Join(ctx, ", ")), "tools"
			}
		}
	}
	pending := map[string]bool{}
	for i, m := range req.Messages {
		switch m.Role {
		case "system", "developer", "user":
			if len(pending) > 0 {
				return fmt.Sprintf("messages[%d]: an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'", i), "messages"
			}
		case "assistant":
			if len(pending) > 0 {
				return fmt.Sprintf("messages[%d]: an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'", i), "messages"
			}
			for _, tc := range m.ToolCalls {
				if tc.ID == "" {
					return fmt.Sprintf("messages[%d].tool_calls: every tool call needs an id", i), "messages"
				}
				pending[tc.ID] = true
			}
		case "tool":
			if !pending[m.ToolCallID] {
				return fmt.Sprintf("messages[%d]: messages with role 'tool' must be a response to a preceding message with 'tool_calls'", i), "messages"
			}
			delete(pending, m.ToolCallID)
		default:
			return fmt.Sprintf("messages[%d]: invalid role %q", i, m.Role), "messages"
		}
	}
	if len(pending) > 0 {
		return "an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'", "messages"
	}
	return "", ""
}

// missingItems finds an array schema without items, as OpenAI refuses
// it, and returns its context ('properties', 'name', ...).
func missingItems(v any, ctx []string) []string {
	n, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if n["type"] == "array" {
		if _, has := n["items"]; !has {
			return append(ctx, "")[:len(ctx)]
		}
	}
	if props, ok := n["properties"].(map[string]any); ok {
		for name, p := range props {
			if c := missingItems(p, append(append([]string(nil), ctx...), "'properties'", "'"+name+"'")); c != nil {
				return c
			}
		}
	}
	if items, ok := n["items"]; ok {
		return missingItems(items, append(append([]string(nil), ctx...), "'items'"))
	}
	return nil
}

// PromptTokens approximates the prompt tokens of a request (see the
// package documentation).
func PromptTokens(req *ChatRequest) int {
	n := 0
	for _, m := range req.Messages {
		n += len(m.Role) + len(m.Content) + len(m.Name) + len(m.ToolCallID) + len(m.Refusal)
		for _, tc := range m.ToolCalls {
			n += len(tc.ID) + len(tc.Function.Name) + len(tc.Function.Arguments)
		}
	}
	if len(req.Tools) > 0 {
		b, _ := json.Marshal(req.Tools)
		n += len(b)
	}
	n += len(req.ResponseFormat)
	return ceilDiv(n, 4) + 3*len(req.Messages) + 3
}

func completionTokens(m ResponseMessage) int {
	n := 0
	if m.Content != nil {
		n += len(*m.Content)
	}
	for _, tc := range m.ToolCalls {
		n += len(tc.Function.Name) + len(tc.Function.Arguments)
	}
	return ceilDiv(n, 4) + 1
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

func modelOf(r *ChatRequest) string {
	if r == nil {
		return ""
	}
	return r.Model
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) writeError(w http.ResponseWriter, status int, typ, param, code, msg string) {
	writeJSON(w, status, s.opts.Mode.errorBody(status, typ, param, code, msg))
}

// holdsToolCalls reports a conversation with tool calls or tool results.
func holdsToolCalls(req *ChatRequest) bool {
	for _, m := range req.Messages {
		if len(m.ToolCalls) > 0 || m.Role == "tool" {
			return true
		}
	}
	return false
}

// retryAfterHeaders are the headers of a rate-limited answer.
func retryAfterHeaders(d time.Duration) map[string]string {
	secs := int((d + time.Second - 1) / time.Second)
	return map[string]string{
		"Retry-After":    strconv.Itoa(secs),
		"Retry-After-Ms": strconv.FormatInt(d.Milliseconds(), 10),
	}
}
