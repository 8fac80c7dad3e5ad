package llm

import (
	"encoding/json"
	"fmt"
	"sort"
)

// schemaKeywords are the JSON Schema keywords chat APIs accept in tool
// parameters; others (if/then/else, $schema, patternProperties,
// unevaluatedProperties...) make some providers refuse every request.
var schemaKeywords = map[string]bool{
	"type": true, "properties": true, "items": true, "required": true, "enum": true, "const": true,
	"description": true, "title": true, "default": true, "additionalProperties": true,
	"anyOf": true, "oneOf": true, "allOf": true, "$ref": true, "$defs": true, "definitions": true,
	"format": true, "minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true,
	"minItems": true, "maxItems": true, "minLength": true, "maxLength": true, "pattern": true, "nullable": true,
}

var schemaTypes = map[string]bool{"object": true, "array": true, "string": true, "number": true, "integer": true, "boolean": true, "null": true}

// repairSchema makes a tool's parameter schema one every provider takes:
// an array gets items, an object gets properties, unknown keywords and
// types are dropped, required names only existing properties. It returns
// what it changed, or an error when the schema is no object schema at all
// (the tool is then left out).
func repairSchema(raw json.RawMessage) (json.RawMessage, []string, error) {
	if len(raw) == 0 {
		return json.RawMessage(`{"type":"object","properties":{}}`), []string{"no schema: an empty object"}, nil
	}
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil {
		return nil, nil, fmt.Errorf("the parameter schema is not a JSON object: %w", err)
	}
	if t, ok := root["type"]; ok && t != "object" {
		return nil, nil, fmt.Errorf("the parameters are of type %v, not an object", t)
	}
	root["type"] = "object"
	var fixes []string
	repairNode(root, "parameters", &fixes)
	b, err := json.Marshal(root)
	if err != nil {
		return nil, nil, err
	}
	return b, fixes, nil
}

func repairNode(n map[string]any, at string, fixes *[]string) {
	keys := make([]string, 0, len(n))
	for k := range n {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !schemaKeywords[k] {
			delete(n, k)
			*fixes = append(*fixes, fmt.Sprintf("%s: dropped the unsupported keyword %q", at, k))
		}
	}
	has := func(t string) bool {
		switch v := n["type"].(type) {
		case string:
			return v == t
		case []any:
			for _, x := range v {
				if x == t {
					return true
				}
			}
		}
		return false
	}
	switch v := n["type"].(type) {
	case string:
		if !schemaTypes[v] {
			delete(n, "type")
			*fixes = append(*fixes, fmt.Sprintf("%s: dropped the unknown type %q", at, v))
		}
	case []any:
		var ok []any
		for _, x := range v {
			if s, isStr := x.(string); isStr && schemaTypes[s] {
				ok = append(ok, s)
			}
		}
		n["type"] = ok
		if len(ok) == 0 {
			delete(n, "type")
		}
	}
	if has("array") {
		if _, ok := n["items"].(map[string]any); !ok {
			n["items"] = map[string]any{}
			*fixes = append(*fixes, fmt.Sprintf("%s: an array without items gets items", at))
		}
	}
	if has("object") {
		if _, ok := n["properties"].(map[string]any); !ok {
			n["properties"] = map[string]any{}
			*fixes = append(*fixes, fmt.Sprintf("%s: an object without properties gets properties", at))
		}
	}
	if props, ok := n["properties"].(map[string]any); ok {
		for name, p := range props {
			if sub, ok := p.(map[string]any); ok {
				repairNode(sub, at+"."+name, fixes)
			} else {
				props[name] = map[string]any{}
				*fixes = append(*fixes, fmt.Sprintf("%s.%s: a property that is no schema accepts anything", at, name))
			}
		}
		if req, ok := n["required"].([]any); ok {
			var keep []any
			for _, r := range req {
				if s, ok := r.(string); ok && props[s] != nil {
					keep = append(keep, s)
				} else {
					*fixes = append(*fixes, fmt.Sprintf("%s: required %v is no property", at, r))
				}
			}
			if len(keep) == 0 {
				delete(n, "required")
			} else {
				n["required"] = keep
			}
		}
	}
	if items, ok := n["items"].(map[string]any); ok {
		repairNode(items, at+"[]", fixes)
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if list, ok := n[k].([]any); ok {
			for i, x := range list {
				if sub, ok := x.(map[string]any); ok {
					repairNode(sub, fmt.Sprintf("%s.%s[%d]", at, k, i), fixes)
				}
			}
		}
	}
	for _, k := range []string{"$defs", "definitions"} {
		if defs, ok := n[k].(map[string]any); ok {
			for name, x := range defs {
				if sub, ok := x.(map[string]any); ok {
					repairNode(sub, at+"."+k+"."+name, fixes)
				}
			}
		}
	}
	if ap, ok := n["additionalProperties"].(map[string]any); ok {
		repairNode(ap, at+".additionalProperties", fixes)
	}
}
