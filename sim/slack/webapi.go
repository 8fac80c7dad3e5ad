package slacksim

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"path"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Slack's documented message limits.
const (
	maxTextRunes   = 40_000
	maxMsgBlocks   = 50
	maxViewBlocks  = 100
	maxAttachments = 100
	maxReplyLimit  = 1000
)

// messageJSON renders a stored message the way Slack's API returns it.
// messageJSONFor is messageJSON with the message's metadata when the
// request asks for it (include_all_metadata), as conversations.history and
// conversations.replies answer.
func (s *Server) messageJSONFor(r *apiRequest, m *message) map[string]any {
	out := s.messageJSON(m)
	if v := r.str("include_all_metadata"); (v == "1" || v == "true") && len(m.Metadata) > 0 {
		out["metadata"] = m.Metadata
	}
	return out
}

func (s *Server) messageJSON(m *message) map[string]any {
	out := map[string]any{
		"type": "message",
		"ts":   m.TS,
		"text": m.Text,
		"team": s.opts.TeamID,
	}
	if m.User != "" {
		out["user"] = m.User
	}
	if m.BotID != "" {
		out["bot_id"] = m.BotID
		out["app_id"] = s.opts.AppID
		out["bot_profile"] = map[string]any{
			"id": m.BotID, "app_id": s.opts.AppID, "name": s.opts.BotName,
			"deleted": false, "team_id": s.opts.TeamID, "user_id": s.opts.BotUserID,
		}
	}
	if m.ThreadTS != "" {
		out["thread_ts"] = m.ThreadTS
	}
	if m.ThreadTS == m.TS && len(m.replies) > 0 {
		out["reply_count"] = len(m.replies)
		out["latest_reply"] = m.replies[len(m.replies)-1]
	}
	if m.ReplyBroadcast {
		out["subtype"] = "thread_broadcast"
	}
	if len(m.Blocks) > 0 {
		out["blocks"] = m.Blocks
	}
	if len(m.Attachments) > 0 {
		out["attachments"] = m.Attachments
	}
	if m.Edits > 0 {
		out["edited"] = map[string]any{"user": m.User, "ts": tsOf(m.EditedAt)}
	}
	if len(m.Files) > 0 {
		files := make([]map[string]any, len(m.Files))
		for i, f := range m.Files {
			files[i] = s.fileJSON(&f)
		}
		out["files"] = files
	}
	if len(m.Reactions) > 0 {
		rs := make([]map[string]any, len(m.Reactions))
		for i, r := range m.Reactions {
			rs[i] = map[string]any{"name": r.Name, "users": r.Users, "count": len(r.Users)}
		}
		out["reactions"] = rs
	}
	return out
}

func tsOf(t time.Time) string {
	us := t.UnixMicro()
	return fmt.Sprintf("%d.%06d", us/1_000_000, us%1_000_000)
}

func (s *Server) fileJSON(f *File) map[string]any {
	out := map[string]any{
		"id": f.ID, "name": f.Name, "title": f.Title, "size": f.Size,
		"filetype": f.SnippetType, "mode": "snippet",
		"url_private": s.base + "/files/" + f.ID + "/" + f.Name,
		"permalink":   fmt.Sprintf("https://%s.slack.com/files/%s/%s", s.opts.TeamDomain, s.opts.BotUserID, f.ID),
	}
	// An upload without a snippet type is a hosted file whose type Slack
	// reads from its name (an image gets its mimetype and alt text).
	if f.SnippetType == "" {
		ext := strings.ToLower(strings.TrimPrefix(path.Ext(f.Name), "."))
		out["filetype"], out["mode"] = ext, "hosted"
		if mt := mime.TypeByExtension("." + ext); mt != "" {
			out["mimetype"] = mt
		}
		if f.AltText != "" {
			out["alt_txt"] = f.AltText
		}
	}
	return out
}

// content is the text, blocks and attachments of a message request.
type content struct {
	text        string
	blocks      json.RawMessage
	attachments json.RawMessage
	metadata    json.RawMessage
}

// readContent validates the content parameters like Slack does. requireOne
// demands text, blocks or attachments (no_text otherwise).
func readContent(r *apiRequest, requireOne bool) (content, error) {
	var c content
	c.text = r.str("text")
	if utf8.RuneCountInString(c.text) > maxTextRunes {
		return c, slackErr("msg_too_long")
	}
	blocks, hasBlocks, err := r.raw("blocks")
	if err != nil {
		return c, slackErr("invalid_blocks", "blocks is not valid JSON [json-pointer:/blocks]")
	}
	if hasBlocks {
		if problems := validateBlocks(blocks, maxMsgBlocks, "/blocks"); len(problems) > 0 {
			return c, slackErr("invalid_blocks", problems...)
		}
		if string(blocks) != "[]" {
			c.blocks = blocks
		}
	}
	atts, hasAtts, err := r.raw("attachments")
	if err != nil {
		return c, slackErr("invalid_attachments", "attachments is not valid JSON")
	}
	if hasAtts {
		var list []json.RawMessage
		if err := json.Unmarshal(atts, &list); err != nil {
			return c, slackErr("invalid_attachments", "attachments must be an array")
		}
		if len(list) > maxAttachments {
			return c, slackErr("too_many_attachments")
		}
		if len(list) > 0 {
			c.attachments = atts
		}
	}
	if md, ok, err := r.raw("metadata"); err != nil {
		return c, slackErr("invalid_metadata_format")
	} else if ok {
		c.metadata = md
	}
	if requireOne && strings.TrimSpace(c.text) == "" && c.blocks == nil && c.attachments == nil {
		return c, slackErr("no_text")
	}
	return c, nil
}

func (s *Server) channelParam(r *apiRequest, key string) (string, error) {
	id := r.str(key)
	if id == "" {
		return "", slackErr("channel_not_found")
	}
	return id, nil
}

func (s *Server) storeFull() error {
	if s.state.nMessages >= s.opts.Limits.MaxMessages {
		s.log.Warn("message store full", "limit", s.opts.Limits.MaxMessages)
		return slackErr("sim_store_full", fmt.Sprintf("the simulator keeps at most %d messages", s.opts.Limits.MaxMessages))
	}
	return nil
}

func (s *Server) chatPostMessage(_ context.Context, r *apiRequest) (map[string]any, error) {
	channel, err := s.channelParam(r, "channel")
	if err != nil {
		return nil, err
	}
	threadTS := r.str("thread_ts")
	if threadTS != "" && !tsRE.MatchString(threadTS) {
		return nil, slackErr("invalid_thread_ts")
	}
	c, err := readContent(r, true)
	if err != nil {
		return nil, err
	}
	ts := s.nextTS()
	s.mu.Lock()
	ch := s.channelLocked(channel, false)
	if ch == nil {
		s.mu.Unlock()
		return nil, slackErr("channel_not_found")
	}
	channel = ch.info.ID
	if err := s.storeFull(); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	m := s.storeMessageLocked(ch, Message{
		Channel: channel, TS: ts, ThreadTS: threadTS,
		User: s.opts.BotUserID, BotID: s.opts.BotID,
		Text: c.text, Blocks: c.blocks, Attachments: c.attachments, Metadata: c.metadata,
		ReplyBroadcast: threadTS != "" && r.bool("reply_broadcast"),
		PostedAt:       time.Now(),
	})
	body := map[string]any{"channel": channel, "ts": ts, "message": s.messageJSON(m)}
	s.mu.Unlock()
	return body, nil
}

func (s *Server) chatUpdate(_ context.Context, r *apiRequest) (map[string]any, error) {
	channel, err := s.channelParam(r, "channel")
	if err != nil {
		return nil, err
	}
	ts := r.str("ts")
	c, err := readContent(r, true)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.channelLocked(channel, false)
	if ch == nil {
		return nil, slackErr("channel_not_found")
	}
	m, ok := ch.byTS[ts]
	if !ok || m.Deleted {
		return nil, slackErr("message_not_found")
	}
	if m.BotID != s.opts.BotID {
		return nil, slackErr("cant_update_message")
	}
	if err := s.applyUpdateLocked(m, c, r.has("blocks"), r.has("attachments")); err != nil {
		return nil, err
	}
	return map[string]any{"channel": channel, "ts": ts, "text": m.Text, "message": s.messageJSON(m)}, nil
}

// applyUpdateLocked replaces a message's content and records the update.
// Blocks and attachments not sent are kept, as Slack does. s.mu must be held.
func (s *Server) applyUpdateLocked(m *message, c content, setBlocks, setAtts bool) error {
	if len(m.updates) >= s.opts.Limits.MaxUpdatesPerMessage {
		return slackErr("sim_store_full", fmt.Sprintf("the simulator keeps at most %d updates per message", s.opts.Limits.MaxUpdatesPerMessage))
	}
	now := time.Now()
	m.Text = c.text
	if setBlocks {
		m.Blocks = c.blocks
	}
	if setAtts {
		m.Attachments = c.attachments
	}
	m.Edits++
	m.EditedAt = now
	m.updates = append(m.updates, Update{Time: now, Text: m.Text, Blocks: m.Blocks, Attachments: m.Attachments})
	return nil
}

func (s *Server) chatPostEphemeral(_ context.Context, r *apiRequest) (map[string]any, error) {
	channel, err := s.channelParam(r, "channel")
	if err != nil {
		return nil, err
	}
	user := r.str("user")
	if user == "" {
		return nil, slackErr("user_not_found")
	}
	c, err := readContent(r, true)
	if err != nil {
		return nil, err
	}
	ts := s.nextTS()
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.channelLocked(channel, false)
	if ch == nil {
		return nil, slackErr("channel_not_found")
	}
	channel = ch.info.ID
	// With members configured (the bot is always one), strangers are refused.
	if _, ok := s.state.users[user]; !ok && len(s.state.users) > 1 {
		return nil, slackErr("user_not_in_channel")
	}
	s.addEphemeralLocked(Ephemeral{
		Channel: channel, User: user, TS: ts, ThreadTS: r.str("thread_ts"),
		Text: c.text, Blocks: c.blocks, PostedAt: time.Now(), Source: "chat.postEphemeral",
	})
	return map[string]any{"message_ts": ts}, nil
}

func (s *Server) chatDelete(_ context.Context, r *apiRequest) (map[string]any, error) {
	channel, err := s.channelParam(r, "channel")
	if err != nil {
		return nil, err
	}
	ts := r.str("ts")
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.channelLocked(channel, false)
	if ch == nil {
		return nil, slackErr("channel_not_found")
	}
	m, ok := ch.byTS[ts]
	if !ok || m.Deleted {
		return nil, slackErr("message_not_found")
	}
	if m.BotID != s.opts.BotID {
		return nil, slackErr("cant_delete_message")
	}
	m.Deleted = true
	return map[string]any{"channel": channel, "ts": ts}, nil
}

func (s *Server) chatGetPermalink(_ context.Context, r *apiRequest) (map[string]any, error) {
	channel, err := s.channelParam(r, "channel")
	if err != nil {
		return nil, err
	}
	ts := r.str("message_ts")
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.channelLocked(channel, false)
	if ch == nil {
		return nil, slackErr("channel_not_found")
	}
	m, ok := ch.byTS[ts]
	if !ok {
		return nil, slackErr("message_not_found")
	}
	link := fmt.Sprintf("https://%s.slack.com/archives/%s/p%s", s.opts.TeamDomain, channel, strings.ReplaceAll(ts, ".", ""))
	if m.ThreadTS != "" && m.ThreadTS != m.TS {
		link += "?thread_ts=" + m.ThreadTS + "&cid=" + channel
	}
	return map[string]any{"channel": channel, "permalink": link}, nil
}

func (s *Server) usersInfo(_ context.Context, r *apiRequest) (map[string]any, error) {
	id := r.str("user")
	s.mu.Lock()
	u, ok := s.state.users[id]
	s.mu.Unlock()
	if !ok {
		return nil, slackErr("user_not_found")
	}
	return map[string]any{"user": s.userJSON(u)}, nil
}

func (s *Server) userJSON(u User) map[string]any {
	out := map[string]any{
		"id": u.ID, "team_id": s.opts.TeamID, "name": u.Name, "real_name": u.RealName,
		"deleted": false, "is_bot": u.IsBot, "is_admin": false, "tz": "Etc/UTC", "tz_offset": 0,
		"profile": map[string]any{
			"real_name": u.RealName, "display_name": u.Name, "email": u.Email,
			"real_name_normalized": u.RealName, "display_name_normalized": u.Name, "team": s.opts.TeamID,
		},
	}
	if u.IsBot && u.ID == s.opts.BotUserID {
		out["profile"].(map[string]any)["bot_id"] = s.opts.BotID
	}
	return out
}

func (s *Server) usergroupsUsersList(_ context.Context, r *apiRequest) (map[string]any, error) {
	id := r.str("usergroup")
	s.mu.Lock()
	members, ok := s.state.groups[id]
	members = append([]string{}, members...)
	s.mu.Unlock()
	if !ok {
		return nil, slackErr("no_such_subteam")
	}
	return map[string]any{"users": members}, nil
}

func (s *Server) conversationsInfo(_ context.Context, r *apiRequest) (map[string]any, error) {
	channel, err := s.channelParam(r, "channel")
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	ch := s.channelLocked(channel, false)
	var info Channel
	if ch != nil {
		info = ch.info
	}
	s.mu.Unlock()
	if ch == nil {
		return nil, slackErr("channel_not_found")
	}
	return map[string]any{"channel": map[string]any{
		"id": info.ID, "name": info.Name, "name_normalized": info.Name,
		"is_channel": info.ID[0] == 'C', "is_group": info.ID[0] == 'G', "is_im": info.ID[0] == 'D',
		"is_private": info.Private, "is_archived": false, "is_member": true,
		"context_team_id": s.opts.TeamID, "created": 1700000000,
	}}, nil
}

func (s *Server) conversationsReplies(_ context.Context, r *apiRequest) (map[string]any, error) {
	channel, err := s.channelParam(r, "channel")
	if err != nil {
		return nil, err
	}
	ts := r.str("ts")
	limit := maxReplyLimit
	if v := r.str("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, slackErr("invalid_limit")
		}
		if n > 0 && n < limit {
			limit = n
		}
	}
	offset := 0
	if cur := r.str("cursor"); cur != "" {
		raw, err := base64.StdEncoding.DecodeString(cur)
		n, convErr := strconv.Atoi(strings.TrimPrefix(string(raw), "offset:"))
		if err != nil || convErr != nil || n < 0 {
			return nil, slackErr("invalid_cursor")
		}
		offset = n
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.channelLocked(channel, false)
	if ch == nil {
		return nil, slackErr("channel_not_found")
	}
	msgs := s.threadLocked(channel, ts)
	if len(msgs) == 0 {
		if m, ok := ch.byTS[ts]; ok && !m.Deleted {
			msgs = []*message{m}
		} else {
			return nil, slackErr("thread_not_found")
		}
	}
	if offset > len(msgs) {
		offset = len(msgs)
	}
	end := min(offset+limit, len(msgs))
	page := make([]map[string]any, 0, end-offset)
	for _, m := range msgs[offset:end] {
		page = append(page, s.messageJSONFor(r, m))
	}
	body := map[string]any{"messages": page, "has_more": end < len(msgs)}
	next := ""
	if end < len(msgs) {
		next = base64.StdEncoding.EncodeToString([]byte("offset:" + strconv.Itoa(end)))
	}
	body["response_metadata"] = map[string]any{"next_cursor": next}
	return body, nil
}

func (s *Server) reactionsAdd(_ context.Context, r *apiRequest) (map[string]any, error) {
	name := strings.Trim(r.str("name"), ":")
	if name == "" {
		return nil, slackErr("invalid_name")
	}
	channel, err := s.channelParam(r, "channel")
	if err != nil {
		return nil, err
	}
	ts := r.str("timestamp")
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.channelLocked(channel, false)
	if ch == nil {
		return nil, slackErr("channel_not_found")
	}
	m, ok := ch.byTS[ts]
	if !ok || m.Deleted {
		return nil, slackErr("message_not_found")
	}
	for i, rx := range m.Reactions {
		if rx.Name == name {
			if contains(rx.Users, s.opts.BotUserID) {
				return nil, slackErr("already_reacted")
			}
			m.Reactions[i].Users = append(m.Reactions[i].Users, s.opts.BotUserID)
			return map[string]any{}, nil
		}
	}
	m.Reactions = append(m.Reactions, Reaction{Name: name, Users: []string{s.opts.BotUserID}})
	return map[string]any{}, nil
}

// conversationsHistory answers conversations.history: the channel's
// messages that are not thread replies (broadcasts aside), newest first,
// between oldest and latest (exclusive unless inclusive=1), paged by limit
// (default 100, at most 999) and cursor.
func (s *Server) conversationsHistory(_ context.Context, r *apiRequest) (map[string]any, error) {
	channel, err := s.channelParam(r, "channel")
	if err != nil {
		return nil, err
	}
	limit := 100
	if v := r.str("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, slackErr("invalid_limit")
		}
		if n > 0 {
			limit = min(n, 999)
		}
	}
	parseTS := func(name string) (float64, error) {
		v := r.str(name)
		if v == "" {
			return 0, nil
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, slackErr("invalid_ts_" + name)
		}
		return f, nil
	}
	oldest, err := parseTS("oldest")
	if err != nil {
		return nil, err
	}
	latest, err := parseTS("latest")
	if err != nil {
		return nil, err
	}
	inclusive := r.str("inclusive") == "1" || r.str("inclusive") == "true"
	offset := 0
	if cur := r.str("cursor"); cur != "" {
		raw, err := base64.StdEncoding.DecodeString(cur)
		n, convErr := strconv.Atoi(strings.TrimPrefix(string(raw), "offset:"))
		if err != nil || convErr != nil || n < 0 {
			return nil, slackErr("invalid_cursor")
		}
		offset = n
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.channelLocked(channel, false)
	if ch == nil {
		return nil, slackErr("channel_not_found")
	}
	var msgs []*message
	for i := len(ch.order) - 1; i >= 0; i-- {
		m := ch.byTS[ch.order[i]]
		if m == nil || m.Deleted || (m.ThreadTS != "" && m.ThreadTS != m.TS && !m.ReplyBroadcast) {
			continue
		}
		ts, _ := strconv.ParseFloat(m.TS, 64)
		if (oldest > 0 && (ts < oldest || ts == oldest && !inclusive)) || (latest > 0 && (ts > latest || ts == latest && !inclusive)) {
			continue
		}
		msgs = append(msgs, m)
	}
	offset = min(offset, len(msgs))
	end := min(offset+limit, len(msgs))
	page := make([]map[string]any, 0, end-offset)
	for _, m := range msgs[offset:end] {
		page = append(page, s.messageJSONFor(r, m))
	}
	next := ""
	if end < len(msgs) {
		next = base64.StdEncoding.EncodeToString([]byte("offset:" + strconv.Itoa(end)))
	}
	return map[string]any{"messages": page, "has_more": end < len(msgs), "pin_count": 0,
		"response_metadata": map[string]any{"next_cursor": next}}, nil
}
