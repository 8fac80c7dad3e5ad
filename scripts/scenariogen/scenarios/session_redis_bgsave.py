"""Session service (Node): rare Redis command timeouts clustered at Redis BGSAVE forks; traces and metrics only."""
import datetime as dt

from sg import *

NAME = "session-service-redis-timeouts-bgsave"


def build():
    sc = Scenario(NAME, "2026-02-03T15:40:00Z", """
        session-service fails about 0.2% of session lookups with \"Command timed out\" from ioredis (its command
        timeout is 50 ms). The failures cluster in the second or two after each RDB snapshot of the sessions Redis
        (BGSAVE every ~15 min under the save 900 1 / 300 10 policy): the fork of a 9 GB instance stalls the main
        thread for 300-700 ms (latest_fork_usec). No deploys correlate, the rate is low and intermittent, and
        retries succeed. It is a timing flake: raise the command timeout above the fork stall, add one retry, or
        move snapshots to a replica. No logs are collected for this service; the gateway's own 401s are normal
        expired sessions.""", repo="streamlet/identity-edge")
    ns = "edge"
    gw = sc.svc("edge-gateway", ns, "go", version="5.3.0", npods=2)
    ss = sc.svc("session-service", ns, "nodejs", version="3.7.2", runtime="20.11.1", npods=3)

    rc = "session-service/src/redis.ts"
    sc.file(rc, """
        import Redis from 'ioredis';

        export const redis = new Redis({
          host: process.env.REDIS_HOST ?? 'sessions-redis.edge.svc',
          port: 6379,
          commandTimeout: 50,
          maxRetriesPerRequest: 0,
          enableOfflineQueue: false,
        });
        """)
    sc.file("session-service/src/sessions.ts", """
        import { redis } from './redis';

        export async function getSession(id: string) {
          const raw = await redis.get(`sess:${id}`);
          return raw ? JSON.parse(raw) : null;
        }
        """)

    t0, t1 = sc.at("11:00"), sc.at("15:38")
    saves = []
    t = sc.at("11:04:12")
    while t < t1:
        saves.append(t)
        t += dt.timedelta(minutes=15, seconds=sc.rng.randint(-20, 20))
    stack = ("Error: Command timed out\n    at Timeout._onTimeout (/app/node_modules/ioredis/built/Command.js:192:33)\n"
             "    at listOnTimeout (node:internal/timers:573:17)\n    at process.processTimers (node:internal/timers:514:7)")

    def lookup(t, fail):
        tr = sc.trace()
        st = us(t)
        gp = gw.pod()
        sp = ss.pod()
        d = sc.rng.randint(51_000, 56_000) if fail else sc.rng.randint(1_200, 4_000)
        root = tr.span(gw, "GET /v1/playback/manifest", st, d + 9_000 + (0 if fail else 20_000), pod=gp, error="" if fail else None,
                       tags=http_server("GET", "/v1/playback/manifest", 503 if fail else 200, host="edge.streamlet.tv", port=443,
                                        scope="go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"))
        c = tr.span(gw, "session.v1.Sessions/Get", st + 700, d + 3_000, parent=root, kind="client", error="Command timed out" if fail else None,
                    tags=grpc("session.v1.Sessions", "Get", 4 if fail else 0, "session-service.edge.svc", 50051))
        s = tr.span(ss, "session.v1.Sessions/Get", st + 1_200, d + 1_500, parent=c, pod=sp, error="Command timed out" if fail else None, err_mode="both",
                    tags=grpc("session.v1.Sessions", "Get", 4 if fail else 0, None, 50051, **{"otel.scope.name": "@opentelemetry/instrumentation-grpc"}),
                    events=[exc_event(st + 1_200 + d + 1_000, "Error", "Command timed out", stack)] if fail else None)
        tr.span(ss, "get", st + 1_600, d, parent=s, kind="client", error="Command timed out" if fail else None,
                tags={**db("redis", "get sess:?", None, "sessions-redis.edge.svc", 6379, "get", new=False), "db.redis.database_index": 0,
                      "otel.scope.name": "@opentelemetry/instrumentation-ioredis"})

    for t in sc.times(t0, t1, 22):
        lookup(t, False)
    for s_ in saves:
        for _ in range(sc.rng.randint(0, 2)):
            lookup(s_ + dt.timedelta(milliseconds=sc.rng.randint(20, 650)), True)
    m0, m1 = sc.at("10:50"), sc.at("15:39")
    near = lambda t: any(dt.timedelta(0) <= t - s_ < dt.timedelta(seconds=60) for s_ in saves)
    sc.counter({"__name__": "grpc_server_handled_total", "job": "session-service", "grpc_service": "session.v1.Sessions", "grpc_method": "Get", "grpc_code": "DeadlineExceeded"},
               m0, m1, lambda t: 0.9 if near(t) else 0.0, initial=1_877, integer=False)
    sc.counter({"__name__": "grpc_server_handled_total", "job": "session-service", "grpc_service": "session.v1.Sessions", "grpc_method": "Get", "grpc_code": "OK"},
               m0, m1, lambda t: 410, initial=9_120_339_441)
    sc.gauge({"__name__": "redis_latest_fork_usec", "job": "redis-exporter", "instance": "sessions-redis-0"}, m0, m1,
             lambda t: next((sc.rng.randint(310_000, 690_000) for s_ in reversed(saves) if s_ <= t), 402_118))
    sc.counter({"__name__": "redis_rdb_saves_total", "job": "redis-exporter", "instance": "sessions-redis-0"}, m0, m1,
               lambda t: (1 / 60) if near(t) else 0, initial=48_220, integer=False)
    sc.gauge({"__name__": "redis_memory_used_bytes", "job": "redis-exporter", "instance": "sessions-redis-0"}, m0, m1, lambda t: 9.1e9 + sc.rng.uniform(-5e7, 5e7))
    sc.counter({"__name__": "edge_http_responses_total", "job": "edge-gateway", "code": "401"}, m0, m1, lambda t: 3.2, initial=22_100_442)

    a = alert(sc, {"alertname": "GrpcErrorBudgetBurn", "job": "session-service", "grpc_service": "session.v1.Sessions", "severity": "ticket", "slo": "session-lookup"},
              {"summary": "session-service burning error budget slowly", "description": "6h burn rate 1.4x for session lookups (DeadlineExceeded)."},
              sc.at("15:10:00"), 'sum(rate(grpc_server_handled_total{job="session-service",grpc_code!="OK"}[6h])) / sum(rate(grpc_server_handled_total{job="session-service"}[6h])) > 0.0014')
    sc.trigger = {"alert": webhook([a], ["alertname", "slo"], "autoheal-tickets", "https://alertmanager.streamlet.tv", route_key='{}/{severity="ticket"}')}
    sc.config = {"repo": "streamlet/identity-edge"}
    sc.truth = {"bucket": "flake", "service": "session-service", "error_type": "timeout",
                "fix_keywords": ["commandTimeout", "BGSAVE", "fork", "retry", "replica"]}
    return sc
