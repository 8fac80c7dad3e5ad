package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/autoheal/autoheal/config"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/capset"
	"github.com/autoheal/autoheal/investigate/mcp"
	"github.com/autoheal/autoheal/scenario"
)

// RunOptions configure one scenario run.
type RunOptions struct {
	Backends Options
	// Engine options (capabilities are filled in by the harness).
	Engine investigate.Options
	// Sequential makes every backend call one after another (benchmark baseline).
	Sequential bool
	// Investigator replaces the deterministic engine (e.g. the LLM planner);
	// nil uses the engine built from Engine.
	Investigator func(ctx context.Context, e *investigate.Engine, issue investigate.Issue) (*investigate.HealResult, error)
	// Extra capabilities built per run from the backends (Kubernetes MCP).
	Extra func(ctx context.Context, b *Backends) ([]investigate.Capability, func(), error)
	// WrapCapabilities decorates the capabilities before the engine gets
	// them (the LLM planner captures query results with it).
	WrapCapabilities func([]investigate.Capability) []investigate.Capability
}

// Run serves a scenario, investigates its trigger and returns the result.
// EngineWall is the investigation's own wall time (simulator start-up excluded).
func Run(ctx context.Context, s *scenario.Scenario, opts RunOptions) (*investigate.HealResult, error) {
	b, err := Start(s, opts.Backends)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	return RunWith(ctx, b, opts)
}

// RunWith investigates a scenario against already running backends.
func RunWith(ctx context.Context, b *Backends, opts RunOptions) (*investigate.HealResult, error) {
	issue, err := Issue(b.Scenario)
	if err != nil {
		return nil, err
	}
	var extra []investigate.Capability
	if opts.Extra != nil {
		caps, closeFn, err := opts.Extra(ctx, b)
		if err != nil {
			return nil, err
		}
		if closeFn != nil {
			defer closeFn()
		}
		extra = caps
	}
	// This run's MCP connections (the Kubernetes simulator) close when it
	// returns, before the caller stops the simulators: a client closed
	// after its server is gone fails to end its session.
	mcps := mcp.NewManager(mcp.Options{Logger: opts.Engine.Logger}, 0)
	defer func() { _ = mcps.Close() }()
	eopts := opts.Engine
	eopts.Capabilities = capset.FromConfig(config.OperatorSettings(b.Config()), capset.Options{Extra: extra, MCP: mcps})
	if opts.WrapCapabilities != nil {
		eopts.Capabilities = opts.WrapCapabilities(eopts.Capabilities)
	}
	e := investigate.New(eopts)
	if opts.Sequential {
		ctx = investigate.WithSequential(ctx)
	}
	if opts.Investigator != nil {
		return opts.Investigator(ctx, e, issue)
	}
	return e.Investigate(ctx, issue)
}

// Case is one scored scenario of an evaluation.
type Case struct {
	Name   string
	Dir    string
	Truth  scenario.Truth
	Result *investigate.HealResult
	Score  Score
	// NoTruth: the scenario has no truth yet (none, or marked todo); it
	// ran but is not scored nor counted in the summary.
	NoTruth bool
	Err     error
}

// Summary is the evaluation summary of FORMAT.md.
type Summary struct {
	Total           int `json:"total"`
	RCCorrect       int `json:"rc_correct"`
	BucketCorrect   int `json:"bucket_correct"`
	ServiceCorrect  int `json:"service_correct"`
	LocationCorrect int `json:"location_correct"`
	LocationTotal   int `json:"location_total"`
	ErrorType       int `json:"error_type_correct"`
	HighWrong       int `json:"high_wrong"`
	ToolCallsMedian int `json:"tool_calls_median"`
	WallMsMedian    int `json:"wall_ms_median"`
	// NoTruth counts the scenarios that ran without a truth to score
	// against (not part of Total).
	NoTruth int `json:"no_truth,omitempty"`
}

// Evaluate loads every scenario first (a scenario that cannot be loaded is
// an error naming the file), then runs and scores each.
func Evaluate(ctx context.Context, dirs []string, opts RunOptions) ([]Case, Summary, error) {
	var scs []*scenario.Scenario
	for _, d := range dirs {
		s, err := scenario.Load(d)
		if err != nil {
			return nil, Summary{}, err
		}
		if _, err := Issue(s); err != nil {
			return nil, Summary{}, fmt.Errorf("%s: %w", d, err)
		}
		scs = append(scs, s)
	}
	var cases []Case
	for _, s := range scs {
		c := Case{Name: s.Name, Dir: s.Dir, Truth: s.Truth, NoTruth: !s.Truth.Scored()}
		c.Result, c.Err = Run(ctx, s, opts)
		if c.Result != nil && !c.NoTruth {
			c.Score = Judge(s.Truth, c.Result)
		}
		cases = append(cases, c)
	}
	return cases, Summarize(cases), nil
}

// Summarize computes the FORMAT.md summary.
func Summarize(cases []Case) Summary {
	var s Summary
	var calls, walls []int
	for _, c := range cases {
		if c.NoTruth {
			s.NoTruth++
			continue
		}
		s.Total++
		if c.Result == nil {
			continue
		}
		sc := c.Score
		s.RCCorrect += b2i(sc.RootCause)
		s.BucketCorrect += b2i(sc.Bucket)
		s.ServiceCorrect += b2i(sc.Service)
		s.ErrorType += b2i(sc.ErrorType)
		s.HighWrong += b2i(sc.HighWrong)
		if sc.LocationScored {
			s.LocationTotal++
			s.LocationCorrect += b2i(sc.Location)
		}
		calls = append(calls, c.Result.ToolCalls())
		walls = append(walls, int(c.Result.Wall/time.Millisecond))
	}
	s.ToolCallsMedian = median(calls)
	s.WallMsMedian = median(walls)
	return s
}

func median(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	ys := append([]int(nil), xs...)
	sort.Ints(ys)
	n := len(ys)
	if n%2 == 1 {
		return ys[n/2]
	}
	return (ys[n/2-1] + ys[n/2]) / 2
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func mark(ok bool) string {
	if ok {
		return "✓"
	}
	return "✗"
}

// PrintTable writes the human evaluation table.
func PrintTable(w io.Writer, cases []Case, sum Summary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tRC\tBUCKET (pred/truth)\tSERVICE (pred/truth)\tERROR TYPE (pred/truth)\tLOCATION (pred | truth)\tBAND\tCALLS\tWALL")
	for _, c := range cases {
		if c.Result == nil {
			fmt.Fprintf(tw, "%s\t✗\terror: %v\t\t\t\t\t\t\n", c.Name, c.Err)
			continue
		}
		rc := c.Result.RootCause
		if c.NoTruth {
			loc := "-"
			if rc.File != "" {
				loc = fmt.Sprintf("  %s:%d", short(rc.File), rc.Line)
			}
			fmt.Fprintf(tw, "%s\t-\tno truth: %s/?\t%s/?\t%s/?\t%s\t%s\t%d\t%dms\n", c.Name, rc.Bucket, rc.Service, rc.ErrorType,
				loc, rc.Band, c.Result.ToolCalls(), c.Result.Wall.Milliseconds())
			continue
		}
		loc := "-"
		if c.Score.LocationScored {
			loc = fmt.Sprintf("%s %s:%d | %s:%d", mark(c.Score.Location), short(rc.File), rc.Line, short(c.Truth.File), c.Truth.Line)
		} else if rc.File != "" {
			loc = fmt.Sprintf("  %s:%d", short(rc.File), rc.Line)
		}
		band := string(rc.Band)
		if c.Score.HighWrong {
			band += " (WRONG)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s %s/%s\t%s %s/%s\t%s %s/%s\t%s\t%s\t%d\t%dms\n", c.Name, mark(c.Score.RootCause),
			mark(c.Score.Bucket), rc.Bucket, c.Truth.Bucket, mark(c.Score.Service), rc.Service, c.Truth.Service,
			mark(c.Score.ErrorType), rc.ErrorType, c.Truth.ErrorType, loc, band, c.Result.ToolCalls(), c.Result.Wall.Milliseconds())
	}
	tw.Flush()
	pct := func(a, b int) string {
		if b == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.0f%%", 100*float64(a)/float64(b))
	}
	fmt.Fprintf(w, "\nroot cause %d/%d (%s)  bucket %d/%d  service %d/%d  error type %d/%d  location %d/%d  high_wrong %d  median tool calls %d  median wall %dms\n",
		sum.RCCorrect, sum.Total, pct(sum.RCCorrect, sum.Total), sum.BucketCorrect, sum.Total, sum.ServiceCorrect, sum.Total,
		sum.ErrorType, sum.Total, sum.LocationCorrect, sum.LocationTotal, sum.HighWrong, sum.ToolCallsMedian, sum.WallMsMedian)
	if sum.NoTruth > 0 {
		fmt.Fprintf(w, "%d scenario(s) without truth (none, or marked todo in scenario.yaml): run, not scored\n", sum.NoTruth)
	}
}

func short(p string) string {
	if p == "" {
		return "-"
	}
	parts := strings.Split(p, "/")
	if len(parts) > 2 {
		return ".../" + strings.Join(parts[len(parts)-2:], "/")
	}
	return p
}

// PrintJSON writes the summary object as one line.
func PrintJSON(w io.Writer, sum Summary) error {
	b, err := json.Marshal(sum)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, string(b))
	return err
}
