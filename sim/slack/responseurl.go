package slacksim

import (
	"encoding/json"
	"io"
	"net/http"
	"time"
)

// Slack lets a response URL be used five times within thirty minutes.
const (
	responseURLUses = 5
	responseURLTTL  = 30 * time.Minute
)

// handleResponseURL serves the response_url of slash commands and block
// actions: {"text", "blocks", "response_type", "replace_original",
// "delete_original", "thread_ts"} posted as JSON.
func (s *Server) handleResponseURL(w http.ResponseWriter, hr *http.Request) {
	params := map[string]any{}
	status, body := s.respond(w, hr, params)
	call := Call{Time: time.Now().UTC(), Method: "response_url", Params: params, Status: status, Response: body}
	if ok, _ := body["ok"].(bool); !ok {
		call.Error, _ = body["error"].(string)
	}
	s.recordCall(call)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func (s *Server) respond(w http.ResponseWriter, hr *http.Request, params map[string]any) (int, map[string]any) {
	fail := func(status int, code string) (int, map[string]any) {
		return status, map[string]any{"ok": false, "error": code}
	}
	if hr.Method != http.MethodPost {
		return fail(http.StatusMethodNotAllowed, "method_not_allowed")
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, hr.Body, s.opts.Limits.MaxBodyBytes))
	if err != nil {
		return fail(http.StatusRequestEntityTooLarge, "request_too_large")
	}
	var msg struct {
		Text            string          `json:"text"`
		Blocks          json.RawMessage `json:"blocks"`
		Attachments     json.RawMessage `json:"attachments"`
		ResponseType    string          `json:"response_type"`
		ReplaceOriginal bool            `json:"replace_original"`
		DeleteOriginal  bool            `json:"delete_original"`
		ThreadTS        string          `json:"thread_ts"`
	}
	if err := json.Unmarshal(data, &msg); err != nil {
		return fail(http.StatusBadRequest, "invalid_payload")
	}
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(data, &fields)
	for k, v := range fields {
		params[k] = v
	}
	if b := msg.Blocks; len(b) > 0 && string(b) != "null" {
		if problems := validateBlocks(b, maxMsgBlocks, "/blocks"); len(problems) > 0 {
			return http.StatusBadRequest, map[string]any{"ok": false, "error": "invalid_blocks", "errors": problems}
		}
	} else {
		msg.Blocks = nil
	}
	if string(msg.Attachments) == "null" || string(msg.Attachments) == "[]" {
		msg.Attachments = nil
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.state.responses[hr.URL.Path]
	switch {
	case !ok:
		return fail(http.StatusNotFound, "no_such_url")
	case time.Since(r.created) > responseURLTTL:
		return fail(http.StatusNotFound, "expired_url")
	case r.uses >= responseURLUses:
		return fail(http.StatusNotFound, "used_url")
	}
	r.uses++
	now := time.Now()
	threadTS := msg.ThreadTS
	if threadTS == "" {
		threadTS = r.threadTS
	}
	switch {
	case msg.DeleteOriginal || msg.ReplaceOriginal:
		if r.kind != "action" || r.ephemeral {
			// Ephemeral originals are replaced client-side; nothing to store.
			if r.ephemeral {
				s.replaceEphemeralLocked(r, msg.DeleteOriginal, msg.Text, msg.Blocks)
				return http.StatusOK, map[string]any{"ok": true}
			}
			return fail(http.StatusBadRequest, "no_original_message")
		}
		c := s.state.channels[r.channel]
		m, ok := c.byTS[r.messageTS]
		if !ok || m.Deleted {
			return fail(http.StatusNotFound, "message_not_found")
		}
		if msg.DeleteOriginal {
			m.Deleted = true
			return http.StatusOK, map[string]any{"ok": true}
		}
		if err := s.applyUpdateLocked(m, content{text: msg.Text, blocks: msg.Blocks, attachments: msg.Attachments}, true, true); err != nil {
			return fail(http.StatusBadRequest, err.Error())
		}
	case msg.ResponseType == "in_channel":
		c := s.state.channels[r.channel]
		if err := s.storeFull(); err != nil {
			return fail(http.StatusServiceUnavailable, "sim_store_full")
		}
		s.storeMessageLocked(c, Message{
			Channel: r.channel, TS: s.nextTS(), ThreadTS: threadTS,
			User: s.opts.BotUserID, BotID: s.opts.BotID,
			Text: msg.Text, Blocks: msg.Blocks, Attachments: msg.Attachments, PostedAt: now,
		})
	default:
		s.addEphemeralLocked(Ephemeral{Channel: r.channel, User: r.user, TS: s.nextTS(), ThreadTS: threadTS, Text: msg.Text, Blocks: msg.Blocks, PostedAt: now, Source: "response_url"})
	}
	return http.StatusOK, map[string]any{"ok": true}
}

func (s *Server) addEphemeralLocked(e Ephemeral) {
	s.state.ephemerals = appendBounded(s.state.ephemerals, e, s.opts.Limits.MaxRecords)
}

// replaceEphemeralLocked replaces (or removes) the ephemeral message a
// button was clicked on, as Slack does for the clicking user.
func (s *Server) replaceEphemeralLocked(r *responseURL, remove bool, text string, blocks json.RawMessage) {
	list := s.state.ephemerals
	for i := range list {
		e := &list[i]
		if e.Channel != r.channel || e.User != r.user || e.TS != r.messageTS {
			continue
		}
		if remove {
			s.state.ephemerals = append(list[:i:i], list[i+1:]...)
			return
		}
		e.Text, e.Blocks, e.PostedAt, e.Source = text, blocks, time.Now(), "response_url"
		return
	}
}
