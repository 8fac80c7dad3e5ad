from redis.asyncio import Redis


class IdempotencyStore:
    def __init__(self, redis: Redis):
        self._redis = redis

    async def reserve(self, key: str, ttl: int) -> bool:
        return bool(await self._redis.set(f"idem:fjord:{key}", "1", nx=True, ex=ttl))
