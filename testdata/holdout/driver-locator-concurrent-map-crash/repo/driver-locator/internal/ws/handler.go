package ws

import (
	"net/http"
	"strings"
	"time"
)

// PingEvery keeps rider app sockets alive through the NLB (idle timeout 350s).
const PingEvery = 30 * time.Second

func (s *Server) handleWatch(w http.ResponseWriter, r *http.Request) {
	conn, err := s.upgrade(w, r)
	if err != nil {
		return
	}
	defer s.hub.Unsubscribe(conn)
	s.hub.Subscribe(conn, strings.Split(r.URL.Query().Get("zones"), ","))
	conn.Serve(r.Context(), PingEvery, func(zones []string) { s.hub.Subscribe(conn, zones) })
}
