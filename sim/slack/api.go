package slacksim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Fault is an injected misbehaviour of one Web API method.
type Fault struct {
	// Delay is waited before answering (a slow method).
	Delay time.Duration
	// Status, when not 0 or 200, is the HTTP status answered with an empty
	// JSON body; 429 also sets Retry-After from RetryAfter (whole seconds,
	// rounded up), which slack-go turns into *slack.RateLimitedError.
	Status     int
	RetryAfter time.Duration
	// Error, when set, answers HTTP 200 {"ok":false,"error":Error}.
	Error string
	// AfterEffect applies Status or Error after the method has taken
	// effect (the message is posted, then the answer is a 500): a response
	// lost on the way back, which a client cannot tell from a failed call.
	AfterEffect bool
}

type fault struct {
	Fault
	remaining int // < 0: until cleared
}

// InjectFault makes the next `times` calls of method misbehave as f
// (times <= 0: every call until ClearFaults). Faults of one method apply in
// the order injected.
func (s *Server) InjectFault(method string, times int, f Fault) {
	if times <= 0 {
		times = -1
	}
	s.faultMu.Lock()
	s.faults[method] = append(s.faults[method], &fault{Fault: f, remaining: times})
	s.faultMu.Unlock()
}

// RateLimit makes the next `times` calls of method answer HTTP 429 with a
// Retry-After header.
func (s *Server) RateLimit(method string, times int, retryAfter time.Duration) {
	s.InjectFault(method, times, Fault{Status: http.StatusTooManyRequests, RetryAfter: retryAfter})
}

// FailMethod makes the next `times` calls of method answer HTTP 200 with
// {"ok":false,"error":code} (for example "ratelimited" or "internal_error").
func (s *Server) FailMethod(method string, times int, code string) {
	s.InjectFault(method, times, Fault{Error: code})
}

// DelayMethod makes the next `times` calls of method wait d before
// answering (for example a slow apps.connections.open).
func (s *Server) DelayMethod(method string, times int, d time.Duration) {
	s.InjectFault(method, times, Fault{Delay: d})
}

// ClearFaults removes every fault injected on method.
func (s *Server) ClearFaults(method string) {
	s.faultMu.Lock()
	delete(s.faults, method)
	s.faultMu.Unlock()
}

// wait sleeps d unless the request or the server ends first (false then).
func (s *Server) wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-s.closed:
		return false
	}
}

func (s *Server) takeFault(method string) (Fault, bool) {
	s.faultMu.Lock()
	defer s.faultMu.Unlock()
	list := s.faults[method]
	if len(list) == 0 {
		return Fault{}, false
	}
	f := list[0]
	if f.remaining > 0 {
		f.remaining--
		if f.remaining == 0 {
			s.faults[method] = list[1:]
		}
	}
	return f.Fault, true
}

// Call is one Web API call as the simulator saw it.
type Call struct {
	Time   time.Time
	Method string
	// Params are the request parameters as sent, tokens removed. Values are
	// string, []string (repeated form keys) or json.RawMessage (JSON-valued
	// parameters such as blocks, attachments and view, and non-string
	// values of JSON bodies).
	Params map[string]any
	// Status is the HTTP status; Response the JSON answer (nil for non-JSON
	// answers such as a 429).
	Status   int
	Response map[string]any
	// Error is the Slack error code of an ok:false answer, or "ratelimited"
	// for an HTTP 429.
	Error string
}

// Param returns a parameter as text: strings as they are, JSON values as
// their JSON text ("" when absent).
func (c Call) Param(key string) string { return paramString(c.Params[key]) }

// OK reports whether the call was answered {"ok":true}.
func (c Call) OK() bool { return c.Status == http.StatusOK && c.Error == "" }

func paramString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []string:
		if len(v) > 0 {
			return v[0]
		}
	case json.RawMessage:
		var str string
		if json.Unmarshal(v, &str) == nil {
			return str
		}
		return string(v)
	}
	return ""
}

// jsonParams are the form parameters whose values are JSON documents.
var jsonParams = map[string]bool{
	"blocks": true, "attachments": true, "view": true, "files": true,
	"metadata": true, "unfurls": true, "user_auth_blocks": true,
}

// apiError is a Slack error answer.
type apiError struct {
	code     string
	messages []string // response_metadata.messages (and "errors")
}

func (e *apiError) Error() string { return e.code }

func slackErr(code string, messages ...string) error {
	return &apiError{code: code, messages: messages}
}

// apiRequest is a decoded Web API request.
type apiRequest struct {
	method string
	token  string
	kind   string // bot | app
	params map[string]any
	http   *http.Request
}

func (r *apiRequest) str(key string) string { return paramString(r.params[key]) }

func (r *apiRequest) has(key string) bool {
	_, ok := r.params[key]
	return ok
}

func (r *apiRequest) bool(key string) bool {
	v := strings.ToLower(r.str(key))
	return v == "true" || v == "1"
}

// raw returns a JSON-valued parameter; ok is false when absent or empty.
func (r *apiRequest) raw(key string) (json.RawMessage, bool, error) {
	v, ok := r.params[key]
	if !ok {
		return nil, false, nil
	}
	switch v := v.(type) {
	case json.RawMessage:
		if string(v) == "null" {
			return nil, false, nil
		}
		if len(v) > 0 && v[0] == '"' {
			// A JSON body may carry blocks as a JSON-encoded string too.
			var inner string
			if err := json.Unmarshal(v, &inner); err != nil {
				return nil, true, err
			}
			return decodeJSONText(inner)
		}
		return v, true, nil
	default:
		return decodeJSONText(paramString(v))
	}
}

func decodeJSONText(text string) (json.RawMessage, bool, error) {
	if strings.TrimSpace(text) == "" {
		return nil, false, nil
	}
	if !json.Valid([]byte(text)) {
		return nil, true, errors.New("invalid JSON")
	}
	return json.RawMessage(text), true, nil
}

type apiHandler func(ctx context.Context, r *apiRequest) (map[string]any, error)

// apiMethod is a Web API method's handler and the token kind it needs.
type apiMethod struct {
	h    apiHandler
	kind string // bot | app | any
}

// methods maps Web API method names to their handlers.
func (s *Server) methods() map[string]apiMethod {
	type m = apiMethod
	return map[string]m{
		"auth.test":                    {s.authTest, "any"},
		"apps.connections.open":        {s.appsConnectionsOpen, "app"},
		"chat.postMessage":             {s.chatPostMessage, "bot"},
		"chat.update":                  {s.chatUpdate, "bot"},
		"chat.postEphemeral":           {s.chatPostEphemeral, "bot"},
		"chat.delete":                  {s.chatDelete, "bot"},
		"chat.getPermalink":            {s.chatGetPermalink, "bot"},
		"views.open":                   {s.viewsOpen, "bot"},
		"views.update":                 {s.viewsUpdate, "bot"},
		"views.push":                   {s.viewsPush, "bot"},
		"users.info":                   {s.usersInfo, "bot"},
		"usergroups.users.list":        {s.usergroupsUsersList, "bot"},
		"conversations.info":           {s.conversationsInfo, "bot"},
		"conversations.replies":        {s.conversationsReplies, "bot"},
		"conversations.history":        {s.conversationsHistory, "bot"},
		"reactions.add":                {s.reactionsAdd, "bot"},
		"files.getUploadURLExternal":   {s.filesGetUploadURLExternal, "bot"},
		"files.completeUploadExternal": {s.filesCompleteUploadExternal, "bot"},
	}
}

func (s *Server) handleAPI(w http.ResponseWriter, hr *http.Request) {
	start := time.Now()
	method := strings.TrimPrefix(hr.URL.Path, "/api/")
	req, decodeErr := s.decodeRequest(w, hr, method)
	call := Call{Time: start.UTC(), Method: method, Params: redactParams(req.params)}

	answer := func(status int, body map[string]any, hdr http.Header) {
		maps.Copy(w.Header(), hdr)
		call.Status = status
		call.Response = body
		if body != nil {
			if ok, _ := body["ok"].(bool); !ok {
				call.Error, _ = body["error"].(string)
			}
		}
		if status == http.StatusTooManyRequests {
			call.Error = "ratelimited"
		}
		s.recordCall(call)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		if body == nil {
			body = map[string]any{}
		}
		if err := json.NewEncoder(w).Encode(body); err != nil {
			s.log.Debug("write response", "method", method, "err", err)
		}
	}
	fail := func(err error) {
		var ae *apiError
		if !errors.As(err, &ae) {
			s.log.Error("web api handler", "method", method, "err", err)
			ae = &apiError{code: "internal_error"}
		}
		body := map[string]any{"ok": false, "error": ae.code}
		if len(ae.messages) > 0 {
			body["errors"] = ae.messages
			msgs := make([]string, len(ae.messages))
			for i, m := range ae.messages {
				msgs[i] = "[ERROR] " + m
			}
			body["response_metadata"] = map[string]any{"messages": msgs}
		}
		answer(http.StatusOK, body, nil)
	}

	spec, known := s.api[method]
	if !known {
		fail(slackErr("unknown_method"))
		return
	}
	if decodeErr != nil {
		fail(decodeErr)
		return
	}
	if !s.wait(hr.Context(), s.opts.Latency) {
		return
	}
	f, faulty := s.takeFault(method)
	var after *Fault
	if faulty && f.AfterEffect {
		after, faulty = &f, false
	}
	if faulty {
		if f.Delay > 0 {
			t := time.NewTimer(f.Delay)
			select {
			case <-t.C:
			case <-hr.Context().Done():
				t.Stop()
				return
			case <-s.closed:
				t.Stop()
				return
			}
		}
		if f.Status != 0 && f.Status != http.StatusOK {
			hdr := http.Header{}
			if f.Status == http.StatusTooManyRequests {
				hdr.Set("Retry-After", strconv.Itoa(int(math.Ceil(f.RetryAfter.Seconds()))))
			}
			answer(f.Status, nil, hdr)
			return
		}
		if f.Error != "" {
			fail(slackErr(f.Error))
			return
		}
	}
	if req.token == "" {
		fail(slackErr("not_authed"))
		return
	}
	req.kind = s.tokenKind(req.token)
	switch {
	case req.kind == "":
		fail(slackErr("invalid_auth"))
		return
	case spec.kind != "any" && spec.kind != req.kind:
		fail(slackErr("not_allowed_token_type"))
		return
	}
	body, err := spec.h(hr.Context(), req)
	if err != nil {
		fail(err)
		return
	}
	if after != nil {
		switch {
		case after.Status != 0 && after.Status != http.StatusOK:
			answer(after.Status, nil, nil)
			return
		case after.Error != "":
			fail(slackErr(after.Error))
			return
		}
	}
	if body == nil {
		body = map[string]any{}
	}
	body["ok"] = true
	answer(http.StatusOK, body, nil)
}

// decodeRequest reads the token and parameters of a Web API request, from
// the query, a form body or a JSON body, as Slack accepts all three.
func (s *Server) decodeRequest(w http.ResponseWriter, hr *http.Request, method string) (*apiRequest, error) {
	req := &apiRequest{method: method, params: map[string]any{}, http: hr}
	if auth := hr.Header.Get("Authorization"); strings.HasPrefix(auth, "Bearer ") {
		req.token = strings.TrimSpace(strings.TrimPrefix(auth, "Bearer "))
	}
	hr.Body = http.MaxBytesReader(w, hr.Body, s.opts.Limits.MaxBodyBytes)
	ctype, _, _ := mime.ParseMediaType(hr.Header.Get("Content-Type"))
	var form url.Values
	switch {
	case hr.Method == http.MethodPost && ctype == "application/json":
		body, err := io.ReadAll(hr.Body)
		if err != nil {
			return req, slackErr("request_too_large")
		}
		if len(strings.TrimSpace(string(body))) > 0 {
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(body, &fields); err != nil {
				return req, slackErr("invalid_json")
			}
			for k, v := range fields {
				var str string
				if len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &str) == nil && !jsonParams[k] {
					req.params[k] = str
				} else {
					req.params[k] = v
				}
			}
		}
		form = hr.URL.Query()
	default:
		if err := hr.ParseForm(); err != nil {
			return req, slackErr("invalid_form_data")
		}
		form = hr.Form
	}
	for k, vs := range form {
		if _, set := req.params[k]; set || len(vs) == 0 {
			continue
		}
		switch {
		case jsonParams[k] && json.Valid([]byte(vs[0])):
			req.params[k] = json.RawMessage(vs[0])
		case len(vs) == 1:
			req.params[k] = vs[0]
		default:
			req.params[k] = append([]string(nil), vs...)
		}
	}
	if req.token == "" {
		req.token = req.str("token")
	}
	return req, nil
}

// redactParams drops credentials from recorded parameters.
func redactParams(p map[string]any) map[string]any {
	out := make(map[string]any, len(p))
	for k, v := range p {
		if k == "token" || k == "client_secret" {
			continue
		}
		out[k] = v
	}
	return out
}

func (s *Server) recordCall(c Call) {
	s.mu.Lock()
	s.state.calls = appendBounded(s.state.calls, c, s.opts.Limits.MaxRecords)
	s.mu.Unlock()
	s.opts.Transcript.Record(transcriptService, c.Method, c.Params, transcriptResponse(c))
	s.notify()
}

func transcriptResponse(c Call) any {
	if c.Response != nil && c.Status == http.StatusOK {
		return c.Response
	}
	return map[string]any{"status": c.Status, "error": c.Error}
}

// Calls returns the recorded Web API calls, of the given methods only when
// any are named, oldest first.
func (s *Server) Calls(method ...string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.state.calls {
		if len(method) == 0 || contains(method, c.Method) {
			out = append(out, c)
		}
	}
	return out
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// appendBounded appends v and, past max, drops the oldest quarter so that
// memory stays bounded while appends stay amortised O(1).
func appendBounded[T any](list []T, v T, max int) []T {
	list = append(list, v)
	if len(list) > max {
		drop := len(list) - max*3/4
		list = append(list[:0:0], list[drop:]...)
	}
	return list
}

func (s *Server) authTest(_ context.Context, r *apiRequest) (map[string]any, error) {
	return map[string]any{
		"url":                   fmt.Sprintf("https://%s.slack.com/", s.opts.TeamDomain),
		"team":                  s.opts.TeamDomain,
		"user":                  s.opts.BotName,
		"team_id":               s.opts.TeamID,
		"user_id":               s.opts.BotUserID,
		"bot_id":                s.opts.BotID,
		"app_id":                s.opts.AppID,
		"is_enterprise_install": false,
	}, nil
}

func (s *Server) appsConnectionsOpen(_ context.Context, r *apiRequest) (map[string]any, error) {
	ticket := s.sock.issueTicket()
	wsURL := "ws" + strings.TrimPrefix(s.base, "http") + "/link/?ticket=" + ticket + "&app_id=" + url.QueryEscape(s.opts.AppID)
	return map[string]any{"url": wsURL}, nil
}
