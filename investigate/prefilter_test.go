package investigate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The prefilter may only rule out texts the expression cannot match: over
// every log line and exception of every scenario in the repository, a text
// a signature matches always passes its prefilter.
func TestPrefilterNeverHidesAMatch(t *testing.T) {
	texts := corpusTexts(t)
	require.Greater(t, len(texts), 1000)
	filtered, matched := 0, 0
	for i := range Catalogue {
		s := &Catalogue[i]
		for _, text := range texts {
			lower := strings.ToLower(text)
			if s.Pattern.MatchString(text) {
				matched++
				assert.True(t, s.pre.mayMatch(lower), "%s matches but its prefilter %q rules out: %.120q", s.ID, s.pre, text)
			} else if !s.pre.mayMatch(lower) {
				filtered++
			}
		}
	}
	t.Logf("%d texts, %d signature matches, %d evaluations skipped by prefilters", len(texts), matched, filtered)
	assert.Greater(t, filtered, len(texts)*len(Catalogue)/2, "prefilters should rule out most evaluations")
}

func TestPrefilterDerivation(t *testing.T) {
	for pattern, want := range map[string]prefilter{
		`OOMKilled|exit code 137`:             {"oomkilled", "exit code 137"},
		`(?i)connection refused`:              {"connection refused"},
		`\bpanic: `:                           {"panic: "},
		`dial tcp: lookup \S+|no such host`:   {"dial tcp: lookup ", "no such host"},
		`(?:Readiness|Liveness) probe failed`: {" probe failed"},
		`a*b`:                                 nil, // "b" alone is too short to be worth it
		`foo|\d+`:                             nil, // a branch without a literal
		`(?s)Exception\b.*?java\.text\.Digit`: {"java.text.digit"},
		`x{0,3}longliteral`:                   {"longliteral"},
	} {
		assert.Equal(t, want, newPrefilter(pattern), pattern)
	}
}

func corpusTexts(t *testing.T) []string {
	var texts []string
	for _, glob := range []string{"../testdata/*/*/logs.json", "../testdata/*/*/traces.json"} {
		files, _ := filepath.Glob(glob)
		for _, f := range files {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			var v any
			if json.Unmarshal(b, &v) != nil {
				continue
			}
			collectStrings(v, &texts)
		}
	}
	// Distinct texts, every k-th of them: enough variety, a short test.
	seen := map[string]bool{}
	var distinct []string
	for _, s := range texts {
		if !seen[s] {
			seen[s] = true
			distinct = append(distinct, s)
		}
	}
	const want = 6000
	if len(distinct) <= want {
		return distinct
	}
	step := len(distinct) / want
	var out []string
	for i := 0; i < len(distinct); i += step {
		out = append(out, distinct[i])
	}
	return out
}

func collectStrings(v any, out *[]string) {
	switch x := v.(type) {
	case string:
		if len(x) >= 8 {
			*out = append(*out, x)
		}
	case []any:
		for _, e := range x {
			collectStrings(e, out)
		}
	case map[string]any:
		for _, e := range x {
			collectStrings(e, out)
		}
	}
}
