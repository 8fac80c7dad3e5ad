package slacksim

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// The Block Kit limits the simulator enforces: the ones a renderer most
// often breaks, checked cheaply. Messages use Slack's error format
// "<reason> [json-pointer:<path>]".
const (
	maxHeaderText     = 150
	maxSectionText    = 3000
	maxFields         = 10
	maxFieldText      = 2000
	maxContextElems   = 10
	maxActionsElems   = 25
	maxButtonText     = 75
	maxActionID       = 255
	maxBlockID        = 255
	maxButtonValue    = 2000
	maxURL            = 3000
	maxMarkdownText   = 12000
	maxViewTitle      = 24
	maxPrivateMeta    = 3000
	maxCallbackID     = 255
	maxAltText        = 2000
	maxInputLabelText = 2000
)

type blockChecker struct {
	problems []string
	actions  map[string]bool
}

func (c *blockChecker) add(path, format string, args ...any) {
	if len(c.problems) < 20 { // enough to diagnose; keeps answers small
		c.problems = append(c.problems, fmt.Sprintf(format, args...)+" [json-pointer:"+path+"]")
	}
}

// validateBlocks checks a blocks array; it returns Slack-style problem
// messages, none when the blocks are acceptable.
func validateBlocks(raw json.RawMessage, maxBlocks int, path string) []string {
	var blocks []map[string]any
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return []string{"must be an array of objects [json-pointer:" + path + "]"}
	}
	c := &blockChecker{}
	if len(blocks) > maxBlocks {
		c.add(path, "no more than %d items allowed", maxBlocks)
	}
	ids := map[string]bool{}
	for i, b := range blocks {
		p := fmt.Sprintf("%s/%d", path, i)
		if b == nil {
			c.add(p, "must be an object")
			continue
		}
		if id, _ := b["block_id"].(string); id != "" {
			if ids[id] {
				c.add(p+"/block_id", "block_id %q is not unique", id)
			}
			ids[id] = true
			if len(id) > maxBlockID {
				c.add(p+"/block_id", "must be less than %d characters", maxBlockID+1)
			}
		}
		c.block(p, b)
	}
	return c.problems
}

func (c *blockChecker) block(p string, b map[string]any) {
	c.actions = nil // action_id must be unique within its block
	typ, _ := b["type"].(string)
	switch typ {
	case "":
		c.add(p+"/type", "missing required field: type")
	case "header":
		c.text(p+"/text", b["text"], maxHeaderText, true, "plain_text")
	case "section":
		_, hasText := b["text"]
		fields, hasFields := b["fields"].([]any)
		if !hasText && !hasFields {
			c.add(p, "must provide either text or fields")
		}
		if hasText {
			c.text(p+"/text", b["text"], maxSectionText, true, "")
		}
		if len(fields) > maxFields {
			c.add(p+"/fields", "no more than %d items allowed", maxFields)
		}
		for i, f := range fields {
			c.text(fmt.Sprintf("%s/fields/%d", p, i), f, maxFieldText, true, "")
		}
		if acc, ok := b["accessory"].(map[string]any); ok {
			c.element(p+"/accessory", acc)
		}
	case "context":
		elems, _ := b["elements"].([]any)
		if len(elems) == 0 || len(elems) > maxContextElems {
			c.add(p+"/elements", "must have between 1 and %d items", maxContextElems)
		}
		for i, e := range elems {
			if m, ok := e.(map[string]any); ok && m["type"] != "image" {
				c.text(fmt.Sprintf("%s/elements/%d", p, i), e, maxSectionText, true, "")
			}
		}
	case "actions":
		elems, _ := b["elements"].([]any)
		if len(elems) == 0 || len(elems) > maxActionsElems {
			c.add(p+"/elements", "must have between 1 and %d items", maxActionsElems)
		}
		for i, e := range elems {
			m, ok := e.(map[string]any)
			if !ok {
				c.add(fmt.Sprintf("%s/elements/%d", p, i), "must be an object")
				continue
			}
			c.element(fmt.Sprintf("%s/elements/%d", p, i), m)
		}
	case "image":
		alt, _ := b["alt_text"].(string)
		if alt == "" || utf8.RuneCountInString(alt) > maxAltText {
			c.add(p+"/alt_text", "must be between 1 and %d characters", maxAltText)
		}
		if _, ok := b["image_url"]; !ok {
			if _, ok := b["slack_file"]; !ok {
				c.add(p, "must provide image_url or slack_file")
			}
		}
	case "markdown":
		text, _ := b["text"].(string)
		if text == "" || utf8.RuneCountInString(text) > maxMarkdownText {
			c.add(p+"/text", "must be between 1 and %d characters", maxMarkdownText)
		}
	case "input":
		c.text(p+"/label", b["label"], maxInputLabelText, true, "plain_text")
		if el, ok := b["element"].(map[string]any); ok {
			c.element(p+"/element", el)
		} else {
			c.add(p+"/element", "missing required field: element")
		}
	case "divider", "rich_text", "file", "video", "table", "plan", "task_card", "context_actions":
		// Accepted as is.
	default:
		c.add(p+"/type", "unsupported type: %s", typ)
	}
}

// text checks a composition text object.
func (c *blockChecker) text(p string, v any, max int, required bool, onlyType string) {
	m, ok := v.(map[string]any)
	if !ok {
		if required {
			c.add(p, "must be a text object")
		}
		return
	}
	typ, _ := m["type"].(string)
	if typ != "plain_text" && typ != "mrkdwn" {
		c.add(p+"/type", "must be plain_text or mrkdwn")
	} else if onlyType != "" && typ != onlyType {
		c.add(p+"/type", "must be %s", onlyType)
	}
	text, _ := m["text"].(string)
	n := utf8.RuneCountInString(text)
	if n == 0 {
		c.add(p+"/text", "must be more than 0 characters")
	}
	if n > max {
		c.add(p+"/text", "must be less than %d characters", max+1)
	}
}

// element checks an interactive element.
func (c *blockChecker) element(p string, e map[string]any) {
	typ, _ := e["type"].(string)
	if typ == "" {
		c.add(p+"/type", "missing required field: type")
		return
	}
	if id, _ := e["action_id"].(string); len(id) > maxActionID {
		c.add(p+"/action_id", "must be less than %d characters", maxActionID+1)
	} else if id != "" {
		if c.actions == nil {
			c.actions = map[string]bool{}
		}
		if c.actions[id] && typ != "image" {
			c.add(p+"/action_id", "action_id %q is not unique", id)
		}
		c.actions[id] = true
	}
	switch typ {
	case "button":
		c.text(p+"/text", e["text"], maxButtonText, true, "plain_text")
		if v, _ := e["value"].(string); utf8.RuneCountInString(v) > maxButtonValue {
			c.add(p+"/value", "must be less than %d characters", maxButtonValue+1)
		}
		if u, _ := e["url"].(string); len(u) > maxURL {
			c.add(p+"/url", "must be less than %d characters", maxURL+1)
		}
		if st, ok := e["style"].(string); ok && st != "primary" && st != "danger" {
			c.add(p+"/style", "must be one of primary, danger")
		}
	case "static_select", "multi_static_select", "radio_buttons", "checkboxes", "overflow":
		opts, _ := e["options"].([]any)
		if _, grouped := e["option_groups"]; !grouped && len(opts) == 0 {
			c.add(p+"/options", "must have at least 1 item")
		}
	}
}

// validateView checks a modal view object.
func validateView(raw json.RawMessage) []string {
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		return []string{"must be an object [json-pointer:/view]"}
	}
	c := &blockChecker{}
	if t, _ := v["type"].(string); t == "" {
		c.add("/view/type", "missing required field: type")
	}
	if v["type"] == "modal" {
		c.text("/view/title", v["title"], maxViewTitle, true, "plain_text")
		if sub, ok := v["submit"]; ok && sub != nil {
			c.text("/view/submit", sub, maxViewTitle, true, "plain_text")
		}
		if cl, ok := v["close"]; ok && cl != nil {
			c.text("/view/close", cl, maxViewTitle, true, "plain_text")
		}
	}
	if pm, _ := v["private_metadata"].(string); utf8.RuneCountInString(pm) > maxPrivateMeta {
		c.add("/view/private_metadata", "must be less than %d characters", maxPrivateMeta+1)
	}
	if cb, _ := v["callback_id"].(string); len(cb) > maxCallbackID {
		c.add("/view/callback_id", "must be less than %d characters", maxCallbackID+1)
	}
	blocks, ok := v["blocks"]
	if !ok {
		c.add("/view/blocks", "missing required field: blocks")
		return c.problems
	}
	braw, _ := json.Marshal(blocks)
	problems := append(c.problems, validateBlocks(braw, maxViewBlocks, "/view/blocks")...)
	if hasInput(braw) && v["type"] == "modal" {
		if sub, ok := v["submit"]; !ok || sub == nil {
			problems = append(problems, "submit is required when blocks contain input blocks [json-pointer:/view/submit]")
		}
	}
	return problems
}

func hasInput(blocks json.RawMessage) bool {
	var list []struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(blocks, &list)
	for _, b := range list {
		if b.Type == "input" {
			return true
		}
	}
	return false
}
