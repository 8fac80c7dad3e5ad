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
