"""Restaurant orders (Django): ExternalSecret renamed the password key -> new pods CreateContainerConfigError; old pods fail auth after rotation."""
import datetime as dt

from sg import *

NAME = "orders-db-secret-key-renamed"


def build():
    sc = Scenario(NAME, "2026-03-03T10:40:00Z", """
        The 09:55 commit rotating the orders database password also changed the ExternalSecret's target key from
        DB_PASSWORD to password. The Secret orders-db now holds password, so pods that reference
        secretKeyRef DB_PASSWORD fail with CreateContainerConfigError (couldn't find key DB_PASSWORD), while the
        old pods still hold the previous password, which was revoked at rotation: they log \"password
        authentication failed for user orders_app\" when their pooled connections recycle, and orders-api
        returns 500s. Fix the key in deploy/external-secrets/orders-db.yaml (or the secretKeyRef) and restart.
        The kitchen-display websocket warnings and the menu-api commit are unrelated.""", repo="tavola/orders")
    ns = "orders"
    api = sc.svc("orders-api", ns, "python", version="3.18.0", runtime="3.12.2", npods=3)
    new_hash = sc.pod_hash()
    new_pod = f"orders-api-{new_hash}-{sc.suffix()}"
    kds = sc.svc("kitchen-display", ns, "nodejs", npods=1)
    rotate = sc.at("10:03:00")
    refresh = sc.at("10:04:10")

    es = "deploy/external-secrets/orders-db.yaml"
    sc.file(es, """
        apiVersion: external-secrets.io/v1beta1
        kind: ExternalSecret
        metadata:
          name: orders-db
          namespace: orders
        spec:
          refreshInterval: 1h
          secretStoreRef:
            kind: ClusterSecretStore
            name: gcp-secret-manager
          target:
            name: orders-db
            creationPolicy: Owner
          data:
            - secretKey: DB_USER
              remoteRef:
                key: orders-db-user
            - secretKey: password
              remoteRef:
                key: orders-db-password
                version: "7"
        """)
    dep = "deploy/orders-api/deployment.yaml"
    sc.file(dep, """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: orders-api
          namespace: orders
        spec:
          replicas: 3
          template:
            metadata:
              annotations:
                secret.reloader.stakater.com/reload: orders-db
            spec:
              containers:
                - name: orders-api
                  image: europe-west1-docker.pkg.dev/tavola/apps/orders-api:3.18.0
                  env:
                    - name: DB_HOST
                      value: 10.88.0.3
                    - name: DB_USER
                      valueFrom:
                        secretKeyRef:
                          name: orders-db
                          key: DB_USER
                    - name: DB_PASSWORD
                      valueFrom:
                        secretKeyRef:
                          name: orders-db
                          key: DB_PASSWORD
        """)
    sc.file("services/menu-api/menu/serializers.py", """
        from rest_framework import serializers

        from menu.models import Dish


        class DishSerializer(serializers.ModelSerializer):
            class Meta:
                model = Dish
                fields = ["id", "name", "price", "allergens", "available"]
        """)
    L = sc.line(es, "- secretKey: password")
    sc.commit("2026-03-03T09:55:31Z", ("Giulia Romano", "giulia@tavola.app", "gromano"),
              """orders-db: rotate password (SEC-221), align key names with the secret store

              New version 7 in Secret Manager; old version disabled after sync.""",
              [(es, """    - secretKey: DB_PASSWORD
      remoteRef:
        key: orders-db-password
        version: "6\"""", """    - secretKey: password
      remoteRef:
        key: orders-db-password
        version: "7\"""")], merged_by_github=True)
    sc.commit("2026-03-03T08:12:09Z", ("Pedro Alves", "pedro@tavola.app", "palves"),
              "menu-api: expose allergens", [("services/menu-api/menu/serializers.py", '"price", "available"]', '"price", "allergens", "available"]')])

    auth_err = ('django.db.utils.OperationalError: connection to server at "10.88.0.3", port 5432 failed: '
                'FATAL:  password authentication failed for user "orders_app"')
    tb = ("Traceback (most recent call last):\n"
          '  File "/usr/local/lib/python3.12/site-packages/django/db/backends/base/base.py", line 279, in ensure_connection\n'
          "    self.connect()\n"
          '  File "/usr/local/lib/python3.12/site-packages/django/db/backends/postgresql/base.py", line 332, in get_new_connection\n'
          "    connection = self.Database.connect(**conn_params)\n"
          '  File "/usr/local/lib/python3.12/site-packages/psycopg/connection.py", line 748, in connect\n'
          "    raise last_ex.with_traceback(None)\n"
          'psycopg.OperationalError: connection failed: connection to server at "10.88.0.3", port 5432 failed: FATAL:  password authentication failed for user "orders_app"\n\n'
          "The above exception was the direct cause of the following exception:\n\n"
          "Traceback (most recent call last):\n"
          '  File "/usr/local/lib/python3.12/site-packages/django/core/handlers/exception.py", line 55, in inner\n'
          "    response = get_response(request)\n"
          '  File "/app/orders/views.py", line 41, in create_order\n'
          "    order = Order.objects.create(**payload)\n"
          f"{auth_err}")
    t0, t1 = sc.at("09:40"), sc.at("10:38")
    lab = lambda s, pod, lvl: {"app": s, "namespace": ns, "pod": pod, "level": lvl}
    # connections recycle (CONN_MAX_AGE=600) -> failure share grows after rotation
    share = lambda t: 0 if t < rotate else min(0.85, (t - rotate).total_seconds() / 1500)

    def req(t):
        tr = sc.trace()
        st = us(t)
        p = api.pod()
        fail = sc.rng.random() < share(t)
        d = sc.rng.randint(4_000, 9_000) if fail else sc.rng.randint(18_000, 60_000)
        s = tr.span(api, "POST orders/", st, d, pod=p, error=auth_err if fail else None,
                    tags=http_server("POST", "orders/", 500 if fail else 201, target="/orders/", host="orders-api", port=8000,
                                     scope="opentelemetry.instrumentation.django"),
                    events=[exc_event(st + d - 500, "django.db.utils.OperationalError", auth_err.split(": ", 1)[1], tb)] if fail else None)
        if fail:
            tr.span(api, "connect", st + 900, 2_100, parent=s, kind="client", error="password authentication failed",
                    tags={"db.system": "postgresql", "server.address": "10.88.0.3", "server.port": 5432, "db.namespace": "orders"})
            sc.log(lab("orders-api", p, "error"), from_us(st + d - 300),
                   f"{from_us(st + d - 300).strftime('%Y-%m-%d %H:%M:%S,%f')[:-3]} ERROR django.request [trace_id={tr.id} span_id={s['spanID']}] Internal Server Error: /orders/\n{tb}")
        else:
            tr.span(api, "INSERT", st + 2_000, d - 6_000, parent=s, kind="client",
                    tags=db("postgresql", 'INSERT INTO "orders_order" ("restaurant_id", "table", "items", "total", "created_at") VALUES (%s, %s, %s, %s, %s) RETURNING "orders_order"."id"',
                            "orders", "10.88.0.3", 5432, "INSERT"))
            sc.log(lab("orders-api", p, "info"), from_us(st + d), f"{from_us(st + d).strftime('%Y-%m-%d %H:%M:%S,%f')[:-3]} INFO orders.views [trace_id={tr.id} span_id={s['spanID']}] order created restaurant=r_{sc.rng.randint(100, 999)} items={sc.rng.randint(1, 9)}")

    for t in sc.times(t0, t1, 24):
        req(t)
    req(sc.at("10:31:02"))
    for t in sc.times(t0, t1, 130):
        p = api.pod()
        if sc.rng.random() < share(t):
            sc.log(lab("orders-api", p, "error"), t, f"{t.strftime('%Y-%m-%d %H:%M:%S,%f')[:-3]} ERROR django.request [trace_id=0 span_id=0] Internal Server Error: /orders/\n{tb}")
        else:
            sc.log(lab("orders-api", p, "info"), t, f"{t.strftime('%Y-%m-%d %H:%M:%S,%f')[:-3]} INFO orders.views [trace_id=0 span_id=0] order created restaurant=r_{sc.rng.randint(100, 999)} items={sc.rng.randint(1, 9)}")
    for t in sc.times(t0, t1, 25):
        sc.log(lab("kitchen-display", kds.pods[0], "warn"), t, json.dumps({"level": "warn", "time": iso(t, 3), "msg": "websocket client dropped",
                                                                          "code": 1006, "restaurant": f"r_{sc.rng.randint(100, 999)}"}))

    m0, m1 = sc.at("09:30"), sc.at("10:39")
    sc.counter({"__name__": "django_http_responses_total_by_status_total", "job": "orders-api", "namespace": ns, "status": "500"}, m0, m1,
               lambda t: 3.5 * share(t), initial=140)
    sc.counter({"__name__": "django_http_responses_total_by_status_total", "job": "orders-api", "namespace": ns, "status": "201"}, m0, m1,
               lambda t: 4 * (1 - share(t)), initial=1_902_311)
    sc.gauge({"__name__": "cloudsql_googleapis_com:database_postgresql_num_backends", "database_id": "tavola-prod:orders-pg", "job": "stackdriver"},
             m0, m1, lambda t: 42 * (1 - share(t)) + sc.rng.randint(0, 4))

    k = sc.k8s = K8s(sc)
    nodes = ["gke-tavola-prod-pool-1-9a8b7c6d-2hxk", "gke-tavola-prod-pool-1-9a8b7c6d-q7ln"]
    env = [{"name": "DB_HOST", "value": "10.88.0.3"},
           {"name": "DB_USER", "valueFrom": {"secretKeyRef": {"name": "orders-db", "key": "DB_USER"}}},
           {"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "orders-db", "key": "DB_PASSWORD"}}}]
    ctr = container_spec("orders-api", "europe-west1-docker.pkg.dev/tavola/apps/orders-api:3.18.0", 8000, env=env,
                         requests={"cpu": "250m", "memory": "384Mi"}, limits={"memory": "768Mi"}, readiness=http_probe("/healthz", 8000, 10))
    labels = {"app": "orders-api"}
    k.deployment(api, [ctr], 3, ts("2024-02-02T10:00:00Z"), refresh + dt.timedelta(seconds=5), 58, labels=labels, updated_replicas=1,
                 annotations={"secret.reloader.stakater.com/reload": "orders-db"})
    k.replicaset(api, new_hash, [ctr], 1, 0, refresh + dt.timedelta(seconds=3), 58, labels=labels)
    k.replicaset(api, api.rs_hash, [ctr], 3, 3, ts("2026-02-26T09:00:00Z"), 57, labels=labels)
    for i, p in enumerate(api.pods):
        k.pod(api, p, [ctr], nodes[i % 2], ts("2026-02-26T09:00:00Z") + dt.timedelta(seconds=10 * i), labels=labels)
    msg = "couldn't find key DB_PASSWORD in Secret orders/orders-db"
    k.pod(api, new_pod, [ctr], nodes[1], refresh + dt.timedelta(seconds=4), labels=labels, rs_hash=new_hash, ready=False, phase="Pending",
          state=waiting("CreateContainerConfigError", msg))
    k.event(ns, "Pod", new_pod, "Failed", f"Error: {msg}", refresh + dt.timedelta(seconds=6), sc.now - dt.timedelta(seconds=20), 180,
            "Warning", host=nodes[1], field_path="spec.containers{orders-api}")
    k.event(ns, "Deployment", "orders-api", "ScalingReplicaSet", f"Scaled up replica set orders-api-{new_hash} from 0 to 1",
            refresh + dt.timedelta(seconds=3), component="deployment-controller", api_version="apps/v1")
    k.event(ns, "ExternalSecret", "orders-db", "Updated", "Updated Secret", refresh, component="external-secrets", api_version="external-secrets.io/v1beta1")
    k.secret("orders-db", ns, refresh, ["DB_USER", "password"], labels={"reconcile.external-secrets.io/managed": "true"},
             annotations={"reconcile.external-secrets.io/data-hash": sc.hex(32)})
    k.raw({"apiVersion": "external-secrets.io/v1beta1", "kind": "ExternalSecret", "metadata": k.meta("orders-db", ns, ts("2024-02-02T09:59:00Z"),
           annotations={"argocd.argoproj.io/tracking-id": "orders:external-secrets.io/ExternalSecret:orders/orders-db"}),
           "spec": {"refreshInterval": "1h", "secretStoreRef": {"kind": "ClusterSecretStore", "name": "gcp-secret-manager"},
                    "target": {"name": "orders-db", "creationPolicy": "Owner"},
                    "data": [{"secretKey": "DB_USER", "remoteRef": {"key": "orders-db-user"}},
                             {"secretKey": "password", "remoteRef": {"key": "orders-db-password", "version": "7"}}]},
           "status": {"refreshTime": iso(refresh), "syncedResourceVersion": "1-" + sc.hex(32),
                      "conditions": [{"type": "Ready", "status": "True", "reason": "SecretSynced", "message": "Secret was synced",
                                      "lastTransitionTime": iso(refresh)}]}})
    kctr = container_spec("kitchen-display", "europe-west1-docker.pkg.dev/tavola/apps/kitchen-display:1.3.0", 3000)
    workload(k, kds, kctr, nodes, ts("2024-02-02T10:00:00Z"), ts("2026-02-20T09:00:00Z"), 14, labels={"app": "kitchen-display"})

    sc.trigger = {"mention": "orders-api 500s climbing for the last ~30 min, restaurants cant send orders to the kitchen. also a pod stuck in CreateContainerConfigError"}
    sc.config = {"repo": "tavola/orders", "log_service_label": "app", "namespace": ns}
    sc.truth = {"bucket": "infrastructure", "service": "orders-api", "error_type": "config", "file": es, "line": L,
                "line_tolerance": 2, "fix_keywords": ["DB_PASSWORD", "secretKey", "secretKeyRef", "key"]}
    return sc
