"""Food delivery quotes: FastAPI KeyError after zone config schema v2 (code reads the old key)."""
import datetime as dt

from sg import *

NAME = "quote-svc-surge-keyerror"


def build():
    sc = Scenario(NAME, "2026-08-21T14:05:00Z", """
        The 12:41 quote-svc commit reads zone_cfg["surge_multiplier"] directly, but zones migrated to the v2
        zone config (Lisbon and Porto since last week) carry the surge under zone_cfg["surge"]["multiplier"].
        Every quote for a v2 zone raises KeyError in pricing.delivery_fee and returns 500; other cities work.
        checkout-bff logs the most errors; the 13:10 menu-sync deploy and the Redis eviction warnings are
        unrelated.""", repo="brisa-eats/delivery-platform")
    ns = "delivery"
    bff = sc.svc("checkout-bff", ns, "nodejs", version="5.12.0", runtime="22.6.0", npods=2)
    q = sc.svc("quote-svc", ns, "python", version="2026.08.21-1", runtime="3.12.5", npods=2)
    menu = sc.svc("menu-sync", ns, "python", version="1.4.2", npods=1)
    rollout = sc.at("12:58:20")

    pr = "quote-svc/quote_svc/pricing.py"
    sc.file(pr, """
        \"\"\"Delivery fee and surge pricing.\"\"\"
        from __future__ import annotations

        import datetime as dt
        import logging
        from decimal import ROUND_HALF_UP, Decimal

        from quote_svc.zones import ZoneConfig

        log = logging.getLogger(__name__)

        BASE_FEE = Decimal("1.49")
        PER_KM = Decimal("0.35")
        MAX_SURGE = Decimal("2.5")


        def _peak(now: dt.datetime, peaks: list[tuple[int, int]]) -> bool:
            minutes = now.hour * 60 + now.minute
            return any(start <= minutes < end for start, end in peaks)


        def surge_for(zone_cfg: dict, now: dt.datetime) -> Decimal:
            \"\"\"Surge multiplier for a zone at a given local time.\"\"\"
            if not _peak(now, zone_cfg.get("peaks", [])):
                return Decimal("1")
            # Zone configs carry the multiplier set by the ops dashboard.
            surge = Decimal(str(zone_cfg["surge_multiplier"]))
            return min(surge, MAX_SURGE)


        def delivery_fee(zone: ZoneConfig, distance_km: float, now: dt.datetime) -> Decimal:
            fee = BASE_FEE + PER_KM * Decimal(str(distance_km))
            fee *= surge_for(zone.raw, now)
            if zone.raw.get("small_order_fee") and zone.basket_total < zone.raw["small_order_threshold"]:
                fee += Decimal(str(zone.raw["small_order_fee"]))
            return fee.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
        """)
    api = "quote-svc/quote_svc/api/quotes.py"
    sc.file(api, """
        from fastapi import APIRouter, Depends, HTTPException
        from pydantic import BaseModel

        from quote_svc import pricing
        from quote_svc.clock import local_now
        from quote_svc.zones import ZoneStore, get_zone_store

        router = APIRouter()


        class QuoteRequest(BaseModel):
            zone_id: str
            distance_km: float
            basket_total: float


        @router.post("/v1/quotes")
        async def create_quote(req: QuoteRequest, zones: ZoneStore = Depends(get_zone_store)):
            zone = await zones.get(req.zone_id, basket_total=req.basket_total)
            if zone is None:
                raise HTTPException(status_code=404, detail="unknown zone")
            now = local_now(zone.tz)
            fee = pricing.delivery_fee(zone, req.distance_km, now)
            return {"zone_id": req.zone_id, "delivery_fee": str(fee), "currency": zone.currency}
        """)
    sc.file("quote-svc/quote_svc/zones.py", """
        from __future__ import annotations

        import json
        from dataclasses import dataclass

        from redis.asyncio import Redis


        @dataclass
        class ZoneConfig:
            zone_id: str
            tz: str
            currency: str
            raw: dict
            basket_total: float = 0.0


        class ZoneStore:
            def __init__(self, redis: Redis):
                self._redis = redis

            async def get(self, zone_id: str, basket_total: float = 0.0) -> ZoneConfig | None:
                blob = await self._redis.get(f"zone:{zone_id}")
                if blob is None:
                    return None
                raw = json.loads(blob)
                return ZoneConfig(zone_id, raw["tz"], raw["currency"], raw, basket_total)
        """)
    sc.file("menu-sync/menu_sync/worker.py", """
        import logging

        log = logging.getLogger("menu_sync")

        BATCH_SIZE = 200


        def sync(partner, store):
            items = partner.fetch_menu()
            for i in range(0, len(items), BATCH_SIZE):
                store.upsert(items[i:i + BATCH_SIZE])
            log.info("menu synced partner=%s items=%d", partner.id, len(items))
        """)
    L = sc.line(pr, 'surge = Decimal(str(zone_cfg["surge_multiplier"]))')
    L_fee = sc.line(pr, "fee *= surge_for(zone.raw, now)")
    L_api = sc.line(api, "fee = pricing.delivery_fee(zone, req.distance_km, now)")

    sc.commit("2026-08-21T13:06:12Z", ("Inês Carvalho", "ines@brisa-eats.pt", "inescarv"),
              "menu-sync: batch upserts by 200", [("menu-sync/menu_sync/worker.py", "BATCH_SIZE = 50", "BATCH_SIZE = 200")])
    sc.commit("2026-08-21T12:41:55Z", ("Tomás Reis", "tomas@brisa-eats.pt", "treis"),
              """quote-svc: cap surge at 2.5x and read it from the zone config

              Ops asked for a hard cap after last Friday's 3.8x surge in Porto.""",
              [(pr, """    # Zone configs carry the multiplier set by the ops dashboard.
    v2 = zone_cfg.get("surge") or {}
    return Decimal(str(v2.get("multiplier", zone_cfg.get("surge_multiplier", 1))))""",
                """    # Zone configs carry the multiplier set by the ops dashboard.
    surge = Decimal(str(zone_cfg["surge_multiplier"]))
    return min(surge, MAX_SURGE)"""), (pr, "", 'MAX_SURGE = Decimal("2.5")\n')])

    tb = ("Traceback (most recent call last):\n"
          '  File "/usr/local/lib/python3.12/site-packages/uvicorn/protocols/http/httptools_impl.py", line 409, in run_asgi\n'
          "    result = await app(  # type: ignore[func-returns-value]\n"
          '  File "/usr/local/lib/python3.12/site-packages/starlette/routing.py", line 73, in app\n'
          "    response = await f(request)\n"
          '  File "/usr/local/lib/python3.12/site-packages/fastapi/routing.py", line 301, in app\n'
          "    raw_response = await run_endpoint_function(\n"
          '  File "/usr/local/lib/python3.12/site-packages/fastapi/routing.py", line 212, in run_endpoint_function\n'
          "    return await dependant.call(**values)\n"
          f'  File "/app/quote_svc/api/quotes.py", line {L_api}, in create_quote\n'
          "    fee = pricing.delivery_fee(zone, req.distance_km, now)\n"
          f'  File "/app/quote_svc/pricing.py", line {L_fee}, in delivery_fee\n'
          "    fee *= surge_for(zone.raw, now)\n"
          f'  File "/app/quote_svc/pricing.py", line {L}, in surge_for\n'
          '    surge = Decimal(str(zone_cfg["surge_multiplier"]))\n'
          "KeyError: 'surge_multiplier'")
    v2_zones = ["lis-baixa", "lis-alvalade", "opo-boavista", "opo-foz"]
    v1_zones = ["mad-centro", "mad-chamberi", "bcn-eixample", "bcn-gracia", "vlc-ruzafa", "sev-triana"]
    lab = lambda s, pod, lvl: {"service_name": s, "namespace": ns, "pod": pod, "level": lvl}
    t0, t1 = sc.at("12:30"), sc.at("14:03")

    def peak(t):
        return t.hour * 60 + t.minute >= 12 * 60 + 30  # lunch peak in local config

    def quote(t, zone):
        tr = sc.trace()
        st = us(t)
        fail = t >= rollout and zone in v2_zones and peak(t)
        bp, qp = bff.pod(), q.pod()
        d = sc.rng.randint(7_000, 14_000) if fail else sc.rng.randint(9_000, 22_000)
        root = tr.span(bff, "POST /api/checkout/quote", st, d + 4_000, pod=bp, error="" if fail else None,
                       tags=http_server("POST", "/api/checkout/quote", 502 if fail else 200, new=True, host="checkout-bff", port=3000,
                                        scope="@opentelemetry/instrumentation-http"))
        c = tr.span(bff, "POST", st + 1_000, d + 1_500, parent=root, kind="client", error="" if fail else None,
                    tags=http_client("POST", "http://quote-svc.delivery.svc:8000/v1/quotes", 500 if fail else 200, peer="quote-svc",
                                     **({"error.type": "500"} if fail else {})))
        s = tr.span(q, "POST /v1/quotes", st + 1_500, d, parent=c, pod=qp, error="KeyError: 'surge_multiplier'" if fail else None,
                    tags=http_server("POST", "/v1/quotes", 500 if fail else 200, host="quote-svc", port=8000,
                                     scope="opentelemetry.instrumentation.fastapi", **({"error.type": "KeyError"} if fail else {})),
                    events=[exc_event(st + 1_500 + d - 900, "KeyError", "'surge_multiplier'", tb)] if fail else None)
        tr.span(q, "GET", st + 2_000, sc.rng.randint(600, 1_800), parent=s, kind="client",
                tags=db("redis", "GET zone:?", "0", "redis-zones.delivery.svc", 6379, "GET"))
        if fail:
            sc.log(lab("quote-svc", qp, "error"), from_us(st + 1_500 + d - 700), json.dumps({
                "asctime": from_us(st + 1_500 + d - 700).strftime("%Y-%m-%d %H:%M:%S,%f")[:-3], "levelname": "ERROR",
                "name": "uvicorn.error", "message": "Exception in ASGI application", "otelTraceID": tr.id,
                "otelSpanID": s["spanID"], "otelServiceName": "quote-svc", "exc_info": tb}))
            sc.log(lab("checkout-bff", bp, "error"), from_us(st + d + 3_500), json.dumps({
                "level": "error", "timestamp": iso(from_us(st + d + 3_500), 3), "context": "QuoteClient",
                "message": "quote-svc responded 500 Internal Server Error", "zoneId": zone, "traceId": tr.id}))
        else:
            sc.log(lab("quote-svc", qp, "info"), from_us(st + 1_500 + d), json.dumps({
                "asctime": from_us(st + 1_500 + d).strftime("%Y-%m-%d %H:%M:%S,%f")[:-3], "levelname": "INFO",
                "name": "uvicorn.access", "message": f'{bff.ips[bp]}:{sc.rng.randint(30000, 60000)} - "POST /v1/quotes HTTP/1.1" 200',
                "otelTraceID": tr.id, "otelSpanID": s["spanID"], "otelServiceName": "quote-svc"}))

    for t in sc.times(t0, t1, 24):
        quote(t, sc.rng.choice(v1_zones + v2_zones))
    quote(sc.at("13:01:07.2"), "lis-baixa")
    quote(sc.at("13:47:31"), "opo-foz")
    for t in sc.times(t0, t1, 160):
        qp = q.pod()
        zone = sc.rng.choice(v1_zones + v2_zones)
        if t >= rollout and zone in v2_zones and peak(t):
            sc.log(lab("quote-svc", qp, "error"), t, json.dumps({
                "asctime": t.strftime("%Y-%m-%d %H:%M:%S,%f")[:-3], "levelname": "ERROR", "name": "uvicorn.error",
                "message": "Exception in ASGI application", "otelTraceID": "0", "otelSpanID": "0", "otelServiceName": "quote-svc", "exc_info": tb}))
            sc.log(lab("checkout-bff", bff.pod(), "error"), t + dt.timedelta(milliseconds=6), json.dumps({
                "level": "error", "timestamp": iso(t + dt.timedelta(milliseconds=6), 3), "context": "QuoteClient",
                "message": "quote-svc responded 500 Internal Server Error", "zoneId": zone}))
            sc.log(lab("checkout-bff", bff.pod(), "warn"), t + dt.timedelta(milliseconds=9), json.dumps({
                "level": "warn", "timestamp": iso(t + dt.timedelta(milliseconds=9), 3), "context": "CheckoutController",
                "message": "checkout blocked: no delivery quote", "zoneId": zone}))
        else:
            sc.log(lab("quote-svc", qp, "info"), t, json.dumps({
                "asctime": t.strftime("%Y-%m-%d %H:%M:%S,%f")[:-3], "levelname": "INFO", "name": "uvicorn.access",
                "message": f'10.42.{sc.rng.randint(1, 9)}.{sc.rng.randint(2, 250)}:{sc.rng.randint(30000, 60000)} - "POST /v1/quotes HTTP/1.1" 200',
                "otelTraceID": "0", "otelSpanID": "0", "otelServiceName": "quote-svc"}))
    for t in sc.times(t0, t1, 20):
        sc.log(lab("menu-sync", menu.pods[0], "warn"), t, json.dumps({
            "asctime": t.strftime("%Y-%m-%d %H:%M:%S,%f")[:-3], "levelname": "WARNING", "name": "menu_sync.cache",
            "message": "redis evicted keys while writing menu batch (maxmemory-policy allkeys-lru)", "evicted": sc.rng.randint(3, 80)}))
    for p in q.pods:
        t = rollout + dt.timedelta(seconds=sc.rng.randint(2, 30))
        sc.log(lab("quote-svc", p, "info"), t, json.dumps({"asctime": t.strftime("%Y-%m-%d %H:%M:%S,%f")[:-3], "levelname": "INFO",
                                                          "name": "uvicorn.error", "message": "Application startup complete."}))

    m0, m1 = sc.at("12:20"), sc.at("14:04")
    on = lambda t: t >= rollout + dt.timedelta(seconds=30) and peak(t)
    sc.counter({"__name__": "http_server_duration_milliseconds_count", "job": "quote-svc", "service_name": "quote-svc",
                "http_route": "/v1/quotes", "http_status_code": "200"}, m0, m1, lambda t: 22 * (0.62 if on(t) else 1), initial=4_100_223)
    sc.counter({"__name__": "http_server_duration_milliseconds_count", "job": "quote-svc", "service_name": "quote-svc",
                "http_route": "/v1/quotes", "http_status_code": "500"}, m0, m1, lambda t: 8.4 if on(t) else 0.0, initial=311)
    sc.gauge({"__name__": "redis_evicted_keys_total", "job": "redis-exporter", "instance": "redis-zones:9121"}, m0, m1,
             lambda t: 18_000 + (t - m0).total_seconds() * 0.9)
    sc.config = {"repo": "brisa-eats/delivery-platform", "namespace": ns}
    sc.trigger = {"mention": "@autoheal quote-svc returning 500s for lisbon + porto zones, checkout blocked there. started after lunch deploy i think?"}
    sc.truth = {"bucket": "code_bug", "service": "quote-svc", "error_type": "runtime_error", "file": pr, "line": L,
                "line_tolerance": 3, "fix_keywords": ["surge", ".get(", "multiplier", "KeyError"]}
    return sc
