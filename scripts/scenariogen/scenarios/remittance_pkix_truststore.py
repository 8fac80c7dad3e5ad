"""Remittances (Spring): the partner bank moved its API to a new CA; our pinned truststore lacks it -> PKIX path building failed."""
import datetime as dt

from sg import *

NAME = "remittance-partner-ca-rotation-pkix"


def build():
    sc = Scenario(NAME, "2026-09-15T09:30:00Z", """
        At 08:00 the partner bank (Banco Atlantico) switched api.bancoatlantico.example to certificates issued by its
        new private root \"BA Root CA G3\" (announced in their July notice). remittance-service only trusts the
        bundles listed in its Helm values (partner CA pinning, charts/remittance-service/values-prod.yaml), which
        still contain only BA Root CA G2, so every payout call to that partner fails the TLS handshake with
        sun.security.validator.ValidatorException: PKIX path building failed; payouts to the other two corridors
        (other partners) are fine. Fix: add the G3 root to truststore.bundles (keep G2 until the partner's cut-over
        ends). The fx-quotes commit and the Kafka producer warnings are unrelated.""", repo="sendwise/remittances")
    ns = "remit"
    rs = sc.svc("remittance-service", ns, "java", version="5.4.1", runtime="17.0.12+7", npods=2)
    fx = sc.svc("fx-quotes", ns, "go", npods=1)
    cut = sc.at("08:00:05")

    vals = "charts/remittance-service/values-prod.yaml"
    sc.file(vals, """
        replicaCount: 2
        image:
          repository: ghcr.io/sendwise/remittance-service
          tag: 5.4.1
        partners:
          bancoatlantico:
            baseUrl: https://api.bancoatlantico.example/v2
          pesoexpress:
            baseUrl: https://api.pesoexpress.example
          kwachapay:
            baseUrl: https://gateway.kwachapay.example/api
        truststore:
          # Partner CAs we pin (PEM files in charts/remittance-service/certs/).
          bundles:
            - ba-root-ca-g2.pem
            - pesoexpress-root-2021.pem
            - kwachapay-issuing-ca-2.pem
        resources:
          limits:
            memory: 1Gi
        """)
    sc.file("charts/remittance-service/certs/README.md", """
        PEM bundles pinned for partner APIs. Partners announce CA changes by email to
        integrations@sendwise.io; add the new root here before their cut-over date.
        """)
    fxf = "fx-quotes/internal/quotes/spread.go"
    sc.file(fxf, """
        package quotes

        const defaultSpreadBps = 85
        """)
    L = sc.line(vals, "- ba-root-ca-g2.pem")
    sc.commit("2026-09-15T07:41:19Z", ("Lindiwe Dube", "lindiwe@sendwise.io", "ldube"), "fx-quotes: default spread 85 bps",
              [(fxf, "const defaultSpreadBps = 90", "const defaultSpreadBps = 85")])
    sc.commit("2026-06-03T12:00:00Z", ("Marco Bianchi", "marco@sendwise.io", "mbianchi"), "remittance-service: pin partner CAs instead of the JDK cacerts (SEC-140)",
              [(vals, None, None)], merged_by_github=True)

    pkix = ("org.springframework.web.client.ResourceAccessException: I/O error on POST request for \"https://api.bancoatlantico.example/v2/transfers\": "
            "PKIX path building failed: sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid certification path to requested target\n"
            "\tat org.springframework.web.client.RestTemplate.createResourceAccessException(RestTemplate.java:915)\n"
            "\tat org.springframework.web.client.RestTemplate.doExecute(RestTemplate.java:895)\n"
            "\tat io.sendwise.remit.partner.BancoAtlanticoClient.submit(BancoAtlanticoClient.java:58)\n"
            "\tat io.sendwise.remit.payout.PayoutService.dispatch(PayoutService.java:97)\n"
            "Caused by: javax.net.ssl.SSLHandshakeException: PKIX path building failed: sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid certification path to requested target\n"
            "\tat java.base/sun.security.ssl.Alert.createSSLException(Alert.java:131)\n"
            "\tat java.base/sun.security.ssl.TransportContext.fatal(TransportContext.java:378)\n"
            "\tat java.base/sun.security.ssl.CertificateMessage$T13CertificateConsumer.checkServerCerts(CertificateMessage.java:1309)\n"
            "Caused by: sun.security.validator.ValidatorException: PKIX path building failed: sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid certification path to requested target\n"
            "\tat java.base/sun.security.validator.PKIXValidator.doBuild(PKIXValidator.java:388)\n"
            "\tat java.base/sun.security.validator.PKIXValidator.engineValidate(PKIXValidator.java:271)\n"
            "\t... 42 common frames omitted")
    lab = lambda s, pod, lvl: {"app": s, "namespace": ns, "pod": pod, "level": lvl}
    t0, t1 = sc.at("07:15"), sc.at("09:28")
    partners = [("bancoatlantico", "https://api.bancoatlantico.example/v2/transfers"), ("pesoexpress", "https://api.pesoexpress.example/transfers"),
                ("kwachapay", "https://gateway.kwachapay.example/api/payouts")]

    def payout(t, partner):
        name, url = partner
        bad = t >= cut and name == "bancoatlantico"
        tr = sc.trace()
        st = us(t)
        p = rs.pod()
        d = sc.rng.randint(20_000, 60_000) if bad else sc.rng.randint(180_000, 900_000)
        c = tr.span(rs, "payouts process", st, d + 15_000, pod=p, kind="consumer", error=pkix.split("\n")[0] if bad else None,
                    tags={"messaging.system": "kafka", "messaging.destination.name": "payouts.approved", "messaging.operation.type": "process",
                          "app.partner": name, "otel.scope.name": "io.opentelemetry.spring-kafka-2.7"})
        tr.span(rs, "POST", st + 8_000, d, parent=c, kind="client", error="PKIX path building failed" if bad else None,
                tags=http_client("POST", url, None if bad else 201, peer=name, **({"error.type": "javax.net.ssl.SSLHandshakeException"} if bad else {})),
                events=[exc_event(st + 8_000 + d - 200, "org.springframework.web.client.ResourceAccessException", pkix.split("\n")[0].split(": ", 1)[1], pkix)] if bad else None)
        tt = from_us(st + d + 14_000)
        if bad:
            sc.log(lab("remittance-service", p, "error"), tt, java_log_spring(tt, "ERROR", "remittance-service", "org.springframework.kafka.KafkaListenerEndpointContainer#0-0-C-1",
                                                                             "i.s.remit.payout.PayoutService", f"payout rm_{sc.hex(10)} to bancoatlantico failed, will retry\n{pkix}", tr.id, c["spanID"]))
        else:
            sc.log(lab("remittance-service", p, "info"), tt, java_log_spring(tt, "INFO", "remittance-service", "org.springframework.kafka.KafkaListenerEndpointContainer#0-0-C-1",
                                                                            "i.s.remit.payout.PayoutService", f"payout rm_{sc.hex(10)} accepted by {name}", tr.id, c["spanID"]))

    for t in sc.times(t0, t1, 26):
        payout(t, sc.rng.choice(partners))
    payout(sc.at("08:02:11"), partners[0])
    for t in sc.times(t0, t1, 120):
        name = sc.rng.choice(partners)[0]
        p = rs.pod()
        if t >= cut and name == "bancoatlantico":
            sc.log(lab("remittance-service", p, "error"), t, java_log_spring(t, "ERROR", "remittance-service", "org.springframework.kafka.KafkaListenerEndpointContainer#0-0-C-1",
                                                                            "i.s.remit.payout.PayoutService", f"payout rm_{sc.hex(10)} to bancoatlantico failed, will retry\n{pkix}"))
        else:
            sc.log(lab("remittance-service", p, "info"), t, java_log_spring(t, "INFO", "remittance-service", "org.springframework.kafka.KafkaListenerEndpointContainer#0-0-C-1",
                                                                           "i.s.remit.payout.PayoutService", f"payout rm_{sc.hex(10)} accepted by {name}"))
    for t in sc.times(t0, t1, 20):
        sc.log(lab("remittance-service", rs.pod(), "warn"), t, java_log_spring(t, "WARN", "remittance-service", "kafka-producer-network-thread | producer-1",
                                                                              "o.a.k.clients.NetworkClient", "[Producer clientId=producer-1] Got error produce response with correlation id 88211 on topic-partition payouts.status-3, retrying (2147483646 attempts left). Error: NOT_LEADER_OR_FOLLOWER"))
    for t in sc.times(t0, t1, 30):
        sc.log(lab("fx-quotes", fx.pods[0], "info"), t, f'time={iso(t, 3)} level=INFO msg="quote" pair=EUR/{sc.rng.choice(["BRL", "MXN", "ZMW"])} spread_bps=85')

    m0, m1 = sc.at("07:05"), sc.at("09:29")
    for name, _ in partners:
        sc.counter({"__name__": "remit_partner_requests_total", "job": "remittance-service", "partner": name, "outcome": "error"}, m0, m1,
                   lambda t, name=name: 0.8 if t >= cut and name == "bancoatlantico" else 0.001, initial=sc.rng.randint(10, 500), integer=False)
        sc.counter({"__name__": "remit_partner_requests_total", "job": "remittance-service", "partner": name, "outcome": "ok"}, m0, m1,
                   lambda t, name=name: 0 if t >= cut and name == "bancoatlantico" else 0.7, initial=sc.rng.randint(10**5, 10**6))
    sc.gauge({"__name__": "probe_ssl_earliest_cert_expiry", "job": "blackbox", "instance": "https://api.bancoatlantico.example/v2/health"}, m0, m1,
             lambda t: int(ts("2027-09-01T00:00:00Z").timestamp()) if t >= cut else int(ts("2026-10-02T00:00:00Z").timestamp()), step=300)
    sc.gauge({"__name__": "remit_payouts_pending", "job": "remittance-service", "partner": "bancoatlantico"}, m0, m1,
             lambda t: sc.rng.randint(0, 5) if t < cut else (t - cut).total_seconds() * 0.8)

    k = sc.k8s = K8s(sc)
    nodes = ["gke-sendwise-prod-pool-3-0a1b2c3d-7x8y", "gke-sendwise-prod-pool-3-0a1b2c3d-q1w2"]
    ctr = container_spec("remittance-service", "ghcr.io/sendwise/remittance-service:5.4.1", 8080,
                         env={"JAVA_TOOL_OPTIONS": "-Djavax.net.ssl.trustStore=/etc/remit/truststore/partners.p12 -Djavax.net.ssl.trustStoreType=PKCS12"},
                         requests={"cpu": "500m", "memory": "768Mi"}, limits={"memory": "1Gi"},
                         volume_mounts=[{"name": "partner-truststore", "mountPath": "/etc/remit/truststore", "readOnly": True}])
    workload(k, rs, ctr, nodes, ts("2025-01-10T10:00:00Z"), ts("2026-09-09T10:00:00Z"), 71, labels={"app": "remittance-service"})
    k.configmap("remittance-partner-truststore", ns, ts("2026-06-03T12:20:00Z"),
                {"bundles.txt": "ba-root-ca-g2.pem\npesoexpress-root-2021.pem\nkwachapay-issuing-ca-2.pem\n"},
                labels={"app.kubernetes.io/managed-by": "Helm"})
    sc.trigger = {"mention": "all payouts to banco atlantico failing since 8am with PKIX path building failed. other corridors ok. did they change something or did we?"}
    sc.config = {"repo": "sendwise/remittances", "log_service_label": "app", "service_name": "remittance-service"}
    sc.truth = {"bucket": "infrastructure", "service": "remittance-service", "error_type": "tls", "file": vals, "line": L, "line_tolerance": 3,
                "fix_keywords": ["truststore", "G3", "root CA", "bundles", "certificate"]}
    return sc
