package slacksim

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// verificationToken is the legacy "token" field Slack still puts in
// payloads; slack-go ignores it in Socket Mode.
const verificationToken = "sim-verification-token"

// Interaction identifies a pushed slash command or interaction.
type Interaction struct {
	EnvelopeID  string
	TriggerID   string // valid for views.open for Options.TriggerTTL
	ResponseURL string
	ActionTS    string
}

// SlashCommandOptions describes a slash command invocation.
type SlashCommandOptions struct {
	Channel string
	User    string
	Command string // default "/autoheal"
	Text    string
}

// BlockActionOptions describes a click (or selection) on an interactive
// element of a stored message, ephemeral message or open modal.
type BlockActionOptions struct {
	Channel   string // with MessageTS: a channel or ephemeral message
	MessageTS string
	ViewID    string // or: an element of a modal
	User      string
	ActionID  string
	// Value chooses the option of a select, radio group or overflow menu
	// (comma-separated for multi-selects) or the value of a picker; buttons
	// send their own value.
	Value string
}

// ViewSubmissionOptions describes the submission of an open modal.
type ViewSubmissionOptions struct {
	ViewID string
	User   string // default: the user the modal was opened for
	// Values maps an input block's block_id to what the user entered or
	// chose (option values for selects, comma-separated for multi-selects).
	// Inputs not named are submitted empty.
	Values map[string]string
}

var mentionRE = regexp.MustCompile(`<@([A-Z0-9]+)(?:\|[^>]*)?>`)

// MentionOptions describes a user mentioning the bot.
type MentionOptions struct {
	Channel  string
	User     string
	Text     string // the bot mention is prefixed unless the text has one
	ThreadTS string // set to mention the bot inside an existing thread
	ConnID   string // deliver on this connection; "" for round-robin
}

// Mentioned identifies a pushed app_mention.
type Mentioned struct {
	EventID    string
	EnvelopeID string
	Channel    string
	TS         string // the mention message's ts
	// ThreadTS is the thread the bot should answer in: the mention's thread,
	// or the mention itself when it was posted at the top level.
	ThreadTS string
}

// MentionEnvelope stores a user's message mentioning the bot and returns
// the app_mention events_api envelope Slack would send for it (not yet
// pushed; see Push and PushTo).
func (s *Server) MentionEnvelope(o MentionOptions) (Envelope, Mentioned) {
	channel, user, text, threadTS := o.Channel, o.User, o.Text, o.ThreadTS
	mention := "<@" + s.opts.BotUserID + ">"
	if !strings.Contains(text, mention) {
		text = mention + " " + text
	}
	ts := s.nextTS()
	s.mu.Lock()
	if c := s.channelLocked(channel, true); c != nil {
		channel = c.info.ID
		m := s.storeMessageLocked(c, Message{Channel: channel, TS: ts, ThreadTS: threadTS, User: user, Text: text, PostedAt: time.Now()})
		threadTS = m.ThreadTS
	} else {
		s.log.Warn("app_mention without a channel: message not stored", "user", user)
	}
	s.mu.Unlock()

	event := map[string]any{
		"type": "app_mention", "user": user, "text": text, "ts": ts, "channel": channel,
		"event_ts": ts, "team": s.opts.TeamID, "client_msg_id": newUUID(),
		"blocks": mentionBlocks(text),
	}
	if threadTS != "" {
		event["thread_ts"] = threadTS
	}
	eventID := s.nextID("Ev")
	payload := map[string]any{
		"token": verificationToken, "team_id": s.opts.TeamID, "api_app_id": s.opts.AppID,
		"event": event, "type": "event_callback", "event_id": eventID, "event_time": time.Now().Unix(),
		"authorizations": []map[string]any{{
			"enterprise_id": nil, "team_id": s.opts.TeamID, "user_id": s.opts.BotUserID,
			"is_bot": true, "is_enterprise_install": false,
		}},
		"is_ext_shared_channel": false,
		"event_context":         "4-" + base64.RawURLEncoding.EncodeToString([]byte(`{"et":"app_mention","tid":"`+s.opts.TeamID+`","aid":"`+s.opts.AppID+`","cid":"`+channel+`"}`)),
	}
	raw, _ := json.Marshal(payload) // plain maps of strings: cannot fail
	env := Envelope{EnvelopeID: newUUID(), Type: EnvelopeEventsAPI, Payload: raw}
	answerIn := threadTS
	if answerIn == "" {
		answerIn = ts
	}
	return env, Mentioned{EventID: eventID, EnvelopeID: env.EnvelopeID, Channel: channel, TS: ts, ThreadTS: answerIn}
}

// MentionEvent stores a user's message mentioning the bot and pushes the
// app_mention event (to o.ConnID, or round-robin).
func (s *Server) MentionEvent(o MentionOptions) (Mentioned, error) {
	env, m := s.MentionEnvelope(o)
	if _, err := s.push(env, m.EventID, o.ConnID); err != nil {
		return m, err
	}
	return m, nil
}

// mentionBlocks is the rich_text block Slack attaches to a typed message.
func mentionBlocks(text string) []map[string]any {
	var elems []map[string]any
	last := 0
	for _, loc := range mentionRE.FindAllStringSubmatchIndex(text, -1) {
		if loc[0] > last {
			elems = append(elems, map[string]any{"type": "text", "text": text[last:loc[0]]})
		}
		elems = append(elems, map[string]any{"type": "user", "user_id": text[loc[2]:loc[3]]})
		last = loc[1]
	}
	if last < len(text) {
		elems = append(elems, map[string]any{"type": "text", "text": text[last:]})
	}
	return []map[string]any{{
		"type": "rich_text", "block_id": randomHex(3),
		"elements": []map[string]any{{"type": "rich_text_section", "elements": elems}},
	}}
}

// Mention has user mention the bot in channel (in the thread of threadTS
// when set): the message is stored and an app_mention event is pushed
// round-robin. A push failure (every queue full) is logged; the ids are
// returned regardless. MentionEvent returns the error and the message ts.
func (s *Server) Mention(channel, user, text, threadTS string) (eventID, envelopeID string) {
	m, err := s.MentionEvent(MentionOptions{Channel: channel, User: user, Text: text, ThreadTS: threadTS})
	if err != nil {
		s.log.Error("push app_mention", "event_id", m.EventID, "err", err)
	}
	return m.EventID, m.EnvelopeID
}

func (s *Server) userObject(id string) map[string]any {
	s.mu.Lock()
	u, ok := s.state.users[id]
	s.mu.Unlock()
	name := id
	if ok && u.Name != "" {
		name = u.Name
	}
	return map[string]any{"id": id, "username": name, "name": name, "team_id": s.opts.TeamID}
}

func (s *Server) newResponseURLLocked(r *responseURL) string {
	kind := "commands"
	if r.kind == "action" {
		kind = "actions"
	}
	path := fmt.Sprintf("/%s/%s/%d/%s", kind, s.opts.TeamID, s.seq.Add(1), randomHex(12))
	r.created = time.Now()
	if len(s.state.responses) >= s.opts.Limits.MaxRecords {
		for k, old := range s.state.responses {
			if time.Since(old.created) > responseURLTTL {
				delete(s.state.responses, k)
			}
		}
	}
	s.state.responses[path] = r
	return s.base + path
}

// SlashCommandEnvelope builds the slash_commands envelope for a command
// (not yet pushed), issuing its trigger id and response URL.
func (s *Server) SlashCommandEnvelope(o SlashCommandOptions) (Envelope, Interaction) {
	if o.Command == "" {
		o.Command = "/autoheal"
	}
	s.mu.Lock()
	chName := o.Channel
	if c := s.channelLocked(o.Channel, true); c != nil {
		o.Channel, chName = c.info.ID, c.info.Name
	}
	trig := s.newTriggerLocked(o.User, o.Channel)
	respURL := s.newResponseURLLocked(&responseURL{kind: "command", channel: o.Channel, user: o.User})
	s.mu.Unlock()
	user := s.userObject(o.User)
	// Slash command payloads are the form fields as JSON strings.
	payload := map[string]any{
		"token": verificationToken, "team_id": s.opts.TeamID, "team_domain": s.opts.TeamDomain,
		"channel_id": o.Channel, "channel_name": chName, "user_id": o.User, "user_name": user["name"],
		"command": o.Command, "text": o.Text, "api_app_id": s.opts.AppID,
		"is_enterprise_install": "false", "response_url": respURL, "trigger_id": trig,
	}
	raw, _ := json.Marshal(payload)
	env := Envelope{EnvelopeID: newUUID(), Type: EnvelopeSlashCommands, Payload: raw, AcceptsResponsePayload: true}
	return env, Interaction{EnvelopeID: env.EnvelopeID, TriggerID: trig, ResponseURL: respURL}
}

// SlashCommand pushes a slash command round-robin.
func (s *Server) SlashCommand(o SlashCommandOptions) (Interaction, error) {
	env, in := s.SlashCommandEnvelope(o)
	if _, err := s.push(env, "", ""); err != nil {
		return in, err
	}
	return in, nil
}

// BlockActionEnvelope builds the block_actions envelope for a click on an
// element of a stored message, ephemeral message or modal.
func (s *Server) BlockActionEnvelope(o BlockActionOptions) (Envelope, Interaction, error) {
	if o.ActionID == "" {
		return Envelope{}, Interaction{}, errors.New("slacksim: block action: ActionID is required")
	}
	actionTS := s.nextTS()
	payload := map[string]any{
		"type": "block_actions", "user": s.userObject(o.User), "api_app_id": s.opts.AppID,
		"token": verificationToken, "team": map[string]any{"id": s.opts.TeamID, "domain": s.opts.TeamDomain},
		"enterprise": nil, "is_enterprise_install": false, "state": map[string]any{"values": map[string]any{}},
	}
	s.mu.Lock()
	var blocks json.RawMessage
	resp := &responseURL{kind: "action", channel: o.Channel, user: o.User, messageTS: o.MessageTS}
	switch {
	case o.ViewID != "":
		v, ok := s.state.views[o.ViewID]
		if !ok {
			s.mu.Unlock()
			return Envelope{}, Interaction{}, fmt.Errorf("slacksim: block action: unknown view %s", o.ViewID)
		}
		blocks = v.Blocks
		payload["container"] = map[string]any{"type": "view", "view_id": v.ID}
		payload["view"] = s.viewJSON(v)
		resp = nil
	default:
		c, ok := s.state.channels[o.Channel]
		if !ok {
			s.mu.Unlock()
			return Envelope{}, Interaction{}, fmt.Errorf("slacksim: block action: unknown channel %s", o.Channel)
		}
		container := map[string]any{"type": "message", "message_ts": o.MessageTS, "channel_id": o.Channel, "is_ephemeral": false}
		if m, ok := c.byTS[o.MessageTS]; ok && !m.Deleted {
			blocks = m.Blocks
			payload["message"] = s.messageJSON(m)
			if m.ThreadTS != "" {
				container["thread_ts"] = m.ThreadTS
				resp.threadTS = m.ThreadTS
			}
		} else if e, ok := s.ephemeralLocked(o.Channel, o.User, o.MessageTS); ok {
			blocks = e.Blocks
			container["is_ephemeral"] = true
			resp.ephemeral = true
			if e.ThreadTS != "" {
				container["thread_ts"] = e.ThreadTS
				resp.threadTS = e.ThreadTS
			}
		} else {
			s.mu.Unlock()
			return Envelope{}, Interaction{}, fmt.Errorf("slacksim: block action: no message %s in %s visible to %s", o.MessageTS, o.Channel, o.User)
		}
		payload["container"] = container
		payload["channel"] = map[string]any{"id": c.info.ID, "name": c.info.Name}
	}
	action, err := buildAction(blocks, o.ActionID, o.Value)
	if err != nil {
		s.mu.Unlock()
		return Envelope{}, Interaction{}, fmt.Errorf("slacksim: block action: %w", err)
	}
	action["action_ts"] = actionTS
	trig := s.newTriggerLocked(o.User, o.Channel)
	in := Interaction{TriggerID: trig, ActionTS: actionTS}
	if resp != nil {
		in.ResponseURL = s.newResponseURLLocked(resp)
		payload["response_url"] = in.ResponseURL
	}
	s.mu.Unlock()
	payload["trigger_id"] = trig
	payload["actions"] = []map[string]any{action}
	raw, err := json.Marshal(payload)
	if err != nil {
		return Envelope{}, Interaction{}, fmt.Errorf("slacksim: block action: encode: %w", err)
	}
	env := Envelope{EnvelopeID: newUUID(), Type: EnvelopeInteractive, Payload: raw}
	in.EnvelopeID = env.EnvelopeID
	return env, in, nil
}

// BlockAction pushes a block_actions interaction round-robin.
func (s *Server) BlockAction(o BlockActionOptions) (Interaction, error) {
	env, in, err := s.BlockActionEnvelope(o)
	if err != nil {
		return in, err
	}
	if _, err := s.push(env, "", ""); err != nil {
		return in, err
	}
	return in, nil
}

func (s *Server) ephemeralLocked(channel, user, ts string) (Ephemeral, bool) {
	for i := len(s.state.ephemerals) - 1; i >= 0; i-- {
		e := s.state.ephemerals[i]
		if e.Channel == channel && e.TS == ts && (user == "" || e.User == user) {
			return e, true
		}
	}
	return Ephemeral{}, false
}

// findElement locates the interactive element with actionID in blocks.
func findElement(blocks json.RawMessage, actionID string) (blockID string, el map[string]any, err error) {
	var list []map[string]any
	if len(blocks) > 0 {
		if err := json.Unmarshal(blocks, &list); err != nil {
			return "", nil, fmt.Errorf("stored blocks: %w", err)
		}
	}
	for i, b := range list {
		var cands []any
		switch b["type"] {
		case "actions":
			cands, _ = b["elements"].([]any)
		case "section":
			cands = []any{b["accessory"]}
		case "input":
			cands = []any{b["element"]}
		}
		for _, c := range cands {
			if m, ok := c.(map[string]any); ok && m["action_id"] == actionID {
				id, _ := b["block_id"].(string)
				if id == "" {
					id = fmt.Sprintf("sim-block-%d", i)
				}
				return id, m, nil
			}
		}
	}
	return "", nil, fmt.Errorf("no element with action_id %q", actionID)
}

// findOption returns the option (from options or option_groups) with value.
func findOption(el map[string]any, value string) (map[string]any, bool) {
	var opts []any
	if o, ok := el["options"].([]any); ok {
		opts = append(opts, o...)
	}
	if groups, ok := el["option_groups"].([]any); ok {
		for _, g := range groups {
			if gm, ok := g.(map[string]any); ok {
				if o, ok := gm["options"].([]any); ok {
					opts = append(opts, o...)
				}
			}
		}
	}
	for _, o := range opts {
		if om, ok := o.(map[string]any); ok && om["value"] == value {
			return om, true
		}
	}
	return nil, false
}

// elementState is what Slack reports for an element given the user's
// input: the action of a block_actions payload or a view's state value.
func elementState(el map[string]any, value string) (map[string]any, error) {
	typ, _ := el["type"].(string)
	out := map[string]any{"type": typ}
	splitValues := func() []string {
		if value == "" {
			return []string{}
		}
		return strings.Split(value, ",")
	}
	switch typ {
	case "button":
		out["text"] = el["text"]
		out["value"] = el["value"]
		if st, ok := el["style"]; ok {
			out["style"] = st
		}
	case "static_select", "external_select", "radio_buttons", "overflow":
		if value == "" {
			out["selected_option"] = nil
			break
		}
		opt, ok := findOption(el, value)
		if !ok {
			return nil, fmt.Errorf("%s %v has no option %q", typ, el["action_id"], value)
		}
		out["selected_option"] = opt
	case "multi_static_select", "checkboxes":
		sel := []any{}
		for _, v := range splitValues() {
			opt, ok := findOption(el, v)
			if !ok {
				return nil, fmt.Errorf("%s %v has no option %q", typ, el["action_id"], v)
			}
			sel = append(sel, opt)
		}
		out["selected_options"] = sel
	case "users_select":
		out["selected_user"] = nullable(value)
	case "multi_users_select":
		out["selected_users"] = splitValues()
	case "conversations_select":
		out["selected_conversation"] = nullable(value)
	case "channels_select":
		out["selected_channel"] = nullable(value)
	case "datepicker":
		out["selected_date"] = nullable(value)
	case "timepicker":
		out["selected_time"] = nullable(value)
	default: // plain_text_input, number_input, email/url inputs...
		out["value"] = nullable(value)
	}
	return out, nil
}

func nullable(v string) any {
	if v == "" {
		return nil
	}
	return v
}

func buildAction(blocks json.RawMessage, actionID, value string) (map[string]any, error) {
	blockID, el, err := findElement(blocks, actionID)
	if err != nil {
		return nil, err
	}
	action, err := elementState(el, value)
	if err != nil {
		return nil, err
	}
	action["action_id"] = actionID
	action["block_id"] = blockID
	return action, nil
}

// ViewSubmissionEnvelope builds the view_submission envelope of an open
// modal with the given input values.
func (s *Server) ViewSubmissionEnvelope(o ViewSubmissionOptions) (Envelope, Interaction, error) {
	s.mu.Lock()
	v, ok := s.state.views[o.ViewID]
	if !ok {
		s.mu.Unlock()
		return Envelope{}, Interaction{}, fmt.Errorf("slacksim: view submission: unknown view %s", o.ViewID)
	}
	if o.User == "" {
		o.User = v.User
	}
	view := s.viewJSON(v)
	blocks := v.Blocks
	trig := s.newTriggerLocked(o.User, "")
	s.mu.Unlock()

	values, err := viewStateValues(blocks, o.Values)
	if err != nil {
		return Envelope{}, Interaction{}, fmt.Errorf("slacksim: view submission %s: %w", o.ViewID, err)
	}
	view["state"] = map[string]any{"values": values}
	payload := map[string]any{
		"type": "view_submission", "team": map[string]any{"id": s.opts.TeamID, "domain": s.opts.TeamDomain},
		"user": s.userObject(o.User), "api_app_id": s.opts.AppID, "token": verificationToken,
		"trigger_id": trig, "view": view, "response_urls": []any{},
		"is_enterprise_install": false, "enterprise": nil,
	}
	raw, err := json.Marshal(payload)
	if err != nil {
		return Envelope{}, Interaction{}, fmt.Errorf("slacksim: view submission: encode: %w", err)
	}
	env := Envelope{EnvelopeID: newUUID(), Type: EnvelopeInteractive, Payload: raw, AcceptsResponsePayload: true}
	return env, Interaction{EnvelopeID: env.EnvelopeID, TriggerID: trig}, nil
}

// ViewSubmission pushes a view_submission interaction round-robin.
func (s *Server) ViewSubmission(o ViewSubmissionOptions) (Interaction, error) {
	env, in, err := s.ViewSubmissionEnvelope(o)
	if err != nil {
		return in, err
	}
	if _, err := s.push(env, "", ""); err != nil {
		return in, err
	}
	return in, nil
}

// viewStateValues builds state.values (block_id -> action_id -> state) for
// every input block of a view.
func viewStateValues(blocks json.RawMessage, given map[string]string) (map[string]any, error) {
	var list []map[string]any
	if len(blocks) > 0 {
		if err := json.Unmarshal(blocks, &list); err != nil {
			return nil, fmt.Errorf("stored blocks: %w", err)
		}
	}
	values := map[string]any{}
	used := map[string]bool{}
	for i, b := range list {
		if b["type"] != "input" {
			continue
		}
		el, ok := b["element"].(map[string]any)
		if !ok {
			continue
		}
		blockID, _ := b["block_id"].(string)
		if blockID == "" {
			blockID = fmt.Sprintf("sim-block-%d", i)
		}
		actionID, _ := el["action_id"].(string)
		if actionID == "" {
			actionID = fmt.Sprintf("sim-action-%d", i)
		}
		val, set := given[blockID]
		used[blockID] = set
		st, err := elementState(el, val)
		if err != nil {
			return nil, fmt.Errorf("block %s: %w", blockID, err)
		}
		values[blockID] = map[string]any{actionID: st}
	}
	for id := range given {
		if !used[id] {
			return nil, fmt.Errorf("no input block %q in the view", id)
		}
	}
	return values, nil
}
