"""Insurance quoting: Helm values lowered the memory limit below the JVM's max heap -> OOMKilled."""
import datetime as dt

from sg import *

NAME = "quote-engine-oomkilled-helm-limit"


def build():
    sc = Scenario(NAME, "2026-04-07T15:10:00Z", """
        The 11:20 right-sizing commit lowered quote-engine's memory limit in charts/quote-engine/values-prod.yaml
        from 1536Mi to 768Mi, but the same values still start the JVM with -Xmx1g (plus metaspace, threads and
        direct buffers): once afternoon traffic fills the rating cache the heap grows past the cgroup limit and
        the kernel OOM-kills the container (exit 137), every pod restarts several times an hour and broker-portal
        gets envoy \"upstream connect error\" 503s. Raise the limit (or lower -Xmx / use MaxRAMPercentage); it is
        not a leak: heap after GC is flat. The rating-tables commit and the broker-portal pod restart are noise.""",
                  repo="aster-insurance/quoting")
    ns = "quoting"
    qe = sc.svc("quote-engine", ns, "java", version="6.3.1", runtime="17.0.10+7", npods=3)
    portal = sc.svc("broker-portal", ns, "nodejs", npods=2)
    rollout = sc.at("12:02:10")

    vals = "charts/quote-engine/values-prod.yaml"
    sc.file(vals, """
        # Production overrides for the quote-engine chart.
        replicaCount: 3

        image:
          repository: asteracr.azurecr.io/quoting/quote-engine
          tag: "6.3.1"

        javaOpts: "-Xms512m -Xmx1g -XX:+UseG1GC -XX:MaxGCPauseMillis=200 -XX:+ExitOnOutOfMemoryError"

        ratingCache:
          maxEntries: 400000
          ttl: 30m

        resources:
          requests:
            cpu: "1"
            memory: 768Mi
          limits:
            cpu: "2"
            memory: 768Mi

        autoscaling:
          enabled: false

        podDisruptionBudget:
          minAvailable: 2
        """)
    sc.file("charts/quote-engine/templates/deployment.yaml", """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: {{ include "quote-engine.fullname" . }}
          labels:
            {{- include "quote-engine.labels" . | nindent 4 }}
        spec:
          replicas: {{ .Values.replicaCount }}
          selector:
            matchLabels:
              {{- include "quote-engine.selectorLabels" . | nindent 6 }}
          template:
            metadata:
              labels:
                {{- include "quote-engine.selectorLabels" . | nindent 8 }}
            spec:
              containers:
                - name: quote-engine
                  image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
                  env:
                    - name: JAVA_TOOL_OPTIONS
                      value: {{ .Values.javaOpts | quote }}
                    - name: RATING_CACHE_MAX_ENTRIES
                      value: {{ .Values.ratingCache.maxEntries | quote }}
                  ports:
                    - name: http
                      containerPort: 8080
                  resources:
                    {{- toYaml .Values.resources | nindent 12 }}
                  readinessProbe:
                    httpGet:
                      path: /actuator/health/readiness
                      port: http
                    periodSeconds: 5
        """)
    rt = "quote-engine/src/main/resources/rating/motor-2026Q2.csv"
    sc.file(rt, """
        band,min_age,max_age,base_factor
        A,17,20,2.35
        B,21,24,1.80
        C,25,29,1.25
        D,30,64,1.00
        E,65,74,1.12
        F,75,120,1.41
        """)
    L = sc.line(vals, "memory: 768Mi", nth=2)
    sc.commit("2026-04-07T13:44:05Z", ("Priyanka Das", "priyanka.das@aster-insurance.com", "pdas-aster"),
              "rating: motor tables for 2026Q2", [(rt, "D,30,64,0.98", "D,30,64,1.00"), (rt, "A,17,20,2.30", "A,17,20,2.35")])
    sc.commit("2026-04-07T11:20:48Z", ("Gareth Evans", "gareth.evans@aster-insurance.com", "gevans"),
              """quote-engine: right-size memory after the FinOps review

              p50 working set is ~610Mi; set request=limit=768Mi so the pods pack
              better on the new D4s nodes.""",
              [(vals, """  requests:
    cpu: "1"
    memory: 1Gi
  limits:
    cpu: "2"
    memory: 1536Mi""", """  requests:
    cpu: "1"
    memory: 768Mi
  limits:
    cpu: "2"
    memory: 768Mi""")], merged_by_github=True)

    t0, t1 = sc.at("11:50"), sc.at("15:08")
    # OOM kill schedule per pod (traffic ramps after lunch)
    kills = {p: [] for p in qe.pods}
    for i, p in enumerate(qe.pods):
        t = sc.at("13:05") + dt.timedelta(minutes=7 * i)
        while t < sc.at("15:02"):
            kills[p].append(t)
            t += dt.timedelta(minutes=sc.rng.randint(14, 26))
    if kills[qe.pods[0]][-1] < sc.at("15:00"):
        kills[qe.pods[0]].append(sc.at("15:06:40"))
    lab = lambda s, pod, lvl: {"service_name": s, "namespace": ns, "pod": pod, "level": lvl}
    for p in qe.pods:
        starts = [rollout + dt.timedelta(seconds=sc.rng.randint(0, 60))] + [k + dt.timedelta(seconds=sc.rng.randint(12, 40)) for k in kills[p]]
        for st in starts:
            for off, lvl, lg, msg in [
                (0, "INFO", "c.a.q.QuoteEngineApplication", "Starting QuoteEngineApplication v6.3.1 using Java 17.0.10 with PID 1"),
                (1, "INFO", "c.a.q.rating.RatingTables", "loaded 14 rating tables (motor-2026Q2, home-2026Q1, ...)"),
                (9, "INFO", "o.s.b.w.embedded.tomcat.TomcatWebServer", "Tomcat started on port 8080 (http) with context path '/'"),
                (10, "INFO", "c.a.q.QuoteEngineApplication", "Started QuoteEngineApplication in 10.114 seconds (process running for 11.02)")]:
                t = st + dt.timedelta(seconds=off)
                if t < sc.now:
                    sc.log(lab("quote-engine", p, lvl.lower()), t, java_log_spring(t, lvl, "quote-engine", "main", lg, msg))
    for t in sc.times(t0, t1, 160):
        p = qe.pod()
        sc.log(lab("quote-engine", p, "info"), t, java_log_spring(t, "INFO", "quote-engine", f"http-nio-8080-exec-{sc.rng.randint(1, 50)}",
                                                                   "c.a.q.api.QuoteController", f"quote issued product=motor ref=Q-{sc.rng.randint(10**7, 10**8)} premium={sc.rng.randint(280, 1900)}.00 GBP"))
    for t in sc.times(t0, t1, 30):
        p = qe.pod()
        sc.log(lab("quote-engine", p, "warn"), t, java_log_spring(t, "WARN", "quote-engine", f"http-nio-8080-exec-{sc.rng.randint(1, 50)}",
                                                                   "c.a.q.rating.VehicleLookup", "DVLA lookup slow (1.8s), using cached vehicle record"))
    for p, ks in kills.items():
        for k_ in ks:
            for j in range(sc.rng.randint(3, 7)):
                t = k_ + dt.timedelta(seconds=sc.rng.uniform(0.2, 25))
                pp = portal.pod()
                sc.log(lab("broker-portal", pp, "error"), t, json.dumps({
                    "level": "error", "time": iso(t, 3), "msg": "quote request failed", "upstream": "quote-engine",
                    "status": 503, "body": "upstream connect error or disconnect/reset before headers. reset reason: connection termination",
                    "route": "/api/quotes/motor"}))
    for t in sc.times(t0, t1, 40):
        sc.log(lab("broker-portal", portal.pod(), "info"), t, json.dumps({"level": "info", "time": iso(t, 3), "msg": "request completed",
                                                                          "route": "/api/quotes/motor", "status": 200, "ms": sc.rng.randint(80, 400)}))

    m0, m1 = sc.at("11:40"), sc.at("15:09")
    for p in qe.pods:
        ks = kills[p]

        def mem(t, ks=ks):
            prev = max([rollout] + [k_ for k_ in ks if k_ <= t])
            age = (t - prev).total_seconds() / 60
            load = 0.6 if t < sc.at("13:00") else 1.0
            return min(805_306_368 * 0.999, 430e6 + age * 24e6 * load + sc.rng.uniform(0, 1.5e7))
        sc.gauge({"__name__": "container_memory_working_set_bytes", "namespace": ns, "pod": p, "container": "quote-engine",
                  "job": "kubelet", "metrics_path": "/metrics/cadvisor"}, rollout + dt.timedelta(minutes=1), m1, mem)
        sc.gauge({"__name__": "kube_pod_container_resource_limits", "namespace": ns, "pod": p, "container": "quote-engine",
                  "resource": "memory", "unit": "byte", "job": "kube-state-metrics"}, rollout + dt.timedelta(minutes=1), m1, lambda t: 805306368)
        sc.gauge({"__name__": "kube_pod_container_status_restarts_total", "namespace": ns, "pod": p, "container": "quote-engine",
                  "job": "kube-state-metrics"}, rollout + dt.timedelta(minutes=1), m1, lambda t, ks=ks: sum(1 for k_ in ks if k_ <= t))
        sc.gauge({"__name__": "jvm_memory_used_bytes", "namespace": ns, "pod": p, "area": "heap", "id": "G1 Old Gen", "job": "quote-engine"},
                 rollout + dt.timedelta(minutes=1), m1, lambda t: sc.rng.uniform(2.2e8, 3.1e8))
    sc.counter({"__name__": "envoy_cluster_upstream_rq_xx", "envoy_cluster_name": "quote-engine", "envoy_response_code_class": "5", "job": "broker-portal-envoy"},
               m0, m1, lambda t: 0.9 if t >= sc.at("13:05") else 0.01, initial=2_118)

    k = sc.k8s = K8s(sc)
    nodes = ["aks-d4sv5-19283746-vmss000004", "aks-d4sv5-19283746-vmss000005", "aks-d4sv5-19283746-vmss000007"]
    ctr = container_spec("quote-engine", "asteracr.azurecr.io/quoting/quote-engine:6.3.1", 8080,
                         env={"JAVA_TOOL_OPTIONS": "-Xms512m -Xmx1g -XX:+UseG1GC -XX:MaxGCPauseMillis=200 -XX:+ExitOnOutOfMemoryError",
                              "RATING_CACHE_MAX_ENTRIES": "400000"},
                         requests={"cpu": "1", "memory": "768Mi"}, limits={"cpu": "2", "memory": "768Mi"},
                         readiness={"httpGet": {"path": "/actuator/health/readiness", "port": "http", "scheme": "HTTP"}, "periodSeconds": 5,
                                    "timeoutSeconds": 1, "successThreshold": 1, "failureThreshold": 3})
    states = {}
    for i, p in enumerate(qe.pods):
        ks = kills[p]
        last_k = ks[-1]
        back = last_k + dt.timedelta(seconds=30)
        if i == 0 and sc.now - last_k < dt.timedelta(minutes=6):
            st = waiting("CrashLoopBackOff", f"back-off 2m40s restarting failed container=quote-engine pod={p}_{ns}({sc.uuid()})")
            ready = False
        else:
            st, ready = running(back), True
        states[i] = {"state": st, "ready": ready, "restarts": len(ks),
                     "last": terminated("OOMKilled", 137, (ks[-2] if len(ks) > 1 else rollout) + dt.timedelta(seconds=30), last_k, sc)}
    workload(k, qe, ctr, nodes, ts("2024-08-01T09:00:00Z"), rollout, 47,
             labels={"app.kubernetes.io/name": "quote-engine", "app.kubernetes.io/instance": "quote-engine", "helm.sh/chart": "quote-engine-3.4.0"},
             pod_states=states, qos="Guaranteed")
    for i, p in enumerate(qe.pods):
        k.event(ns, "Pod", p, "BackOff", f"Back-off restarting failed container quote-engine in pod {p}_{ns}", kills[p][0],
                kills[p][-1] + dt.timedelta(seconds=20), len(kills[p]) * 3, "Warning", host=nodes[i], field_path="spec.containers{quote-engine}")
        k.event(ns, "Pod", p, "Pulled", 'Container image "asteracr.azurecr.io/quoting/quote-engine:6.3.1" already present on machine',
                kills[p][0] + dt.timedelta(seconds=10), kills[p][-1] + dt.timedelta(seconds=10), len(kills[p]), host=nodes[i],
                field_path="spec.containers{quote-engine}")
    k.event(ns, "Node", nodes[1], "SystemOOM", f"System OOM encountered, victim process: java, pid: {sc.rng.randint(10000, 99999)}",
            kills[qe.pods[1]][0], kills[qe.pods[1]][-1], len(kills[qe.pods[1]]), "Warning", host=nodes[1])
    pctr = container_spec("broker-portal", "asteracr.azurecr.io/quoting/broker-portal:9.0.4", 3000, requests={"cpu": "200m", "memory": "256Mi"},
                          limits={"memory": "512Mi"})
    workload(k, portal, pctr, nodes[:2], ts("2024-08-01T09:00:00Z"), ts("2026-04-02T10:00:00Z"), 203, labels={"app.kubernetes.io/name": "broker-portal"},
             pod_states={0: {"restarts": 1, "state": running(sc.at("06:02:11")),
                             "last": terminated("Error", 1, ts("2026-04-02T10:00:20Z"), sc.at("06:02:00"), sc,
                                                message="Error: connect ECONNREFUSED 10.0.14.3:6379")}})
    a1 = alert(sc, {"alertname": "KubePodCrashLooping", "container": "quote-engine", "namespace": ns, "pod": qe.pods[0],
                    "job": "kube-state-metrics", "reason": "CrashLoopBackOff", "severity": "warning"},
               {"summary": "Pod is crash looping.", "description": f'Pod {ns}/{qe.pods[0]} (quote-engine) is in waiting state (reason: "CrashLoopBackOff").',
                "runbook_url": "https://runbooks.prometheus-operator.dev/runbooks/kubernetes/kubepodcrashlooping"},
               sc.at("15:07:30"), 'max_over_time(kube_pod_container_status_waiting_reason{job="kube-state-metrics",reason="CrashLoopBackOff"}[5m]) >= 1')
    a2 = alert(sc, {"alertname": "KubeContainerOOMKilled", "container": "quote-engine", "namespace": ns, "pod": qe.pods[1],
                    "job": "kube-state-metrics", "severity": "warning"},
               {"summary": "Container was OOM killed.", "description": f"Container quote-engine in pod {ns}/{qe.pods[1]} has been OOMKilled {len(kills[qe.pods[1]])} times in the last 2 hours."},
               sc.at("13:13:00"), '(kube_pod_container_status_restarts_total - kube_pod_container_status_restarts_total offset 10m >= 1) and ignoring (reason) min_over_time(kube_pod_container_status_last_terminated_reason{reason="OOMKilled"}[10m]) == 1')
    sc.trigger = {"alert": webhook([a1, a2], ["namespace"], "autoheal", "https://alertmanager.aster-insurance.com",
                                   route_key='{}/{severity="warning"}')}
    sc.config = {"repo": "aster-insurance/quoting", "service_name": "quote-engine"}
    sc.truth = {"bucket": "infrastructure", "service": "quote-engine", "error_type": "oom", "file": vals, "line": L,
                "line_tolerance": 3, "fix_keywords": ["memory", "limit", "768Mi", "Xmx", "MaxRAMPercentage"]}
    return sc
