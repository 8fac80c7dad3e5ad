"""Logistics route planner (Go/gin): slice bounds out of range for single-stop routes, recovered by gin -> 500s."""
import datetime as dt

from sg import *

NAME = "route-planner-slice-bounds-gin"


def build():
    sc = Scenario(NAME, "2026-11-05T07:32:00Z", """
        The 06:12 route-planner commit trims the depot legs with stops[1 : len(stops)-1] before optimising; when
        a route's stops dedupe to a single point (dispatchers re-optimise routes whose deliveries were all
        cancelled, leaving only the depot) the expression panics with slice bounds out of range [1:0].
        gin.Recovery turns the panic into a 500 on POST /v1/routes/optimize; fleet-gateway, which alerts too,
        only forwards the 500s. The geocoder's rate-limit warnings and the fleet-gateway config commit are
        unrelated.""", repo="haulwise/fleet")
    ns = "fleet"
    gw = sc.svc("fleet-gateway", ns, "go", version="1.9.0", npods=2)
    rp = sc.svc("route-planner", ns, "go", version="0.31.0", runtime="go1.22.7", npods=2)
    geo = sc.svc("geocoder", ns, "python", npods=1)
    rollout = sc.at("06:25:12")

    opt = "route-planner/internal/optimize/optimize.go"
    sc.file(opt, """
        package optimize

        import (
        	"errors"

        	"github.com/haulwise/fleet/route-planner/internal/model"
        )

        var ErrNoStops = errors.New("route has no stops")

        // Optimize orders the intermediate stops of a route; the first and last
        // points are the depot and stay fixed.
        func Optimize(r model.Route, m model.DistanceMatrix) (model.Route, error) {
        	stops := dedupe(r.Stops)
        	inner := stops[1 : len(stops)-1]
        	if len(inner) == 0 {
        		return r, nil
        	}
        	order := twoOpt(nearestNeighbour(inner, m), m)
        	out := make([]model.Stop, 0, len(stops))
        	out = append(out, stops[0])
        	out = append(out, order...)
        	out = append(out, stops[len(stops)-1])
        	r.Stops = out
        	return r, nil
        }

        // dedupe drops consecutive stops at the same address (repeat drops).
        func dedupe(s []model.Stop) []model.Stop {
        	out := s[:0:0]
        	for i, st := range s {
        		if i > 0 && st.AddressID == s[i-1].AddressID {
        			continue
        		}
        		out = append(out, st)
        	}
        	return out
        }
        """)
    h = "route-planner/internal/api/routes.go"
    sc.file(h, """
        package api

        import (
        	"net/http"

        	"github.com/gin-gonic/gin"

        	"github.com/haulwise/fleet/route-planner/internal/model"
        	"github.com/haulwise/fleet/route-planner/internal/optimize"
        )

        func (s *Server) optimizeRoute(c *gin.Context) {
        	var r model.Route
        	if err := c.ShouldBindJSON(&r); err != nil {
        		c.JSON(http.StatusBadRequest, gin.H{"error": err.Error()})
        		return
        	}
        	m, err := s.matrix.For(c.Request.Context(), r.Stops)
        	if err != nil {
        		c.JSON(http.StatusBadGateway, gin.H{"error": "distance matrix unavailable"})
        		return
        	}
        	out, err := optimize.Optimize(r, m)
        	if err != nil {
        		c.JSON(http.StatusUnprocessableEntity, gin.H{"error": err.Error()})
        		return
        	}
        	c.JSON(http.StatusOK, out)
        }
        """)
    sc.file("fleet-gateway/config/routes.yaml", """
        routes:
          - prefix: /v1/routes
            upstream: http://route-planner.fleet.svc:8080
            timeout: 8s
          - prefix: /v1/vehicles
            upstream: http://vehicle-registry.fleet.svc:8080
            timeout: 3s
        """)
    L = sc.line(opt, "inner := stops[1 : len(stops)-1]")
    L_h = sc.line(h, "out, err := optimize.Optimize(r, m)")
    sc.commit("2026-11-05T06:40:09Z", ("Ravi Kumar", "ravi@haulwise.io", "rkumar"), "fleet-gateway: route-planner timeout 8s",
              [("fleet-gateway/config/routes.yaml", "    timeout: 5s\n  - prefix: /v1/vehicles", "    timeout: 8s\n  - prefix: /v1/vehicles")])
    sc.commit("2026-11-05T06:12:55Z", ("Anna Kowal", "anna@haulwise.io", "akowal"),
              "route-planner: keep depot fixed, optimise only intermediate stops (#277)",
              [(opt, """	stops := dedupe(r.Stops)
	order := twoOpt(nearestNeighbour(stops, m), m)
	r.Stops = order
	return r, nil""", """	stops := dedupe(r.Stops)
	inner := stops[1 : len(stops)-1]
	if len(inner) == 0 {
		return r, nil
	}
	order := twoOpt(nearestNeighbour(inner, m), m)
	out := make([]model.Stop, 0, len(stops))
	out = append(out, stops[0])
	out = append(out, order...)
	out = append(out, stops[len(stops)-1])
	r.Stops = out
	return r, nil""")], merged_by_github=True)

    def panic_text(t):
        return (f"\n\n{t.strftime('%Y/%m/%d %H:%M:%S')} [Recovery] {t.strftime('%Y/%m/%d - %H:%M:%S')} panic recovered:\n"
                "POST /v1/routes/optimize HTTP/1.1\r\nHost: route-planner.fleet.svc:8080\r\nContent-Type: application/json\r\n\r\n"
                "runtime error: slice bounds out of range [1:0]\n"
                "/usr/local/go/src/runtime/panic.go:127 (0x44a2f1)\n\tgoPanicSliceB: panic(boundsError{x: int64(x), signed: true, y: y, code: boundsSliceB})\n"
                f"/app/internal/optimize/optimize.go:{L} (0x8f13c5)\n\tOptimize: inner := stops[1 : len(stops)-1]\n"
                f"/app/internal/api/routes.go:{L_h} (0x8f2a10)\n\t(*Server).optimizeRoute: out, err := optimize.Optimize(r, m)\n"
                "/go/pkg/mod/github.com/gin-gonic/gin@v1.10.0/context.go:185 (0x8d1e4a)\n\t(*Context).Next: c.handlers[c.index](c)\n"
                "/go/pkg/mod/github.com/gin-gonic/gin@v1.10.0/recovery.go:102 (0x8d1e37)\n\tCustomRecoveryWithWriter.func1: c.Next()\n"
                "/go/pkg/mod/github.com/gin-gonic/gin@v1.10.0/gin.go:633 (0x8d0f5c)\n\t(*Engine).handleHTTPRequest: c.Next()\n"
                "/usr/local/go/src/net/http/server.go:3210 (0x6e4a0d)\n\tserverHandler.ServeHTTP: handler.ServeHTTP(rw, req)\n")

    lab = lambda s, pod, lvl: {"app": s, "namespace": ns, "pod": pod, "level": lvl}
    t0, t1 = sc.at("06:00"), sc.at("07:30")
    hops = lambda: [{"svc": gw, "route": "/v1/routes/optimize", "method": "POST", "port": 8080,
                     "scope": "go.opentelemetry.io/contrib/instrumentation/github.com/gin-gonic/gin/otelgin"},
                    {"svc": rp, "route": "/v1/routes/optimize", "method": "POST", "port": 8080,
                     "scope": "go.opentelemetry.io/contrib/instrumentation/github.com/gin-gonic/gin/otelgin",
                     "db": [("redis", "HMGET matrix:? ?", "matrix-cache.fleet.svc", 6379, "HMGET")]}]
    for t in sc.times(t0, t1, 26):
        depot_only = sc.rng.random() < 0.3
        fail = t >= rollout and depot_only
        f = {"at": 1, "msg": "runtime error: slice bounds out of range [1:0]", "codes": [500, 500], "stack": None} if fail else None
        tr, spans = http_chain(sc, t, hops(), fail=f)
        if fail:
            tt = from_us(spans[1]["startTime"] + spans[1]["duration"] - 300)
            sc.log(lab("route-planner", spans[1]["_pod"], "error"), tt, panic_text(tt).strip("\n"))
            sc.log(lab("route-planner", spans[1]["_pod"], "info"), tt + dt.timedelta(microseconds=200),
                   f'[GIN] {tt.strftime("%Y/%m/%d - %H:%M:%S")} | 500 | {spans[1]["duration"] / 1000:.4f}ms | {gw.ips[spans[0]["_pod"]]} | POST     "/v1/routes/optimize" trace_id={tr.id}')
            sc.log(lab("fleet-gateway", spans[0]["_pod"], "error"), tt + dt.timedelta(milliseconds=2),
                   f'time={iso(tt, 3)} level=ERROR msg="upstream error" route=/v1/routes upstream=route-planner status=500 trace_id={tr.id}')
        else:
            tt = from_us(spans[1]["startTime"] + spans[1]["duration"])
            sc.log(lab("route-planner", spans[1]["_pod"], "info"), tt,
                   f'[GIN] {tt.strftime("%Y/%m/%d - %H:%M:%S")} | 200 | {spans[1]["duration"] / 1000:.4f}ms | {gw.ips[spans[0]["_pod"]]} | POST     "/v1/routes/optimize" trace_id={tr.id}')
    for t in sc.times(t0, t1, 120):
        p = rp.pod()
        if t >= rollout and sc.rng.random() < 0.3:
            sc.log(lab("route-planner", p, "error"), t, panic_text(t).strip("\n"))
            sc.log(lab("fleet-gateway", gw.pod(), "error"), t + dt.timedelta(milliseconds=3),
                   f'time={iso(t, 3)} level=ERROR msg="upstream error" route=/v1/routes upstream=route-planner status=500')
        else:
            sc.log(lab("route-planner", p, "info"), t,
                   f'[GIN] {t.strftime("%Y/%m/%d - %H:%M:%S")} | 200 | {sc.rng.uniform(4, 40):.4f}ms | 10.42.{sc.rng.randint(1, 9)}.{sc.rng.randint(2, 250)} | POST     "/v1/routes/optimize"')
    for t in sc.times(t0, t1, 30):
        sc.log(lab("geocoder", geo.pods[0], "warn"), t, f"{t.strftime('%Y-%m-%d %H:%M:%S')} WARNING geocoder.provider: upstream rate limited (429), serving cached result for {sc.rng.randint(1, 20)} addresses")

    m0, m1 = sc.at("05:50"), sc.at("07:31")
    on = lambda t: t >= rollout + dt.timedelta(seconds=30)
    sc.counter({"__name__": "gin_requests_total", "job": "route-planner", "namespace": ns, "path": "/v1/routes/optimize", "code": "500"},
               m0, m1, lambda t: 1.4 if on(t) else 0, initial=12)
    sc.counter({"__name__": "gin_requests_total", "job": "route-planner", "namespace": ns, "path": "/v1/routes/optimize", "code": "200"},
               m0, m1, lambda t: 3.2, initial=611_204)
    sc.counter({"__name__": "gateway_upstream_responses_total", "job": "fleet-gateway", "namespace": ns, "upstream": "route-planner", "code": "5xx"},
               m0, m1, lambda t: 1.4 if on(t) else 0, initial=230)

    k = sc.k8s = K8s(sc)
    nodes = ["ip-172-20-11-7.us-east-2.compute.internal", "ip-172-20-12-61.us-east-2.compute.internal"]
    ctr = container_spec("route-planner", "ghcr.io/haulwise/route-planner:0.31.0", 8080, env={"GIN_MODE": "release"},
                         requests={"cpu": "500m", "memory": "256Mi"}, limits={"memory": "512Mi"}, readiness=http_probe("/healthz", 8080, 5))
    workload(k, rp, ctr, nodes, ts("2025-05-01T10:00:00Z"), rollout, 33, labels={"app": "route-planner"})
    gctr = container_spec("fleet-gateway", "ghcr.io/haulwise/fleet-gateway:1.9.0", 8080, requests={"cpu": "200m", "memory": "128Mi"})
    workload(k, gw, gctr, nodes, ts("2025-05-01T10:00:00Z"), sc.at("06:48:00"), 61, labels={"app": "fleet-gateway"})
    k.event(ns, "Pod", geo.pods[0], "Unhealthy", "Liveness probe failed: Get \"http://10.42.3.9:8000/live\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
            sc.at("06:58:31"), etype="Warning", host=nodes[0], field_path="spec.containers{geocoder}")

    a1 = alert(sc, {"alertname": "Http5xxRatioHigh", "app": "fleet-gateway", "namespace": ns, "severity": "page"},
               {"summary": "fleet-gateway 5xx above 5%", "description": "fleet-gateway: 9.8% of requests to /v1/routes return 5xx."},
               sc.at("06:41:00"), 'sum(rate(gateway_upstream_responses_total{code="5xx"}[5m])) / sum(rate(gateway_upstream_responses_total[5m])) > 0.05')
    a2 = alert(sc, {"alertname": "Http5xxRatioHigh", "app": "route-planner", "namespace": ns, "severity": "page"},
               {"summary": "route-planner 5xx above 5%", "description": "route-planner: 30% of POST /v1/routes/optimize return 500."},
               sc.at("06:41:30"), 'sum(rate(gin_requests_total{code=~"5.."}[5m])) / sum(rate(gin_requests_total[5m])) > 0.05')
    sc.trigger = {"alert": webhook([a1, a2], ["alertname", "namespace"], "autoheal", "https://alerts.haulwise.io", route_key='{}/{severity="page"}')}
    sc.config = {"repo": "haulwise/fleet", "log_service_label": "app"}
    sc.truth = {"bucket": "code_bug", "service": "route-planner", "error_type": "runtime_error", "file": opt, "line": L,
                "line_tolerance": 3, "fix_keywords": ["len(stops)", "bounds", "< 2", "slice"]}
    return sc
