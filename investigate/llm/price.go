package llm

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Price is the cost of 1000 tokens in USD.
type Price struct {
	PromptPer1K     float64 `json:"prompt_per_1k"`
	CompletionPer1K float64 `json:"completion_per_1k"`
}

// Cost is the USD cost of the given token counts.
func (p Price) Cost(prompt, completion int) float64 {
	c := float64(prompt)/1000*p.PromptPer1K + float64(completion)/1000*p.CompletionPer1K
	return math.Round(c*1e6) / 1e6
}

// ParsePrice parses "prompt,completion" (USD per 1000 tokens).
func ParsePrice(s string) (*Price, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 2 {
		return nil, fmt.Errorf("%q: want prompt,completion in USD per 1000 tokens", s)
	}
	var v [2]float64
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("%q: %w", s, errors.New("prices must be non-negative numbers"))
		}
		v[i] = f
	}
	return &Price{PromptPer1K: v[0], CompletionPer1K: v[1]}, nil
}

// prices is a small table of list prices (USD per 1000 tokens), matched by
// the longest model-name prefix. Unknown models cost nothing unless
// AUTOHEAL_LLM_PRICE_PER_1K says otherwise.
var prices = map[string]Price{
	"gpt-4o-mini":  {0.00015, 0.0006},
	"gpt-4o":       {0.0025, 0.01},
	"gpt-4.1-nano": {0.0001, 0.0004},
	"gpt-4.1-mini": {0.0004, 0.0016},
	"gpt-4.1":      {0.002, 0.008},
	"o4-mini":      {0.0011, 0.0044},
	"o3-mini":      {0.0011, 0.0044},
	"o3":           {0.002, 0.008},
	"gpt-5-nano":   {0.00005, 0.0004},
	"gpt-5-mini":   {0.00025, 0.002},
	"gpt-5":        {0.00125, 0.01},
}

// PriceFor looks a model up in the built-in table (provider prefixes such
// as "openai/" are ignored); ok is false for unknown models.
func PriceFor(model string) (Price, bool) {
	m := strings.ToLower(model)
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	keys := make([]string, 0, len(prices))
	for k := range prices {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
	for _, k := range keys {
		if strings.HasPrefix(m, k) {
			return prices[k], true
		}
	}
	return Price{}, false
}
