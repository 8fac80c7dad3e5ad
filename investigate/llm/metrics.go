package llm

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Metrics receives the planner's counters. Counters implements it; the
// serve wiring exposes a Counters on /metrics (WritePrometheus, or a
// Prometheus collector built on Each).
type Metrics interface {
	// Add increases the counter name{labels} by v. labels are key, value pairs.
	Add(name string, v float64, labels ...string)
}

// Metric names.
const (
	MetricRequests       = "autoheal_llm_requests_total"          // {model, outcome}: ok, rate_limited, server_error, timeout, client_error, error
	MetricRetries        = "autoheal_llm_retries_total"           // {model, reason}
	MetricPromptTokens   = "autoheal_llm_prompt_tokens_total"     // {model}
	MetricCompletion     = "autoheal_llm_completion_tokens_total" // {model}
	MetricCost           = "autoheal_llm_cost_usd_total"          // {model}
	MetricToolCalls      = "autoheal_llm_tool_calls_total"        // {outcome}: executed, verify, unknown_tool, bad_args, over_budget, duplicate
	MetricInvestigations = "autoheal_llm_investigations_total"    // {mode, reason}
	MetricGovernor       = "autoheal_llm_governor_total"          // {action}: overclaim_retry, clamp, more_evidence, repair, file_dropped, fix_dropped
)

var metricHelp = map[string]string{
	MetricRequests:       "Chat completion requests by outcome.",
	MetricRetries:        "Retried chat completion attempts by reason.",
	MetricPromptTokens:   "Prompt tokens sent to the model.",
	MetricCompletion:     "Completion tokens received from the model.",
	MetricCost:           "Estimated model cost in USD.",
	MetricToolCalls:      "Tool calls requested by the model by outcome.",
	MetricInvestigations: "Investigations started with the LLM planner by the mode that produced the answer.",
	MetricGovernor:       "Output-validator actions on the model's answers.",
}

// Sample is one counter value.
type Sample struct {
	Name   string
	Help   string
	Labels [][2]string // sorted by key
	Value  float64
}

// Counters is an in-memory Metrics safe for concurrent use.
type Counters struct {
	mu sync.Mutex
	m  map[string]*Sample
}

// DefaultCounters collects the counters of every planner that has no
// Options.Metrics.
var DefaultCounters = NewCounters()

// NewCounters returns empty counters.
func NewCounters() *Counters { return &Counters{m: map[string]*Sample{}} }

// Add implements Metrics.
func (c *Counters) Add(name string, v float64, labels ...string) {
	if c == nil {
		return
	}
	var ls [][2]string
	for i := 0; i+1 < len(labels); i += 2 {
		ls = append(ls, [2]string{labels[i], labels[i+1]})
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i][0] < ls[j][0] })
	var key strings.Builder
	key.WriteString(name)
	for _, l := range ls {
		key.WriteString("\x00" + l[0] + "\x00" + l[1])
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.m[key.String()]
	if s == nil {
		s = &Sample{Name: name, Help: metricHelp[name], Labels: ls}
		c.m[key.String()] = s
	}
	s.Value += v
}

// Each calls fn with a copy of every sample, ordered by name and labels.
func (c *Counters) Each(fn func(Sample)) {
	c.mu.Lock()
	keys := make([]string, 0, len(c.m))
	for k := range c.m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]Sample, 0, len(keys))
	for _, k := range keys {
		s := *c.m[k]
		s.Labels = append([][2]string(nil), s.Labels...)
		out = append(out, s)
	}
	c.mu.Unlock()
	for _, s := range out {
		fn(s)
	}
}

// Value returns one counter (0 when never added).
func (c *Counters) Value(name string, labels ...string) float64 {
	var v float64
	want := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		want[labels[i]] = labels[i+1]
	}
	c.Each(func(s Sample) {
		if s.Name != name || len(s.Labels) != len(want) {
			return
		}
		for _, l := range s.Labels {
			if want[l[0]] != l[1] {
				return
			}
		}
		v = s.Value
	})
	return v
}

// WritePrometheus writes the counters in the Prometheus text exposition format.
func (c *Counters) WritePrometheus(w io.Writer) error {
	bw := bufio.NewWriter(w)
	last := ""
	c.Each(func(s Sample) {
		if s.Name != last {
			last = s.Name
			if s.Help != "" {
				fmt.Fprintf(bw, "# HELP %s %s\n", s.Name, s.Help)
			}
			fmt.Fprintf(bw, "# TYPE %s counter\n", s.Name)
		}
		bw.WriteString(s.Name)
		if len(s.Labels) > 0 {
			bw.WriteString("{")
			for i, l := range s.Labels {
				if i > 0 {
					bw.WriteString(",")
				}
				fmt.Fprintf(bw, "%s=\"%s\"", l[0], labelEscaper.Replace(l[1]))
			}
			bw.WriteString("}")
		}
		fmt.Fprintf(bw, " %s\n", strconv.FormatFloat(s.Value, 'g', -1, 64))
	})
	return bw.Flush()
}

var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

type noMetrics struct{}

func (noMetrics) Add(string, float64, ...string) {}
