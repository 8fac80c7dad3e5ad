"""Media: the autoscaler targets CPU utilization, but the chart's production values set resources: {} (no requests): it never scales and the pods saturate."""
import datetime as dt

from sg import *

NAME = "media-api-hpa-cannot-scale-without-requests"


def build():
    sc = Scenario(NAME, "2026-07-18T19:45:00Z", """
        media-api's chart enables a HorizontalPodAutoscaler on 70% CPU in production, but the chart's resources
        default to {} and the right-sizing of last week removed the production requests, so the containers request
        no CPU and the autoscaler cannot compute utilization (FailedGetResourceMetric: missing request for cpu).
        When the evening traffic arrived at 19:05 it stayed at 2 replicas, the pods saturated and requests time out
        at the gateway (504). The fix adds CPU requests under resources in charts/media-api/values.yaml (or the
        production override). The thumbnailer's decode errors and the player commit are unrelated.""", repo="streamly/infra")
    ns = "media"
    api = sc.svc("media-api", ns, "nodejs", npods=2)
    gw = sc.svc("edge-gateway", ns, "proxy", npods=1)
    th = sc.svc("thumbnailer", ns, "python", npods=1)
    peak = sc.at("19:05")

    ch = "charts/media-api"
    sc.file(f"{ch}/Chart.yaml", "apiVersion: v2\nname: media-api\nversion: 2.4.0\n")
    sc.file(f"{ch}/templates/deployment.yaml", """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: {{ include "media-api.fullname" . }}
        spec:
          {{- if not .Values.autoscaling.enabled }}
          replicas: {{ .Values.replicaCount }}
          {{- end }}
          template:
            spec:
              containers:
                - name: {{ .Chart.Name }}
                  image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
                  ports:
                    - name: http
                      containerPort: 3000
                  resources:
                    {{- toYaml .Values.resources | nindent 12 }}
        """)
    sc.file(f"{ch}/templates/hpa.yaml", """
        {{- if .Values.autoscaling.enabled }}
        apiVersion: autoscaling/v2
        kind: HorizontalPodAutoscaler
        metadata:
          name: {{ include "media-api.fullname" . }}
        spec:
          scaleTargetRef:
            apiVersion: apps/v1
            kind: Deployment
            name: {{ include "media-api.fullname" . }}
          minReplicas: {{ .Values.autoscaling.minReplicas }}
          maxReplicas: {{ .Values.autoscaling.maxReplicas }}
          metrics:
            - type: Resource
              resource:
                name: cpu
                target:
                  type: Utilization
                  averageUtilization: {{ .Values.autoscaling.targetCPUUtilizationPercentage }}
        {{- end }}
        """)
    sc.file(f"{ch}/values.yaml", """
        replicaCount: 2
        image:
          repository: ghcr.io/streamly/media-api
          tag: 9.1.0
        resources: {}
        autoscaling:
          enabled: false
          minReplicas: 2
          maxReplicas: 10
          targetCPUUtilizationPercentage: 70
        """)
    vp = f"{ch}/values-prod.yaml"
    vb = f"{ch}/values.yaml"
    sc.file(vp, """
        image:
          tag: 9.4.2
        # right-sized 2026-07-10: requests removed, the nodes are shared with batch (OPS-552)
        autoscaling:
          enabled: true
          minReplicas: 2
          maxReplicas: 12
        """)
    sc.file("apps/player/src/buffer.ts", "export const BUFFER_SECONDS = 12;\n")
    L = sc.line(vb, "resources: {}")
    sc.commit("2026-07-18T18:40:12Z", ("Ana Ruiz", "ana@streamly.tv", "aruiz"), "player: buffer 12s ahead", [("apps/player/src/buffer.ts", "export const BUFFER_SECONDS = 8;\n", "export const BUFFER_SECONDS = 12;\n")],
              merged_by_github=True)

    lab = lambda s, pod, lvl: {"service_name": s, "namespace": ns, "pod": pod, "level": lvl}
    t0, t1 = sc.at("18:40"), sc.at("19:44")
    for t in sc.times(t0, t1, 200):
        slow = t >= peak
        ms = sc.rng.randint(2500, 9000) if slow and sc.rng.random() < 0.6 else sc.rng.randint(40, 300)
        sc.log(lab("media-api", api.pod(), "warn" if ms > 2000 else "info"), t, json.dumps({"level": "warn" if ms > 2000 else "info", "time": iso(t, 3),
               "msg": "slow request" if ms > 2000 else "request", "route": "/v1/titles/:id/manifest", "ms": ms}))
    for t in sc.times(peak + dt.timedelta(minutes=2), t1, 150):
        sc.log(lab("edge-gateway", gw.pods[0], "error"), t, f'{t.strftime("%Y/%m/%d %H:%M:%S")} [error] 31#31: *{sc.rng.randint(10**5, 10**7)} upstream timed out (110: Operation timed out) while reading response header from upstream, client: 10.2.{sc.rng.randint(1, 9)}.{sc.rng.randint(2, 250)}, server: api.streamly.tv, request: "GET /v1/titles/{sc.rng.randint(1000, 9999)}/manifest HTTP/1.1", upstream: "http://10.96.77.31:3000/v1/titles/x/manifest"')
    decoy_errors(sc, th, t0, t1, 180, ["{t} ERROR thumbnailer.worker: frame decode failed: av_read_frame: Invalid data found when processing input (title=tt" + "%d)" % 5512], labels=lab)

    k = sc.k8s = K8s(sc)
    nodes = ["aks-media-31415926-vmss000004", "aks-media-31415926-vmss000007"]
    created = ts("2025-09-01T09:00:00Z")
    labels = {"app.kubernetes.io/name": "media-api", "app.kubernetes.io/instance": "media-api"}
    ctr = container_spec("media-api", "ghcr.io/streamly/media-api:9.4.2", 3000, readiness=http_probe("/ready", 3000, 5))
    workload(k, api, ctr, nodes, created, ts("2026-07-10T09:00:00Z"), 64, labels=labels)
    k.obj("autoscaling/v2", "HorizontalPodAutoscaler", "media-api", ns, created, labels,
          spec={"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "media-api"}, "minReplicas": 2, "maxReplicas": 12,
                "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}}]},
          status={"currentReplicas": 2, "desiredReplicas": 2, "currentMetrics": [{"type": ""}],
                  "conditions": [{"type": "AbleToScale", "status": "True", "reason": "SucceededGetScale", "message": "the HPA controller was able to get the target's current scale", "lastTransitionTime": iso(created)},
                                 {"type": "ScalingActive", "status": "False", "reason": "FailedGetResourceMetric", "lastTransitionTime": iso(ts("2026-07-10T09:02:00Z")),
                                  "message": "the HPA was unable to compute the replica count: failed to get cpu utilization: missing request for cpu in container media-api of Pod " + api.pods[0]}]})
    k.event(ns, "HorizontalPodAutoscaler", "media-api", "FailedGetResourceMetric", f"failed to get cpu utilization: missing request for cpu in container media-api of Pod {api.pods[0]}",
            ts("2026-07-10T09:02:00Z"), sc.now - dt.timedelta(seconds=15), 2890, "Warning", component="horizontal-pod-autoscaler", api_version="autoscaling/v2")
    k.event(ns, "HorizontalPodAutoscaler", "media-api", "FailedComputeMetricsReplicas", "invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: failed to get cpu utilization: missing request for cpu in container media-api of Pod " + api.pods[1],
            ts("2026-07-10T09:02:00Z"), sc.now - dt.timedelta(seconds=15), 2890, "Warning", component="horizontal-pod-autoscaler", api_version="autoscaling/v2")
    k.service("media-api", ns, labels, [("http", 3000, "http")], created, cluster_ip="10.96.77.31")
    gctr = container_spec("edge-gateway", "nginx:1.27.0", 8080)
    workload(k, gw, gctr, nodes, created, ts("2026-06-01T09:00:00Z"), 9, labels={"app.kubernetes.io/name": "edge-gateway"})
    tctr = container_spec("thumbnailer", "ghcr.io/streamly/thumbnailer:3.0.4", None, requests={"cpu": "1", "memory": "1Gi"})
    workload(k, th, tctr, nodes, created, ts("2026-07-01T09:00:00Z"), 22, labels={"app.kubernetes.io/name": "thumbnailer"})
    cpu = lambda t: 1.0 if t >= peak else 0.35
    for p in api.pods:
        sc.counter({"__name__": "container_cpu_usage_seconds_total", "namespace": ns, "pod": p, "container": "media-api"}, t0, t1, cpu, integer=False)

    sc.trigger = {"mention": "media api p99 through the roof since the evening peak (~19:05), gateway 504s. hpa didn't scale?? thumbnailer errors too"}
    sc.config = {"repo": "streamly/infra", "namespace": ns}
    sc.truth = {"bucket": "infrastructure", "service": "media-api", "error_type": "config", "file": vb, "line": L,
                "line_tolerance": 1, "fix_keywords": ["requests", "cpu", "resources"]}
    return sc
