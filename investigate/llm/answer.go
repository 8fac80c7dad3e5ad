package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/autoheal/autoheal/investigate"
)

// answer is the model's final answer (the JSON schema below).
type answer struct {
	Summary   string `json:"summary"`
	RootCause struct {
		Description string  `json:"description"`
		Service     string  `json:"service"`
		File        string  `json:"file"`
		Line        flexInt `json:"line"`
		Function    string  `json:"function"`
		ErrorType   string  `json:"error_type"`
		Bucket      string  `json:"bucket"`
	} `json:"root_cause"`
	Confidence    json.RawMessage   `json:"confidence"`
	RawConfidence flexFloat         `json:"raw_confidence"`
	Evidence      []json.RawMessage `json:"evidence"`
	Fix           struct {
		Summary string   `json:"summary"`
		Steps   []string `json:"steps"`
		Patch   *struct {
			File        string `json:"file"`
			Diff        string `json:"diff"`
			Explanation string `json:"explanation"`
		} `json:"patch"`
		ManifestEdit *struct {
			File     string  `json:"file"`
			Line     flexInt `json:"line"`
			Path     string  `json:"path"`
			OldValue string  `json:"old_value"`
			NewValue string  `json:"new_value"`
			Reason   string  `json:"reason"`
		} `json:"manifest_edit"`
		RegressionTest  string   `json:"regression_test"`
		Remediation     string   `json:"remediation"`
		AffectedRecords []string `json:"affected_records"`
	} `json:"fix"`

	// Derived by parseAnswer.
	claimed investigate.Band
	raw     float64
	refs    []string
}

// flexInt accepts 58, "58", 58.0 and null.
type flexInt int

func (n *flexInt) UnmarshalJSON(b []byte) error {
	s := strings.Trim(strings.TrimSpace(string(b)), `"`)
	if s == "" || s == "null" {
		*n = 0
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("want a line number, got %s", truncate(string(b), 40))
	}
	*n = flexInt(int(f))
	return nil
}

// flexFloat accepts 0.8, "0.8" and null.
type flexFloat float64

func (n *flexFloat) UnmarshalJSON(b []byte) error {
	s := strings.Trim(strings.TrimSpace(string(b)), `"`)
	if s == "" || s == "null" {
		*n = 0
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("want a number, got %s", truncate(string(b), 40))
	}
	*n = flexFloat(f)
	return nil
}

var (
	errEmptyAnswer = errors.New("the answer is empty")
	errNoJSON      = errors.New("the answer holds no JSON object")
)

var bucketNames = []string{string(investigate.BucketCodeBug), string(investigate.BucketInfrastructure),
	string(investigate.BucketBadData), string(investigate.BucketFlake), string(investigate.BucketUnknown)}

var errorTypeNames = []string{"null_pointer", "runtime_error", "race_condition", "oom", "tls", "network", "timeout",
	"config", "resource_exhaustion", "data_validation", "dependency", "unknown"}

// maxAnswerBytes bounds the content parsed as an answer.
const maxAnswerBytes = 256 << 10

// parseAnswer extracts and validates the answer from a model message:
// code fences and prose around the object are tolerated, the enums and the
// confidence are checked. The error says what to repair.
func parseAnswer(content string) (*answer, error) {
	s := strings.TrimSpace(content)
	if s == "" {
		return nil, errEmptyAnswer
	}
	if len(s) > maxAnswerBytes {
		return nil, fmt.Errorf("the answer is longer than %d bytes", maxAnswerBytes)
	}
	i := strings.IndexByte(s, '{')
	if i < 0 {
		return nil, errNoJSON
	}
	var a answer
	dec := json.NewDecoder(bytes.NewReader([]byte(s[i:])))
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("the answer is not valid JSON: %s", truncate(err.Error(), 200))
	}
	rc := &a.RootCause
	rc.Service = strings.TrimSpace(rc.Service)
	rc.File = strings.TrimSpace(rc.File)
	if strings.EqualFold(rc.File, "null") || strings.EqualFold(rc.File, "none") || strings.EqualFold(rc.File, "n/a") {
		rc.File = ""
	}
	var problems []string
	if rc.Service == "" {
		problems = append(problems, "root_cause.service is empty")
	}
	rc.ErrorType = enumValue(rc.ErrorType)
	if !contains(errorTypeNames, rc.ErrorType) {
		problems = append(problems, fmt.Sprintf("root_cause.error_type %q is not one of %s", truncate(rc.ErrorType, 40), strings.Join(errorTypeNames, ", ")))
	}
	rc.Bucket = enumValue(rc.Bucket)
	if !contains(bucketNames, rc.Bucket) {
		problems = append(problems, fmt.Sprintf("root_cause.bucket %q is not one of %s", truncate(rc.Bucket, 40), strings.Join(bucketNames, ", ")))
	}
	if strings.TrimSpace(rc.Description) == "" {
		rc.Description = a.Summary
	}
	if strings.TrimSpace(rc.Description) == "" {
		problems = append(problems, "root_cause.description is empty")
	}
	if rc.Line < 0 {
		rc.Line = 0
	}
	a.raw = min(max(float64(a.RawConfidence), 0), 1)
	band, ok := parseConfidence(a.Confidence)
	switch {
	case ok:
		a.claimed = band
	case len(bytes.TrimSpace(a.Confidence)) > 0 && a.Confidence[0] != '"' && string(a.Confidence) != "null":
		// A number in [0,1] given as the confidence.
		var f float64
		if err := json.Unmarshal(a.Confidence, &f); err == nil && f >= 0 && f <= 1 {
			a.raw = f
			a.claimed = investigate.ClaimFromRaw(f)
		} else {
			problems = append(problems, "confidence must be LOW, MEDIUM or HIGH")
		}
	case a.RawConfidence > 0:
		a.claimed = investigate.ClaimFromRaw(a.raw)
	default:
		problems = append(problems, "confidence must be LOW, MEDIUM or HIGH")
	}
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "; "))
	}
	if a.raw == 0 {
		a.raw = map[investigate.Band]float64{investigate.BandHigh: 0.85, investigate.BandMedium: 0.65, investigate.BandLow: 0.35}[a.claimed]
	}
	for _, e := range a.Evidence {
		var id string
		if json.Unmarshal(e, &id) != nil {
			var obj struct {
				ID string `json:"id"`
			}
			if json.Unmarshal(e, &obj) != nil {
				continue
			}
			id = obj.ID
		}
		if id = strings.TrimSpace(id); id != "" && len(a.refs) < 32 {
			a.refs = append(a.refs, id)
		}
	}
	return &a, nil
}

func parseConfidence(raw json.RawMessage) (investigate.Band, bool) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return investigate.BandLow, false
	}
	return investigate.ParseBand(strings.ToUpper(strings.TrimSpace(s)))
}

// enumValue normalizes "Code Bug", "code-bug" and "CODE_BUG" to code_bug.
func enumValue(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.NewReplacer(" ", "_", "-", "_").Replace(s)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// answerSchema is the response_format JSON schema (strict mode: every
// property required, optional values nullable).
func answerSchema() json.RawMessage {
	str := map[string]any{"type": "string"}
	nullStr := map[string]any{"type": []string{"string", "null"}}
	nullInt := map[string]any{"type": []string{"integer", "null"}}
	strs := map[string]any{"type": "array", "items": str}
	obj := func(props map[string]any) map[string]any {
		req := make([]string, 0, len(props))
		for k := range props {
			req = append(req, k)
		}
		sort.Strings(req)
		return map[string]any{"type": "object", "additionalProperties": false, "properties": props, "required": req}
	}
	nullable := func(o map[string]any) map[string]any {
		return map[string]any{"anyOf": []any{o, map[string]any{"type": "null"}}}
	}
	s := obj(map[string]any{
		"summary": map[string]any{"type": "string", "description": "one sentence for the incident channel"},
		"root_cause": obj(map[string]any{
			"description": str,
			"service":     map[string]any{"type": "string", "description": "the service whose defect or configuration is the root cause"},
			"file":        map[string]any{"type": []string{"string", "null"}, "description": "repository path you read with source_read or source_manifests"},
			"line":        nullInt,
			"function":    nullStr,
			"error_type":  map[string]any{"type": "string", "enum": errorTypeNames},
			"bucket":      map[string]any{"type": "string", "enum": bucketNames},
		}),
		"confidence":     map[string]any{"type": "string", "enum": []string{"LOW", "MEDIUM", "HIGH"}},
		"raw_confidence": map[string]any{"type": "number", "description": "your own estimate in [0,1]"},
		"evidence":       map[string]any{"type": "array", "items": str, "description": "ids of the findings the answer relies on (F<call>.<n>)"},
		"fix": obj(map[string]any{
			"summary":          str,
			"steps":            strs,
			"patch":            nullable(obj(map[string]any{"file": str, "diff": map[string]any{"type": "string", "description": "unified diff"}, "explanation": str})),
			"manifest_edit":    nullable(obj(map[string]any{"file": str, "line": map[string]any{"type": "integer"}, "path": str, "old_value": str, "new_value": str, "reason": str})),
			"regression_test":  nullStr,
			"remediation":      nullStr,
			"affected_records": strs,
		}),
	})
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("answer schema: %v", err)) // a literal: a failure is a programming error
	}
	return b
}

// answerFormatText describes the answer for servers without response_format.
const answerFormatText = `{"summary": str, "root_cause": {"description": str, "service": str, "file": str|null, "line": int|null, "function": str|null, "error_type": one of null_pointer|runtime_error|race_condition|oom|tls|network|timeout|config|resource_exhaustion|data_validation|dependency|unknown, "bucket": code_bug|infrastructure|bad_data|flake|unknown}, "confidence": "LOW"|"MEDIUM"|"HIGH", "raw_confidence": number 0..1, "evidence": [finding ids], "fix": {"summary": str, "steps": [str], "patch": {"file","diff","explanation"}|null, "manifest_edit": {"file","line","path","old_value","new_value","reason"}|null, "regression_test": str|null, "remediation": str|null, "affected_records": [str]}}`
