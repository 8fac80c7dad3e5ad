"""Grocery delivery: a report CronJob with a tiny memory request and no limit drives its node into MemoryPressure; kubelet evicts storefront pods."""
import datetime as dt

from sg import *

NAME = "node-memory-pressure-report-job-evictions"


def build():
    sc = Scenario(NAME, "2026-01-08T02:55:00Z", """
        The nightly-report CronJob requests 256Mi and has no memory limit, but since the 01:30 commit that adds
        the full-year basket export it loads ~11Gi into pandas. The scheduler packs it onto ip-10-2-3-44 next to
        storefront-web; at 02:21 the node hits MemoryPressure and kubelet evicts the pods that exceed their
        requests the most (two storefront-web pods, a cart-api pod), storefront-web drops to one ready pod and the
        edge returns 503s. The job itself is BestEffort-like and keeps running. Fix: give the job a realistic
        request/limit (or a dedicated node pool). storefront-web is the loud victim; the 00:40 storefront-web
        deploy and the cert-manager renewal events are unrelated.""", repo="freshcart/platform-k8s")
    ns = "storefront"
    web = sc.svc("storefront-web", ns, "nodejs", version="22.1.0", npods=3)
    cart = sc.svc("cart-api", ns, "go", npods=2)
    job_pod = f"nightly-report-29467200-{sc.suffix()}"
    pressure = sc.at("02:21:14")
    node = "ip-10-2-3-44.eu-west-1.compute.internal"
    nodes = [node, "ip-10-2-1-17.eu-west-1.compute.internal", "ip-10-2-2-230.eu-west-1.compute.internal"]

    cj = "k8s/jobs/nightly-report.yaml"
    sc.file(cj, """
        apiVersion: batch/v1
        kind: CronJob
        metadata:
          name: nightly-report
          namespace: analytics
        spec:
          schedule: "0 2 * * *"
          concurrencyPolicy: Forbid
          jobTemplate:
            spec:
              backoffLimit: 1
              template:
                spec:
                  restartPolicy: Never
                  containers:
                    - name: nightly-report
                      image: 902114553011.dkr.ecr.eu-west-1.amazonaws.com/nightly-report:2026.01.07
                      args: ["python", "-m", "reports.nightly", "--export", "baskets-ytd"]
                      resources:
                        requests:
                          cpu: 500m
                          memory: 256Mi
        """)
    rep = "reports/reports/nightly.py"
    sc.file(rep, """
        import argparse

        import pandas as pd

        from reports import warehouse


        def baskets_ytd(conn):
            # Full-year basket lines for the merchandising team.
            df = pd.read_sql("SELECT * FROM basket_lines WHERE created_at >= date_trunc('year', now())", conn)
            return df.groupby(["store_id", "sku"]).agg(qty=("qty", "sum"), revenue=("amount", "sum"))


        def main():
            ap = argparse.ArgumentParser()
            ap.add_argument("--export", action="append", default=[])
            args = ap.parse_args()
            with warehouse.connect() as conn:
                for name in args.export:
                    out = {"baskets-ytd": baskets_ytd}[name](conn)
                    warehouse.upload(out, f"exports/{name}.parquet")


        if __name__ == "__main__":
            main()
        """)
    sc.file("k8s/apps/storefront-web/deployment.yaml", """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: storefront-web
          namespace: storefront
        spec:
          replicas: 3
          template:
            spec:
              containers:
                - name: storefront-web
                  image: 902114553011.dkr.ecr.eu-west-1.amazonaws.com/storefront-web:22.1.0
                  resources:
                    requests:
                      cpu: 300m
                      memory: 256Mi
                    limits:
                      memory: 768Mi
        """)
    L = sc.line(cj, "memory: 256Mi")
    sc.commit("2026-01-08T01:30:44Z", ("Marta Silva", "marta.silva@freshcart.co", "msilva-fc"),
              "reports: add full-year basket export for merchandising",
              [(rep, None, None), (cj, '                  args: ["python", "-m", "reports.nightly"]',
                                   '                  args: ["python", "-m", "reports.nightly", "--export", "baskets-ytd"]')])
    sc.commit("2026-01-08T00:31:12Z", ("Jon Park", "jon.park@freshcart.co", "jpark"),
              "storefront-web 22.1.0", [("k8s/apps/storefront-web/deployment.yaml", "storefront-web:22.0.4", "storefront-web:22.1.0")])

    t0, t1 = sc.at("01:55"), sc.at("02:53")
    evicted = [web.pods[0], web.pods[1]]
    ev_t = {web.pods[0]: pressure + dt.timedelta(seconds=31), web.pods[1]: pressure + dt.timedelta(seconds=74)}
    lab = lambda s, pod, lvl, nsx=ns: {"k8s_container_name": s, "k8s_namespace_name": nsx, "k8s_pod_name": pod, "level": lvl}
    for t in sc.times(t0, t1, 200):
        alive = [p for p in web.pods if p not in ev_t or t < ev_t[p]]
        p = sc.rng.choice(alive)
        overloaded = t >= pressure + dt.timedelta(seconds=80)
        status = 200 if not overloaded or sc.rng.random() < 0.7 else 503
        if status == 200:
            sc.log(lab("storefront-web", p, "info"), t, json.dumps({"level": "info", "time": iso(t, 3), "msg": "GET /", "status": 200,
                                                                    "durationMs": sc.rng.randint(40, 900 if overloaded else 200)}))
        else:
            sc.log(lab("storefront-web", p, "error"), t, json.dumps({"level": "error", "time": iso(t, 3), "msg": "render failed: upstream timeout",
                                                                     "status": 503, "err": "TimeoutError: The operation was aborted due to timeout"}))
    rt = sc.at("02:00:08")
    for off, m in [(0, "starting nightly report exports=['baskets-ytd']"), (4, "querying basket_lines since 2026-01-01"),
                   (1300, "fetched 48,211,904 rows, aggregating"), (2900, "still aggregating (rss=10.9GiB)")]:
        t = rt + dt.timedelta(seconds=off)
        sc.log(lab("nightly-report", job_pod, "info", "analytics"), t, f"{t.strftime('%Y-%m-%d %H:%M:%S')} INFO reports.nightly: {m}")
    for t in sc.times(t0, t1, 20):
        sc.log(lab("cert-manager", "cert-manager-7c9fd58b6d-t5r2w", "info", "cert-manager"), t,
               f'I{t.strftime("%m%d %H:%M:%S.%f")}       1 conditions.go:263] Setting lastTransitionTime for Certificate "storefront-tls" condition "Ready" to {iso(t)}')

    m0, m1 = sc.at("01:50"), sc.at("02:54")
    sc.gauge({"__name__": "node_memory_MemAvailable_bytes", "instance": node, "job": "node-exporter", "node": node}, m0, m1,
             lambda t: 9.8e9 if t < rt else max(8.5e7, 9.8e9 - (t - rt).total_seconds() * 9.5e6 + sc.rng.uniform(0, 6e7)))
    for n in nodes[1:]:
        sc.gauge({"__name__": "node_memory_MemAvailable_bytes", "instance": n, "job": "node-exporter", "node": n}, m0, m1,
                 lambda t: sc.rng.uniform(5.5e9, 7e9))
    sc.gauge({"__name__": "kube_node_status_condition", "node": node, "condition": "MemoryPressure", "status": "true", "job": "kube-state-metrics"},
             m0, m1, lambda t: 1 if t >= pressure else 0)
    sc.gauge({"__name__": "container_memory_working_set_bytes", "namespace": "analytics", "pod": job_pod, "container": "nightly-report", "node": node},
             rt, m1, lambda t: min(1.18e10, 2e8 + (t - rt).total_seconds() * 9.6e6))
    sc.gauge({"__name__": "kube_deployment_status_replicas_available", "namespace": ns, "deployment": "storefront-web", "job": "kube-state-metrics"},
             m0, m1, lambda t: 3 if t < ev_t[web.pods[0]] else (2 if t < ev_t[web.pods[1]] else 1))
    sc.counter({"__name__": "nginx_ingress_controller_requests", "ingress": "storefront", "namespace": ns, "status": "503", "job": "ingress-nginx"},
               m0, m1, lambda t: 6 if t >= pressure + dt.timedelta(seconds=80) else 0.01, initial=331)

    k = sc.k8s = K8s(sc)
    k.node(node, ts("2025-12-20T04:00:00Z"), mem_pressure=True, transition=pressure,
           taints=[{"key": "node.kubernetes.io/memory-pressure", "effect": "NoSchedule", "timeAdded": iso(pressure)}])
    for n in nodes[1:]:
        k.node(n, ts("2025-12-20T04:00:00Z"))
    wctr = container_spec("storefront-web", "902114553011.dkr.ecr.eu-west-1.amazonaws.com/storefront-web:22.1.0", 3000,
                          requests={"cpu": "300m", "memory": "256Mi"}, limits={"memory": "768Mi"}, readiness=http_probe("/healthz", 3000, 5))
    labels = {"app": "storefront-web"}
    k.deployment(web, [wctr], 3, ts("2024-01-10T10:00:00Z"), ev_t[web.pods[1]], 311, ready=1, labels=labels)
    k.replicaset(web, web.rs_hash, [wctr], 3, 1, sc.at("00:40:10"), 311, labels=labels)
    for i, p in enumerate(web.pods):
        if p in ev_t:
            k.pod(web, p, [wctr], node, sc.at("00:40:10") + dt.timedelta(seconds=8 * i), labels=labels, ready=False, phase="Failed",
                  state=terminated("ContainerStatusUnknown", 137, sc.at("00:40:20"), ev_t[p], sc, message="The container could not be located when the pod was terminated"),
                  status_extra={"reason": "Evicted", "message": f"The node was low on resource: memory. Threshold quantity: 100Mi, available: {sc.rng.randint(60000, 99000)}Ki. "
                                f"Container storefront-web was using {sc.rng.randint(480, 620)}Mi, request is 256Mi, has larger consumption of memory. "})
            k.event(ns, "Pod", p, "Evicted", "The node was low on resource: memory. Threshold quantity: 100Mi, available: 81232Ki. Container storefront-web was using 512Mi, request is 256Mi, has larger consumption of memory.",
                    ev_t[p], etype="Warning", host=node)
        else:
            k.pod(web, p, [wctr], nodes[1], sc.at("00:40:10") + dt.timedelta(seconds=8 * i), labels=labels)
    repl = f"storefront-web-{web.rs_hash}-{sc.suffix()}"
    k.pod(web, repl, [wctr], nodes[2], ev_t[web.pods[0]] + dt.timedelta(seconds=1), labels=labels, ready=False, phase="Pending",
          state=waiting("ContainerCreating", ""),
          conditions=[{"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "lastProbeTime": None, "lastTransitionTime": iso(ev_t[web.pods[0]]),
                       "message": "0/3 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/memory-pressure: }, 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."}])
    k.items[-1]["status"]["phase"] = "Pending"
    k.items[-1]["status"]["containerStatuses"] = []
    k.event(ns, "Pod", repl, "FailedScheduling", "0/3 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/memory-pressure: }, 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.",
            ev_t[web.pods[0]] + dt.timedelta(seconds=1), sc.now - dt.timedelta(seconds=30), 21, "Warning", component="default-scheduler")
    cctr = container_spec("cart-api", "902114553011.dkr.ecr.eu-west-1.amazonaws.com/cart-api:5.5.1", 8080,
                          requests={"cpu": "200m", "memory": "128Mi"}, limits={"memory": "512Mi"})
    workload(k, cart, cctr, [nodes[1], node], ts("2024-01-10T10:00:00Z"), ts("2026-01-05T10:00:00Z"), 88, labels={"app": "cart-api"},
             pod_states={1: {"restarts": 1, "state": running(pressure + dt.timedelta(seconds=140)),
                             "last": terminated("Error", 137, ts("2026-01-05T10:00:30Z"), pressure + dt.timedelta(seconds=122), sc)}})
    k.event("kube-system", "Node", node, "EvictionThresholdMet", "Attempting to reclaim memory", pressure, pressure + dt.timedelta(seconds=74), 3,
            "Warning", host=node)
    k.event("kube-system", "Node", node, "NodeHasInsufficientMemory", f"Node {node} status is now: NodeHasInsufficientMemory", pressure, host=node)
    jctr = container_spec("nightly-report", "902114553011.dkr.ecr.eu-west-1.amazonaws.com/nightly-report:2026.01.07", None,
                          args=["python", "-m", "reports.nightly", "--export", "baskets-ytd"], requests={"cpu": "500m", "memory": "256Mi"})
    jsvc = sc.svc("nightly-report", "analytics", "python", pods=[job_pod], deploy="nightly-report-29467200")
    jp = k.pod(jsvc, job_pod, [jctr], node, rt - dt.timedelta(seconds=8), labels={"job-name": "nightly-report-29467200"}, qos="Burstable")
    jp["metadata"]["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": "nightly-report-29467200", "uid": sc.uuid(),
                                          "controller": True, "blockOwnerDeletion": True}]
    k.raw({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": k.meta("nightly-report", "analytics", ts("2025-03-01T09:00:00Z")),
           "spec": {"schedule": "0 2 * * *", "concurrencyPolicy": "Forbid",
                    "jobTemplate": {"spec": {"backoffLimit": 1, "template": {"spec": {"restartPolicy": "Never", "containers": [jctr]}}}}},
           "status": {"active": [{"kind": "Job", "namespace": "analytics", "name": "nightly-report-29467200"}],
                      "lastScheduleTime": iso(rt - dt.timedelta(seconds=8))}})
    k.event("cert-manager", "Certificate", "storefront-tls", "Issuing", "The certificate has been successfully issued", sc.at("02:10:31"),
            component="cert-manager-certificates-issuing", api_version="cert-manager.io/v1")

    a1 = alert(sc, {"alertname": "KubeNodeMemoryPressure", "node": node, "condition": "MemoryPressure", "job": "kube-state-metrics", "severity": "warning"},
               {"summary": "Node has memory pressure.", "description": f"{node} has MemoryPressure condition."},
               pressure + dt.timedelta(minutes=2), 'kube_node_status_condition{condition="MemoryPressure",status="true"} == 1')
    a2 = alert(sc, {"alertname": "StorefrontAvailabilityLow", "job": "storefront-web", "namespace": ns, "severity": "critical"},
               {"summary": "storefront-web has 1/3 replicas available and 503s at the ingress",
                "description": "Ingress storefront returns 503 for 21% of requests."},
               pressure + dt.timedelta(minutes=4), 'kube_deployment_status_replicas_available{deployment="storefront-web"} < 2')
    sc.trigger = {"alert": webhook([a2, a1], [], "autoheal-oncall", "https://alertmanager.freshcart.co", route_key="{}", truncated=3)}
    sc.trigger["alert"]["status"] = "firing"
    sc.config = {"repo": "freshcart/platform-k8s", "log_service_label": "k8s_container_name"}
    sc.truth = {"bucket": "infrastructure", "service": "nightly-report", "error_type": "resource_exhaustion", "file": cj, "line": L,
                "line_tolerance": 3, "fix_keywords": ["memory", "limit", "request", "node pool", "nodeSelector"]}
    return sc
