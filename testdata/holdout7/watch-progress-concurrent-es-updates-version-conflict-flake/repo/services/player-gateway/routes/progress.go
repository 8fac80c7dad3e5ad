package routes

// Progress writes are proxied 1:1 to watch-progress; a 5xx from it becomes a 502
// to the client, which retries on its next heartbeat.
var progressRoute = Route{
	Method:   "PUT",
	Pattern:  "/v1/progress/{profile}/{title}",
	Upstream: "http://watch-progress.viewing.svc:8080",
	Timeout:  800 * time.Millisecond,
	Retries:  0,
}
