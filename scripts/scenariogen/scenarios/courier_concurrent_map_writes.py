"""Courier location service (Go): 'fatal error: concurrent map writes' crashes a pod a few times a day; restarts look like infrastructure."""
import datetime as dt

from sg import *

NAME = "courier-locator-concurrent-map-writes"


def build():
    sc = Scenario(NAME, "2026-04-22T13:30:00Z", """
        courier-locator keeps the last ping per courier in a plain map written from the HTTP handlers and
        from the MQTT subscriber goroutine without a lock. Under load two writers occasionally collide and the Go
        runtime aborts the process with fatal error: concurrent map writes (exit code 2): three crashes in six
        hours across two pods, each followed by ~20 s of 503s until the pod is ready again. The code dates from
        February; nothing was deployed today. Runtime crashes are not recoverable, so the fix is a mutex/sync.Map
        around lastSeen. Kubernetes restarts and the alert are symptoms; the node-local DNS warning is unrelated.""",
                  repo="swiftdrop/courier-platform")
    ns = "couriers"
    cl = sc.svc("courier-locator", ns, "go", version="1.8.4", runtime="go1.21.9", npods=3)
    crashes = [(cl.pods[0], sc.at("08:14:09")), (cl.pods[2], sc.at("10:52:41")), (cl.pods[0], sc.at("12:47:30"))]

    st = "internal/tracker/store.go"
    sc.file(st, """
        package tracker

        import (
        	"time"
        )

        type Ping struct {
        	CourierID string
        	Lat, Lng  float64
        	At        time.Time
        }

        // Store holds the latest ping of every active courier.
        type Store struct {
        	lastSeen map[string]Ping
        }

        func NewStore() *Store {
        	return &Store{lastSeen: make(map[string]Ping, 20000)}
        }

        // Record is called from the HTTP handler and the MQTT subscriber.
        func (s *Store) Record(p Ping) {
        	if prev, ok := s.lastSeen[p.CourierID]; ok && prev.At.After(p.At) {
        		return
        	}
        	s.lastSeen[p.CourierID] = p
        }

        func (s *Store) Get(id string) (Ping, bool) {
        	p, ok := s.lastSeen[id]
        	return p, ok
        }
        """)
    mq = "internal/tracker/mqtt.go"
    sc.file(mq, """
        package tracker

        import (
        	"encoding/json"

        	mqtt "github.com/eclipse/paho.mqtt.golang"
        )

        func Subscribe(c mqtt.Client, s *Store) mqtt.Token {
        	return c.Subscribe("couriers/+/location", 0, func(_ mqtt.Client, m mqtt.Message) {
        		var p Ping
        		if err := json.Unmarshal(m.Payload(), &p); err != nil {
        			return
        		}
        		s.Record(p)
        	})
        }
        """)
    L = sc.line(st, "s.lastSeen[p.CourierID] = p")
    L_mq = sc.line(mq, "s.Record(p)")
    sc.commit("2026-02-09T15:20:44Z", ("Tomasz Nowak", "tomasz@swiftdrop.eu", "tnowak"), "courier-locator: accept pings over MQTT as well as HTTP",
              [(mq, None, None)], merged_by_github=True)

    def crash_dump(t):
        return (f"fatal error: concurrent map writes\n\n"
                f"goroutine {sc.rng.randint(1000, 90000)} [running]:\n"
                f"github.com/swiftdrop/courier-platform/internal/tracker.(*Store).Record(...)\n\t/src/internal/tracker/store.go:{L}\n"
                f"github.com/swiftdrop/courier-platform/internal/tracker.Subscribe.func1({{0xc0001a2000?, 0xc000514b40?}}, {{0xb8e2a0, 0xc00098a1e0}})\n\t/src/internal/tracker/mqtt.go:{L_mq} +0x1f4\n"
                "github.com/eclipse/paho%2emqtt%2egolang.(*router).matchAndDispatch.func2()\n\t/go/pkg/mod/github.com/eclipse/paho.mqtt.golang@v1.4.3/router.go:213 +0x7e\n"
                "created by github.com/eclipse/paho%2emqtt%2egolang.(*router).matchAndDispatch in goroutine 41\n\t/go/pkg/mod/github.com/eclipse/paho.mqtt.golang@v1.4.3/router.go:197 +0x1ef\n\n"
                f"goroutine {sc.rng.randint(1000, 90000)} [runnable]:\n"
                f"github.com/swiftdrop/courier-platform/internal/tracker.(*Store).Record(...)\n\t/src/internal/tracker/store.go:{L}\n"
                "github.com/swiftdrop/courier-platform/internal/api.(*Handler).postPing(0xc0000f6180, {0xb91f00, 0xc000a4e0e0}, 0xc000b2a6c0)\n\t/src/internal/api/ping.go:37 +0x25d\n"
                "net/http.HandlerFunc.ServeHTTP(0xc0004d2d80?, {0xb91f00?, 0xc000a4e0e0?}, 0x0?)\n\t/usr/local/go/src/net/http/server.go:2136 +0x29\n"
                "net/http.(*conn).serve(0xc000468a20, {0xb92f48, 0xc0002ce480})\n\t/usr/local/go/src/net/http/server.go:2039 +0x763\n"
                "created by net/http.(*Server).Serve in goroutine 1\n\t/usr/local/go/src/net/http/server.go:3285 +0x4b4\n\n"
                "goroutine 1 [IO wait, 312 minutes]:\ninternal/poll.runtime_pollWait(0x7f3a1c2b9e58, 0x72)\n\t/usr/local/go/src/runtime/netpoll.go:343 +0x85")

    lab = lambda pod, lvl: {"container": "courier-locator", "namespace": ns, "pod": pod, "level": lvl}
    t0, t1 = sc.at("07:30"), sc.at("13:28")
    for p, ct in crashes:
        sc.log(lab(p, "error"), ct, crash_dump(ct))
        up = ct + dt.timedelta(seconds=sc.rng.uniform(1.5, 3))
        sc.log(lab(p, "info"), up, json.dumps({"time": iso(up, 6), "level": "INFO", "msg": "courier-locator listening", "http": ":8080", "mqtt": "tcp://mosquitto.couriers.svc:1883"}))
    for t in sc.times(t0, t1, 200):
        p = cl.pod()
        sc.log(lab(p, "info"), t, json.dumps({"time": iso(t, 6), "level": "INFO", "msg": "ping", "courier_id": f"c_{sc.rng.randint(10000, 99999)}",
                                              "src": sc.rng.choice(["http", "mqtt", "mqtt"]), "lag_ms": sc.rng.randint(20, 900)}))
    for t in sc.times(t0, t1, 12):
        sc.log(lab(cl.pod(), "warn"), t, json.dumps({"time": iso(t, 6), "level": "WARN", "msg": "slow DNS lookup", "host": "mosquitto.couriers.svc", "ms": sc.rng.randint(120, 600)}))

    def lookup(t, fail):
        p = cl.pod()
        hops = [{"svc": sc.svc_dispatch, "route": "/v1/assignments", "method": "POST", "port": 8080, "scope": "@opentelemetry/instrumentation-http"},
                {"svc": cl, "route": "GET /v1/couriers/{id}/location", "op": "GET /v1/couriers/{id}/location", "method": "GET", "port": 8080, "pod": p,
                 "scope": "go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"}]
        if fail:
            tr = sc.trace()
            s0 = tr.span(sc.svc_dispatch, "POST /v1/assignments", us(t), 9_000, error="", tags=http_server("POST", "/v1/assignments", 503, host="assignment-api", port=8080))
            tr.span(sc.svc_dispatch, "GET", us(t) + 800, 7_000, parent=s0, kind="client", error="connect ECONNREFUSED 10.43.17.201:8080",
                    tags=http_client("GET", "http://courier-locator.couriers.svc:8080/v1/couriers/c_51233/location", None, peer="courier-locator"),
                    events=[exc_event(us(t) + 7_700, "Error", "connect ECONNREFUSED 10.43.17.201:8080",
                                      "Error: connect ECONNREFUSED 10.43.17.201:8080\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1607:16)")])
        else:
            http_chain(sc, t, hops)
    sc.svc_dispatch = sc.svc("assignment-api", "dispatch", "nodejs", npods=2)
    for t in sc.times(t0, t1, 20):
        lookup(t, False)
    for _, ct in crashes:
        lookup(ct + dt.timedelta(seconds=sc.rng.uniform(0.5, 3)), True)

    m0, m1 = sc.at("07:20"), sc.at("13:29")
    for p in cl.pods:
        mine = [ct for pp, ct in crashes if pp == p]
        sc.gauge({"__name__": "kube_pod_container_status_restarts_total", "namespace": ns, "pod": p, "container": "courier-locator", "job": "kube-state-metrics"},
                 m0, m1, lambda t, mine=mine: sum(1 for c in mine if c <= t))
        sc.gauge({"__name__": "go_goroutines", "namespace": ns, "pod": p, "job": "courier-locator"}, m0, m1, lambda t: sc.rng.randint(180, 420))
    sc.counter({"__name__": "http_requests_total", "job": "assignment-api", "namespace": "dispatch", "upstream": "courier-locator", "code": "503"}, m0, m1,
               lambda t: 2.0 if any(dt.timedelta(0) <= t - c < dt.timedelta(seconds=60) for _, c in crashes) else 0, initial=61)

    k = sc.k8s = K8s(sc)
    nodes = ["ip-10-44-1-51.eu-west-3.compute.internal", "ip-10-44-2-9.eu-west-3.compute.internal", "ip-10-44-3-120.eu-west-3.compute.internal"]
    ctr = container_spec("courier-locator", "swiftdrop/courier-locator:1.8.4", 8080, requests={"cpu": "500m", "memory": "256Mi"}, limits={"memory": "512Mi"},
                         readiness=http_probe("/readyz", 8080, 5, 3))
    states = {}
    for i, p in enumerate(cl.pods):
        mine = [ct for pp, ct in crashes if pp == p]
        if mine:
            states[i] = {"restarts": len(mine), "state": running(mine[-1] + dt.timedelta(seconds=2)),
                         "last": terminated("Error", 2, (mine[-2] if len(mine) > 1 else ts("2026-04-18T09:00:00Z")) + dt.timedelta(seconds=2), mine[-1], sc)}
    workload(k, cl, ctr, nodes, ts("2025-09-01T10:00:00Z"), ts("2026-04-18T09:00:00Z"), 27, labels={"app": "courier-locator"}, pod_states=states)
    for p, ct in crashes:
        k.event(ns, "Pod", p, "BackOff", f"Back-off restarting failed container courier-locator in pod {p}_{ns}", ct + dt.timedelta(seconds=1), etype="Warning",
                host=nodes[cl.pods.index(p)], field_path="spec.containers{courier-locator}")
    a = alert(sc, {"alertname": "KubePodRestartedRecently", "container": "courier-locator", "namespace": ns, "pod": cl.pods[0], "job": "kube-state-metrics",
                   "severity": "info"},
              {"summary": "Pod restarted", "description": f"Pod {ns}/{cl.pods[0]} (courier-locator) restarted 2 times in the last 6 hours."},
              sc.at("12:48:00"), "increase(kube_pod_container_status_restarts_total[6h]) >= 2")
    sc.trigger = {"alert": webhook([a], ["alertname", "container"], "autoheal", "https://alertmanager.swiftdrop.eu", route_key="{}")}
    sc.config = {"repo": "swiftdrop/courier-platform", "log_service_label": "container"}
    sc.truth = {"bucket": "flake", "service": "courier-locator", "error_type": "race_condition", "file": st, "line": L, "line_tolerance": 4,
                "fix_keywords": ["mutex", "sync.Map", "RWMutex", "lock"]}
    return sc
