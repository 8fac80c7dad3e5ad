package httpapi

import (
	"errors"
	"net/http"

	"github.com/paperlane/docs/internal/documents"
)

func (a *API) getDocument(w http.ResponseWriter, r *http.Request) {
	d, err := a.docs.Get(r.Context(), r.PathValue("id"))
	if errors.Is(err, documents.ErrNotFound) {
		writeError(w, http.StatusNotFound, "document not found")
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, "internal error")
		return
	}
	writeJSON(w, http.StatusOK, d)
}
