package slacksim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// Envelope types Slack sends over Socket Mode.
const (
	EnvelopeEventsAPI     = "events_api"
	EnvelopeSlashCommands = "slash_commands"
	EnvelopeInteractive   = "interactive"
)

// Errors of the Socket Mode side.
var (
	ErrNoConnection = errors.New("slacksim: no such open connection")
	ErrUnknownID    = errors.New("slacksim: unknown envelope or event id")
	ErrQueueFull    = errors.New("slacksim: envelope queue full")
)

const (
	// ticketTTL is how long a URL from apps.connections.open may be dialled.
	ticketTTL = 60 * time.Second
	// queueWait bounds how long a push waits for room in full queues.
	queueWait = 10 * time.Second
)

// Envelope is a Socket Mode message from Slack to the app, in Slack's
// wire format.
type Envelope struct {
	EnvelopeID             string          `json:"envelope_id"`
	Type                   string          `json:"type"`
	Payload                json.RawMessage `json:"payload"`
	AcceptsResponsePayload bool            `json:"accepts_response_payload"`
	RetryAttempt           int             `json:"retry_attempt"`
	RetryReason            string          `json:"retry_reason"`
}

// Delivery is the state of one pushed envelope.
type Delivery struct {
	EnvelopeID   string
	EventID      string // events_api only
	Type         string
	ConnID       string // "" while queued for want of a connection
	RetryAttempt int
	RetryReason  string
	QueuedAt     time.Time
	SentAt       time.Time // zero until written to the WebSocket
	Acked        bool
}

// Ack is an acknowledgement a client sent back.
type Ack struct {
	EnvelopeID string
	EventID    string
	Type       string
	ConnID     string
	SentAt     time.Time // when the envelope was written
	ReceivedAt time.Time
	Latency    time.Duration // ReceivedAt - SentAt
	// Size is the ack frame's size in bytes; Payload its optional payload.
	Size    int
	Payload json.RawMessage
	// Known is false for an envelope id the simulator never sent.
	Known bool
	// Duplicate marks a second ack of the same envelope.
	Duplicate bool
	// Dropped marks an ack of 20 KB or more, which Slack silently ignores:
	// it does not acknowledge the envelope.
	Dropped bool
}

// ConnInfo describes a Socket Mode connection.
type ConnInfo struct {
	ID       string
	Index    int // 1-based opening order
	OpenedAt time.Time
	Draining bool // told to disconnect; no longer receives envelopes
	Sent     int
	Acked    int
}

type delivery struct {
	env      Envelope
	data     []byte
	eventID  string
	queuedAt time.Time
	conn     atomic.Value  // string
	sentAt   atomic.Int64  // unix nanoseconds; 0 until written
	acked    chan struct{} // closed once the first accepted ack is recorded
	claimed  atomic.Bool   // an accepted ack arrived
	ack      atomic.Pointer[Ack]
}

func (d *delivery) snapshot() Delivery {
	out := Delivery{
		EnvelopeID: d.env.EnvelopeID, EventID: d.eventID, Type: d.env.Type,
		RetryAttempt: d.env.RetryAttempt, RetryReason: d.env.RetryReason, QueuedAt: d.queuedAt,
	}
	out.ConnID, _ = d.conn.Load().(string)
	if ns := d.sentAt.Load(); ns > 0 {
		out.SentAt = time.Unix(0, ns)
	}
	out.Acked = d.ack.Load() != nil
	return out
}

type outFrame struct {
	data []byte
	d    *delivery // nil for hello/disconnect
}

type wsConn struct {
	hub      *socketHub
	id       string
	index    int
	ws       *websocket.Conn
	openedAt time.Time
	draining atomic.Bool
	sent     atomic.Int64
	acked    atomic.Int64

	qmu    sync.Mutex
	queue  []outFrame
	closed bool
	wake   chan struct{}
	done   chan struct{}
	timer  *time.Timer // disconnect grace
}

type socketHub struct {
	s *Server

	mu      sync.Mutex
	conns   []*wsConn // open, in opening order
	byID    map[string]*wsConn
	pending []*delivery
	tickets map[string]time.Time
	opened  int
	rr      atomic.Uint64
	wg      sync.WaitGroup

	dmu        sync.Mutex
	deliveries map[string]*delivery
	byEvent    map[string][]*delivery
	order      []string

	amu  sync.Mutex
	acks []Ack

	spaceMu sync.Mutex
	space   chan struct{}
}

func newSocketHub(s *Server) *socketHub {
	return &socketHub{
		s:          s,
		byID:       make(map[string]*wsConn),
		tickets:    make(map[string]time.Time),
		deliveries: make(map[string]*delivery),
		byEvent:    make(map[string][]*delivery),
		space:      make(chan struct{}),
	}
}

func (h *socketHub) issueTicket() string {
	t := randomHex(16)
	now := time.Now()
	h.mu.Lock()
	for k, exp := range h.tickets {
		if now.After(exp) {
			delete(h.tickets, k)
		}
	}
	h.tickets[t] = now.Add(ticketTTL)
	h.mu.Unlock()
	return t
}

func (h *socketHub) handleWebSocket(w http.ResponseWriter, r *http.Request) {
	s := h.s
	ticket := r.URL.Query().Get("ticket")
	h.mu.Lock()
	exp, ok := h.tickets[ticket]
	delete(h.tickets, ticket)
	full := len(h.conns) >= s.opts.Limits.MaxConnections
	h.mu.Unlock()
	switch {
	case isClosed(s.closed):
		http.Error(w, "server closing", http.StatusServiceUnavailable)
		return
	case !ok || time.Now().After(exp):
		http.Error(w, "invalid or expired ticket", http.StatusUnauthorized)
		return
	case full:
		s.log.Warn("socket mode connection refused", "reason", "too many connections", "limit", s.opts.Limits.MaxConnections)
		http.Error(w, "too many connections", http.StatusServiceUnavailable)
		return
	}
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		s.log.Warn("websocket upgrade", "err", err)
		return
	}
	ws.SetReadLimit(s.opts.Limits.MaxAckFrameBytes)
	c := &wsConn{hub: h, ws: ws, openedAt: time.Now(), wake: make(chan struct{}, 1), done: make(chan struct{})}

	h.mu.Lock()
	// Checked under h.mu so that Close (close(s.closed), then closeAll under
	// h.mu, then wg.Wait) either sees this connection or it is refused here.
	if isClosed(s.closed) {
		h.mu.Unlock()
		_ = ws.Close()
		return
	}
	h.wg.Add(2) // reader (this handler) and writer
	defer h.wg.Done()
	h.opened++
	c.index = h.opened
	c.id = "conn-" + strconv.Itoa(c.index)
	h.conns = append(h.conns, c)
	h.byID[c.id] = c
	hello, _ := json.Marshal(map[string]any{
		"type":            "hello",
		"num_connections": len(h.conns),
		"debug_info": map[string]any{
			"host": "applink-sim-" + strconv.Itoa(c.index), "build_number": 1, "approximate_connection_time": 18060,
		},
		"connection_info": map[string]any{"app_id": s.opts.AppID},
	})
	c.enqueue(outFrame{data: hello})
	pending := h.pending
	h.pending = nil
	for _, d := range pending {
		d.conn.Store(c.id)
		c.enqueue(outFrame{data: d.data, d: d})
	}
	h.mu.Unlock()

	s.log.Info("socket mode connection opened", "conn", c.id, "remote", r.RemoteAddr)
	s.opts.Transcript.Record(transcriptService, "socket_mode.connect", map[string]any{"conn": c.id}, json.RawMessage(hello))
	s.notify()

	go func() {
		defer h.wg.Done()
		c.writeLoop()
	}()
	c.readLoop()
}

// enqueue hands a frame to the connection's writer without blocking; it
// reports false when the connection is closed or its queue is full.
func (c *wsConn) enqueue(f outFrame) bool {
	c.qmu.Lock()
	if c.closed || len(c.queue) >= c.hub.s.opts.Limits.ConnectionBuffer {
		c.qmu.Unlock()
		return false
	}
	c.queue = append(c.queue, f)
	c.qmu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return true
}

// writeLoop is the only writer of data frames on the connection, so no
// lock is held during network writes.
func (c *wsConn) writeLoop() {
	s := c.hub.s
	ping := time.NewTicker(s.opts.PingInterval)
	defer ping.Stop()
	var batch []outFrame
	for {
		select {
		case <-c.done:
			return
		case <-ping.C:
			if err := c.ws.WriteControl(websocket.PingMessage, []byte("ping"), time.Now().Add(10*time.Second)); err != nil {
				c.close(fmt.Errorf("ping: %w", err))
				return
			}
			continue
		case <-c.wake:
		}
		c.qmu.Lock()
		wasFull := len(c.queue) >= s.opts.Limits.ConnectionBuffer
		batch, c.queue = c.queue, batch[:0]
		c.qmu.Unlock()
		if wasFull {
			c.hub.signalSpace()
		}
		for i, f := range batch {
			// Stamped before the write: the ack may be read before it returns.
			if f.d != nil {
				f.d.sentAt.Store(time.Now().UnixNano())
				c.sent.Add(1)
			}
			_ = c.ws.SetWriteDeadline(time.Now().Add(10 * time.Second))
			if err := c.ws.WriteMessage(websocket.TextMessage, f.data); err != nil {
				if f.d != nil {
					f.d.sentAt.Store(0)
					c.sent.Add(-1)
				}
				c.close(fmt.Errorf("write: %w", err))
				c.hub.reroute(batch[i:])
				return
			}
		}
		clear(batch)
	}
}

func (c *wsConn) readLoop() {
	s := c.hub.s
	deadline := 3 * s.opts.PingInterval
	_ = c.ws.SetReadDeadline(time.Now().Add(deadline))
	c.ws.SetPongHandler(func(string) error {
		return c.ws.SetReadDeadline(time.Now().Add(deadline))
	})
	for {
		_, data, err := c.ws.ReadMessage()
		if err != nil {
			c.close(err)
			return
		}
		now := time.Now()
		_ = c.ws.SetReadDeadline(now.Add(deadline))
		c.hub.handleAck(c, data, now)
	}
}

// close ends the connection once; unsent envelopes are routed elsewhere.
func (c *wsConn) close(cause error) {
	c.qmu.Lock()
	if c.closed {
		c.qmu.Unlock()
		return
	}
	c.closed = true
	left := c.queue
	c.queue = nil
	if c.timer != nil {
		c.timer.Stop()
	}
	c.qmu.Unlock()
	close(c.done)
	_ = c.ws.Close()

	h := c.hub
	h.mu.Lock()
	h.conns = slices.DeleteFunc(h.conns, func(x *wsConn) bool { return x == c })
	delete(h.byID, c.id)
	h.mu.Unlock()
	h.signalSpace()
	h.reroute(left)
	h.s.log.Info("socket mode connection closed", "conn", c.id, "cause", cause)
	h.s.opts.Transcript.Record(transcriptService, "socket_mode.close", map[string]any{"conn": c.id}, map[string]any{"cause": fmt.Sprint(cause)})
	h.s.notify()
}

// reroute delivers again, in the background since routing may wait for
// room, the envelopes a closed connection never wrote.
func (h *socketHub) reroute(frames []outFrame) {
	var todo []*delivery
	for _, f := range frames {
		if f.d != nil && f.d.sentAt.Load() == 0 {
			todo = append(todo, f.d)
		}
	}
	if len(todo) == 0 {
		return
	}
	go func() {
		for _, d := range todo {
			if _, err := h.route(d, ""); err != nil {
				h.s.log.Warn("envelope lost", "envelope_id", d.env.EnvelopeID, "err", err)
			}
		}
	}()
}

func (h *socketHub) closeAll() {
	h.mu.Lock()
	conns := slices.Clone(h.conns)
	h.mu.Unlock()
	for _, c := range conns {
		c.close(errors.New("server closed"))
	}
}

func (h *socketHub) wait() { h.wg.Wait() }

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// rotationLocked returns the open, non-draining connections starting at
// the next round-robin position.
func (h *socketHub) rotationLocked() []*wsConn {
	n := len(h.conns)
	if n == 0 {
		return nil
	}
	start := int(h.rr.Add(1) - 1)
	out := make([]*wsConn, 0, n)
	for i := range n {
		if c := h.conns[(start+i)%n]; !c.draining.Load() {
			out = append(out, c)
		}
	}
	return out
}

// spaceSignal returns a channel closed the next time a connection's queue
// drains or a connection closes.
func (h *socketHub) spaceSignal() <-chan struct{} {
	h.spaceMu.Lock()
	defer h.spaceMu.Unlock()
	return h.space
}

func (h *socketHub) signalSpace() {
	h.spaceMu.Lock()
	close(h.space)
	h.space = make(chan struct{})
	h.spaceMu.Unlock()
}

// route sends a registered delivery to target (or round-robin when ""),
// queueing it while no connection is open. When every queue is full it
// waits up to queueWait for room: back-pressure on the pusher rather than
// unbounded memory or silent loss. It returns the connection id.
func (h *socketHub) route(d *delivery, target string) (string, error) {
	var timer *time.Timer
	for {
		sig := h.spaceSignal() // taken before trying, so no signal is missed
		h.mu.Lock()
		var cands []*wsConn
		if target != "" {
			c := h.byID[target]
			if c == nil || c.draining.Load() {
				h.mu.Unlock()
				return "", fmt.Errorf("%w: %s", ErrNoConnection, target)
			}
			cands = []*wsConn{c}
		} else {
			cands = h.rotationLocked()
		}
		if len(cands) == 0 {
			if len(h.pending) >= h.s.opts.Limits.MaxPending {
				h.mu.Unlock()
				return "", fmt.Errorf("%w: %d envelopes wait for a connection", ErrQueueFull, len(h.pending))
			}
			h.pending = append(h.pending, d)
			h.mu.Unlock()
			return "", nil
		}
		h.mu.Unlock()
		for _, c := range cands {
			d.conn.Store(c.id)
			if c.enqueue(outFrame{data: d.data, d: d}) {
				return c.id, nil
			}
		}
		d.conn.Store("")
		if timer == nil {
			timer = time.NewTimer(queueWait)
			defer timer.Stop()
		}
		select {
		case <-sig:
		case <-timer.C:
			return "", fmt.Errorf("%w: no connection took the envelope within %s", ErrQueueFull, queueWait)
		case <-h.s.closed:
			return "", errors.New("slacksim: server closed")
		}
	}
}

// register records a delivery so that its ack can be matched.
func (h *socketHub) register(env Envelope, eventID string) (*delivery, error) {
	data, err := json.Marshal(env)
	if err != nil {
		return nil, fmt.Errorf("slacksim: encode envelope: %w", err)
	}
	d := &delivery{env: env, data: data, eventID: eventID, queuedAt: time.Now(), acked: make(chan struct{})}
	d.conn.Store("")
	max := h.s.opts.Limits.MaxRecords
	h.dmu.Lock()
	h.deliveries[env.EnvelopeID] = d
	if eventID != "" {
		h.byEvent[eventID] = append(h.byEvent[eventID], d)
	}
	h.order = append(h.order, env.EnvelopeID)
	if len(h.order) > max {
		drop := len(h.order) - max*3/4
		for _, id := range h.order[:drop] {
			if old := h.deliveries[id]; old != nil && old.eventID != "" {
				rest := slices.DeleteFunc(h.byEvent[old.eventID], func(x *delivery) bool { return x == old })
				if len(rest) == 0 {
					delete(h.byEvent, old.eventID)
				} else {
					h.byEvent[old.eventID] = rest
				}
			}
			delete(h.deliveries, id)
		}
		h.order = append(h.order[:0:0], h.order[drop:]...)
	}
	h.dmu.Unlock()
	return d, nil
}

func (h *socketHub) handleAck(c *wsConn, data []byte, now time.Time) {
	s := h.s
	var msg struct {
		EnvelopeID string          `json:"envelope_id"`
		Payload    json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(data, &msg); err != nil || msg.EnvelopeID == "" {
		s.log.Warn("unreadable socket mode frame from client", "conn", c.id, "bytes", len(data))
		return
	}
	ack := Ack{
		EnvelopeID: msg.EnvelopeID, ConnID: c.id, ReceivedAt: now, Size: len(data),
		Payload: msg.Payload, Dropped: len(data) >= maxAckBytes,
	}
	h.dmu.Lock()
	d := h.deliveries[msg.EnvelopeID]
	h.dmu.Unlock()
	first := false
	if d != nil {
		ack.Known = true
		ack.EventID, ack.Type = d.eventID, d.env.Type
		if ns := d.sentAt.Load(); ns > 0 {
			ack.SentAt = time.Unix(0, ns)
			ack.Latency = now.Sub(ack.SentAt)
		}
		if ack.Dropped {
			s.log.Warn("ack of 20 KB or more ignored, as Slack does", "envelope_id", msg.EnvelopeID, "bytes", len(data))
		} else {
			first = d.claimed.CompareAndSwap(false, true)
			ack.Duplicate = !first
		}
	}
	h.amu.Lock()
	h.acks = appendBounded(h.acks, ack, s.opts.Limits.MaxRecords)
	h.amu.Unlock()
	// Everything is recorded before WaitAck callers are released.
	if first {
		c.acked.Add(1)
		stored := ack
		d.ack.Store(&stored)
		close(d.acked)
	}
	if s.opts.Transcript != nil {
		s.opts.Transcript.Record(transcriptService, "socket_mode.ack",
			map[string]any{"conn": c.id, "envelope_id": msg.EnvelopeID, "payload": msg.Payload},
			map[string]any{"known": ack.Known, "latency_ms": ack.Latency.Seconds() * 1000, "bytes": ack.Size, "dropped": ack.Dropped})
	}
	s.notify()
}

// Push sends an envelope round-robin over the open connections (queued
// until one opens when there is none). An empty EnvelopeID is filled in.
func (s *Server) Push(env Envelope) (Delivery, error) { return s.push(env, "", "") }

// PushTo sends an envelope on one connection.
func (s *Server) PushTo(connID string, env Envelope) (Delivery, error) {
	return s.push(env, "", connID)
}

func (s *Server) push(env Envelope, eventID, target string) (Delivery, error) {
	if env.Type == "" {
		return Delivery{}, errors.New("slacksim: envelope type is required")
	}
	if env.EnvelopeID == "" {
		env.EnvelopeID = newUUID()
	}
	if eventID == "" && env.Type == EnvelopeEventsAPI {
		var p struct {
			EventID string `json:"event_id"`
		}
		_ = json.Unmarshal(env.Payload, &p)
		eventID = p.EventID
	}
	d, err := s.sock.register(env, eventID)
	if err != nil {
		return Delivery{}, err
	}
	if s.opts.Transcript != nil {
		s.opts.Transcript.Record(transcriptService, "socket_mode.send", map[string]any{"target": target}, json.RawMessage(d.data))
	}
	if _, err := s.sock.route(d, target); err != nil {
		return d.snapshot(), fmt.Errorf("push %s envelope %s: %w", env.Type, env.EnvelopeID, err)
	}
	s.notify()
	return d.snapshot(), nil
}

// Redeliver sends an envelope again, as Slack does when an ack is late or
// a connection went away: same payload (same event_id), a new envelope id,
// the given retry_attempt (previous+1 when <= 0) and retry_reason
// ("timeout" when empty), round-robin, so possibly on another connection.
// id is an envelope id or an event id (its latest delivery).
func (s *Server) Redeliver(id string, retryAttempt int, reason string) (Delivery, error) {
	return s.RedeliverTo("", id, retryAttempt, reason)
}

// RedeliverTo is Redeliver on a chosen connection ("" for round-robin).
func (s *Server) RedeliverTo(connID, id string, retryAttempt int, reason string) (Delivery, error) {
	h := s.sock
	h.dmu.Lock()
	d := h.deliveries[id]
	if d == nil {
		if list := h.byEvent[id]; len(list) > 0 {
			d = list[len(list)-1]
		}
	}
	h.dmu.Unlock()
	if d == nil {
		return Delivery{}, fmt.Errorf("redeliver %q: %w", id, ErrUnknownID)
	}
	env := d.env
	env.EnvelopeID = ""
	if retryAttempt <= 0 {
		retryAttempt = d.env.RetryAttempt + 1
	}
	if reason == "" {
		reason = "timeout"
	}
	env.RetryAttempt, env.RetryReason = retryAttempt, reason
	return s.push(env, d.eventID, connID)
}

// Deliveries returns every pushed envelope's state, oldest first.
func (s *Server) Deliveries() []Delivery {
	h := s.sock
	h.dmu.Lock()
	defer h.dmu.Unlock()
	out := make([]Delivery, 0, len(h.order))
	for _, id := range h.order {
		if d := h.deliveries[id]; d != nil {
			out = append(out, d.snapshot())
		}
	}
	return out
}

// Acks returns every ack received, in arrival order.
func (s *Server) Acks() []Ack {
	h := s.sock
	h.amu.Lock()
	defer h.amu.Unlock()
	return slices.Clone(h.acks)
}

// WaitAck waits for the first accepted ack of an envelope.
func (s *Server) WaitAck(ctx context.Context, envelopeID string) (Ack, error) {
	h := s.sock
	h.dmu.Lock()
	d := h.deliveries[envelopeID]
	h.dmu.Unlock()
	if d == nil {
		return Ack{}, fmt.Errorf("wait ack %q: %w", envelopeID, ErrUnknownID)
	}
	select {
	case <-d.acked:
		return *d.ack.Load(), nil
	case <-ctx.Done():
		return Ack{}, fmt.Errorf("wait ack %s: %w", envelopeID, ctx.Err())
	case <-s.closed:
		return Ack{}, fmt.Errorf("wait ack %s: server closed", envelopeID)
	}
}

// AckLatencyPercentile returns the p-th percentile (0 < p <= 100) of the
// latency of the accepted acks (0 when there is none).
func (s *Server) AckLatencyPercentile(p float64) time.Duration {
	var lat []time.Duration
	for _, a := range s.Acks() {
		if a.Known && !a.Duplicate && !a.Dropped && !a.SentAt.IsZero() {
			lat = append(lat, a.Latency)
		}
	}
	if len(lat) == 0 {
		return 0
	}
	slices.Sort(lat)
	i := int(float64(len(lat))*p/100+0.5) - 1
	i = max(0, min(i, len(lat)-1))
	return lat[i]
}

// Connections lists the open Socket Mode connections in opening order.
func (s *Server) Connections() []ConnInfo {
	h := s.sock
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]ConnInfo, len(h.conns))
	for i, c := range h.conns {
		out[i] = ConnInfo{
			ID: c.id, Index: c.index, OpenedAt: c.openedAt, Draining: c.draining.Load(),
			Sent: int(c.sent.Load()), Acked: int(c.acked.Load()),
		}
	}
	return out
}

// WaitConnections waits until at least n connections are open and not
// draining.
func (s *Server) WaitConnections(ctx context.Context, n int) error {
	return s.Wait(ctx, func() bool {
		live := 0
		for _, c := range s.Connections() {
			if !c.Draining {
				live++
			}
		}
		return live >= n
	})
}

// Disconnect sends {"type":"disconnect","reason":reason} on a connection
// (reason "refresh_requested" when empty) and stops routing to it; the
// client is expected to open a new connection. The simulator closes the
// old one after Options.DisconnectGrace if the client has not.
func (s *Server) Disconnect(connID, reason string) error {
	if reason == "" {
		reason = "refresh_requested"
	}
	h := s.sock
	h.mu.Lock()
	c := h.byID[connID]
	h.mu.Unlock()
	if c == nil {
		return fmt.Errorf("disconnect %s: %w", connID, ErrNoConnection)
	}
	c.draining.Store(true)
	msg, _ := json.Marshal(map[string]any{
		"type": "disconnect", "reason": reason,
		"debug_info": map[string]any{"host": "applink-sim-" + strconv.Itoa(c.index)},
	})
	if !c.enqueue(outFrame{data: msg}) {
		return fmt.Errorf("disconnect %s: %w", connID, ErrQueueFull)
	}
	c.qmu.Lock()
	if !c.closed {
		c.timer = time.AfterFunc(s.opts.DisconnectGrace, func() { c.close(errors.New("disconnect grace elapsed")) })
	}
	c.qmu.Unlock()
	s.opts.Transcript.Record(transcriptService, "socket_mode.disconnect", map[string]any{"conn": connID}, json.RawMessage(msg))
	s.notify()
	return nil
}

// DropConnection closes a connection abruptly, without a close frame, as a
// network failure would.
func (s *Server) DropConnection(connID string) error {
	h := s.sock
	h.mu.Lock()
	c := h.byID[connID]
	h.mu.Unlock()
	if c == nil {
		return fmt.Errorf("drop %s: %w", connID, ErrNoConnection)
	}
	c.close(errors.New("dropped by the simulator"))
	return nil
}
