"""Fitness bookings: HPA scale-out under a promo hits pgbouncer's max_client_conn; kong 5xx is the symptom."""
import datetime as dt

from sg import *

NAME = "bookings-pgbouncer-max-client-conn"


def build():
    sc = Scenario(NAME, "2026-08-03T07:48:00Z", """
        The 07:00 promo email tripled traffic; the booking-api HPA scaled from 4 to 12 pods, each opening a
        node-postgres pool of 20 connections to pgbouncer. pgbouncer's max_client_conn is 200 (deploy/pgbouncer/
        pgbouncer.ini), so from ~07:09 new client connections are refused with \"no more connections allowed
        (max_client_conn)\" and booking-api answers 503 for about a third of requests; kong shows the 5xx.
        Raise max_client_conn (the server-side default_pool_size is fine) or cap per-pod pools; it is capacity
        configuration, not code. The class-search commit and the kong DNS warnings are unrelated.""",
                  repo="loopfit/platform")
    ns = "bookings"
    kong = sc.svc("kong", "gateway", "proxy", pods=["kong-gateway-6f9d7c8b5-4xk2p", "kong-gateway-6f9d7c8b5-n7w9r"])
    api = sc.svc("booking-api", ns, "nodejs", version="6.2.0", runtime="20.16.0", npods=12)
    pgb = sc.svc("pgbouncer", ns, "proxy", npods=1)
    surge = sc.at("07:00:30")
    full = sc.at("07:09:10")

    ini = "deploy/pgbouncer/pgbouncer.ini"
    sc.file(ini, """
        [databases]
        bookings = host=bookings-pg.cluster-cx1a2b3c.eu-west-1.rds.amazonaws.com port=5432 dbname=bookings

        [pgbouncer]
        listen_addr = 0.0.0.0
        listen_port = 6432
        auth_type = scram-sha-256
        auth_file = /etc/pgbouncer/userlist.txt
        pool_mode = transaction
        max_client_conn = 200
        default_pool_size = 40
        reserve_pool_size = 10
        server_idle_timeout = 60
        ignore_startup_parameters = extra_float_digits
        """)
    sc.file("deploy/booking-api/hpa.yaml", """
        apiVersion: autoscaling/v2
        kind: HorizontalPodAutoscaler
        metadata:
          name: booking-api
          namespace: bookings
        spec:
          scaleTargetRef:
            apiVersion: apps/v1
            kind: Deployment
            name: booking-api
          minReplicas: 4
          maxReplicas: 16
          metrics:
            - type: Resource
              resource:
                name: cpu
                target:
                  type: Utilization
                  averageUtilization: 60
        """)
    dbjs = "services/booking-api/src/db.js"
    sc.file(dbjs, """
        'use strict';

        const { Pool } = require('pg');

        const pool = new Pool({
          host: process.env.PGHOST || 'pgbouncer.bookings.svc',
          port: Number(process.env.PGPORT || 6432),
          database: 'bookings',
          max: Number(process.env.PG_POOL_MAX || 20),
          idleTimeoutMillis: 30000,
          connectionTimeoutMillis: 2000,
        });

        module.exports = { pool };
        """)
    srch = "services/booking-api/src/routes/classes.js"
    sc.file(srch, """
        'use strict';

        const router = require('express').Router();
        const { pool } = require('../db');

        router.get('/v1/classes', async (req, res, next) => {
          try {
            const { rows } = await pool.query(
              'SELECT id, title, starts_at, spots_left FROM classes WHERE studio_id = $1 AND starts_at > now() ORDER BY starts_at LIMIT 50',
              [req.query.studio],
            );
            res.json(rows);
          } catch (err) {
            next(err);
          }
        });

        module.exports = router;
        """)
    L = sc.line(ini, "max_client_conn = 200")
    sc.commit("2026-08-02T17:31:09Z", ("Nadia Petrova", "nadia@loopfit.app", "npetrova"), "booking-api: list 50 upcoming classes",
              [(srch, "ORDER BY starts_at LIMIT 20", "ORDER BY starts_at LIMIT 50")], merged_by_github=True)
    sc.commit("2026-07-21T09:12:44Z", ("Omar Haddad", "omar@loopfit.app", "ohaddad"), "booking-api: HPA up to 16 replicas for the summer campaign",
              [("deploy/booking-api/hpa.yaml", "  maxReplicas: 8", "  maxReplicas: 16")])

    err = "no more connections allowed (max_client_conn)"
    lab = lambda s, pod, lvl, nsx=ns: {"app": s, "namespace": nsx, "pod": pod, "level": lvl}
    t0, t1 = sc.at("06:40"), sc.at("07:46")
    late = api.pods[4:]
    started = {p: surge + dt.timedelta(minutes=2 + 1.1 * i) for i, p in enumerate(late)}

    def live(t):
        return api.pods[:4] + [p for p in late if started[p] <= t]

    def req(t):
        p = sc.rng.choice(live(t))
        fail = t >= full and (p in late[4:] or sc.rng.random() < 0.15)
        tr = sc.trace()
        st = us(t)
        kp = kong.pod()
        d = sc.rng.randint(2_100_000, 2_300_000) if fail else sc.rng.randint(8_000, 40_000)
        root = tr.span(kong, "kong", st, d + 3_000, pod=kp, error="" if fail else None, err_mode="tag",
                       tags={"component": "kong", "http.method": "GET", "http.url": "https://api.loopfit.app/v1/classes", "http.status_code": 503 if fail else 200,
                             "kong.route": "booking-api-classes", "kong.service": "booking-api", "net.peer.ip": sc.pod_ip()})
        s = tr.span(api, "GET /v1/classes", st + 1_000, d, parent=root, pod=p, error="" if fail else None,
                    tags=http_server("GET", "/v1/classes", 503 if fail else 200, new=False, host="booking-api", port=3000, scope="@opentelemetry/instrumentation-http"))
        if fail:
            c = tr.span(api, "pg-pool.connect", st + 1_300, d - 600, parent=s, kind="internal", error=err,
                        tags={"db.system": "postgresql", "net.peer.name": "pgbouncer.bookings.svc", "net.peer.port": 6432,
                              "otel.scope.name": "@opentelemetry/instrumentation-pg"},
                        events=[exc_event(st + d, "error", err, f"error: {err}\n    at Parser.parseErrorMessage (/usr/src/app/node_modules/pg-protocol/dist/parser.js:283:98)\n"
                                                               "    at Parser.handlePacket (/usr/src/app/node_modules/pg-protocol/dist/parser.js:122:29)\n"
                                                               "    at Parser.parse (/usr/src/app/node_modules/pg-protocol/dist/parser.js:35:38)\n"
                                                               "    at Socket.<anonymous> (/usr/src/app/node_modules/pg-protocol/dist/index.js:11:42)")])
            sc.log(lab("booking-api", p, "error"), from_us(st + d), json.dumps({
                "level": 50, "time": (st + d) // 1000, "pid": 1, "hostname": p, "trace_id": tr.id, "span_id": s["spanID"],
                "err": {"type": "DatabaseError", "message": err, "code": "08P01", "severity": "FATAL"}, "msg": "request failed", "status": 503}))
        else:
            tr.span(api, "pg.query:SELECT bookings", st + 2_000, d - 3_000, parent=s, kind="client",
                    tags=db("postgresql", "SELECT id, title, starts_at, spots_left FROM classes WHERE studio_id = $1 AND starts_at > now() ORDER BY starts_at LIMIT 50",
                            "bookings", "pgbouncer.bookings.svc", 6432, "SELECT", new=False))
    for t in sc.times(t0, t1, 24):
        req(t)
    req(sc.at("07:12:40"))
    for t in sc.times(t0, t1, 180):
        p = sc.rng.choice(live(t))
        fail = t >= full and (p in late[4:] or sc.rng.random() < 0.15)
        kp = kong.pod()
        code = 503 if fail else 200
        sc.log(lab("kong", kp, "info", "gateway"), t, json.dumps({
            "started_at": int(t.timestamp() * 1000), "request": {"method": "GET", "uri": "/v1/classes?studio=" + str(sc.rng.randint(100, 999))},
            "response": {"status": code}, "upstream_uri": "/v1/classes", "service": {"name": "booking-api"}, "route": {"name": "booking-api-classes"},
            "latencies": {"request": 2200 if fail else sc.rng.randint(8, 60), "kong": 1, "proxy": 2199 if fail else sc.rng.randint(7, 59)},
            "client_ip": sc.pod_ip()}))
        if fail:
            sc.log(lab("booking-api", p, "error"), t - dt.timedelta(milliseconds=2), json.dumps({
                "level": 50, "time": int(t.timestamp() * 1000) - 2, "pid": 1, "hostname": p,
                "err": {"type": "DatabaseError", "message": err, "code": "08P01", "severity": "FATAL"}, "msg": "request failed", "status": 503}))
    for t in sc.times(full, t1, 60):
        sc.log(lab("pgbouncer", pgb.pods[0], "info"), t,
               f"{t.strftime('%Y-%m-%d %H:%M:%S.%f')[:-3]} UTC [1] WARNING C-0x{sc.hex(12)}: (nodb)/(nouser)@{sc.pod_ip()}:{sc.rng.randint(30000, 60000)} pooler error: {err}")
    for t in sc.times(t0, t1, 10):
        sc.log(lab("pgbouncer", pgb.pods[0], "info"), t,
               f"{t.strftime('%Y-%m-%d %H:%M:%S.%f')[:-3]} UTC [1] LOG stats: {sc.rng.randint(300, 900)} xacts/s, {sc.rng.randint(300, 900)} queries/s, in {sc.rng.randint(60000, 180000)} B/s, out {sc.rng.randint(300000, 900000)} B/s, xact {sc.rng.randint(900, 3000)} us, query {sc.rng.randint(700, 2500)} us, wait {sc.rng.randint(0, 40)} us")
    for t in sc.times(t0, t1, 15):
        sc.log(lab("kong", kong.pod(), "warn", "gateway"), t,
               f"{t.strftime('%Y/%m/%d %H:%M:%S')} [warn] 1309#0: *{sc.rng.randint(10**5, 10**6)} [lua] balancer.lua:298: queryDns(): querying dns for analytics.internal failed: dns server error: 3 name error, context: ngx.timer")

    m0, m1 = sc.at("06:30"), sc.at("07:47")
    sc.gauge({"__name__": "pgbouncer_config_max_client_connections", "job": "pgbouncer-exporter", "namespace": ns}, m0, m1, lambda t: 200)
    sc.gauge({"__name__": "pgbouncer_used_clients", "job": "pgbouncer-exporter", "namespace": ns}, m0, m1,
             lambda t: min(200, 78 + len(live(t)) * 17 + sc.rng.randint(-5, 5)))
    sc.gauge({"__name__": "pgbouncer_pools_server_active_connections", "job": "pgbouncer-exporter", "database": "bookings", "user": "booking_api"},
             m0, m1, lambda t: sc.rng.randint(8, 22) if t < surge else sc.rng.randint(24, 38))
    sc.gauge({"__name__": "kube_horizontalpodautoscaler_status_current_replicas", "horizontalpodautoscaler": "booking-api", "namespace": ns,
              "job": "kube-state-metrics"}, m0, m1, lambda t: len(live(t)))
    sc.counter({"__name__": "kong_http_requests_total", "service": "booking-api", "route": "booking-api-classes", "code": "503", "job": "kong"}, m0, m1,
               lambda t: 22 if t >= full else 0.01, initial=1_203)
    sc.counter({"__name__": "kong_http_requests_total", "service": "booking-api", "route": "booking-api-classes", "code": "200", "job": "kong"}, m0, m1,
               lambda t: 38 if t >= surge else 14, initial=90_228_312)

    k = sc.k8s = K8s(sc)
    nodes = [f"ip-10-70-{i}-{20 + 7 * i}.eu-west-1.compute.internal" for i in range(1, 5)]
    ctr = container_spec("booking-api", "loopfit/booking-api:6.2.0", 3000, env={"PGHOST": "pgbouncer.bookings.svc", "PGPORT": "6432", "PG_POOL_MAX": "20"},
                         env_from=[{"secretRef": {"name": "booking-api-db"}}], requests={"cpu": "250m", "memory": "256Mi"}, limits={"memory": "512Mi"},
                         readiness=http_probe("/healthz", 3000, 5))
    states = {i: {"created": started[p]} for i, p in enumerate(api.pods) if p in started}
    workload(k, api, ctr, nodes, ts("2024-06-01T10:00:00Z"), ts("2026-08-02T17:55:00Z"), 140, labels={"app": "booking-api"}, pod_states=states)
    for i, p in enumerate(late):
        k.event(ns, "HorizontalPodAutoscaler", "booking-api", "SuccessfulRescale", f"New size: {5 + i}; reason: cpu resource utilization (percentage of request) above target",
                started[p] - dt.timedelta(seconds=2), component="horizontal-pod-autoscaler", api_version="autoscaling/v2")
    bctr = container_spec("pgbouncer", "bitnami/pgbouncer:1.23.1", 6432, port_name="pg", requests={"cpu": "500m", "memory": "128Mi"}, limits={"memory": "256Mi"},
                          volume_mounts=[{"name": "config", "mountPath": "/etc/pgbouncer"}])
    workload(k, pgb, bctr, nodes, ts("2024-06-01T10:00:00Z"), ts("2026-06-12T10:00:00Z"), 6, labels={"app": "pgbouncer"})
    k.configmap("pgbouncer-config", ns, ts("2026-06-12T09:59:00Z"), {"pgbouncer.ini": sc.files[ini]})

    sc.trigger = {"mention": "kong showing tons of 5xx on /v1/classes since the promo email went out at 7. booking-api scaled to 12 pods but still failing?? @autoheal"}
    sc.config = {"repo": "loopfit/platform", "log_service_label": "app"}
    sc.truth = {"bucket": "infrastructure", "service": "pgbouncer", "error_type": "resource_exhaustion", "file": ini, "line": L,
                "line_tolerance": 2, "fix_keywords": ["max_client_conn", "pool", "connections"]}
    return sc
