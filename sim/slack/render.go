package slacksim

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Terminal rendering of threads, for the demo and for readable test
// failures: Block Kit is drawn the way a person reads it in Slack, without
// timestamps so that the output is stable.

const (
	ruleWidth      = 60
	fieldColWidth  = 34
	maxFileLines   = 12
	renderIndent   = "  "
	dividerLine    = "────────────────────────────────────────"
	attachmentBar  = "┃ "
	codeBar        = "│ "
	ephemeralLabel = "only visible to "
)

// renderItem is a message or an ephemeral in a thread, in ts order.
type renderItem struct {
	ts        string
	msg       *Message
	ephemeral *Ephemeral
}

// RenderThread prints the thread rooted at ts in channel as a person reads
// it: authors, text with mrkdwn lightly converted (mentions, links,
// entities, common emoji), header/section/fields/context/actions/divider
// blocks, attachments, files, reactions, and ephemeral messages marked as
// such.
func (s *Server) RenderThread(channel, ts string) string {
	s.mu.Lock()
	chName := channel
	if c, ok := s.state.channels[channel]; ok {
		chName = c.info.Name
	}
	var items []renderItem
	for _, m := range s.threadLocked(channel, ts) {
		snap := m.snapshot()
		items = append(items, renderItem{ts: snap.TS, msg: &snap})
	}
	for _, e := range s.state.ephemerals {
		if e.Channel == channel && (e.ThreadTS == ts || e.TS == ts) {
			e := e
			items = append(items, renderItem{ts: e.TS, ephemeral: &e})
		}
	}
	r := &renderer{users: make(map[string]User, len(s.state.users)), channels: map[string]string{}}
	for id, u := range s.state.users {
		r.users[id] = u
	}
	for id, c := range s.state.channels {
		r.channels[id] = c.info.Name
	}
	botUser := s.opts.BotUserID
	s.mu.Unlock()

	slices.SortStableFunc(items, func(a, b renderItem) int { return compareTS(a.ts, b.ts) })
	var out strings.Builder
	title := "#" + strings.TrimPrefix(chName, "#") + " · thread"
	out.WriteString(title + "\n")
	out.WriteString(strings.Repeat("─", ruleWidth) + "\n")
	if len(items) == 0 {
		out.WriteString("\n" + renderIndent + "(no messages)\n")
		return out.String()
	}
	for _, it := range items {
		out.WriteString("\n")
		var lines []string
		switch {
		case it.msg != nil:
			m := it.msg
			head := r.author(m.User, m.BotID != "" || m.User == botUser)
			if m.Edits > 0 {
				head += "  (edited)"
			}
			if m.ReplyBroadcast {
				head += "  (also sent to the channel)"
			}
			out.WriteString(head + "\n")
			lines = r.messageBody(m.Text, m.Blocks, m.Attachments)
			lines = append(lines, r.files(m.Files)...)
			if len(m.Reactions) > 0 {
				var rs []string
				for _, rx := range m.Reactions {
					rs = append(rs, fmt.Sprintf("%s %d", emoji(":"+rx.Name+":"), len(rx.Users)))
				}
				lines = append(lines, strings.Join(rs, "  "))
			}
		default:
			e := it.ephemeral
			out.WriteString(r.author(botUser, true) + "  · " + ephemeralLabel + r.userName(e.User) + "\n")
			lines = r.messageBody(e.Text, e.Blocks, nil)
		}
		for _, l := range lines {
			if l == "" {
				out.WriteString("\n")
				continue
			}
			out.WriteString(renderIndent + l + "\n")
		}
	}
	return out.String()
}

// compareTS orders Slack timestamps numerically.
func compareTS(a, b string) int {
	as, af, _ := strings.Cut(a, ".")
	bs, bf, _ := strings.Cut(b, ".")
	ai, _ := strconv.ParseInt(as, 10, 64)
	bi, _ := strconv.ParseInt(bs, 10, 64)
	switch {
	case ai != bi:
		if ai < bi {
			return -1
		}
		return 1
	}
	af = af + strings.Repeat("0", max(0, 6-len(af)))
	bf = bf + strings.Repeat("0", max(0, 6-len(bf)))
	return strings.Compare(af, bf)
}

type renderer struct {
	users    map[string]User
	channels map[string]string
}

func (r *renderer) userName(id string) string {
	if u, ok := r.users[id]; ok && u.Name != "" {
		return u.Name
	}
	return id
}

func (r *renderer) author(id string, bot bool) string {
	u, ok := r.users[id]
	switch {
	case bot:
		return r.userName(id) + "  APP"
	case ok && u.RealName != "" && u.RealName != u.Name:
		return u.Name + " (" + u.RealName + ")"
	}
	return r.userName(id)
}

// messageBody renders blocks when present (text is then only the
// notification fallback, as in Slack), else the text.
func (r *renderer) messageBody(text string, blocks, attachments json.RawMessage) []string {
	var lines []string
	if len(blocks) > 0 {
		lines = r.blocks(blocks)
	} else if text != "" {
		lines = strings.Split(r.mrkdwn(text), "\n")
	}
	return append(lines, r.attachments(attachments)...)
}

func (r *renderer) blocks(raw json.RawMessage) []string {
	var list []map[string]any
	if err := json.Unmarshal(raw, &list); err != nil {
		return []string{"[unreadable blocks]"}
	}
	var lines []string
	for _, b := range list {
		lines = append(lines, r.block(b)...)
	}
	return lines
}

func (r *renderer) block(b map[string]any) []string {
	typ, _ := b["type"].(string)
	switch typ {
	case "header":
		t := r.text(b["text"])
		return []string{t, strings.Repeat("═", min(ruleWidth, max(3, utf8.RuneCountInString(t))))}
	case "section":
		var lines []string
		if _, ok := b["text"]; ok {
			lines = append(lines, strings.Split(r.text(b["text"]), "\n")...)
		}
		if fields, ok := b["fields"].([]any); ok {
			lines = append(lines, r.fields(fields)...)
		}
		if acc, ok := b["accessory"].(map[string]any); ok {
			if e := r.element(acc); e != "" {
				lines = append(lines, e)
			}
		}
		return lines
	case "context":
		var parts []string
		elems, _ := b["elements"].([]any)
		for _, e := range elems {
			m, _ := e.(map[string]any)
			if m["type"] == "image" {
				if alt, _ := m["alt_text"].(string); alt != "" {
					parts = append(parts, "["+alt+"]")
				}
				continue
			}
			parts = append(parts, strings.ReplaceAll(r.text(e), "\n", " "))
		}
		return []string{"› " + strings.Join(parts, " · ")}
	case "actions":
		var parts []string
		elems, _ := b["elements"].([]any)
		for _, e := range elems {
			if m, ok := e.(map[string]any); ok {
				parts = append(parts, r.element(m))
			}
		}
		return []string{strings.Join(parts, "  ")}
	case "divider":
		return []string{dividerLine}
	case "image":
		alt, _ := b["alt_text"].(string)
		return []string{"[image: " + alt + "]"}
	case "markdown":
		t, _ := b["text"].(string)
		return strings.Split(t, "\n")
	case "rich_text":
		return r.richText(b["elements"])
	case "input":
		label := r.text(b["label"])
		el, _ := b["element"].(map[string]any)
		return []string{label + ": " + r.element(el)}
	case "file":
		return []string{"[file]"}
	}
	return []string{"[" + typ + " block]"}
}

// fields lays section fields out in two columns, as Slack does.
func (r *renderer) fields(fields []any) []string {
	var lines []string
	for i := 0; i < len(fields); i += 2 {
		left := strings.Split(r.text(fields[i]), "\n")
		var right []string
		if i+1 < len(fields) {
			right = strings.Split(r.text(fields[i+1]), "\n")
		}
		for j := 0; j < max(len(left), len(right)); j++ {
			var l, rt string
			if j < len(left) {
				l = left[j]
			}
			if j < len(right) {
				rt = right[j]
			}
			if rt == "" {
				lines = append(lines, l)
				continue
			}
			pad := max(1, fieldColWidth-utf8.RuneCountInString(l))
			lines = append(lines, l+strings.Repeat(" ", pad)+rt)
		}
	}
	return lines
}

func (r *renderer) element(e map[string]any) string {
	typ, _ := e["type"].(string)
	switch typ {
	case "button":
		return "[ " + r.text(e["text"]) + " ]"
	case "static_select", "external_select", "users_select", "conversations_select", "channels_select",
		"multi_static_select", "multi_users_select":
		label := r.text(e["placeholder"])
		if opt, ok := e["initial_option"].(map[string]any); ok {
			label = r.text(opt["text"])
		}
		if label == "" {
			label = "Select"
		}
		return "[ " + label + " ▾ ]"
	case "overflow":
		return "[ ⋯ ]"
	case "datepicker":
		d, _ := e["initial_date"].(string)
		if d == "" {
			d = "date"
		}
		return "[ " + d + " ]"
	case "plain_text_input", "number_input", "email_text_input", "url_text_input":
		v, _ := e["initial_value"].(string)
		if v == "" {
			v = r.text(e["placeholder"])
		}
		return "[ " + v + " ]"
	case "image":
		alt, _ := e["alt_text"].(string)
		return "[image: " + alt + "]"
	case "":
		return ""
	}
	return "[ " + typ + " ]"
}

// text renders a composition text object.
func (r *renderer) text(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	t, _ := m["text"].(string)
	if m["type"] == "mrkdwn" {
		return r.mrkdwn(t)
	}
	return emoji(t)
}

func (r *renderer) richText(v any) []string {
	elems, _ := v.([]any)
	var lines []string
	for _, e := range elems {
		m, _ := e.(map[string]any)
		switch m["type"] {
		case "rich_text_section":
			lines = append(lines, strings.Split(r.richInline(m["elements"]), "\n")...)
		case "rich_text_preformatted":
			for _, l := range strings.Split(r.richInline(m["elements"]), "\n") {
				lines = append(lines, codeBar+l)
			}
		case "rich_text_quote":
			for _, l := range strings.Split(r.richInline(m["elements"]), "\n") {
				lines = append(lines, "> "+l)
			}
		case "rich_text_list":
			items, _ := m["elements"].([]any)
			for i, it := range items {
				im, _ := it.(map[string]any)
				bullet := "• "
				if m["style"] == "ordered" {
					bullet = strconv.Itoa(i+1) + ". "
				}
				lines = append(lines, bullet+r.richInline(im["elements"]))
			}
		}
	}
	return lines
}

func (r *renderer) richInline(v any) string {
	elems, _ := v.([]any)
	var b strings.Builder
	for _, e := range elems {
		m, _ := e.(map[string]any)
		switch m["type"] {
		case "text":
			t, _ := m["text"].(string)
			b.WriteString(t)
		case "user":
			id, _ := m["user_id"].(string)
			b.WriteString("@" + r.userName(id))
		case "channel":
			id, _ := m["channel_id"].(string)
			b.WriteString("#" + r.channelName(id))
		case "link":
			u, _ := m["url"].(string)
			if t, _ := m["text"].(string); t != "" {
				b.WriteString(t + " (" + u + ")")
			} else {
				b.WriteString(u)
			}
		case "emoji":
			n, _ := m["name"].(string)
			b.WriteString(emoji(":" + n + ":"))
		case "usergroup":
			id, _ := m["usergroup_id"].(string)
			b.WriteString("@" + id)
		case "broadcast":
			rng, _ := m["range"].(string)
			b.WriteString("@" + rng)
		}
	}
	return b.String()
}

func (r *renderer) channelName(id string) string {
	if n, ok := r.channels[id]; ok && n != "" {
		return strings.TrimPrefix(n, "#")
	}
	return id
}

func (r *renderer) attachments(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var list []map[string]any
	if err := json.Unmarshal(raw, &list); err != nil {
		return []string{"[unreadable attachments]"}
	}
	var lines []string
	for _, a := range list {
		str := func(k string) string { v, _ := a[k].(string); return v }
		if p := str("pretext"); p != "" {
			lines = append(lines, strings.Split(r.mrkdwn(p), "\n")...)
		}
		var body []string
		if au := str("author_name"); au != "" {
			body = append(body, au)
		}
		if t := str("title"); t != "" {
			if l := str("title_link"); l != "" {
				t += " (" + l + ")"
			}
			body = append(body, t)
		}
		if t := str("text"); t != "" {
			body = append(body, strings.Split(r.mrkdwn(t), "\n")...)
		}
		if fields, ok := a["fields"].([]any); ok {
			for _, f := range fields {
				fm, _ := f.(map[string]any)
				title, _ := fm["title"].(string)
				value, _ := fm["value"].(string)
				body = append(body, title+": "+r.mrkdwn(value))
			}
		}
		if bl, ok := a["blocks"]; ok {
			raw, _ := json.Marshal(bl)
			body = append(body, r.blocks(raw)...)
		}
		if f := str("footer"); f != "" {
			body = append(body, r.mrkdwn(f))
		}
		if len(body) == 0 {
			if fb := str("fallback"); fb != "" {
				body = append(body, fb)
			}
		}
		for _, l := range body {
			lines = append(lines, attachmentBar+l)
		}
	}
	return lines
}

func (r *renderer) files(files []File) []string {
	var lines []string
	for _, f := range files {
		head := "📎 " + f.Name
		if f.Title != "" && f.Title != f.Name {
			head += " — " + f.Title
		}
		lines = append(lines, fmt.Sprintf("%s (%d bytes)", head, f.Size))
		content := strings.Split(strings.TrimRight(string(f.Content), "\n"), "\n")
		shown := content[:min(len(content), maxFileLines)]
		for _, l := range shown {
			lines = append(lines, codeBar+strings.ReplaceAll(l, "\t", "    "))
		}
		if rest := len(content) - len(shown); rest > 0 {
			lines = append(lines, fmt.Sprintf("%s… %d more lines", codeBar, rest))
		}
	}
	return lines
}

var (
	angleRE = regexp.MustCompile(`<([^<>]+)>`)
	emojiRE = regexp.MustCompile(`:([a-z0-9_+\-]+):`)
)

// mrkdwn converts Slack's markup for a terminal: mentions, channels, links
// and special commands become readable text, entities are unescaped and
// common emoji shortcodes become emoji. Emphasis and code marks are kept.
func (r *renderer) mrkdwn(t string) string {
	t = angleRE.ReplaceAllStringFunc(t, func(m string) string {
		inner := m[1 : len(m)-1]
		target, label, hasLabel := strings.Cut(inner, "|")
		switch {
		case strings.HasPrefix(target, "@"):
			if hasLabel {
				return "@" + strings.TrimPrefix(label, "@")
			}
			return "@" + r.userName(target[1:])
		case strings.HasPrefix(target, "#"):
			if hasLabel {
				return "#" + label
			}
			return "#" + r.channelName(target[1:])
		case strings.HasPrefix(target, "!subteam^"):
			if hasLabel {
				return "@" + strings.TrimPrefix(label, "@")
			}
			return "@" + strings.TrimPrefix(target, "!subteam^")
		case strings.HasPrefix(target, "!date^"):
			if hasLabel {
				return label
			}
			return target
		case strings.HasPrefix(target, "!"):
			return "@" + target[1:]
		case hasLabel:
			return label + " (" + target + ")"
		}
		return target
	})
	t = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(t)
	return emoji(t)
}

// emoji replaces the shortcodes AutoHeal's messages use with emoji;
// unknown ones stay as typed.
func emoji(t string) string {
	if !strings.Contains(t, ":") {
		return t
	}
	return emojiRE.ReplaceAllStringFunc(t, func(m string) string {
		if e, ok := emojiMap[m[1:len(m)-1]]; ok {
			return e
		}
		return m
	})
}

var emojiMap = map[string]string{
	"white_check_mark": "✅", "heavy_check_mark": "✔️", "x": "❌", "warning": "⚠️",
	"rotating_light": "🚨", "mag": "🔍", "mag_right": "🔎", "hourglass_flowing_sand": "⏳",
	"hourglass": "⌛", "stopwatch": "⏱️", "red_circle": "🔴", "large_green_circle": "🟢",
	"large_yellow_circle": "🟡", "large_orange_circle": "🟠", "large_blue_circle": "🔵",
	"white_circle": "⚪", "large_green_square": "🟩", "large_yellow_square": "🟨",
	"large_red_square": "🟥", "white_large_square": "⬜", "eyes": "👀", "bug": "🐛",
	"wrench": "🔧", "hammer_and_wrench": "🛠️", "robot_face": "🤖", "fire": "🔥",
	"memo": "📝", "link": "🔗", "gear": "⚙️", "lock": "🔒", "+1": "👍", "thumbsup": "👍",
	"-1": "👎", "thumbsdown": "👎", "bulb": "💡", "chart_with_upwards_trend": "📈",
	"clipboard": "📋", "package": "📦", "test_tube": "🧪", "construction": "🚧", "zap": "⚡",
	"information_source": "ℹ️", "question": "❓", "arrows_counterclockwise": "🔄",
	"no_entry": "🚫", "octagonal_sign": "🛑", "scroll": "📜", "satellite": "📡",
	"brain": "🧠", "card_index_dividers": "🗂️", "globe_with_meridians": "🌐",
	"pushpin": "📌", "bookmark_tabs": "📑", "dart": "🎯", "shield": "🛡️", "key": "🔑",
	"page_facing_up": "📄", "floppy_disk": "💾", "arrow_right": "➡️", "tada": "🎉",
}
