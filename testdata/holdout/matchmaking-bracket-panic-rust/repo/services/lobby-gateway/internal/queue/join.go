package queue

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	mmv1 "github.com/frostbyte/arena-backend/gen/go/arena/matchmaking/v1"
	"google.golang.org/grpc/status"
)

// PingInterval keeps idle lobby websockets alive through the load balancer.
const PingInterval = 20 * time.Second

type Handler struct {
	MM  mmv1.MatchmakerClient
	Log *slog.Logger
}

func (h *Handler) Join(w http.ResponseWriter, r *http.Request) {
	req, err := decodeJoin(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	reply, err := h.MM.EnqueueParty(ctx, &mmv1.EnqueueRequest{PartyId: req.PartyID, Playlist: req.Playlist, PlayerIds: req.PlayerIDs})
	if err != nil {
		h.Log.ErrorContext(ctx, "enqueue failed", "party_id", req.PartyID, "playlist", req.Playlist, "err", err, "grpc_code", status.Code(err).String())
		http.Error(w, "matchmaking unavailable", http.StatusBadGateway)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"bracket": reply.Bracket, "eta": reply.EstimatedWaitSecs})
}
