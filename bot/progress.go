package bot

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/render"
)

// maxProgressReceipts bounds the receipts one progress message remembers;
// render shows the newest few and summarises the rest.
const maxProgressReceipts = 500

// maxRunning bounds the started-but-not-finished tool calls tracked.
const maxRunning = 64

// progress is the live state of one investigation as the thread shows it.
// The engine's observer feeds it from several goroutines.
type progress struct {
	mu         sync.Mutex
	title      string
	trigger    investigate.Trigger
	receipts   []investigate.Receipt
	dropped    int // receipts beyond maxProgressReceipts, oldest first
	running    []string
	hypothesis string
	band       investigate.Band
	started    time.Time
	mode       investigate.Mode
	action     *render.ActionValue
	now        func() time.Time
}

func newProgress(title string, trigger investigate.Trigger, action *render.ActionValue, now func() time.Time) *progress {
	if now == nil {
		now = time.Now
	}
	return &progress{title: title, trigger: trigger, action: action, now: now, started: now(), band: investigate.BandLow, mode: investigate.ModeDeterministic}
}

// observe applies one engine event.
func (p *progress) observe(ev investigate.ProgressEvent) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, name := range ev.Started {
		if len(p.running) < maxRunning {
			p.running = append(p.running, name)
		}
	}
	if r := ev.Receipt; r != nil {
		if i := slices.Index(p.running, r.Tool); i >= 0 {
			p.running = slices.Delete(p.running, i, i+1)
		}
		if r.Planner == string(investigate.ModeLLM) {
			p.mode = investigate.ModeLLM
		}
		p.receipts = append(p.receipts, *r)
		if len(p.receipts) > maxProgressReceipts {
			n := len(p.receipts) - maxProgressReceipts
			p.receipts = slices.Delete(p.receipts, 0, n)
			p.dropped += n
		}
	}
	if ev.Hypothesis != "" {
		p.hypothesis = ev.Hypothesis
	}
	if ev.Band != "" {
		p.band = ev.Band
	}
}

// message renders the current state.
func (p *progress) message() (render.Message, error) {
	p.mu.Lock()
	steps := render.StepsFromReceipts(p.receipts)
	for _, name := range p.running {
		steps = append(steps, render.Step{Label: toolLabel(name), Status: render.StepRunning})
	}
	pr := render.Progress{
		Title:      p.title,
		Trigger:    p.trigger,
		Steps:      steps,
		Hypothesis: p.hypothesis,
		Band:       p.band,
		Elapsed:    p.now().Sub(p.started),
		Mode:       p.mode,
		Action:     p.action,
	}
	p.mu.Unlock()
	return render.ProgressMessage(pr)
}

// toolLabel names a running tool call: "traces_search_errors" becomes
// "Traces: search errors…".
func toolLabel(tool string) string {
	family, rest, ok := strings.Cut(tool, "_")
	if !ok || rest == "" {
		return strings.ReplaceAll(tool, "_", " ") + "…"
	}
	return render.FamilyLabel(investigate.Family(family)) + ": " + strings.ReplaceAll(rest, "_", " ") + "…"
}
