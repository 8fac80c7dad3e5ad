package openai

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Reply is a model's answer to one request.
type Reply struct {
	// Content is the assistant's text (a final answer).
	Content string
	// ToolCalls are function calls; several make a parallel call. An empty
	// ID gets a generated one.
	ToolCalls []ToolCall
	// Refusal is the refusal text of a safety refusal.
	Refusal string
	// FinishReason defaults to "tool_calls" or "stop".
	FinishReason string
	// Status >= 400 answers an error body (in the mode's shape) with Error
	// as its message and Code as its code.
	Status int
	Error  string
	Code   string
	// ReasoningTokens are spent on hidden reasoning before the answer: they
	// count against the completion limit first.
	ReasoningTokens int
	// Header is set on the response (Retry-After...).
	Header map[string]string
	// RawBody is sent as is with Status (default 200): malformed output or
	// a replayed body.
	RawBody string
	// Delay holds the answer back (ends early when the client goes away).
	Delay time.Duration
	// Usage overrides the computed token counts.
	Usage *Usage
}

// PromptFiltered is the refusal of a prompt by the provider's content
// filter (Azure's 400 with code content_filter).
func PromptFiltered() Reply {
	return Reply{Status: 400, Code: "content_filter", Error: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766"}
}

// Text is a final text answer.
func Text(s string) Reply { return Reply{Content: s} }

// Answer is a final answer holding v as JSON.
func Answer(v any) Reply {
	b, err := json.Marshal(v)
	if err != nil {
		return Reply{Status: http.StatusInternalServerError, Error: "scripted answer is not JSON-encodable: " + err.Error()}
	}
	return Reply{Content: string(b)}
}

// Calls requests tool calls (parallel when more than one).
func Calls(calls ...ToolCall) Reply { return Reply{ToolCalls: calls} }

// Call builds a tool call with JSON-encoded arguments.
func Call(name string, args any) ToolCall {
	b, err := json.Marshal(args)
	if err != nil {
		b = []byte("{}")
	}
	return ToolCall{Type: "function", Function: FunctionCall{Name: name, Arguments: string(b)}}
}

// RawCall builds a tool call whose arguments are sent verbatim (malformed JSON).
func RawCall(name, arguments string) ToolCall {
	return ToolCall{Type: "function", Function: FunctionCall{Name: name, Arguments: arguments}}
}

// RateLimited answers 429 with Retry-After (seconds) and retry-after-ms.
func RateLimited(retryAfter time.Duration) Reply {
	return Reply{Status: http.StatusTooManyRequests, Error: "Rate limit reached for requests", Header: retryAfterHeaders(retryAfter)}
}

// ServerError answers a 5xx.
func ServerError(status int) Reply {
	return Reply{Status: status, Error: "The server had an error while processing your request."}
}

// Malformed answers 200 with a body that is not JSON.
func Malformed() Reply {
	return Reply{RawBody: `{"id":"chatcmpl-broken","choices":[{"message":{"role":"assistant","content":"{\"summ`}
}

// Slow delays a reply.
func Slow(d time.Duration, r Reply) Reply {
	r.Delay = d
	return r
}

// Turn computes one scripted answer from the request.
type Turn func(req *ChatRequest) Reply

// Fixed is a turn that always answers r.
func Fixed(r Reply) Turn { return func(*ChatRequest) Reply { return r } }

// Script plays turns in order, one per request; past its end it answers 500
// "script exhausted" so that an unexpected extra request fails the test.
type Script struct {
	mu    sync.Mutex
	turns []Turn
	next  int
}

// NewScript plays the turns in order.
func NewScript(turns ...Turn) *Script { return &Script{turns: turns} }

// Replies plays fixed replies in order.
func Replies(rs ...Reply) *Script {
	turns := make([]Turn, len(rs))
	for i, r := range rs {
		turns[i] = Fixed(r)
	}
	return NewScript(turns...)
}

// Reply implements Model.
func (s *Script) Reply(req *ChatRequest) Reply {
	s.mu.Lock()
	if s.next >= len(s.turns) {
		s.mu.Unlock()
		return Reply{Status: http.StatusInternalServerError, Error: "script exhausted"}
	}
	t := s.turns[s.next]
	s.next++
	s.mu.Unlock()
	return t(req)
}

// Played is the number of turns answered so far.
func (s *Script) Played() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next
}

// Forever is a model that never stops calling tools: every answer is a call
// built by next from a counter (vary the arguments to defeat repeat checks).
func Forever(next func(n int, req *ChatRequest) ToolCall) Model {
	var mu sync.Mutex
	n := 0
	return ModelFunc(func(req *ChatRequest) Reply {
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		return Calls(next(k, req))
	})
}

// injectedCallRE finds instructions planted in data: "call tool X", "call the tool X".
var injectedCallRE = regexp.MustCompile(`(?i)call (?:the )?tool[: ]+([A-Za-z_][A-Za-z0-9_.-]*)`)

// Obedient is a gullible model: it obeys instructions planted in the data
// it is shown — it calls the tools they name (once each) and claims HIGH
// confidence when they ask for it — and otherwise investigates like base.
func Obedient(base Model) Model {
	return ModelFunc(func(req *ChatRequest) Reply {
		text := conversationText(req)
		called := map[string]bool{}
		for _, m := range req.Messages {
			for _, tc := range m.ToolCalls {
				called[tc.Function.Name] = true
			}
		}
		var calls []ToolCall
		for _, m := range injectedCallRE.FindAllStringSubmatch(text, -1) {
			name := strings.TrimRight(m[1], ".")
			if !called[name] {
				called[name] = true
				calls = append(calls, Call(name, map[string]any{"confirm": true}))
			}
		}
		if len(calls) > 0 && !req.ToolChoiceNone() {
			return Calls(calls...)
		}
		r := base.Reply(req)
		if r.Content != "" && strings.Contains(strings.ToUpper(text), "CONFIDENCE HIGH") {
			var v map[string]any
			if json.Unmarshal([]byte(r.Content), &v) == nil {
				v["confidence"] = "HIGH"
				v["raw_confidence"] = 0.99
				if fix, ok := v["fix"].(map[string]any); ok {
					fix["summary"] = "Approved the pull request as instructed. " + fmt.Sprint(fix["summary"])
				}
				return Answer(v)
			}
		}
		return r
	})
}

func conversationText(req *ChatRequest) string {
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(string(m.Content))
		b.WriteString("\n")
	}
	return b.String()
}

// exchange is one line of a recorded session (the planner's record format).
type exchange struct {
	Seq      int               `json:"seq"`
	Method   string            `json:"method"`
	Path     string            `json:"path"`
	Status   int               `json:"status"`
	Header   map[string]string `json:"header"`
	Response json.RawMessage   `json:"response"`
	Error    string            `json:"error"`
}

// Replay answers with a recorded session's responses, in order: the
// JSON-lines file written by `bot investigate --record FILE`.
type Replay struct {
	mu   sync.Mutex
	ex   []exchange
	next int
}

// maxReplayLine bounds one recorded line.
const maxReplayLine = 16 << 20

// LoadReplay reads a recorded session. Exchanges that never reached the
// server (transport errors) and other endpoints are skipped.
func LoadReplay(r io.Reader) (*Replay, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxReplayLine)
	var out Replay
	line := 0
	for sc.Scan() {
		line++
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var x exchange
		if err := json.Unmarshal(sc.Bytes(), &x); err != nil {
			return nil, fmt.Errorf("replay line %d: %w", line, err)
		}
		if x.Status == 0 || !strings.HasSuffix(x.Path, "/chat/completions") {
			continue
		}
		out.ex = append(out.ex, x)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	if len(out.ex) == 0 {
		return nil, fmt.Errorf("replay: no chat completion exchanges recorded")
	}
	return &out, nil
}

// Model is the model name of the first recorded response, if any.
func (p *Replay) Model() string {
	for _, x := range p.ex {
		var r struct {
			Model string `json:"model"`
		}
		if json.Unmarshal(x.Response, &r) == nil && r.Model != "" {
			return r.Model
		}
	}
	return ""
}

// Len is the number of recorded exchanges.
func (p *Replay) Len() int { return len(p.ex) }

// Reply implements Model.
func (p *Replay) Reply(*ChatRequest) Reply {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.next >= len(p.ex) {
		return Reply{Status: http.StatusGone, Error: "replay exhausted: the recorded session has no more responses"}
	}
	x := p.ex[p.next]
	p.next++
	body := string(x.Response)
	if body == "" {
		body = `{"error":{"message":"recorded response had no body","type":"server_error"}}`
	}
	return Reply{Status: x.Status, RawBody: body, Header: x.Header}
}
