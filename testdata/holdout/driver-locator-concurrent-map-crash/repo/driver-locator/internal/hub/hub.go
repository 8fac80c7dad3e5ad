// Package hub fans driver position updates out to the rider and ops
// websockets subscribed to a geohash zone.
package hub

import (
	"log/slog"
	"sync"

	"github.com/veloce/dispatch/driver-locator/internal/ws"
)

type Hub struct {
	mu   sync.RWMutex
	subs map[string]map[*ws.Conn]struct{} // zone -> subscribers
	log  *slog.Logger
}

func New(log *slog.Logger) *Hub {
	return &Hub{subs: make(map[string]map[*ws.Conn]struct{}), log: log}
}

// Subscribe registers c for the given zones, replacing its previous zones.
func (h *Hub) Subscribe(c *ws.Conn, zones []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, z := range c.Zones() {
		delete(h.subs[z], c)
		if len(h.subs[z]) == 0 {
			delete(h.subs, z)
		}
	}
	for _, z := range zones {
		set, ok := h.subs[z]
		if !ok {
			set = make(map[*ws.Conn]struct{})
			h.subs[z] = set
		}
		set[c] = struct{}{}
	}
	c.SetZones(zones)
}

// Unsubscribe removes c from every zone (connection closed).
func (h *Hub) Unsubscribe(c *ws.Conn) {
	h.Subscribe(c, nil)
}

// Broadcast sends a position update to everyone watching zone. Called from
// the Kafka consumer goroutines, one per partition.
func (h *Hub) Broadcast(zone string, msg []byte) {
	subs := h.subs[zone]
	if len(subs) == 0 {
		return
	}
	h.mu.RLock()
	targets := make([]*ws.Conn, 0, len(subs))
	for c := range subs {
		targets = append(targets, c)
	}
	h.mu.RUnlock()
	for _, c := range targets {
		if err := c.TrySend(msg); err != nil {
			h.log.Debug("drop slow subscriber", "conn", c.ID(), "err", err)
		}
	}
}

// Zones reports the number of zones with at least one subscriber.
func (h *Hub) Zones() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.subs)
}
