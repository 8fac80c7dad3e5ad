"""Neo-bank login OTPs: the third-party SMS provider degrades (503/timeouts). No repo, no changes: the engine must still name service and bucket."""
import datetime as dt

from sg import *

NAME = "otp-sms-provider-outage"


def build():
    sc = Scenario(NAME, "2026-07-28T20:18:00Z", """
        From 19:36 the SMS provider's EU API (api.eu.textrelay.example) answers most send requests with 503
        Service Unavailable or times out after 5 s (their status page later confirmed a regional outage). sms-gateway
        retries and then gives up, so login and payment-confirmation OTPs are not delivered; auth-service is the
        loud one (\"OTP delivery failed\" errors and the alert) but only forwards sms-gateway's failure. Nothing was
        deployed; the right action is operational: fail over to the secondary provider / enable the email OTP
        fallback. This incident has no repository or change history configured.""")
    ns = "identity"
    auth = sc.svc("auth-service", ns, "java", version="9.1.2", runtime="21.0.4+7-LTS", npods=3)
    smsg = sc.svc("sms-gateway", "messaging", "go", version="2.4.0", runtime="go1.22.6", npods=2)
    start = sc.at("19:36:20")

    lab = lambda s, pod, lvl, nsx: {"service_name": s, "namespace": nsx, "pod": pod, "level": lvl}
    t0, t1 = sc.at("19:00"), sc.at("20:16")
    prov = "https://api.eu.textrelay.example/v2/messages"

    def otp(t):
        bad = t >= start and sc.rng.random() < 0.82
        tr = sc.trace()
        st = us(t)
        ap = auth.pod()
        gp = smsg.pod()
        attempts = []
        if bad:
            for a in range(3):
                attempts.append(("timeout", 5_000_000) if sc.rng.random() < 0.4 else ("503", sc.rng.randint(80_000, 300_000)))
        else:
            attempts.append(("201", sc.rng.randint(120_000, 400_000)))
        total_g = sum(d for _, d in attempts) + 250_000 * (len(attempts) - 1) + 4_000
        root = tr.span(auth, "POST /api/v1/login/otp", st, total_g + 12_000, pod=ap, error="" if bad else None,
                       tags=http_server("POST", "/api/v1/login/otp", 502 if bad else 202, host="auth.novabank.eu", port=8080, scope="io.opentelemetry.tomcat-10.0"))
        c = tr.span(auth, "POST", st + 3_000, total_g + 2_000, parent=root, kind="client", error="" if bad else None,
                    tags=http_client("POST", "http://sms-gateway.messaging.svc:8080/v1/sms", 502 if bad else 202, peer="sms-gateway"))
        g = tr.span(smsg, "POST /v1/sms", st + 3_600, total_g, parent=c, pod=gp,
                    error="provider send failed after 3 attempts" if bad else None,
                    tags=http_server("POST", "/v1/sms", 502 if bad else 202, host="sms-gateway", port=8080,
                                     scope="go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp", **{"app.sms.purpose": "login_otp"}))
        off = st + 4_500
        for a, (kind, d) in enumerate(attempts):
            if kind == "timeout":
                tr.span(smsg, "POST", off, d, parent=g, kind="client", error='Post "https://api.eu.textrelay.example/v2/messages": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
                        tags=http_client("POST", prov, None, peer="textrelay", **{"http.request.resend_count": a} if a else {}),
                        events=[exc_event(off + d, "*url.Error", 'Post "https://api.eu.textrelay.example/v2/messages": context deadline exceeded (Client.Timeout exceeded while awaiting headers)', None, style="msgonly")])
            else:
                code = int(kind)
                tr.span(smsg, "POST", off, d, parent=g, kind="client", error="503 Service Unavailable" if code >= 500 else None,
                        tags=http_client("POST", prov, code, peer="textrelay", **({"http.request.resend_count": a} if a else {})))
            off += d + 250_000
        if bad:
            tt = from_us(st + 3_600 + total_g)
            sc.log(lab("sms-gateway", gp, "error", "messaging"), tt, json.dumps({
                "time": iso(tt, 6), "level": "ERROR", "msg": "provider send failed", "provider": "textrelay", "attempts": 3,
                "last_status": attempts[-1][0], "purpose": "login_otp", "trace_id": tr.id,
                "err": "textrelay: 503 Service Unavailable: {\"error\":\"upstream_unavailable\",\"message\":\"Service temporarily unavailable, please retry\"}"
                if attempts[-1][0] == "503" else "Post \"https://api.eu.textrelay.example/v2/messages\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)"}))
            sc.log(lab("auth-service", ap, "error", ns), tt + dt.timedelta(milliseconds=8), java_log_spring(
                tt + dt.timedelta(milliseconds=8), "ERROR", "auth-service", f"http-nio-8080-exec-{sc.rng.randint(1, 80)}", "c.n.auth.otp.OtpDeliveryService",
                "OTP delivery failed for session " + sc.uuid() + ": sms-gateway responded 502 Bad Gateway", tr.id, root["spanID"]))
        else:
            tt = from_us(st + 3_600 + total_g)
            sc.log(lab("sms-gateway", gp, "info", "messaging"), tt, json.dumps({"time": iso(tt, 6), "level": "INFO", "msg": "sms accepted by provider",
                                                                                "provider": "textrelay", "provider_id": "msg_" + sc.hex(16), "trace_id": tr.id}))

    for t in sc.times(t0, t1, 26):
        otp(t)
    for t in sc.times(t0, t1, 150):
        bad = t >= start and sc.rng.random() < 0.82
        if bad:
            sc.log(lab("sms-gateway", smsg.pod(), "warn", "messaging"), t, json.dumps({
                "time": iso(t, 6), "level": "WARN", "msg": "provider send attempt failed, retrying", "provider": "textrelay", "attempt": sc.rng.randint(1, 2),
                "status": sc.rng.choice([503, 503, 0])}))
            sc.log(lab("auth-service", auth.pod(), "error", ns), t + dt.timedelta(milliseconds=600), java_log_spring(
                t + dt.timedelta(milliseconds=600), "ERROR", "auth-service", f"http-nio-8080-exec-{sc.rng.randint(1, 80)}", "c.n.auth.otp.OtpDeliveryService",
                "OTP delivery failed for session " + sc.uuid() + ": sms-gateway responded 502 Bad Gateway"))
        else:
            sc.log(lab("sms-gateway", smsg.pod(), "info", "messaging"), t, json.dumps({"time": iso(t, 6), "level": "INFO", "msg": "sms accepted by provider",
                                                                                     "provider": "textrelay", "provider_id": "msg_" + sc.hex(16)}))
    for t in sc.times(t0, t1, 20):
        sc.log(lab("auth-service", auth.pod(), "warn", ns), t, java_log_spring(t, "WARN", "auth-service", "scheduling-1", "c.n.auth.jwks.JwksRotation",
                                                                              "JWKS key kid=2026-07 expires in 3 days, next key already published"))

    m0, m1 = sc.at("18:50"), sc.at("20:17")
    on = lambda t: t >= start
    sc.counter({"__name__": "sms_provider_requests_total", "job": "sms-gateway", "provider": "textrelay", "code": "503"}, m0, m1,
               lambda t: 9.5 if on(t) else 0.01, initial=2_211)
    sc.counter({"__name__": "sms_provider_requests_total", "job": "sms-gateway", "provider": "textrelay", "code": "timeout"}, m0, m1,
               lambda t: 6.0 if on(t) else 0.002, initial=310)
    sc.counter({"__name__": "sms_provider_requests_total", "job": "sms-gateway", "provider": "textrelay", "code": "201"}, m0, m1,
               lambda t: 1.1 if on(t) else 6.3, initial=39_002_116)
    sc.gauge({"__name__": "probe_success", "job": "blackbox", "instance": "https://api.eu.textrelay.example/health"}, m0, m1,
             lambda t: (0 if sc.rng.random() < 0.7 else 1) if on(t) else 1)
    sc.gauge({"__name__": "probe_http_duration_seconds", "job": "blackbox", "instance": "https://api.eu.textrelay.example/health", "phase": "processing"},
             m0, m1, lambda t: sc.rng.uniform(2.5, 5) if on(t) else sc.rng.uniform(0.04, 0.12))

    a1 = alert(sc, {"alertname": "LoginOtpDeliveryFailing", "service": "auth-service", "namespace": ns, "severity": "page", "team": "identity"},
               {"summary": "Login OTP delivery failing", "description": "78% of OTP deliveries failed in the last 10 minutes; users cannot log in."},
               sc.at("19:46:00"), 'sum(rate(otp_delivery_total{result="failed"}[10m])) / sum(rate(otp_delivery_total[10m])) > 0.2',
               prom="http://prometheus.monitoring.svc:9090")
    a2 = alert(sc, {"alertname": "BlackboxProbeFailed", "instance": "https://api.eu.textrelay.example/health", "job": "blackbox", "severity": "warning",
                    "team": "identity"},
               {"summary": "Probe failed", "description": "Probe to https://api.eu.textrelay.example/health failing."},
               sc.at("19:40:30"), "probe_success == 0", prom="http://prometheus.monitoring.svc:9090")
    sc.trigger = {"alert": webhook([a1, a2], ["team"], "autoheal-identity", "https://alertmanager.novabank.eu", route_key='{}/{team="identity"}', truncated=0)}
    sc.config = {"namespace": ns}
    sc.truth = {"bucket": "infrastructure", "service": "sms-gateway", "error_type": "dependency",
                "fix_keywords": ["provider", "failover", "fallback", "secondary"]}
    return sc
