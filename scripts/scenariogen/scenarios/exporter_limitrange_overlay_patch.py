"""Reports: a prod overlay patch raises a container's memory limit above the namespace LimitRange's maximum; no pod can be created."""
import datetime as dt

from sg import *

NAME = "exporter-limit-above-limitrange-overlay-patch"


def build():
    sc = Scenario(NAME, "2026-12-08T07:30:00Z", """
        To stop OOM kills on month-end exports, the 06:52 change patched pdf-exporter's memory limit to 3Gi in the
        prod overlay (deploy/exporter/overlays/prod/patch-resources.yaml). The reports namespace's LimitRange allows
        at most 2Gi per container, so the new ReplicaSet cannot create any pod (FailedCreate: maximum memory usage per
        Container is 2Gi, but limit is 3Gi) and, with the old pods scaled down by the Recreate strategy, exports queue
        up. mailer's SMTP errors and the template commit are unrelated. The fix is the limit in the overlay's patch.""",
                  repo="ledgerly/gitops")
    ns = "reports"
    ex = sc.svc("pdf-exporter", ns, "java", npods=0, pods=[])
    ml = sc.svc("mailer", ns, "python", npods=1)
    rollout = sc.at("06:58:02")

    patch = "deploy/exporter/overlays/prod/patch-resources.yaml"
    sc.file("deploy/exporter/base/deployment.yaml", """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: pdf-exporter
        spec:
          replicas: 2
          strategy:
            type: Recreate
          template:
            spec:
              containers:
                - name: pdf-exporter
                  image: ghcr.io/ledgerly/pdf-exporter:3.1.0
                  resources:
                    requests:
                      cpu: 500m
                      memory: 1Gi
                    limits:
                      memory: 1536Mi
        """)
    sc.file("deploy/exporter/base/kustomization.yaml", "resources:\n  - deployment.yaml\n")
    sc.file("deploy/exporter/overlays/prod/kustomization.yaml", """
        apiVersion: kustomize.config.k8s.io/v1beta1
        kind: Kustomization
        namespace: reports
        resources:
          - ../../base
        patches:
          - path: patch-resources.yaml
        """)
    sc.file(patch, """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: pdf-exporter
        spec:
          template:
            spec:
              containers:
                - name: pdf-exporter
                  resources:
                    limits:
                      memory: 3Gi
        """)
    sc.file("deploy/reports/limitrange.yaml", """
        apiVersion: v1
        kind: LimitRange
        metadata:
          name: container-limits
          namespace: reports
        spec:
          limits:
            - type: Container
              max:
                memory: 2Gi
                cpu: "2"
              default:
                memory: 512Mi
        """)
    sc.file("templates/invoice.html", "<h1>Invoice {{ number }}</h1>\n")
    L = sc.line(patch, "memory: 3Gi")
    sc.commit("2026-12-08T07:05:00Z", ("Ivy Ng", "ivy@ledgerly.io", "ivyng"), "invoice template: heading", [("templates/invoice.html", "<h2>Invoice {{ number }}</h2>\n", "<h1>Invoice {{ number }}</h1>\n")])
    sc.commit("2026-12-08T06:52:40Z", ("Paul Roy", "paul@ledgerly.io", "proy"), "pdf-exporter: 3Gi for month-end exports (OOMs on big ledgers)",
              [(patch, "          memory: 2Gi", "          memory: 3Gi")], merged_by_github=True)

    lab = lambda s, pod, lvl: {"service_name": s, "namespace": ns, "pod": pod, "level": lvl}
    t0, t1 = sc.at("06:30"), sc.at("07:29")
    decoy_errors(sc, ml, t0, t1, 150, ["{t} ERROR mailer.smtp: SMTPServerDisconnected: Connection unexpectedly closed (host=smtp.relay.example)"], labels=lab)

    k = sc.k8s = K8s(sc)
    nodes = ["ip-10-70-1-3.eu-north-1.compute.internal", "ip-10-70-2-8.eu-north-1.compute.internal"]
    created = ts("2025-04-01T09:00:00Z")
    labels = {"app.kubernetes.io/name": "pdf-exporter"}
    ctr = container_spec("pdf-exporter", "ghcr.io/ledgerly/pdf-exporter:3.1.0", None, requests={"cpu": "500m", "memory": "1Gi"}, limits={"memory": "3Gi"})
    msg = f'pods "pdf-exporter-{ex.rs_hash}-" is forbidden: maximum memory usage per Container is 2Gi, but limit is 3Gi'
    k.deployment(ex, [ctr], 2, created, rollout, 19, ready=0, labels=labels,
                 conditions=[{"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable", "message": "Deployment does not have minimum availability.",
                              "lastUpdateTime": iso(rollout), "lastTransitionTime": iso(rollout)},
                             {"type": "ReplicaFailure", "status": "True", "reason": "FailedCreate", "message": msg,
                              "lastUpdateTime": iso(rollout + dt.timedelta(seconds=1)), "lastTransitionTime": iso(rollout + dt.timedelta(seconds=1))},
                             {"type": "Progressing", "status": "True", "reason": "ReplicaSetUpdated", "message": f'ReplicaSet "pdf-exporter-{ex.rs_hash}" is progressing.',
                              "lastUpdateTime": iso(rollout), "lastTransitionTime": iso(rollout)}])
    k.replicaset(ex, ex.rs_hash, [ctr], 2, 0, rollout, 19, labels=labels)
    k.event(ns, "ReplicaSet", f"pdf-exporter-{ex.rs_hash}", "FailedCreate", "Error creating: " + msg, rollout + dt.timedelta(seconds=1),
            sc.now - dt.timedelta(minutes=4), 17, "Warning", component="replicaset-controller", api_version="apps/v1")
    k.obj("v1", "LimitRange", "container-limits", ns, created, spec={"limits": [{"type": "Container", "max": {"memory": "2Gi", "cpu": "2"},
                                                                                  "default": {"memory": "512Mi", "cpu": "500m"}, "defaultRequest": {"memory": "256Mi", "cpu": "100m"}}]})
    mctr = container_spec("mailer", "ghcr.io/ledgerly/mailer:1.2.0", None)
    workload(k, ml, mctr, nodes, created, ts("2026-11-30T09:00:00Z"), 8, labels={"app.kubernetes.io/name": "mailer"})

    sc.trigger = {"mention": "pdf exports not running since ~7:00, pdf-exporter shows 0/2 pods. mailer also has smtp errors"}
    sc.config = {"repo": "ledgerly/gitops", "namespace": ns}
    sc.truth = {"bucket": "infrastructure", "service": "pdf-exporter", "error_type": "config", "file": patch, "line": L,
                "line_tolerance": 1, "fix_keywords": ["memory", "2Gi", "limit"]}
    return sc
