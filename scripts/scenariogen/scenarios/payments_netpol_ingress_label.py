"""Payments: a NetworkPolicy on the ledger admits callers by a label the checkout pods no longer carry; checkout's calls time out."""
import datetime as dt

from sg import *

NAME = "ledger-netpol-admits-renamed-checkout-label"


def build():
    sc = Scenario(NAME, "2026-06-09T11:10:00Z", """
        The platform team's 10:22 chart migration relabelled checkout's pods app.kubernetes.io/name=checkout-api
        (they were app.kubernetes.io/name=checkout). The ledger's ingress NetworkPolicy, kept in the kustomize base
        of the ledger, still admits only pods labelled app.kubernetes.io/name=checkout on port 8443, so since the
        rollout at 10:31 every call from checkout to the ledger times out (dial tcp 10.96.52.14:8443: i/o timeout)
        and orders fail. The ledger is healthy; the search-indexer's errors and the pricing commit are unrelated.
        The fix is the policy's podSelector label in deploy/ledger/base/networkpolicy.yaml.""", repo="shopwave/deploy")
    ns = "payments"
    led = sc.svc("ledger", ns, "java", npods=2)
    co = sc.svc("checkout-api", ns, "go", npods=2)
    si = sc.svc("search-indexer", ns, "java", npods=1)
    rollout = sc.at("10:31:05")

    npf = "deploy/ledger/base/networkpolicy.yaml"
    sc.file(npf, """
        apiVersion: networking.k8s.io/v1
        kind: NetworkPolicy
        metadata:
          name: ledger-ingress
        spec:
          podSelector:
            matchLabels:
              app.kubernetes.io/name: ledger
          policyTypes:
            - Ingress
          ingress:
            - from:
                - podSelector:
                    matchLabels:
                      app.kubernetes.io/name: checkout
              ports:
                - protocol: TCP
                  port: 8443
            - from:
                - namespaceSelector:
                    matchLabels:
                      kubernetes.io/metadata.name: monitoring
              ports:
                - protocol: TCP
                  port: 9090
        """)
    sc.file("deploy/ledger/base/kustomization.yaml", """
        apiVersion: kustomize.config.k8s.io/v1beta1
        kind: Kustomization
        resources:
          - deployment.yaml
          - service.yaml
          - networkpolicy.yaml
        """)
    sc.file("deploy/ledger/base/deployment.yaml", """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: ledger
        spec:
          replicas: 2
          template:
            metadata:
              labels:
                app.kubernetes.io/name: ledger
            spec:
              containers:
                - name: ledger
                  image: ghcr.io/shopwave/ledger:7.3.1
                  ports:
                    - name: https
                      containerPort: 8443
        """)
    sc.file("deploy/ledger/overlays/prod/kustomization.yaml", """
        apiVersion: kustomize.config.k8s.io/v1beta1
        kind: Kustomization
        namespace: payments
        resources:
          - ../../base
        images:
          - name: ghcr.io/shopwave/ledger
            newTag: 7.3.1
        """)
    sc.file("deploy/checkout-api/values-prod.yaml", """
        replicaCount: 2
        image:
          repository: ghcr.io/shopwave/checkout-api
          tag: 12.0.0
        ledger:
          url: https://ledger.payments.svc:8443
        """)
    sc.file("services/pricing/rules.yaml", """
        rounding: half-even
        currencies: [EUR, GBP, SEK, PLN]
        """)
    L = sc.line(npf, "app.kubernetes.io/name: checkout")
    sc.commit("2026-06-09T10:48:30Z", ("Kai Lund", "kai@shopwave.io", "klund"), "pricing: round half-even, add PLN",
              [("services/pricing/rules.yaml", "rounding: half-up\ncurrencies: [EUR, GBP, SEK]", "rounding: half-even\ncurrencies: [EUR, GBP, SEK, PLN]")], merged_by_github=True)
    sc.commit("2026-06-09T10:22:41Z", ("Platform Bot", "platform@shopwave.io", "shopwave-platform[bot]"), "checkout-api: migrate to the shared service chart v3",
              [("deploy/checkout-api/values-prod.yaml", "  tag: 11.9.4", "  tag: 12.0.0")])

    lab = lambda s, pod, lvl: {"service_name": s, "namespace": ns, "pod": pod, "level": lvl}
    t0, t1 = sc.at("10:00"), sc.at("11:09")
    for t in sc.times(t0, rollout, 100):
        sc.log(lab("checkout-api", co.pod(), "info"), t, f'time={iso(t, 3)} level=INFO msg="order placed" order=o_{sc.hex(8)} ledger_ms={sc.rng.randint(8, 40)}')
    for t in sc.times(rollout + dt.timedelta(seconds=20), t1, 140):
        sc.log(lab("checkout-api", co.pod(), "error"), t, f'time={iso(t, 3)} level=ERROR msg="order failed" order=o_{sc.hex(8)} err="ledger: Post \\"https://ledger.payments.svc:8443/v1/postings\\": dial tcp 10.96.52.14:8443: i/o timeout"')
    for t in sc.times(t0, t1, 120):
        sc.log(lab("ledger", led.pod(), "info"), t, f'{iso(t, 3)}  INFO 1 --- [ledger] [nio-8443-exec-2] c.s.ledger.PostingController : posting accepted account={sc.rng.randint(10000, 99999)}')
    decoy_errors(sc, si, sc.at("10:35"), t1, 260, ["{t} ERROR 1 --- [search-indexer] [   indexer-1] c.s.search.IndexWriter : bulk request failed\norg.opensearch.OpenSearchStatusException: OpenSearch exception [type=illegal_argument_exception, reason=mapper [price] cannot be changed from type [long] to [float]]\n\tat org.opensearch.client.RestHighLevelClient.parseResponseException(RestHighLevelClient.java:2072)\n\tat com.shopwave.search.IndexWriter.flush(IndexWriter.java:88)"], labels=lab)

    k = sc.k8s = K8s(sc)
    nodes = ["gke-shopwave-prod-pool-a-1b2c3d4e-9kq2", "gke-shopwave-prod-pool-a-1b2c3d4e-x7m1"]
    created = ts("2025-02-01T09:00:00Z")
    lctr = container_spec("ledger", "ghcr.io/shopwave/ledger:7.3.1", 8443, port_name="https", requests={"cpu": "500m", "memory": "1Gi"})
    llab = {"app.kubernetes.io/name": "ledger"}
    workload(k, led, lctr, nodes, created, ts("2026-06-01T09:00:00Z"), 41, labels=llab)
    cctr = container_spec("checkout-api", "ghcr.io/shopwave/checkout-api:12.0.0", 8080, requests={"cpu": "250m", "memory": "256Mi"})
    clab = {"app.kubernetes.io/name": "checkout-api", "app.kubernetes.io/instance": "checkout-api", "helm.sh/chart": "service-3.0.1"}
    workload(k, co, cctr, nodes, created, rollout, 88, labels=clab)
    sctr = container_spec("search-indexer", "ghcr.io/shopwave/search-indexer:2.2.0", None, requests={"cpu": "500m", "memory": "768Mi"})
    workload(k, si, sctr, nodes, created, ts("2026-05-28T09:00:00Z"), 19, labels={"app.kubernetes.io/name": "search-indexer"})
    k.service("ledger", ns, llab, [("https", 8443, 8443)], created, cluster_ip="10.96.52.14")
    k.endpoints("ledger", ns, created, [(led.ips[p], p, True) for p in led.pods], [("https", 8443)])
    track = {"argocd.argoproj.io/tracking-id": "ledger-prod:networking.k8s.io/NetworkPolicy:payments/ledger-ingress"}
    k.obj("networking.k8s.io/v1", "NetworkPolicy", "ledger-ingress", ns, created, annotations=track,
          spec={"podSelector": {"matchLabels": llab}, "policyTypes": ["Ingress"],
                "ingress": [{"from": [{"podSelector": {"matchLabels": {"app.kubernetes.io/name": "checkout"}}}], "ports": [{"protocol": "TCP", "port": 8443}]},
                            {"from": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}], "ports": [{"protocol": "TCP", "port": 9090}]}]})
    k.obj("argoproj.io/v1alpha1", "Application", "ledger-prod", "argocd", created,
          spec={"project": "payments", "source": {"repoURL": "https://github.com/shopwave/deploy.git", "targetRevision": "main", "path": "deploy/ledger/overlays/prod"},
                "destination": {"server": "https://kubernetes.default.svc", "namespace": ns}})

    sc.trigger = {"mention": "orders failing since about 10:30, checkout says ledger timeouts. ledger dashboards look normal. search indexer also screaming"}
    sc.config = {"repo": "shopwave/deploy", "namespace": ns}
    sc.truth = {"bucket": "infrastructure", "service": "ledger", "error_type": "network", "file": npf, "line": L,
                "line_tolerance": 2, "fix_keywords": ["NetworkPolicy", "checkout-api", "podSelector"]}
    return sc
