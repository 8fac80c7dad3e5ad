"""Logistics tracker: Express handler builds an invalid Date from carrier ETAs with offsets (traces only)."""
import datetime as dt

from sg import *

NAME = "shipment-eta-invalid-time-value"


def build():
    sc = Scenario(NAME, "2026-07-09T16:32:00Z", """
        The 15:20 shipment-api commit normalises carrier ETAs with new Date(leg.etaLocal + 'Z'); ETAs from carriers
        that already send an offset (\"2026-07-10T08:00:00+02:00\") become \"...+02:00Z\", an Invalid Date, and
        toISOString() throws RangeError: Invalid time value in src/eta.js for every multi-leg tracking page with such a
        carrier (about a third of lookups). Only traces are collected for this service. tracking-web shows the 500s;
        the carrier-gateway restart this morning and the customer-notify commit are unrelated.""",
                  repo="cargoline/tracking")
    ns = "tracking"
    web = sc.svc("tracking-web", ns, "nodejs", version="3.9.1", runtime="20.15.1", npods=2)
    api = sc.svc("shipment-api", ns, "nodejs", version="12.4.0", runtime="20.15.1", npods=3)
    cg = sc.svc("carrier-gateway", ns, "java", version="2.2.7", runtime="17.0.11+9", npods=2)
    rollout = sc.at("15:34:10")

    eta = "shipment-api/src/eta.js"
    sc.file(eta, """
        'use strict';

        const { trace } = require('@opentelemetry/api');

        const tracer = trace.getTracer('shipment-api');

        /**
         * Carriers report leg ETAs as local wall-clock strings. The tracking page
         * shows them in UTC, with the last leg's ETA as the delivery estimate.
         */
        function normaliseEta(leg) {
          if (!leg.etaLocal) {
            return null;
          }
          const eta = new Date(leg.etaLocal + 'Z');
          return { legId: leg.id, carrier: leg.carrier, etaUtc: eta.toISOString() };
        }

        function computeEtas(shipment) {
          return tracer.startActiveSpan('eta.compute', (span) => {
            try {
              span.setAttribute('app.shipment.legs', shipment.legs.length);
              const legs = shipment.legs.map(normaliseEta).filter(Boolean);
              return { legs, deliveryEta: legs.length ? legs[legs.length - 1].etaUtc : null };
            } finally {
              span.end();
            }
          });
        }

        module.exports = { computeEtas, normaliseEta };
        """)
    route = "shipment-api/src/routes/shipments.js"
    sc.file(route, """
        'use strict';

        const express = require('express');
        const { computeEtas } = require('../eta');
        const carriers = require('../carriers');

        const router = express.Router();

        router.get('/v2/shipments/:trackingNo', async (req, res, next) => {
          try {
            const shipment = await carriers.lookup(req.params.trackingNo);
            if (!shipment) {
              return res.status(404).json({ error: 'not_found' });
            }
            const etas = computeEtas(shipment);
            res.json({ trackingNo: shipment.trackingNo, status: shipment.status, ...etas });
          } catch (err) {
            next(err);
          }
        });

        module.exports = router;
        """)
    sc.file("customer-notify/src/templates.js", """
        module.exports = {
          outForDelivery: (s) => `Your parcel ${s.trackingNo} is out for delivery today.`,
          delayed: (s) => `Your parcel ${s.trackingNo} is delayed. New estimate: ${s.eta}.`,
        };
        """)
    L = sc.line(eta, "const eta = new Date(leg.etaLocal + 'Z');")
    L_map = sc.line(eta, "const legs = shipment.legs.map(normaliseEta).filter(Boolean);")
    L_route = sc.line(route, "const etas = computeEtas(shipment);")
    sc.commit("2026-07-09T15:41:00Z", ("Maya Goldberg", "maya@cargoline.io", "mayag"),
              "customer-notify: include the new estimate in delay messages",
              [("customer-notify/src/templates.js", "  delayed: (s) => `Your parcel ${s.trackingNo} is delayed.`,",
                "  delayed: (s) => `Your parcel ${s.trackingNo} is delayed. New estimate: ${s.eta}.`,")])
    sc.commit("2026-07-09T15:20:33Z", ("Daniel Okafor", "daniel@cargoline.io", "dokafor"),
              """shipment-api: show leg ETAs in UTC

              Carrier ETAs are local wall-clock strings; treat them as UTC so the page
              stops showing the browser's offset twice.""",
              [(eta, """  return { legId: leg.id, carrier: leg.carrier, etaUtc: leg.etaLocal };""",
                """  const eta = new Date(leg.etaLocal + 'Z');
  return { legId: leg.id, carrier: leg.carrier, etaUtc: eta.toISOString() };""")])

    stack = ("RangeError: Invalid time value\n"
             "    at Date.toISOString (<anonymous>)\n"
             f"    at normaliseEta (/usr/src/app/src/eta.js:{L + 1}:66)\n"
             "    at Array.map (<anonymous>)\n"
             f"    at /usr/src/app/src/eta.js:{L_map}:33\n"
             "    at Tracer.startActiveSpan (/usr/src/app/node_modules/@opentelemetry/sdk-trace-base/build/src/Tracer.js:121:24)\n"
             f"    at computeEtas (/usr/src/app/src/eta.js:{L_map - 3}:17)\n"
             f"    at /usr/src/app/src/routes/shipments.js:{L_route}:18\n"
             "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)")
    offset_carriers = ["DHLDE", "POSTNL"]
    plain_carriers = ["UPS", "FEDEX", "GLS", "DPD"]
    t0, t1 = sc.at("15:05"), sc.at("16:30")

    def lookup(t, carriers):
        tr = sc.trace()
        st = us(t)
        fail = t >= rollout and any(c in offset_carriers for c in carriers)
        tn = "CL" + str(sc.rng.randint(10**9, 10**10 - 1))
        wp, ap = web.pod(), api.pod()
        d_cg = sc.rng.randint(18_000, 60_000)
        total = d_cg + sc.rng.randint(4_000, 9_000)
        root = tr.span(web, f"GET /track/:trackingNo", st, total + 6_000, pod=wp, error="" if fail else None,
                       tags=http_server("GET", "/track/:trackingNo", 500 if fail else 200, new=False, target=f"/track/{tn}",
                                        host="track.cargoline.io", port=443, scope="@opentelemetry/instrumentation-http"))
        c = tr.span(web, "GET", st + 1_200, total + 2_000, parent=root, kind="client", error="" if fail else None,
                    tags=http_client("GET", f"http://shipment-api.tracking.svc:8080/v2/shipments/{tn}", 500 if fail else 200, new=False,
                                     peer="shipment-api"))
        s = tr.span(api, "GET /v2/shipments/:trackingNo", st + 1_800, total, parent=c, pod=ap,
                    error="Invalid time value" if fail else None,
                    tags=http_server("GET", "/v2/shipments/:trackingNo", 500 if fail else 200, new=False, target=f"/v2/shipments/{tn}",
                                     host="shipment-api", port=8080, scope="@opentelemetry/instrumentation-http"))
        tr.span(api, "middleware - query", st + 1_900, 80, parent=s, kind="internal",
                tags={"express.name": "query", "express.type": "middleware", "otel.scope.name": "@opentelemetry/instrumentation-express"})
        h = tr.span(api, "request handler - /v2/shipments/:trackingNo", st + 2_000, total - 300, parent=s, kind="internal",
                    tags={"express.name": "/v2/shipments/:trackingNo", "express.type": "request_handler", "http.route": "/v2/shipments/:trackingNo",
                          "otel.scope.name": "@opentelemetry/instrumentation-express"})
        cc = tr.span(api, "POST", st + 2_400, d_cg, parent=h, kind="client",
                     tags=http_client("POST", "http://carrier-gateway.tracking.svc:8080/lookup", 200, new=False, peer="carrier-gateway"))
        cs = tr.span(cg, "POST /lookup", st + 2_900, d_cg - 1_100, parent=cc,
                     tags=http_server("POST", "/lookup", 200, new=True, host="carrier-gateway", port=8080, scope="io.opentelemetry.tomcat-10.0"))
        off = 3_300
        per = (d_cg - 2_000) // len(carriers)
        for car in carriers:
            tr.span(cg, "GET", st + off, per - 300, parent=cs, kind="client",
                    tags=http_client("GET", f"https://api.{car.lower()}.example/track/v1/{tn}", 200, peer=car.lower()))
            off += per
        ev = None
        if fail:
            ev = [exc_event(st + 2_400 + d_cg + 900, "RangeError", "Invalid time value", stack)]
        tr.span(api, "eta.compute", st + 2_400 + d_cg + 300, 1_400, parent=h, kind="internal",
                error="Invalid time value" if fail else None,
                tags={"app.shipment.legs": len(carriers), **code_loc("/usr/src/app/src/eta.js", L_map - 3, "computeEtas", new=False)},
                events=ev)
        if fail:
            s["logs"].append(exc_event(st + 1_800 + total - 500, "RangeError", "Invalid time value", stack))

    for t in sc.times(t0, t1, 26):
        n = sc.rng.choice([1, 2, 2, 3])
        lookup(t, [sc.rng.choice(offset_carriers + plain_carriers) for _ in range(n)])
    lookup(sc.at("15:36:02.4"), ["UPS", "DHLDE"])
    lookup(sc.at("16:20:48"), ["POSTNL"])

    m0, m1 = sc.at("14:50"), sc.at("16:31")
    on = lambda t: t >= rollout + dt.timedelta(seconds=30)
    for code, fn in [("200", lambda t: 31 * (0.68 if on(t) else 1)), ("500", lambda t: 10.2 if on(t) else 0.02), ("404", lambda t: 1.3)]:
        sc.counter({"__name__": "traces_span_metrics_calls_total", "service_name": "shipment-api", "span_name": "GET /v2/shipments/:trackingNo",
                    "span_kind": "SPAN_KIND_SERVER", "http_status_code": code,
                    "status_code": "STATUS_CODE_ERROR" if code == "500" else "STATUS_CODE_UNSET"}, m0, m1, fn, initial=sc.rng.randint(1e5, 9e6))
    for p in cg.pods:
        sc.gauge({"__name__": "jvm_gc_pause_seconds_max", "job": "carrier-gateway", "pod": p, "gc": "G1 Young Generation"}, m0, m1,
                 lambda t: sc.rng.uniform(0.01, 0.35))

    k = sc.k8s = K8s(sc)
    nodes = ["ip-10-4-1-12.eu-central-1.compute.internal", "ip-10-4-2-140.eu-central-1.compute.internal"]
    actr = container_spec("shipment-api", "registry.cargoline.io/tracking/shipment-api:12.4.0", 8080,
                          env={"NODE_ENV": "production", "CARRIER_GATEWAY_URL": "http://carrier-gateway.tracking.svc:8080"},
                          requests={"cpu": "200m", "memory": "256Mi"}, limits={"memory": "512Mi"},
                          readiness=http_probe("/health/ready", 8080, 5), liveness=http_probe("/health/live", 8080, 10, 10))
    workload(k, api, actr, nodes, ts("2024-03-02T10:00:00Z"), rollout, 88, labels={"app": "shipment-api"})
    cctr = container_spec("carrier-gateway", "registry.cargoline.io/tracking/carrier-gateway:2.2.7", 8080,
                          requests={"cpu": "500m", "memory": "1Gi"}, limits={"memory": "1536Mi"},
                          readiness=http_probe("/actuator/health/readiness", 8080, 5, 30))
    workload(k, cg, cctr, nodes, ts("2024-03-02T10:00:00Z"), ts("2026-07-01T09:00:00Z"), 31, labels={"app": "carrier-gateway"},
             pod_states={1: {"restarts": 1, "state": running(sc.at("07:14:22")),
                             "last": terminated("Error", 143, ts("2026-07-01T09:00:40Z"), sc.at("07:14:09"), sc)}})
    k.event(ns, "Pod", cg.pods[1], "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", sc.at("07:13:40"),
            sc.at("07:14:05"), 4, "Warning", host=nodes[1], field_path="spec.containers{carrier-gateway}")
    k.event(ns, "Pod", cg.pods[1], "Killing", "Container carrier-gateway failed liveness probe, will be restarted", sc.at("07:14:07"),
            etype="Normal", host=nodes[1], field_path="spec.containers{carrier-gateway}")

    a = alert(sc, {"alertname": "HighServerErrorRatio", "service": "shipment-api", "namespace": ns, "severity": "page", "slo": "tracking-availability"},
              {"summary": "shipment-api: 5xx ratio 24% (SLO burn rate 14.4x)",
               "description": "GET /v2/shipments/:trackingNo is failing for a quarter of requests."},
              sc.at("15:46:00"), 'sum by (service_name) (rate(traces_span_metrics_calls_total{service_name="shipment-api",status_code="STATUS_CODE_ERROR",span_kind="SPAN_KIND_SERVER"}[5m])) / sum by (service_name) (rate(traces_span_metrics_calls_total{service_name="shipment-api",span_kind="SPAN_KIND_SERVER"}[5m])) > 0.02',
              prom="http://vmalert.monitoring.svc:8880")
    sc.trigger = {"alert": webhook([a], ["alertname", "service"], "autoheal", "https://alertmanager.ops.cargoline.io", route_key='{}/{severity="page"}')}
    sc.config = {"repo": "cargoline/tracking"}
    sc.truth = {"bucket": "code_bug", "service": "shipment-api", "error_type": "runtime_error", "file": eta, "line": L,
                "line_tolerance": 3, "fix_keywords": ["isNaN", "offset", "Invalid Date", "parse"]}
    return sc
