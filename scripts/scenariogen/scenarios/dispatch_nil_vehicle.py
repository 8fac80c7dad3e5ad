"""Ride-hailing dispatch: nil *Vehicle dereference in a Go net/http handler; rider-api 502s are the loud symptom."""
import datetime as dt

from sg import *

NAME = "dispatch-nil-vehicle-panic"


def build():
    sc = Scenario(NAME, "2026-09-03T14:48:00Z", """
        The 13:58 dispatch commit added an EV preference to match.score and reads d.Vehicle.EV without a nil
        check; drivers still on the legacy driver app send location pings without a vehicle, so whenever such a
        driver is among the candidates, score dereferences a nil *Vehicle at internal/match/rank.go. net/http
        recovers the panic per connection (\"http: panic serving ...\") and closes it, so dispatch's own spans
        look clean and rider-api reports socket hang up / 502 for about 40% of match requests. The rider-api
        translation commit and driver-locations' slow GEOSEARCH warnings are noise.""", repo="hopper-mobility/marketplace")
    ns = "marketplace"
    rider = sc.svc("rider-api", ns, "nodejs", version="7.40.2", runtime="20.17.0", npods=2)
    disp = sc.svc("dispatch", ns, "go", version="b9e41c7", runtime="go1.23.1", npods=3)
    locs = sc.svc("driver-locations", ns, "go", version="3.2.0", runtime="go1.23.1", npods=2)
    rollout = sc.at("14:09:30")

    rank = "dispatch/internal/match/rank.go"
    sc.file(rank, """
        package match

        import (
        	"math"
        	"sort"

        	"github.com/hopper-mobility/marketplace/dispatch/internal/geo"
        )

        // Candidate is a driver near the pickup point.
        type Candidate struct {
        	DriverID  string
        	Location  geo.Point
        	Heading   float64
        	Rating    float64
        	Vehicle   *Vehicle // nil for drivers on the legacy driver app
        	IdleSince int64
        }

        type Vehicle struct {
        	Class string
        	EV    bool
        	Seats int
        }

        const evBonus = 0.15

        // score ranks a candidate for a pickup: closer, better rated and longer
        // idle drivers first; riders who asked for an EV prefer EVs.
        func score(c Candidate, pickup geo.Point, preferEV bool, now int64) float64 {
        	dist := geo.HaversineKM(c.Location, pickup)
        	s := 1/(1+dist) + 0.2*(c.Rating/5) + 0.1*math.Min(float64(now-c.IdleSince)/600, 1)
        	if preferEV && c.Vehicle.EV {
        		s += evBonus
        	}
        	return s
        }

        // Rank orders candidates best first.
        func Rank(cands []Candidate, pickup geo.Point, preferEV bool, now int64) []Candidate {
        	sort.SliceStable(cands, func(i, j int) bool {
        		return score(cands[i], pickup, preferEV, now) > score(cands[j], pickup, preferEV, now)
        	})
        	return cands
        }
        """)
    handler = "dispatch/internal/match/handler.go"
    sc.file(handler, """
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
        """)
    sc.file("dispatch/cmd/dispatch/main.go", """
        package main

        import (
        	"net/http"
        	"os"

        	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
        	"go.uber.org/zap"

        	"github.com/hopper-mobility/marketplace/dispatch/internal/match"
        )

        func main() {
        	log, _ := zap.NewProduction()
        	h := &match.Handler{Locations: match.NewLocationClient(os.Getenv("LOCATIONS_URL")), Offers: match.NewOfferSender(), Log: log}
        	mux := http.NewServeMux()
        	mux.Handle("POST /v1/match", otelhttp.NewHandler(h, "POST /v1/match"))
        	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
        	log.Info("dispatch listening", zap.String("addr", ":8080"))
        	if err := http.ListenAndServe(":8080", mux); err != nil {
        		log.Fatal("server stopped", zap.Error(err))
        	}
        }
        """)
    sc.file("rider-api/src/routes/rides.js", """
        const express = require('express');
        const { dispatchClient } = require('../clients/dispatch');
        const logger = require('../logger');

        const router = express.Router();

        router.post('/v1/rides/:rideId/match', async (req, res) => {
          try {
            const offer = await dispatchClient.match(req.params.rideId, req.body.pickup, req.body.preferEv === true);
            res.json({ status: 'matched', driverId: offer.driver_id, etaSeconds: offer.eta_s });
          } catch (err) {
            logger.error({ err, rideId: req.params.rideId }, 'dispatch request failed');
            res.status(502).json({ error: 'matching_unavailable' });
          }
        });

        module.exports = router;
        """)
    sc.file("rider-api/src/i18n/pt-BR.json", """
        {
          "ride.matching": "Procurando motorista…",
          "ride.matched": "Motorista a caminho",
          "ride.unavailable": "Nenhum motorista disponível no momento"
        }
        """)
    L = sc.line(rank, "if preferEV && c.Vehicle.EV {")
    L_rank = sc.line(rank, "return score(cands[i], pickup, preferEV, now) > score(cands[j], pickup, preferEV, now)")
    L_h = sc.line(handler, "ranked := Rank(cands, req.Pickup.point(), req.PreferEV, time.Now().Unix())")
    L_log = sc.line(handler, 'h.Log.Info("match assigned"')

    sc.commit("2026-09-03T14:21:02Z", ("Beatriz Lima", "beatriz@hopper.app", "bialima"),
              "rider-api: pt-BR copy for the matching screen (#3391)",
              [("rider-api/src/i18n/pt-BR.json", '  "ride.unavailable": "Sem motoristas"',
                '  "ride.unavailable": "Nenhum motorista disponível no momento"')], merged_by_github=True)
    sc.commit("2026-09-03T13:58:47Z", ("Kenji Watanabe", "kenji@hopper.app", "kwatanabe"),
              "dispatch: prefer EVs when the rider asks for one (#3384)",
              [(rank, """	s := 1/(1+dist) + 0.2*(c.Rating/5) + 0.1*math.Min(float64(now-c.IdleSince)/600, 1)
	return s
}""", """	s := 1/(1+dist) + 0.2*(c.Rating/5) + 0.1*math.Min(float64(now-c.IdleSince)/600, 1)
	if preferEV && c.Vehicle.EV {
		s += evBonus
	}
	return s
}"""), (rank, "", "const evBonus = 0.15\n\n"),
               (handler, "	ranked := Rank(cands, req.Pickup.point(), time.Now().Unix())",
                "	ranked := Rank(cands, req.Pickup.point(), req.PreferEV, time.Now().Unix())")], merged_by_github=True)
    sc.commit("2026-09-01T10:12:40Z", ("Olu Adeyemi", "olu@hopper.app", "oadeyemi"),
              "rider-api: surface dispatch failures as 502 with a stable error code",
              [("rider-api/src/routes/rides.js", "    res.status(500).json({ error: 'internal' });",
                "    res.status(502).json({ error: 'matching_unavailable' });")])

    panic_tmpl = ("http: panic serving {peer}: runtime error: invalid memory address or nil pointer dereference\n"
                  "goroutine {g} [running]:\n"
                  "net/http.(*conn).serve.func1()\n\t/usr/local/go/src/net/http/server.go:1947 +0xbe\n"
                  "panic({{0x9c4f20?, 0x10f6b50?}})\n\t/usr/local/go/src/runtime/panic.go:785 +0x132\n"
                  "github.com/hopper-mobility/marketplace/dispatch/internal/match.score(...)\n\t/app/internal/match/rank.go:%d\n"
                  "github.com/hopper-mobility/marketplace/dispatch/internal/match.Rank.func1(0x2, 0x0)\n\t/app/internal/match/rank.go:%d +0x1a5\n"
                  "sort.insertionSort_func({{0xc000a1e3c0?, 0xc0004b6d20?}}, 0x0, 0x7)\n\t/usr/local/go/src/sort/zsortfunc.go:12 +0xa6\n"
                  "sort.stable_func({{0xc000a1e3c0?, 0xc0004b6d20?}}, 0x7)\n\t/usr/local/go/src/sort/zsortfunc.go:343 +0x4c\n"
                  "sort.SliceStable({{0x9a8f60, 0xc000b2c018}}, 0xc0004b6d08)\n\t/usr/local/go/src/sort/slice.go:46 +0xe5\n"
                  "github.com/hopper-mobility/marketplace/dispatch/internal/match.Rank(...)\n\t/app/internal/match/rank.go:%d\n"
                  "github.com/hopper-mobility/marketplace/dispatch/internal/match.(*Handler).ServeHTTP(0xc0001a4f00, {{0xb41e28, 0xc000aa2380}}, 0xc0008c6a00)\n\t/app/internal/match/handler.go:%d +0x2b4\n"
                  "go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp.(*middleware).serveHTTP(0xc0001b6000, {{0xb41a38, 0xc000a2e1c0}}, 0xc0008c6780, {{0xb3d960, 0xc0001a4f00}})\n\t/go/pkg/mod/go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp@v0.54.0/handler.go:179 +0x12a6\n"
                  "net/http.serverHandler.ServeHTTP({{0xc0002e3aa0?}}, {{0xb41a38?, 0xc000a2e1c0?}}, 0x6?)\n\t/usr/local/go/src/net/http/server.go:3210 +0x8e\n"
                  "net/http.(*conn).serve(0xc0009a4b40, {{0xb42b30, 0xc0002fe8d0}})\n\t/usr/local/go/src/net/http/server.go:2092 +0x5d0\n"
                  "created by net/http.(*Server).Serve in goroutine 1\n\t/usr/local/go/src/net/http/server.go:3360 +0x485") % (L, L_rank, L_rank - 2, L_h)

    lab = lambda svc, pod, lvl: {"container": svc, "namespace": ns, "pod": pod, "stream": "stderr" if lvl == "error" and svc == "dispatch" else "stdout", "level": lvl}
    t0, t1 = sc.at("13:40"), sc.at("14:46")

    def match(t, legacy):
        fail = legacy and t >= rollout
        tr = sc.trace()
        st = us(t)
        ride = "rd_" + sc.hex(12)
        rp, dp = rider.pod(), disp.pod()
        d_nearby = sc.rng.randint(3_000, 9_000)
        total = d_nearby + (sc.rng.randint(2_000, 5_000) if fail else sc.rng.randint(20_000, 45_000)) + 2_500
        root = tr.span(rider, "POST /v1/rides/:rideId/match", st, total + 1_500, pod=rp,
                       error="" if fail else None, err_mode="both",
                       tags=http_server("POST", "/v1/rides/:rideId/match", 502 if fail else 200, new=False,
                                        target=f"/v1/rides/{ride}/match", host="rider-api", port=3000,
                                        scope="@opentelemetry/instrumentation-http"))
        cl = tr.span(rider, "POST", st + 600, total, parent=root, kind="client",
                     error="socket hang up" if fail else None, err_mode="both",
                     tags=http_client("POST", "http://dispatch.marketplace.svc:8080/v1/match", None if fail else 200, new=False,
                                      peer="dispatch"),
                     events=[exc_event(st + 600 + total, "Error", "socket hang up",
                                       "Error: socket hang up\n    at connResetException (node:internal/errors:787:14)\n    at Socket.socketOnEnd (node:_http_client:519:23)\n    at Socket.emit (node:events:531:35)\n    at endReadableNT (node:internal/streams/readable:1696:12)\n    at process.processTicksAndRejections (node:internal/process/task_queues:82:21)")] if fail else None)
        srv = tr.span(disp, "POST /v1/match", st + 1_100, total - 1_000, parent=cl, pod=dp,
                      tags={"otel.scope.name": "go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp",
                            "http.request.method": "POST", "url.path": "/v1/match", "server.address": "dispatch.marketplace.svc",
                            "network.peer.address": rider.ips[rp], "user_agent.original": "node",
                            **({} if fail else {"http.response.status_code": 200, "http.response.body.size": 212})})
        nb = tr.span(disp, "GET", st + 1_500, d_nearby, parent=srv, kind="client",
                     tags=http_client("GET", "http://driver-locations.marketplace.svc:8080/v1/nearby?radius_km=3", 200, peer="driver-locations"))
        lp = locs.pod()
        ls = tr.span(locs, "GET /v1/nearby", st + 1_900, d_nearby - 700, parent=nb, pod=lp,
                     tags=http_server("GET", "/v1/nearby", 200, host="driver-locations", port=8080))
        tr.span(locs, "GEOSEARCH", st + 2_100, d_nearby - 1_500, parent=ls, kind="client",
                tags=db("redis", "GEOSEARCH drivers:active FROMLONLAT ? ? BYRADIUS 3 km ASC COUNT 25 WITHCOORD", None,
                        "redis-geo.marketplace.svc", 6379, "GEOSEARCH"))
        if not fail:
            tr.span(disp, "offers.send", st + 1_500 + d_nearby + 800, total - d_nearby - 4_000, parent=srv, kind="producer",
                    tags={"messaging.system": "nats", "messaging.destination.name": "driver.offers", "messaging.operation.type": "publish"})
            sc.log(lab("dispatch", dp, "info"), from_us(st + total - 800),
                   json.dumps({"level": "info", "ts": round((st + total - 800) / 1e6, 6), "caller": f"match/handler.go:{L_log}",
                               "msg": "match assigned", "ride_id": ride, "driver_id": "drv_" + sc.hex(10),
                               "trace_id": tr.id, "span_id": srv["spanID"]}))
            sc.log(lab("rider-api", rp, "info"), from_us(st + total + 1_000),
                   json.dumps({"level": 30, "time": (st + total) // 1000, "pid": 1, "hostname": rp, "trace_id": tr.id,
                               "span_id": root["spanID"], "req": {"method": "POST", "url": f"/v1/rides/{ride}/match"},
                               "res": {"statusCode": 200}, "responseTime": total // 1000, "msg": "request completed"}))
        else:
            sc.log(lab("dispatch", dp, "error"), from_us(st + total - 1_200),
                   f"{from_us(st + total - 1_200).strftime('%Y/%m/%d %H:%M:%S')} " +
                   panic_tmpl.format(peer=f"{rider.ips[rp]}:{sc.rng.randint(30000, 60000)}",
                                     g=sc.rng.randint(40_000, 90_000)))
            sc.log(lab("rider-api", rp, "error"), from_us(st + total + 300),
                   json.dumps({"level": 50, "time": (st + total) // 1000, "pid": 1, "hostname": rp, "trace_id": tr.id,
                               "span_id": root["spanID"], "trace_flags": "01", "rideId": ride,
                               "err": {"type": "Error", "message": "socket hang up", "code": "ECONNRESET",
                                       "stack": "Error: socket hang up\n    at connResetException (node:internal/errors:787:14)\n    at Socket.socketOnEnd (node:_http_client:519:23)\n    at Socket.emit (node:events:531:35)\n    at endReadableNT (node:internal/streams/readable:1696:12)"},
                               "msg": "dispatch request failed"}))

    for t in sc.times(t0, t1, 22):
        match(t, sc.rng.random() < 0.45)
    match(sc.at("14:10:12.3"), True)
    match(sc.at("14:31:40"), True)

    # unsampled traffic
    for t in sc.times(t0, t1, 110):
        rp, dp = rider.pod(), disp.pod()
        if t >= rollout and sc.rng.random() < 0.4:
            sc.log(lab("dispatch", dp, "error"), t, f"{t.strftime('%Y/%m/%d %H:%M:%S')} " +
                   panic_tmpl.format(peer=f"{rider.ips[rp]}:{sc.rng.randint(30000, 60000)}", g=sc.rng.randint(40_000, 90_000)))
            sc.log(lab("rider-api", rp, "error"), t + dt.timedelta(milliseconds=4),
                   json.dumps({"level": 50, "time": int(t.timestamp() * 1000) + 4, "pid": 1, "hostname": rp, "rideId": "rd_" + sc.hex(12),
                               "err": {"type": "Error", "message": "socket hang up", "code": "ECONNRESET"}, "msg": "dispatch request failed"}))
        else:
            sc.log(lab("dispatch", dp, "info"), t, json.dumps({"level": "info", "ts": round(t.timestamp(), 6), "caller": f"match/handler.go:{L_log}",
                                                               "msg": "match assigned", "ride_id": "rd_" + sc.hex(12), "driver_id": "drv_" + sc.hex(10)}))
    for t in sc.times(t0, t1, 30):
        lp = locs.pod()
        sc.log(lab("driver-locations", lp, "warn"), t, json.dumps({"level": "warn", "ts": round(t.timestamp(), 6), "caller": "store/redis.go:88",
                                                                   "msg": "slow GEOSEARCH", "elapsed_ms": sc.rng.randint(55, 140), "threshold_ms": 50}))
    for i, p in enumerate(disp.pods):
        t = rollout + dt.timedelta(seconds=5 + 9 * i)
        sc.log(lab("dispatch", p, "info"), t, json.dumps({"level": "info", "ts": round(t.timestamp(), 6), "caller": "dispatch/main.go:22",
                                                          "msg": "dispatch listening", "addr": ":8080", "version": "b9e41c7"}))

    m0, m1 = sc.at("13:30"), sc.at("14:47")
    on = lambda t: t >= rollout + dt.timedelta(seconds=30)
    for code, fn in [("200", lambda t: 9.0 * (0.6 if on(t) else 1)), ("502", lambda t: 3.6 if on(t) else 0.01),
                     ("404", lambda t: 0.05)]:
        sc.counter({"__name__": "http_requests_total", "job": "marketplace/rider-api", "namespace": ns, "service": "rider-api",
                    "route": "/v1/rides/:rideId/match", "method": "POST", "status_code": code}, m0, m1, fn, initial=sc.rng.randint(10_000, 900_000))
    for p in disp.pods:
        sc.gauge({"__name__": "go_goroutines", "job": "marketplace/dispatch", "namespace": ns, "pod": p}, rollout, m1,
                 lambda t: sc.rng.randint(140, 260))
    sc.gauge({"__name__": "redis_commands_duration_seconds_p99", "job": "redis-exporter", "namespace": ns, "cmd": "geosearch"}, m0, m1,
             lambda t: sc.rng.uniform(0.04, 0.14))
    sc.config = {"repo": "hopper-mobility/marketplace", "log_service_label": "container"}
    sc.trigger = {"mention": "rider app cant get rides matched since like 14:10?? rider-api throwing 502s on /match, can someone look"}
    sc.truth = {"bucket": "code_bug", "service": "dispatch", "error_type": "null_pointer", "file": rank, "line": L,
                "line_tolerance": 3, "fix_keywords": ["nil", "Vehicle", "check"]}
    return sc
