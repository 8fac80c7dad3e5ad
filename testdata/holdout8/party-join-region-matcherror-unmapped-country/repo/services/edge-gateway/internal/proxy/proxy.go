package proxy

import (
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"
)

// Upstream routes a path prefix to one backend. The gateway terminates the
// client's session token and forwards the player id in X-Player-Id.
type Upstream struct {
	Name   string
	Prefix string
	Target *url.URL
}

func New(u Upstream, log *slog.Logger) http.Handler {
	rp := httputil.NewSingleHostReverseProxy(u.Target)
	rp.Transport = &http.Transport{
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       90 * time.Second,
		ResponseHeaderTimeout: 5 * time.Second,
	}
	rp.ModifyResponse = func(resp *http.Response) error {
		if resp.StatusCode >= 500 {
			log.Error("upstream error", "upstream", u.Name, "method", resp.Request.Method,
				"path", resp.Request.URL.Path, "status", resp.StatusCode,
				"player_id", resp.Request.Header.Get("X-Player-Id"))
		}
		return nil
	}
	rp.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) {
		log.Error("upstream unreachable", "upstream", u.Name, "path", r.URL.Path, "err", err)
		w.WriteHeader(http.StatusBadGateway)
	}
	return rp
}
