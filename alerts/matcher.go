package alerts

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// MatchType is a label matcher's operator.
type MatchType string

// The four operators of Alertmanager and Prometheus matchers.
const (
	MatchEqual     MatchType = "="
	MatchNotEqual  MatchType = "!="
	MatchRegexp    MatchType = "=~"
	MatchNotRegexp MatchType = "!~"
)

// Matcher is one label condition, written as in Alertmanager routes:
// `severity="critical"`, `namespace!=sandbox`, `service=~"cart|checkout"`,
// `team!~"qa.*"`. Regular expressions are anchored at both ends. A missing
// label has the value "".
type Matcher struct {
	Name  string
	Type  MatchType
	Value string
	re    *regexp.Regexp
}

var labelNameRE = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// ParseMatcher parses one matcher.
func ParseMatcher(s string) (Matcher, error) {
	in := strings.TrimSpace(s)
	i := strings.IndexAny(in, "=!")
	if i <= 0 {
		return Matcher{}, fmt.Errorf("matcher %q: want label=value, label!=value, label=~regex or label!~regex", s)
	}
	name := strings.TrimSpace(in[:i])
	rest := in[i:]
	var t MatchType
	switch {
	case strings.HasPrefix(rest, "=~"):
		t = MatchRegexp
	case strings.HasPrefix(rest, "!~"):
		t = MatchNotRegexp
	case strings.HasPrefix(rest, "!="):
		t = MatchNotEqual
	case strings.HasPrefix(rest, "="):
		t = MatchEqual
	default:
		return Matcher{}, fmt.Errorf("matcher %q: unknown operator; use =, !=, =~ or !~", s)
	}
	if !labelNameRE.MatchString(name) {
		return Matcher{}, fmt.Errorf("matcher %q: %q is not a label name", s, name)
	}
	value := strings.TrimSpace(rest[len(t):])
	if strings.HasPrefix(value, `"`) {
		uq, err := strconv.Unquote(value)
		if err != nil {
			return Matcher{}, fmt.Errorf("matcher %q: the quoted value is not closed or has a bad escape", s)
		}
		value = uq
	} else if strings.ContainsAny(value, `"`) {
		return Matcher{}, fmt.Errorf("matcher %q: quote the whole value", s)
	}
	m := Matcher{Name: name, Type: t, Value: value}
	if t == MatchRegexp || t == MatchNotRegexp {
		re, err := regexp.Compile("^(?:" + value + ")$")
		if err != nil {
			return Matcher{}, fmt.Errorf("matcher %q: bad regular expression: %w", s, err)
		}
		m.re = re
	}
	return m, nil
}

// Matches reports whether labels satisfy the matcher.
func (m Matcher) Matches(labels map[string]string) bool {
	v := labels[m.Name]
	switch m.Type {
	case MatchEqual:
		return v == m.Value
	case MatchNotEqual:
		return v != m.Value
	case MatchRegexp:
		return m.re.MatchString(v)
	case MatchNotRegexp:
		return !m.re.MatchString(v)
	}
	return false
}

// String renders the matcher as it is written in the config.
func (m Matcher) String() string { return m.Name + string(m.Type) + strconv.Quote(m.Value) }

func matchAll(ms []Matcher, labels map[string]string) bool {
	for _, m := range ms {
		if !m.Matches(labels) {
			return false
		}
	}
	return true
}
