"""Delivery fee and surge pricing."""
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
    """Surge multiplier for a zone at a given local time."""
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
