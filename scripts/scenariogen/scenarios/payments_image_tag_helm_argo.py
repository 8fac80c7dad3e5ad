"""Payments: the chart's production values name an image tag CI never published; Argo CD deploys it and the new pods cannot pull."""
import datetime as dt

from sg import *

NAME = "payments-api-image-tag-typo-helm-values-argo"


def build():
    sc = Scenario(NAME, "2027-01-12T15:20:00Z", """
        The 14:44 release bumped payments-api's image.tag to 5.18.0-rc.1 in charts/payments-api/values-prod.yaml, but CI
        published 5.18.0-rc1 (no dot). Argo CD (Application payments-api, values.yaml + values-prod.yaml) rolled it out:
        the new pod is in ImagePullBackOff (manifest unknown) and the rollout is stuck; two old pods still serve.
        fraud-check's scoring errors and the dashboards commit are unrelated. The fix is the tag value.""",
                  repo="paynorth/deploy")
    ns = "payments"
    api = sc.svc("payments-api", ns, "go", npods=2, version="5.17.2")
    new_hash = sc.pod_hash()
    new_pod = f"payments-api-{new_hash}-{sc.suffix()}"
    fr = sc.svc("fraud-check", ns, "python", npods=2)
    rollout = sc.at("14:51:20")

    ch = "charts/payments-api"
    sc.file(f"{ch}/Chart.yaml", "apiVersion: v2\nname: payments-api\nversion: 1.9.0\n")
    sc.file(f"{ch}/templates/deployment.yaml", """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: {{ .Release.Name }}
        spec:
          replicas: {{ .Values.replicaCount }}
          template:
            spec:
              containers:
                - name: payments-api
                  image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
                  ports:
                    - name: http
                      containerPort: 8080
        """)
    sc.file(f"{ch}/values.yaml", """
        replicaCount: 2
        image:
          repository: ghcr.io/paynorth/payments-api
          tag: 5.17.2
        """)
    vp = f"{ch}/values-prod.yaml"
    sc.file(vp, """
        replicaCount: 2
        image:
          tag: 5.18.0-rc.1
        """)
    sc.file("dashboards/payments.json", '{"title": "Payments", "panels": 14}\n')
    L = sc.line(vp, "tag: 5.18.0-rc.1")
    sc.commit("2027-01-12T15:02:00Z", ("Ola Berg", "ola@paynorth.io", "olaberg"), "dashboards: payments panels", [("dashboards/payments.json", '{"title": "Payments", "panels": 12}\n', '{"title": "Payments", "panels": 14}\n')])
    sc.commit("2027-01-12T14:44:10Z", ("release-bot", "release@paynorth.io", "paynorth-release[bot]"), "release: payments-api 5.18.0-rc.1 to production",
              [(vp, "  tag: 5.17.2", "  tag: 5.18.0-rc.1")])

    lab = lambda s, pod, lvl: {"service_name": s, "namespace": ns, "pod": pod, "level": lvl}
    t0, t1 = sc.at("14:20"), sc.at("15:19")
    for t in sc.times(t0, t1, 120):
        sc.log(lab("payments-api", api.pod(), "info"), t, f'time={iso(t, 3)} level=INFO msg="payment captured" ms={sc.rng.randint(40, 200)}')
    decoy_errors(sc, fr, t0, t1, 240, ["{t} ERROR fraud_check.score: KeyError: 'device_fingerprint'\nTraceback (most recent call last):\n  File \"/app/fraud_check/score.py\", line 57, in score\n    fp = features['device_fingerprint']\nKeyError: 'device_fingerprint'"], labels=lab)

    k = sc.k8s = K8s(sc)
    nodes = ["gke-paynorth-prod-default-9f8e7d6c-1abc", "gke-paynorth-prod-default-9f8e7d6c-2def"]
    created = ts("2025-01-01T09:00:00Z")
    labels = {"app.kubernetes.io/name": "payments-api", "app.kubernetes.io/instance": "payments-api"}
    old = container_spec("payments-api", "ghcr.io/paynorth/payments-api:5.17.2", 8080)
    new = dict(old, image="ghcr.io/paynorth/payments-api:5.18.0-rc.1")
    k.deployment(api, [new], 2, created, rollout, 44, ready=2, labels=labels, updated_replicas=1, annotations={"meta.helm.sh/release-name": "payments-api"})
    k.replicaset(api, new_hash, [new], 1, 0, rollout, 44, labels=labels)
    k.replicaset(api, api.rs_hash, [old], 2, 2, ts("2027-01-05T09:00:00Z"), 43, labels=labels)
    for i, p in enumerate(api.pods):
        k.pod(api, p, [old], nodes[i], ts("2027-01-05T09:00:00Z"), labels=labels)
    ref = "ghcr.io/paynorth/payments-api:5.18.0-rc.1"
    k.pod(api, new_pod, [new], nodes[1], rollout, labels=labels, rs_hash=new_hash, ready=False, phase="Pending",
          state=waiting("ImagePullBackOff", f'Back-off pulling image "{ref}"'))
    k.event(ns, "Pod", new_pod, "Failed", f'Failed to pull image "{ref}": rpc error: code = NotFound desc = failed to pull and unpack image "{ref}": failed to resolve reference "{ref}": {ref}: not found',
            rollout + dt.timedelta(seconds=2), sc.now - dt.timedelta(minutes=2), 9, "Warning", host=nodes[1], field_path="spec.containers{payments-api}")
    k.event(ns, "Pod", new_pod, "Failed", "Error: ImagePullBackOff", rollout + dt.timedelta(seconds=3), sc.now - dt.timedelta(seconds=30), 130, "Warning", host=nodes[1],
            field_path="spec.containers{payments-api}")
    fctr = container_spec("fraud-check", "ghcr.io/paynorth/fraud-check:2.0.0", 8000)
    workload(k, fr, fctr, nodes, created, ts("2027-01-10T09:00:00Z"), 31, labels={"app.kubernetes.io/name": "fraud-check"})
    k.obj("argoproj.io/v1alpha1", "Application", "payments-api", "argocd", created,
          spec={"project": "payments", "source": {"repoURL": "git@github.com:paynorth/deploy.git", "targetRevision": "main", "path": ch,
                                                   "helm": {"valueFiles": ["values.yaml", "values-prod.yaml"]}},
                "destination": {"server": "https://kubernetes.default.svc", "namespace": ns}})

    sc.trigger = {"mention": "payments-api 5.18 rollout hangs since 14:51, argo says progressing. fraud-check throwing KeyErrors too"}
    sc.config = {"repo": "paynorth/deploy", "namespace": ns}
    sc.truth = {"bucket": "infrastructure", "service": "payments-api", "error_type": "config", "file": vp, "line": L,
                "line_tolerance": 1, "fix_keywords": ["tag", "5.18.0-rc1", "image"]}
    return sc
