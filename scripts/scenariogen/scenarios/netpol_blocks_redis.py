"""Docs SaaS: a default-deny egress NetworkPolicy without a rule for the cache namespace -> Redis i/o timeouts (logs only)."""
import datetime as dt

from sg import *

NAME = "export-service-networkpolicy-blocks-redis"


def build():
    sc = Scenario(NAME, "2026-02-11T16:25:00Z", """
        The 15:32 security hardening commit added a default-deny egress NetworkPolicy to the docs namespace with
        explicit allows for DNS, Postgres and the S3 endpoint, but not for Redis in the cache namespace (port 6379).
        Once Calico applied it (15:41), export-service's job queue (BullMQ on Redis) and the render lock time out
        (connect ETIMEDOUT 10.0.44.12:6379): PDF exports hang and then fail; editor-api, which only talks to
        Postgres, is unaffected. The fix is an egress rule in k8s/network-policies/docs-egress.yaml. No traces are
        collected. Redis itself is healthy; the export-service pod restarts are liveness failures caused by the
        blocked Redis health check, and the fonts commit is unrelated.""", repo="quillpad/infra")
    ns = "docs"
    ex = sc.svc("export-service", ns, "nodejs", npods=2)
    ed = sc.svc("editor-api", ns, "go", npods=2)
    applied = sc.at("15:41:20")

    np = "k8s/network-policies/docs-egress.yaml"
    sc.file(np, """
        apiVersion: networking.k8s.io/v1
        kind: NetworkPolicy
        metadata:
          name: docs-default-deny-egress
          namespace: docs
        spec:
          podSelector: {}
          policyTypes:
            - Egress
          egress:
            # DNS
            - to:
                - namespaceSelector:
                    matchLabels:
                      kubernetes.io/metadata.name: kube-system
                  podSelector:
                    matchLabels:
                      k8s-app: kube-dns
              ports:
                - protocol: UDP
                  port: 53
            # Postgres (docs-db)
            - to:
                - ipBlock:
                    cidr: 10.0.32.0/24
              ports:
                - protocol: TCP
                  port: 5432
            # S3 gateway endpoint
            - to:
                - ipBlock:
                    cidr: 10.0.96.0/20
              ports:
                - protocol: TCP
                  port: 443
        """)
    sc.file("services/export-service/src/queue.js", """
        'use strict';

        const { Queue, Worker } = require('bullmq');

        const connection = { host: process.env.REDIS_HOST || 'redis-master.cache.svc', port: 6379, connectTimeout: 5000 };

        const exportsQueue = new Queue('pdf-exports', { connection });

        module.exports = { exportsQueue, connection, Worker };
        """)
    sc.file("services/export-service/src/fonts.js", """
        module.exports = { default: 'Source Serif 4', fallback: ['Noto Serif', 'DejaVu Serif'] };
        """)
    L = sc.line(np, "egress:")
    sc.commit("2026-02-11T15:58:03Z", ("Mei Chen", "mei@quillpad.io", "meichen"), "export-service: Source Serif 4 as default font",
              [("services/export-service/src/fonts.js", "default: 'Noto Serif', fallback: ['DejaVu Serif']",
                "default: 'Source Serif 4', fallback: ['Noto Serif', 'DejaVu Serif']")])
    sc.commit("2026-02-11T15:32:47Z", ("Bruno Costa", "bruno@quillpad.io", "bcosta"),
              """security: default-deny egress for the docs namespace (SOC2-77)

              Allow only what the docs workloads need: DNS, docs-db and S3.""", [(np, None, None)], merged_by_github=True)

    lab = lambda s, pod, lvl: {"k8s_container_name": s, "k8s_namespace_name": ns, "k8s_pod_name": pod, "detected_level": lvl}
    t0, t1 = sc.at("15:10"), sc.at("16:23")
    restarts = {ex.pods[0]: [sc.at("15:44:05"), sc.at("15:58:40"), sc.at("16:12:51")], ex.pods[1]: [sc.at("15:44:31"), sc.at("16:03:10")]}
    for t in sc.times(t0, t1, 200):
        p = ex.pod()
        if t < applied:
            job = sc.rng.randint(10**5, 10**6)
            sc.log(lab("export-service", p, "info"), t, json.dumps({"level": "info", "time": iso(t, 3), "msg": "export completed", "jobId": str(job),
                                                                    "docId": "doc_" + sc.hex(10), "pages": sc.rng.randint(1, 80), "ms": sc.rng.randint(900, 9000)}))
        else:
            kind = sc.rng.random()
            if kind < 0.55:
                sc.log(lab("export-service", p, "error"), t, json.dumps({
                    "level": "error", "time": iso(t, 3), "msg": "redis connection error",
                    "err": {"type": "Error", "message": "connect ETIMEDOUT", "errno": -110, "code": "ETIMEDOUT", "syscall": "connect",
                            "address": "10.0.44.12", "port": 6379,
                            "stack": "Error: connect ETIMEDOUT\n    at Socket.<anonymous> (/app/node_modules/ioredis/built/Redis.js:170:41)\n    at Object.onceWrapper (node:events:634:28)\n    at Socket.emit (node:events:520:28)\n    at Socket._onTimeout (node:net:595:8)\n    at listOnTimeout (node:internal/timers:581:17)\n    at process.processTimers (node:internal/timers:519:7)"}}))
            elif kind < 0.8:
                sc.log(lab("export-service", p, "error"), t, json.dumps({"level": "error", "time": iso(t, 3), "msg": "export request failed",
                                                                         "docId": "doc_" + sc.hex(10), "status": 503,
                                                                         "err": {"type": "Error", "message": "Command timed out"}}))
            else:
                sc.log(lab("export-service", p, "warn"), t, json.dumps({"level": "warn", "time": iso(t, 3), "msg": "[ioredis] Unhandled error event: Error: connect ETIMEDOUT"}))
    for p, rs in restarts.items():
        for r in rs:
            sc.log(lab("export-service", p, "info"), r + dt.timedelta(seconds=3), json.dumps({"level": "info", "time": iso(r + dt.timedelta(seconds=3), 3),
                                                                                             "msg": "export-service listening", "port": 8080}))
    for t in sc.times(t0, t1, 90):
        sc.log(lab("editor-api", ed.pod(), "info"), t, f'time={iso(t, 3)} level=INFO msg="document saved" doc=doc_{sc.hex(10)} rev={sc.rng.randint(2, 900)} ms={sc.rng.randint(3, 40)}')
    sc.log({"k8s_container_name": "calico-node", "k8s_namespace_name": "calico-system", "k8s_pod_name": "calico-node-w2x9k", "detected_level": "info"}, applied,
           f"{applied.strftime('%Y-%m-%d %H:%M:%S.%f')[:-3]} [INFO][73] felix/int_dataplane.go 1954: Received *proto.ActivePolicyUpdate update from calculation graph msg=id:<tier:\"default\" name:\"docs/knp.default.docs-default-deny-egress\" >")

    m0, m1 = sc.at("15:00"), sc.at("16:24")
    sc.counter({"__name__": "bullmq_job_completed_total", "queue": "pdf-exports", "job": "export-service"}, m0, m1, lambda t: 0 if t >= applied else 1.2, initial=4_402_118)
    sc.gauge({"__name__": "bullmq_queue_waiting", "queue": "pdf-exports", "job": "export-service"}, m0, m1, lambda t: None if t >= applied else sc.rng.randint(0, 6))
    sc.gauge({"__name__": "redis_connected_clients", "job": "redis-exporter", "namespace": "cache", "instance": "redis-master-0"}, m0, m1,
             lambda t: 41 if t < applied else 27)
    sc.gauge({"__name__": "redis_up", "job": "redis-exporter", "namespace": "cache", "instance": "redis-master-0"}, m0, m1, lambda t: 1)

    k = sc.k8s = K8s(sc)
    k.raw({"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": k.meta("docs-default-deny-egress", ns, applied - dt.timedelta(seconds=30),
           annotations={"argocd.argoproj.io/tracking-id": "docs:networking.k8s.io/NetworkPolicy:docs/docs-default-deny-egress"}, generation=1),
           "spec": {"podSelector": {}, "policyTypes": ["Egress"], "egress": [
               {"to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}, "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}],
                "ports": [{"protocol": "UDP", "port": 53}]},
               {"to": [{"ipBlock": {"cidr": "10.0.32.0/24"}}], "ports": [{"protocol": "TCP", "port": 5432}]},
               {"to": [{"ipBlock": {"cidr": "10.0.96.0/20"}}], "ports": [{"protocol": "TCP", "port": 443}]}]}})
    nodes = ["gke-quillpad-prod-pool-2-1c2d3e4f-9k1x", "gke-quillpad-prod-pool-2-1c2d3e4f-b7vz"]
    ctr = container_spec("export-service", "ghcr.io/quillpad/export-service:3.11.0", 8080, env={"REDIS_HOST": "redis-master.cache.svc"},
                         requests={"cpu": "500m", "memory": "768Mi"}, limits={"memory": "1536Mi"},
                         readiness=http_probe("/ready", 8080, 10), liveness=http_probe("/live", 8080, 20, 10, timeout=3))
    states = {}
    for i, p in enumerate(ex.pods):
        rs = restarts[p]
        states[i] = {"restarts": len(rs), "state": running(rs[-1]), "ready": False,
                     "last": terminated("Error", 137, rs[-2] if len(rs) > 1 else ts("2026-02-09T10:00:00Z"), rs[-1] - dt.timedelta(seconds=2), sc)}
    workload(k, ex, ctr, nodes, ts("2024-10-01T10:00:00Z"), ts("2026-02-09T10:00:00Z"), 77, labels={"app": "export-service"}, pod_states=states)
    for i, p in enumerate(ex.pods):
        k.event(ns, "Pod", p, "Unhealthy", "Liveness probe failed: HTTP probe failed with statuscode: 503", applied + dt.timedelta(minutes=2),
                sc.now - dt.timedelta(minutes=2), 30, "Warning", host=nodes[i], field_path="spec.containers{export-service}")
        k.event(ns, "Pod", p, "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", applied + dt.timedelta(seconds=40),
                sc.now - dt.timedelta(seconds=20), 210, "Warning", host=nodes[i], field_path="spec.containers{export-service}")
    ectr = container_spec("editor-api", "ghcr.io/quillpad/editor-api:7.0.2", 8080, requests={"cpu": "250m", "memory": "256Mi"})
    workload(k, ed, ectr, nodes, ts("2024-10-01T10:00:00Z"), ts("2026-02-10T10:00:00Z"), 190, labels={"app": "editor-api"})

    sc.trigger = {"mention": "PDF exports hanging then failing for all customers since ~15:45. export-service logs full of redis ETIMEDOUT but redis dashboard looks fine?"}
    sc.config = {"repo": "quillpad/infra", "log_service_label": "k8s_container_name", "namespace": ns}
    sc.truth = {"bucket": "infrastructure", "service": "export-service", "error_type": "network", "file": np, "line": L,
                "line_tolerance": 5, "fix_keywords": ["NetworkPolicy", "egress", "6379", "cache", "redis"]}
    return sc
