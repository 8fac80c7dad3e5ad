package openai

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
)

// Investigator is a scripted model that plays a sensible investigation
// policy on any scenario, so that planners can be measured without a real
// model. It reads the tool outputs in the conversation (the planner's
// fenced JSON blocks: {"call", "tool", "ok", "findings": [...]}), ranks
// services by the failures the findings show (origin exceptions weigh more
// than errors propagated from callees; OOM kills and probe failures beat
// the network errors they cause), then:
//   - calls source_read on the top application frame of a code bug and
//     source_manifests for an infrastructure cause (in parallel when both);
//   - answers with the root cause those findings support, claiming only
//     the band its own evidence count allows, and at most the band a
//     governor message asked for ("confidence at most MEDIUM").
//
// It is stateless: every answer is computed from the request alone.
type Investigator struct {
	// Overclaim makes every answer claim HIGH (exercises the governor).
	Overclaim bool
}

// Observed tool outputs, as the planner renders them.
type obsCall struct {
	Call     string       `json:"call"`
	Tool     string       `json:"tool"`
	OK       bool         `json:"ok"`
	Summary  string       `json:"summary"`
	Findings []obsFinding `json:"findings"`
}

type obsFinding struct {
	ID        string            `json:"id"`
	Kind      string            `json:"kind"`
	Service   string            `json:"service"`
	File      string            `json:"file"`
	Line      int               `json:"line"`
	Function  string            `json:"function"`
	ErrorType string            `json:"error_type"`
	Exception string            `json:"exception"`
	Signature string            `json:"signature"`
	Count     int               `json:"count"`
	Quote     string            `json:"quote"`
	Frames    []string          `json:"frames"`
	Peer      string            `json:"peer"`
	Attrs     map[string]string `json:"attrs"`
}

var dataBlockRE = regexp.MustCompile(`(?s)<<<DATA id=(\S+) source=(\S+)>>>\n(.*?)\n<<<END DATA id=(\S+)>>>`)

// observe parses every fenced tool output of the conversation.
func observe(req *ChatRequest) []obsCall {
	var out []obsCall
	for _, m := range req.Messages {
		if m.Role != "user" && m.Role != "tool" {
			continue
		}
		for _, g := range dataBlockRE.FindAllStringSubmatch(string(m.Content), -1) {
			if g[2] == "incident" || g[1] != g[4] {
				continue
			}
			var c obsCall
			if json.Unmarshal([]byte(g[3]), &c) == nil && c.Tool != "" {
				out = append(out, c)
			}
		}
	}
	return out
}

var infraTypes = map[string]bool{"oom": true, "tls": true, "config": true, "resource_exhaustion": true}

func bucketOf(errorType string) string {
	switch errorType {
	case "null_pointer", "runtime_error":
		return "code_bug"
	case "race_condition":
		return "flake"
	case "data_validation":
		return "bad_data"
	}
	return "infrastructure"
}

func familyOf(tool string) string {
	if i := strings.IndexByte(tool, '_'); i > 0 {
		return tool[:i]
	}
	return tool
}

var libraryRE = regexp.MustCompile(`node_modules|site-packages|/vendor/|/usr/lib|grpc|runtime/|java\.base|<anonymous>|internal/`)

// propagated says a finding reports a callee's failure rather than its own.
func propagated(f obsFinding) bool {
	q := strings.ToLower(f.Quote)
	if strings.Contains(q, "rpc error") || strings.Contains(q, "desc =") || strings.Contains(q, "13 internal") || strings.Contains(q, "status code 5") {
		return true
	}
	if len(f.Frames) > 0 {
		for _, fr := range f.Frames {
			if !libraryRE.MatchString(fr) {
				return false
			}
		}
		return true
	}
	return false
}

type candidate struct {
	service  string
	score    float64
	types    map[string]float64
	infra    map[string]float64 // infra error types seen in metrics/k8s
	families map[string]map[string]bool
	ids      map[string][]string
	frame    *obsFinding
}

// analyse ranks (service, error type) pairs by the weight of their findings.
func analyse(calls []obsCall) *candidate {
	cands := map[string]*candidate{}
	for _, c := range calls {
		if !c.OK {
			continue
		}
		fam := familyOf(c.Tool)
		for i := range c.Findings {
			f := c.Findings[i]
			if f.Service == "" || f.ErrorType == "" || f.ErrorType == "unknown" {
				continue
			}
			var w float64
			switch f.Kind {
			case "exception", "error_span":
				w = 3 * float64(min(max(f.Count, 1), 10))
			case "log_pattern":
				w = float64(min(max(f.Count, 1), 20))
			case "metric_anomaly", "k8s_event":
				w = 15
			default:
				continue
			}
			if propagated(f) {
				w *= 0.3
			}
			cd := cands[f.Service]
			if cd == nil {
				cd = &candidate{service: f.Service, types: map[string]float64{}, infra: map[string]float64{},
					families: map[string]map[string]bool{}, ids: map[string][]string{}}
				cands[f.Service] = cd
			}
			cd.score += w
			cd.types[f.ErrorType] += w
			if infraTypes[f.ErrorType] && (fam == "metrics" || fam == "k8s" || fam == "mcp") {
				cd.infra[f.ErrorType] += w
			}
			if cd.families[f.ErrorType] == nil {
				cd.families[f.ErrorType] = map[string]bool{}
			}
			cd.families[f.ErrorType][fam] = true
			cd.ids[f.ErrorType] = append(cd.ids[f.ErrorType], f.ID)
			if f.File != "" && f.Line > 0 && !propagated(f) && (cd.frame == nil || (cd.frame.Kind != "exception" && f.Kind == "exception")) {
				ff := f
				cd.frame = &ff
			}
		}
	}
	var best *candidate
	for _, cd := range cands {
		if best == nil || cd.score > best.score || (cd.score == best.score && cd.service < best.service) {
			best = cd
		}
	}
	return best
}

// errorType picks the candidate's error type: an infrastructure signal from
// metrics or Kubernetes explains the network errors it causes.
func (c *candidate) errorType() string {
	pick := func(m map[string]float64) string {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		best := ""
		for _, k := range keys {
			if best == "" || m[k] > m[best] {
				best = k
			}
		}
		return best
	}
	if t := pick(c.infra); t != "" {
		return t
	}
	return pick(c.types)
}

func sameFile(a, b string) bool {
	a, b = strings.TrimPrefix(path.Clean("/"+a), "/"), strings.TrimPrefix(path.Clean("/"+b), "/")
	return a == b || strings.HasSuffix(a, "/"+b) || strings.HasSuffix(b, "/"+a) || path.Base(a) == path.Base(b)
}

var atMostRE = regexp.MustCompile(`confidence at most (LOW|MEDIUM|HIGH)`)

// Reply implements Model.
func (iv Investigator) Reply(req *ChatRequest) Reply {
	calls := observe(req)
	cd := analyse(calls)
	mayCall := !req.ToolChoiceNone() && len(req.Tools) > 0
	if cd == nil {
		return Answer(unknownAnswer())
	}
	et := cd.errorType()
	bucket := bucketOf(et)
	var anchor, manifest *obsFinding
	manifestsRead := false
	for _, c := range calls {
		if c.Tool == "source_manifests" && c.OK {
			manifestsRead = true
		}
		for i := range c.Findings {
			f := &c.Findings[i]
			switch {
			case f.Kind == "source_anchor" && cd.frame != nil && sameFile(f.File, cd.frame.File) && abs(f.Line-cd.frame.Line) <= 3:
				anchor = f
			case f.Kind == "manifest" && manifestFits(et, f):
				manifest = f
			}
		}
	}
	if mayCall {
		var next []ToolCall
		if bucket != "infrastructure" && cd.frame != nil && anchor == nil && req.HasTool("source_read") && !alreadyCalled(req, calls, "source_read") {
			next = append(next, Call("source_read", map[string]any{"file": cd.frame.File, "line": cd.frame.Line, "service": cd.service}))
		}
		if bucket == "infrastructure" && !manifestsRead && req.HasTool("source_manifests") && !alreadyCalled(req, calls, "source_manifests") {
			next = append(next, Call("source_manifests", map[string]any{"service": cd.service}))
		}
		if len(next) > 0 {
			return Calls(next...)
		}
	}
	return Answer(iv.answer(req, cd, et, bucket, anchor, manifest))
}

// alreadyCalled reports a tool that answered successfully, or that was
// asked for twice already (no loops on a tool that keeps failing).
func alreadyCalled(req *ChatRequest, calls []obsCall, tool string) bool {
	for _, c := range calls {
		if c.Tool == tool && c.OK {
			return true
		}
	}
	n := 0
	for _, m := range req.Messages {
		for _, tc := range m.ToolCalls {
			if tc.Function.Name == tool {
				n++
			}
		}
	}
	return n >= 2
}

func manifestFits(errorType string, f *obsFinding) bool {
	field := f.Attrs["field"]
	switch errorType {
	case "oom", "resource_exhaustion":
		return field == "memory_limit"
	case "config":
		return field == "env_var" || field == "secret_key_ref"
	}
	return false
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

var bandRank = map[string]int{"LOW": 0, "MEDIUM": 1, "HIGH": 2}

func (iv Investigator) answer(req *ChatRequest, cd *candidate, et, bucket string, anchor, manifest *obsFinding) map[string]any {
	rc := map[string]any{"service": cd.service, "error_type": et, "bucket": bucket, "file": nil, "line": nil, "function": nil}
	var fams []string
	for f := range cd.families[et] {
		if f == "traces" || f == "logs" || f == "metrics" || f == "k8s" || f == "mcp" {
			fams = append(fams, f)
		}
	}
	sort.Strings(fams)
	ids := append([]string(nil), cd.ids[et]...)
	if len(ids) > 8 {
		ids = ids[:8]
	}
	fix := map[string]any{"summary": "", "steps": []string{}, "patch": nil, "manifest_edit": nil, "regression_test": nil, "remediation": nil, "affected_records": []string{}}
	where := cd.service
	anchored := false
	switch {
	case anchor != nil:
		rc["file"], rc["line"], anchored = anchor.File, anchor.Line, true
		if cd.frame != nil && cd.frame.Function != "" {
			rc["function"] = cd.frame.Function
		}
		ids = append(ids, anchor.ID)
		where = fmt.Sprintf("%s at %s:%d", cd.service, anchor.File, anchor.Line)
		fix["summary"] = fmt.Sprintf("Guard %s:%d against the missing value instead of dereferencing it, and handle the request without it.", anchor.File, anchor.Line)
		fix["steps"] = []string{fmt.Sprintf("Add a null/undefined check at %s:%d.", anchor.File, anchor.Line), "Deploy and watch the error rate return to baseline."}
		fix["regression_test"] = fmt.Sprintf("A unit test calling the code at %s:%d without the optional value, expecting no exception.", anchor.File, anchor.Line)
	case manifest != nil:
		rc["file"], rc["line"], anchored = manifest.File, manifest.Line, true
		ids = append(ids, manifest.ID)
		where = fmt.Sprintf("%s (%s = %s)", cd.service, manifest.Attrs["path"], manifest.Attrs["value"])
		fix["summary"] = fmt.Sprintf("Raise %s of %s in %s:%d.", manifest.Attrs["path"], cd.service, manifest.File, manifest.Line)
		fix["manifest_edit"] = map[string]any{"file": manifest.File, "line": manifest.Line, "path": manifest.Attrs["path"],
			"old_value": manifest.Attrs["value"], "new_value": doubled(manifest.Attrs["value"]), "reason": "the container is killed at its memory limit"}
		fix["steps"] = []string{"Apply the manifest change and roll the deployment.", "Watch restarts and memory against the new limit."}
	default:
		fix["summary"] = fmt.Sprintf("Investigate %s's %s failures.", cd.service, et)
	}
	claim := "LOW"
	switch {
	case anchored && len(fams) >= 2:
		claim = "HIGH"
	case anchored || len(fams) >= 2:
		claim = "MEDIUM"
	}
	if iv.Overclaim {
		claim = "HIGH"
	}
	for _, m := range req.Messages {
		if m.Role == "user" {
			if g := atMostRE.FindStringSubmatch(string(m.Content)); g != nil && bandRank[g[1]] < bandRank[claim] {
				claim = g[1]
			}
		}
	}
	quote := ""
	if cd.frame != nil {
		quote = cd.frame.Quote
	}
	rc["description"] = strings.TrimSpace(fmt.Sprintf("%s in %s. %s", strings.ReplaceAll(et, "_", " "), where, quote))
	raw := map[string]float64{"LOW": 0.4, "MEDIUM": 0.7, "HIGH": 0.9}[claim]
	return map[string]any{"summary": fmt.Sprintf("%s: %s in %s", bucket, et, cd.service), "root_cause": rc,
		"confidence": claim, "raw_confidence": raw, "evidence": ids, "fix": fix}
}

var quantityRE = regexp.MustCompile(`^(\d+)([A-Za-z]*)$`)

func doubled(v string) string {
	if g := quantityRE.FindStringSubmatch(strings.TrimSpace(v)); g != nil {
		var n int
		fmt.Sscan(g[1], &n)
		return fmt.Sprintf("%d%s", 2*n, g[2])
	}
	return v
}

func unknownAnswer() map[string]any {
	return map[string]any{"summary": "No failure found in the evidence.",
		"root_cause": map[string]any{"description": "No failure was found in the evidence.", "service": "unknown", "file": nil, "line": nil, "function": nil, "error_type": "unknown", "bucket": "unknown"},
		"confidence": "LOW", "raw_confidence": 0.1, "evidence": []string{},
		"fix": map[string]any{"summary": "Widen the window or configure more backends.", "steps": []string{}, "patch": nil, "manifest_edit": nil, "regression_test": nil, "remediation": nil, "affected_records": []string{}}}
}
