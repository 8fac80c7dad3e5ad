package slacksim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// maxFileAltText is the longest alt_txt files.getUploadURLExternal accepts
// (Slack refuses a longer one with alt_txt_too_large).
const maxFileAltText = 1000

func (s *Server) filesGetUploadURLExternal(_ context.Context, r *apiRequest) (map[string]any, error) {
	name := r.str("filename")
	if name == "" {
		return nil, slackErr("invalid_arguments", "missing required field: filename")
	}
	length, err := strconv.ParseInt(r.str("length"), 10, 64)
	if err != nil || length <= 0 {
		return nil, slackErr("invalid_arguments", "length must be a positive integer")
	}
	if length > s.opts.Limits.MaxFileBytes {
		return nil, slackErr("file_too_large")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.state.files) >= s.opts.Limits.MaxRecords {
		return nil, slackErr("sim_store_full", fmt.Sprintf("the simulator keeps at most %d files", s.opts.Limits.MaxRecords))
	}
	id := s.nextID("F")
	alt := r.str("alt_txt")
	if utf8.RuneCountInString(alt) > maxFileAltText {
		return nil, slackErr("alt_txt_too_large", fmt.Sprintf("alt_txt must be at most %d characters", maxFileAltText))
	}
	s.state.files[id] = &File{ID: id, Name: name, Title: name, SnippetType: r.str("snippet_type"), AltText: alt, Size: int(length)}
	return map[string]any{"upload_url": s.base + "/upload/" + id, "file_id": id}, nil
}

// handleUpload receives the file bytes posted to an upload URL, either as a
// multipart form (field "file", what slack-go sends) or as a raw body.
func (s *Server) handleUpload(w http.ResponseWriter, hr *http.Request) {
	id := strings.TrimPrefix(hr.URL.Path, "/upload/")
	if hr.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	hr.Body = http.MaxBytesReader(w, hr.Body, s.opts.Limits.MaxFileBytes+1<<20)
	var data []byte
	var err error
	if strings.HasPrefix(hr.Header.Get("Content-Type"), "multipart/") {
		data, err = readMultipartFile(hr)
	} else {
		data, err = io.ReadAll(hr.Body)
	}
	status, reply := http.StatusOK, ""
	switch {
	case err != nil:
		status, reply = http.StatusBadRequest, "bad upload: "+err.Error()
	case int64(len(data)) > s.opts.Limits.MaxFileBytes:
		status, reply = http.StatusRequestEntityTooLarge, "file too large"
	default:
		s.mu.Lock()
		f, ok := s.state.files[id]
		if ok {
			f.Content = data
			f.Size = len(data)
		}
		s.mu.Unlock()
		if !ok {
			status, reply = http.StatusNotFound, "unknown upload url"
		} else {
			reply = "OK - " + strconv.Itoa(len(data))
		}
	}
	call := Call{
		Time: time.Now().UTC(), Method: "files.upload_url", Status: status,
		Params:   map[string]any{"file_id": id, "bytes": strconv.Itoa(len(data))},
		Response: map[string]any{"reply": reply},
	}
	if status != http.StatusOK {
		call.Error = reply
	}
	s.recordCall(call)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, reply)
}

func readMultipartFile(hr *http.Request) ([]byte, error) {
	mr, err := hr.MultipartReader()
	if err != nil {
		return nil, fmt.Errorf("multipart: %w", err)
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil, errors.New("no file part")
		}
		if err != nil {
			return nil, fmt.Errorf("multipart part: %w", err)
		}
		if part.FormName() == "file" {
			data, err := io.ReadAll(part)
			if err != nil {
				return nil, fmt.Errorf("read file part: %w", err)
			}
			return data, nil
		}
	}
}

func (s *Server) filesCompleteUploadExternal(_ context.Context, r *apiRequest) (map[string]any, error) {
	raw, ok, err := r.raw("files")
	if err != nil || !ok {
		return nil, slackErr("invalid_arguments", "files must be a JSON array of {id, title}")
	}
	var list []struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	if err := json.Unmarshal(raw, &list); err != nil || len(list) == 0 {
		return nil, slackErr("invalid_arguments", "files must be a JSON array of {id, title}")
	}
	channel := r.str("channel_id")
	if channel == "" {
		channel = strings.Split(r.str("channels"), ",")[0]
	}
	threadTS := r.str("thread_ts")
	comment := r.str("initial_comment")
	blocks, _, err := r.raw("blocks")
	if err != nil {
		return nil, slackErr("invalid_blocks", "blocks is not valid JSON [json-pointer:/blocks]")
	}

	ts := s.nextTS()
	s.mu.Lock()
	defer s.mu.Unlock()
	var files []File
	out := make([]map[string]any, 0, len(list))
	for _, item := range list {
		f, ok := s.state.files[item.ID]
		if !ok || f.Completed || f.Content == nil {
			return nil, slackErr("file_not_found", "file "+item.ID+" was not uploaded")
		}
		if item.Title != "" {
			f.Title = item.Title
		}
		out = append(out, map[string]any{"id": f.ID, "title": f.Title})
	}
	var ch *channelState
	if channel != "" {
		if ch = s.channelLocked(channel, false); ch == nil {
			return nil, slackErr("channel_not_found")
		}
		if err := s.storeFull(); err != nil {
			return nil, err
		}
	}
	for _, item := range list {
		f := s.state.files[item.ID]
		f.Completed = true
		f.Channel, f.ThreadTS = channel, threadTS
		files = append(files, *f)
	}
	if ch != nil {
		s.storeMessageLocked(ch, Message{
			Channel: channel, TS: ts, ThreadTS: threadTS,
			User: s.opts.BotUserID, BotID: s.opts.BotID,
			Text: comment, Blocks: blocks, Files: files, PostedAt: time.Now(),
		})
	}
	return map[string]any{"files": out}, nil
}
