package llm

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/autoheal/autoheal/investigate"
)

// CaptureData wraps capabilities for the LLM planner. Within one planner
// investigation (the context carries its call cache) each wrapped call
//   - keeps the tool's structured Data (ToolResult.Data: query results,
//     log lines, Kubernetes objects, source windows), which receipts do not
//     keep, so that the model is shown the same content on every path;
//   - is remembered by tool and arguments, so that the deterministic
//     engine's own run over the same investigation (the reference the
//     model's answer is compared with, and the fallback) reuses every
//     result instead of querying the backends again.
//
// Outside a planner investigation the wrapper only passes calls through.
// The planner's WrapCapabilities method is the same function; the bot's
// worker, `bot investigate` and `bot eval` apply it wherever an LLM planner
// investigates:
//
//	e := investigate.New(investigate.Options{Capabilities: llm.CaptureData(caps)})
func CaptureData(caps []investigate.Capability) []investigate.Capability {
	out := make([]investigate.Capability, len(caps))
	for i, c := range caps {
		if _, done := c.(capturing); done {
			out[i] = c
			continue
		}
		out[i] = capturing{c}
	}
	return out
}

// WrapCapabilities is CaptureData: the capabilities an engine needs for the
// model to see what the deterministic engine sees.
func (p *Planner) WrapCapabilities(caps []investigate.Capability) []investigate.Capability {
	return CaptureData(caps)
}

type capturing struct{ investigate.Capability }

func (c capturing) Call(ctx context.Context, tool string, args json.RawMessage) (*investigate.ToolResult, error) {
	cache, ok := ctx.Value(cacheKey{}).(*callCache)
	if !ok {
		return c.Capability.Call(ctx, tool, args)
	}
	key := dataKeyOf(tool, args)
	if res, err, hit := cache.lookup(key); hit {
		return res, err
	}
	res, err := c.Capability.Call(ctx, tool, args)
	if ctx.Err() == nil { // a call cut by the caller's end is not an answer to remember
		cache.put(key, res, err)
	}
	return res, err
}

type cacheKey struct{}

// callCache holds the results of one investigation's calls, keyed by tool
// and the JSON arguments exactly as the engine marshals them.
type callCache struct {
	mu sync.Mutex
	m  map[string]cached
}

type cached struct {
	res *investigate.ToolResult
	err error
}

// maxCachedCalls bounds one investigation's cache (the planner's own
// bounds keep it far below).
const maxCachedCalls = 256

func withCallCache(ctx context.Context) (context.Context, *callCache) {
	c := &callCache{m: map[string]cached{}}
	return context.WithValue(ctx, cacheKey{}, c), c
}

func (c *callCache) lookup(key string) (*investigate.ToolResult, error, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	return v.res, v.err, ok
}

func (c *callCache) put(key string, res *investigate.ToolResult, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) < maxCachedCalls {
		c.m[key] = cached{res, err}
	}
}

// data returns the structured data a call returned, if it was captured.
func (c *callCache) data(call investigate.ToolCall) any {
	args, err := json.Marshal(call.Args)
	if err != nil {
		return nil
	}
	res, _, ok := c.lookup(dataKeyOf(call.Tool, args))
	if !ok || res == nil {
		return nil
	}
	return res.Data
}

func dataKeyOf(tool string, args []byte) string { return tool + "\x00" + string(args) }
