package render

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/slack-go/slack"
)

// Violation is one Slack limit a payload exceeds.
type Violation struct {
	// Where names the offending part: "block 3 (section) field 2".
	Where string
	// Problem says which limit was exceeded and by how much.
	Problem string
}

func (v Violation) String() string { return v.Where + ": " + v.Problem }

// ValidationError lists every violation found in one payload.
type ValidationError struct {
	Violations []Violation
}

func (e *ValidationError) Error() string {
	parts := make([]string, 0, len(e.Violations))
	for i, v := range e.Violations {
		if i == 10 {
			parts = append(parts, fmt.Sprintf("and %d more", len(e.Violations)-i))
			break
		}
		parts = append(parts, v.String())
	}
	return "slack payload exceeds limits: " + strings.Join(parts, "; ")
}

type checker struct {
	out      []Violation
	total    int             // text units across blocks (messages only)
	blockIDs map[string]bool // block_id must be unique within a payload
}

func (c *checker) add(where, format string, args ...any) {
	c.out = append(c.out, Violation{Where: where, Problem: fmt.Sprintf(format, args...)})
}

func (c *checker) maxLen(where, what, s string, max int) {
	if n := textLen(s); n > max {
		c.add(where, "%s is %d characters, limit %d", what, n, max)
	}
}

func (c *checker) err() error {
	if len(c.out) == 0 {
		return nil
	}
	return &ValidationError{Violations: c.out}
}

// Validate checks a message against Slack's limits and the mrkdwn escaping
// rules. The error names each block and limit exceeded. The bot calls it
// before every send; builder output always passes.
func Validate(m Message) error {
	c := &checker{}
	if strings.TrimSpace(m.Text) == "" {
		c.add("text", "fallback text is empty (needed for notifications and screen readers)")
	}
	c.maxLen("text", "fallback text", m.Text, MaxMessageText)
	c.mrkdwn("text", m.Text)
	if n := len(m.Blocks); n > MaxMessageBlocks {
		c.add("blocks", "%d blocks, limit %d per message", n, MaxMessageBlocks)
	}
	for i, b := range m.Blocks {
		c.block(blockWhere("", i, b), b, false)
	}
	for ai, a := range m.Attachments {
		prefix := fmt.Sprintf("attachment %d ", ai)
		if n := len(a.Blocks.BlockSet); n > MaxMessageBlocks {
			c.add(strings.TrimSpace(prefix), "%d blocks, limit %d", n, MaxMessageBlocks)
		}
		for i, b := range a.Blocks.BlockSet {
			c.block(blockWhere(prefix, i, b), b, false)
		}
		c.maxLen(prefix+"fallback", "fallback", a.Fallback, MaxFallbackText)
	}
	if c.total > MaxBlocksText {
		c.add("blocks", "%d characters of text in total, limit %d (msg_blocks_too_long)", c.total, MaxBlocksText)
	}
	if u := m.Upload; u != nil {
		if strings.TrimSpace(u.Filename) == "" {
			c.add("upload", "filename is empty")
		}
		if n := len(u.Content); n > MaxUploadBytes {
			c.add("upload", "content is %d bytes, limit %d", n, MaxUploadBytes)
		}
	}
	return c.err()
}

// ValidateModal checks a views.open / views.update payload.
func ValidateModal(v slack.ModalViewRequest) error {
	c := &checker{}
	if v.Type != slack.VTModal {
		c.add("view", "type is %q, want %q", v.Type, slack.VTModal)
	}
	if v.Title == nil || strings.TrimSpace(v.Title.Text) == "" {
		c.add("title", "title is required")
	} else {
		c.plainObject("title", v.Title, MaxModalTitle)
	}
	if v.Submit != nil {
		c.plainObject("submit", v.Submit, MaxModalButton)
	}
	if v.Close != nil {
		c.plainObject("close", v.Close, MaxModalButton)
	}
	c.maxLen("private_metadata", "private_metadata", v.PrivateMetadata, MaxPrivateMetadata)
	c.maxLen("callback_id", "callback_id", v.CallbackID, MaxCallbackID)
	blocks := v.Blocks.BlockSet
	if n := len(blocks); n > MaxModalBlocks {
		c.add("blocks", "%d blocks, limit %d per modal", n, MaxModalBlocks)
	}
	hasInput := false
	for i, b := range blocks {
		if _, ok := b.(*slack.InputBlock); ok {
			hasInput = true
		}
		c.block(blockWhere("", i, b), b, true)
	}
	if hasInput && v.Submit == nil {
		c.add("submit", "a modal with input blocks needs a submit button")
	}
	return c.err()
}

func blockWhere(prefix string, i int, b slack.Block) string {
	if id := b.ID(); id != "" {
		return fmt.Sprintf("%sblock %d (%s %q)", prefix, i, b.BlockType(), truncate(id, 40))
	}
	return fmt.Sprintf("%sblock %d (%s)", prefix, i, b.BlockType())
}

func (c *checker) block(where string, b slack.Block, modal bool) {
	if id := b.ID(); id != "" {
		c.maxLen(where, "block_id", id, MaxBlockID)
		if c.blockIDs[id] {
			c.add(where, "duplicate block_id")
		}
		if c.blockIDs == nil {
			c.blockIDs = map[string]bool{}
		}
		c.blockIDs[id] = true
	}
	switch b := b.(type) {
	case *slack.SectionBlock:
		if b.Text == nil && len(b.Fields) == 0 {
			c.add(where, "section needs text or fields")
		}
		if b.Text != nil {
			c.textObject(where+" text", b.Text, MaxSectionText)
		}
		if n := len(b.Fields); n > MaxSectionFields {
			c.add(where, "%d fields, limit %d", n, MaxSectionFields)
		}
		for i, f := range b.Fields {
			c.textObject(fmt.Sprintf("%s field %d", where, i), f, MaxSectionFieldText)
		}
		if b.Accessory != nil && b.Accessory.ButtonElement != nil {
			c.button(where+" accessory", b.Accessory.ButtonElement)
		}
	case *slack.HeaderBlock:
		if b.Text == nil || b.Text.Text == "" {
			c.add(where, "header text is required")
			return
		}
		c.plainObject(where+" text", b.Text, MaxHeaderText)
	case *slack.ContextBlock:
		els := b.ContextElements.Elements
		if len(els) == 0 {
			c.add(where, "context block has no elements")
		}
		if len(els) > MaxContextElements {
			c.add(where, "%d elements, limit %d", len(els), MaxContextElements)
		}
		for i, e := range els {
			if t, ok := e.(*slack.TextBlockObject); ok {
				c.textObject(fmt.Sprintf("%s element %d", where, i), t, MaxContextText)
			}
		}
	case *slack.ActionBlock:
		var els []slack.BlockElement
		if b.Elements != nil {
			els = b.Elements.ElementSet
		}
		if len(els) == 0 {
			c.add(where, "actions block has no elements")
		}
		if len(els) > MaxActionsElements {
			c.add(where, "%d elements, limit %d", len(els), MaxActionsElements)
		}
		seen := map[string]bool{}
		for i, e := range els {
			ew := fmt.Sprintf("%s element %d", where, i)
			if btn, ok := e.(*slack.ButtonBlockElement); ok {
				c.button(ew, btn)
				if btn.ActionID != "" && seen[btn.ActionID] {
					c.add(ew, "duplicate action_id %q in one block", btn.ActionID)
				}
				seen[btn.ActionID] = true
			}
		}
	case *slack.InputBlock:
		if !modal {
			c.add(where, "input blocks belong in modals")
		}
		if b.Label == nil || b.Label.Text == "" {
			c.add(where, "input label is required")
		} else {
			c.plainObject(where+" label", b.Label, MaxInputLabel)
		}
		if b.Hint != nil {
			c.plainObject(where+" hint", b.Hint, MaxInputHint)
		}
		if e, ok := b.Element.(*slack.PlainTextInputBlockElement); ok {
			ew := where + " element"
			c.maxLen(ew, "action_id", e.ActionID, MaxActionID)
			if e.Placeholder != nil {
				c.plainObject(ew+" placeholder", e.Placeholder, MaxPlaceholder)
			}
			if e.MaxLength > MaxInputValue {
				c.add(ew, "max_length %d, limit %d", e.MaxLength, MaxInputValue)
			}
			limit := MaxInputValue
			if e.MaxLength > 0 && e.MaxLength < limit {
				limit = e.MaxLength
			}
			if n := textLen(e.InitialValue); n > limit {
				c.add(ew, "initial_value is %d characters, limit %d", n, limit)
			}
		}
	}
}

// textObject checks a text object of either type.
func (c *checker) textObject(where string, t *slack.TextBlockObject, max int) {
	if t == nil {
		return
	}
	switch t.Type {
	case slack.MarkdownType:
		c.mrkdwn(where, t.Text)
	case slack.PlainTextType:
	default:
		c.add(where, "text type %q, want mrkdwn or plain_text", t.Type)
	}
	c.maxLen(where, "text", t.Text, max)
	c.total += textLen(t.Text)
}

// plainObject checks a text object that Slack requires to be plain_text.
func (c *checker) plainObject(where string, t *slack.TextBlockObject, max int) {
	if t.Type != slack.PlainTextType {
		c.add(where, "must be plain_text, got %q", t.Type)
	}
	c.maxLen(where, "text", t.Text, max)
	c.total += textLen(t.Text)
}

func (c *checker) button(where string, b *slack.ButtonBlockElement) {
	if b.Text == nil || b.Text.Text == "" {
		c.add(where, "button text is required")
	} else {
		c.plainObject(where+" text", b.Text, MaxButtonText)
	}
	c.maxLen(where, "action_id", b.ActionID, MaxActionID)
	c.maxLen(where, "value", b.Value, MaxButtonValue)
	if b.URL != "" {
		c.maxLen(where, "url", b.URL, MaxURL)
		if !isWebURL(b.URL) {
			c.add(where, "url must be http(s)")
		}
	}
	switch b.Style {
	case "", slack.StylePrimary, slack.StyleDanger:
	default:
		c.add(where, "style %q, want primary or danger", b.Style)
	}
	if cf := b.Confirm; cf != nil {
		cw := where + " confirm"
		if cf.Title != nil {
			c.plainObject(cw+" title", cf.Title, MaxConfirmTitle)
		}
		if cf.Text != nil {
			c.textObject(cw+" text", cf.Text, MaxConfirmText)
		}
		if cf.Confirm != nil {
			c.plainObject(cw+" confirm", cf.Confirm, MaxConfirmButton)
		}
		if cf.Deny != nil {
			c.plainObject(cw+" deny", cf.Deny, MaxConfirmButton)
		}
	}
}

// mrkdwn reports unescaped control characters: a raw & that starts no
// entity, a < that opens no link or mention, a > that closes nothing (a
// leading "> " quote is allowed), and broadcast mentions, which AutoHeal
// never sends.
func (c *checker) mrkdwn(where, s string) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '&':
			rest := s[i:]
			if !strings.HasPrefix(rest, "&amp;") && !strings.HasPrefix(rest, "&lt;") && !strings.HasPrefix(rest, "&gt;") {
				c.add(where, "unescaped '&' at offset %d (send &amp;)", i)
				return
			}
		case '<':
			end := strings.IndexByte(s[i:], '>')
			if end < 0 {
				c.add(where, "unescaped '<' at offset %d (send &lt;)", i)
				return
			}
			seq := s[i+1 : i+end]
			if problem := controlSequence(seq); problem != "" {
				c.add(where, "%s at offset %d", problem, i)
				return
			}
			i += end
		case '>':
			lineStart := i == 0 || s[i-1] == '\n'
			if !lineStart {
				c.add(where, "unescaped '>' at offset %d (send &gt;)", i)
				return
			}
		}
	}
}

// controlSequence checks the inside of <…>: a link or a user/channel
// mention. It returns a problem description, or "" when the sequence is fine.
func controlSequence(seq string) string {
	target, _, _ := strings.Cut(seq, "|")
	switch {
	case strings.ContainsAny(seq, "<"):
		return "unescaped '<'"
	case strings.HasPrefix(target, "http://"), strings.HasPrefix(target, "https://"), strings.HasPrefix(target, "mailto:"):
		if textLen(target) > MaxURL {
			return fmt.Sprintf("link URL is %d characters, limit %d", textLen(target), MaxURL)
		}
		return ""
	case strings.HasPrefix(target, "@U"), strings.HasPrefix(target, "@W"), strings.HasPrefix(target, "#C"),
		strings.HasPrefix(target, "#G"), strings.HasPrefix(target, "!date^"), strings.HasPrefix(target, "!subteam^"):
		return ""
	case target == "!channel" || target == "!here" || target == "!everyone":
		return "broadcast mention <" + target + ">"
	}
	return "unescaped '<' (not a link or mention)"
}

func isWebURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
