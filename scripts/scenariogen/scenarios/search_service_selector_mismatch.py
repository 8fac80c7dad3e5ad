"""Search: the Service's selector keeps the old app label after the Deployment's labels were changed; the Service has no endpoints."""
import datetime as dt

from sg import *

NAME = "search-service-selector-matches-no-pods"


def build():
    sc = Scenario(NAME, "2026-08-03T16:20:00Z", """
        The 15:40 cleanup moved search-api's pods to the recommended labels (app.kubernetes.io/name: search-api)
        and dropped the old app: search label, but k8s/search/service.yaml still selects app: search. The Service has
        no endpoints since the rollout at 15:47: the storefront's calls get 503 no healthy upstream from the mesh
        and search is down while every search-api pod is Running and Ready. The recommendations service's
        NullPointerExceptions are unrelated, as is the docs change. The fix is the Service's selector.""",
                  repo="bazaar/k8s-apps")
    ns = "search"
    api = sc.svc("search-api", ns, "java", npods=3)
    sf = sc.svc("storefront", ns, "nodejs", npods=2)
    rec = sc.svc("recommendations", ns, "java", npods=2)
    rollout = sc.at("15:47:10")

    svcf = "k8s/search/service.yaml"
    sc.file(svcf, """
        apiVersion: v1
        kind: Service
        metadata:
          name: search-api
          namespace: search
          labels:
            app.kubernetes.io/name: search-api
        spec:
          type: ClusterIP
          selector:
            app: search
          ports:
            - name: http
              port: 80
              targetPort: http
        """)
    dpf = "k8s/search/deployment.yaml"
    sc.file(dpf, """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: search-api
          namespace: search
        spec:
          replicas: 3
          selector:
            matchLabels:
              app.kubernetes.io/name: search-api
          template:
            metadata:
              labels:
                app.kubernetes.io/name: search-api
                app.kubernetes.io/part-of: bazaar
            spec:
              containers:
                - name: search-api
                  image: ghcr.io/bazaar/search-api:5.6.0
                  ports:
                    - name: http
                      containerPort: 8080
        """)
    sc.file("docs/search.md", "# Search\n\nQueries go through search-api (port 80).\n")
    L = sc.line(svcf, "app: search")
    sc.commit("2026-08-03T15:58:00Z", ("Mia Chen", "mia@bazaar.shop", "miachen"), "docs: search overview",
              [("docs/search.md", None, None)], merged_by_github=True)
    sc.commit("2026-08-03T15:40:22Z", ("Rob Ito", "rob@bazaar.shop", "robito"), "search-api: recommended labels only (KUB-88)",
              [(dpf, "        app: search\n        app.kubernetes.io/name: search-api\n        app.kubernetes.io/part-of: bazaar",
                "        app.kubernetes.io/name: search-api\n        app.kubernetes.io/part-of: bazaar")], merged_by_github=True)

    lab = lambda s, pod, lvl: {"service_name": s, "namespace": ns, "pod": pod, "level": lvl}
    t0, t1 = sc.at("15:20"), sc.at("16:19")
    for t in sc.times(t0, rollout, 80):
        sc.log(lab("storefront", sf.pod(), "info"), t, json.dumps({"level": "info", "time": iso(t, 3), "msg": "search ok", "ms": sc.rng.randint(20, 90)}))
    for t in sc.times(rollout + dt.timedelta(seconds=30), t1, 120):
        sc.log(lab("storefront", sf.pod(), "error"), t, json.dumps({"level": "error", "time": iso(t, 3), "msg": "search failed",
                                                                     "err": "GET http://search-api.search.svc/v2/search?q=... returned 503: no healthy upstream"}))
    for t in sc.times(t0, t1, 90):
        sc.log(lab("search-api", api.pod(), "info"), t, f'{iso(t, 3)}  INFO 1 --- [search-api] [nio-8080-exec-1] c.b.search.Health : ready')
    decoy_errors(sc, rec, sc.at("15:30"), t1, 230, ["{t} ERROR 1 --- [recommendations] [nio-8080-exec-7] c.b.recs.web.RecsController : request failed\njava.lang.NullPointerException: Cannot invoke \"com.bazaar.recs.Profile.segments()\" because \"profile\" is null\n\tat com.bazaar.recs.rank.Ranker.score(Ranker.java:64)\n\tat com.bazaar.recs.web.RecsController.recommend(RecsController.java:41)"], labels=lab)

    k = sc.k8s = K8s(sc)
    nodes = ["ip-10-20-1-5.us-east-2.compute.internal", "ip-10-20-2-9.us-east-2.compute.internal", "ip-10-20-3-14.us-east-2.compute.internal"]
    created = ts("2025-01-15T09:00:00Z")
    labels = {"app.kubernetes.io/name": "search-api", "app.kubernetes.io/part-of": "bazaar"}
    ctr = container_spec("search-api", "ghcr.io/bazaar/search-api:5.6.0", 8080, readiness=http_probe("/actuator/health/readiness", "http", 5))
    workload(k, api, ctr, nodes, created, rollout, 73, labels=labels)
    k.service("search-api", ns, {"app": "search"}, [("http", 80, "http")], created, cluster_ip="10.96.88.20", labels={"app.kubernetes.io/name": "search-api"})
    k.endpoints("search-api", ns, created)
    sctr = container_spec("storefront", "ghcr.io/bazaar/storefront:21.3.0", 3000)
    workload(k, sf, sctr, nodes, created, ts("2026-08-01T09:00:00Z"), 140, labels={"app.kubernetes.io/name": "storefront"})
    rctr = container_spec("recommendations", "ghcr.io/bazaar/recommendations:3.3.1", 8080)
    workload(k, rec, rctr, nodes, created, ts("2026-07-28T09:00:00Z"), 30, labels={"app.kubernetes.io/name": "recommendations"})
    k.service("storefront", ns, {"app.kubernetes.io/name": "storefront"}, [("http", 80, 3000)], created)
    k.service("recommendations", ns, {"app.kubernetes.io/name": "recommendations"}, [("http", 80, 8080)], created)

    sc.trigger = {"mention": "search is completely down on the site since ~15:50 (503 no healthy upstream) but search-api pods are all green?"}
    sc.config = {"repo": "bazaar/k8s-apps", "namespace": ns}
    sc.truth = {"bucket": "infrastructure", "service": "search-api", "error_type": "config", "file": svcf, "line": L,
                "line_tolerance": 1, "fix_keywords": ["selector", "app.kubernetes.io/name"]}
    return sc
