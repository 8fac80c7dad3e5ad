"""Read-through cache for profiles (ElastiCache Redis, shared cluster)."""
import asyncio
import json
import logging

from redis import asyncio as aioredis

from app.settings import settings

log = logging.getLogger("profile.cache")

redis = aioredis.from_url(settings.redis_url, max_connections=50, decode_responses=True)

# The profile page must render fast; a slow cache is treated as a miss.
CACHE_TIMEOUT_S = 0.05
PROFILE_TTL_S = 900


async def get_cached_profile(user_id: str) -> dict | None:
    try:
        raw = await asyncio.wait_for(redis.get(f"profile:{user_id}"), timeout=CACHE_TIMEOUT_S)
    except asyncio.TimeoutError:
        log.warning("profile cache get timed out", extra={"user_id": user_id, "timeout_ms": 50})
        return None
    return json.loads(raw) if raw else None


async def put_cached_profile(profile: dict) -> None:
    await redis.set(f"profile:{profile['user_id']}", json.dumps(profile), ex=PROFILE_TTL_S)
