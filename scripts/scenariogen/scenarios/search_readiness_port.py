"""Marketplace search: app moved to port 8081, readiness probe still on 8080 -> half capacity, envoy 503s."""
import datetime as dt

from sg import *

NAME = "search-api-readiness-probe-wrong-port"


def build():
    sc = Scenario(NAME, "2026-01-29T19:05:00Z", """
        The 17:58 commit moved search-api to port 8081 (PORT env and containerPort) so the new metrics sidecar can
        own 8080, but left readinessProbe.httpGet.port at 8080 in deploy/search-api/deployment.yaml. The new pods
        start fine but never become Ready (connection refused on :8080), the rollout (maxUnavailable 50%) stalls
        with only two of four old pods serving, and at evening peak the edge envoy overflows and returns 503
        \"no healthy upstream\"/overflow for search. Fix the probe port (or use the named port). The recommendations
        WARNs and the catalog-indexer restart are unrelated.""", repo="bazaarly/marketplace-infra")
    ns = "search"
    edge = sc.svc("edge-gateway", "edge", "proxy", pods=["edge-gateway-7d5c9b6f4-k2x8p", "edge-gateway-7d5c9b6f4-r9m4t"])
    srch = sc.svc("search-api", ns, "python", version="4.2.0", runtime="3.11.9", npods=2)
    new_hash = sc.pod_hash()
    new_pods = [f"search-api-{new_hash}-{sc.suffix()}" for _ in range(2)]
    rollout = sc.at("18:09:40")

    dep = "deploy/search-api/deployment.yaml"
    sc.file(dep, """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: search-api
          namespace: search
          labels:
            app: search-api
        spec:
          replicas: 4
          strategy:
            type: RollingUpdate
            rollingUpdate:
              maxUnavailable: 50%
              maxSurge: 0
          selector:
            matchLabels:
              app: search-api
          template:
            metadata:
              labels:
                app: search-api
            spec:
              containers:
                - name: search-api
                  image: registry.bazaarly.com/search-api:4.2.0
                  args: ["gunicorn", "search_api.main:app", "-k", "uvicorn.workers.UvicornWorker", "-w", "4", "-b", "0.0.0.0:$(PORT)"]
                  env:
                    - name: PORT
                      value: "8081"
                    - name: OPENSEARCH_URL
                      value: https://opensearch.search.svc:9200
                  ports:
                    - name: http
                      containerPort: 8081
                  readinessProbe:
                    httpGet:
                      path: /healthz
                      port: 8080
                    periodSeconds: 5
                    failureThreshold: 3
                  resources:
                    requests:
                      cpu: 500m
                      memory: 512Mi
                    limits:
                      memory: 1Gi
                - name: metrics-exporter
                  image: registry.bazaarly.com/statsd-exporter:0.27.1
                  ports:
                    - name: metrics
                      containerPort: 8080
        """)
    sc.file("deploy/search-api/service.yaml", """
        apiVersion: v1
        kind: Service
        metadata:
          name: search-api
          namespace: search
        spec:
          selector:
            app: search-api
          ports:
            - name: http
              port: 80
              targetPort: http
        """)
    sc.file("services/recommendations/app/ranker.py", """
        import logging

        log = logging.getLogger(__name__)

        MIN_SCORE = 0.15


        def rank(items, scores):
            kept = [(i, s) for i, s in zip(items, scores) if s >= MIN_SCORE]
            if len(kept) < 3:
                log.warning("few candidates above MIN_SCORE=%s (%d), padding with popular items", MIN_SCORE, len(kept))
            return [i for i, _ in sorted(kept, key=lambda x: -x[1])]
        """)
    L = sc.line(dep, "port: 8080")
    sc.commit("2026-01-29T17:58:21Z", ("Farah Haddad", "farah@bazaarly.com", "fhaddad"),
              """search-api: serve on 8081, add statsd metrics sidecar on 8080

              The exporter image only listens on 8080, so move the app.""",
              [(dep, """            - name: PORT
              value: "8080\"""", """            - name: PORT
              value: "8081\""""),
               (dep, """          ports:
            - name: http
              containerPort: 8080
          readinessProbe:""", """          ports:
            - name: http
              containerPort: 8081
          readinessProbe:"""),
               (dep, """              memory: 1Gi
""", """              memory: 1Gi
        - name: metrics-exporter
          image: registry.bazaarly.com/statsd-exporter:0.27.1
          ports:
            - name: metrics
              containerPort: 8080
""")], merged_by_github=True)
    sc.commit("2026-01-29T16:40:02Z", ("Leo Marchetti", "leo@bazaarly.com", "lmarchetti"),
              "recommendations: lower MIN_SCORE to 0.15",
              [("services/recommendations/app/ranker.py", "MIN_SCORE = 0.2", "MIN_SCORE = 0.15")])

    t0, t1 = sc.at("17:45"), sc.at("19:03")
    peak = lambda t: t >= sc.at("18:40")

    def query(t, fail):
        tr = sc.trace()
        st = us(t)
        ep = edge.pod()
        if fail:
            tr.span(edge, "ingress", st, sc.rng.randint(300, 2_000), pod=ep, error="", err_mode="tag",
                    tags={"component": "proxy", "node_id": ep, "http.method": "GET", "http.url": "https://www.bazaarly.com/api/search?q=" + sc.rng.choice(["lamp", "desk", "sofa", "rug"]),
                          "http.protocol": "HTTP/2", "http.status_code": "503", "upstream_cluster": "outbound|80||search-api.search.svc.cluster.local",
                          "response_flags": sc.rng.choice(["UO", "UH"]), "guid:x-request-id": sc.uuid()})
            return
        d = sc.rng.randint(20_000, 90_000) * (3 if peak(t) else 1)
        root = tr.span(edge, "ingress", st, d + 3_000, pod=ep, tags={"component": "proxy", "node_id": ep, "http.method": "GET",
                       "http.url": "https://www.bazaarly.com/api/search", "http.protocol": "HTTP/2", "http.status_code": "200",
                       "upstream_cluster": "outbound|80||search-api.search.svc.cluster.local", "response_flags": "-", "guid:x-request-id": sc.uuid()})
        sp = srch.pod()
        s = tr.span(srch, "GET /api/search", st + 1_000, d, parent=root, pod=sp,
                    tags=http_server("GET", "/api/search", 200, host="search-api", port=8080, scope="opentelemetry.instrumentation.fastapi"))
        tr.span(srch, "POST /products/_search", st + 3_000, d - 6_000, parent=s, kind="client",
                tags=db("elasticsearch", '{"query":{"multi_match":{"query":"?","fields":["title^3","description"]}}}', "products",
                        "opensearch.search.svc", 9200, "search"))

    for t in sc.times(t0, t1, 26):
        query(t, peak(t) and sc.rng.random() < 0.45)
    lab = lambda s, pod, lvl: {"container": s, "namespace": pod[1], "pod": pod[0], "level": lvl}
    for t in sc.times(t0, t1, 170):
        ep = edge.pod()
        code = 503 if peak(t) and sc.rng.random() < 0.4 else 200
        flags = sc.rng.choice(["UO", "UH"]) if code == 503 else "-"
        dur = sc.rng.randint(0, 3) if code == 503 else sc.rng.randint(25, 400)
        sc.log(lab("edge-gateway", (ep, "edge"), "info"), t,
               f'[{iso(t, 3)}] "GET /api/search?q={sc.rng.choice(["lamp", "desk", "sofa", "rug", "chair"])} HTTP/2" {code} {flags} 0 {19 if code == 503 else sc.rng.randint(2000, 30000)} {dur} {"-" if code == 503 else dur - 2} '
               f'"{sc.pod_ip()}" "Mozilla/5.0" "{sc.uuid()}" "www.bazaarly.com" "{"-" if code == 503 else srch.ips[srch.pod()] + ":8080"}"'
               + (' "no healthy upstream"' if flags == "UH" else ""))
    for t in sc.times(t0, t1, 60):
        p = srch.pod()
        sc.log(lab("search-api", (p, ns), "info"), t, f'{srch.ips[p]}:0 - "GET /api/search HTTP/1.1" 200')
    for i, p in enumerate(new_pods):
        t = rollout + dt.timedelta(seconds=4 + 2 * i)
        for off, m in [(0, "[1] [INFO] Starting gunicorn 22.0.0"), (0.2, "[1] [INFO] Listening at: http://0.0.0.0:8081 (1)"),
                       (0.3, "[1] [INFO] Using worker: uvicorn.workers.UvicornWorker"), (2.1, "[8] [INFO] Application startup complete.")]:
            tt = t + dt.timedelta(seconds=off)
            sc.log(lab("search-api", (p, ns), "info"), tt, f"[{tt.strftime('%Y-%m-%d %H:%M:%S')} +0000] {m}")
    for t in sc.times(t0, t1, 30):
        sc.log(lab("recommendations", ("recommendations-6b8f9c7d5-z9x3c", "recs"), "warn"), t,
               f"{t.strftime('%Y-%m-%d %H:%M:%S,%f')[:-3]} WARNING app.ranker: few candidates above MIN_SCORE=0.15 (2), padding with popular items")

    m0, m1 = sc.at("17:40"), sc.at("19:04")
    sc.counter({"__name__": "envoy_cluster_upstream_rq", "envoy_cluster_name": "outbound|80||search-api.search.svc.cluster.local",
                "envoy_response_code": "503", "job": "edge-gateway"}, m0, m1, lambda t: 14 if peak(t) else 0.02, initial=1_021)
    sc.counter({"__name__": "envoy_cluster_upstream_rq", "envoy_cluster_name": "outbound|80||search-api.search.svc.cluster.local",
                "envoy_response_code": "200", "job": "edge-gateway"}, m0, m1, lambda t: 18 if peak(t) else 11, initial=88_301_224)
    sc.gauge({"__name__": "envoy_cluster_membership_healthy", "envoy_cluster_name": "outbound|80||search-api.search.svc.cluster.local",
              "job": "edge-gateway"}, m0, m1, lambda t: 2 if t >= rollout else 4)
    sc.gauge({"__name__": "kube_deployment_status_replicas_available", "deployment": "search-api", "namespace": ns, "job": "kube-state-metrics"},
             m0, m1, lambda t: 2 if t >= rollout else 4)

    k = sc.k8s = K8s(sc)
    nodes = ["ip-10-12-1-40.ec2.internal", "ip-10-12-2-18.ec2.internal", "ip-10-12-3-201.ec2.internal"]
    probe_new = {"httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTP"}, "periodSeconds": 5, "timeoutSeconds": 1,
                 "successThreshold": 1, "failureThreshold": 3}
    new = container_spec("search-api", "registry.bazaarly.com/search-api:4.2.0", 8081,
                         env={"PORT": "8081", "OPENSEARCH_URL": "https://opensearch.search.svc:9200"},
                         args=["gunicorn", "search_api.main:app", "-k", "uvicorn.workers.UvicornWorker", "-w", "4", "-b", "0.0.0.0:$(PORT)"],
                         requests={"cpu": "500m", "memory": "512Mi"}, limits={"memory": "1Gi"}, readiness=probe_new)
    exporter = container_spec("metrics-exporter", "registry.bazaarly.com/statsd-exporter:0.27.1", 8080, port_name="metrics")
    old = dict(new, image="registry.bazaarly.com/search-api:4.1.3", env=[{"name": "PORT", "value": "8080"},
                                                                       {"name": "OPENSEARCH_URL", "value": "https://opensearch.search.svc:9200"}],
               ports=[{"name": "http", "containerPort": 8080, "protocol": "TCP"}])
    labels = {"app": "search-api"}
    d = k.deployment(srch, [new, exporter], 4, ts("2024-05-05T10:00:00Z"), rollout + dt.timedelta(minutes=10), 96, ready=2, labels=labels,
                     updated_replicas=2,
                     conditions=[{"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable",
                                  "message": "Deployment does not have minimum availability.", "lastUpdateTime": iso(rollout), "lastTransitionTime": iso(rollout)},
                                 {"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded",
                                  "message": f'ReplicaSet "search-api-{new_hash}" has timed out progressing.',
                                  "lastUpdateTime": iso(rollout + dt.timedelta(minutes=10)), "lastTransitionTime": iso(rollout + dt.timedelta(minutes=10))}])
    d["spec"]["strategy"] = {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "50%", "maxSurge": 0}}
    k.replicaset(srch, new_hash, [new, exporter], 2, 0, rollout, 96, labels=labels)
    k.replicaset(srch, srch.rs_hash, [old], 2, 2, ts("2026-01-20T11:00:00Z"), 95, labels=labels)
    for i, p in enumerate(srch.pods):
        k.pod(srch, p, [old], nodes[i], ts("2026-01-20T11:00:00Z") + dt.timedelta(seconds=20 * i), labels=labels)
    for i, p in enumerate(new_pods):
        pod = k.pod(srch, p, [new, exporter], nodes[(i + 1) % 3], rollout + dt.timedelta(seconds=2 * i), labels=labels, rs_hash=new_hash,
                    ready=False, state=running(rollout + dt.timedelta(seconds=4 + 2 * i)))
        ip = pod["status"]["podIP"]
        k.event(ns, "Pod", p, "Unhealthy", f'Readiness probe failed: Get "http://{ip}:8080/healthz": dial tcp {ip}:8080: connect: connection refused',
                rollout + dt.timedelta(seconds=6), sc.now - dt.timedelta(seconds=3), 640, "Warning", host=nodes[(i + 1) % 3],
                field_path="spec.containers{search-api}")
    k.event(ns, "Deployment", "search-api", "ScalingReplicaSet", f"Scaled down replica set search-api-{srch.rs_hash} from 4 to 2", rollout,
            component="deployment-controller", api_version="apps/v1")
    k.event(ns, "Deployment", "search-api", "ScalingReplicaSet", f"Scaled up replica set search-api-{new_hash} from 0 to 2", rollout,
            component="deployment-controller", api_version="apps/v1")
    k.event("catalog", "Pod", f"catalog-indexer-5f9d8c7b6-{sc.suffix()}", "Killing", "Stopping container catalog-indexer",
            sc.at("18:30:12"), host=nodes[2], field_path="spec.containers{catalog-indexer}")

    a1 = alert(sc, {"alertname": "EnvoyUpstream5xxHigh", "envoy_cluster_name": "outbound|80||search-api.search.svc.cluster.local",
                    "job": "edge-gateway", "namespace": "edge", "severity": "critical"},
               {"summary": "Edge returns 503 for search", "description": "38% of requests to cluster outbound|80||search-api.search.svc.cluster.local are 503 (UO/UH)."},
               sc.at("18:44:00"), 'sum(rate(envoy_cluster_upstream_rq{envoy_response_code="503"}[5m])) by (envoy_cluster_name) / sum(rate(envoy_cluster_upstream_rq[5m])) by (envoy_cluster_name) > 0.05')
    a2 = alert(sc, {"alertname": "KubeDeploymentRolloutStuck", "deployment": "search-api", "namespace": ns, "job": "kube-state-metrics",
                    "condition": "Progressing", "severity": "warning"},
               {"summary": "Deployment rollout is not progressing.", "description": "Rollout of deployment search/search-api is not progressing for longer than 15 minutes."},
               sc.at("18:35:10"), 'kube_deployment_status_condition{condition="Progressing", job="kube-state-metrics", status="false"} != 0')
    sc.trigger = {"alert": webhook([a1, a2], [], "autoheal-platform", "https://alertmanager.bazaarly.com", route_key="{}", truncated=0)}
    sc.config = {"repo": "bazaarly/marketplace-infra", "log_service_label": "container"}
    sc.truth = {"bucket": "infrastructure", "service": "search-api", "error_type": "config", "file": dep, "line": L,
                "line_tolerance": 2, "fix_keywords": ["readinessProbe", "8081", "port", "http"]}
    return sc
