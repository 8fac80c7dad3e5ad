// Package llm is AutoHeal's LLM planner: a model reached through an
// OpenAI-compatible chat completions API (OpenAI, OpenRouter, vLLM, Ollama,
// Azure-compatible gateways) plans the investigation by calling the very
// tools the deterministic engine uses, then answers with a HealResult-shaped
// JSON object.
//
// The engine stays in charge of what the answer may claim:
//   - the deterministic first round runs before the model reasons, and the
//     deterministic conclusion takes over on any failure (the result's Mode
//     and ModeNote say which produced it);
//   - the answer passes the confidence governor: a claim above what the
//     receipts support gets one retry naming the missing evidence, then is
//     clamped; a file the model names but never read is read by the planner
//     before it counts; bucket rules decide which fix may be proposed;
//   - only tools of configured capabilities are offered and executed (all
//     read-only); tool outputs are redacted, budgeted and fenced as
//     untrusted data before they reach the prompt;
//   - every loop is bounded: steps, tool calls, prompt tokens, response
//     sizes, retries and an overall deadline.
package llm

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/autoheal/autoheal/investigate"
)

// Receipt planner labels.
const (
	plannerFirstRound = "deterministic"
	plannerLLM        = "llm"
)

// response_format support of the endpoint, learned from its answers.
const (
	formatUnknown int32 = iota
	formatSupported
	formatUnsupported
)

// Planner investigates with a model. It is safe for concurrent use; each
// Investigate call has its own conversation.
type Planner struct {
	cfg     Config
	opts    Options
	client  *openai.Client
	clean   *cleaner
	price   Price
	metrics Metrics
	log     *slog.Logger
	format  atomic.Int32
	srv     server
}

// New builds a planner. The API key is registered with the redactor so
// that it never reaches a log line, a recording or a result.
func New(cfg Config, opts Options) (*Planner, error) {
	cfg, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{}
	}
	if opts.Metrics == nil {
		opts.Metrics = DefaultCounters
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Sleep == nil {
		opts.Sleep = sleepCtx
	}
	if opts.Random == nil {
		opts.Random = rand.Reader
	}
	clean := newCleaner(opts.Redactor, cfg.RedactIPs)
	clean.secrets.Register(cfg.APIKey)
	p := &Planner{cfg: cfg, opts: opts, clean: clean, metrics: opts.Metrics,
		log: opts.Logger.With("component", "llm", "model", cfg.Model)}
	if cfg.Price != nil {
		p.price = *cfg.Price
	} else {
		p.price, _ = PriceFor(cfg.Model)
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = cfg.BaseURL
	if azureDeployments(cfg) {
		// Azure's deployments API: the model is the deployment's name, the
		// key goes in an api-key header, every call names an api-version.
		oc = openai.DefaultAzureConfig(cfg.APIKey, cfg.BaseURL)
		oc.APIVersion = cfg.AzureAPIVersion
		oc.AzureModelMapperFunc = func(model string) string { return model }
	}
	oc.HTTPClient = &transport{base: opts.HTTPClient, limits: cfg.Limits, sleep: opts.Sleep, now: opts.Now,
		rec: newRecorder(opts.Record, clean, opts.Now), metrics: opts.Metrics, model: cfg.Model}
	p.client = openai.NewClientWithConfig(oc)
	return p, nil
}

// Model is the configured model name.
func (p *Planner) Model() string { return p.cfg.Model }

// Limits are the effective limits.
func (p *Planner) Limits() Limits { return p.cfg.Limits }

// failure ends the conversation; the deterministic answer takes over.
type failure struct {
	kind   string // unavailable | unusable | budget | deadline
	detail string
	err    error
}

func (f *failure) Error() string { return fmt.Sprintf("LLM %s (%s)", f.kind, f.detail) }
func (f *failure) Unwrap() error { return f.err }

// run is the state of one investigation.
type run struct {
	p       *Planner
	e       *investigate.Engine
	parent  context.Context // the caller's context (the planner's deadline excluded)
	issue   investigate.Issue
	led     *investigate.Ledger
	cache   *callCache
	ref     *investigate.HealResult // the deterministic engine's result, once run
	fence   string
	lim     Limits
	turns   []*turn // the conversation (see compact.go)
	q       quirks
	tools   []openai.Tool
	allowed map[string]investigate.ToolSpec
	// runbooks are the library's runbooks given to the model as context.
	runbooks []investigate.RunbookMatch

	steps       int
	modelCalls  int // tool calls executed for the model
	verifyCalls int
	rejected    int
	outChars    int
	seen        map[string]string // tool+args -> "R<seq>"
	unreadable  map[string]bool   // files a verification read could not find
	forceNext   bool
	forceWhy    string
	answerOnly  bool // the next request asks for the answer only (a repair)
	cut         int  // answers cut at the completion limit (each doubles it)
	filtered    bool // an answer was withheld by the content filter
	repaired    bool
	overclaimed bool
	askedMore   bool
	claimsNoted bool
	answers     int

	prompt, completion int
	model              string
	notes              []string
}

// Investigate runs one investigation planned by the model. It always
// returns a result: on any failure of the model the deterministic
// conclusion over the receipts gathered so far answers, and ModeNote says
// why. The error is non-nil only for a nil engine.
func (p *Planner) Investigate(parent context.Context, e *investigate.Engine, issue investigate.Issue) (*investigate.HealResult, error) {
	if e == nil {
		return nil, errors.New("llm: Investigate needs an engine")
	}
	started := p.opts.Now()
	ctx, cancel := context.WithTimeout(parent, p.cfg.Limits.Deadline)
	defer cancel()
	ctx, cache := withCallCache(ctx)
	issue = investigate.NormalizeIssue(issue, started)
	r := &run{p: p, e: e, parent: parent, issue: issue, led: &investigate.Ledger{}, cache: cache, lim: p.cfg.Limits, seen: map[string]string{}, unreadable: map[string]bool{},
		allowed: map[string]investigate.ToolSpec{}, model: p.cfg.Model}
	r.fence = p.newFence()
	r.q = p.quirks(ctx)
	for _, s := range e.ToolSpecs() {
		if _, dup := r.allowed[s.Name]; dup {
			continue
		}
		desc, params := s.Description, s.Parameters
		if s.Family == investigate.FamilyMCP {
			// One sloppy MCP server's schema must not make the provider
			// refuse every request: repaired, or the tool is left out.
			desc, params = p.clean.externalTool(r.fence, s)
			fixed, fixes, err := repairSchema(params)
			if err != nil {
				p.log.Warn("MCP tool left out: its parameter schema cannot be repaired", "tool", s.Name, "error", p.clean.clip(err.Error(), 200))
				p.metrics.Add(MetricToolCalls, 1, "outcome", "schema_unusable")
				continue
			}
			if len(fixes) > 0 {
				p.log.Warn("MCP tool schema repaired", "tool", s.Name, "fixes", p.clean.clip(strings.Join(fixes, "; "), 400))
			}
			params = fixed
		}
		r.allowed[s.Name] = s
		r.tools = append(r.tools, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: s.Name, Description: desc, Parameters: params}})
	}

	first := e.FirstRound(issue)
	receipts, data := r.callAll(ctx, plannerFirstRound, first)
	res, err := r.converse(ctx, receipts, data)
	if err != nil {
		res = r.fallback(ctx, err)
	}
	res.Runbooks = investigate.RunbookNames(res.Runbooks, r.runbooks)
	res.Started = started
	res.Wall = p.opts.Now().Sub(started)
	if r.prompt+r.completion > 0 {
		res.Usage = &investigate.Usage{PromptTokens: r.prompt, CompletionTokens: r.completion, Model: r.model,
			CostUSD: p.price.Cost(r.prompt, r.completion)}
	}
	reason := "ok"
	var f *failure
	if errors.As(err, &f) {
		reason = f.kind
	}
	p.metrics.Add(MetricInvestigations, 1, "mode", string(res.Mode), "reason", reason)
	p.log.Info("llm investigation", "mode", res.Mode, "reason", reason, "steps", r.steps, "tool_calls", len(res.Timeline),
		"rejected_calls", r.rejected, "prompt_tokens", r.prompt, "completion_tokens", r.completion, "band", res.RootCause.Band,
		"wall", res.Wall)
	return res, nil
}

func (p *Planner) newFence() string {
	b := make([]byte, 8)
	if _, err := io.ReadFull(p.opts.Random, b); err != nil {
		// Still unguessable enough for data that was written before this
		// conversation existed.
		return fmt.Sprintf("f%x", time.Now().UnixNano())
	}
	return hex.EncodeToString(b)
}

// callAll executes calls concurrently through the engine (which records the
// receipts) and returns the receipts with the tools' captured data.
func (r *run) callAll(ctx context.Context, planner string, calls []investigate.ToolCall) ([]investigate.Receipt, []any) {
	if len(calls) == 0 {
		return nil, nil
	}
	receipts := r.e.CallAll(ctx, r.led, planner, calls)
	data := make([]any, len(calls))
	for i, c := range calls {
		data[i] = r.cache.data(c)
	}
	return receipts, data
}

// toolResult renders a receipt for the prompt within what is left of the
// conversation's output budget.
func (r *run) toolResult(rc investigate.Receipt, data any) *shown {
	left := r.lim.ConversationChars - r.outChars
	var out string
	if left < 400 {
		out = r.p.clean.renderSummaryOnly(rc)
	} else {
		out = r.p.clean.renderReceipt(rc, data, min(r.lim.ToolOutputChars, left))
	}
	r.outChars += len(out)
	return &shown{rc: rc, data: data, full: out}
}

func (r *run) converse(ctx context.Context, first []investigate.Receipt, data []any) (*investigate.HealResult, error) {
	r.runbooks = r.e.Runbooks(r.issue, first)
	parts := make([]*shown, len(first))
	for i, rc := range first {
		parts[i] = r.toolResult(rc, data[i])
		r.seen[callKey(rc.Tool, rc.Args)] = fmt.Sprintf("R%d", rc.Seq)
	}
	r.turns = []*turn{
		{msg: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: systemPrompt(r.fence, r.lim.MaxToolCalls, true)}},
		{msg: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser}, head: r.incidentText(len(first)), parts: parts,
			tail: "Call the tools you still need, then answer."},
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, &failure{kind: "deadline", detail: fmt.Sprintf("the %s deadline was reached", r.lim.Deadline), err: err}
		}
		if r.steps >= r.lim.MaxSteps {
			return nil, &failure{kind: "budget", detail: fmt.Sprintf("no valid answer within %d model requests", r.lim.MaxSteps)}
		}
		if r.steps == r.lim.MaxSteps-1 && !r.forceNext {
			r.force("this is the last model request")
			r.say(forceAnswerMessage(r.forceWhy))
		}
		resp, err := r.complete(ctx)
		if err != nil {
			return nil, err
		}
		msg := resp.Choices[0].Message
		switch resp.Choices[0].FinishReason {
		case openai.FinishReasonLength:
			if _, perr := parseAnswer(msg.Content); perr == nil && len(msg.ToolCalls) == 0 {
				break // complete after all
			}
			limit := r.completionLimit()
			if r.cut >= 2 || r.completionLimit() >= maxCompletionLimit {
				return nil, &failure{kind: "unusable", detail: fmt.Sprintf("every answer was cut at the completion limit (%d tokens)", limit)}
			}
			r.cut++
			r.p.metrics.Add(MetricGovernor, 1, "action", "cut_answer")
			// An answer cut short is asked for again, alone; a reply that
			// was all hidden reasoning may still call tools.
			r.answerOnly = len(msg.ToolCalls) == 0 && strings.TrimSpace(msg.Content) != ""
			r.say(cutMessage(limit, len(msg.ToolCalls) > 0))
			continue
		case openai.FinishReasonContentFilter:
			if r.filtered {
				return nil, &failure{kind: "unusable", detail: "the provider's content filter withheld the answer twice"}
			}
			r.filtered, r.answerOnly = true, true
			r.p.metrics.Add(MetricGovernor, 1, "action", "content_filter")
			r.say(filteredMessage)
			continue
		}
		if len(msg.ToolCalls) > 0 {
			if !r.forceNext {
				r.handleToolCalls(ctx, msg)
				if r.rejected >= r.lim.MaxRejectedCalls {
					return nil, &failure{kind: "unusable", detail: fmt.Sprintf("%d malformed, unknown or excess tool calls", r.rejected)}
				}
				continue
			}
			// Told to answer, the model called tools again.
			r.rejected += len(msg.ToolCalls)
			r.p.metrics.Add(MetricToolCalls, float64(len(msg.ToolCalls)), "outcome", "over_budget")
			if strings.TrimSpace(msg.Content) == "" {
				return nil, &failure{kind: "unusable", detail: fmt.Sprintf("the model kept calling tools after %s", r.forceWhy)}
			}
		}
		r.add(openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: truncate(msg.Content, 16000)})
		ans, perr := parseAnswer(msg.Content)
		if perr != nil {
			if msg.Refusal != "" {
				perr = fmt.Errorf("the model refused: %s", truncate(msg.Refusal, 200))
			}
			if r.repaired {
				return nil, &failure{kind: "unusable", detail: "no valid answer after one repair request: " + r.p.clean.clip(perr.Error(), 200), err: perr}
			}
			r.repaired = true
			r.p.metrics.Add(MetricGovernor, 1, "action", "repair")
			r.say(repairMessage(perr.Error()))
			continue
		}
		res, followUp := r.validate(ctx, ans)
		if followUp != "" {
			r.say(followUp)
			continue
		}
		return res, nil
	}
}

// incidentText opens the first message: the incident and the backends,
// each context block of the investigation fenced, then the first round's
// results follow.
func (r *run) incidentText(firstCalls int) string {
	var b strings.Builder
	b.WriteString("Investigate this incident.\n")
	b.WriteString(fence(r.fence, "incident", r.p.clean.renderIssue(r.issue)))
	b.WriteString("\n" + r.p.clean.backendsLine(r.e.ToolSpecs(), r.e.Unavailable()) + "\n")
	b.WriteString(r.p.clean.runbookContext(r.fence, r.runbooks, r.led.Receipts()))
	fmt.Fprintf(&b, "First evidence round (%d calls):", firstCalls)
	return b.String()
}

func (r *run) add(m openai.ChatCompletionMessage) { r.turns = append(r.turns, &turn{msg: m}) }

func (r *run) say(content string) {
	r.add(openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: content})
}

func (r *run) force(why string) {
	r.forceNext, r.forceWhy = true, why
}

// reasoningModel reports models that reject a non-default temperature.
func reasoningModel(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "gpt-6"} {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return false
}

// tinyTemperature stands for 0: go-openai drops a zero temperature
// (omitempty), which servers read as their default of 1.
const tinyTemperature = 1e-4

// leaks is the last check before a request leaves: no registered secret
// may appear verbatim in anything the model is shown.
func (r *run) leaks(req openai.ChatCompletionRequest) bool {
	sec := r.p.clean.secrets
	for _, m := range req.Messages {
		if sec.ContainsRegistered(m.Content) {
			return true
		}
		for _, tc := range m.ToolCalls {
			if sec.ContainsRegistered(tc.Function.Arguments) {
				return true
			}
		}
	}
	return false
}

// estimateTokens approximates a request's prompt tokens (~4 bytes a token).
func estimateTokens(req openai.ChatCompletionRequest) int {
	b, err := json.Marshal(req)
	if err != nil {
		return 0
	}
	return len(b)/4 + 1
}

// plan fits the next request into the budgets: the request cap and what
// is left of the investigation's prompt tokens. Results the model has
// acted on are compacted to their findings when the request is larger
// than its share of the remaining budget (spread over the remaining
// requests); under a hard limit anything may be compacted. When no tool
// round would leave room for the answer after it, the answer is asked for
// now, with the evidence gathered so far, rather than the work lost.
func (r *run) plan() (openai.ChatCompletionRequest, int, error) {
	left := r.lim.MaxPromptTokens - r.prompt
	hard := min(r.requestCap(), left)
	if !r.forceNext {
		pace := left / max(r.lim.MaxSteps-r.steps, 1)
		est := r.compact(r.request, pace, levelFindings, false)
		if est > hard {
			est = r.compact(r.request, hard, levelBrief, true)
		}
		r.forceNext = true
		answer := estimateTokens(r.request()) + r.lim.ToolOutputChars/4 // the answer after this round's results
		r.forceNext = false
		if est <= hard && est+answer <= left {
			return r.request(), est, nil
		}
		r.force("the prompt-token budget is about to run out")
		r.say(forceAnswerMessage(r.forceWhy))
		r.p.metrics.Add(MetricGovernor, 1, "action", "budget_answer")
	}
	est := r.compact(r.request, hard, levelBrief, true)
	if est > hard {
		if hard < left {
			return openai.ChatCompletionRequest{}, 0, &failure{kind: "budget", detail: fmt.Sprintf("a request would exceed %d prompt tokens even compacted (~%d)", hard, est)}
		}
		return openai.ChatCompletionRequest{}, 0, &failure{kind: "budget", detail: fmt.Sprintf("the prompt-token budget of %d would be exceeded (%d sent, ~%d more)", r.lim.MaxPromptTokens, r.prompt, est)}
	}
	return r.request(), est, nil
}

// complete sends one request: it fits it into the budgets, learns whether
// the endpoint takes response_format, and accounts usage.
func (r *run) complete(ctx context.Context) (*openai.ChatCompletionResponse, error) {
	req, est, err := r.plan()
	if err != nil {
		return nil, err
	}
	if r.leaks(req) {
		r.p.log.Error("a registered secret was about to reach the prompt; the request was not sent")
		return nil, &failure{kind: "blocked", detail: "a registered secret would have reached the prompt"}
	}
	r.steps++
	resp, at, err := r.send(ctx, req)
	for tries := 0; err != nil && tries < 4 && ctx.Err() == nil; tries++ {
		if req, err = r.adapt(err, req); err != nil {
			break
		}
		resp, at, err = r.send(ctx, req)
	}
	if err != nil && promptFiltered(err) {
		r.p.metrics.Add(MetricRequests, 1, "model", r.p.cfg.Model, "outcome", "client_error")
		return nil, &failure{kind: "unusable", detail: "the provider's content filter refused the prompt (400 content_filter)", err: err}
	}
	_, retries, reason, _ := at.snapshot()
	if f := (*failure)(nil); errors.As(err, &f) {
		return nil, f
	}
	if err != nil {
		f := r.classify(ctx, err, retries, reason)
		r.p.metrics.Add(MetricRequests, 1, "model", r.p.cfg.Model, "outcome", outcomeOf(f))
		return nil, f
	}
	r.p.metrics.Add(MetricRequests, 1, "model", r.p.cfg.Model, "outcome", "ok")
	r.markSeen()
	if req.ResponseFormat != nil {
		r.p.format.CompareAndSwap(formatUnknown, formatSupported)
	}
	pt, ct := resp.Usage.PromptTokens, resp.Usage.CompletionTokens
	if pt == 0 {
		pt = est // servers without usage: our estimate
	}
	if ct == 0 && len(resp.Choices) > 0 {
		b, _ := json.Marshal(resp.Choices[0].Message)
		ct = len(b) / 4
	}
	r.prompt += pt
	r.completion += ct
	if resp.Model != "" {
		r.model = resp.Model
	}
	r.p.metrics.Add(MetricPromptTokens, float64(pt), "model", r.p.cfg.Model)
	r.p.metrics.Add(MetricCompletion, float64(ct), "model", r.p.cfg.Model)
	if c := r.p.price.Cost(pt, ct); c > 0 {
		r.p.metrics.Add(MetricCost, c, "model", r.p.cfg.Model)
	}
	r.p.log.Debug("model response", "step", r.steps, "prompt_tokens", pt, "completion_tokens", ct, "retries", retries)
	if len(resp.Choices) == 0 {
		return nil, &failure{kind: "unusable", detail: "the response has no choices"}
	}
	return &resp, nil
}

func (r *run) send(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, *attempts, error) {
	actx, at := withAttempts(ctx)
	resp, err := r.p.client.CreateChatCompletion(actx, req)
	r.answerOnly = r.answerOnly && err != nil // an answer-only request is asked once
	return resp, at, err
}

// adapt answers a refused request with the request the server takes: the
// schema left to the instructions when response_format is refused, a
// parameter it refused left out (and remembered), the conversation
// compacted below the context window it named. err is the original error
// when nothing can be done.
func (r *run) adapt(err error, req openai.ChatCompletionRequest) (openai.ChatCompletionRequest, error) {
	switch {
	case req.ResponseFormat != nil && formatRejected(err):
		r.p.format.Store(formatUnsupported)
		r.p.log.Warn("endpoint rejects response_format; using the schema in the instructions", "error", r.p.clean.clip(err.Error(), 300))
	case refusedParam(err) != "" && !r.p.refused(refusedParam(err)):
		r.p.refuse(refusedParam(err))
		r.p.log.Warn("endpoint refuses a request parameter; sending without it", "param", refusedParam(err))
	default:
		window, ok := contextExceeded(err)
		if !ok {
			return req, err
		}
		before := estimateTokens(req)
		if window == 0 || window-r.completionLimit() >= before {
			window = before * 3 / 4 // the window is not said: try smaller
			window += r.completionLimit()
		}
		r.p.learnWindow(window)
		r.p.metrics.Add(MetricGovernor, 1, "action", "context_compact")
		est := r.compact(r.request, r.requestCap(), levelBrief, true)
		r.p.log.Warn("prompt past the model's context window; compacted", "context_tokens", window, "before", before, "after", est)
		if est > r.requestCap() {
			return req, &failure{kind: "budget", detail: fmt.Sprintf("the model's context window of %d tokens cannot hold the conversation even compacted", window), err: err}
		}
	}
	return r.request(), nil
}

// formatRejected recognizes a server's refusal of response_format.
func formatRejected(err error) bool {
	status, msg := statusOf(err)
	if status != http.StatusBadRequest && status != http.StatusUnprocessableEntity && status != http.StatusNotImplemented {
		return false
	}
	m := strings.ToLower(msg)
	for _, k := range []string{"response_format", "json_schema", "structured output", "structured_output", "response format", "guided_json"} {
		if strings.Contains(m, k) {
			return true
		}
	}
	return false
}

func statusOf(err error) (int, string) {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		msg := apiErr.Message
		if apiErr.Param != nil {
			msg += " param=" + *apiErr.Param
		}
		return apiErr.HTTPStatusCode, msg
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.HTTPStatusCode, string(reqErr.Body)
	}
	return 0, ""
}

func (r *run) classify(ctx context.Context, err error, retries int, reason string) *failure {
	status, msg := statusOf(err)
	f := &failure{kind: "unavailable", err: err}
	switch {
	case ctx.Err() != nil:
		f.kind, f.detail = "deadline", fmt.Sprintf("the %s deadline was reached", r.lim.Deadline)
	case status == http.StatusTooManyRequests || status >= 500:
		f.detail = fmt.Sprintf("%d after %d retries", status, retries)
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		f.detail = fmt.Sprintf("%d: the API key was rejected", status)
	case status == http.StatusNotFound:
		f.detail = fmt.Sprintf("404: model %q or endpoint not found", r.p.cfg.Model)
	case status >= 400:
		f.detail = fmt.Sprintf("%d: %s", status, r.p.clean.clip(msg, 200))
	case errors.Is(err, ErrResponseTooLarge):
		f.kind, f.detail = "unusable", fmt.Sprintf("a response exceeded %d bytes", r.lim.MaxResponseBytes)
	case reason == "timeout":
		f.detail = fmt.Sprintf("timeout after %d retries", retries)
	case reason == "network":
		f.detail = fmt.Sprintf("network error after %d retries", retries)
	default:
		f.detail = r.p.clean.clip(err.Error(), 200)
	}
	return f
}

func outcomeOf(f *failure) string {
	switch {
	case f.kind == "deadline":
		return "timeout"
	case strings.HasPrefix(f.detail, "429"):
		return "rate_limited"
	case len(f.detail) > 0 && f.detail[0] == '5':
		return "server_error"
	case strings.HasPrefix(f.detail, "timeout"):
		return "timeout"
	case len(f.detail) > 0 && f.detail[0] == '4':
		return "client_error"
	}
	return "error"
}

// callKey identifies a call by tool and canonical arguments.
func callKey(tool string, args map[string]any) string {
	b, _ := json.Marshal(args) // map keys are sorted
	return tool + "\x00" + string(b)
}

// handleToolCalls answers every tool call of an assistant message: known
// tools with valid JSON arguments run concurrently through the engine;
// unknown tools, malformed arguments, repeats and calls beyond the budget
// are answered with an error message and never executed.
func (r *run) handleToolCalls(ctx context.Context, msg openai.ChatCompletionMessage) {
	const maxPerTurn = 16
	calls := msg.ToolCalls
	ids := map[string]bool{}
	for i := range calls {
		id := strings.TrimSpace(calls[i].ID)
		if id == "" || ids[id] || len(id) > 128 {
			id = fmt.Sprintf("call_%d_%d", r.steps, i)
		}
		ids[id] = true
		calls[i].ID = id
		calls[i].Type = openai.ToolTypeFunction
		calls[i].Index = nil
	}
	r.add(openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: truncate(msg.Content, 4000), ToolCalls: calls})

	outputs := make([]string, len(calls))
	results := make([]*shown, len(calls))
	var exec []investigate.ToolCall
	var execIdx []int
	batch := map[string]int{}
	reject := func(i int, outcome, text string) {
		r.rejected++
		r.p.metrics.Add(MetricToolCalls, 1, "outcome", outcome)
		outputs[i] = text
	}
	for i, tc := range calls {
		name := strings.TrimSpace(tc.Function.Name)
		if _, ok := r.allowed[name]; !ok {
			reject(i, "unknown_tool", fmt.Sprintf("error: unknown tool %q; not executed. Available tools: %s.", truncate(name, 60), strings.Join(r.toolNames(), ", ")))
			continue
		}
		args, err := parseArgs(tc.Function.Arguments)
		if err != nil {
			reject(i, "bad_args", fmt.Sprintf("error: the arguments of %s are not a JSON object (%s); not executed.", name, truncate(err.Error(), 120)))
			continue
		}
		key := callKey(name, args)
		if prev, ok := r.seen[key]; ok {
			r.p.metrics.Add(MetricToolCalls, 1, "outcome", "duplicate")
			outputs[i] = fmt.Sprintf("not executed: identical to call %s, whose findings are above.", prev)
			continue
		}
		if j, ok := batch[key]; ok {
			r.p.metrics.Add(MetricToolCalls, 1, "outcome", "duplicate")
			outputs[i] = fmt.Sprintf("not executed: identical to call %s of this turn.", calls[j].ID)
			continue
		}
		if r.modelCalls >= r.lim.MaxToolCalls || len(exec) >= maxPerTurn {
			reject(i, "over_budget", fmt.Sprintf("not executed: the tool-call budget (%d calls) is spent.", r.lim.MaxToolCalls))
			r.force(fmt.Sprintf("the tool-call budget of %d calls is spent", r.lim.MaxToolCalls))
			continue
		}
		r.modelCalls++
		batch[key] = i
		exec = append(exec, investigate.ToolCall{Tool: name, Args: args})
		execIdx = append(execIdx, i)
	}
	receipts, data := r.callAll(ctx, plannerLLM, exec)
	r.p.metrics.Add(MetricToolCalls, float64(len(receipts)), "outcome", "executed")
	for j, rc := range receipts {
		results[execIdx[j]] = r.toolResult(rc, data[j])
		r.seen[callKey(exec[j].Tool, exec[j].Args)] = fmt.Sprintf("R%d", rc.Seq)
	}
	for i, tc := range calls {
		t := &turn{msg: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: tc.ID, Name: tc.Function.Name, Content: outputs[i]}}
		if results[i] != nil {
			t.parts = []*shown{results[i]}
		}
		r.turns = append(r.turns, t)
	}
	if !r.forceNext && r.modelCalls >= r.lim.MaxToolCalls {
		r.force(fmt.Sprintf("the tool-call budget of %d calls is spent", r.lim.MaxToolCalls))
	}
	if r.forceNext {
		r.say(forceAnswerMessage(r.forceWhy))
	}
}

// parseArgs decodes a tool call's arguments: a JSON object (empty means {}).
func parseArgs(s string) (map[string]any, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "null" {
		return map[string]any{}, nil
	}
	if len(s) > 64<<10 {
		return nil, errors.New("arguments longer than 64 KiB")
	}
	var args map[string]any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&args); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data after the object")
	}
	if args == nil {
		args = map[string]any{}
	}
	return normalizeNumbers(args).(map[string]any), nil
}

// normalizeNumbers turns json.Number into int64 or float64 so capabilities
// decode them as they would the engine's own arguments.
func normalizeNumbers(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	case map[string]any:
		for k, x := range t {
			t[k] = normalizeNumbers(x)
		}
		return t
	case []any:
		for i, x := range t {
			t[i] = normalizeNumbers(x)
		}
		return t
	}
	return v
}

func (r *run) toolNames() []string {
	names := make([]string, 0, len(r.allowed))
	for n := range r.allowed {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// unusedTools lists the offered tools without a receipt yet.
func (r *run) unusedTools() []string {
	used := map[string]bool{}
	for _, rc := range r.led.Receipts() {
		used[rc.Tool] = true
	}
	var out []string
	for _, n := range r.toolNames() {
		if !used[n] {
			out = append(out, n)
		}
	}
	return out
}

// anchorCandidates lists the application frames the service's own failures
// point at, most frequent first (traces count double, as in the engine).
func (r *run) anchorCandidates(receipts []investigate.Receipt, svc string) []investigate.Frame {
	type key struct {
		file string
		line int
	}
	count := map[key]int{}
	frames := map[key]investigate.Frame{}
	var order []key
	for _, rc := range receipts {
		for _, f := range rc.Findings {
			switch f.Kind {
			case investigate.KindException, investigate.KindErrorSpan, investigate.KindLogPattern:
			default:
				continue
			}
			if investigate.NormalizeServiceName(f.Service) != svc || f.Attrs["blame"] == "callee" || f.Attrs["relayed_by"] != "" {
				continue
			}
			top, ok := investigate.TopAppFrame(f.Frames)
			if !ok && f.File != "" && f.Line > 0 {
				top, ok = investigate.Frame{File: f.File, Line: f.Line, Function: f.Function}, true
			}
			if !ok {
				continue
			}
			k := key{top.File, top.Line}
			n := max(f.Count, 1)
			if f.Family == investigate.FamilyTraces {
				n *= 2
			}
			if _, seen := frames[k]; !seen {
				frames[k] = top
				order = append(order, k)
			}
			count[k] += n
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return count[order[i]] > count[order[j]] })
	out := make([]investigate.Frame, len(order))
	for i, k := range order {
		out[i] = frames[k]
	}
	return out
}

// fallbackGrace bounds the deterministic engine's run after the planner's
// deadline, when the caller is still waiting.
const fallbackGrace = 15 * time.Second

// reference is the deterministic engine's own result for this
// investigation, computed once: its run reuses every call the planner has
// made (the call cache) and makes the calls it would make itself that are
// still missing. After the planner's deadline it gets a short grace
// period, unless the caller is gone; then the conclusion over the receipts
// so far stands in.
func (r *run) reference(ctx context.Context) *investigate.HealResult {
	if r.ref != nil {
		return r.ref
	}
	parent := r.parent
	if ctx.Err() != nil {
		if parent.Err() != nil {
			res := r.e.ConcludeReceipts(r.issue, r.led.Receipts())
			res.Mode = investigate.ModeDeterministic
			return res // not cached: a later call has no more time either
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(parent, fallbackGrace)
		defer cancel()
		ctx = context.WithValue(ctx, cacheKey{}, r.cache)
	}
	res, err := r.e.Quiet().Investigate(ctx, r.issue)
	if err != nil || res == nil {
		res = r.e.ConcludeReceipts(r.issue, r.led.Receipts())
		res.Mode = investigate.ModeDeterministic
	}
	r.ref = res
	return res
}

// timeline is every call made: the planner's receipts, then those of the
// deterministic run it did not make itself (numbered after them).
func (r *run) timeline() []investigate.Receipt {
	out := r.led.Receipts()
	if r.ref == nil {
		return out
	}
	return mergeReceipts(out, r.ref.Timeline)
}

// mergeReceipts appends the receipts of extra whose call (tool and
// arguments) is not in base, renumbered after base.
func mergeReceipts(base, extra []investigate.Receipt) []investigate.Receipt {
	seen := map[string]bool{}
	for _, rc := range base {
		seen[callKey(rc.Tool, rc.Args)] = true
	}
	out := append([]investigate.Receipt(nil), base...)
	for _, rc := range extra {
		if k := callKey(rc.Tool, rc.Args); !seen[k] {
			seen[k] = true
			rc.Seq = len(out) + 1
			out = append(out, rc)
		}
	}
	return out
}

// fallback is the deterministic engine's result over the same calls: never
// worse than the engine alone. The model's extra calls stay in the
// timeline.
func (r *run) fallback(ctx context.Context, err error) *investigate.HealResult {
	ref := r.reference(ctx)
	res := *ref
	res.Timeline = mergeReceipts(ref.Timeline, r.led.Receipts())
	res.Mode = investigate.ModeDeterministic
	var f *failure
	if errors.As(err, &f) {
		res.ModeNote = fmt.Sprintf("LLM %s (%s): deterministic answer", f.kind, f.detail)
	} else {
		res.ModeNote = "LLM unavailable (" + r.p.clean.clip(err.Error(), 200) + "): deterministic answer"
	}
	r.p.log.Warn("llm planner fell back to the deterministic answer", "reason", res.ModeNote)
	return &res
}
