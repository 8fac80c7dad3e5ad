"""Analytics: report-scheduler 3.0 watches pods through an informer (list + watch) but its Role allows get and watch only."""
import datetime as dt

from sg import *

NAME = "report-scheduler-rbac-missing-list-verb"


def build():
    sc = Scenario(NAME, "2026-04-14T10:30:00Z", """
        report-scheduler 3.0.0 (rolled out at 09:38) replaced its per-pod GETs with a shared informer, which
        lists and watches pods. Its Role in k8s/report-scheduler/rbac.yaml still grants only get and watch on
        pods, so every list is refused (client-go logs "pods is forbidden ... cannot list resource pods" as
        warnings and retries); the informer never syncs and no report job is dispatched. The pods are Running
        and Ready. catalog-api's NullPointerExceptions (a bad product record since 09:50) are louder but
        unrelated, as is the dashboard commit. The fix adds list to the Role's verbs.""", repo="acme-analytics/platform")
    ns = "analytics"
    rs = sc.svc("report-scheduler", ns, "go", version="3.0.0", npods=1)
    cat = sc.svc("catalog-api", ns, "java", npods=2)
    dash = sc.svc("dashboard", ns, "nodejs", npods=1)
    rollout = sc.at("09:38:12")

    rb = "k8s/report-scheduler/rbac.yaml"
    sc.file(rb, """
        apiVersion: v1
        kind: ServiceAccount
        metadata:
          name: report-scheduler
          namespace: analytics
        ---
        apiVersion: rbac.authorization.k8s.io/v1
        kind: Role
        metadata:
          name: report-scheduler
          namespace: analytics
        rules:
          - apiGroups: [""]
            resources: ["pods"]
            verbs: ["get", "watch"]
          - apiGroups: ["batch"]
            resources: ["jobs"]
            verbs: ["get", "list", "watch", "create", "delete"]
        ---
        apiVersion: rbac.authorization.k8s.io/v1
        kind: RoleBinding
        metadata:
          name: report-scheduler
          namespace: analytics
        roleRef:
          apiGroup: rbac.authorization.k8s.io
          kind: Role
          name: report-scheduler
        subjects:
          - kind: ServiceAccount
            name: report-scheduler
            namespace: analytics
        """)
    dp = "k8s/report-scheduler/deployment.yaml"
    sc.file(dp, """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: report-scheduler
          namespace: analytics
        spec:
          replicas: 1
          selector:
            matchLabels:
              app.kubernetes.io/name: report-scheduler
          template:
            metadata:
              labels:
                app.kubernetes.io/name: report-scheduler
            spec:
              serviceAccountName: report-scheduler
              containers:
                - name: report-scheduler
                  image: ghcr.io/acme-analytics/report-scheduler:3.0.0
                  ports:
                    - name: metrics
                      containerPort: 9090
                  resources:
                    requests:
                      cpu: 100m
                      memory: 128Mi
        """)
    sc.file("k8s/dashboard/deployment.yaml", """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: dashboard
          namespace: analytics
        spec:
          replicas: 1
          template:
            spec:
              containers:
                - name: dashboard
                  image: ghcr.io/acme-analytics/dashboard:5.2.1
        """)
    sc.file("services/dashboard/src/theme.js", """
        module.exports = { palette: ['#0b3954', '#087e8b', '#bfd7ea', '#ff5a5f'], radius: 6 };
        """)
    sc.file("services/report-scheduler/internal/watch/pods.go", """
        package watch

        import (
        	"k8s.io/client-go/informers"
        	"k8s.io/client-go/kubernetes"
        )

        // Start runs a shared informer over the namespace's pods.
        func Start(cs kubernetes.Interface, ns string, stop <-chan struct{}) informers.SharedInformerFactory {
        	f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
        	f.Core().V1().Pods().Informer()
        	f.Start(stop)
        	return f
        }
        """)
    L = sc.line(rb, 'verbs: ["get", "watch"]')
    sc.commit("2026-04-14T09:52:40Z", ("Ines Duarte", "ines@acme-analytics.io", "iduarte"), "dashboard: new colour palette (#812)",
              [("services/dashboard/src/theme.js", "module.exports = { palette: ['#1d3557', '#457b9d', '#a8dadc', '#e63946'], radius: 4 };",
                "module.exports = { palette: ['#0b3954', '#087e8b', '#bfd7ea', '#ff5a5f'], radius: 6 };")], merged_by_github=True)
    sc.commit("2026-04-14T09:31:05Z", ("Tom Becker", "tom@acme-analytics.io", "tbecker"), "report-scheduler 3.0.0: watch pods with a shared informer instead of polling",
              [(dp, "          image: ghcr.io/acme-analytics/report-scheduler:2.7.4", "          image: ghcr.io/acme-analytics/report-scheduler:3.0.0"),
               ("services/report-scheduler/internal/watch/pods.go", None, None)], merged_by_github=True)

    lab = lambda s, pod, lvl: {"service_name": s, "namespace": ns, "pod": pod, "level": lvl}
    t0, t1 = sc.at("09:20"), sc.at("10:29")
    p = rs.pods[0]
    for t in sc.times(t0, rollout, 25):
        sc.log(lab("report-scheduler", p, "info"), t, f'I{t.strftime("%m%d %H:%M:%S.%f")}       1 dispatch.go:88] dispatched report job tenant={sc.rng.randint(100, 999)} kind=monthly')
    for t in sc.times(rollout + dt.timedelta(seconds=20), t1, 70):
        sc.log(lab("report-scheduler", p, "warning"), t,
               f'W{t.strftime("%m%d %H:%M:%S.%f")}       1 reflector.go:561] k8s.io/client-go/informers/factory.go:160: failed to list *v1.Pod: pods is forbidden: User "system:serviceaccount:analytics:report-scheduler" cannot list resource "pods" in API group "" in the namespace "analytics"')
    for t in sc.times(rollout + dt.timedelta(seconds=40), t1, 20):
        sc.log(lab("report-scheduler", p, "info"), t, f'I{t.strftime("%m%d %H:%M:%S.%f")}       1 scheduler.go:54] waiting for informer caches to sync')
    npe = ["{t} ERROR 1 --- [catalog-api] [nio-8080-exec-4] c.a.catalog.web.ProductController : request failed\njava.lang.NullPointerException: Cannot invoke \"java.math.BigDecimal.scale()\" because \"price\" is null\n\tat com.acmeanalytics.catalog.pricing.PriceFormatter.format(PriceFormatter.java:41)\n\tat com.acmeanalytics.catalog.web.ProductController.get(ProductController.java:77)"]
    decoy_errors(sc, cat, sc.at("09:50"), t1, 240, npe, labels=lab)
    for t in sc.times(t0, t1, 60):
        sc.log(lab("dashboard", dash.pods[0], "info"), t, json.dumps({"level": "info", "msg": "rendered", "ms": sc.rng.randint(20, 300), "time": iso(t, 3)}))

    k = sc.k8s = K8s(sc)
    nodes = ["ip-10-8-1-21.eu-central-1.compute.internal", "ip-10-8-2-57.eu-central-1.compute.internal"]
    ctr = container_spec("report-scheduler", "ghcr.io/acme-analytics/report-scheduler:3.0.0", 9090, port_name="metrics",
                         requests={"cpu": "100m", "memory": "128Mi"})
    workload(k, rs, ctr, nodes, ts("2025-01-10T08:00:00Z"), rollout, 31, labels={"app.kubernetes.io/name": "report-scheduler"})
    cctr = container_spec("catalog-api", "ghcr.io/acme-analytics/catalog-api:8.4.0", 8080, requests={"cpu": "500m", "memory": "1Gi"},
                          limits={"memory": "1Gi"}, readiness=http_probe("/actuator/health/readiness", 8080))
    workload(k, cat, cctr, nodes, ts("2025-01-10T08:00:00Z"), ts("2026-04-10T08:00:00Z"), 88, labels={"app.kubernetes.io/name": "catalog-api"})
    dctr = container_spec("dashboard", "ghcr.io/acme-analytics/dashboard:5.2.1", 3000)
    workload(k, dash, dctr, nodes, ts("2025-01-10T08:00:00Z"), sc.at("09:55"), 140, labels={"app.kubernetes.io/name": "dashboard"})
    created = ts("2025-01-10T08:00:00Z")
    track = lambda kind, n: {"argocd.argoproj.io/tracking-id": f"analytics:{kind}:{ns}/{n}"}
    k.obj("v1", "ServiceAccount", "report-scheduler", ns, created, annotations=track("/ServiceAccount", "report-scheduler"))
    k.obj("rbac.authorization.k8s.io/v1", "Role", "report-scheduler", ns, created, annotations=track("rbac.authorization.k8s.io/Role", "report-scheduler"),
          rules=[{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "watch"]},
                 {"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["get", "list", "watch", "create", "delete"]}])
    k.obj("rbac.authorization.k8s.io/v1", "RoleBinding", "report-scheduler", ns, created, annotations=track("rbac.authorization.k8s.io/RoleBinding", "report-scheduler"),
          roleRef={"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "report-scheduler"},
          subjects=[{"kind": "ServiceAccount", "name": "report-scheduler", "namespace": ns}])
    k.obj("argoproj.io/v1alpha1", "Application", "analytics", "argocd", created,
          spec={"project": "default", "source": {"repoURL": "https://github.com/acme-analytics/platform.git", "targetRevision": "main", "path": "k8s"},
                "destination": {"server": "https://kubernetes.default.svc", "namespace": ns}, "syncPolicy": {"automated": {"prune": True}}},
          status={"sync": {"status": "Synced"}, "health": {"status": "Healthy"}})

    sc.trigger = {"mention": "monthly reports stopped going out since ~09:40. report-scheduler pod is green, catalog is throwing a lot too, related?"}
    sc.config = {"repo": "acme-analytics/platform", "namespace": ns}
    sc.truth = {"bucket": "infrastructure", "service": "report-scheduler", "error_type": "config", "file": rb, "line": L,
                "line_tolerance": 2, "fix_keywords": ["list", "verbs", "Role"]}
    return sc
