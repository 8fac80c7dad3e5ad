package tracker

import (
	"time"
)

type Ping struct {
	CourierID string
	Lat, Lng  float64
	At        time.Time
}

// Store holds the latest ping of every active courier.
type Store struct {
	lastSeen map[string]Ping
}

func NewStore() *Store {
	return &Store{lastSeen: make(map[string]Ping, 20000)}
}

// Record is called from the HTTP handler and the MQTT subscriber.
func (s *Store) Record(p Ping) {
	if prev, ok := s.lastSeen[p.CourierID]; ok && prev.At.After(p.At) {
		return
	}
	s.lastSeen[p.CourierID] = p
}

func (s *Store) Get(id string) (Ping, bool) {
	p, ok := s.lastSeen[id]
	return p, ok
}
