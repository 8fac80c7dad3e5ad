"""Payments (.NET client): fraud-scoring's serving certificate expired because cert-manager could not renew it (issuer renamed)."""
import datetime as dt

from sg import *

NAME = "fraud-scoring-cert-expired-issuer-renamed"


def build():
    sc = Scenario(NAME, "2026-04-15T06:40:00Z", """
        fraud-scoring serves HTTPS on 8443 with a cert-manager certificate that expired at 06:00:12. Renewal has
        been failing since 14 March: the platform commit that replaced the ClusterIssuer internal-ca with
        mesh-internal-ca left deploy/certs/fraud-scoring.yaml pointing at issuerRef internal-ca, so every
        CertificateRequest stays pending (issuer not found) and nobody noticed until expiry. Since 06:00 every
        call from PaymentGateway (.NET) fails the TLS handshake (NotTimeValid), card authorisations fall back to
        manual review and the PaymentGateway alert fires. Fix the issuerRef (and force a renewal); no code change.
        PaymentGateway's retry-policy commit yesterday and the settlement batch warnings are unrelated.""",
                  repo="northbeam-pay/platform")
    ns_pay, ns_risk = "payments", "risk"
    pg = sc.svc("PaymentGateway", ns_pay, "dotnet", version="12.8.0", runtime=".NET 8.0.8", npods=3, deploy="payment-gateway")
    fs = sc.svc("fraud-scoring", ns_risk, "python", version="2.3.1", npods=2)
    settle = sc.svc("settlement-batch", ns_pay, "java", npods=1)
    expiry = sc.at("06:00:12")

    cert = "deploy/certs/fraud-scoring.yaml"
    sc.file(cert, """
        apiVersion: cert-manager.io/v1
        kind: Certificate
        metadata:
          name: fraud-scoring-tls
          namespace: risk
        spec:
          secretName: fraud-scoring-tls
          duration: 2160h # 90d
          renewBefore: 720h # 30d
          commonName: fraud-scoring.risk.svc
          dnsNames:
            - fraud-scoring.risk.svc
            - fraud-scoring.risk.svc.cluster.local
          privateKey:
            algorithm: ECDSA
            size: 256
          usages:
            - server auth
          issuerRef:
            kind: ClusterIssuer
            name: internal-ca
        """)
    iss = "deploy/cluster/issuers.yaml"
    sc.file(iss, """
        apiVersion: cert-manager.io/v1
        kind: ClusterIssuer
        metadata:
          name: mesh-internal-ca
        spec:
          ca:
            secretName: mesh-internal-ca-keypair
        """)
    pol = "services/payment-gateway/src/PaymentGateway/Resilience/FraudClientPolicy.cs"
    sc.file(pol, """
        using System;
        using Microsoft.Extensions.Http.Resilience;

        namespace PaymentGateway.Resilience;

        public static class FraudClientPolicy
        {
            public static void Configure(HttpStandardResilienceOptions o)
            {
                o.Retry.MaxRetryAttempts = 2;
                o.Retry.Delay = TimeSpan.FromMilliseconds(150);
                o.AttemptTimeout.Timeout = TimeSpan.FromSeconds(2);
                o.TotalRequestTimeout.Timeout = TimeSpan.FromSeconds(6);
            }
        }
        """)
    L = sc.line(cert, "name: internal-ca")
    sc.commit("2026-04-14T16:22:05Z", ("Aisha Bello", "aisha@northbeam.io", "abello"), "PaymentGateway: two retries for fraud checks",
              [(pol, "        o.Retry.MaxRetryAttempts = 1;", "        o.Retry.MaxRetryAttempts = 2;")], merged_by_github=True)
    sc.commit("2026-03-14T10:05:44Z", ("Jonas Lindqvist", "jonas@northbeam.io", "jlindqvist"),
              """platform: move internal CA to the mesh CA keypair (PLAT-402)

              Replace ClusterIssuer internal-ca by mesh-internal-ca so workload and
              mesh certificates chain to the same root.""",
              [(iss, """metadata:
  name: internal-ca
spec:
  ca:
    secretName: internal-ca-keypair""", """metadata:
  name: mesh-internal-ca
spec:
  ca:
    secretName: mesh-internal-ca-keypair""")], merged_by_github=True)

    net_stack = ("System.Net.Http.HttpRequestException: The SSL connection could not be established, see inner exception.\n"
                 " ---> System.Security.Authentication.AuthenticationException: The remote certificate is invalid because of errors in the certificate chain: NotTimeValid\n"
                 "   at System.Net.Security.SslStream.SendAuthResetSignal(ReadOnlySpan`1 alert, ExceptionDispatchInfo exception)\n"
                 "   at System.Net.Security.SslStream.CompleteHandshake(SslAuthenticationOptions sslAuthenticationOptions)\n"
                 "   at System.Net.Security.SslStream.ForceAuthenticationAsync[TIOAdapter](Boolean receiveFirst, Byte[] reAuthenticationData, CancellationToken cancellationToken)\n"
                 "   at System.Net.Http.ConnectHelper.EstablishSslConnectionAsync(SslClientAuthenticationOptions sslOptions, HttpRequestMessage request, Boolean async, Stream stream, CancellationToken cancellationToken)\n"
                 "   --- End of inner exception stack trace ---\n"
                 "   at System.Net.Http.ConnectHelper.EstablishSslConnectionAsync(SslClientAuthenticationOptions sslOptions, HttpRequestMessage request, Boolean async, Stream stream, CancellationToken cancellationToken)\n"
                 "   at System.Net.Http.HttpConnectionPool.ConnectAsync(HttpRequestMessage request, Boolean async, CancellationToken cancellationToken)\n"
                 "   at System.Net.Http.HttpConnectionPool.CreateHttp11ConnectionAsync(HttpRequestMessage request, Boolean async, CancellationToken cancellationToken)\n"
                 "   at Microsoft.Extensions.Http.Resilience.ResilienceHandler.SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)\n"
                 "   at PaymentGateway.Fraud.FraudClient.ScoreAsync(AuthorizationRequest request, CancellationToken ct) in /src/PaymentGateway/Fraud/FraudClient.cs:line 48\n"
                 "   at PaymentGateway.Authorization.AuthorizeHandler.Handle(AuthorizeCommand cmd, CancellationToken ct) in /src/PaymentGateway/Authorization/AuthorizeHandler.cs:line 71")
    lab = lambda s, pod, lvl, nsx: {"service_name": s, "namespace": nsx, "pod": pod, "level": lvl}
    t0, t1 = sc.at("05:20"), sc.at("06:38")

    def auth(t):
        bad = t >= expiry
        tr = sc.trace()
        st = us(t)
        p = pg.pod()
        if bad:
            d = sc.rng.randint(40_000, 90_000)
            s = tr.span(pg, "POST api/payments/authorize", st, d + 14_000, pod=p,
                        tags=http_server("POST", "api/payments/authorize", 202, host="payment-gateway.payments.svc", port=8080, scope="Microsoft.AspNetCore",
                                         **{"app.authorization.outcome": "manual_review"}))
            off = st + 2_000
            for a in range(3):
                dd = sc.rng.randint(3_000, 9_000)
                tr.span(pg, "POST", off, dd, parent=s, kind="client", error="The SSL connection could not be established, see inner exception.",
                        tags=http_client("POST", "https://fraud-scoring.risk.svc:8443/v2/score", None, peer="fraud-scoring",
                                         **{"error.type": "System.Net.Http.HttpRequestException", "http.request.resend_count": a} if a else
                                         {"error.type": "System.Net.Http.HttpRequestException"}),
                        events=[exc_event(off + dd - 100, "System.Net.Http.HttpRequestException",
                                          "The SSL connection could not be established, see inner exception.", net_stack, style="Error")])
                off += dd + 150_00 if a < 2 else dd
            sc.log(lab("PaymentGateway", p, "warn", ns_pay), from_us(off + 500), json.dumps({
                "@t": iso(from_us(off + 500), 6), "@mt": "Fraud scoring unavailable for {AuthorizationId}, routing to manual review",
                "@l": "Warning", "@x": net_stack, "AuthorizationId": "az_" + sc.hex(12), "SourceContext": "PaymentGateway.Authorization.AuthorizeHandler",
                "TraceId": tr.id, "SpanId": s["spanID"]}))
        else:
            d = sc.rng.randint(25_000, 60_000)
            s = tr.span(pg, "POST api/payments/authorize", st, d + 12_000, pod=p,
                        tags=http_server("POST", "api/payments/authorize", 200, host="payment-gateway.payments.svc", port=8080, scope="Microsoft.AspNetCore",
                                         **{"app.authorization.outcome": "approved"}))
            c = tr.span(pg, "POST", st + 2_000, d, parent=s, kind="client",
                        tags=http_client("POST", "https://fraud-scoring.risk.svc:8443/v2/score", 200, peer="fraud-scoring"))
            tr.span(fs, "POST /v2/score", st + 3_500, d - 2_500, parent=c,
                    tags=http_server("POST", "/v2/score", 200, host="fraud-scoring.risk.svc", port=8443, scope="opentelemetry.instrumentation.fastapi"))
            sc.log(lab("PaymentGateway", p, "info", ns_pay), from_us(st + d + 11_000), json.dumps({
                "@t": iso(from_us(st + d + 11_000), 6), "@mt": "Authorization {AuthorizationId} approved in {ElapsedMs} ms", "@l": "Information",
                "AuthorizationId": "az_" + sc.hex(12), "ElapsedMs": (d + 12_000) // 1000, "SourceContext": "PaymentGateway.Authorization.AuthorizeHandler",
                "TraceId": tr.id, "SpanId": s["spanID"]}))

    for t in sc.times(t0, t1, 24):
        auth(t)
    auth(sc.at("06:00:40"))
    for t in sc.times(t0, t1, 130):
        if t >= expiry:
            sc.log(lab("PaymentGateway", pg.pod(), "warn", ns_pay), t, json.dumps({
                "@t": iso(t, 6), "@mt": "Fraud scoring unavailable for {AuthorizationId}, routing to manual review", "@l": "Warning",
                "@x": net_stack, "AuthorizationId": "az_" + sc.hex(12), "SourceContext": "PaymentGateway.Authorization.AuthorizeHandler"}))
            sc.log(lab("fraud-scoring", fs.pod(), "warn", ns_risk), t + dt.timedelta(milliseconds=1),
                   f"{t.strftime('%Y-%m-%d %H:%M:%S,%f')[:-3]} WARNING uvicorn.error: Invalid HTTP request received. "
                   "ssl.SSLError: [SSL: SSLV3_ALERT_CERTIFICATE_EXPIRED] sslv3 alert certificate expired (_ssl.c:2580)")
        else:
            sc.log(lab("fraud-scoring", fs.pod(), "info", ns_risk), t,
                   f'{t.strftime("%Y-%m-%d %H:%M:%S,%f")[:-3]} INFO uvicorn.access: 10.42.{sc.rng.randint(1, 9)}.{sc.rng.randint(2, 250)}:{sc.rng.randint(30000, 60000)} - "POST /v2/score HTTP/1.1" 200')
    for t in sc.times(t0, t1, 20):
        sc.log(lab("settlement-batch", settle.pods[0], "warn", ns_pay), t, java_log_spring(
            t, "WARN", "settlement-batch", "scheduling-1", "c.n.settlement.AcquirerFileWatcher", "acquirer file ACQ-20260415-01 not yet available, retrying in 5m"))
    cm = {"job": "cert-manager", "namespace": "cert-manager"}
    m0, m1 = sc.at("05:00"), sc.at("06:39")
    sc.gauge({"__name__": "certmanager_certificate_expiration_timestamp_seconds", **cm, "name": "fraud-scoring-tls", "exported_namespace": ns_risk,
              "issuer_kind": "ClusterIssuer", "issuer_name": "internal-ca"}, m0, m1, lambda t: int(expiry.timestamp()))
    sc.gauge({"__name__": "certmanager_certificate_ready_status", **cm, "name": "fraud-scoring-tls", "exported_namespace": ns_risk, "condition": "True"},
             m0, m1, lambda t: 0)
    sc.gauge({"__name__": "certmanager_certificate_expiration_timestamp_seconds", **cm, "name": "payment-gateway-tls", "exported_namespace": ns_pay,
              "issuer_kind": "ClusterIssuer", "issuer_name": "mesh-internal-ca"}, m0, m1, lambda t: int(ts("2026-06-30T09:12:00Z").timestamp()))
    sc.counter({"__name__": "paymentgateway_authorizations_total", "job": "payment-gateway", "outcome": "manual_review"}, m0, m1,
               lambda t: 11 if t >= expiry else 0.05, initial=3_031)
    sc.counter({"__name__": "paymentgateway_authorizations_total", "job": "payment-gateway", "outcome": "approved"}, m0, m1,
               lambda t: 0.3 if t >= expiry else 10.5, initial=48_112_903)

    k = sc.k8s = K8s(sc)
    issued = expiry - dt.timedelta(days=90)
    k.raw({"apiVersion": "cert-manager.io/v1", "kind": "Certificate", "metadata": k.meta("fraud-scoring-tls", ns_risk, ts("2025-07-17T06:00:00Z"), generation=4),
           "spec": {"secretName": "fraud-scoring-tls", "duration": "2160h0m0s", "renewBefore": "720h0m0s", "commonName": "fraud-scoring.risk.svc",
                    "dnsNames": ["fraud-scoring.risk.svc", "fraud-scoring.risk.svc.cluster.local"], "usages": ["server auth"],
                    "privateKey": {"algorithm": "ECDSA", "size": 256}, "issuerRef": {"kind": "ClusterIssuer", "name": "internal-ca", "group": "cert-manager.io"}},
           "status": {"notBefore": iso(issued), "notAfter": iso(expiry), "renewalTime": iso(expiry - dt.timedelta(days=30)), "revision": 3,
                      "failedIssuanceAttempts": 7, "lastFailureTime": iso(sc.at("04:12:00")),
                      "conditions": [{"type": "Ready", "status": "False", "reason": "Expired", "observedGeneration": 4,
                                      "message": f"Certificate expired on {expiry.strftime('%a, %d %b %Y %H:%M:%S UTC')}", "lastTransitionTime": iso(expiry)},
                                     {"type": "Issuing", "status": "True", "reason": "Renewing", "observedGeneration": 4,
                                      "message": "Renewing certificate as renewal was scheduled at " + (expiry - dt.timedelta(days=30)).strftime('%Y-%m-%d %H:%M:%S +0000 UTC'),
                                      "lastTransitionTime": iso(expiry - dt.timedelta(days=30))}]}})
    crname = "fraud-scoring-tls-4"
    k.raw({"apiVersion": "cert-manager.io/v1", "kind": "CertificateRequest", "metadata": k.meta(crname, ns_risk, sc.at("04:12:00"),
           annotations={"cert-manager.io/certificate-name": "fraud-scoring-tls", "cert-manager.io/certificate-revision": "4"}),
           "spec": {"issuerRef": {"kind": "ClusterIssuer", "name": "internal-ca", "group": "cert-manager.io"}, "usages": ["server auth"]},
           "status": {"conditions": [{"type": "Approved", "status": "True", "reason": "cert-manager.io", "message": "Certificate request has been approved by cert-manager.io",
                                      "lastTransitionTime": iso(sc.at("04:12:00"))},
                                     {"type": "Ready", "status": "False", "reason": "Pending",
                                      "message": 'Referenced "ClusterIssuer" not found: clusterissuer.cert-manager.io "internal-ca" not found',
                                      "lastTransitionTime": iso(sc.at("04:12:00"))}]}})
    k.raw({"apiVersion": "cert-manager.io/v1", "kind": "ClusterIssuer", "metadata": k.meta("mesh-internal-ca", None, ts("2026-03-14T10:20:00Z")),
           "spec": {"ca": {"secretName": "mesh-internal-ca-keypair"}},
           "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "KeyPairVerified", "message": "Signing CA verified",
                                      "lastTransitionTime": iso(ts("2026-03-14T10:20:05Z"))}]}})
    k.event(ns_risk, "CertificateRequest", crname, "IssuerNotFound", 'Referenced "ClusterIssuer" not found: clusterissuer.cert-manager.io "internal-ca" not found',
            sc.at("04:12:00"), sc.at("06:12:00"), 3, "Warning", component="cert-manager-certificaterequests-issuer-ca", api_version="cert-manager.io/v1")
    k.event(ns_risk, "Certificate", "fraud-scoring-tls", "Expired", f"Certificate expired on {expiry.strftime('%a, %d %b %Y %H:%M:%S UTC')}",
            expiry, etype="Warning", component="cert-manager-certificates-readiness", api_version="cert-manager.io/v1")
    nodes = ["aks-nodepool1-40213377-vmss000003", "aks-nodepool1-40213377-vmss000004"]
    fctr = container_spec("fraud-scoring", "northbeam.azurecr.io/risk/fraud-scoring:2.3.1", 8443, port_name="https",
                          args=["uvicorn", "fraud.app:app", "--host", "0.0.0.0", "--port", "8443", "--ssl-keyfile", "/tls/tls.key", "--ssl-certfile", "/tls/tls.crt"],
                          requests={"cpu": "1", "memory": "1Gi"}, limits={"memory": "2Gi"},
                          readiness={"tcpSocket": {"port": 8443}, "periodSeconds": 10, "timeoutSeconds": 1, "successThreshold": 1, "failureThreshold": 3},
                          volume_mounts=[{"name": "tls", "mountPath": "/tls", "readOnly": True}])
    workload(k, fs, fctr, nodes, ts("2025-07-17T06:00:00Z"), ts("2026-04-02T09:00:00Z"), 22, labels={"app": "fraud-scoring"})
    gctr = container_spec("payment-gateway", "northbeam.azurecr.io/payments/payment-gateway:12.8.0", 8080,
                          env={"Fraud__BaseUrl": "https://fraud-scoring.risk.svc:8443", "ASPNETCORE_ENVIRONMENT": "Production"},
                          requests={"cpu": "500m", "memory": "512Mi"}, limits={"memory": "1Gi"}, readiness=http_probe("/health/ready", 8080, 5))
    workload(k, pg, gctr, nodes, ts("2024-01-01T00:00:00Z"), ts("2026-04-14T16:50:00Z"), 310, labels={"app": "payment-gateway"})
    k.secret("fraud-scoring-tls", ns_risk, ts("2025-07-17T06:00:05Z"), ["ca.crt", "tls.crt", "tls.key"], stype="kubernetes.io/tls",
             annotations={"cert-manager.io/certificate-name": "fraud-scoring-tls", "cert-manager.io/issuer-kind": "ClusterIssuer",
                          "cert-manager.io/issuer-name": "internal-ca", "cert-manager.io/common-name": "fraud-scoring.risk.svc"})

    a = alert(sc, {"alertname": "PaymentGatewayManualReviewSpike", "service": "PaymentGateway", "namespace": ns_pay, "severity": "page", "team": "payments"},
              {"summary": "Card authorisations falling back to manual review",
               "description": "97% of authorisations in the last 10 minutes were routed to manual review (fraud check unavailable)."},
              sc.at("06:08:00"), 'sum(rate(paymentgateway_authorizations_total{outcome="manual_review"}[5m])) / sum(rate(paymentgateway_authorizations_total[5m])) > 0.1')
    sc.trigger = {"alert": webhook([a], ["alertname", "service"], "autoheal-payments", "https://alertmanager.northbeam.io", route_key='{}/{team="payments"}')}
    sc.config = {"repo": "northbeam-pay/platform"}
    sc.truth = {"bucket": "infrastructure", "service": "fraud-scoring", "error_type": "tls", "file": cert, "line": L,
                "line_tolerance": 2, "fix_keywords": ["issuerRef", "mesh-internal-ca", "ClusterIssuer", "renew", "certificate"]}
    return sc
