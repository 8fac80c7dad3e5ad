package slacksim

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Message is a channel message as the simulator stores it (current content).
type Message struct {
	Channel  string
	TS       string
	ThreadTS string // "" for a top-level message without replies
	User     string // author; the bot user id for messages the bot posted
	BotID    string // set when the bot posted it
	Text     string
	// Blocks and Attachments are the JSON arrays as sent (nil when absent).
	Blocks         json.RawMessage
	Attachments    json.RawMessage
	Metadata       json.RawMessage
	Files          []File
	Reactions      []Reaction
	ReplyBroadcast bool
	PostedAt       time.Time
	// Edits counts chat.update calls (and replace_original responses);
	// EditedAt is the time of the last one.
	Edits    int
	EditedAt time.Time
	Deleted  bool
}

// Reaction is an emoji reaction on a message.
type Reaction struct {
	Name  string
	Users []string
}

// Update is one change of a message's content, at the time it was applied.
type Update struct {
	Time        time.Time
	Text        string
	Blocks      json.RawMessage
	Attachments json.RawMessage
}

// Ephemeral is a message visible to one user only.
type Ephemeral struct {
	Channel  string
	User     string // the user who sees it
	TS       string
	ThreadTS string
	Text     string
	Blocks   json.RawMessage
	PostedAt time.Time
	Source   string // chat.postEphemeral | response_url
}

// File is an uploaded file (files.getUploadURLExternal, the upload URL,
// files.completeUploadExternal).
type File struct {
	ID          string
	Name        string
	Title       string
	SnippetType string
	AltText     string // alt_txt: an image's description for screen readers
	Size        int
	Content     []byte
	Channel     string // where it was shared; "" until completed
	ThreadTS    string
	Completed   bool
}

// View is a modal as last opened, pushed or updated.
type View struct {
	ID              string
	RootID          string
	PreviousID      string
	User            string // who the trigger belonged to
	TriggerID       string
	Method          string // views.open | views.push | views.update (the last change)
	CallbackID      string
	PrivateMetadata string
	ExternalID      string
	Hash            string
	// JSON is the view object as the client sent it.
	JSON    json.RawMessage
	Blocks  json.RawMessage
	Updates int
	Time    time.Time
}

type message struct {
	Message
	updates []Update
	replies []string // ts of replies, for a thread root
}

type channelState struct {
	info    Channel
	byTS    map[string]*message
	order   []string            // ts of every message, in posting order
	threads map[string][]string // thread_ts -> reply ts, in order
}

type trigger struct {
	user    string
	issued  time.Time
	used    bool
	channel string
}

type responseURL struct {
	kind      string // command | action
	channel   string
	user      string
	messageTS string // action: the message the button was on
	threadTS  string
	ephemeral bool
	uses      int
	created   time.Time
}

type workspace struct {
	users      map[string]User
	groups     map[string][]string
	channels   map[string]*channelState
	nMessages  int
	ephemerals []Ephemeral
	views      map[string]*View
	viewOrder  []string
	triggers   map[string]*trigger
	files      map[string]*File
	responses  map[string]*responseURL
	calls      []Call
}

func newWorkspace(o Options) *workspace {
	w := &workspace{
		users:     make(map[string]User),
		groups:    make(map[string][]string),
		channels:  make(map[string]*channelState),
		views:     make(map[string]*View),
		triggers:  make(map[string]*trigger),
		files:     make(map[string]*File),
		responses: make(map[string]*responseURL),
	}
	for _, u := range o.Users {
		w.users[u.ID] = u
	}
	w.users[o.BotUserID] = User{ID: o.BotUserID, Name: o.BotName, RealName: o.BotName, IsBot: true}
	for id, members := range o.UserGroups {
		w.groups[id] = append([]string(nil), members...)
	}
	for _, c := range o.Channels {
		w.channels[c.ID] = newChannelState(c)
	}
	return w
}

func newChannelState(c Channel) *channelState {
	if c.Name == "" {
		c.Name = c.ID
	}
	return &channelState{info: c, byTS: make(map[string]*message), threads: make(map[string][]string)}
}

var channelIDRE = regexp.MustCompile(`^[CGD][A-Z0-9]{2,20}$`)
var tsRE = regexp.MustCompile(`^\d{1,12}\.\d{1,6}$`)

// channelLocked finds a channel, creating it when create is set or the
// simulator is not strict and the id is well formed. s.mu must be held.
func (s *Server) channelLocked(id string, create bool) *channelState {
	if id == "" {
		return nil
	}
	if c, ok := s.state.channels[id]; ok {
		return c
	}
	// Slack also accepts a channel's name where an id is expected.
	name := strings.TrimPrefix(id, "#")
	for _, c := range s.state.channels {
		if c.info.Name == name && c.info.Name != c.info.ID {
			return c
		}
	}
	if !create && (s.opts.StrictChannels || !channelIDRE.MatchString(id)) {
		return nil
	}
	c := newChannelState(Channel{ID: id, Name: id, Private: id[0] == 'G'})
	s.state.channels[id] = c
	return c
}

// AddChannel registers (or renames) a channel; an empty id is ignored.
func (s *Server) AddChannel(c Channel) {
	if c.ID == "" {
		return
	}
	s.mu.Lock()
	if existing, ok := s.state.channels[c.ID]; ok {
		existing.info = c
	} else {
		s.state.channels[c.ID] = newChannelState(c)
	}
	s.mu.Unlock()
}

// AddUser registers (or replaces) a workspace member.
func (s *Server) AddUser(u User) {
	s.mu.Lock()
	s.state.users[u.ID] = u
	s.mu.Unlock()
}

// storeMessageLocked stores a new message, filing a reply under its thread
// root (a reply to a reply joins the root's thread, as in Slack). s.mu must
// be held.
func (s *Server) storeMessageLocked(c *channelState, m Message) *message {
	if m.ThreadTS != "" {
		if parent, ok := c.byTS[m.ThreadTS]; ok && parent.ThreadTS != "" && parent.ThreadTS != parent.TS {
			m.ThreadTS = parent.ThreadTS
		}
		if m.ThreadTS == m.TS {
			m.ThreadTS = ""
		}
	}
	msg := &message{Message: m}
	c.byTS[m.TS] = msg
	c.order = append(c.order, m.TS)
	s.state.nMessages++
	if m.ThreadTS != "" {
		c.threads[m.ThreadTS] = append(c.threads[m.ThreadTS], m.TS)
		if root, ok := c.byTS[m.ThreadTS]; ok {
			root.ThreadTS = root.TS
			root.replies = append(root.replies, m.TS)
		}
	}
	return msg
}

func (m *message) snapshot() Message {
	out := m.Message
	out.Files = slices.Clone(m.Files)
	out.Reactions = make([]Reaction, len(m.Reactions))
	for i, r := range m.Reactions {
		out.Reactions[i] = Reaction{Name: r.Name, Users: slices.Clone(r.Users)}
	}
	if len(out.Reactions) == 0 {
		out.Reactions = nil
	}
	return out
}

// threadLocked returns the root (when known) and the replies of a thread,
// deleted messages left out. s.mu must be held.
func (s *Server) threadLocked(channel, threadTS string) []*message {
	c, ok := s.state.channels[channel]
	if !ok {
		return nil
	}
	var out []*message
	if root, ok := c.byTS[threadTS]; ok && !root.Deleted {
		out = append(out, root)
	}
	for _, ts := range c.threads[threadTS] {
		if m := c.byTS[ts]; m != nil && !m.Deleted {
			out = append(out, m)
		}
	}
	return out
}

// Thread returns the root message and its replies in order, with their
// current content (deleted messages left out).
func (s *Server) Thread(channel, threadTS string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	msgs := s.threadLocked(channel, threadTS)
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = m.snapshot()
	}
	return out
}

// Message returns one stored message (deleted ones included).
func (s *Server) Message(channel, ts string) (Message, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.state.channels[channel]
	if !ok {
		return Message{}, false
	}
	m, ok := c.byTS[ts]
	if !ok {
		return Message{}, false
	}
	return m.snapshot(), true
}

// Messages returns every message of a channel in posting order.
func (s *Server) Messages(channel string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.state.channels[channel]
	if !ok {
		return nil
	}
	out := make([]Message, 0, len(c.order))
	for _, ts := range c.order {
		out = append(out, c.byTS[ts].snapshot())
	}
	return out
}

// Updates returns every content change of a message with the time it was
// applied, oldest first.
func (s *Server) Updates(channel, ts string) []Update {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.state.channels[channel]
	if !ok {
		return nil
	}
	m, ok := c.byTS[ts]
	if !ok {
		return nil
	}
	return slices.Clone(m.updates)
}

// MinUpdateInterval is the shortest time between two consecutive updates of
// a message (0 with fewer than two updates). Renderers that coalesce
// progress keep it at or above their window (Slack's guidance: about one
// update per message per 3 s).
func (s *Server) MinUpdateInterval(channel, ts string) time.Duration {
	ups := s.Updates(channel, ts)
	var min time.Duration
	for i := 1; i < len(ups); i++ {
		d := ups[i].Time.Sub(ups[i-1].Time)
		if i == 1 || d < min {
			min = d
		}
	}
	return min
}

// Ephemerals returns the ephemeral messages shown to user in channel (every
// user when user is "").
func (s *Server) Ephemerals(channel, user string) []Ephemeral {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Ephemeral
	for _, e := range s.state.ephemerals {
		if e.Channel == channel && (user == "" || e.User == user) {
			out = append(out, e)
		}
	}
	return out
}

// Views returns every modal the client opened or pushed, with its current
// content, in opening order.
func (s *Server) Views() []View {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]View, 0, len(s.state.viewOrder))
	for _, id := range s.state.viewOrder {
		out = append(out, *s.state.views[id])
	}
	return out
}

// Files returns the uploaded files, oldest first.
func (s *Server) Files() []File {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]File, 0, len(s.state.files))
	for _, f := range s.state.files {
		cp := *f
		cp.Content = slices.Clone(f.Content)
		out = append(out, cp)
	}
	slices.SortFunc(out, func(a, b File) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// PostUserMessage stores a plain message from a user (no event is pushed),
// for example earlier conversation in a thread. It returns the message ts.
func (s *Server) PostUserMessage(channel, user, text, threadTS string) string {
	ts := s.nextTS()
	s.mu.Lock()
	if c := s.channelLocked(channel, true); c != nil {
		s.storeMessageLocked(c, Message{Channel: c.info.ID, TS: ts, ThreadTS: threadTS, User: user, Text: text, PostedAt: time.Now()})
	} else {
		s.log.Warn("user message without a channel not stored", "user", user)
	}
	s.mu.Unlock()
	s.notify()
	return ts
}
