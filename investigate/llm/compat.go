package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"
)

// server is what the planner knows of its endpoint: the provider's quirks
// (configured, else probed once), the parameters the server refused, and
// its context window once it said what it is. It is shared by all
// investigations of a planner.
type server struct {
	once    sync.Once
	mu      sync.Mutex
	q       quirks
	dropped map[string]bool // request parameters the server refused
	window  int             // the context window, once known
}

// quirks resolves the provider's quirks: the configured provider, else
// the endpoint's address, else a probe of its model list.
func (p *Planner) quirks(ctx context.Context) quirks {
	p.srv.once.Do(func() {
		name := p.cfg.Provider
		if name == "" {
			name = providerFromURL(p.cfg.BaseURL)
		}
		var q quirks
		if name != "" {
			q = profile(name)
		} else {
			q = probe(ctx, p.opts.HTTPClient, p.cfg.BaseURL, p.cfg.APIKey, false)
			p.log.Info("llm provider probed", "provider", q.name, "context_tokens", q.contextTokens)
		}
		p.srv.mu.Lock()
		p.srv.q = q
		if q.contextTokens > 0 {
			p.srv.window = q.contextTokens
		}
		p.srv.mu.Unlock()
	})
	p.srv.mu.Lock()
	defer p.srv.mu.Unlock()
	return p.srv.q
}

func (p *Planner) refused(param string) bool {
	p.srv.mu.Lock()
	defer p.srv.mu.Unlock()
	return p.srv.dropped[param]
}

func (p *Planner) refuse(param string) {
	p.srv.mu.Lock()
	defer p.srv.mu.Unlock()
	if p.srv.dropped == nil {
		p.srv.dropped = map[string]bool{}
	}
	p.srv.dropped[param] = true
}

// contextWindow is the server's context window, 0 while unknown.
func (p *Planner) contextWindow() int {
	p.srv.mu.Lock()
	defer p.srv.mu.Unlock()
	return p.srv.window
}

func (p *Planner) learnWindow(n int) {
	p.srv.mu.Lock()
	defer p.srv.mu.Unlock()
	if p.srv.window == 0 || n < p.srv.window {
		p.srv.window = n
	}
}

// reasoning reports a reasoning model: one configured with a reasoning
// effort, one whose name says so, or one that refused a temperature.
func (p *Planner) reasoning() bool {
	return p.cfg.ReasoningEffort != "" || reasoningModel(p.cfg.Model) || p.refused("temperature")
}

// reasoningAllowance is the room left for hidden reasoning on top of the
// answer's own limit.
func reasoningAllowance(effort string) int {
	switch effort {
	case openai.ReasoningEffortNone:
		return 0
	case openai.ReasoningEffortMinimal:
		return 1024
	case openai.ReasoningEffortLow:
		return 4096
	case openai.ReasoningEffortHigh:
		return 16384
	}
	return 8192 // medium, the providers' default
}

// maxCompletionLimit caps the completion limit however often an answer
// was cut.
const maxCompletionLimit = 32768

// completionLimit is the limit of the next answer: the answer's room, the
// reasoning allowance of a reasoning model, doubled for each answer cut
// at the limit.
func (r *run) completionLimit() int {
	n := r.lim.MaxCompletionTokens
	if r.p.reasoning() {
		n += reasoningAllowance(r.p.cfg.ReasoningEffort)
	}
	return min(n<<r.cut, maxCompletionLimit)
}

// requestCap is the largest prompt one request may have: the configured
// cap, below the context window (less the completion limit) once known.
func (r *run) requestCap() int {
	c := r.lim.MaxRequestTokens
	if w := r.p.contextWindow(); w > 0 {
		c = min(c, w-r.completionLimit()-w/20) // a margin for the estimate's error
	}
	return max(c, 1)
}

// request builds the next request. Tool rounds offer the tools and no
// response_format: constrained decoding suppresses tool calls on vLLM and
// Ollama, and the schema is in the instructions anyway. The final-answer
// request offers no tools (the answer is all that is left, and the tool
// definitions are a good part of a request's size) and asks for the
// strict schema where the server takes it.
func (r *run) request() openai.ChatCompletionRequest {
	answer := r.forceNext || r.answerOnly
	req := openai.ChatCompletionRequest{Model: r.p.cfg.Model, Messages: r.messages()}
	switch {
	case !answer:
		req.Tools = r.tools
	case r.q.toolsOnAnswer && len(r.tools) > 0:
		req.Tools, req.ToolChoice = r.tools, "none"
	}
	limit := r.completionLimit()
	legacy := r.q.maxTokens || r.p.refused("max_completion_tokens")
	if (r.q.maxCompletionTokens || !legacy) && !r.p.refused("max_completion_tokens") {
		req.MaxCompletionTokens = limit
	}
	// Reasoning models refuse max_tokens (go-openai refuses it for their
	// names before sending).
	if legacy && !r.p.reasoning() && !r.p.refused("max_tokens") {
		req.MaxTokens = limit
	}
	if !r.p.reasoning() {
		req.Temperature = tinyTemperature
	}
	if r.p.cfg.ReasoningEffort != "" && !r.p.refused("reasoning_effort") {
		req.ReasoningEffort = r.p.cfg.ReasoningEffort
	}
	if answer && r.p.format.Load() != formatUnsupported {
		req.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: "heal_result", Schema: answerSchema(), Strict: true}}
	}
	return req
}

var (
	windowRE = regexp.MustCompile(`(?i)maximum context length is (\d+) tokens`)
	// OpenAI: "Unsupported parameter: 'max_tokens' ...", "Unsupported value:
	// 'temperature' does not support ..."; Azure's older API versions:
	// "Unrecognized request argument supplied: max_completion_tokens".
	paramRE = regexp.MustCompile(`(?i)(?:unsupported (?:parameter|value): '([a-z_]+)'|unrecognized request arguments? supplied: ([a-z_]+)|'([a-z_]+)' is not supported)`)
)

// codeOf is an API error's code ("context_length_exceeded", "content_filter").
func codeOf(err error) string {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) && apiErr.Code != nil {
		return fmt.Sprint(apiErr.Code)
	}
	return ""
}

// contextExceeded recognizes a prompt past the context window (OpenAI's
// code, or the message of vLLM and others) and the window when it is said.
func contextExceeded(err error) (window int, ok bool) {
	status, msg := statusOf(err)
	if status != http.StatusBadRequest && status != http.StatusRequestEntityTooLarge {
		return 0, false
	}
	m := strings.ToLower(msg)
	if codeOf(err) != "context_length_exceeded" && !strings.Contains(m, "context length") && !strings.Contains(m, "context_length_exceeded") &&
		!strings.Contains(m, "prompt is too long") && !strings.Contains(m, "too many tokens") {
		return 0, false
	}
	if g := windowRE.FindStringSubmatch(msg); g != nil {
		window, _ = strconv.Atoi(g[1])
	}
	return window, true
}

// refusedParam names a request parameter the server refused.
func refusedParam(err error) string {
	status, msg := statusOf(err)
	if status != http.StatusBadRequest && status != http.StatusUnprocessableEntity {
		return ""
	}
	g := paramRE.FindStringSubmatch(msg)
	if g == nil {
		return ""
	}
	for _, name := range g[1:] {
		switch name {
		case "max_tokens", "max_completion_tokens", "temperature", "reasoning_effort":
			return name
		}
	}
	return ""
}

// promptFiltered recognizes the provider's content filter refusing the
// prompt (Azure's 400 with code content_filter).
func promptFiltered(err error) bool {
	status, msg := statusOf(err)
	return status == http.StatusBadRequest && (codeOf(err) == "content_filter" || strings.Contains(strings.ToLower(msg), "content management policy"))
}

func cutMessage(limit int, toolCalls bool) string {
	if toolCalls {
		return fmt.Sprintf("Your last reply was cut at the %d-token limit in the middle of a tool call; it was not executed. The limit is now larger: call the tools again, fewer at a time.", limit)
	}
	return fmt.Sprintf("Your last reply was cut at the %d-token limit before the JSON object was complete. The limit is now larger: answer again with a shorter JSON object (a description and a fix summary of a few sentences, a diff of at most 40 lines).", limit)
}

const filteredMessage = "Your last reply was withheld by the provider's content filter. Answer again with only the JSON object, without quoting log lines, user data or payloads."
