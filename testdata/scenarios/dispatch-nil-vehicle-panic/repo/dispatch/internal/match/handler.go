package match

import (
	"encoding/json"
	"net/http"
	"time"

	"go.uber.org/zap"
)

type Handler struct {
	Locations LocationClient
	Offers    OfferSender
	Log       *zap.Logger
}

type matchRequest struct {
	RideID   string   `json:"ride_id"`
	Pickup   geoPoint `json:"pickup"`
	PreferEV bool     `json:"prefer_ev"`
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req matchRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	cands, err := h.Locations.Nearby(r.Context(), req.Pickup.point(), 3.0)
	if err != nil {
		h.Log.Warn("nearby lookup failed", zap.Error(err), zap.String("ride_id", req.RideID))
		http.Error(w, "no candidates", http.StatusServiceUnavailable)
		return
	}
	ranked := Rank(cands, req.Pickup.point(), req.PreferEV, time.Now().Unix())
	offer, err := h.Offers.Send(r.Context(), req.RideID, ranked)
	if err != nil {
		http.Error(w, "offer failed", http.StatusBadGateway)
		return
	}
	h.Log.Info("match assigned", zap.String("ride_id", req.RideID), zap.String("driver_id", offer.DriverID))
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(offer)
}
