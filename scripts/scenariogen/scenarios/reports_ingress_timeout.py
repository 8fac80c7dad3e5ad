"""B2B analytics (Flask): ingress proxy-read-timeout lowered to 15s by a hardening commit -> 504 on long exports while the app returns 200."""
import datetime as dt

from sg import *

NAME = "reporting-api-ingress-read-timeout-504"


def build():
    sc = Scenario(NAME, "2026-11-18T11:05:00Z", """
        The 09:50 \"harden ingress defaults\" commit set nginx.ingress.kubernetes.io/proxy-read-timeout to 15 on the
        reporting ingress (it was 120). Quarterly CSV exports take 20-45 s, so since the 10:02 sync ingress-nginx
        closes them with 504 Gateway Time-out while reporting-api keeps working and logs 200 (its spans are fine,
        gunicorn's own timeout is 120 s). Dashboards (sub-second) are unaffected. Restore a longer read timeout for
        /api/exports (or make exports asynchronous). The warehouse replica lag warnings and the reporting-api pod
        restart during the morning deploy are unrelated.""", repo="metricly/analytics-platform")
    ns = "analytics"
    rep = sc.svc("reporting-api", ns, "python", version="5.0.3", runtime="3.11.8", npods=3)
    synced = sc.at("10:02:15")

    ing = "k8s/reporting/ingress.yaml"
    sc.file(ing, """
        apiVersion: networking.k8s.io/v1
        kind: Ingress
        metadata:
          name: reporting
          namespace: analytics
          annotations:
            cert-manager.io/cluster-issuer: letsencrypt
            nginx.ingress.kubernetes.io/proxy-body-size: 8m
            nginx.ingress.kubernetes.io/proxy-connect-timeout: "5"
            nginx.ingress.kubernetes.io/proxy-read-timeout: "15"
            nginx.ingress.kubernetes.io/proxy-send-timeout: "15"
            nginx.ingress.kubernetes.io/limit-rps: "50"
        spec:
          ingressClassName: nginx
          tls:
            - hosts: [app.metricly.io]
              secretName: reporting-tls
          rules:
            - host: app.metricly.io
              http:
                paths:
                  - path: /api
                    pathType: Prefix
                    backend:
                      service:
                        name: reporting-api
                        port:
                          name: http
        """)
    exp = "services/reporting-api/reporting/exports.py"
    sc.file(exp, """
        import csv
        import io

        from flask import Blueprint, Response, request

        from reporting.warehouse import run_query

        bp = Blueprint("exports", __name__)


        @bp.get("/api/exports/<report_id>.csv")
        def export_csv(report_id: str):
            rows = run_query(report_id, quarter=request.args.get("quarter"))
            buf = io.StringIO()
            w = csv.writer(buf)
            for row in rows:
                w.writerow(row)
            return Response(buf.getvalue(), mimetype="text/csv")
        """)
    sc.file("services/reporting-api/gunicorn.conf.py", """
        bind = "0.0.0.0:8000"
        workers = 4
        threads = 4
        timeout = 120
        """)
    L = sc.line(ing, 'proxy-read-timeout: "15"')
    sc.commit("2026-11-18T09:50:12Z", ("Elif Yildiz", "elif@metricly.io", "eyildiz"),
              """ingress: harden defaults (rate limit, 15s timeouts) (SEC-310)

              Slowloris-style clients kept connections open for minutes.""",
              [(ing, """    nginx.ingress.kubernetes.io/proxy-body-size: 8m
    nginx.ingress.kubernetes.io/proxy-read-timeout: "120\"""", """    nginx.ingress.kubernetes.io/proxy-body-size: 8m
    nginx.ingress.kubernetes.io/proxy-connect-timeout: "5"
    nginx.ingress.kubernetes.io/proxy-read-timeout: "15"
    nginx.ingress.kubernetes.io/proxy-send-timeout: "15"
    nginx.ingress.kubernetes.io/limit-rps: "50\"""")], merged_by_github=True)
    sc.commit("2026-11-18T08:30:40Z", ("Colm Byrne", "colm@metricly.io", "cbyrne"), "reporting-api: 4 threads per worker",
              [("services/reporting-api/gunicorn.conf.py", "threads = 2", "threads = 4")])

    t0, t1 = sc.at("09:30"), sc.at("11:03")
    ilab = {"job": "ingress-nginx/ingress-nginx-controller", "namespace": "ingress-nginx", "pod": "ingress-nginx-controller-5d8c9f7b4-x2mkq"}
    lab = lambda pod, lvl: {"job": f"{ns}/reporting-api", "namespace": ns, "pod": pod, "level": lvl}

    def export(t):
        tr = sc.trace()
        st = us(t)
        p = rep.pod()
        d = sc.rng.randint(19_000_000, 46_000_000)
        rid = sc.rng.choice(["revenue-by-region", "churn-cohorts", "seat-usage", "pipeline-forecast"])
        s = tr.span(rep, "GET /api/exports/<report_id>.csv", st, d, pod=p,
                    tags=http_server("GET", "/api/exports/<report_id>.csv", 200, target=f"/api/exports/{rid}.csv?quarter=2026Q3", host="app.metricly.io",
                                     port=8000, scope="opentelemetry.instrumentation.flask"))
        tr.span(rep, "SELECT analytics", st + 5_000, d - 900_000, parent=s, kind="client",
                tags=db("postgresql", f"SELECT * FROM reports.{rid.replace('-', '_')}(%(quarter)s)", "analytics", "warehouse-replica.analytics.svc", 5432, "SELECT"))
        end = from_us(st + d)
        sc.log(lab(p, "info"), end, f'{sc.pod_ip()} - - [{end.strftime("%d/%b/%Y:%H:%M:%S +0000")}] "GET /api/exports/{rid}.csv?quarter=2026Q3 HTTP/1.1" 200 {sc.rng.randint(10**6, 9 * 10**6)} "-" "Mozilla/5.0" trace_id={tr.id}')
        ip = f"81.{sc.rng.randint(2, 250)}.{sc.rng.randint(2, 250)}.{sc.rng.randint(2, 250)}"
        if t >= synced:
            tt = from_us(st + 15_000_000)
            sc.log({**ilab, "level": "error"}, tt, f'{tt.strftime("%Y/%m/%d %H:%M:%S")} [error] 45#45: *{sc.rng.randint(10**6, 10**7)} upstream timed out (110: Operation timed out) while reading upstream, '
                                                   f'client: {ip}, server: app.metricly.io, request: "GET /api/exports/{rid}.csv?quarter=2026Q3 HTTP/2.0", upstream: "http://{rep.ips[p]}:8000/api/exports/{rid}.csv?quarter=2026Q3", host: "app.metricly.io"')
            sc.log({**ilab, "level": "info"}, tt, f'{ip} - - [{tt.strftime("%d/%b/%Y:%H:%M:%S +0000")}] "GET /api/exports/{rid}.csv?quarter=2026Q3 HTTP/2.0" 504 160 "https://app.metricly.io/reports" "Mozilla/5.0" 52 15.001 [analytics-reporting-api-http] [] {rep.ips[p]}:8000 0 15.001 504 {sc.hex(32)}')
        else:
            sc.log({**ilab, "level": "info"}, end, f'{ip} - - [{end.strftime("%d/%b/%Y:%H:%M:%S +0000")}] "GET /api/exports/{rid}.csv?quarter=2026Q3 HTTP/2.0" 200 {sc.rng.randint(10**6, 9 * 10**6)} "https://app.metricly.io/reports" "Mozilla/5.0" 52 {d / 1e6:.3f} [analytics-reporting-api-http] [] {rep.ips[p]}:8000 {sc.rng.randint(10**6, 9 * 10**6)} {d / 1e6:.3f} 200 {sc.hex(32)}')

    def dash(t):
        tr = sc.trace()
        st = us(t)
        p = rep.pod()
        d = sc.rng.randint(60_000, 600_000)
        s = tr.span(rep, "GET /api/dashboards/<dash_id>", st, d, pod=p, tags=http_server("GET", "/api/dashboards/<dash_id>", 200, host="app.metricly.io",
                                                                                        port=8000, scope="opentelemetry.instrumentation.flask"))
        tr.span(rep, "SELECT analytics", st + 3_000, d - 10_000, parent=s, kind="client",
                tags=db("postgresql", "SELECT * FROM reports.dashboard_tiles(%(dash_id)s)", "analytics", "warehouse-replica.analytics.svc", 5432, "SELECT"))

    for t in sc.times(t0, t1, 14):
        export(t)
    for t in sc.times(t0, t1, 10):
        dash(t)
    for t in sc.times(t0, t1, 180):
        ip = f"81.{sc.rng.randint(2, 250)}.{sc.rng.randint(2, 250)}.{sc.rng.randint(2, 250)}"
        p = rep.pod()
        rt = sc.rng.uniform(0.05, 0.8)
        sc.log({**ilab, "level": "info"}, t, f'{ip} - - [{t.strftime("%d/%b/%Y:%H:%M:%S +0000")}] "GET /api/dashboards/{sc.rng.randint(100, 999)} HTTP/2.0" 200 {sc.rng.randint(2000, 90000)} "https://app.metricly.io/" "Mozilla/5.0" 48 {rt:.3f} [analytics-reporting-api-http] [] {rep.ips[p]}:8000 {sc.rng.randint(2000, 90000)} {rt:.3f} 200 {sc.hex(32)}')
    for t in sc.times(t0, t1, 25):
        sc.log(lab(rep.pod(), "warn"), t, f"{t.strftime('%Y-%m-%d %H:%M:%S,%f')[:-3]} WARNING reporting.warehouse: replica lag {sc.rng.uniform(2, 9):.1f}s above 2s, results may be slightly stale")

    m0, m1 = sc.at("09:20"), sc.at("11:04")
    sc.counter({"__name__": "nginx_ingress_controller_requests", "ingress": "reporting", "exported_namespace": ns, "status": "504", "path": "/api", "job": "ingress-nginx"},
               m0, m1, lambda t: 0.09 if t >= synced else 0, initial=12)
    sc.counter({"__name__": "nginx_ingress_controller_requests", "ingress": "reporting", "exported_namespace": ns, "status": "200", "path": "/api", "job": "ingress-nginx"},
               m0, m1, lambda t: 24, initial=66_201_882)
    sc.gauge({"__name__": "flask_http_request_duration_seconds_p99", "job": "reporting-api", "path": "/api/exports/<report_id>.csv"}, m0, m1,
             lambda t: sc.rng.uniform(38, 46))
    sc.gauge({"__name__": "pg_replication_lag_seconds", "job": "postgres-exporter", "instance": "warehouse-replica-0"}, m0, m1, lambda t: sc.rng.uniform(0.5, 9))

    sc.trigger = {"mention": "customers say CSV exports fail with 504 since this morning (dashboards fine). reporting-api logs show 200s?? confused"}
    sc.config = {"repo": "metricly/analytics-platform", "log_service_label": "job", "service_name": "reporting-api"}
    sc.truth = {"bucket": "infrastructure", "service": "reporting-api", "error_type": "timeout", "file": ing, "line": L,
                "line_tolerance": 2, "fix_keywords": ["proxy-read-timeout", "timeout", "ingress", "async"]}
    return sc
