package investigate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/autoheal/autoheal/redact"
)

// ProgressEvent tells an observer what just happened.
type ProgressEvent struct {
	// Receipt is set when a tool call completed.
	Receipt *Receipt
	// Started lists tool calls that just started.
	Started []string
	// Hypothesis is the current best explanation, one line.
	Hypothesis string
	// Band is the band the evidence so far supports.
	Band Band
}

// Observer receives progress; it must not block for long.
type Observer func(ProgressEvent)

// Options configure an Engine.
type Options struct {
	Capabilities []Capability
	// Deadline bounds a whole investigation (default 60 s).
	Deadline time.Duration
	// ToolTimeout bounds one tool call (default 20 s).
	ToolTimeout time.Duration
	// Observer receives progress events (optional).
	Observer Observer
	Logger   *slog.Logger
	Redactor *redact.Redactor
	// Now is the clock for wall-time accounting (default time.Now).
	Now func() time.Time
	// Runbooks is the operator's runbook library (optional): the runbooks
	// that apply are named in the result and their tools: hints run as
	// extra read-only calls.
	Runbooks RunbookLibrary
}

// Engine runs investigations with the deterministic planner.
type Engine struct {
	opts  Options
	tools map[string]Capability
}

// New builds an engine over the given capabilities.
func New(opts Options) *Engine {
	if opts.Deadline <= 0 {
		opts.Deadline = 60 * time.Second
	}
	if opts.ToolTimeout <= 0 {
		opts.ToolTimeout = 20 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Redactor == nil {
		opts.Redactor = redact.Default
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	e := &Engine{opts: opts, tools: map[string]Capability{}}
	for _, c := range opts.Capabilities {
		for _, t := range c.Tools() {
			e.tools[t.Name] = c
		}
	}
	return e
}

// Capability returns the configured capability of a family, if any.
func (e *Engine) Capability(f Family) Capability {
	for _, c := range e.opts.Capabilities {
		if c.Family() == f && c.Availability().Configured {
			return c
		}
	}
	return nil
}

// Quiet returns the engine without its progress observer, for a planner's
// own reference run over calls it has already shown.
func (e *Engine) Quiet() *Engine {
	q := *e
	q.opts.Observer = nil
	return &q
}

// ToolSpecs lists the tools of configured capabilities only.
func (e *Engine) ToolSpecs() []ToolSpec {
	var out []ToolSpec
	for _, c := range e.opts.Capabilities {
		if c.Availability().Configured {
			out = append(out, c.Tools()...)
		}
	}
	return out
}

type seqKey struct{}

// WithSequential marks ctx so that the engine and the capabilities make
// their backend calls one after another (the baseline of the concurrency
// benchmark).
func WithSequential(ctx context.Context) context.Context {
	return context.WithValue(ctx, seqKey{}, true)
}

// Sequential reports whether ctx asks for one-after-another backend calls.
func Sequential(ctx context.Context) bool {
	v, _ := ctx.Value(seqKey{}).(bool)
	return v
}

// Ledger records every tool call of one investigation.
type Ledger struct {
	mu       sync.Mutex
	receipts []Receipt
}

// Receipts returns a copy of the receipts in completion order.
func (l *Ledger) Receipts() []Receipt {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Receipt(nil), l.receipts...)
}

func (l *Ledger) add(r Receipt) Receipt {
	l.mu.Lock()
	defer l.mu.Unlock()
	r.Seq = len(l.receipts) + 1
	l.receipts = append(l.receipts, r)
	return r
}

// ToolCall is one planned call.
type ToolCall struct {
	Tool string
	Args map[string]any
	// Runbook names the runbook hint that asked for the call
	// (payments-timeouts.md#p99-latency); empty for the planners' own.
	Runbook string
}

// Call runs one tool call, records a receipt and returns it. Failures become
// receipts, never panics or engine errors.
func (e *Engine) Call(ctx context.Context, led *Ledger, planner string, call ToolCall) Receipt {
	start := e.opts.Now()
	r := Receipt{Tool: call.Tool, Args: redactArgs(e.opts.Redactor, call.Args), Started: start, Planner: planner, Runbook: call.Runbook}
	cap, ok := e.tools[call.Tool]
	if !ok {
		r.ErrorKind, r.Error = ErrKindInvalidArgs, fmt.Sprintf("unknown tool %q", call.Tool)
		r.Family = ""
		return e.record(led, r)
	}
	r.Family = cap.Family()
	args, err := json.Marshal(call.Args)
	if err != nil {
		r.ErrorKind, r.Error = ErrKindInvalidArgs, "arguments are not JSON-encodable"
		return e.record(led, r)
	}
	cctx, cancel := context.WithTimeout(ctx, e.opts.ToolTimeout)
	defer cancel()
	res, err := safeCall(cctx, cap, call.Tool, args)
	r.Duration = e.opts.Now().Sub(start)
	if err != nil {
		r.ErrorKind = KindOf(err)
		if errors.Is(err, ErrUnknownTool) {
			r.ErrorKind = ErrKindInvalidArgs
		}
		if cctx.Err() != nil && ctx.Err() == nil {
			r.ErrorKind = ErrKindTimeout
		}
		r.Error = e.opts.Redactor.String(err.Error())
		return e.record(led, r)
	}
	r.OK = true
	r.Summary = e.opts.Redactor.String(res.Summary)
	r.Warning = e.opts.Redactor.String(res.Warning)
	r.Findings = redactFindings(e.opts.Redactor, res.Findings)
	return e.record(led, r)
}

func (e *Engine) record(led *Ledger, r Receipt) Receipt {
	r = led.add(r)
	e.opts.Logger.Debug("tool call", "seq", r.Seq, "tool", r.Tool, "ok", r.OK, "error_kind", r.ErrorKind, "duration", r.Duration)
	if e.opts.Observer != nil {
		rc := r
		e.opts.Observer(ProgressEvent{Receipt: &rc})
	}
	return r
}

// safeCall turns a capability panic into a tool error: one broken backend
// response must not take the bot down.
func safeCall(ctx context.Context, c Capability, tool string, args json.RawMessage) (res *ToolResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, NewToolError(ErrKindBadResponse, fmt.Sprintf("%s failed unexpectedly: %v", tool, p), nil)
		}
	}()
	res, err = c.Call(ctx, tool, args)
	if err == nil && res == nil {
		err = NewToolError(ErrKindBadResponse, tool+" returned nothing", nil)
	}
	return res, err
}

// CallAll runs calls concurrently (or one after another when ctx asks for
// it) and returns their receipts in call order.
func (e *Engine) CallAll(ctx context.Context, led *Ledger, planner string, calls []ToolCall) []Receipt {
	out := make([]Receipt, len(calls))
	if len(calls) == 0 {
		return out
	}
	if e.opts.Observer != nil {
		names := make([]string, len(calls))
		for i, c := range calls {
			names[i] = c.Tool
		}
		e.opts.Observer(ProgressEvent{Started: names})
	}
	if Sequential(ctx) {
		for i, c := range calls {
			out[i] = e.Call(ctx, led, planner, c)
		}
		return out
	}
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Add(1)
		go func(i int, c ToolCall) {
			defer wg.Done()
			out[i] = e.Call(ctx, led, planner, c)
		}(i, c)
	}
	wg.Wait()
	return out
}

func redactArgs(r *redact.Redactor, args map[string]any) map[string]any {
	if args == nil {
		return nil
	}
	v, _ := r.Value(jsonish(args)).(map[string]any)
	return v
}

// jsonish converts typed slices to []any so redaction reaches their strings.
func jsonish(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch t := v.(type) {
		case []string:
			xs := make([]any, len(t))
			for i, s := range t {
				xs[i] = s
			}
			out[k] = xs
		default:
			out[k] = v
		}
	}
	return out
}

func redactFindings(r *redact.Redactor, fs []Finding) []Finding {
	out := make([]Finding, len(fs))
	for i, f := range fs {
		f.Quote = r.String(f.Quote)
		if len(f.Attrs) > 0 {
			attrs := make(map[string]string, len(f.Attrs))
			for k, v := range f.Attrs {
				attrs[k] = r.String(v)
			}
			f.Attrs = attrs
		}
		out[i] = f
	}
	return out
}

// Unavailable lists the capabilities that cannot be used and why.
func (e *Engine) Unavailable() []Unavailable {
	var out []Unavailable
	seen := map[Family]bool{}
	for _, c := range e.opts.Capabilities {
		if av := c.Availability(); !av.Configured {
			out = append(out, Unavailable{Family: c.Family(), Kind: av.Kind, Reason: av.Reason})
			seen[c.Family()] = true
		} else {
			seen[c.Family()] = true
		}
	}
	for _, f := range []Family{FamilyTraces, FamilyLogs, FamilyMetrics, FamilyChanges, FamilySource, FamilyK8s} {
		if !seen[f] {
			out = append(out, Unavailable{Family: f, Kind: ErrKindNotConfigured, Reason: "no " + string(f) + " backend configured"})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Family < out[j].Family })
	return out
}

// toolsUsedAndFailed derives the tools-used list and per-family failures from receipts.
func toolsUsedAndFailed(receipts []Receipt, static []Unavailable) ([]string, []Unavailable) {
	used := map[string]bool{}
	var usedList []string
	failed := map[Family]Unavailable{}
	okFamily := map[Family]bool{}
	for _, r := range receipts {
		if r.OK {
			okFamily[r.Family] = true
			if !used[r.Tool] {
				used[r.Tool] = true
				usedList = append(usedList, r.Tool)
			}
			continue
		}
		if r.Family != "" {
			failed[r.Family] = Unavailable{Family: r.Family, Kind: r.ErrorKind, Reason: fmt.Sprintf("%s: %s", r.Tool, r.Error)}
		}
	}
	out := append([]Unavailable(nil), static...)
	for f, u := range failed {
		if !okFamily[f] {
			out = append(out, u)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Family < out[j].Family })
	return usedList, out
}

func joinNonEmpty(sep string, parts ...string) string {
	var keep []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, sep)
}
