package rates

import (
	"errors"
	"net/http"
)

func (h *Handler) Quote(w http.ResponseWriter, r *http.Request) {
	req, err := decodeQuoteRequest(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	addr, err := h.addresses.Get(r.Context(), req.CustomerID, req.AddressID)
	if err != nil {
		http.Error(w, "address lookup failed", http.StatusBadGateway)
		return
	}
	if err := ValidateDestination(addr); err != nil {
		h.log.Warn("quote rejected", "customer_id", req.CustomerID, "address_id", req.AddressID, "err", err)
		http.Error(w, err.Error(), http.StatusUnprocessableEntity)
		return
	}
	quotes, err := h.carriers.QuoteAll(r.Context(), addr, req.Parcels)
	if errors.Is(err, ErrNoCarrier) {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	writeJSON(w, quotes)
}
