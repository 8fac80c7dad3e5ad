package investigate

import (
	"fmt"
	"sort"
	"strings"
)

// RunbookLibrary is an operator's library of runbooks (package runbooks):
// markdown guidance that applies to some incidents, with read-only queries
// worth running when it does. The engine asks it which runbooks apply;
// it never runs anything the library has not validated.
type RunbookLibrary interface {
	// Match returns the runbooks that apply to the subject, in a stable
	// order, with their calls built for the subject's window.
	Match(RunbookSubject) []RunbookMatch
}

// RunbookSubject is what runbooks are matched against: the trigger (alert
// name and labels, the hinted service), and, once evidence exists, the
// service it points at and the bucket it falls in.
type RunbookSubject struct {
	Issue Issue
	// Services are services the evidence names (the leading hypothesis'),
	// besides the issue's hinted one.
	Services []string
	// Bucket is the incident's classification; empty before any evidence
	// (runbooks that require a bucket do not match then).
	Bucket Bucket
}

// AlertName is the alertname label of the trigger ("" for a mention).
func (s RunbookSubject) AlertName() string { return s.Issue.Labels["alertname"] }

// ServiceNames lists the subject's services, the issue's hints first: the
// hinted service, the service-naming alert labels, then the evidence's.
func (s RunbookSubject) ServiceNames() []string {
	var out []string
	if s.Issue.Service != "" {
		out = append(out, s.Issue.Service)
	}
	for _, k := range serviceLabels {
		if v := s.Issue.Labels[k]; v != "" {
			out = append(out, v)
		}
	}
	for _, v := range s.Services {
		if v != "" {
			out = append(out, v)
		}
	}
	return dedupe(out)
}

// serviceLabels are the alert labels that name a service.
var serviceLabels = []string{"service", "service_name", "app", "app_kubernetes_io_name", "container", "deployment", "k8s_deployment_name"}

// RunbookMatch is one runbook that applies.
type RunbookMatch struct {
	// Name is the runbook's file name (payments-timeouts.md).
	Name string
	// Title is its front matter's name, if any.
	Title string
	// Guidance is its body (investigation steps, known fixes): untrusted
	// text for the model, which fences and caps it.
	Guidance string
	// Calls are the read-only calls its tools: hints ask for (each names
	// the runbook in ToolCall.Runbook).
	Calls []ToolCall
}

// MaxRunbookCalls bounds the calls runbooks add to one investigation,
// whatever the library holds.
const MaxRunbookCalls = 6

// runbooksFor returns the runbooks that apply to the issue, given the
// receipts so far (nil: the trigger alone). With receipts, the leading
// hypothesis' service and its provisional bucket join the subject.
func (e *Engine) runbooksFor(issue Issue, receipts []Receipt) []RunbookMatch {
	lib := e.opts.Runbooks
	if lib == nil {
		return nil
	}
	subject := RunbookSubject{Issue: issue}
	if len(receipts) > 0 {
		ev := newEvidence(issue, receipts)
		if h := ev.best(); h != nil {
			res := e.Conclude(issue, receipts, ev, h)
			subject.Services, subject.Bucket = []string{res.RootCause.Service}, res.RootCause.Bucket
		}
	}
	return lib.Match(subject)
}

// Runbooks returns the runbooks of the engine's library that apply to the
// issue after the given receipts (the trigger alone when there are none),
// for a planner to give to its model.
func (e *Engine) Runbooks(issue Issue, receipts []Receipt) []RunbookMatch {
	return e.runbooksFor(NormalizeIssue(issue, e.opts.Now()), receipts)
}

// runbookCalls returns the calls of the matching runbooks that are not
// among done (tool and arguments) and whose tool is configured, up to
// what is left of MaxRunbookCalls.
func (e *Engine) runbookCalls(matches []RunbookMatch, done []Receipt) []ToolCall {
	seen := map[string]bool{}
	ran := 0
	for _, r := range done {
		seen[r.Tool+"\x00"+argsKey(r.Args)] = true
		if r.Runbook != "" {
			ran++
		}
	}
	var out []ToolCall
	for _, m := range matches {
		for _, c := range m.Calls {
			k := c.Tool + "\x00" + argsKey(c.Args)
			if seen[k] || !e.has(c.Tool) || ran+len(out) >= MaxRunbookCalls {
				continue
			}
			seen[k] = true
			out = append(out, c)
		}
	}
	return out
}

// argsKey is a stable text of tool arguments (after redaction, as receipts
// hold them).
func argsKey(args map[string]any) string {
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + "=" + fmt.Sprint(args[k]) + "\x00")
	}
	return b.String()
}

// RunbookNames lists the names of matches, in order, without repeats,
// after the names already in have.
func RunbookNames(have []string, matches ...[]RunbookMatch) []string {
	out := append([]string(nil), have...)
	seen := map[string]bool{}
	for _, n := range out {
		seen[n] = true
	}
	for _, ms := range matches {
		for _, m := range ms {
			if !seen[m.Name] {
				seen[m.Name] = true
				out = append(out, m.Name)
			}
		}
	}
	return out
}

// appliedRunbooks names the runbooks that applied to an investigation: to
// its trigger, to its evidence after the first round (earlier), and to its
// conclusion.
func (e *Engine) appliedRunbooks(issue Issue, res *HealResult, earlier []RunbookMatch) []string {
	lib := e.opts.Runbooks
	if lib == nil {
		return res.Runbooks
	}
	trigger := lib.Match(RunbookSubject{Issue: issue})
	final := lib.Match(RunbookSubject{Issue: issue, Services: []string{res.RootCause.Service}, Bucket: res.RootCause.Bucket})
	return RunbookNames(res.Runbooks, trigger, earlier, final)
}
