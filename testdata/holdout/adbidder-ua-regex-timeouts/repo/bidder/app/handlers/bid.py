import logging
import time

from fastapi import APIRouter, Request
from opentelemetry import trace

from app.models.ctr import CtrClient
from app.pacing import Pacer
from app.targeting.device import classify
from app.targeting.match import eligible_line_items

router = APIRouter()
tracer = trace.get_tracer(__name__)
log = logging.getLogger("bidder.bid")

SLOW_MS = 40


@router.post("/bid")
async def bid(request: Request):
    started = time.perf_counter()
    br = await request.json()
    device = br.get("device", {})
    with tracer.start_as_current_span("targeting.classify_device"):
        t0 = time.perf_counter()
        device_type = classify(device.get("ua", ""), device.get("devicetype"))
        classify_ms = (time.perf_counter() - t0) * 1000
    items = eligible_line_items(br, device_type)
    if not items:
        return {"id": br["id"], "nbr": 8}
    scores = await CtrClient.get().score(br, items)
    bids = await Pacer.get().apply(items, scores)
    total_ms = (time.perf_counter() - started) * 1000
    if total_ms > SLOW_MS:
        log.warning("slow bid", extra={"request_id": br["id"], "total_ms": round(total_ms, 1), "classify_ms": round(classify_ms, 1),
                                        "device_type": device_type.value, "exchange": br.get("ext", {}).get("exchange")})
    return {"id": br["id"], "seatbid": [{"bid": bids}]}
