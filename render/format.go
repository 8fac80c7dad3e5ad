package render

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/autoheal/autoheal/investigate"
)

// Band colours for attachment bars: Slack's own green and yellow, and a
// neutral grey for LOW so that a weak result never looks like a success.
const (
	ColorHigh   = "#2EB67D"
	ColorMedium = "#ECB22E"
	ColorLow    = "#9E9E9E"
)

// BandEmoji is the coloured circle shown next to a band.
func BandEmoji(b investigate.Band) string {
	switch b.Rank() {
	case 2:
		return ":large_green_circle:"
	case 1:
		return ":large_orange_circle:"
	default:
		return ":white_circle:"
	}
}

// bandWord normalises unknown bands to LOW, as Band.Rank does.
func bandWord(b investigate.Band) string {
	switch b.Rank() {
	case 2:
		return string(investigate.BandHigh)
	case 1:
		return string(investigate.BandMedium)
	default:
		return string(investigate.BandLow)
	}
}

// Badge is the confidence badge in mrkdwn: emoji and the band in bold.
func Badge(b investigate.Band) string {
	return BandEmoji(b) + " *" + bandWord(b) + "*"
}

// BandColor is the attachment colour of a band.
func BandColor(b investigate.Band) string {
	switch b.Rank() {
	case 2:
		return ColorHigh
	case 1:
		return ColorMedium
	default:
		return ColorLow
	}
}

// BucketLabel names a bucket for humans.
func BucketLabel(b investigate.Bucket) string {
	switch b {
	case investigate.BucketCodeBug:
		return "Code bug"
	case investigate.BucketInfrastructure:
		return "Infrastructure"
	case investigate.BucketBadData:
		return "Bad data"
	case investigate.BucketFlake:
		return "Flake"
	default:
		return "Unclassified"
	}
}

// ErrorTypeLabel names an error type for humans.
func ErrorTypeLabel(e investigate.ErrorType) string {
	switch e {
	case investigate.ErrNullPointer:
		return "Null pointer"
	case investigate.ErrRuntime:
		return "Runtime error"
	case investigate.ErrRace:
		return "Race condition"
	case investigate.ErrOOM:
		return "Out of memory"
	case investigate.ErrTLS:
		return "TLS failure"
	case investigate.ErrNetwork:
		return "Network failure"
	case investigate.ErrTimeout:
		return "Timeout"
	case investigate.ErrConfig:
		return "Misconfiguration"
	case investigate.ErrResourceExhaustion:
		return "Resource exhaustion"
	case investigate.ErrDataValidation:
		return "Invalid data"
	case investigate.ErrDependency:
		return "Failing dependency"
	case "", investigate.ErrUnknown:
		return "Unknown error"
	}
	return identLabel(string(e), 40)
}

// FamilyLabel names a backend family for humans.
func FamilyLabel(f investigate.Family) string {
	switch f {
	case investigate.FamilyTraces:
		return "Traces"
	case investigate.FamilyLogs:
		return "Logs"
	case investigate.FamilyMetrics:
		return "Metrics"
	case investigate.FamilyChanges:
		return "Changes"
	case investigate.FamilySource:
		return "Source"
	case investigate.FamilyK8s:
		return "Kubernetes"
	case investigate.FamilyMCP:
		return "MCP"
	case investigate.FamilyIssue:
		return "Issue"
	case "":
		return "Tool"
	}
	s := identLabel(string(f), 30)
	if s == "" {
		return "Tool"
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// identLabel turns an identifier from outside the catalogue (a new family or
// kind) into a short label that needs no escaping: letters, digits and
// spaces only.
func identLabel(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		case r == '_' || r == '-' || r == ' ' || r == '.':
			return ' '
		}
		return -1
	}, s)
	return truncate(strings.Join(strings.Fields(s), " "), max)
}

// kindLabel names a finding kind for humans.
func kindLabel(k investigate.FindingKind) string {
	switch k {
	case investigate.KindErrorSpan:
		return "Error span"
	case investigate.KindException:
		return "Exception"
	case investigate.KindLogPattern:
		return "Log pattern"
	case investigate.KindMetricAnomaly:
		return "Metric anomaly"
	case investigate.KindChangeCorrelation:
		return "Recent change"
	case investigate.KindSourceAnchor:
		return "Source line"
	case investigate.KindK8sEvent:
		return "Kubernetes event"
	case investigate.KindManifest:
		return "Manifest"
	case investigate.KindLogTemplate:
		return "New in logs"
	case investigate.KindChangePoint:
		return "Metric change"
	}
	if l := identLabel(string(k), 40); l != "" {
		return l
	}
	return "Finding"
}

// ErrorKindLabel is the short reason shown for a failed tool call.
func ErrorKindLabel(k investigate.ErrorKind) string {
	switch k {
	case investigate.ErrKindNotConfigured:
		return "not configured"
	case investigate.ErrKindUnreachable:
		return "unreachable"
	case investigate.ErrKindTimeout:
		return "timed out"
	case investigate.ErrKindUnauthorized:
		return "401 unauthorized"
	case investigate.ErrKindForbidden:
		return "403 forbidden"
	case investigate.ErrKindNotFound:
		return "404 not found"
	case investigate.ErrKindRateLimited:
		return "429 rate limited"
	case investigate.ErrKindBadResponse:
		return "bad response"
	case investigate.ErrKindTooLarge:
		return "response too large"
	case investigate.ErrKindServer:
		return "server error"
	case investigate.ErrKindInvalidArgs:
		return "invalid arguments"
	case investigate.ErrKindToolError, "":
		return "failed"
	}
	if l := identLabel(string(k), 40); l != "" {
		return l
	}
	return "failed"
}

// ModeLabel names a planner mode.
func ModeLabel(m investigate.Mode) string {
	switch m {
	case investigate.ModeLLM:
		return "LLM"
	}
	if l := identLabel(string(m), 30); l != "" {
		return l
	}
	return "deterministic"
}

// FormatDuration renders a duration compactly: 850ms, 8.2s, 3m 05s, 2h 10m.
func FormatDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm %02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh %02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd %02dh", int(d.Hours())/24, int(d.Hours())%24)
}

// slackDate renders t with Slack's date formatting so every reader sees it
// in their own time zone; the fallback is UTC.
func slackDate(t time.Time) string {
	if t.IsZero() {
		return "unknown time"
	}
	return fmt.Sprintf("<!date^%d^{date_short_pretty} {time}|%s>", t.Unix(), t.UTC().Format("2006-01-02 15:04 UTC"))
}

// userRef mentions a Slack user by ID, or shows an escaped name otherwise.
func userRef(s string) string {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "someone"
	case userIDRE.MatchString(s):
		return "<@" + s + ">"
	}
	return escLine(s, 80)
}

// safeURL returns u ready for a mrkdwn link or a button, or "" when it is not
// an absolute http(s) URL within Slack's limit. Characters that would end the
// link early are percent-encoded; & is entity-escaped as Slack expects.
func safeURL(u string) string {
	u = strings.TrimSpace(u)
	if u == "" || !isWebURL(u) || strings.IndexFunc(u, func(r rune) bool { return r < 0x21 || r == 0x7f }) >= 0 {
		return ""
	}
	u = strings.NewReplacer("|", "%7C", "<", "%3C", ">", "%3E").Replace(u)
	if textLen(u) > MaxURL {
		return ""
	}
	return u
}

// link renders <url|text> with escaped text, or just the escaped text when
// the URL is unusable. text must be raw (unescaped) and is cut to max.
func link(u, text string, max int) string {
	su := safeURL(u)
	t := escLine(text, max)
	if su == "" {
		return t
	}
	return "<" + strings.ReplaceAll(su, "&", "&amp;") + "|" + t + ">"
}

var repoRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`)

// SourceURL links to file:line in a repository's web UI:
// {webBase}/{repo}/blob/{ref}/{file}#L{line}. webBase is the host's web root
// (https://github.com, or https://ghe.example.com for GitHub Enterprise). It
// returns "" when anything needed is missing or malformed.
func SourceURL(webBase, repo, ref, file string, line int) string {
	base := strings.TrimRight(strings.TrimSpace(webBase), "/")
	file = strings.TrimLeft(strings.TrimSpace(file), "/")
	if base == "" || !isWebURL(base) || !repoRE.MatchString(repo) || file == "" || strings.Contains(file, "..") {
		return ""
	}
	if ref == "" {
		ref = "main"
	}
	u := base + "/" + repo + "/blob/" + escapeSegments(ref) + "/" + escapeSegments(file)
	if line > 0 {
		u += fmt.Sprintf("#L%d", line)
	}
	return safeURL(u)
}

func escapeSegments(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

// WebURLFromAPI derives the web root from a GitHub API base URL:
// https://api.github.com → https://github.com, https://HOST/api/v3/ →
// https://HOST. An empty input means github.com.
func WebURLFromAPI(api string) string {
	api = strings.TrimSpace(api)
	if api == "" {
		return "https://github.com"
	}
	u, err := url.Parse(api)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	if u.Host == "api.github.com" {
		return "https://github.com"
	}
	return u.Scheme + "://" + u.Host
}

// location renders file:line (or just the file).
func location(file string, line int) string {
	if file == "" {
		return ""
	}
	if line > 0 {
		return fmt.Sprintf("%s:%d", file, line)
	}
	return file
}

// redactURL masks credentials inside a URL value: the userinfo and query
// parameters with sensitive-looking names. Anything that is not an absolute
// URL is returned trimmed and unchanged.
func redactURL(v string) string {
	v = strings.TrimSpace(v)
	u, err := url.Parse(v)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return v
	}
	changed := false
	if u.User != nil {
		u.User = url.User("REDACTED")
		changed = true
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			if sensitiveArg.MatchString(k) {
				q.Set(k, "REDACTED")
				changed = true
			}
		}
		if changed {
			u.RawQuery = q.Encode()
		}
	}
	if !changed {
		return v
	}
	return strings.ReplaceAll(u.String(), "REDACTED", "••••")
}
