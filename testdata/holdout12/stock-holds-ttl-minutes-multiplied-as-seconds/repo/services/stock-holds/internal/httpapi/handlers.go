package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/fernway/commerce/services/stock-holds/internal/holds"
	"github.com/fernway/commerce/services/stock-holds/internal/store"
)

type Handlers struct{ svc *holds.Service }

func (h *Handlers) Create(w http.ResponseWriter, r *http.Request) {
	var req holds.CreateRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeErr(w, http.StatusBadRequest, "invalid body")
		return
	}
	hold, err := h.svc.Create(r.Context(), req)
	if err != nil {
		if errors.Is(err, store.ErrInsufficientStock) {
			writeErr(w, http.StatusConflict, err.Error())
			return
		}
		writeErr(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusCreated, hold)
}

func (h *Handlers) Confirm(w http.ResponseWriter, r *http.Request) {
	var req struct {
		OrderID string `json:"order_id"`
	}
	_ = json.NewDecoder(r.Body).Decode(&req)
	err := h.svc.Confirm(r.Context(), r.PathValue("id"), req.OrderID)
	switch {
	case err == nil:
		w.WriteHeader(http.StatusNoContent)
	case errors.Is(err, holds.ErrHoldExpired):
		writeErr(w, http.StatusGone, "hold expired")
	case errors.Is(err, store.ErrNotFound):
		writeErr(w, http.StatusNotFound, "hold not found")
	default:
		writeErr(w, http.StatusInternalServerError, err.Error())
	}
}
