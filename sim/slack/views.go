package slacksim

import (
	"context"
	"encoding/json"
	"time"
)

// viewFields are the parts of a view request the simulator reads.
type viewFields struct {
	Type            string          `json:"type"`
	CallbackID      string          `json:"callback_id"`
	PrivateMetadata string          `json:"private_metadata"`
	ExternalID      string          `json:"external_id"`
	Blocks          json.RawMessage `json:"blocks"`
}

// readView decodes and validates the view parameter.
func readView(r *apiRequest) (json.RawMessage, viewFields, error) {
	var vf viewFields
	raw, ok, err := r.raw("view")
	if err != nil {
		return nil, vf, slackErr("invalid_arguments", "view is not valid JSON")
	}
	if !ok {
		return nil, vf, slackErr("invalid_arguments", "missing required field: view")
	}
	if err := json.Unmarshal(raw, &vf); err != nil {
		return nil, vf, slackErr("invalid_arguments", "view must be an object")
	}
	if problems := validateView(raw); len(problems) > 0 {
		return nil, vf, slackErr("invalid_arguments", problems...)
	}
	return raw, vf, nil
}

// useTriggerLocked consumes a trigger id: each is valid once, for
// Options.TriggerTTL. s.mu must be held.
func (s *Server) useTriggerLocked(id string) (*trigger, error) {
	if id == "" {
		return nil, slackErr("invalid_arguments", "missing required field: trigger_id")
	}
	t, ok := s.state.triggers[id]
	switch {
	case !ok:
		return nil, slackErr("invalid_trigger_id")
	case t.used:
		return nil, slackErr("trigger_exchanged")
	case time.Since(t.issued) > s.opts.TriggerTTL:
		return nil, slackErr("expired_trigger_id")
	}
	t.used = true
	return t, nil
}

// NewTrigger issues a trigger_id for user, as an interaction would.
func (s *Server) NewTrigger(user string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.newTriggerLocked(user, "")
}

func (s *Server) newTriggerLocked(user, channel string) string {
	// Expired triggers are useless; drop them so the map stays small.
	if len(s.state.triggers) >= s.opts.Limits.MaxRecords {
		for id, t := range s.state.triggers {
			if t.used || time.Since(t.issued) > s.opts.TriggerTTL {
				delete(s.state.triggers, id)
			}
		}
	}
	id := s.nextTS() + "." + randomHex(12)
	s.state.triggers[id] = &trigger{user: user, issued: time.Now(), channel: channel}
	return id
}

func (s *Server) viewJSON(v *View) map[string]any {
	var out map[string]any
	_ = json.Unmarshal(v.JSON, &out) // validated on the way in
	if out == nil {
		out = map[string]any{}
	}
	out["id"] = v.ID
	out["team_id"] = s.opts.TeamID
	out["app_id"] = s.opts.AppID
	out["bot_id"] = s.opts.BotID
	out["app_installed_team_id"] = s.opts.TeamID
	out["hash"] = v.Hash
	out["root_view_id"] = v.RootID
	out["previous_view_id"] = nil
	if v.PreviousID != "" {
		out["previous_view_id"] = v.PreviousID
	}
	out["state"] = map[string]any{"values": map[string]any{}}
	for _, k := range []string{"private_metadata", "callback_id", "external_id"} {
		if _, ok := out[k]; !ok {
			out[k] = ""
		}
	}
	return out
}

func (s *Server) storeViewLocked(method, trig, user, root, prev string, raw json.RawMessage, vf viewFields) *View {
	id := s.nextID("V")
	if root == "" {
		root = id
	}
	v := &View{
		ID: id, RootID: root, PreviousID: prev, User: user, TriggerID: trig, Method: method,
		CallbackID: vf.CallbackID, PrivateMetadata: vf.PrivateMetadata, ExternalID: vf.ExternalID,
		Hash: s.nextTS() + "." + randomHex(4), JSON: raw, Blocks: vf.Blocks, Time: time.Now(),
	}
	s.state.views[id] = v
	s.state.viewOrder = append(s.state.viewOrder, id)
	if len(s.state.viewOrder) > s.opts.Limits.MaxRecords {
		drop := s.state.viewOrder[0]
		s.state.viewOrder = s.state.viewOrder[1:]
		delete(s.state.views, drop)
	}
	return v
}

func (s *Server) viewsOpen(_ context.Context, r *apiRequest) (map[string]any, error) {
	raw, vf, err := readView(r)
	if err != nil {
		return nil, err
	}
	if vf.Type != "modal" {
		return nil, slackErr("invalid_arguments", "view.type must be modal")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.useTriggerLocked(r.str("trigger_id"))
	if err != nil {
		return nil, err
	}
	v := s.storeViewLocked("views.open", r.str("trigger_id"), t.user, "", "", raw, vf)
	return map[string]any{"view": s.viewJSON(v)}, nil
}

func (s *Server) viewsPush(_ context.Context, r *apiRequest) (map[string]any, error) {
	raw, vf, err := readView(r)
	if err != nil {
		return nil, err
	}
	if vf.Type != "modal" {
		return nil, slackErr("invalid_arguments", "view.type must be modal")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.useTriggerLocked(r.str("trigger_id"))
	if err != nil {
		return nil, err
	}
	// Push stacks on the user's latest open modal.
	var root, prev string
	for i := len(s.state.viewOrder) - 1; i >= 0; i-- {
		if v := s.state.views[s.state.viewOrder[i]]; v.User == t.user {
			root, prev = v.RootID, v.ID
			break
		}
	}
	if root == "" {
		return nil, slackErr("not_found", "no modal is open for this user to push onto")
	}
	v := s.storeViewLocked("views.push", r.str("trigger_id"), t.user, root, prev, raw, vf)
	return map[string]any{"view": s.viewJSON(v)}, nil
}

func (s *Server) viewsUpdate(_ context.Context, r *apiRequest) (map[string]any, error) {
	raw, vf, err := readView(r)
	if err != nil {
		return nil, err
	}
	viewID, externalID := r.str("view_id"), r.str("external_id")
	if viewID == "" && externalID == "" {
		return nil, slackErr("invalid_arguments", "view_id or external_id is required")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var v *View
	if viewID != "" {
		v = s.state.views[viewID]
	} else {
		for _, id := range s.state.viewOrder {
			if s.state.views[id].ExternalID == externalID {
				v = s.state.views[id]
			}
		}
	}
	if v == nil {
		return nil, slackErr("not_found")
	}
	if h := r.str("hash"); h != "" && h != v.Hash {
		return nil, slackErr("hash_conflict")
	}
	v.JSON, v.Blocks = raw, vf.Blocks
	v.CallbackID, v.PrivateMetadata = vf.CallbackID, vf.PrivateMetadata
	if vf.ExternalID != "" {
		v.ExternalID = vf.ExternalID
	}
	v.Method = "views.update"
	v.Updates++
	v.Hash = s.nextTS() + "." + randomHex(4)
	v.Time = time.Now()
	return map[string]any{"view": s.viewJSON(v)}, nil
}
