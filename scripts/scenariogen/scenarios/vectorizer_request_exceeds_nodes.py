"""ML: a worker's memory request was raised above what any node can allocate; its new pods stay Pending (Insufficient memory)."""
import datetime as dt

from sg import *

NAME = "vectorizer-memory-request-exceeds-every-node"


def build():
    sc = Scenario(NAME, "2026-10-02T12:30:00Z", """
        The 11:41 tuning change raised the vectorizer's memory request to 48Gi (k8s/ml/vectorizer.yaml), but the
        pool's nodes allocate about 29Gi each, so the scheduler cannot place the new pods (0/3 nodes are available:
        3 Insufficient memory); the Deployment rolled its old pods away and the embedding queue backs up. The
        indexer logs queue lag warnings as a consequence; the api-gateway's 401s and the feature-flag commit are
        unrelated. The fix is the request in the manifest.""", repo="lumen-ai/cluster")
    ns = "ml"
    vz = sc.svc("vectorizer", ns, "python", npods=2)
    ix = sc.svc("indexer", ns, "go", npods=1)
    gw = sc.svc("api-gateway", ns, "go", npods=2)
    rollout = sc.at("11:48:30")

    mf = "k8s/ml/vectorizer.yaml"
    sc.file(mf, """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: vectorizer
          namespace: ml
        spec:
          replicas: 2
          strategy:
            type: Recreate
          selector:
            matchLabels:
              app: vectorizer
          template:
            metadata:
              labels:
                app: vectorizer
            spec:
              containers:
                - name: vectorizer
                  image: ghcr.io/lumen-ai/vectorizer:2.8.0
                  env:
                    - name: BATCH_SIZE
                      value: "256"
                  resources:
                    requests:
                      cpu: "4"
                      memory: 48Gi
                    limits:
                      memory: 48Gi
        """)
    sc.file("config/flags.yaml", "semantic_rerank: true\nbeta_ui: false\n")
    L = sc.line(mf, "memory: 48Gi", 2) - 2  # the request, above the limit
    sc.commit("2026-10-02T12:02:00Z", ("Eve Moss", "eve@lumen.ai", "emoss"), "flags: enable semantic rerank", [("config/flags.yaml", "semantic_rerank: false\n", "semantic_rerank: true\n")])
    sc.commit("2026-10-02T11:41:10Z", ("Li Wei", "li@lumen.ai", "liwei"), "vectorizer: bigger batches (256) need more memory",
              [(mf, '              value: "128"', '              value: "256"'),
               (mf, "              memory: 16Gi\n            limits:\n              memory: 16Gi", "              memory: 48Gi\n            limits:\n              memory: 48Gi")],
              merged_by_github=True)

    lab = lambda s, pod, lvl: {"service_name": s, "namespace": ns, "pod": pod, "level": lvl}
    t0, t1 = sc.at("11:20"), sc.at("12:29")
    for t in sc.times(rollout, t1, 90):
        sc.log(lab("indexer", ix.pods[0], "warning"), t, f'time={iso(t, 3)} level=WARN msg="embedding queue lag growing" pending={sc.rng.randint(2000, 90000)}')
    decoy_errors(sc, gw, t0, t1, 220, ['time={t} level=ERROR msg="auth failed" status=401 err="token is expired" client=mobile-ios'], labels=lab)

    k = sc.k8s = K8s(sc)
    nodes = ["ip-10-60-1-12.us-west-2.compute.internal", "ip-10-60-2-40.us-west-2.compute.internal", "ip-10-60-3-7.us-west-2.compute.internal"]
    for n in nodes:
        k.node(n, ts("2026-09-01T08:00:00Z"), capacity_mem="32547436Ki", alloc_mem="30348428Ki", cpu="8", instance="r6i.xlarge")
    created = ts("2025-05-01T09:00:00Z")
    labels = {"app": "vectorizer"}
    ctr = container_spec("vectorizer", "ghcr.io/lumen-ai/vectorizer:2.8.0", None, env={"BATCH_SIZE": "256"}, requests={"cpu": "4", "memory": "48Gi"}, limits={"memory": "48Gi"})
    msg = "0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."
    k.deployment(vz, [ctr], 2, created, rollout, 27, ready=0, labels=labels)
    k.replicaset(vz, vz.rs_hash, [ctr], 2, 0, rollout, 27, labels=labels)
    for p in vz.pods:
        po = k.pod(vz, p, [ctr], nodes[0], rollout, labels=labels, ready=False, phase="Pending", state=waiting("ContainerCreating", ""),
                   conditions=[{"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": msg, "lastProbeTime": None,
                                "lastTransitionTime": iso(rollout + dt.timedelta(seconds=1))}])
        po["spec"].pop("nodeName")
        po["status"].pop("containerStatuses")
        po["status"].pop("podIP")
        k.event(ns, "Pod", p, "FailedScheduling", msg, rollout + dt.timedelta(seconds=1), sc.now - dt.timedelta(minutes=2), 41, "Warning", component="default-scheduler")
    ictr = container_spec("indexer", "ghcr.io/lumen-ai/indexer:1.4.2", None)
    workload(k, ix, ictr, nodes, created, ts("2026-09-20T09:00:00Z"), 11, labels={"app": "indexer"})
    gctr = container_spec("api-gateway", "ghcr.io/lumen-ai/api-gateway:6.0.3", 8080)
    workload(k, gw, gctr, nodes, created, ts("2026-09-25T09:00:00Z"), 58, labels={"app": "api-gateway"})

    sc.trigger = {"mention": "embeddings not being produced since ~11:50, indexer says queue lag. gateway also throwing 401s"}
    sc.config = {"repo": "lumen-ai/cluster", "namespace": ns}
    sc.truth = {"bucket": "infrastructure", "service": "vectorizer", "error_type": "resource_exhaustion", "file": mf, "line": L,
                "line_tolerance": 2, "fix_keywords": ["memory", "request"]}
    return sc
