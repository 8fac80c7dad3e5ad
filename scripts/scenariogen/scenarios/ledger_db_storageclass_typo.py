"""Fintech: a StatefulSet's claim template asks for a StorageClass whose name has a typo (Helm value), the database pod stays Pending."""
import datetime as dt

from sg import *

NAME = "ledger-db-pvc-storageclass-typo-helm"


def build():
    sc = Scenario(NAME, "2026-05-06T14:40:00Z", """
        The 13:58 change moved ledger-db to encrypted gp3 volumes through the chart's production values, but
        wrote persistence.storageClass: gp3-encypted (a typo of gp3-encrypted). The StatefulSet was recreated
        by Argo CD with the new claim template; its claim data-ledger-db-0 stays Pending (ProvisioningFailed:
        storageclass "gp3-encypted" not found), ledger-db-0 cannot be scheduled, and ledger-api's connections
        to the database are refused. fx-rates' provider timeouts are old noise; the docs commit is unrelated.
        The fix is the value in charts/ledger-db/values-prod.yaml, not the template.""", repo="finlane/platform")
    ns = "ledger"
    db = sc.svc("ledger-db", ns, "proxy", pods=["ledger-db-0"])
    api = sc.svc("ledger-api", ns, "go", npods=2)
    fx = sc.svc("fx-rates", ns, "python", npods=1)
    change = sc.at("13:58:20")
    recreated = sc.at("14:03:11")

    ch = "charts/ledger-db"
    sc.file(f"{ch}/Chart.yaml", """
        apiVersion: v2
        name: ledger-db
        version: 3.2.0
        appVersion: "16.2"
        """)
    sc.file(f"{ch}/templates/statefulset.yaml", """
        apiVersion: apps/v1
        kind: StatefulSet
        metadata:
          name: {{ include "ledger-db.fullname" . }}
          labels:
            {{- include "ledger-db.labels" . | nindent 4 }}
        spec:
          serviceName: {{ include "ledger-db.fullname" . }}
          replicas: {{ .Values.replicaCount }}
          selector:
            matchLabels:
              {{- include "ledger-db.selectorLabels" . | nindent 6 }}
          template:
            metadata:
              labels:
                {{- include "ledger-db.selectorLabels" . | nindent 8 }}
            spec:
              containers:
                - name: postgres
                  image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
                  ports:
                    - name: postgres
                      containerPort: 5432
                  resources:
                    {{- toYaml .Values.resources | nindent 12 }}
                  volumeMounts:
                    - name: data
                      mountPath: /var/lib/postgresql/data
          volumeClaimTemplates:
            - metadata:
                name: data
              spec:
                accessModes: ["ReadWriteOnce"]
                storageClassName: {{ .Values.persistence.storageClass | quote }}
                resources:
                  requests:
                    storage: {{ .Values.persistence.size }}
        """)
    sc.file(f"{ch}/values.yaml", """
        replicaCount: 1
        image:
          repository: postgres
          tag: "16.2"
        resources:
          requests:
            cpu: "1"
            memory: 2Gi
        persistence:
          storageClass: gp2
          size: 50Gi
        """)
    vp = f"{ch}/values-prod.yaml"
    sc.file(vp, """
        resources:
          requests:
            cpu: "2"
            memory: 8Gi
          limits:
            memory: 8Gi
        persistence:
          # encrypted at rest (SEC-214)
          storageClass: gp3-encypted
          size: 200Gi
        """)
    sc.file("docs/runbooks/ledger.md", "# Ledger runbook\n\nRestore from the nightly snapshot with `make restore`.\n")
    L = sc.line(vp, "storageClass: gp3-encypted")
    sc.commit("2026-05-06T14:12:09Z", ("Lena Vogt", "lena@finlane.io", "lvogt"), "docs: ledger restore runbook",
              [("docs/runbooks/ledger.md", "# Ledger runbook\n", "# Ledger runbook\n\nRestore from the nightly snapshot with `make restore`.\n")])
    sc.commit(change, ("Omar Haddad", "omar@finlane.io", "ohaddad"), "ledger-db: encrypted gp3 volumes in production (SEC-214)",
              [(vp, "  storageClass: gp2\n  size: 200Gi", "  # encrypted at rest (SEC-214)\n  storageClass: gp3-encypted\n  size: 200Gi")], merged_by_github=True)

    lab = lambda s, pod, lvl: {"service_name": s, "namespace": ns, "pod": pod, "level": lvl}
    t0, t1 = sc.at("13:30"), sc.at("14:39")
    for t in sc.times(t0, recreated, 90):
        sc.log(lab("ledger-api", api.pod(), "info"), t, f'{iso(t, 3)} INFO posting committed entries={sc.rng.randint(1, 40)} ms={sc.rng.randint(3, 60)}')
    for t in sc.times(recreated + dt.timedelta(seconds=5), t1, 160):
        sc.log(lab("ledger-api", api.pod(), "error"), t, f'{iso(t, 3)} ERROR store: failed to connect to `host=ledger-db.ledger.svc user=ledger database=ledger`: dial error (dial tcp 10.96.31.40:5432: connect: connection refused)')
    decoy_errors(sc, fx, t0, t1, 120, ["{t} ERROR fx_rates.provider: ReadTimeout: HTTPSConnectionPool(host='api.rates-provider.example', port=443): Read timed out. (read timeout=2)"], labels=lab)

    k = sc.k8s = K8s(sc)
    nodes = ["ip-10-40-1-11.eu-west-1.compute.internal", "ip-10-40-2-73.eu-west-1.compute.internal"]
    for n in nodes:
        k.node(n, ts("2026-03-01T08:00:00Z"))
    created = ts("2025-06-01T09:00:00Z")
    k.obj("storage.k8s.io/v1", "StorageClass", "gp2", None, created, provisioner="ebs.csi.aws.com", reclaimPolicy="Delete", volumeBindingMode="WaitForFirstConsumer",
          parameters={"type": "gp2"})
    k.obj("storage.k8s.io/v1", "StorageClass", "gp3-encrypted", None, created, annotations={"storageclass.kubernetes.io/is-default-class": "true"},
          provisioner="ebs.csi.aws.com", reclaimPolicy="Retain", volumeBindingMode="WaitForFirstConsumer", parameters={"type": "gp3", "encrypted": "true"})
    labels = {"app.kubernetes.io/name": "ledger-db", "app.kubernetes.io/instance": "ledger-db"}
    pg = container_spec("postgres", "postgres:16.2", 5432, port_name="postgres", requests={"cpu": "2", "memory": "8Gi"}, limits={"memory": "8Gi"},
                        volume_mounts=[{"name": "data", "mountPath": "/var/lib/postgresql/data"}])
    helm = {"meta.helm.sh/release-name": "ledger-db", "meta.helm.sh/release-namespace": ns}
    k.obj("apps/v1", "StatefulSet", "ledger-db", ns, recreated, dict(labels, **{"app.kubernetes.io/managed-by": "Helm"}),
          dict(helm, **{"argocd.argoproj.io/tracking-id": "ledger-db:apps/StatefulSet:ledger/ledger-db"}),
          spec={"serviceName": "ledger-db", "replicas": 1, "selector": {"matchLabels": labels},
                "template": {"metadata": {"labels": labels}, "spec": {"containers": [pg], "serviceAccountName": "default"}},
                "volumeClaimTemplates": [{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data"},
                                          "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "gp3-encypted", "resources": {"requests": {"storage": "200Gi"}}, "volumeMode": "Filesystem"}}]},
          status={"replicas": 1, "readyReplicas": 0, "currentReplicas": 1, "updatedReplicas": 1, "availableReplicas": 0})
    k.obj("v1", "PersistentVolumeClaim", "data-ledger-db-0", ns, recreated, labels,
          spec={"accessModes": ["ReadWriteOnce"], "storageClassName": "gp3-encypted", "resources": {"requests": {"storage": "200Gi"}}, "volumeMode": "Filesystem"},
          status={"phase": "Pending"})
    p = k.pod(db, "ledger-db-0", [pg], nodes[0], recreated, phase="Pending", ready=False, labels=labels,
              state=waiting("ContainerCreating", ""), conditions=[{"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "lastProbeTime": None,
                          "lastTransitionTime": iso(recreated + dt.timedelta(seconds=1)),
                          "message": "0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."}])
    p["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "ledger-db", "uid": sc.uuid(), "controller": True, "blockOwnerDeletion": True}]
    p["metadata"].pop("generateName", None)
    p["spec"].pop("nodeName", None)
    p["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": "data-ledger-db-0"}}]
    p["status"].pop("containerStatuses", None)
    p["status"].pop("podIP", None)
    k.event(ns, "PersistentVolumeClaim", "data-ledger-db-0", "ProvisioningFailed", 'storageclass.storage.k8s.io "gp3-encypted" not found',
            recreated + dt.timedelta(seconds=2), sc.now - dt.timedelta(seconds=30), 143, "Warning", component="persistentvolume-controller")
    k.event(ns, "Pod", "ledger-db-0", "FailedScheduling", "0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
            recreated + dt.timedelta(seconds=1), sc.now - dt.timedelta(minutes=1), 36, "Warning", component="default-scheduler")
    k.service("ledger-db", ns, labels, [("postgres", 5432, 5432)], created, cluster_ip="10.96.31.40")
    actr = container_spec("ledger-api", "ghcr.io/finlane/ledger-api:4.9.2", 8080, requests={"cpu": "250m", "memory": "256Mi"},
                          readiness=http_probe("/healthz", 8080))
    workload(k, api, actr, nodes, created, ts("2026-05-02T10:00:00Z"), 57, labels={"app.kubernetes.io/name": "ledger-api"})
    fctr = container_spec("fx-rates", "ghcr.io/finlane/fx-rates:1.3.0", 8000, requests={"cpu": "100m", "memory": "128Mi"})
    workload(k, fx, fctr, nodes, created, ts("2026-04-20T10:00:00Z"), 12, labels={"app.kubernetes.io/name": "fx-rates"})
    k.obj("argoproj.io/v1alpha1", "Application", "ledger-db", "argocd", created,
          spec={"project": "ledger", "source": {"repoURL": "https://github.com/finlane/platform.git", "targetRevision": "main", "path": ch,
                                                "helm": {"valueFiles": ["values.yaml", "values-prod.yaml"]}},
                "destination": {"server": "https://kubernetes.default.svc", "namespace": ns}},
          status={"sync": {"status": "Synced"}, "health": {"status": "Progressing"},
                  "resources": [{"group": "apps", "version": "v1", "kind": "StatefulSet", "namespace": ns, "name": "ledger-db"}]})

    sc.trigger = {"mention": "ledger-api is down since ~14:05, every posting fails with connection refused to the db. fx-rates is also red, not sure what's going on"}
    sc.config = {"repo": "finlane/platform", "namespace": ns}
    sc.truth = {"bucket": "infrastructure", "service": "ledger-db", "error_type": "config", "file": vp, "line": L,
                "line_tolerance": 1, "fix_keywords": ["storageClass", "gp3-encrypted"]}
    return sc
