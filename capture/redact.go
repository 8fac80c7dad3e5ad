package capture

import (
	"strings"

	"github.com/autoheal/autoheal/redact"
	"github.com/autoheal/autoheal/scenario"
)

// Everything a capture writes passes through redact/ (the one redaction
// path): configured secrets, credential-shaped strings and the values of
// secret-named keys are masked. Text whose lines matter (source files,
// patches, stack traces) is masked line by line, so that a masked key
// block never shifts the line numbers a truth or a diff refers to.

// maskLines masks each line of s on its own.
func maskLines(r *redact.Redactor, s string) string {
	if !strings.Contains(s, "\n") {
		return r.String(s)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = r.String(l)
	}
	return strings.Join(lines, "\n")
}

// maskKV masks a tag: its value whole when the key names a secret, its
// text otherwise.
func maskKV(r *redact.Redactor, kv scenario.KeyValue) scenario.KeyValue {
	s, ok := kv.Value.(string)
	if !ok {
		return kv
	}
	// A tag is a {key, value} pair: redact masks the value whole when the
	// key names a secret (http.request.header.authorization, db.password).
	m, _ := r.Value(map[string]any{"key": kv.Key, "value": s}).(map[string]any)
	if v, _ := m["value"].(string); v == redact.Mask {
		kv.Value = v
		return kv
	}
	kv.Value = maskLines(r, s)
	return kv
}

func maskKVs(r *redact.Redactor, kvs []scenario.KeyValue) {
	for i := range kvs {
		kvs[i] = maskKV(r, kvs[i])
	}
}

func maskTraces(r *redact.Redactor, ts []scenario.Trace) {
	for i := range ts {
		t := &ts[i]
		for pid, p := range t.Processes {
			maskKVs(r, p.Tags)
			t.Processes[pid] = p
		}
		for j := range t.Spans {
			s := &t.Spans[j]
			s.OperationName = r.String(s.OperationName)
			maskKVs(r, s.Tags)
			for k := range s.Logs {
				maskKVs(r, s.Logs[k].Fields)
			}
		}
	}
}

func maskLabels(r *redact.Redactor, m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		if redact.SecretKey(k) && v != "" {
			out[k] = redact.Mask
			continue
		}
		out[k] = r.String(v)
	}
	return out
}

// maskCommit masks a commit: its patches line by line, everything else
// as a JSON value (secret-named keys masked whole).
func maskCommit(r *redact.Redactor, raw map[string]any) map[string]any {
	files, _ := raw["files"].([]any)
	patches := make([]string, len(files))
	for i, f := range files {
		if m, ok := f.(map[string]any); ok {
			patches[i], _ = m["patch"].(string)
		}
	}
	out, _ := r.Value(raw).(map[string]any)
	outFiles, _ := out["files"].([]any)
	for i, f := range outFiles {
		if m, ok := f.(map[string]any); ok && i < len(patches) && patches[i] != "" {
			m["patch"] = maskLines(r, patches[i])
		}
	}
	return out
}
