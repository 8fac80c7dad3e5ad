"""Catalog: the chart's production values point the liveness probe at the metrics port; the kubelet kills every pod in a loop."""
import datetime as dt

from sg import *

NAME = "catalog-liveness-probe-port-helm-values"


def build():
    sc = Scenario(NAME, "2027-03-09T10:45:00Z", """
        The 10:02 change set probes.livenessPort: 9464 in charts/catalog/values-prod.yaml, meaning the admin port
        (9646); 9464 is nothing the container listens on (it serves 8080 and 9646). The liveness probe is refused, the
        kubelet restarts catalog's containers every ~40 s and catalog answers 503 most of the time. The reviews
        service's errors and the i18n commit are unrelated. The fix is the value the template reads, in the production
        values file.""", repo="nordwind/charts")
    ns = "shop"
    cat = sc.svc("catalog", ns, "java", npods=3)
    rv = sc.svc("reviews", ns, "nodejs", npods=2)
    change = sc.at("10:02:15")
    rollout = sc.at("10:09:40")

    ch = "charts/catalog"
    sc.file(f"{ch}/Chart.yaml", "apiVersion: v2\nname: catalog\nversion: 4.0.2\n")
    sc.file(f"{ch}/templates/deployment.yaml", """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: {{ .Chart.Name }}
        spec:
          replicas: {{ .Values.replicaCount }}
          template:
            spec:
              containers:
                - name: catalog
                  image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
                  ports:
                    - name: http
                      containerPort: 8080
                    - name: admin
                      containerPort: 9646
                  livenessProbe:
                    httpGet:
                      path: /health/live
                      port: {{ .Values.probes.livenessPort }}
                    periodSeconds: 10
                    failureThreshold: 3
                  readinessProbe:
                    httpGet:
                      path: /health/ready
                      port: http
        """)
    sc.file(f"{ch}/values.yaml", """
        replicaCount: 3
        image:
          repository: ghcr.io/nordwind/catalog
          tag: 6.4.1
        probes:
          livenessPort: 8080
        """)
    vp = f"{ch}/values-prod.yaml"
    sc.file(vp, """
        replicaCount: 3
        probes:
          # liveness on the admin port, so a busy http pool does not restart pods (CAT-301)
          livenessPort: 9464
        """)
    sc.file("i18n/de.json", '{"cart": "Warenkorb", "checkout": "Zur Kasse"}\n')
    L = sc.line(vp, "livenessPort: 9464")
    sc.commit("2027-03-09T10:20:00Z", ("Jana Kraus", "jana@nordwind.de", "jkraus"), "i18n: checkout label", [("i18n/de.json", '{"cart": "Warenkorb"}\n', '{"cart": "Warenkorb", "checkout": "Zur Kasse"}\n')])
    sc.commit(change, ("Tim Vogel", "tim@nordwind.de", "tvogel"), "catalog: liveness on the admin port (CAT-301)",
              [(vp, "replicaCount: 3\n", "replicaCount: 3\nprobes:\n  # liveness on the admin port, so a busy http pool does not restart pods (CAT-301)\n  livenessPort: 9464\n")],
              merged_by_github=True)

    lab = lambda s, pod, lvl: {"service_name": s, "namespace": ns, "pod": pod, "level": lvl}
    t0, t1 = sc.at("09:45"), sc.at("10:44")
    for t in sc.times(t0, t1, 150):
        sc.log(lab("catalog", cat.pod(), "info"), t, f'{iso(t, 3)}  INFO 1 --- [catalog] [           main] c.n.catalog.Application : Started Application in {sc.rng.uniform(6, 9):.3f} seconds' if t > rollout and sc.rng.random() < 0.3 else f'{iso(t, 3)}  INFO 1 --- [catalog] [nio-8080-exec-3] c.n.catalog.ProductController : GET /products/{sc.rng.randint(1000, 9999)} 200')
    decoy_errors(sc, rv, t0, t1, 260, ["{t} ERROR reviews: TypeError: Cannot read properties of undefined (reading 'rating')\n    at summarize (/usr/src/app/src/summary.js:22:31)"], labels=lab)

    k = sc.k8s = K8s(sc)
    nodes = ["shoot--nordwind--prod-worker-z1-5d4c3-abcde", "shoot--nordwind--prod-worker-z1-5d4c3-fghij"]
    created = ts("2025-01-01T09:00:00Z")
    labels = {"app.kubernetes.io/name": "catalog"}
    ctr = container_spec("catalog", "ghcr.io/nordwind/catalog:6.4.1", 8080, readiness=http_probe("/health/ready", "http", 5),
                         liveness=http_probe("/health/live", 9464, 10))
    ctr["ports"].append({"name": "admin", "containerPort": 9646, "protocol": "TCP"})
    states = {}
    for i, p in enumerate(cat.pods):
        last = rollout + dt.timedelta(minutes=30) - dt.timedelta(seconds=15 * i)
        states[i] = {"restarts": 40 + i * 3, "ready": False, "state": running(last),
                     "last": terminated("Error", 143, last - dt.timedelta(seconds=40), last - dt.timedelta(seconds=1), sc)}
    workload(k, cat, ctr, nodes, created, rollout, 52, labels=labels, pod_states=states)
    for p in cat.pods:
        k.event(ns, "Pod", p, "Unhealthy", f"Liveness probe failed: Get \"http://{cat.ips[p]}:9464/health/live\": dial tcp {cat.ips[p]}:9464: connect: connection refused",
                rollout + dt.timedelta(seconds=30), sc.now - dt.timedelta(seconds=20), 120, "Warning", field_path="spec.containers{catalog}")
        k.event(ns, "Pod", p, "Killing", "Container catalog failed liveness probe, will be restarted", rollout + dt.timedelta(seconds=50), sc.now - dt.timedelta(seconds=30), 40,
                field_path="spec.containers{catalog}")
    rctr = container_spec("reviews", "ghcr.io/nordwind/reviews:2.1.0", 3000)
    workload(k, rv, rctr, nodes, created, ts("2027-03-01T09:00:00Z"), 18, labels={"app.kubernetes.io/name": "reviews"})

    sc.trigger = {"mention": "catalog pods restarting nonstop since ~10:10 and the product pages 503. reviews also erroring"}
    sc.config = {"repo": "nordwind/charts", "namespace": ns}
    sc.truth = {"bucket": "infrastructure", "service": "catalog", "error_type": "config", "file": vp, "line": L,
                "line_tolerance": 1, "fix_keywords": ["9646", "livenessPort", "port"]}
    return sc
