"""Ride ETA service (Go): short bursts of DNS lookup timeouts (conntrack race on parallel A/AAAA queries) -> rare 5xx, no deploy."""
import datetime as dt

from sg import *

NAME = "eta-service-dns-lookup-timeout-bursts"


def build():
    sc = Scenario(NAME, "2026-05-06T17:55:00Z", """
        eta-service sees short bursts (5-10 s, a few per hour) of \"dial tcp: lookup traffic-model.routing.svc.cluster.local
        on 10.96.0.10:53: read udp ...: i/o timeout\" when calling traffic-model, about 0.4% of requests, on all pods
        and nodes, unrelated to deploys. The Go resolver sends A and AAAA queries in parallel over the same UDP
        socket and the kernel's conntrack insert race drops one of them; the lookup then waits the full 5 s
        timeout. Known flake with the classic mitigations (single-request-reopen / use-vc in dnsConfig options,
        NodeLocal DNSCache, fewer ndots searches). CoreDNS itself is healthy; its restart at 12:10 and the
        traffic-model deploy at 16:30 do not line up with the bursts.""", repo="hopper-mobility/eta")
    ns = "routing"
    eta = sc.svc("eta-service", ns, "go", version="2.19.1", runtime="go1.22.8", npods=4)
    tm = sc.svc("traffic-model", ns, "python", version="0.44.0", npods=2)
    rider = sc.svc("rider-api", "marketplace", "nodejs", npods=2)

    cl = "eta-service/internal/traffic/client.go"
    sc.file(cl, """
        package traffic

        import (
        	"context"
        	"encoding/json"
        	"fmt"
        	"net/http"
        	"time"
        )

        type Client struct {
        	base string
        	hc   *http.Client
        }

        func New(base string) *Client {
        	return &Client{base: base, hc: &http.Client{Timeout: 2 * time.Second}}
        }

        func (c *Client) Speed(ctx context.Context, segment string) (float64, error) {
        	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/v1/segments/%s/speed", c.base, segment), nil)
        	resp, err := c.hc.Do(req)
        	if err != nil {
        		return 0, fmt.Errorf("traffic-model: %w", err)
        	}
        	defer resp.Body.Close()
        	var out struct{ KPH float64 }
        	return out.KPH, json.NewDecoder(resp.Body).Decode(&out)
        }
        """)
    dep = "deploy/eta-service/deployment.yaml"
    sc.file(dep, """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: eta-service
          namespace: routing
        spec:
          replicas: 4
          template:
            spec:
              dnsPolicy: ClusterFirst
              containers:
                - name: eta-service
                  image: ghcr.io/hopper-mobility/eta-service:2.19.1
                  env:
                    - name: TRAFFIC_MODEL_URL
                      value: http://traffic-model.routing.svc.cluster.local:8000
        """)
    sc.file("deploy/traffic-model/kustomization.yaml", """
        resources:
          - deployment.yaml
        images:
          - name: traffic-model
            newName: ghcr.io/hopper-mobility/traffic-model
            newTag: 0.44.0
        """)
    sc.commit("2026-05-06T16:18:00Z", ("Ada Obi", "ada@hopper.app", "adaobi"), "traffic-model 0.44.0: weekday model refresh",
              [("deploy/traffic-model/kustomization.yaml", "    newTag: 0.43.2", "    newTag: 0.44.0")], merged_by_github=True)
    sc.commit("2026-04-29T11:05:12Z", ("Kenji Watanabe", "kenji@hopper.app", "kwatanabe"), "eta-service: 2s client timeout for traffic-model",
              [(cl, "hc: &http.Client{Timeout: 5 * time.Second}", "hc: &http.Client{Timeout: 2 * time.Second}")], merged_by_github=True)

    t0, t1 = sc.at("12:00"), sc.at("17:53")
    bursts = sorted(sc.times(t0, t1, 14))
    lab = lambda s, pod, lvl, nsx=ns: {"service_name": s, "namespace": nsx, "pod": pod, "level": lvl}

    def err_msg(p):
        return (f'traffic-model: Get "http://traffic-model.routing.svc.cluster.local:8000/v1/segments/{sc.rng.randint(10**6, 10**7)}/speed": '
                f"dial tcp: lookup traffic-model.routing.svc.cluster.local on 10.96.0.10:53: read udp {eta.ips[p]}:{sc.rng.randint(30000, 60000)}->10.96.0.10:53: i/o timeout")

    def req(t, fail):
        p = eta.pod()
        tr = sc.trace()
        st = us(t)
        rp = rider.pod()
        d = 2_000_000 + sc.rng.randint(500, 3_000) if fail else sc.rng.randint(9_000, 30_000)
        root = tr.span(rider, "GET /v1/rides/:rideId/eta", st, d + 5_000, pod=rp, error="" if fail else None,
                       tags=http_server("GET", "/v1/rides/:rideId/eta", 503 if fail else 200, new=False, host="rider-api", port=3000,
                                        scope="@opentelemetry/instrumentation-http"))
        c = tr.span(rider, "GET", st + 900, d + 2_500, parent=root, kind="client", error="" if fail else None,
                    tags=http_client("GET", "http://eta-service.routing.svc:8080/v1/eta", 503 if fail else 200, new=False, peer="eta-service"))
        s = tr.span(eta, "GET /v1/eta", st + 1_400, d + 1_000, parent=c, pod=p, error=err_msg(p) if fail else None,
                    tags=http_server("GET", "/v1/eta", 503 if fail else 200, host="eta-service", port=8080,
                                     scope="go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"))
        if fail:
            m = err_msg(p)
            tr.span(eta, "HTTP GET", st + 1_900, 2_000_000, parent=s, kind="client", error=m,
                    tags={"http.request.method": "GET", "server.address": "traffic-model.routing.svc.cluster.local", "server.port": 8000,
                          "error.type": "*net.OpError", "peer.service": "traffic-model"},
                    events=[exc_event(st + 2_001_800, "*net.DNSError", m, None, style="msgonly")])
            sc.log(lab("eta-service", p, "error"), from_us(st + d), json.dumps({"level": "error", "ts": round((st + d) / 1e6, 6), "caller": "eta/handler.go:61",
                                                                              "msg": "eta failed", "error": m, "trace_id": tr.id}))
        else:
            cc = tr.span(eta, "HTTP GET", st + 1_900, d - 3_000, parent=s, kind="client",
                         tags=http_client("GET", "http://traffic-model.routing.svc.cluster.local:8000/v1/segments/123/speed", 200, peer="traffic-model"))
            tr.span(tm, "GET /v1/segments/{segment}/speed", st + 2_600, d - 4_500, parent=cc,
                    tags=http_server("GET", "/v1/segments/{segment}/speed", 200, host="traffic-model", port=8000, scope="opentelemetry.instrumentation.fastapi"))

    for t in sc.times(t0, t1, 22):
        req(t, False)
    for b in bursts[:8]:
        req(b + dt.timedelta(seconds=sc.rng.uniform(0, 6)), True)
    for b in bursts:
        for _ in range(sc.rng.randint(3, 9)):
            t = b + dt.timedelta(seconds=sc.rng.uniform(0, 8))
            p = eta.pod()
            sc.log(lab("eta-service", p, "error"), t, json.dumps({"level": "error", "ts": round(t.timestamp(), 6), "caller": "eta/handler.go:61",
                                                                  "msg": "eta failed", "error": err_msg(p)}))
    for t in sc.times(t0, t1, 200):
        p = eta.pod()
        sc.log(lab("eta-service", p, "info"), t, json.dumps({"level": "info", "ts": round(t.timestamp(), 6), "caller": "eta/handler.go:74",
                                                             "msg": "eta computed", "ride_id": "rd_" + sc.hex(12), "eta_s": sc.rng.randint(60, 1500)}))
    cdns = ["coredns-5d78c9869d-7xk2p", "coredns-5d78c9869d-q9w4m"]
    r = sc.at("12:10:02")
    for off, m in [(0, "[INFO] SIGTERM: Shutting down servers then terminating"), (9, ".:53\n[INFO] plugin/reload: Running configuration SHA512 = 8a7d…\nCoreDNS-1.11.1\nlinux/amd64, go1.20.7, ae2bbc2")]:
        sc.log(lab("coredns", cdns[0], "info", "kube-system"), r + dt.timedelta(seconds=off), m)
    for t in sc.times(t0, t1, 20):
        sc.log(lab("coredns", sc.rng.choice(cdns), "info", "kube-system"), t,
               f'[INFO] {sc.pod_ip()}:{sc.rng.randint(30000, 60000)} - {sc.rng.randint(1000, 65000)} "AAAA IN traffic-model.routing.svc.cluster.local.routing.svc.cluster.local. udp 93 false 1232" NXDOMAIN qr,aa,rd 186 0.000{sc.rng.randint(100, 999)}s')

    m0, m1 = sc.at("11:50"), sc.at("17:54")
    inb = lambda t: any(dt.timedelta(0) <= t - b < dt.timedelta(seconds=60) for b in bursts)
    sc.counter({"__name__": "http_server_requests_total", "job": "eta-service", "namespace": ns, "route": "/v1/eta", "code": "503"}, m0, m1,
               lambda t: 0.12 if inb(t) else 0.0, initial=1_021, integer=False)
    sc.counter({"__name__": "http_server_requests_total", "job": "eta-service", "namespace": ns, "route": "/v1/eta", "code": "200"}, m0, m1,
               lambda t: 31, initial=299_331_801)
    sc.counter({"__name__": "node_nf_conntrack_stat_insert_failed", "job": "node-exporter", "instance": "ip-10-8-2-33.eu-west-1.compute.internal"}, m0, m1,
               lambda t: 0.2 if inb(t) else 0.001, initial=18_223, integer=False)
    sc.gauge({"__name__": "coredns_dns_request_duration_seconds_p99", "job": "coredns", "server": "dns://:53"}, m0, m1, lambda t: sc.rng.uniform(0.002, 0.008))

    sc.trigger = {"mention": "seeing random 'lookup traffic-model... i/o timeout' errors in eta-service, couple times an hour, goes away on its own. nothing deployed. flaky dns?"}
    sc.config = {"repo": "hopper-mobility/eta", "service_name": "eta-service"}
    sc.truth = {"bucket": "flake", "service": "eta-service", "error_type": "network",
                "fix_keywords": ["single-request-reopen", "NodeLocal", "dnsConfig", "ndots", "conntrack"]}
    return sc
