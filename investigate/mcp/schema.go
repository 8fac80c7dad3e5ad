package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// maxSchemaBytes bounds one tool's input schema handed to planners.
const maxSchemaBytes = 32 << 10

// maxSchemaDepth bounds how deep a schema is walked.
const maxSchemaDepth = 12

// SanitizeSchema turns the input schema the mcp-go client kept (type,
// properties, required, additionalProperties, $defs) into a JSON schema
// object planners can rely on: type "object", properties an object of
// schemas, required naming only known properties, and every $ref resolving
// inside $defs (a dangling reference, such as one into "definitions" that
// the client dropped, becomes a permissive schema). fixes lists what was
// repaired. An error means the tool cannot be offered.
func SanitizeSchema(in mcpgo.ToolInputSchema) (schema json.RawMessage, fixes []string, err error) {
	if in.Type != "" && in.Type != "object" {
		return nil, nil, fmt.Errorf("input schema type is %q, want object", in.Type)
	}
	out := map[string]any{"type": "object"}
	defs := map[string]any{}
	for k, v := range in.Defs {
		if m, ok := v.(map[string]any); ok {
			defs[k] = m
		} else if b, ok := v.(bool); ok {
			defs[k] = b
		} else {
			fixes = append(fixes, fmt.Sprintf("$defs/%s is not a schema; dropped", k))
		}
	}
	props := map[string]any{}
	names := make([]string, 0, len(in.Properties))
	for k := range in.Properties {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v := in.Properties[k]
		switch t := v.(type) {
		case map[string]any:
			props[k] = repairRefs(t, defs, "properties/"+k, &fixes, 0)
		case bool:
			props[k] = t
		default:
			fixes = append(fixes, fmt.Sprintf("properties/%s is not a schema; made permissive", k))
			props[k] = map[string]any{}
		}
	}
	out["properties"] = props
	var req []string
	for _, r := range in.Required {
		if _, ok := props[r]; ok {
			req = append(req, r)
		} else {
			fixes = append(fixes, fmt.Sprintf("required %q names no property; dropped", r))
		}
	}
	if len(req) > 0 {
		out["required"] = req
	}
	switch ap := in.AdditionalProperties.(type) {
	case nil:
	case bool:
		out["additionalProperties"] = ap
	case map[string]any:
		out["additionalProperties"] = repairRefs(ap, defs, "additionalProperties", &fixes, 0)
	default:
		fixes = append(fixes, "additionalProperties is neither a boolean nor a schema; dropped")
	}
	if len(defs) > 0 {
		for k, v := range defs {
			if m, ok := v.(map[string]any); ok {
				defs[k] = repairRefs(m, defs, "$defs/"+k, &fixes, 0)
			}
		}
		out["$defs"] = defs
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fixes, fmt.Errorf("input schema: %w", err)
	}
	if len(b) > maxSchemaBytes {
		return nil, fixes, fmt.Errorf("input schema is %d bytes, more than %d", len(b), maxSchemaBytes)
	}
	if err := CheckSchemaObject(b); err != nil {
		return nil, fixes, err
	}
	return b, fixes, nil
}

// repairRefs copies a schema, replacing subschemas whose $ref does not
// resolve within $defs by a permissive schema that keeps the description.
func repairRefs(s map[string]any, defs map[string]any, at string, fixes *[]string, depth int) map[string]any {
	if depth > maxSchemaDepth {
		*fixes = append(*fixes, at+": nested too deeply; made permissive")
		return map[string]any{}
	}
	if ref, ok := s["$ref"].(string); ok {
		name, found := strings.CutPrefix(ref, "#/$defs/")
		if _, exists := defs[name]; !found || !exists {
			*fixes = append(*fixes, fmt.Sprintf("%s: $ref %q does not resolve; made permissive", at, truncate(ref, 80)))
			out := map[string]any{}
			if d, ok := s["description"].(string); ok {
				out["description"] = d
			}
			return out
		}
	}
	out := make(map[string]any, len(s))
	for k, v := range s {
		switch t := v.(type) {
		case map[string]any:
			if k == "properties" || k == "patternProperties" || k == "$defs" || k == "definitions" {
				sub := make(map[string]any, len(t))
				for pk, pv := range t {
					if pm, ok := pv.(map[string]any); ok {
						sub[pk] = repairRefs(pm, defs, at+"/"+k+"/"+pk, fixes, depth+1)
					} else {
						sub[pk] = pv
					}
				}
				out[k] = sub
			} else {
				out[k] = repairRefs(t, defs, at+"/"+k, fixes, depth+1)
			}
		case []any:
			arr := make([]any, len(t))
			for i, x := range t {
				if m, ok := x.(map[string]any); ok {
					arr[i] = repairRefs(m, defs, fmt.Sprintf("%s/%s/%d", at, k, i), fixes, depth+1)
				} else {
					arr[i] = x
				}
			}
			out[k] = arr
		default:
			out[k] = v
		}
	}
	return out
}

// CheckSchemaObject verifies that b is a JSON schema for an arguments
// object: a JSON object with type "object", properties (if present) an
// object whose values are schemas (objects or booleans), and required (if
// present) a list of strings.
func CheckSchemaObject(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("input schema is not a JSON object: %w", err)
	}
	var typ string
	if err := json.Unmarshal(m["type"], &typ); err != nil || typ != "object" {
		return errors.New(`input schema: type must be "object"`)
	}
	if raw, ok := m["properties"]; ok {
		var props map[string]json.RawMessage
		if err := json.Unmarshal(raw, &props); err != nil {
			return errors.New("input schema: properties must be an object")
		}
		for k, v := range props {
			var sub any
			if err := json.Unmarshal(v, &sub); err != nil {
				return fmt.Errorf("input schema: properties/%s: %w", k, err)
			}
			switch sub.(type) {
			case map[string]any, bool:
			default:
				return fmt.Errorf("input schema: properties/%s is not a schema", k)
			}
		}
	}
	if raw, ok := m["required"]; ok {
		var req []string
		if err := json.Unmarshal(raw, &req); err != nil {
			return errors.New("input schema: required must be a list of strings")
		}
	}
	return nil
}
