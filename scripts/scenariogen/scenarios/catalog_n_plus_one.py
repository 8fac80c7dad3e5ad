"""Handmade-goods marketplace (Django): select_related dropped in a refactor -> N+1 queries, DB CPU alert, ingress 504s."""
import datetime as dt

from sg import *

NAME = "catalog-web-n-plus-one-timeouts"


def build():
    sc = Scenario(NAME, "2026-05-29T18:50:00Z", """
        The 16:55 refactor of catalog-web's CategoryListView replaced the queryset built with
        select_related(\"seller\", \"category\").prefetch_related(\"images\") by a plain Product.objects.filter(...);
        the template still renders product.seller.shop_name and product.images.first, so every category page runs
        ~2 queries per product (97 for a 48-item page) instead of 3. Under the evening peak the Postgres primary
        runs at 95% CPU, category pages take 6-12 s and ingress-nginx returns 504 after its 10 s read timeout. The
        loudest alert is the database CPU, but the database is a victim. search-indexer's bulk warnings and the
        pgbouncer pod restart are unrelated.""", repo="artisana/marketplace")
    ns = "catalog"
    cw = sc.svc("catalog-web", ns, "python", version="2026.05.29.3", runtime="3.12.3", npods=3)
    rollout = sc.at("17:12:00")

    views = "catalog/views.py"
    sc.file(views, """
        from django.core.paginator import Paginator
        from django.shortcuts import get_object_or_404
        from django.views.generic import ListView

        from catalog.models import Category, Product

        PAGE_SIZE = 48


        class CategoryListView(ListView):
            template_name = "catalog/category.html"
            paginate_by = PAGE_SIZE
            context_object_name = "products"

            def get_queryset(self):
                self.category = get_object_or_404(Category, slug=self.kwargs["slug"])
                qs = Product.objects.filter(category__in=self.category.get_descendants(include_self=True), is_active=True)
                return qs.order_by(self.request.GET.get("sort", "-published_at"))

            def get_context_data(self, **kwargs):
                ctx = super().get_context_data(**kwargs)
                ctx["category"] = self.category
                return ctx
        """)
    sc.file("catalog/templates/catalog/category.html", """
        {% extends "base.html" %}
        {% block content %}
        <h1>{{ category.name }}</h1>
        <ul class="grid">
          {% for product in products %}
          <li>
            <img src="{{ product.images.first.url }}" alt="{{ product.title }}">
            <a href="{{ product.get_absolute_url }}">{{ product.title }}</a>
            <span class="shop">{{ product.seller.shop_name }}</span>
            <span class="price">{{ product.price }}</span>
          </li>
          {% endfor %}
        </ul>
        {% endblock %}
        """)
    sc.file("search-indexer/indexer/bulk.py", """
        BULK_CHUNK = 1000
        """)
    L = sc.line(views, "qs = Product.objects.filter(category__in=self.category.get_descendants(include_self=True), is_active=True)")
    sc.commit("2026-05-29T17:40:00Z", ("Ines Moreau", "ines@artisana.shop", "imoreau"), "search-indexer: bigger bulk chunks",
              [("search-indexer/indexer/bulk.py", "BULK_CHUNK = 500", "BULK_CHUNK = 1000")])
    sc.commit("2026-05-29T16:55:41Z", ("Felix Braun", "felix@artisana.shop", "fbraun"),
              """catalog: include subcategories on category pages (#1290)

              Use the MPTT descendants so /c/jewelry also lists /c/jewelry/rings.""",
              [(views, """        qs = (
            Product.objects.select_related("seller", "category")
            .prefetch_related("images")
            .filter(category=self.category, is_active=True)
        )""", """        qs = Product.objects.filter(category__in=self.category.get_descendants(include_self=True), is_active=True)""")],
              merged_by_github=True)

    peak = lambda t: t >= sc.at("18:05")
    t0, t1 = sc.at("16:45"), sc.at("18:48")
    lab = lambda s, pod, lvl, nsx=ns: {"job": f"{nsx}/{s}", "namespace": nsx, "pod": pod, "level": lvl}

    def page(t):
        tr = sc.trace()
        st = us(t)
        p = cw.pod()
        n1 = t >= rollout
        nq = 97 if n1 else 3
        per = sc.rng.randint(2_500, 9_000) * (12 if peak(t) and n1 else 1) if n1 else sc.rng.randint(3_000, 9_000)
        per = min(per, 130_000)
        d = 8_000 + nq * (per + 300)
        slug = sc.rng.choice(["jewelry", "ceramics", "home-decor", "prints", "knitwear"])
        timeout = d > 10_000_000
        code = 504 if timeout else 200
        s = tr.span(cw, "GET c/<slug:slug>/", st, d, pod=p, error=None,
                    tags=http_server("GET", "c/<slug:slug>/", 200, new=False, target=f"/c/{slug}/", host="www.artisana.shop", port=8000,
                                     scope="opentelemetry.instrumentation.django"))
        off = st + 3_000
        stmts = ['SELECT "catalog_category"."id", "catalog_category"."slug", "catalog_category"."lft", "catalog_category"."rght" FROM "catalog_category" WHERE "catalog_category"."slug" = %s LIMIT 21',
                 'SELECT COUNT(*) AS "__count" FROM "catalog_product" WHERE ("catalog_product"."category_id" IN (SELECT U0."id" FROM "catalog_category" U0 WHERE (U0."lft" >= %s AND U0."rght" <= %s AND U0."tree_id" = %s)) AND "catalog_product"."is_active")',
                 'SELECT "catalog_product"."id", "catalog_product"."title", "catalog_product"."price", "catalog_product"."seller_id" FROM "catalog_product" WHERE (...) ORDER BY "catalog_product"."published_at" DESC LIMIT 48']
        if n1:
            for i in range(47):
                stmts.append('SELECT "catalog_productimage"."id", "catalog_productimage"."url" FROM "catalog_productimage" WHERE "catalog_productimage"."product_id" = %s ORDER BY "catalog_productimage"."position" ASC LIMIT 1')
                stmts.append('SELECT "sellers_seller"."id", "sellers_seller"."shop_name" FROM "sellers_seller" WHERE "sellers_seller"."id" = %s LIMIT 21')
        for q in stmts[:nq]:
            dd = per if n1 else sc.rng.randint(3_000, 9_000)
            tr.span(cw, "SELECT", off, dd, parent=s, kind="client", tags=db("postgresql", q, "artisana", "pgbouncer.catalog.svc", 6432, "SELECT", new=False))
            off += dd + 300
        sc.log(lab("catalog-web", p, "info"), from_us(st + d), f'{cw.ips[p]} - - [{from_us(st + d).strftime("%d/%b/%Y:%H:%M:%S +0000")}] "GET /c/{slug}/ HTTP/1.1" 200 {sc.rng.randint(40000, 90000)} "-" "Mozilla/5.0" rt={d / 1e6:.3f} trace_id={tr.id}')
        if timeout:
            ip = "10.42.0." + str(sc.rng.randint(2, 250))
            sc.log({"job": "ingress-nginx/ingress-nginx-controller", "namespace": "ingress-nginx", "pod": "ingress-nginx-controller-7b9c6d5f8-kq2zt", "level": "error"},
                   from_us(st + 10_000_000),
                   f'{from_us(st + 10_000_000).strftime("%Y/%m/%d %H:%M:%S")} [error] 31#31: *{sc.rng.randint(10**6, 10**7)} upstream timed out (110: Operation timed out) while reading response header from upstream, '
                   f'client: {ip}, server: www.artisana.shop, request: "GET /c/{slug}/ HTTP/2.0", upstream: "http://{cw.ips[p]}:8000/c/{slug}/", host: "www.artisana.shop"')

    for t in sc.times(t0, rollout, 5):
        page(t)
    for t in sc.times(rollout, sc.at("18:05"), 2):
        page(t)
    page(sc.at("18:21:07"))
    page(sc.at("18:40:33"))
    for t in sc.times(t0, t1, 220):
        p = cw.pod()
        slug = sc.rng.choice(["jewelry", "ceramics", "home-decor", "prints", "knitwear"])
        if t >= rollout:
            rt = sc.rng.uniform(0.9, 3.5) * (4 if peak(t) else 1)
        else:
            rt = sc.rng.uniform(0.05, 0.25)
        code = 200
        if rt > 10:
            ip = "10.42.0." + str(sc.rng.randint(2, 250))
            sc.log({"job": "ingress-nginx/ingress-nginx-controller", "namespace": "ingress-nginx", "pod": "ingress-nginx-controller-7b9c6d5f8-kq2zt", "level": "info"}, t,
                   f'{ip} - - [{t.strftime("%d/%b/%Y:%H:%M:%S +0000")}] "GET /c/{slug}/ HTTP/2.0" 504 160 "-" "Mozilla/5.0" 41 10.001 [catalog-catalog-web-8000] [] {cw.ips[p]}:8000 0 10.001 504 {sc.hex(32)}')
        else:
            sc.log({"job": "ingress-nginx/ingress-nginx-controller", "namespace": "ingress-nginx", "pod": "ingress-nginx-controller-7b9c6d5f8-kq2zt", "level": "info"}, t,
                   f'10.42.0.{sc.rng.randint(2, 250)} - - [{t.strftime("%d/%b/%Y:%H:%M:%S +0000")}] "GET /c/{slug}/ HTTP/2.0" {code} {sc.rng.randint(40000, 90000)} "-" "Mozilla/5.0" 41 {rt:.3f} [catalog-catalog-web-8000] [] {cw.ips[p]}:8000 {sc.rng.randint(40000, 90000)} {rt:.3f} 200 {sc.hex(32)}')
    for t in sc.times(t0, t1, 25):
        sc.log(lab("search-indexer", "search-indexer-5c4b8d7f9-m4n7p", "warn", "search"), t,
               f"{t.strftime('%Y-%m-%d %H:%M:%S,%f')[:-3]} WARNING indexer.bulk: bulk request took {sc.rng.uniform(2, 6):.1f}s for 1000 docs (es_rejected_execution on 0 shards)")

    m0, m1 = sc.at("16:40"), sc.at("18:49")
    sc.gauge({"__name__": "rds_cpu_utilization_percent", "job": "cloudwatch-exporter", "dbinstance_identifier": "artisana-catalog-primary"}, m0, m1,
             lambda t: (sc.rng.uniform(22, 30) if t < rollout else (sc.rng.uniform(55, 70) if not peak(t) else sc.rng.uniform(91, 98))))
    sc.counter({"__name__": "pg_stat_database_xact_commit", "job": "postgres-exporter", "datname": "artisana", "instance": "artisana-catalog-primary:9187"},
               m0, m1, lambda t: 220 if t < rollout else (2_900 if peak(t) else 1_600), initial=8_310_220_145)
    sc.gauge({"__name__": "django_http_requests_latency_seconds_p99", "job": "catalog-web", "view": "catalog.views.CategoryListView"}, m0, m1,
             lambda t: 0.31 if t < rollout else (11.8 if peak(t) else 3.4))
    sc.counter({"__name__": "nginx_ingress_controller_requests", "ingress": "catalog-web", "namespace": ns, "status": "504", "job": "ingress-nginx"},
               m0, m1, lambda t: 2.6 if peak(t) and t >= rollout else 0.001, initial=77)

    k = sc.k8s = K8s(sc)
    nodes = ["ip-10-30-1-15.ec2.internal", "ip-10-30-2-44.ec2.internal"]
    ctr = container_spec("catalog-web", "artisana/catalog-web:2026.05.29.3", 8000, requests={"cpu": "500m", "memory": "512Mi"}, limits={"memory": "1Gi"},
                         env={"DJANGO_SETTINGS_MODULE": "artisana.settings.prod", "DATABASE_HOST": "pgbouncer.catalog.svc"},
                         readiness=http_probe("/healthz", 8000, 10, timeout=2))
    workload(k, cw, ctr, nodes, ts("2023-02-01T10:00:00Z"), rollout, 402, labels={"app": "catalog-web"})
    pgb = sc.svc("pgbouncer", ns, "proxy", npods=1)
    bctr = container_spec("pgbouncer", "bitnami/pgbouncer:1.23.1", 6432, port_name="pg", requests={"cpu": "100m", "memory": "64Mi"})
    workload(k, pgb, bctr, nodes, ts("2023-02-01T10:00:00Z"), ts("2026-05-20T10:00:00Z"), 9, labels={"app": "pgbouncer"},
             pod_states={0: {"restarts": 1, "state": running(sc.at("03:10:44")), "last": terminated("Completed", 0, ts("2026-05-20T10:00:20Z"), sc.at("03:10:40"), sc)}})
    a1 = alert(sc, {"alertname": "RDSCPUUtilizationHigh", "dbinstance_identifier": "artisana-catalog-primary", "job": "cloudwatch-exporter", "severity": "critical",
                    "team": "platform"},
               {"summary": "RDS artisana-catalog-primary CPU above 90%", "description": "CPU 96% for 10 minutes on artisana-catalog-primary (db.r6g.2xlarge)."},
               sc.at("18:16:00"), "max(rds_cpu_utilization_percent) by (dbinstance_identifier) > 90")
    a2 = alert(sc, {"alertname": "NginxIngress504", "ingress": "catalog-web", "exported_namespace": ns, "job": "ingress-nginx", "severity": "warning",
                    "team": "platform"},
               {"summary": "catalog-web ingress returns 504", "description": "2.6 req/s of 504 Gateway Time-out on ingress catalog-web."},
               sc.at("18:18:30"), 'sum(rate(nginx_ingress_controller_requests{status="504"}[5m])) by (ingress) > 0.5')
    sc.trigger = {"alert": webhook([a1, a2], ["team"], "autoheal-platform", "https://alertmanager.artisana.shop", route_key='{}/{team="platform"}')}
    sc.config = {"repo": "artisana/marketplace", "log_service_label": "job"}
    sc.truth = {"bucket": "code_bug", "service": "catalog-web", "error_type": "timeout", "file": views, "line": L,
                "line_tolerance": 3, "fix_keywords": ["select_related", "prefetch_related", "N+1"]}
    return sc
