package http

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"

	"github.com/ambientlabs/device-cloud/services/ingest-api/internal/auth"
	"github.com/ambientlabs/device-cloud/services/ingest-api/internal/bus"
)

// Telemetry accepts one reading from a device (HTTPS over LTE-M). The device
// signs the body with its provisioned key; the device id comes from the
// verified certificate, not from the body.
func Telemetry(pub bus.Publisher, keys auth.KeyStore) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body := io.Reader(r.Body)
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, "bad gzip", http.StatusBadRequest)
				return
			}
			defer zr.Close()
			body = zr
		}
		raw, err := io.ReadAll(io.LimitReader(body, 64<<10))
		if err != nil {
			http.Error(w, "read error", http.StatusBadRequest)
			return
		}
		deviceID := auth.DeviceID(r)
		if !keys.Verify(deviceID, raw, r.Header.Get("X-Signature")) {
			slog.Warn("rejected payload: signature mismatch", "device_id", deviceID)
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		var reading map[string]any
		if err := json.Unmarshal(raw, &reading); err != nil {
			http.Error(w, "bad json", http.StatusBadRequest)
			return
		}
		if err := pub.Publish(r.Context(), "dev."+deviceID+".telemetry", raw); err != nil {
			slog.Error("publish failed", "device_id", deviceID, "err", err)
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}
}
