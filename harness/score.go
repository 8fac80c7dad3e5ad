package harness

import (
	"path"
	"strings"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/scenario"
)

// Score is a result judged against the ground truth, as FORMAT.md defines.
type Score struct {
	Bucket    bool `json:"bucket"`
	Service   bool `json:"service"`
	ErrorType bool `json:"error_type"`
	// Location is scored only when the truth has a file.
	LocationScored bool `json:"location_scored"`
	Location       bool `json:"location"`
	RootCause      bool `json:"root_cause"`
	// HighWrong: HIGH confidence on a root cause that is not correct.
	HighWrong bool `json:"high_wrong"`
	// FixKeyword: the fix mentions one of the truth's fix keywords (informative).
	FixKeyword bool `json:"fix_keyword"`
}

// Judge scores a result.
func Judge(t scenario.Truth, r *investigate.HealResult) Score {
	rc := r.RootCause
	s := Score{
		Bucket:    string(rc.Bucket) == t.Bucket,
		Service:   strings.EqualFold(strings.TrimSpace(rc.Service), t.Service),
		ErrorType: string(rc.ErrorType) == t.ErrorType,
	}
	if t.File != "" {
		s.LocationScored = true
		s.Location = FileMatches(rc.File, t.File) && abs(rc.Line-t.Line) <= t.Tolerance()
	}
	s.RootCause = s.Bucket && s.Service && (!s.LocationScored || s.Location)
	s.HighWrong = rc.Band == investigate.BandHigh && !s.RootCause
	s.FixKeyword = len(t.FixKeywords) == 0 || mentionsAny(fixText(r), t.FixKeywords)
	return s
}

// FileMatches accepts the truth's repository path or a suffix of at least
// the file name and its parent directory.
func FileMatches(predicted, truth string) bool {
	p := strings.TrimPrefix(path.Clean("/"+predicted), "/")
	t := strings.TrimPrefix(path.Clean("/"+truth), "/")
	if p == "" || p == "." {
		return false
	}
	if p == t {
		return true
	}
	need := path.Base(path.Dir(t)) + "/" + path.Base(t)
	if path.Dir(t) == "." {
		need = path.Base(t)
	}
	return strings.HasSuffix(t, "/"+p) && strings.HasSuffix(p, need) || strings.HasSuffix(p, "/"+t)
}

func fixText(r *investigate.HealResult) string {
	parts := []string{r.Fix.Summary, r.Fix.RegressionTest, r.Fix.Remediation, strings.Join(r.Fix.Steps, " ")}
	if r.Fix.Patch != nil {
		parts = append(parts, r.Fix.Patch.Diff, r.Fix.Patch.Explanation)
	}
	if r.Fix.ManifestEdit != nil {
		m := r.Fix.ManifestEdit
		parts = append(parts, m.Path, m.OldValue, m.NewValue, m.Reason)
	}
	return strings.ToLower(strings.Join(parts, " "))
}

func mentionsAny(text string, kws []string) bool {
	for _, k := range kws {
		if strings.Contains(text, strings.ToLower(k)) {
			return true
		}
	}
	return false
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
