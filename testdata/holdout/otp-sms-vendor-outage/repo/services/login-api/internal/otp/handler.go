package otp

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"time"
)

const otpTTL = 5 * time.Minute

type Handler struct {
	Notify NotifyClient
	Store  ChallengeStore
	Log    *slog.Logger
}

func (h *Handler) Start(w http.ResponseWriter, r *http.Request) {
	var req startRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	ch, err := h.Store.NewChallenge(r.Context(), req.CustomerID, otpTTL)
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	if err := h.Notify.SendOTP(r.Context(), req.CustomerID, ch.Code, ch.ID); err != nil {
		h.Log.ErrorContext(r.Context(), "otp delivery failed", "challenge_id", ch.ID, "err", err)
		http.Error(w, "could not send code", http.StatusBadGateway)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"challenge_id": ch.ID})
}
