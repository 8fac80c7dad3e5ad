// Package investigate is AutoHeal's investigation engine: it gathers evidence
// from the configured backends (capabilities), records every tool call in a
// ledger, classifies the incident into one of four buckets and grants a
// confidence band that the evidence has earned. It knows nothing of Slack.
package investigate

import (
	"encoding/json"
	"time"
)

// Trigger says what started an investigation.
type Trigger string

const (
	TriggerMention Trigger = "mention"
	TriggerAlert   Trigger = "alert"
	TriggerCLI     Trigger = "cli"
)

// Issue is what to investigate.
type Issue struct {
	Text        string            `json:"text"`
	Service     string            `json:"service,omitempty"`   // hinted service (config or alert labels)
	Namespace   string            `json:"namespace,omitempty"` // hinted namespace
	Pod         string            `json:"pod,omitempty"`
	Start       time.Time         `json:"start"`              // window start
	End         time.Time         `json:"end"`                // window end; also the engine's clock
	Trigger     Trigger           `json:"trigger"`            // mention | alert | cli
	FiredAt     time.Time         `json:"fired_at,omitempty"` // earliest alert startsAt
	Key         string            `json:"key,omitempty"`      // stable issue key (alerts)
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Repo        string            `json:"repo,omitempty"` // owner/name
	Ref         string            `json:"ref,omitempty"`
	// LogServiceLabel is the Loki label naming the service (default service_name).
	LogServiceLabel string `json:"log_service_label,omitempty"`
}

// WithSettings fills what the issue does not say (service, namespace,
// repository, ref, log service label) from the settings setting returns
// (service_name, namespace, repo, ref, log_service_label).
func (i Issue) WithSettings(setting func(key string) string) Issue {
	fill := func(v *string, key string) {
		if *v == "" {
			*v = setting(key)
		}
	}
	fill(&i.Service, "service_name")
	fill(&i.Namespace, "namespace")
	fill(&i.Repo, "repo")
	fill(&i.Ref, "ref")
	fill(&i.LogServiceLabel, "log_service_label")
	return i
}

// Family is a backend family.
type Family string

const (
	FamilyTraces  Family = "traces"
	FamilyLogs    Family = "logs"
	FamilyMetrics Family = "metrics"
	FamilyChanges Family = "changes"
	FamilySource  Family = "source"
	FamilyK8s     Family = "k8s"
	FamilyMCP     Family = "mcp"
	FamilyIssue   Family = "issue" // the trigger itself (alert labels, mention text)
)

// Band is a confidence band.
type Band string

const (
	BandLow    Band = "LOW"
	BandMedium Band = "MEDIUM"
	BandHigh   Band = "HIGH"
)

// Rank orders bands: LOW < MEDIUM < HIGH. Unknown values rank as LOW.
func (b Band) Rank() int {
	switch b {
	case BandHigh:
		return 2
	case BandMedium:
		return 1
	default:
		return 0
	}
}

// AtLeast reports whether b is at or above min.
func (b Band) AtLeast(min Band) bool { return b.Rank() >= min.Rank() }

// ParseBand maps a case-insensitive name to a Band; ok is false for unknown names.
func ParseBand(s string) (Band, bool) {
	switch s {
	case "HIGH", "high", "High":
		return BandHigh, true
	case "MEDIUM", "medium", "Medium":
		return BandMedium, true
	case "LOW", "low", "Low":
		return BandLow, true
	}
	return BandLow, false
}

// Bucket classifies an incident; it decides what may be proposed.
type Bucket string

const (
	BucketCodeBug        Bucket = "code_bug"
	BucketInfrastructure Bucket = "infrastructure"
	BucketBadData        Bucket = "bad_data"
	BucketFlake          Bucket = "flake"
	BucketUnknown        Bucket = "unknown"
)

// ErrorType is the canonical error family of a root cause.
type ErrorType string

const (
	ErrNullPointer        ErrorType = "null_pointer"
	ErrRuntime            ErrorType = "runtime_error"
	ErrRace               ErrorType = "race_condition"
	ErrOOM                ErrorType = "oom"
	ErrTLS                ErrorType = "tls"
	ErrNetwork            ErrorType = "network"
	ErrTimeout            ErrorType = "timeout"
	ErrConfig             ErrorType = "config"
	ErrResourceExhaustion ErrorType = "resource_exhaustion"
	ErrDataValidation     ErrorType = "data_validation"
	ErrDependency         ErrorType = "dependency"
	ErrUnknown            ErrorType = "unknown"
)

// FindingKind names what a finding is.
type FindingKind string

const (
	KindErrorSpan         FindingKind = "error_span"
	KindException         FindingKind = "exception"
	KindLogPattern        FindingKind = "log_pattern"
	KindMetricAnomaly     FindingKind = "metric_anomaly"
	KindChangeCorrelation FindingKind = "change_correlation"
	KindSourceAnchor      FindingKind = "source_anchor"
	KindK8sEvent          FindingKind = "k8s_event"
	KindManifest          FindingKind = "manifest" // a deployment manifest setting tied to the cause
	// KindCallEdge records that Peer calls Service (Count calls seen); it lets
	// the engine tell victims from culprits. Not shown as evidence.
	KindCallEdge FindingKind = "call_edge"
	// KindInventory names a service a backend knows (it may have no
	// failure): it lets names in alerts and proxy logs be resolved.
	KindInventory FindingKind = "inventory"
)

// Frame is one stack frame as the runtime printed it.
type Frame struct {
	File     string `json:"file"`               // path as printed (/app/main.go, AdService.java)
	Line     int    `json:"line,omitempty"`     // 1-based
	Function string `json:"function,omitempty"` // qualified function or method
	Module   string `json:"module,omitempty"`   // Java package / Go import path, when known
}

// Finding is a structured conclusion drawn from one tool call. Never prose
// reasoning: every field is something the evidence shows.
type Finding struct {
	Kind      FindingKind `json:"kind"`
	Family    Family      `json:"family"`
	Service   string      `json:"service,omitempty"`
	File      string      `json:"file,omitempty"`
	Line      int         `json:"line,omitempty"`
	Function  string      `json:"function,omitempty"`
	ErrorType ErrorType   `json:"error_type,omitempty"`
	Exception string      `json:"exception,omitempty"` // runtime's error type, e.g. java.lang.NullPointerException
	Signature string      `json:"signature,omitempty"` // fingerprint id that matched
	Time      time.Time   `json:"time,omitempty"`      // first seen
	LastTime  time.Time   `json:"last_time,omitempty"` // last seen
	Count     int         `json:"count,omitempty"`
	Quote     string      `json:"quote,omitempty"` // a short quote of the evidence
	Frames    []Frame     `json:"frames,omitempty"`
	// Peer is the other side of a failed call: the callee for client-side
	// errors (connection refused, UNAVAILABLE), the caller for server spans.
	Peer  string            `json:"peer,omitempty"`
	Attrs map[string]string `json:"attrs,omitempty"`
	// Series is the metric series behind a metric finding (a change point,
	// an error ratio, memory against its limit), thinned to at most
	// MaxSeriesPoints. It lives in memory only: the result's Chart takes
	// the one that supports the conclusion; receipts, prompts and stored
	// results do not carry it.
	Series []Sample `json:"-"`
}

// Sample is one point of a metric series.
type Sample struct {
	T time.Time `json:"t"`
	V float64   `json:"v"`
}

// ErrorKind classifies a failed tool call.
type ErrorKind string

const (
	ErrKindNotConfigured ErrorKind = "not_configured"
	ErrKindUnreachable   ErrorKind = "unreachable"
	ErrKindTimeout       ErrorKind = "timeout"
	ErrKindUnauthorized  ErrorKind = "unauthorized" // 401
	ErrKindForbidden     ErrorKind = "forbidden"    // 403
	ErrKindNotFound      ErrorKind = "not_found"
	ErrKindRateLimited   ErrorKind = "rate_limited"
	ErrKindBadResponse   ErrorKind = "bad_response" // malformed or unexpected body
	ErrKindTooLarge      ErrorKind = "too_large"
	ErrKindServer        ErrorKind = "server_error"
	ErrKindInvalidArgs   ErrorKind = "invalid_args"
	ErrKindToolError     ErrorKind = "tool_error" // the tool reported an error (e.g. MCP IsError)
)

// Receipt records one tool call.
type Receipt struct {
	Seq       int            `json:"seq"`
	Family    Family         `json:"family"`
	Tool      string         `json:"tool"`
	Args      map[string]any `json:"args,omitempty"` // secrets redacted
	OK        bool           `json:"ok"`
	ErrorKind ErrorKind      `json:"error_kind,omitempty"`
	Error     string         `json:"error,omitempty"`
	Started   time.Time      `json:"started"`
	Duration  time.Duration  `json:"duration_ns"`
	Summary   string         `json:"summary,omitempty"` // one line: what the call found
	Findings  []Finding      `json:"findings,omitempty"`
	Planner   string         `json:"planner,omitempty"` // deterministic | llm
	// Warning, on an OK receipt, says why its answer cannot be trusted (no
	// services, only the backend's own telemetry, a filter the server
	// ignored): the call worked, but "nothing found" may be wrong.
	Warning string `json:"warning,omitempty"`
	// Runbook names the runbook hint that asked for this call
	// (payments-timeouts.md#p99-latency), when one did.
	Runbook string `json:"runbook,omitempty"`
}

// Receipt statuses.
const (
	StatusOK      = "ok"
	StatusWarning = "warning" // answered, but the answer is not trustworthy
	StatusError   = "error"
)

// Status is ok, warning (an OK call whose answer cannot be right) or error.
func (r Receipt) Status() string {
	switch {
	case !r.OK:
		return StatusError
	case r.Warning != "":
		return StatusWarning
	}
	return StatusOK
}

// RootCause is the diagnosis.
type RootCause struct {
	Description string    `json:"description"`
	Service     string    `json:"service"`
	File        string    `json:"file,omitempty"` // repo-relative path
	Line        int       `json:"line,omitempty"`
	Function    string    `json:"function,omitempty"`
	ErrorType   ErrorType `json:"error_type"`
	Bucket      Bucket    `json:"bucket"`
	// RawConfidence is the planner's own estimate in [0,1], before the governor.
	RawConfidence float64 `json:"raw_confidence"`
	// ClaimedBand is the band the planner asked for; Band is what the
	// governor granted from the receipts.
	ClaimedBand Band `json:"claimed_band"`
	Band        Band `json:"band"`
}

// Patch is a suggested code change against one file at the investigated ref.
type Patch struct {
	File string `json:"file"`
	Ref  string `json:"ref,omitempty"`
	// Diff is a unified diff (---/+++ headers, @@ hunks).
	Diff string `json:"diff"`
	// Explanation says what the change does, in one or two sentences.
	Explanation string `json:"explanation,omitempty"`
}

// ManifestEdit is a surgical change to one value in a YAML manifest or Helm values file.
type ManifestEdit struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Path     string `json:"path"` // e.g. spec.template.spec.containers[cart].resources.limits.memory
	OldValue string `json:"old_value"`
	NewValue string `json:"new_value"`
	Reason   string `json:"reason,omitempty"`
	// Op is how NewValue is written: "" replaces the scalar OldValue;
	// EditAppend adds NewValue as an item of the sequence at Path (a verb
	// to a Role's rule); EditAdd adds the key that ends Path, with the
	// value NewValue, to the mapping that Line and the rest of Path name
	// (requests an autoscaler needs, a key a ConfigMap lacks).
	Op string `json:"op,omitempty"`
	// Repo and Ref name the repository that deploys the workload when it is
	// not the investigation's (a GitOps target); empty means the same.
	Repo string `json:"repo,omitempty"`
	Ref  string `json:"ref,omitempty"`
}

// Manifest edit operations (ManifestEdit.Op).
const (
	EditAppend = "append"
	EditAdd    = "add"
)

// FlakeReport describes a non-deterministic failure.
type FlakeReport struct {
	Frequency  string `json:"frequency"`  // e.g. "3 of 412 requests (0.7%) in 60m"
	Conditions string `json:"conditions"` // what the failing calls share
	FirstSeen  time.Time
	LastSeen   time.Time
}

// Fix is the recommended fix. Which fields are set depends on the bucket:
// code bugs get a Patch and a RegressionTest, infrastructure a ManifestEdit or
// an operator action, bad data a Remediation with AffectedRecords, flakes a
// FlakeReport. Never a code patch for anything but a code bug.
type Fix struct {
	Summary         string        `json:"summary"`
	Steps           []string      `json:"steps,omitempty"`
	Patch           *Patch        `json:"patch,omitempty"`
	ManifestEdit    *ManifestEdit `json:"manifest_edit,omitempty"`
	RegressionTest  string        `json:"regression_test,omitempty"`
	Remediation     string        `json:"remediation,omitempty"`
	AffectedRecords []string      `json:"affected_records,omitempty"`
	Flake           *FlakeReport  `json:"flake,omitempty"`
}

// Unavailable says why a family could not be used.
type Unavailable struct {
	Family Family    `json:"family"`
	Kind   ErrorKind `json:"kind"`
	Reason string    `json:"reason"`
}

// Usage is LLM token and cost accounting.
type Usage struct {
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	CostUSD          float64 `json:"cost_usd,omitempty"`
	Model            string  `json:"model,omitempty"`
}

// Mode names the planner that produced a result.
type Mode string

const (
	ModeDeterministic Mode = "deterministic"
	ModeLLM           Mode = "llm"
)

// HealResult is the answer of an investigation.
type HealResult struct {
	Summary          string        `json:"summary"`
	RootCause        RootCause     `json:"root_cause"`
	Evidence         []Finding     `json:"evidence"`
	Fix              Fix           `json:"fix"`
	Timeline         []Receipt     `json:"timeline"`
	ToolsUsed        []string      `json:"tools_used"`
	ToolsUnavailable []Unavailable `json:"tools_unavailable"`
	ConfidenceNote   string        `json:"confidence_note"`
	Mode             Mode          `json:"mode"`
	ModeNote         string        `json:"mode_note,omitempty"` // e.g. why the LLM was not used
	// Alternatives are conclusions the receipts also support that the
	// result does not lead with (the other planner's reading).
	Alternatives []Alternative `json:"alternatives,omitempty"`
	// Runbooks names the runbooks of the library that applied.
	Runbooks []string      `json:"runbooks,omitempty"`
	Usage    *Usage        `json:"usage,omitempty"`
	Started  time.Time     `json:"started"`
	Wall     time.Duration `json:"wall_ns"`
	IssueKey string        `json:"issue_key,omitempty"`
	Repo     string        `json:"repo,omitempty"`
	Ref      string        `json:"ref,omitempty"`
	// NeedsHuman says the evidence does not separate the root cause from
	// the Alternatives (close scores, or evidence for two buckets): the
	// band is at most MEDIUM and no pull request is offered; a person
	// decides. NeedsHumanReason says why in one line.
	NeedsHuman       bool   `json:"needs_human,omitempty"`
	NeedsHumanReason string `json:"needs_human_reason,omitempty"`
	// Deploy is where the workload at fault is deployed from (GitOps
	// target resolution), when Kubernetes state was read.
	Deploy *DeployTarget `json:"deploy,omitempty"`
	// Chart is the metric series that supports the conclusion, to be drawn
	// next to the result; nil when no metric of the blamed service moved
	// at the onset (no chart rather than a misleading one).
	Chart *EvidenceChart `json:"chart,omitempty"`
}

// ToolCalls is the number of tool calls the result is based on.
func (r *HealResult) ToolCalls() int { return len(r.Timeline) }

// Alternative is a competing conclusion drawn from the same receipts.
type Alternative struct {
	RootCause RootCause `json:"root_cause"`
	// Planner is the planner that concluded it.
	Planner Mode `json:"planner"`
	// Note says why the result does not lead with it.
	Note string `json:"note,omitempty"`
	// Evidence is what supports this reading (when it differs from the
	// root cause's).
	Evidence []Finding `json:"evidence,omitempty"`
}

// Contested reports an alternative as well supported as the root cause:
// both are shown and no fix is offered for approval until a human
// decides.
func (r *HealResult) Contested() bool {
	if r.NeedsHuman {
		return true
	}
	for _, a := range r.Alternatives {
		if a.RootCause.Band.Rank() >= r.RootCause.Band.Rank() {
			return true
		}
	}
	return false
}

// ToolSpec describes one tool for planners: the deterministic engine calls it
// by name and so does the LLM, with the same JSON arguments.
type ToolSpec struct {
	Name        string          `json:"name"`
	Family      Family          `json:"family"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // JSON schema of the arguments object
}
