package render

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/autoheal/autoheal/investigate"
)

// StepStatus is the state of one step of an investigation.
type StepStatus string

const (
	StepRunning StepStatus = "running"
	StepOK      StepStatus = "ok"
	StepWarning StepStatus = "warning" // answered, but the answer is not trustworthy
	StepFailed  StepStatus = "failed"
	StepSkipped StepStatus = "skipped"
)

// Step is one line of the progress list.
type Step struct {
	Label  string // "Traces: 12 error traces in ad"
	Detail string // "1.2s", or the failure reason ("timed out")
	Status StepStatus
}

// Progress is what the live investigation message shows. The bot re-renders
// it and calls chat.update as tool calls complete.
type Progress struct {
	Title      string // the issue text
	Trigger    investigate.Trigger
	Steps      []Step
	Hypothesis string // one line, may be empty
	Band       investigate.Band
	Elapsed    time.Duration
	Mode       investigate.Mode
	// Action, when set, adds a Configure button so a missing credential can
	// be supplied while the investigation waits.
	Action *ActionValue
}

// Progress message budgets.
const (
	progressTitleMax = 300
	progressSteps    = 12 // lines shown; older ones are summarised
	stepLabelMax     = 160
	stepDetailMax    = 100
	hypothesisMax    = 400
)

// StepsFromReceipts turns completed tool calls into progress lines, in call
// order: "Traces: 12 error traces in ad" with the duration, or the short
// failure reason ("timed out", "401 unauthorized").
func StepsFromReceipts(rs []investigate.Receipt) []Step {
	sorted := append([]investigate.Receipt(nil), rs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Seq < sorted[j].Seq })
	steps := make([]Step, 0, len(sorted))
	for _, r := range sorted {
		steps = append(steps, stepFromReceipt(r))
	}
	return steps
}

func stepFromReceipt(r investigate.Receipt) Step {
	what := oneLine(bound(r.Summary, boundFor(stepLabelMax)))
	if what == "" {
		what = oneLine(bound(r.Tool, boundFor(stepLabelMax)))
	}
	if what == "" {
		what = "call"
	}
	s := Step{Label: FamilyLabel(r.Family) + ": " + what}
	if r.OK && r.Warning != "" {
		s.Status = StepWarning
		s.Detail = r.Warning
		return s
	}
	if r.OK {
		s.Status = StepOK
		s.Detail = FormatDuration(r.Duration)
		return s
	}
	s.Status = StepFailed
	s.Detail = ErrorKindLabel(r.ErrorKind)
	// The kind alone says little for generic failures: add the message.
	switch r.ErrorKind {
	case "", investigate.ErrKindToolError, investigate.ErrKindBadResponse, investigate.ErrKindInvalidArgs:
		if msg := oneLine(bound(r.Error, boundFor(stepDetailMax))); msg != "" {
			s.Detail += ": " + msg
		}
	}
	if r.Summary == "" && r.Tool != "" {
		s.Label = FamilyLabel(r.Family) + ": " + oneLine(bound(r.Tool, boundFor(stepLabelMax)))
	}
	return s
}

func stepIcon(s StepStatus) string {
	switch s {
	case StepOK:
		return "✓"
	case StepWarning:
		return "⚠"
	case StepFailed:
		return "✗"
	case StepSkipped:
		return "–"
	default:
		return "⏳"
	}
}

func stepLine(s Step) string {
	line := stepIcon(s.Status) + " " + escLine(s.Label, stepLabelMax)
	if d := oneLine(s.Detail); d != "" {
		sep := " · "
		if s.Status == StepFailed || s.Status == StepWarning {
			sep = " — "
		}
		line += sep + escRaw(d, stepDetailMax)
	}
	return line
}

// stepLines renders at most max lines: when there are more steps, the oldest
// are summarised in one line so the newest stay visible.
func stepLines(steps []Step, max int) []string {
	if len(steps) == 0 {
		return []string{"⏳ Starting…"}
	}
	shown := steps
	var lines []string
	if len(steps) > max {
		hidden := steps[:len(steps)-(max-1)]
		shown = steps[len(steps)-(max-1):]
		ok, failed := 0, 0
		for _, s := range hidden {
			switch s.Status {
			case StepOK, StepWarning:
				ok++
			case StepFailed:
				failed++
			}
		}
		lines = append(lines, fmt.Sprintf("_… %s earlier: %d ✓, %d ✗_", plural(len(hidden), "step", "steps"), ok, failed))
	}
	for _, s := range shown {
		lines = append(lines, stepLine(s))
	}
	return lines
}

// ProgressMessage renders the live investigation message. It fails only when
// p.Action is set and invalid.
func ProgressMessage(p Progress) (Message, error) {
	title := escLine(p.Title, progressTitleMax)
	if title == "" {
		title = "_(no description)_"
	}
	icon := ":mag:"
	if p.Trigger == investigate.TriggerAlert {
		icon = ":rotating_light:"
	}
	blocks := []slack.Block{
		section(icon + " *Investigating:* " + title),
	}
	for _, chunk := range packLines(stepLines(p.Steps, progressSteps), sectionBudget) {
		blocks = append(blocks, section(chunk))
	}
	if h := escLine(p.Hypothesis, hypothesisMax); h != "" {
		blocks = append(blocks, section("*Current hypothesis:* "+h))
	}
	blocks = append(blocks, contextBlock(
		"Confidence so far: "+Badge(p.Band),
		FormatDuration(p.Elapsed)+" elapsed",
		ModeLabel(p.Mode),
	))
	if p.Action != nil {
		v, err := p.Action.Encode()
		if err != nil {
			return Message{}, fmt.Errorf("progress message: %w", err)
		}
		blocks = append(blocks, slack.NewActionBlock("", button(ActionConfigure, "Configure", v)))
	}
	done, failed := 0, 0
	for _, s := range p.Steps {
		switch s.Status {
		case StepOK, StepWarning:
			done++
		case StepFailed:
			failed++
		}
	}
	text := fmt.Sprintf("Investigating: %s (%d done, %d failed, %s)", escLine(p.Title, 200), done, failed, FormatDuration(p.Elapsed))
	return Message{Text: text, Blocks: blocks}, nil
}

// joinNonEmpty joins the non-empty parts with sep.
func joinNonEmpty(sep string, parts ...string) string {
	out := parts[:0:0]
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}
