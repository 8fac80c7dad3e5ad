package llm

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/autoheal/autoheal/investigate"
)

// CaptureData wraps capabilities so that the planner also sees each tool's
// structured Data (ToolResult.Data: query results, log lines, source
// windows), which receipts do not keep. Without it the model sees each
// call's summary and findings only. Wrap the capabilities the engine is
// built from:
//
//	e := investigate.New(investigate.Options{Capabilities: llm.CaptureData(capset.FromConfig(config.OperatorSettings(cfg), capset.Options{}))})
//
// Data is captured only for calls the planner makes (it travels in the
// context), so the deterministic engine pays nothing for the wrapping.
func CaptureData(caps []investigate.Capability) []investigate.Capability {
	out := make([]investigate.Capability, len(caps))
	for i, c := range caps {
		out[i] = capturing{c}
	}
	return out
}

type capturing struct{ investigate.Capability }

func (c capturing) Call(ctx context.Context, tool string, args json.RawMessage) (*investigate.ToolResult, error) {
	res, err := c.Capability.Call(ctx, tool, args)
	if err == nil && res != nil && res.Data != nil {
		if s, ok := ctx.Value(dataKey{}).(*dataStore); ok {
			s.put(dataKeyOf(tool, args), res.Data)
		}
	}
	return res, err
}

type dataKey struct{}

// dataStore holds the Data of one batch of calls, keyed by tool and the
// JSON arguments exactly as the engine marshals them.
type dataStore struct {
	mu sync.Mutex
	m  map[string]any
}

func withDataStore(ctx context.Context) (context.Context, *dataStore) {
	s := &dataStore{m: map[string]any{}}
	return context.WithValue(ctx, dataKey{}, s), s
}

func (s *dataStore) put(k string, v any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.m) < 64 {
		s.m[k] = v
	}
}

func (s *dataStore) get(call investigate.ToolCall) any {
	args, err := json.Marshal(call.Args)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[dataKeyOf(call.Tool, args)]
}

func dataKeyOf(tool string, args []byte) string { return tool + "\x00" + string(args) }
