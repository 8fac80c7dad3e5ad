"""Web: the Ingress routes / to a Service name that does not exist after a rename; the site returns 503."""
import datetime as dt

from sg import *

NAME = "storefront-ingress-backend-service-renamed"


def build():
    sc = Scenario(NAME, "2026-11-05T08:40:00Z", """
        The 08:05 change renamed the storefront Service to storefront (it was storefront-web) in
        k8s/storefront/service.yaml, but k8s/storefront/ingress.yaml still routes / to storefront-web. ingress-nginx
        finds no such Service and answers 503 for the whole site since 08:09, while the storefront pods are healthy.
        The checkout's payment-provider timeouts and the analytics commit are unrelated. The fix is the backend's
        service name in the Ingress.""", repo="corner-shop/infra")
    ns = "web"
    sf = sc.svc("storefront", ns, "nodejs", npods=2)
    ing = sc.svc("ingress-nginx-controller", "ingress-nginx", "proxy", npods=1)
    co = sc.svc("checkout", ns, "java", npods=2)
    change = sc.at("08:09:12")

    ingf = "k8s/storefront/ingress.yaml"
    sc.file(ingf, """
        apiVersion: networking.k8s.io/v1
        kind: Ingress
        metadata:
          name: storefront
          namespace: web
          annotations:
            nginx.ingress.kubernetes.io/proxy-body-size: 8m
        spec:
          ingressClassName: nginx
          tls:
            - hosts: [shop.corner.example]
              secretName: shop-tls
          rules:
            - host: shop.corner.example
              http:
                paths:
                  - path: /
                    pathType: Prefix
                    backend:
                      service:
                        name: storefront-web
                        port:
                          number: 80
                  - path: /checkout
                    pathType: Prefix
                    backend:
                      service:
                        name: checkout
                        port:
                          number: 8080
        """)
    svcf = "k8s/storefront/service.yaml"
    sc.file(svcf, """
        apiVersion: v1
        kind: Service
        metadata:
          name: storefront
          namespace: web
        spec:
          selector:
            app: storefront
          ports:
            - name: http
              port: 80
              targetPort: 3000
        """)
    sc.file("analytics/events.json", '{"page_view": true, "add_to_cart": true}\n')
    L = sc.line(ingf, "name: storefront-web")
    sc.commit("2026-11-05T08:21:00Z", ("Noor Aziz", "noor@corner.example", "naziz"), "analytics: track add_to_cart",
              [("analytics/events.json", '{"page_view": true}\n', '{"page_view": true, "add_to_cart": true}\n')])
    sc.commit("2026-11-05T08:05:33Z", ("Jon Berg", "jon@corner.example", "jberg"), "storefront: Service named like the app",
              [(svcf, "  name: storefront-web", "  name: storefront")], merged_by_github=True)

    lab = lambda s, pod, lvl, nsp=ns: {"service_name": s, "namespace": nsp, "pod": pod, "level": lvl}
    t0, t1 = sc.at("07:40"), sc.at("08:39")
    ip = lambda: f"{sc.rng.randint(30, 200)}.{sc.rng.randint(1, 250)}.{sc.rng.randint(1, 250)}.{sc.rng.randint(1, 250)}"
    for t in sc.times(t0, change, 100):
        sc.log(lab("ingress-nginx-controller", ing.pods[0], "info", "ingress-nginx"), t,
               f'{ip()} - - [{t.strftime("%d/%b/%Y:%H:%M:%S")} +0000] "GET / HTTP/2.0" 200 5120 "-" "Mozilla/5.0" 61 0.031 [web-storefront-web-80] [] 10.42.3.{sc.rng.randint(2, 250)}:3000 5120 0.030 200 {sc.hex(32)}')
    for t in sc.times(change, t1, 160):
        sc.log(lab("ingress-nginx-controller", ing.pods[0], "info", "ingress-nginx"), t,
               f'{ip()} - - [{t.strftime("%d/%b/%Y:%H:%M:%S")} +0000] "GET / HTTP/2.0" 503 190 "-" "Mozilla/5.0" 61 0.000 [web-storefront-web-80] [] - - - - {sc.hex(32)}')
    for t in sc.times(change, t1, 20):
        sc.log(lab("ingress-nginx-controller", ing.pods[0], "warning", "ingress-nginx"), t,
               f'W{t.strftime("%m%d %H:%M:%S.%f")}       7 controller.go:1216] Error obtaining Endpoints for Service "web/storefront-web": no object matching key "web/storefront-web" in local store')
    decoy_errors(sc, co, t0, t1, 200, ["{t} ERROR 1 --- [checkout] [nio-8080-exec-3] c.c.checkout.PaymentClient : charge failed\njava.net.SocketTimeoutException: Read timed out\n\tat com.cornershop.checkout.PaymentClient.charge(PaymentClient.java:58)"], labels=lambda s, p, l: lab(s, p, l))

    k = sc.k8s = K8s(sc)
    nodes = ["aks-web-11223344-vmss000001", "aks-web-11223344-vmss000002"]
    created = ts("2025-02-01T09:00:00Z")
    ctr = container_spec("storefront", "ghcr.io/corner-shop/storefront:14.2.0", 3000)
    workload(k, sf, ctr, nodes, created, ts("2026-11-01T09:00:00Z"), 90, labels={"app": "storefront"})
    k.service("storefront", ns, {"app": "storefront"}, [("http", 80, 3000)], change - dt.timedelta(minutes=3))
    k.endpoints("storefront", ns, change, [(sf.ips[p], p, True) for p in sf.pods], [("http", 3000)])
    cctr = container_spec("checkout", "ghcr.io/corner-shop/checkout:7.7.0", 8080)
    workload(k, co, cctr, nodes, created, ts("2026-10-28T09:00:00Z"), 61, labels={"app": "checkout"})
    k.service("checkout", ns, {"app": "checkout"}, [("http", 8080, 8080)], created)
    k.obj("networking.k8s.io/v1", "Ingress", "storefront", ns, created, annotations={"nginx.ingress.kubernetes.io/proxy-body-size": "8m"},
          spec={"ingressClassName": "nginx", "tls": [{"hosts": ["shop.corner.example"], "secretName": "shop-tls"}],
                "rules": [{"host": "shop.corner.example", "http": {"paths": [
                    {"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "storefront-web", "port": {"number": 80}}}},
                    {"path": "/checkout", "pathType": "Prefix", "backend": {"service": {"name": "checkout", "port": {"number": 8080}}}}]}}]},
          status={"loadBalancer": {"ingress": [{"ip": "20.61.14.9"}]}})

    sc.trigger = {"mention": "the whole shop is returning 503 since ~08:10!! storefront pods look fine. checkout also has payment timeouts"}
    sc.config = {"repo": "corner-shop/infra", "namespace": ns}
    sc.truth = {"bucket": "infrastructure", "service": "storefront", "error_type": "config", "file": ingf, "line": L,
                "line_tolerance": 1, "fix_keywords": ["storefront", "service", "backend"]}
    return sc
