"""Billing: a configMapGenerator literal was renamed; the Deployment still reads the old key and its new pods cannot start."""
import datetime as dt

from sg import *

NAME = "billing-worker-configmap-key-renamed-generator"


def build():
    sc = Scenario(NAME, "2026-09-14T09:50:00Z", """
        The 09:12 commit renamed the literal STRIPE_API_BASE to STRIPE_BASE_URL in the prod overlay's
        configMapGenerator (deploy/billing/overlays/prod/kustomization.yaml), but billing-worker's Deployment still
        reads STRIPE_API_BASE through configMapKeyRef. The rollout's new pods fail with CreateContainerConfigError
        (couldn't find key STRIPE_API_BASE in ConfigMap billing/billing-config-...); the old ReplicaSet keeps two pods,
        so invoices are delayed, not lost. The ledger-sync's deadlock errors and the README change are unrelated.
        The fix is the literal's key in the generator (the change that renamed it).""", repo="tally/deploy")
    ns = "billing"
    wk = sc.svc("billing-worker", ns, "python", npods=2)
    new_hash = sc.pod_hash()
    new_pods = [f"billing-worker-{new_hash}-{sc.suffix()}" for _ in range(1)]
    ls = sc.svc("ledger-sync", ns, "go", npods=1)
    rollout = sc.at("09:18:40")

    kz = "deploy/billing/overlays/prod/kustomization.yaml"
    sc.file(kz, """
        apiVersion: kustomize.config.k8s.io/v1beta1
        kind: Kustomization
        namespace: billing
        resources:
          - ../../base
        images:
          - name: ghcr.io/tally/billing-worker
            newTag: 4.12.0
        configMapGenerator:
          - name: billing-config
            literals:
              - LOG_LEVEL=info
              - STRIPE_BASE_URL=https://api.stripe.com
              - INVOICE_BATCH_SIZE=200
        """)
    base = "deploy/billing/base/deployment.yaml"
    sc.file(base, """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: billing-worker
        spec:
          replicas: 2
          template:
            spec:
              containers:
                - name: billing-worker
                  image: ghcr.io/tally/billing-worker
                  env:
                    - name: STRIPE_API_BASE
                      valueFrom:
                        configMapKeyRef:
                          name: billing-config
                          key: STRIPE_API_BASE
                    - name: INVOICE_BATCH_SIZE
                      valueFrom:
                        configMapKeyRef:
                          name: billing-config
                          key: INVOICE_BATCH_SIZE
        """)
    sc.file("deploy/billing/base/kustomization.yaml", "resources:\n  - deployment.yaml\n")
    sc.file("README.md", "# tally deploy\n\nKustomize overlays per environment.\n")
    L = sc.line(kz, "STRIPE_BASE_URL=")
    sc.commit("2026-09-14T09:31:00Z", ("Ada Park", "ada@tally.money", "apark"), "README: overlays", [("README.md", "# tally deploy\n", "# tally deploy\n\nKustomize overlays per environment.\n")])
    sc.commit("2026-09-14T09:12:51Z", ("Sam Ortiz", "sam@tally.money", "sortiz"), "billing: name Stripe settings like the SDK does; billing-worker 4.12.0",
              [(kz, "    newTag: 4.11.3", "    newTag: 4.12.0"), (kz, "      - STRIPE_API_BASE=https://api.stripe.com", "      - STRIPE_BASE_URL=https://api.stripe.com")], merged_by_github=True)

    lab = lambda s, pod, lvl: {"service_name": s, "namespace": ns, "pod": pod, "level": lvl}
    t0, t1 = sc.at("08:50"), sc.at("09:49")
    for t in sc.times(t0, t1, 120):
        sc.log(lab("billing-worker", wk.pod(), "info"), t, f'{iso(t, 3)} INFO billing.worker: invoice batch done size={sc.rng.randint(50, 200)} ms={sc.rng.randint(300, 1500)}')
    decoy_errors(sc, ls, t0, t1, 200, ["{t} ERROR ledger-sync: upsert failed: ERROR: deadlock detected (SQLSTATE 40P01)"], labels=lab)

    k = sc.k8s = K8s(sc)
    nodes = ["gke-tally-prod-pool-1-7f6e5d4c-2bq9", "gke-tally-prod-pool-1-7f6e5d4c-8lmn"]
    created = ts("2025-03-01T09:00:00Z")
    labels = {"app.kubernetes.io/name": "billing-worker"}
    env_old = [{"name": "STRIPE_API_BASE", "valueFrom": {"configMapKeyRef": {"name": "billing-config-7b2m9k4f6d", "key": "STRIPE_API_BASE"}}},
               {"name": "INVOICE_BATCH_SIZE", "valueFrom": {"configMapKeyRef": {"name": "billing-config-7b2m9k4f6d", "key": "INVOICE_BATCH_SIZE"}}}]
    env_new = [{"name": "STRIPE_API_BASE", "valueFrom": {"configMapKeyRef": {"name": "billing-config-c8h5t2g9bk", "key": "STRIPE_API_BASE"}}},
               {"name": "INVOICE_BATCH_SIZE", "valueFrom": {"configMapKeyRef": {"name": "billing-config-c8h5t2g9bk", "key": "INVOICE_BATCH_SIZE"}}}]
    old = container_spec("billing-worker", "ghcr.io/tally/billing-worker:4.11.3", None, env=env_old, requests={"cpu": "250m", "memory": "512Mi"})
    new = container_spec("billing-worker", "ghcr.io/tally/billing-worker:4.12.0", None, env=env_new, requests={"cpu": "250m", "memory": "512Mi"})
    k.deployment(wk, [new], 2, created, rollout, 36, ready=2, labels=labels, updated_replicas=1)
    k.replicaset(wk, new_hash, [new], 1, 0, rollout, 36, labels=labels)
    k.replicaset(wk, wk.rs_hash, [old], 2, 2, ts("2026-09-01T09:00:00Z"), 35, labels=labels)
    for i, p in enumerate(wk.pods):
        k.pod(wk, p, [old], nodes[i], ts("2026-09-01T09:00:00Z"), labels=labels)
    msg = f"couldn't find key STRIPE_API_BASE in ConfigMap {ns}/billing-config-c8h5t2g9bk"
    for p in new_pods:
        k.pod(wk, p, [new], nodes[0], rollout, labels=labels, rs_hash=new_hash, ready=False, phase="Pending", state=waiting("CreateContainerConfigError", msg))
        k.event(ns, "Pod", p, "Failed", "Error: " + msg, rollout + dt.timedelta(seconds=3), sc.now - dt.timedelta(seconds=20), 182, "Warning",
                host=nodes[0], field_path="spec.containers{billing-worker}")
    k.configmap("billing-config-c8h5t2g9bk", ns, rollout - dt.timedelta(seconds=3), {"LOG_LEVEL": "info", "STRIPE_BASE_URL": "https://api.stripe.com", "INVOICE_BATCH_SIZE": "200"})
    k.configmap("billing-config-7b2m9k4f6d", ns, ts("2026-09-01T08:59:50Z"), {"LOG_LEVEL": "info", "STRIPE_API_BASE": "https://api.stripe.com", "INVOICE_BATCH_SIZE": "200"})
    lctr = container_spec("ledger-sync", "ghcr.io/tally/ledger-sync:1.9.0", None)
    workload(k, ls, lctr, nodes, created, ts("2026-09-10T09:00:00Z"), 17, labels={"app.kubernetes.io/name": "ledger-sync"})

    sc.trigger = {"mention": "billing-worker rollout stuck since ~09:20, new pod won't start. also ledger-sync deadlocks again?"}
    sc.config = {"repo": "tally/deploy", "namespace": ns}
    sc.truth = {"bucket": "infrastructure", "service": "billing-worker", "error_type": "config", "file": kz, "line": L,
                "line_tolerance": 1, "fix_keywords": ["STRIPE_API_BASE", "configMapGenerator", "literals"]}
    return sc
