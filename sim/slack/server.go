// Package slacksim is a Slack simulator for tests, benchmarks and the demo.
//
// It speaks Slack's real wire formats so that the real slack-go client (and
// its socketmode package) can be pointed at it: Web API methods are served at
// APIURL()+method (form-encoded or JSON bodies, {"ok":...} answers), and
// apps.connections.open hands out a WebSocket URL on which the simulator
// plays Slack's side of Socket Mode (hello, envelopes, pings, disconnect,
// acks). Everything a client does lands in an inspectable message store and
// in an optional sim.Transcript; events are pushed with Mention,
// SlashCommand, BlockAction and ViewSubmission, and faults (rate limits,
// error bodies, slow methods, dropped or refreshed connections, rejected
// tokens) are injected on demand.
//
// It is a test fixture: production code paths never import it.
package slacksim

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/autoheal/autoheal/sim"
)

// Defaults used when Options leaves a field empty.
const (
	DefaultBotToken   = "xoxb-sim-bot-token"
	DefaultAppToken   = "xapp-1-sim-app-token"
	DefaultTeamID     = "T0SIMTEAM"
	DefaultTeamDomain = "autoheal-sim"
	DefaultAppID      = "A0SIMAPP"
	DefaultBotID      = "B0SIMBOT"
	DefaultBotUserID  = "U0AUTOHEAL"
	DefaultBotName    = "autoheal"

	// transcriptService is the service name of every transcript entry.
	transcriptService = "slack"

	// maxAckBytes is Slack's limit for a Socket Mode response: larger ones
	// are silently dropped by Slack.
	maxAckBytes = 20 * 1024
)

// User is a workspace member known to users.info and to RenderThread.
type User struct {
	ID       string
	Name     string // handle, e.g. "alice"
	RealName string // e.g. "Alice Example"
	Email    string
	IsBot    bool
}

// Channel is a conversation known to the simulator.
type Channel struct {
	ID      string
	Name    string
	Private bool
}

// Limits bound everything the simulator keeps or accepts. Zero values take
// the defaults noted on each field.
type Limits struct {
	MaxBodyBytes         int64 // Web API request body; default 1 MiB
	MaxFileBytes         int64 // uploaded file; default 8 MiB
	MaxMessages          int   // messages kept across channels; default 100,000
	MaxUpdatesPerMessage int   // chat.update history per message; default 10,000
	MaxRecords           int   // calls, deliveries and acks kept; default 100,000
	MaxPending           int   // envelopes queued while no connection is open; default 10,000
	MaxConnections       int   // concurrent Socket Mode connections; default 10 (Slack's limit)
	ConnectionBuffer     int   // envelopes buffered per connection writer; default 1,024
	MaxAckFrameBytes     int64 // largest WebSocket frame read from a client; default 1 MiB
}

func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def64 := func(v *int64, d int64) {
		if *v <= 0 {
			*v = d
		}
	}
	def64(&l.MaxBodyBytes, 1<<20)
	def64(&l.MaxFileBytes, 8<<20)
	def(&l.MaxMessages, 100_000)
	def(&l.MaxUpdatesPerMessage, 10_000)
	def(&l.MaxRecords, 100_000)
	def(&l.MaxPending, 10_000)
	def(&l.MaxConnections, 10)
	def(&l.ConnectionBuffer, 1024)
	def64(&l.MaxAckFrameBytes, 1<<20)
	return l
}

// Options configures a Server.
type Options struct {
	// Addr is the listen address; default "127.0.0.1:0".
	Addr string

	// BotTokens are accepted for Web API methods (default DefaultBotToken);
	// AppTokens for apps.connections.open (default DefaultAppToken). Any
	// other token answers invalid_auth.
	BotTokens []string
	AppTokens []string

	TeamID     string
	TeamDomain string
	AppID      string
	BotID      string
	BotUserID  string
	BotName    string

	// Users and UserGroups (group id -> member user ids) answer users.info
	// and usergroups.users.list.
	Users      []User
	UserGroups map[string][]string

	// Channels are known up front. Unless StrictChannels is set, any
	// well-formed conversation id (C..., G..., D...) is created on first use.
	Channels       []Channel
	StrictChannels bool

	// Transcript records every Web API call (service "slack") and the
	// Socket Mode traffic; nil records nothing.
	Transcript *sim.Transcript
	// Logger receives the simulator's own diagnostics; nil discards them.
	Logger *slog.Logger

	// PingInterval is how often WebSocket pings are sent; slack-go drops a
	// connection that sees none for 30 s. Default 10 s.
	PingInterval time.Duration
	// TriggerTTL is how long a trigger_id stays valid; Slack's is 3 s.
	TriggerTTL time.Duration
	// Latency is waited before answering every Web API call, as a slow or
	// distant Slack would (0: answer at once). Faults add to it.
	Latency time.Duration
	// DisconnectGrace is how long a connection told to disconnect may stay
	// open before the simulator closes it. Default 10 s.
	DisconnectGrace time.Duration

	Limits Limits
}

func (o Options) withDefaults() Options {
	str := func(v *string, d string) {
		if *v == "" {
			*v = d
		}
	}
	if o.Addr == "" {
		o.Addr = "127.0.0.1:0"
	}
	if len(o.BotTokens) == 0 {
		o.BotTokens = []string{DefaultBotToken}
	}
	if len(o.AppTokens) == 0 {
		o.AppTokens = []string{DefaultAppToken}
	}
	str(&o.TeamID, DefaultTeamID)
	str(&o.TeamDomain, DefaultTeamDomain)
	str(&o.AppID, DefaultAppID)
	str(&o.BotID, DefaultBotID)
	str(&o.BotUserID, DefaultBotUserID)
	str(&o.BotName, DefaultBotName)
	if o.PingInterval <= 0 {
		o.PingInterval = 10 * time.Second
	}
	if o.TriggerTTL <= 0 {
		o.TriggerTTL = 3 * time.Second
	}
	if o.DisconnectGrace <= 0 {
		o.DisconnectGrace = 10 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.Limits = o.Limits.withDefaults()
	return o
}

// Server is a running (or not yet started) Slack simulator. All methods are
// safe for concurrent use.
type Server struct {
	opts Options
	log  *slog.Logger

	ln      net.Listener
	srv     *http.Server
	base    string // http://host:port
	started atomic.Bool
	closed  chan struct{}
	closeMu sync.Once
	wg      sync.WaitGroup

	authMu    sync.RWMutex
	botTokens map[string]bool
	appTokens map[string]bool
	rejected  map[string]bool

	faultMu sync.Mutex
	faults  map[string][]*fault

	lastTS atomic.Int64 // microseconds of the last issued message ts
	seq    atomic.Uint64

	// mu guards the workspace state: store, views, triggers, files, calls.
	mu    sync.Mutex
	state *workspace

	sock *socketHub
	api  map[string]apiMethod

	notifyMu sync.Mutex
	changed  chan struct{}
}

// New returns a Server configured by opts; call Start to serve.
func New(opts Options) *Server {
	opts = opts.withDefaults()
	s := &Server{
		opts:      opts,
		log:       opts.Logger.With("component", "slacksim"),
		closed:    make(chan struct{}),
		botTokens: make(map[string]bool),
		appTokens: make(map[string]bool),
		rejected:  make(map[string]bool),
		faults:    make(map[string][]*fault),
		changed:   make(chan struct{}),
	}
	for _, t := range opts.BotTokens {
		s.botTokens[t] = true
	}
	for _, t := range opts.AppTokens {
		s.appTokens[t] = true
	}
	s.state = newWorkspace(opts)
	s.sock = newSocketHub(s)
	s.api = s.methods()
	return s
}

// Start listens on Options.Addr and serves in the background.
func (s *Server) Start() error {
	if !s.started.CompareAndSwap(false, true) {
		return errors.New("slacksim: server already started")
	}
	ln, err := net.Listen("tcp", s.opts.Addr)
	if err != nil {
		return fmt.Errorf("slacksim: listen on %s: %w", s.opts.Addr, err)
	}
	s.ln = ln
	s.base = "http://" + ln.Addr().String()
	mux := http.NewServeMux()
	mux.HandleFunc("/api/", s.handleAPI)
	mux.HandleFunc("/link/", s.sock.handleWebSocket)
	mux.HandleFunc("/upload/", s.handleUpload)
	mux.HandleFunc("/commands/", s.handleResponseURL)
	mux.HandleFunc("/actions/", s.handleResponseURL)
	s.srv = &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	s.wg.Go(func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("serve", "err", err)
		}
	})
	s.log.Info("slack simulator listening", "api_url", s.APIURL())
	return nil
}

// Close stops serving and closes every Socket Mode connection.
func (s *Server) Close() error {
	var err error
	s.closeMu.Do(func() {
		close(s.closed)
		if s.srv != nil {
			// Hijacked WebSocket connections are not closed by the HTTP server.
			s.sock.closeAll()
			err = s.srv.Close()
		}
		s.wg.Wait()
		s.sock.wait()
	})
	if err != nil {
		return fmt.Errorf("slacksim: close: %w", err)
	}
	return nil
}

// APIURL is the Web API base to give slack.OptionAPIURL (after Start); it
// ends with "/api/".
func (s *Server) APIURL() string { return s.base + "/api/" }

// BaseURL is the scheme and host the simulator serves on.
func (s *Server) BaseURL() string { return s.base }

// BotToken returns the first configured bot token.
func (s *Server) BotToken() string { return s.opts.BotTokens[0] }

// AppToken returns the first configured app-level token.
func (s *Server) AppToken() string { return s.opts.AppTokens[0] }

// BotUserID is the bot's user id (what <@...> mentions of the bot carry).
func (s *Server) BotUserID() string { return s.opts.BotUserID }

// RejectToken makes a token answer invalid_auth from now on, as if it had
// been revoked; clients stop on it.
func (s *Server) RejectToken(token string) {
	s.authMu.Lock()
	s.rejected[token] = true
	s.authMu.Unlock()
}

// AcceptToken undoes RejectToken.
func (s *Server) AcceptToken(token string) {
	s.authMu.Lock()
	delete(s.rejected, token)
	s.authMu.Unlock()
}

// tokenKind classifies a token: "bot", "app", or "" when it is not accepted.
func (s *Server) tokenKind(token string) string {
	s.authMu.RLock()
	defer s.authMu.RUnlock()
	switch {
	case s.rejected[token]:
		return ""
	case s.botTokens[token]:
		return "bot"
	case s.appTokens[token]:
		return "app"
	}
	return ""
}

// notify wakes everything waiting in Wait.
func (s *Server) notify() {
	s.notifyMu.Lock()
	close(s.changed)
	s.changed = make(chan struct{})
	s.notifyMu.Unlock()
}

// Wait blocks until cond returns true, re-checking after every change of
// the simulator's state (calls, messages, connections, acks), or until ctx
// is done.
func (s *Server) Wait(ctx context.Context, cond func() bool) error {
	for {
		s.notifyMu.Lock()
		ch := s.changed
		s.notifyMu.Unlock()
		if cond() {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("slacksim: wait: %w", ctx.Err())
		case <-s.closed:
			return errors.New("slacksim: wait: server closed")
		}
	}
}

// WaitCalls waits until at least n calls of method were recorded and
// returns all of them.
func (s *Server) WaitCalls(ctx context.Context, method string, n int) ([]Call, error) {
	var calls []Call
	err := s.Wait(ctx, func() bool {
		calls = s.Calls(method)
		return len(calls) >= n
	})
	if err != nil {
		return calls, fmt.Errorf("%d of %d %s calls: %w", len(calls), n, method, err)
	}
	return calls, nil
}

// nextTS returns a message timestamp ("seconds.micros") unique and strictly
// increasing across the server.
func (s *Server) nextTS() string {
	for {
		last := s.lastTS.Load()
		now := time.Now().UnixMicro()
		if now <= last {
			now = last + 1
		}
		if s.lastTS.CompareAndSwap(last, now) {
			return fmt.Sprintf("%d.%06d", now/1_000_000, now%1_000_000)
		}
	}
}

// nextID returns a Slack-looking id with a prefix (Ev, V, F, ...).
func (s *Server) nextID(prefix string) string {
	return fmt.Sprintf("%s%010d", prefix, s.seq.Add(1))
}

// randomHex returns n random bytes hex-encoded, for tickets and secrets.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b)
}

// newUUID returns a random version-4 UUID, the shape of Slack envelope ids.
func newUUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = (b[6] & 0x0f) | 0x40
	b[8] = (b[8] & 0x3f) | 0x80
	h := hex.EncodeToString(b)
	return strings.Join([]string{h[0:8], h[8:12], h[12:16], h[16:20], h[20:32]}, "-")
}

// upgrader accepts any origin: slack-go dials with Origin https://api.slack.com.
var upgrader = websocket.Upgrader{
	ReadBufferSize:  4096,
	WriteBufferSize: 32 * 1024,
	CheckOrigin:     func(*http.Request) bool { return true },
}
