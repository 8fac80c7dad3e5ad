package investigate

import (
	"encoding/json"
	"regexp"
	"strings"
)

// messageKeys are the JSON fields loggers put the message in.
var messageKeys = []string{"msg", "message", "Message", "@m", "@mt", "log", "text", "event", "MessageTemplate", "RenderedMessage"}

// errorKeys hold error details: nested objects are flattened.
var errorKeys = []string{"error", "err", "panic", "recovered", "fault", "exception", "Exception", "@x", "exc_info", "stack", "stack_trace", "stacktrace", "trace", "error.message", "error.stack", "error_message", "reason", "cause", "detail", "details", "errors", "violations", "response", "validation"}

var levelKeys = []string{"level", "severity", "lvl", "LogLevel", "@l", "levelname", "log.level", "Level"}

// LogText extracts from one log line the text worth matching (message plus
// error details, stack traces included) and the level. JSON and logfmt lines
// are parsed; anything else is used as is.
func LogText(line string) (text, level string) {
	trimmed := strings.TrimSpace(line)
	if strings.HasPrefix(trimmed, "{") {
		var m map[string]any
		if err := json.Unmarshal([]byte(trimmed), &m); err == nil {
			return jsonText(m), normalizeLevel(jsonLevel(m))
		}
	}
	if lv := logfmtField(trimmed, "level"); lv != "" && strings.Contains(trimmed, "msg=") {
		parts := []string{logfmtField(trimmed, "msg")}
		for _, k := range []string{"err", "error", "exception", "stack"} {
			if v := logfmtField(trimmed, k); v != "" {
				parts = append(parts, v)
			}
		}
		return strings.Join(parts, "\n"), normalizeLevel(lv)
	}
	return line, normalizeLevel(textLevel(trimmed))
}

func jsonText(m map[string]any) string {
	var parts []string
	for _, k := range messageKeys {
		if v, ok := m[k].(string); ok && v != "" {
			parts = append(parts, v)
			break
		}
	}
	for _, k := range errorKeys {
		if v, ok := m[k]; ok {
			parts = append(parts, flatten(v, 0)...)
		}
	}
	if len(parts) == 0 {
		b, _ := json.Marshal(m)
		return string(b)
	}
	return strings.Join(parts, "\n")
}

func flatten(v any, depth int) []string {
	if depth > 3 {
		return nil
	}
	switch t := v.(type) {
	case string:
		if t != "" {
			return []string{t}
		}
	case map[string]any:
		var out []string
		// type before message before stack keeps "TypeError: msg\n at ..." order.
		for _, k := range []string{"type", "Type", "ClassName", "kind", "message", "Message", "msg", "code", "field", "path", "constraint", "stack", "StackTrace", "stacktrace", "stack_trace", "cause", "InnerException", "errors", "details", "detail", "hint", "reason"} {
			if x, ok := t[k]; ok {
				out = append(out, flatten(x, depth+1)...)
			}
		}
		return out
	case []any:
		var out []string
		for _, x := range t {
			out = append(out, flatten(x, depth+1)...)
		}
		return out
	case float64:
		return nil
	}
	return nil
}

func jsonLevel(m map[string]any) string {
	for _, k := range levelKeys {
		switch v := m[k].(type) {
		case string:
			return v
		case float64: // pino / bunyan numeric levels
			switch {
			case v >= 60:
				return "fatal"
			case v >= 50:
				return "error"
			case v >= 40:
				return "warn"
			case v >= 30:
				return "info"
			default:
				return "debug"
			}
		}
	}
	return ""
}

var logfmtRE = regexp.MustCompile(`(?:^|\s)([\w.]+)=("(?:[^"\\]|\\.)*"|\S+)`)

func logfmtField(line, key string) string {
	for _, m := range logfmtRE.FindAllStringSubmatch(line, -1) {
		if m[1] == key {
			v := m[2]
			if strings.HasPrefix(v, `"`) {
				v = strings.Trim(v, `"`)
				v = strings.ReplaceAll(v, `\"`, `"`)
				v = strings.ReplaceAll(v, `\n`, "\n")
				v = strings.ReplaceAll(v, `\t`, "\t")
			}
			return v
		}
	}
	return ""
}

var textLevelRE = regexp.MustCompile(`(?i)(?:^|[\s\[|:-])(FATAL|CRITICAL|CRIT|ERROR|ERR|SEVERE|WARNING|WARN|INFO|DEBUG|TRACE|E|W|I)(?:[\s\]|:-]|$)`)

// channelLevelRE: Monolog's "channel.LEVEL:" (production.ERROR: ...).
var channelLevelRE = regexp.MustCompile(`\w\.(EMERGENCY|ALERT|CRITICAL|ERROR|WARNING|NOTICE|INFO|DEBUG):`)

func textLevel(line string) string {
	head := line
	if len(head) > 120 {
		head = head[:120]
	}
	if m := textLevelRE.FindStringSubmatch(head); m != nil {
		return m[1]
	}
	if m := channelLevelRE.FindStringSubmatch(head); m != nil {
		return m[1]
	}
	return ""
}

// normalizeLevel maps logger levels onto error | warn | info | debug | "".
func normalizeLevel(l string) string {
	switch strings.ToLower(strings.TrimSpace(l)) {
	case "fatal", "critical", "crit", "error", "err", "severe", "panic", "alert", "emerg", "emergency", "e", "fatal error":
		return "error"
	case "warning", "warn", "w":
		return "warn"
	case "info", "information", "notice", "i":
		return "info"
	case "debug", "trace", "verbose", "d":
		return "debug"
	}
	return ""
}

// NormalizeLevel is normalizeLevel for label values.
func NormalizeLevel(l string) string { return normalizeLevel(l) }
