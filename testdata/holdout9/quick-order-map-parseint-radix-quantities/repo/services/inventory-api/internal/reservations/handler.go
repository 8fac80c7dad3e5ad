package reservations

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
)

type Line struct {
	SKU      string `json:"sku"`
	Quantity int    `json:"quantity"`
}

type Request struct {
	CustomerID   string `json:"customerId"`
	DeliveryDate string `json:"deliveryDate"`
	Lines        []Line `json:"lines"`
}

func (h *Handler) Reserve(w http.ResponseWriter, r *http.Request) {
	var req Request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeErr(w, http.StatusBadRequest, "invalid json: "+err.Error())
		return
	}
	for i, l := range req.Lines {
		// Quantities below 1 used to be clamped to 1, which shipped cases nobody ordered (INV-412).
		if l.Quantity < 1 {
			slog.WarnContext(r.Context(), "reservation rejected", "customer", req.CustomerID, "line", i, "sku", l.SKU, "quantity", l.Quantity)
			writeErr(w, http.StatusUnprocessableEntity, fmt.Sprintf("line %d: quantity must be >= 1", i+1))
			return
		}
	}
	id, err := h.store.Reserve(r.Context(), req.CustomerID, req.DeliveryDate, req.Lines)
	if err != nil {
		writeErr(w, http.StatusConflict, err.Error())
		return
	}
	slog.InfoContext(r.Context(), "reserved", "order_id", id, "customer", req.CustomerID, "lines", len(req.Lines))
	writeJSON(w, http.StatusCreated, map[string]string{"order_id": id})
}
