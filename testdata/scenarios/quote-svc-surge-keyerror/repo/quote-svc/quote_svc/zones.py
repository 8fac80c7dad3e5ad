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
